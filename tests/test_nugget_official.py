"""Official nugget F on the real TREC answer keys, checked against hand-computed values."""
import pytest

from qascore.nuggets.formats import AnswerKey, Nugget, Question, Run, read_answer_key, read_judgements, read_runs
from qascore.nuggets.official import (
    f_beta, length_precision, non_whitespace_length, score_judged_runs, score_question, score_run,
)


@pytest.fixture(scope="module")
def key2004(restricted_data):
    return read_answer_key(restricted_data / "nuggets" / "trec_qa" / "trec13answers_other")


def test_allowance_edge_exactly_at_l_equal_allowance(key2004):
    crips = key2004["1.6"]  # nuggets 1-4 okay, 5-8 vital: R = 4
    at = score_question(crips, ["5", "6", "1"], 300, beta=3)  # r=2, a=1: allowance 300
    assert at.allowance == 300 and at.precision == 1.0 and at.recall == 0.5
    assert at.f == pytest.approx(10 * 0.5 / (9 + 0.5), abs=0, rel=1e-15)
    over = score_question(crips, ["5", "6", "1"], 301, beta=3)
    p = 1 - 1 / 301
    assert over.precision == pytest.approx(p, rel=1e-15)
    assert over.f == pytest.approx(10 * p * 0.5 / (9 * p + 0.5), rel=1e-15)
    assert score_question(crips, ["5", "6", "1"], 299, beta=3).precision == 1.0


def test_duplicates_count_once_and_okay_only_scores_zero(key2004):
    crips = key2004["1.6"]
    assert score_question(crips, ["5", "5", "5"], 50, beta=3).vital_matched == 1
    okay_only = score_question(crips, ["1", "2"], 10, beta=3)
    assert okay_only.f == 0.0 and okay_only.precision == 1.0 and okay_only.allowance == 200


def test_beta_5_on_the_2003_key(restricted_data):
    key = read_answer_key(restricted_data / "nuggets" / "trec_qa" / "trec12answers_definition")
    copland = key["1901"]  # vital: 1, 2, 3, 8 -> R = 4
    s = score_question(copland, ["1", "5"], 400, beta=5)
    assert (s.vital_total, s.recall, s.precision) == (4, 0.25, 0.5)
    assert s.f == pytest.approx(26 * 0.5 * 0.25 / (25 * 0.5 + 0.25), rel=1e-15)


def test_pyramid_variant(restricted_data):
    key = read_answer_key(restricted_data / "nuggets" / "trec_qa" / "trec15answers_other_pyramid")
    moon = key["141.8"]  # weights 1, .5, .25, .125, .5
    s = score_question(moon, ["1", "3"], 250, beta=3, pyramid=True)
    r = 1.25 / 2.375
    assert s.recall == pytest.approx(r, rel=1e-15) and s.allowance == 200 and s.precision == 0.8
    assert s.f == pytest.approx(10 * 0.8 * r / (9 * 0.8 + r), rel=1e-15)


def test_no_vital_nuggets_scores_zero():
    q = Question("x", "q", [Nugget("x", "1", "a", "okay"), Nugget("x", "2", "b", "okay")])
    s = score_question(q, ["1", "2"], 10, beta=3)
    assert (s.vital_total, s.recall, s.f) == (0, 0.0, 0.0)


def test_nil_only_and_missing_questions_score_zero_in_the_macro_mean(key2004, tmp_path):
    path = tmp_path / "run"
    path.write_text("1.6 tag NIL\n2.5 tag NIL\n", encoding="utf-8")
    run = read_runs(path)["tag"]
    score = score_run(key2004, "tag", {}, run.responses, beta=3)
    assert score.mean == 0.0 and len(score.questions) == 64
    assert score.questions["1.6"].length == 0
    # one perfect question out of 64: the mean divides by every question of the key
    crips = key2004["1.6"]
    run2 = Run("t2")
    run2.add("1.6", "D", "x" * 10)
    score2 = score_run(key2004, "t2", {"1.6": [n.nugget_id for n in crips.nuggets]}, run2.responses, beta=3)
    assert score2.questions["1.6"].f == 1.0 and score2.mean == pytest.approx(1 / 64, rel=1e-15)


def test_unknown_question_is_reported_not_dropped(key2004):
    run = Run("t")
    run.add("999.9", "D", "answer")
    score = score_run(key2004, "t", {}, run.responses, beta=3)
    assert score.unknown_questions == ["999.9"]


def test_unknown_nugget_is_an_error(key2004):
    with pytest.raises(ValueError, match=r"question 1.6: matched nuggets \['99'\] are not in the answer key"):
        score_question(key2004["1.6"], ["99"], 10, beta=3)


def test_judged_runs_use_every_item_and_its_length(tmp_path):
    key = AnswerKey({"q": Question("q", "h", [Nugget("q", "1", "a", "vital"), Nugget("q", "2", "b", "okay")])})
    path = tmp_path / "j"
    path.write_text("q R 1 D " + "a" * 150 + "\nq R 2 D b b\nq R 1 1\nq R 2 2\n", encoding="utf-8")
    score = score_judged_runs(key, read_judgements(path), beta=3)["R"]
    q = score.questions["q"]
    assert (q.length, q.vital_matched, q.okay_matched, q.precision, q.f) == (152, 1, 1, 1.0, 1.0)


def test_helpers():
    assert non_whitespace_length(["a b\tc\n", "\u3000d"]) == 4
    assert length_precision(0, 0) == 1.0 and length_precision(200, 100) == 0.5
    assert f_beta(0.0, 1.0, 3) == 0.0 and f_beta(1.0, 1.0, 3) == 1.0
    with pytest.raises(ValueError, match="beta must be a finite number > 0"):
        score_question(Question("q"), [], 0, beta=0)
