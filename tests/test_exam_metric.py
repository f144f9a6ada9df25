"""The Exam metric: parity with evaluate(), streaming over batches of queries, the n-EXAM range."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from qascore.exam import Articles, Exam, ExamQuestion, LexicalSolver, QuestionBank, evaluate
from qascore.exam.scoring import GOLD_SYSTEM
from qascore.metric import Metric

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_exam_scoring import BANK, ScriptedSolver  # noqa: E402


def sub_bank(bank, queries):
    return QuestionBank([q for q in bank if q.query_id in queries])


def sub_articles(articles, queries):
    return Articles({s: {q: p for q, p in articles.articles(s).items() if q in queries} for s in articles.systems})


def assert_parity(corpus, result):
    """Every figure of the metric equals evaluate()'s to the last bit (None as NaN)."""
    for system, s in result.systems.items():
        assert corpus[f"exam:{system}"] == s.exam
        assert corpus[f"n_exam_cover:{system}"] == s.n_exam_cover
        if result.gold is not None:
            want = s.n_exam_gold
            got = corpus[f"n_exam_gold:{system}"]
            assert (math.isnan(got) and want is None) or got == want
    if result.gold is not None:
        assert corpus[f"exam:{GOLD_SYSTEM}"] == result.gold.exam
    assert corpus.signature == result.signature and corpus.n == len(result.query_ids)


@pytest.fixture(scope="module")
def wikiqa(restricted_data):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "research" / "exam"))
    from wikiqa_bench import build_wikiqa_benchmark

    return build_wikiqa_benchmark(restricted_data / "ava" / "wikiqa", shares=(0.0, 0.4, 0.8, 1.0), max_queries=60)


def test_is_a_metric_exported_from_the_package():
    assert issubclass(Exam, Metric) and Exam.name == "exam"
    assert Exam(ScriptedSolver()).signature().startswith("qascore:exam|")
    assert Exam().settings()["solver"] == "lexical"


def test_corpus_score_equals_evaluate_on_real_data(wikiqa):
    solver = LexicalSolver()
    result = evaluate(wikiqa.bank, wikiqa.systems, solver, gold=wikiqa.gold)
    corpus = Exam(solver).corpus_score(wikiqa.bank, wikiqa.systems, wikiqa.gold)
    assert_parity(corpus, result)
    # more than 8 queries, so numpy's pairwise sums and Python's sequential sums could differ
    assert corpus.n == 60 and corpus["n_exam_gold:share-100"] == 1.0


def test_score_rows_are_the_per_query_exam(wikiqa):
    solver = LexicalSolver()
    result = evaluate(wikiqa.bank, wikiqa.systems, solver)
    scores = Exam(solver).score(wikiqa.bank, wikiqa.systems)
    assert len(scores) == 4 * 60 and scores.ids[0] == ("share-000", wikiqa.bank.query_ids[0])
    for (system, query), exam, cover in zip(scores.ids, scores["exam"], scores["n_exam_cover"]):
        assert exam == result.systems[system].per_query[query]
        assert cover == result.systems[system].per_query_cover[query]
    assert scores.signature == result.signature


def test_streaming_over_query_batches_with_a_fixed_idf(wikiqa):
    """With an idf fixed in advance the solver's answers do not depend on the batch: any split of the
    queries streams to the one-batch figures (float sums in another order: equal to 1e-12)."""
    corpus_texts = [p for q in wikiqa.bank.query_ids for p in wikiqa.gold.articles("gold")[q]]
    metric = Exam(LexicalSolver(idf_corpus=corpus_texts))
    whole = metric.corpus_score(wikiqa.bank, wikiqa.systems, wikiqa.gold)
    queries = wikiqa.bank.query_ids
    for cuts in ([20], [1, 30, 59], [7, 8, 9, 40]):
        metric.reset()
        for part in np.split(np.array(queries), cuts):
            part = set(part.tolist())
            metric.update(sub_bank(wikiqa.bank, part), sub_articles(wikiqa.systems, part),
                          sub_articles(wikiqa.gold, part))
        streamed = metric.compute()
        assert streamed.n == whole.n and list(streamed.values) == list(whole.values)
        for key, value in whole.values.items():
            assert streamed[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
        assert streamed.signature == whole.signature


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=3, max_size=3), st.data())
def test_split_invariance_any_partition(assignment, data):
    """Any partition of BANK's queries into batches (a batch may lack a system: it skipped those
    queries) streams to the one-batch figures."""
    arts = Articles({
        "A": {"q1": ["1 2 3"], "q2": ["4"]},
        "B": {"q1": ["1"], "q2": [], "q3": ["5"]},
        "C": {"q3": ["5"]},
    })
    gold = Articles({"gold": {"q1": ["1 2"], "q2": ["4"], "q3": ["5"]}})
    metric = Exam(ScriptedSolver())
    whole = metric.corpus_score(BANK, arts, gold)
    assert_parity(whole, evaluate(BANK, arts, ScriptedSolver(), gold=gold))
    batches = [{q for q, b in zip(("q1", "q2", "q3"), assignment) if b == i} for i in range(3)]
    for part in data.draw(st.permutations([b for b in batches if b])):
        metric.update(sub_bank(BANK, part), sub_articles(arts, part), sub_articles(gold, part))
    streamed = metric.compute()
    assert set(streamed.values) == set(whole.values)
    for key, value in whole.values.items():
        assert streamed[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


def test_batches_must_agree_on_gold():
    metric = Exam(ScriptedSolver())
    arts = Articles({"A": {"q1": ["1"]}})
    metric.update(sub_bank(BANK, {"q1"}), arts, Articles({"g": {"q1": ["1"]}}))
    with pytest.raises(ValueError, match="gold articles, or none"):
        metric.update(sub_bank(BANK, {"q2"}), Articles({"A": {"q2": ["4"]}}))
    metric.reset()
    with pytest.raises(ValueError, match="before any update"):
        metric.compute()


def test_undefined_n_exam_is_nan_and_above_one_is_kept():
    arts = Articles({"A": {"q1": ["1 2"], "q2": ["4"]}})
    nothing = Exam(ScriptedSolver()).corpus_score(BANK, arts, Articles({"g": {"q1": []}}))
    assert math.isnan(nothing["n_exam_gold:A"])
    weak_gold = Exam(ScriptedSolver()).corpus_score(BANK, arts, Articles({"g": {"q1": ["1"]}}))
    assert weak_gold["n_exam_gold:A"] == pytest.approx((2 / 3 + 1) / (1 / 3)) and weak_gold["n_exam_gold:A"] > 1


def test_gold_n_exam_is_exactly_one_and_systems_may_exceed_it():
    """The paper's n-EXAM is unbounded above (a system may beat an obtuse gold article); the gold
    articles' own n-EXAM, and that of a system equal to them, is exactly 1."""
    gold_articles = {"q1": ["1"], "q2": ["4"], "q3": []}
    arts = Articles({"better": {"q1": ["1 2"], "q2": ["4"], "q3": ["5"]}, "copy": gold_articles})
    result = evaluate(BANK, arts, ScriptedSolver(), gold=Articles({"gold": gold_articles}))
    assert result.gold.n_exam_gold == 1.0 and result.systems["copy"].n_exam_gold == 1.0
    better = result.systems["better"].n_exam_gold
    assert better == pytest.approx((2 / 3 + 1 + 1) / (1 / 3 + 1)) and better > 1
    assert "gold articles" in result.table() and result.table().splitlines()[-1].split()[-1] == "1.000"
    unanswerable = evaluate(BANK, arts, ScriptedSolver(), gold=Articles({"gold": {"q1": []}}))
    assert unanswerable.gold.n_exam_gold is None and unanswerable.table().splitlines()[-1].split()[-1] == "-"


def test_gold_as_a_system_scores_one_on_real_data(wikiqa):
    both = Articles({s: wikiqa.systems.articles(s) for s in wikiqa.systems.systems})
    both.merge(Articles({"gold-copy": wikiqa.gold.articles("gold")}))
    result = evaluate(wikiqa.bank, both, LexicalSolver(), gold=wikiqa.gold)
    assert result.systems["gold-copy"].n_exam_gold == 1.0 and result.gold.n_exam_gold == 1.0


def test_multiple_choice_and_free_text_banks_both_score():
    bank = QuestionBank([ExamQuestion("q1", "1", "what", {"a": "x", "b": "y"}, "a"),
                         ExamQuestion("q1", "2", "who", gold_answers=("zz",))])
    corpus = Exam(ScriptedSolver()).corpus_score(bank, Articles({"A": {"q1": ["1"]}}))
    assert corpus["exam:A"] == 0.5 and "n_exam_gold:A" not in corpus.values
