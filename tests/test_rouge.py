"""The ROUGE API: rouge-score parity on generated text, both multi-reference conventions, bad input."""
from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score.rouge_scorer import RougeScorer as PeerScorer

from qascore._kernels.prf import f_measure, ratio_of_counts, rouge_prf
from qascore._kernels.score_rows import score_rows
from qascore.compat.rouge_score import RougeScorer, Score
from qascore.lexical.rouge import fmeasure, rouge

ALL_TYPES = [f"rouge{n}" for n in range(1, 10)] + ["rougeL", "rougeLsum"]
PEER = {stem: PeerScorer(ALL_TYPES, use_stemmer=stem) for stem in (False, True)}

# words that repeat a lot, stem, carry punctuation, non-ASCII and newlines
WORDS = ["the", "cat", "cats", "running", "runs", "a", "b", "Über", "café", "東京", "x1", "ok.", "--", "\n", "\n\n", " "]
texts = st.lists(st.sampled_from(WORDS), max_size=40).map(" ".join)


def to_dicts(result):
    names = list(result)
    return [
        {name: (result[name].precision[i], result[name].recall[i], result[name].fmeasure[i]) for name in names}
        for i in range(result.n_predictions)
    ]


@settings(max_examples=70, deadline=None)
@given(st.lists(st.tuples(texts, texts), min_size=1, max_size=5), st.booleans())
def test_batch_equals_rouge_score_on_generated_text(pairs, use_stemmer):
    targets = [t for t, _ in pairs]
    predictions = [p for _, p in pairs]
    expected = [PEER[use_stemmer].score(t, p) for t, p in pairs]
    got = to_dicts(rouge(predictions, targets, ALL_TYPES, use_stemmer=use_stemmer))
    assert got == [{k: tuple(v) for k, v in d.items()} for d in expected]
    compat = RougeScorer(ALL_TYPES, use_stemmer=use_stemmer)
    assert [compat.score(t, p) for t, p in pairs] == expected
    assert compat.score_batch(targets, predictions) == expected


@settings(max_examples=40, deadline=None)
@given(st.lists(texts, min_size=1, max_size=4), texts)
def test_score_multi_equals_rouge_score(targets, prediction):
    expected = PEER[False].score_multi(targets, prediction)
    assert RougeScorer(ALL_TYPES).score_multi(targets, prediction) == expected
    got = to_dicts(rouge([prediction], [targets], ALL_TYPES, multi_ref="best_f"))[0]
    assert got == {k: tuple(v) for k, v in expected.items()}


def test_rouge_score_documented_examples():
    scorer = RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"])
    assert scorer.score("testing one two", "testing one")["rougeL"] == pytest.approx((1, 2 / 3, 0.8))
    multi = scorer.score_multi(["first text", "first something"], "text first")
    assert (multi["rouge1"].fmeasure, multi["rouge2"].fmeasure, multi["rougeL"].fmeasure) == (1.0, 0.0, 0.5)
    lsum = RougeScorer(["rougeLsum"]).score("w1 w2 w3 w4 w5", "w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5")["rougeLsum"]
    assert lsum == pytest.approx((0.4, 0.8, 0.5333333333333333))


def test_max_pr_takes_independent_maxima_and_f_gamma():
    # reference 1 has the better precision, reference 2 the better recall
    result = rouge(["a b c d"], [["a b", "a b c d e f g h"]], ["rougeL"], multi_ref="max_pr", gamma=1.2)
    precisions = [2 / 4, 4 / 4]
    recalls = [2 / 2, 4 / 8]
    p, r = max(precisions), max(recalls)
    expected_f = (1 + 1.2**2) * p * r / (r + 1.2**2 * p)
    assert result["rougeL"].precision[0] == p == 1.0
    assert result["rougeL"].recall[0] == r == 1.0
    assert result["rougeL"].fmeasure[0] == expected_f
    # best_f: both references give F = 2/3 exactly, so the first reference's triple is kept
    best = rouge(["a b c d"], [["a b", "a b c d e f g h"]], ["rougeL"], multi_ref="best_f")
    assert (best["rougeL"].precision[0], best["rougeL"].recall[0]) == (0.5, 1.0)


def test_best_f_picks_the_reference_with_the_largest_f():
    # reference 2 has the larger F (0.5 vs 0.25): its whole triple is returned
    result = rouge(["a b"], [["a c d e x y", "a z"]], ["rouge1"], multi_ref="best_f")
    assert (result["rouge1"].precision[0], result["rouge1"].recall[0], result["rouge1"].fmeasure[0]) == (0.5, 0.5, 0.5)


def test_fmeasure_gamma_one_is_rouge_score_f1():
    rng = np.random.default_rng(0)
    p, r = rng.random(1000), rng.random(1000)
    p[:10] = 0
    r[5:15] = 0
    ours = fmeasure(p, r)
    expected = [2 * a * b / (a + b) if a + b > 0 else 0.0 for a, b in zip(p.tolist(), r.tolist())]
    assert ours.tolist() == expected


@pytest.mark.parametrize("gamma", [0.5, 1.2, 3.0])
def test_fmeasure_gamma_is_the_plain_formula(gamma):
    rng = np.random.default_rng(1)
    p, r = rng.random(500), rng.random(500)
    p[:10], r[5:15] = 0, 0
    p[20], r[20] = 5e-324, 5e-324  # subnormal: a positive denominator however small is divided by
    g2 = gamma**2
    expected = [(1 + g2) * a * b / (b + g2 * a) if b + g2 * a > 0 else 0.0 for a, b in zip(p.tolist(), r.tolist())]
    assert fmeasure(p, r, gamma).tolist() == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**40), st.integers(-5, 2**40)), max_size=50), st.integers(0, 8))
def test_ratio_of_counts_is_the_plain_division(pairs, shift):
    numerator = np.array([n for n, _ in pairs], dtype=np.int64)
    denominator = np.array([d for _, d in pairs], dtype=np.int64)
    expected = [n / max(d - shift, 1) for n, d in pairs]  # Python floats: one IEEE division each
    assert ratio_of_counts(numerator, denominator, shift).tolist() == expected
    columns = np.stack([numerator, numerator]).T  # a strided column, as the n-gram scores pass
    assert ratio_of_counts(columns[:, 1], denominator, shift).tolist() == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), max_size=50),
       st.sampled_from([0.25, 0.5, 1.0, 1.2, 3.0]))
def test_f_measure_kernel_is_the_plain_formula(pairs, gamma):
    g2 = gamma**2
    p = np.array([a for a, _ in pairs], dtype=np.float64)
    r = np.array([b for _, b in pairs], dtype=np.float64)
    expected = [(1 + g2) * a * b / (b + g2 * a) if b + g2 * a > 0 else 0.0 for a, b in pairs]
    assert f_measure(p, r, g2).tolist() == expected
    assert fmeasure(p, r, gamma).tolist() == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, 300), min_size=3, max_size=3), st.integers(0, 300),
                          st.integers(0, 300), st.integers(0, 300)), max_size=30),
       st.lists(st.integers(1, 3), max_size=3, unique=True), st.booleans(), st.sampled_from([0.25, 1.0, 3.0]))
def test_rouge_prf_is_ratio_then_f_per_type(rows, orders, with_lcs, gamma):
    g2 = gamma**2
    matches = np.array([m for m, *_ in rows], dtype=np.int64).reshape(len(rows), 3)
    lcs = np.array([x[1] for x in rows], dtype=np.int64)
    pred_len = np.array([x[2] for x in rows], dtype=np.int64)
    ref_len = np.array([x[3] for x in rows], dtype=np.int64)
    got = rouge_prf(matches, tuple(orders), lcs if with_lcs else None, pred_len, ref_len, g2)
    counts = [(matches[:, n - 1], n - 1) for n in orders] + ([(lcs, 0)] if with_lcs else [])
    assert len(got) == len(counts)
    for (numerator, shift), (p, r, f) in zip(counts, got):
        assert p.tolist() == ratio_of_counts(numerator.copy(), pred_len, shift).tolist()
        assert r.tolist() == ratio_of_counts(numerator.copy(), ref_len, shift).tolist()
        assert f.tolist() == f_measure(p.copy(), r.copy(), g2).tolist()


def test_rouge_prf_checks_shapes():
    k2, k3 = np.zeros(2, dtype=np.int64), np.zeros(3, dtype=np.int64)
    with pytest.raises(ValueError, match="counts of 2 pairs must all have 2 rows"):
        rouge_prf(np.zeros((2, 1), dtype=np.int64), (1,), k3, k2, k2, 1.0)
    with pytest.raises(ValueError, match="order 2 has no column in matches of 1 orders"):
        rouge_prf(np.zeros((2, 1), dtype=np.int64), (2,), None, k2, k2, 1.0)


def test_fmeasure_broadcasts_other_shapes_and_kernels_check_lengths():
    p = np.array([[0.5, 0.0], [0.25, 1.0]])
    assert fmeasure(p, 0.5).tolist() == [[0.5, 0.0], [2 * 0.25 * 0.5 / 0.75, 2 * 0.5 / 1.5]]
    assert fmeasure([0.5], [0.5]).tolist() == [0.5]
    with pytest.raises(ValueError, match="numerator has 2 entries but denominator has 1"):
        ratio_of_counts(np.zeros(2, dtype=np.int64), np.zeros(1, dtype=np.int64))
    with pytest.raises(ValueError, match="precision has 1 entries but recall has 2"):
        f_measure(np.zeros(1), np.zeros(2), 1.0)


def test_empty_texts_score_like_rouge_score():
    pairs = [("", ""), ("", "a"), ("a", ""), ("...", "a b"), ("\n\n", "a\n")]
    expected = [PEER[False].score(t, p) for t, p in pairs]
    got = to_dicts(rouge([p for _, p in pairs], [t for t, _ in pairs], ALL_TYPES))
    assert got == [{k: tuple(v) for k, v in d.items()} for d in expected]


def test_long_texts_match_rouge_score():
    rng = np.random.default_rng(3)
    vocab = np.array([f"w{i}" for i in range(30)])
    target = " ".join(rng.choice(vocab, 1200))
    prediction = " ".join(rng.choice(vocab, 1100))
    expected = PeerScorer(["rouge1", "rouge4", "rougeL"]).score(target, prediction)
    assert RougeScorer(["rouge1", "rouge4", "rougeL"]).score(target, prediction) == expected


def test_signature_and_mean():
    result = rouge(["a b", "c"], ["a b", "d"], ["rouge1", "rougeLsum"], use_stemmer=True)
    assert result.signature.startswith("qascore:rouge|types:rouge1,rougeLsum|tok:rouge|stem:yes|multiref:best_f")
    assert "sents:newline" in result.signature
    assert result.mean()["rouge1"] == {"precision": 0.5, "recall": 0.5, "fmeasure": 0.5}
    assert "gamma:1.2" in rouge(["a"], ["a"], ["rougeL"], multi_ref="max_pr", gamma=1.2).signature


def test_unicode_tokenizer_scores_scripts_rouge_tokenizer_deletes():
    assert rouge(["東京 大学"], ["東京"], ["rouge1"])["rouge1"].fmeasure[0] == 0.0
    assert rouge(["東京 大学"], ["東京"], ["rouge1"], tokenizer="unicode")["rouge1"].recall[0] == 1.0


def test_bad_input_is_named():
    with pytest.raises(TypeError, match=r"predictions\[1\]"):
        rouge(["a", None], ["a", "b"])
    with pytest.raises(TypeError, match=r"references\[0\]"):
        rouge(["a"], [3])
    with pytest.raises(TypeError, match=r"references\[0\]\[1\]"):
        rouge(["a"], [["a", None]])
    with pytest.raises(ValueError, match="references has 1 items but predictions has 2"):
        rouge(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="empty list"):
        rouge(["a"], [[]])
    with pytest.raises(ValueError, match="Invalid rouge type"):
        rouge(["a"], ["a"], ["rouge0"])
    with pytest.raises(ValueError, match="multi_ref"):
        rouge(["a"], ["a"], multi_ref="mean")
    with pytest.raises(TypeError):
        rouge("a", ["a"])
    with pytest.raises(ValueError, match="stemming"):
        rouge(["a"], ["a"], tokenizer="whitespace", use_stemmer=True)
    scorer = RougeScorer(["rougeL"])
    with pytest.raises(TypeError, match="prediction"):
        scorer.score("a", None)
    with pytest.raises(TypeError, match=r"targets\[1\]"):
        scorer.score_batch(["a", 1], ["a", "b"])
    with pytest.raises(ValueError, match="predictions has 1"):
        scorer.score_batch(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="Invalid rouge type"):
        RougeScorer(["rougeX"])


def test_score_rows_build_the_namedtuples_python_would():
    rng = np.random.default_rng(2)
    columns = [tuple(rng.random(5) for _ in range(3)) for _ in range(2)]
    rows = score_rows(("rouge1", "rougeL"), columns, Score)
    expected = [{name: Score(*(float(a[i]) for a in column)) for name, column in zip(("rouge1", "rougeL"), columns)}
                for i in range(5)]
    assert rows == expected
    assert all(type(s) is Score and s.fmeasure == s[2] for row in rows for s in row.values())
    assert score_rows(("rougeL",), [(np.zeros(0),) * 3], Score) == []
    assert RougeScorer(["rougeL"]).score_batch([], []) == []
    with pytest.raises(ValueError, match="column 0 must be three arrays of 2 entries"):
        score_rows(("rougeL",), [(np.zeros(2), np.zeros(2), np.zeros(1))], Score)
    with pytest.raises(ValueError, match="column 0 must be three arrays of 0 entries"):
        score_rows(("rougeL",), [()], Score)
    with pytest.raises(ValueError, match="1 names need as many columns"):
        score_rows(("rougeL",), [], Score)
    with pytest.raises(TypeError, match="namedtuple class of three fields"):
        score_rows(("rougeL",), [(np.zeros(1),) * 3], dict)


def test_custom_tokenizer_like_rouge_score():
    class Whitespace:
        def tokenize(self, text):
            return text.split()

    pairs = [("Über café x", "über café x"), ("a\nb c", "b a c")]
    peer = PeerScorer(["rouge1", "rougeL", "rougeLsum"], tokenizer=Whitespace())
    ours = RougeScorer(["rouge1", "rougeL", "rougeLsum"], tokenizer=Whitespace())
    expected = [peer.score(t, p) for t, p in pairs]
    assert [ours.score(t, p) for t, p in pairs] == expected
    assert ours.score_batch([t for t, _ in pairs], [p for _, p in pairs]) == expected


def test_split_summaries_without_punkt_is_a_clear_error():
    try:
        import nltk

        nltk.sent_tokenize("One. Two.")
        pytest.skip("punkt is installed here; the error path cannot be exercised")
    except LookupError:
        pass
    with pytest.raises(LookupError, match="punkt_tab"):
        RougeScorer(["rougeLsum"], split_summaries=True).score("One. Two.", "One.")


def test_score_results_are_namedtuples():
    s = RougeScorer(["rouge1"]).score("a b", "a")["rouge1"]
    assert isinstance(s, Score) and s._fields == ("precision", "recall", "fmeasure")


def test_threads_and_n_jobs_give_identical_results():
    rng = np.random.default_rng(9)
    vocab = np.array([f"w{i}" for i in range(50)])
    preds = [" ".join(rng.choice(vocab, rng.integers(0, 120))) for _ in range(500)]
    refs = [[" ".join(rng.choice(vocab, rng.integers(0, 120))) + "\n" + "w1 w2"] * 2 for _ in range(500)]
    types = ["rouge2", "rougeL", "rougeLsum"]
    one = rouge(preds, refs, types, n_jobs=1)
    two = rouge(preds, refs, types, n_jobs=2)
    outputs = []

    def work():
        outputs.append(rouge(preds, refs, types, n_jobs=2))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for other in [two, *outputs]:
        for name in types:
            for field in ("precision", "recall", "fmeasure"):
                assert np.array_equal(getattr(one[name], field), getattr(other[name], field))
    assert len(outputs) == 4
