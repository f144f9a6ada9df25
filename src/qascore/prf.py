"""Precision, recall and F: the one place they are formed, for every method.

Arrays go through the compiled kernels (``kernels/prf.pyx``, formulas in
``kernels/include/qs_prf.h``); one pair of numbers goes through :func:`f_score`, the same IEEE
operations in the same order written in Python (a call into a kernel for two floats would cost
more than the formula). The two agree bit for bit on non-negative inputs
(``tests/test_architecture.py`` checks that no other module writes an F formula, and
``tests/test_rouge.py`` that the two agree).

F weighs recall ``beta_squared`` times as much as precision:
``(1 + beta_squared) * P * R / (R + beta_squared * P)``. Callers square their own beta, as the
script they reproduce does (``beta ** 2`` in coco-caption and the DuReader script, ``beta * beta``
in the TREC nugget scorer), since the two squarings need not round alike.
"""
from __future__ import annotations

import numpy as np

from ._kernels.prf import f_measure, pair_score, ratio_of_counts, rouge_prf

__all__ = ["count_ratios", "f_score", "f_scores", "pair_score", "prf_of_counts", "ratio_of_counts", "rouge_prf"]


def f_score(precision: float, recall: float, beta_squared: float = 1, otherwise: float = 0.0) -> float:
    """``(1 + beta_squared) * precision * recall / (recall + beta_squared * precision)``, and
    ``otherwise`` (0.0) where that denominator is not positive (where both are 0).

    With the default ``beta_squared`` 1 (an int) this is rouge-score's ``scoring.fmeasure``,
    ``2 * P * R / (P + R)``, to the last bit for any numbers it accepts: ``1 + 1`` is 2 and
    ``R + 1 * P`` is ``P + R``, so even ints and fractions go through the same operations.

    Example:

        >>> f_score(0.5, 0.25)
        0.3333333333333333
        >>> f_score(0.0, 0.0)
        0.0

    :param precision: a precision (a number >= 0).
    :param recall: a recall (a number >= 0).
    :param beta_squared: how many times recall weighs as much as precision.
    :param otherwise: the score where the denominator is not positive (sacreBLEU's chrF gives its
        epsilon there).
    :returns: the F score.
    """
    denominator = recall + beta_squared * precision
    if denominator > 0:
        return (1 + beta_squared) * precision * recall / denominator
    return otherwise


def f_scores(precision, recall, beta_squared: float = 1.0) -> np.ndarray:
    """:func:`f_score` of each pair of elements, as float64 (0 where precision and recall are
    both 0), in one compiled pass; arrays of other shapes are broadcast first.

    Example:

        >>> f_scores([0.5, 0.0], [0.25, 0.0]).tolist()
        [0.3333333333333333, 0.0]

    :param precision: precisions (array-like of numbers >= 0).
    :param recall: recalls, broadcastable against ``precision``.
    :param beta_squared: how many times recall weighs as much as precision.
    :returns: a float64 array of F scores of the broadcast shape.
    :raises ValueError: for shapes that do not broadcast.
    """
    p = np.ascontiguousarray(precision, dtype=np.float64)
    r = np.ascontiguousarray(recall, dtype=np.float64)
    if p.ndim == 1 and p.shape == r.shape:
        return f_measure(p, r, float(beta_squared))
    p, r = np.broadcast_arrays(p, r)
    return f_measure(p.ravel(), r.ravel(), float(beta_squared)).reshape(p.shape)


def count_ratios(numerator, denominator, shift: int = 0) -> np.ndarray:
    """``numerator / max(denominator - shift, 1)`` per element, as float64 (``shift`` n - 1 turns
    a token count into an n-gram count). A count of matches over a count of items is 0 where
    either side is empty, as rouge-score's early 0.

    Example:

        >>> count_ratios([1, 2, 0], [4, 3, 0]).tolist()
        [0.25, 0.6666666666666666, 0.0]
        >>> count_ratios([1], [3], shift=1).tolist()  # 3 tokens make 2 bigrams
        [0.5]

    :param numerator: match counts (integers, any 1-D array-like).
    :param denominator: item counts, one per numerator.
    :param shift: subtracted from each denominator first (n - 1 for n-grams of a token count).
    :returns: a float64 array of the ratios.
    :raises ValueError: for arrays of different lengths.
    """
    return ratio_of_counts(np.asarray(numerator, dtype=np.int64), np.asarray(denominator, dtype=np.int64), shift)


def prf_of_counts(hits, predicted, target, *, shift: int = 0,
                  beta_squared: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(precision, recall, F) arrays from match counts and the two sides' item counts:
    ``hits / max(predicted - shift, 1)``, ``hits / max(target - shift, 1)`` and :func:`f_scores`
    of the two (rouge-score's ROUGE-N with ``shift`` n - 1).

    Example:

        >>> precision, recall, f = prf_of_counts([1, 0], [2, 3], [4, 0])
        >>> precision.tolist(), recall.tolist(), f.tolist()
        ([0.5, 0.0], [0.25, 0.0], [0.3333333333333333, 0.0])

    :param hits: match counts per row.
    :param predicted: the predicted side's item counts per row.
    :param target: the target side's item counts per row.
    :param shift: subtracted from both item counts first (n - 1 for ROUGE-N).
    :param beta_squared: how many times recall weighs as much as precision.
    :returns: ``(precision, recall, f)``, three float64 arrays.
    :raises ValueError: for arrays of different lengths.
    """
    precision = count_ratios(hits, predicted, shift)
    recall = count_ratios(hits, target, shift)
    return precision, recall, f_measure(precision, recall, float(beta_squared))
