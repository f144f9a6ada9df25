"""Adapted ROUGE-L / BLEU (DuReader 2018 script semantics): official outputs, the reference doc's toy
cases, the paper's worked examples, a plain-Python rendering of the script's algorithm on generated
corpora, and the defined outcomes for bad input."""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.errors import InputFormatError
from qascore.lexical.formats import (
    DuReaderPrediction,
    DuReaderReference,
    read_dureader_predictions,
    read_dureader_references,
)
from qascore.lexical.mrc import score_dureader

from mrc_reference import oracle_official

DEMO_SETS = {
    "mrc_eval_demo": ("dureader2018_demo/pred.json", "dureader2018_demo/ref.json"),
    "dureader2_demo_fake": ("dureader2_demo/pred_fake_answers.jsonl", "dureader2_demo/ref_from_demo_dev.jsonl"),
    "dureader2_demo_fake_flipped": ("dureader2_demo/pred_fake_answers_flipped_yesno.jsonl",
                                    "dureader2_demo/ref_from_demo_dev.jsonl"),
}


def ref(qid, answers, qtype="DESCRIPTION", yesno=(), entities=(), line=1):
    return DuReaderReference(qid, qtype, tuple(answers), tuple(yesno), tuple(tuple(e) for e in entities), "ref", line)


def pred(qid, answer, yesno=()):
    return DuReaderPrediction(qid, (answer,) if answer is not None else (), tuple(yesno), "pred", 1)


def score_one(reference, prediction, **kw):
    return score_dureader({prediction.question_id: prediction}, {reference.question_id: reference}, **kw)


# ---- the official script's numbers ----------------------------------------------------------
@pytest.mark.parametrize("name", list(DEMO_SETS))
@pytest.mark.parametrize("alpha,beta", [(1, 1), (0, 0), (1, 0), (0, 1)])
def test_official_script_outputs(shared_data, name, alpha, beta):
    expected = json.loads((shared_data / "mrc/expected_official_script_outputs.json").read_text())
    want = expected[f"{name}|alpha={alpha}|beta={beta}"]
    pred_file, ref_file = DEMO_SETS[name]
    got = score_dureader(read_dureader_predictions(shared_data / "mrc" / pred_file),
                         read_dureader_references(shared_data / "mrc" / ref_file), alpha=alpha, beta=beta)
    assert got.rouge_l == pytest.approx(want["ROUGE-L"], abs=1e-9)
    assert got.bleu == pytest.approx(want["BLEU-1..4"], abs=1e-9)
    assert got.bleu4 == pytest.approx(want["BLEU-4"], abs=1e-9)
    assert got.match_ngram == want["match_ngram"] and got.candi_ngram == want["candi_ngram"]
    assert (got.c_total, got.r_total, got.n_scored) == (want["bp_c"], want["bp_r"], want["n_scored"])


def test_lic2019_variant_on_the_2018_demo(shared_data):
    got = score_dureader(read_dureader_predictions(shared_data / "mrc/dureader2018_demo/pred.json"),
                         read_dureader_references(shared_data / "mrc/dureader2018_demo/ref.json"), variant="lic2019")
    assert round(got.rouge_l, 7) == 0.5666570
    assert round(got.bleu4, 7) == 0.2452567


# ---- the reference doc's toy cases (alpha = beta = 1, gamma = 1.2) ---------------------------
@pytest.mark.parametrize("reference,prediction,rouge_l,bleu", [
    (ref(1, ["abcde"]), pred(1, "abxde"), 0.8, [0.8, 0.63246, 0, 0]),
    (ref(1, ["abcde", "abxdefgh"]), pred(1, "abxde"), 0.8714285714, [1, 1, 1, 1]),
    (ref(1, ["abcde"], "YES_NO", ["Yes"]), pred(1, "abxde", ["Yes"]), 0.8888888889, [0.88889, 0.76980, 0, 0]),
    (ref(1, ["abcde"], "YES_NO", ["Yes"]), pred(1, "abxde", ["No"]), 0.8, [0.8, 0.63246, 0, 0]),
    (ref(1, ["abcdefgh"], "YES_NO", ["Yes"]), pred(1, "abcdxfgh", ["Yes"]), 0.9333333333,
     [0.93333, 0.88192, 0.80338, 0.6447788068]),
    (ref(1, ["abcdefgh"]), pred(1, "abcdxfgh"), 0.875, [0.875, 0.79057, 0.67860, 0.5]),
    (ref(1, ["abcdefgh"], "ENTITY", entities=[["ab", "fgh", "zz"]]), pred(1, "abcdxfgh"), 0.9230769231,
     [0.92308, 0.85934, 0.75006, 0.5389890682]),
    (ref(1, ["a b  c\td"]), pred(1, "abcd"), 1.0, [1, 1, 1, 1]),
])
def test_reference_doc_toy_cases(reference, prediction, rouge_l, bleu):
    got = score_one(reference, prediction)
    assert got.rouge_l == pytest.approx(rouge_l, abs=1e-9)
    assert got.bleu == pytest.approx(bleu, abs=1e-5)


def test_independent_max_of_precision_and_recall_over_references():
    refs = {1: ref(1, ["abcdefgh", "ab"]), 2: ref(2, ["abcdefgh"])}
    preds = {1: pred(1, "abcd"), 2: pred(2, "abcdefgh")}
    got = score_dureader(preds, refs, per_question=True)
    assert got.rouge_l == 1.0 and got.bleu == [1.0, 1.0, 1.0, 1.0]
    assert (got.c_total, got.r_total) == (12, 10)
    assert got.rouge_l_per_question.tolist() == [1.0, 1.0]


# ---- the paper's worked examples (word tokens incl. the period; harmonic mean, gamma = 1) ----
SKIP_Q = "Skipping rope is an aerobic exercise ."
SKIP_GOLD = ["Skipping rope is a kind of aerobic exercise with low intensity .",
             "Skipping rope can be regarded as an aerobic exercise only when skipping for a long time ."]
QIN_PRED = "Qin unified China in 221 BC after the war against other kingdoms which lasted ten years ."
QIN_GOLD = ["Qin unified China in ten years , from 230 BC to 221 BC ."]
QIN_ENTITIES = [["ten years", "230 BC", "221 BC"]]


def paper_score(reference, prediction, alpha=1.0, beta=1.0):
    return score_one(reference, prediction, alpha=alpha, beta=beta, gamma=1.0, tokenize="whitespace")


def test_paper_example_1_adapted_bigram_precision():
    reference = ref(1, SKIP_GOLD, "YES_NO", ["Yes", "Depends"])
    vanilla = paper_score(reference, pred(1, SKIP_Q, ["Yes"]), alpha=0.0)
    adapted = paper_score(reference, pred(1, SKIP_Q, ["Yes"]))
    assert (vanilla.match_ngram[1], vanilla.candi_ngram[1]) == (4, 6)  # 4 / 6 = 0.67
    assert (adapted.match_ngram[1], adapted.candi_ngram[1]) == (7, 9)  # (4 + 3) / (6 + 3) = 0.78


def test_paper_example_2_adapted_bigram_precision():
    reference = ref(1, QIN_GOLD, "ENTITY", entities=QIN_ENTITIES)
    vanilla = paper_score(reference, pred(1, QIN_PRED), beta=0.0)
    adapted = paper_score(reference, pred(1, QIN_PRED))
    assert (vanilla.match_ngram[1], vanilla.candi_ngram[1]) == (5, 16)  # 0.31
    assert (adapted.match_ngram[1], adapted.candi_ngram[1]) == (7, 18)  # 0.39


def test_paper_example_3_yes_no_rouge_l():
    reference = ref(1, SKIP_GOLD, "YES_NO", ["Yes", "Depends"])
    adapted = paper_score(reference, pred(1, SKIP_Q, ["Yes"]))
    vanilla = paper_score(reference, pred(1, SKIP_Q, ["Yes"]), alpha=0.0)
    # P = (6 + 6) / (7 + 6) and R = (6 + 6) / (12 + 6) as printed; their harmonic mean is 0.774,
    # not the printed 0.78, and the vanilla one is 2 * (6/7) * (6/12) / (6/7 + 6/12) = 0.632, not
    # the printed 0.59 (which is what the period-free tokens give: P 5/6, R 5/11).
    p, r = 12 / 13, 12 / 18
    assert adapted.rouge_l == pytest.approx(2 * p * r / (p + r), abs=1e-12)
    assert round(adapted.rouge_l, 3) == 0.774
    assert vanilla.rouge_l == pytest.approx(2 * (6 / 7) * 0.5 / (6 / 7 + 0.5), abs=1e-12)


def test_paper_example_4_entity_rouge_l():
    reference = ref(1, QIN_GOLD, "ENTITY", entities=QIN_ENTITIES)
    adapted = paper_score(reference, pred(1, QIN_PRED))
    vanilla = paper_score(reference, pred(1, QIN_PRED), beta=0.0)
    p, r = 11 / 21, 11 / 18  # printed 0.52 and 0.61
    assert adapted.rouge_l == pytest.approx(2 * p * r / (p + r), abs=1e-12)
    assert round(adapted.rouge_l, 2) == 0.56 and round(vanilla.rouge_l, 2) == 0.45


chars = st.text(alphabet="abc，。 ”“\u3000", max_size=9)
labels = st.sampled_from(["Yes", "No", "Depends"])


@st.composite
def corpora(draw):
    refs, preds = {}, {}
    for qid in range(draw(st.integers(1, 5))):
        qtype = draw(st.sampled_from(["YES_NO", "ENTITY", "DESCRIPTION"]))
        answers = draw(st.lists(chars, max_size=3))
        yesno = [draw(labels) for _ in answers] if qtype == "YES_NO" else []
        entities = [draw(st.lists(st.text(alphabet="abc", max_size=3), max_size=3)) for _ in answers]
        refs[qid] = ref(qid, answers, qtype, yesno, entities if qtype == "ENTITY" else [])
        if draw(st.booleans()) or qid == 0:
            preds[qid] = pred(qid, draw(st.one_of(st.none(), chars)),
                              [draw(labels)] if draw(st.booleans()) else [])
    if not any(r.answers for r in refs.values()):
        refs[99] = ref(99, ["ab"])
    return preds, refs


@settings(max_examples=250, deadline=None)
@given(corpus=corpora(), alpha=st.sampled_from([0.0, 0.5, 1.0, 2.0]), beta=st.sampled_from([0.0, 1.0, 1.7]),
       gamma=st.sampled_from([1.0, 1.2]), variant=st.sampled_from(["mrc2018", "lic2019"]))
def test_matches_plain_python_script_algorithm(corpus, alpha, beta, gamma, variant):
    preds, refs = corpus
    got = score_dureader(preds, refs, alpha=alpha, beta=beta, gamma=gamma, variant=variant, n_jobs=2)
    rouge_l, bleu, match, candi = oracle_official(preds, refs, alpha, beta, gamma, variant)
    assert got.rouge_l == pytest.approx(rouge_l, abs=1e-12)
    assert got.bleu == pytest.approx(bleu, abs=1e-12)
    assert got.match_ngram == pytest.approx(match, abs=1e-9) and got.candi_ngram == pytest.approx(candi, abs=1e-9)


# ---- defined outcomes for bad input ---------------------------------------------------------
def write(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def test_missing_field_names_file_and_line(tmp_path):
    path = write(tmp_path, "ref.json", [{"question_id": 1, "question_type": "ENTITY", "answers": ["a"]},
                                        {"question_id": 2, "answers": ["b"]}])
    with pytest.raises(InputFormatError, match=r"ref.json:2: missing field 'question_type'"):
        read_dureader_references(path)
    path = write(tmp_path, "pred.json", [{"question_id": 1}])
    with pytest.raises(InputFormatError, match=r"pred.json:1: missing field 'answers'"):
        read_dureader_predictions(path)


def test_duplicate_question_id_names_both_lines(tmp_path):
    path = write(tmp_path, "pred.json", [{"question_id": 7, "answers": ["a"]}, {"question_id": 7, "answers": ["b"]}])
    with pytest.raises(InputFormatError, match=r"pred.json:2: duplicate question_id 7 \(first on line 1\)"):
        read_dureader_predictions(path)


def test_yesno_labels_shorter_than_answers_is_a_clear_error(tmp_path):
    path = write(tmp_path, "ref.json", [{"question_id": 1, "question_type": "YES_NO", "answers": ["a", "b"],
                                         "yesno_answers": ["Yes"]}])
    refs = read_dureader_references(path)
    with pytest.raises(InputFormatError, match=r"ref.json:1: question 1: yesno_answers has 1 labels for 2 answers"):
        score_dureader({1: pred(1, "a", ["Yes"])}, refs)
    # Without a predicted label the bonus is not used and the question scores normally.
    assert score_dureader({1: pred(1, "a")}, refs).rouge_l == 1.0


def test_empty_reference_lists_are_skipped_and_nothing_left_is_an_error():
    refs = {1: ref(1, []), 2: ref(2, ["abc"])}
    got = score_dureader({2: pred(2, "abc")}, refs)
    assert got.n_scored == 1 and got.rouge_l == 1.0
    with pytest.raises(ValueError, match="nothing to score"):
        score_dureader({}, {1: ref(1, [])})


def test_all_empty_predictions_score_zero_with_counts():
    refs = {1: ref(1, ["abc"]), 2: ref(2, ["de"]), 3: ref(3, ["f"])}
    got = score_dureader({1: pred(1, ""), 2: pred(2, None), 4: pred(4, "x")}, refs)
    assert got.rouge_l == 0.0 and got.bleu == [0.0] * 4
    assert got.c_total == 0 and got.candi_ngram == [0.0] * 4
    assert (got.n_missing_predictions, got.n_unused_predictions) == (1, 1)


def test_unknown_options_are_named():
    with pytest.raises(ValueError, match="unknown variant"):
        score_dureader({}, {1: ref(1, ["a"])}, variant="lic2020")
    with pytest.raises(ValueError, match="unknown tokenize"):
        score_dureader({}, {1: ref(1, ["a"])}, tokenize="bpe")


def test_per_question_report_needs_per_question_scores():
    r = score_one(ref(1, ["ab"]), pred(1, "ab"))
    with pytest.raises(ValueError, match="per_question=True"):
        r.to_dict(per_question=True)
    assert "per_question" not in r.to_dict()
