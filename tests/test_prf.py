"""qascore.prf, the one place P / R / F are formed: its scalar and array roads give the same bits,
and each equals the formula, in its own order of operations, of the script a caller reproduces."""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.prf import count_ratios, f_score, f_scores, prf_of_counts

rouge_scoring = pytest.importorskip("rouge_score.scoring")

UNIT = st.floats(0, 1)
PAIRS = st.lists(st.tuples(UNIT, UNIT), max_size=40)
# squared weights as each caller forms them: rouge-score (1), coco-caption and DuReader
# (beta ** 2, beta 1.2), TREC (beta * beta, beta 3 and 5), and a few others
WEIGHTS = st.sampled_from([1, 1.0, 1.2 ** 2, 3.0 * 3.0, 5.0 * 5.0, 0.25, 0.0])


def coco_dureader(p: float, r: float, b2: float) -> float:
    """coco-caption's Rouge and the DuReader script: 0 unless both are non-zero."""
    return ((1 + b2) * p * r) / float(r + b2 * p) if p != 0 and r != 0 else 0.0


def trec(r: float, p: float, b2: float) -> float:
    """The TREC nugget scorer's F(beta): 0 unless both are positive."""
    return 0.0 if r <= 0.0 or p <= 0.0 else (b2 + 1.0) * p * r / (b2 * p + r)


@settings(max_examples=300, deadline=None)
@given(PAIRS, WEIGHTS)
def test_scalar_and_array_roads_give_the_same_bits(pairs, b2):
    p = np.array([a for a, _ in pairs], dtype=np.float64)
    r = np.array([b for _, b in pairs], dtype=np.float64)
    scalar = [f_score(a, b, b2) for a, b in pairs]
    assert f_scores(p, r, b2).tolist() == scalar
    if b2:
        assert scalar == [coco_dureader(a, b, b2) for a, b in pairs] == [trec(b, a, b2) for a, b in pairs]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.tuples(st.floats(-2, 2), st.floats(-2, 2)), st.tuples(st.integers(-9, 2**60), st.integers(0, 2**60))))
def test_default_weight_is_rouge_score_fmeasure_for_any_numbers(pair):
    """Negative numbers and ints included: the same value and type as rouge-score's."""
    got, expected = f_score(*pair), rouge_scoring.fmeasure(*pair)
    assert (got, type(got)) == (expected, type(expected))


def test_fractions_stay_exact_as_in_rouge_score():
    p, r = Fraction(1, 3), Fraction(1, 7)
    assert f_score(p, r) == rouge_scoring.fmeasure(p, r) == Fraction(1, 5)


def test_counts_give_rouge_n_precision_recall_and_f():
    hits, predicted, target = [3, 0, 2, 0], [4, 5, 2, 0], [6, 0, 3, 2]
    precision, recall, f = prf_of_counts(hits, predicted, target, shift=1)  # bigrams: L - 1 of them
    assert precision.tolist() == [3 / 3, 0.0, 2 / 1, 0.0]
    assert recall.tolist() == [3 / 5, 0.0, 2 / 2, 0.0]
    assert f.tolist() == [f_score(a, b) for a, b in zip(precision.tolist(), recall.tolist())]
    assert count_ratios(hits, predicted).tolist() == [3 / 4, 0.0, 2 / 2, 0.0]


def test_arrays_broadcast_and_lengths_must_agree():
    assert f_scores([[0.5], [1.0]], [0.5, 0.0]).tolist() == [[0.5, 0.0], [2 * 0.5 / 1.5, 0.0]]
    with pytest.raises(ValueError, match="numerator has 2 entries but denominator has 3"):
        prf_of_counts([1, 2], [1, 2], [1, 2, 3])
