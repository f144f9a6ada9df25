"""Correlation and agreement: Kendall tau-a/b/c and gamma, Spearman, Pearson, RMSE, R^2.

Single pairs (``kendalltau(x, y)``) and batches of row pairs (``kendalltau_rows(X, Y)``) share the
statistics' kernels: one pair goes to the statistic's serial kernel (numpy sorts for the rank
statistics), a batch to a kernel that runs rows in parallel; p-values are vectorised over rows
with ``scipy.special`` in scipy's own formulas.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._parallel import numba_threads
from ..signature import make_signature
from ..validate import ALTERNATIVES, check_choice, check_enough, check_pair, warn_constant
from . import _kernels as K

_KENDALL_CODES = {"a": K.KENDALL_A, "b": K.KENDALL_B, "c": K.KENDALL_C}
_ALT_CODES = {"two-sided": 0, "less": 1, "greater": 2}


class _StatisticPvalue:
    """Tuple-like as scipy's results: ``statistic, pvalue = res``, ``res[0]``, ``res[-1]``,
    ``len(res) == 2``, and the attributes (``res.statistic``, ``res.pvalue``) beside them."""

    __slots__ = ()
    statistic: Any
    pvalue: Any

    def __iter__(self):
        return iter((self.statistic, self.pvalue))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index):
        return (self.statistic, self.pvalue)[index]


@dataclass(frozen=True)
class CorrelationResult(_StatisticPvalue):
    """One correlation: unpacks and indexes as ``(statistic, pvalue)`` like scipy's results.

    pvalue is None for statistics without a test here (gamma); n is the number of pairs used
    (after nan_policy='omit'); signature records every setting.

    Example:

        >>> result = spearmanr([1, 2, 3, 4], [1, 3, 2, 4])
        >>> statistic, pvalue = result
        >>> round(statistic, 6), round(pvalue, 6), result.n
        (0.8, 0.2, 4)
    """

    statistic: float
    pvalue: float | None
    n: int
    signature: str

    @property
    def correlation(self) -> float:
        return self.statistic


@dataclass(frozen=True)
class RowsResult(_StatisticPvalue):
    """Row-wise correlations of two (rows x items) arrays; arrays of length rows. Unpacks and
    indexes as ``(statistic, pvalue)``.

    Example:

        >>> statistic, pvalue = kendalltau_rows([[1, 2, 3], [1, 2, 3]], [[1, 2, 3], [3, 2, 1]])
        >>> statistic.tolist(), pvalue.round(4).tolist()
        ([1.0, -1.0], [0.3333, 0.3333])
    """

    statistic: np.ndarray
    pvalue: np.ndarray | None
    n: np.ndarray
    signature: str


def _rows_of(x, y, batched: bool, name: str, nan_policy: str, finite: bool):
    ndim = 2 if batched else 1
    names = ("X", "Y") if batched else ("x", "y")
    X, Y = check_pair(x, y, names, nan_policy, finite, ndim)
    if not batched:
        X, Y = X[None, :], Y[None, :]
    if X.shape[1] < 2:
        raise ValueError(f"{name} needs at least 2 paired items, got {X.shape[1]}")
    return X, Y


def _single_or_rows(batched, statistic, pvalue, n, signature):
    if batched:
        return RowsResult(statistic, pvalue, n, signature)
    return CorrelationResult(float(statistic[0]), None if pvalue is None else float(pvalue[0]),
                             int(n[0]), signature)


def _pvalue_from_normal(z, alternative):
    if alternative == "less":
        return special.ndtr(z)
    if alternative == "greater":
        return special.ndtr(-z)
    return 2 * special.ndtr(-np.abs(z))


def _kendall(x, y, code, method, alternative, nan_policy, n_jobs, batched, name):
    check_choice(method, ("auto", "exact", "asymptotic"), "method")
    check_choice(alternative, ALTERNATIVES, "alternative")
    X, Y = _rows_of(x, y, batched, name, nan_policy, finite=False)
    omit = nan_policy == "omit"
    counts = np.zeros((X.shape[0], K.K_FIELDS), np.int64)
    nan_rows = np.zeros(X.shape[0], np.bool_)
    if X.shape[0] == 1:
        pair = _one_pair(X, Y, omit, nan_rows)
        if pair is not None:
            counts[0] = K.pair_kendall_counts(*pair)
    else:
        with numba_threads(n_jobs):
            K.rows_kendall_counts(X, Y, omit, counts, nan_rows)
    propagated = nan_rows & (not omit)
    n = counts[:, K.K_N]
    if omit:
        check_enough(n, name, X.shape[1] - n)
    stat = np.empty(X.shape[0])
    K.kendall_rows_from_counts(counts, code, stat)
    tot, xtie, ytie = counts[:, K.K_TOT], counts[:, K.K_XTIE], counts[:, K.K_YTIE]
    constant = ~propagated & ((xtie == tot) | (ytie == tot))
    warn_constant(constant, name, batched)
    pvalue = None
    if code != K.GAMMA:
        pvalue = _kendall_pvalues(counts, method, alternative, np.isnan(stat))
    sig = make_signature(name, variant={K.KENDALL_A: "a", K.KENDALL_B: "b", K.KENDALL_C: "c"}.get(code, "gamma"),
                         method=method, alternative=alternative, nan_policy=nan_policy)
    return _single_or_rows(batched, stat, pvalue, n, sig)


def _one_pair(X, Y, omit, nan_rows):
    """The one row pair of (X, Y) without its NaN pairs (omit), or None where a NaN propagates;
    nan_rows[0]: whether it held one. A single pair goes to the statistic's own serial kernel,
    with numpy's sorts for the rank statistics: no parallel kernel to compile for the common call."""
    x, y = X[0], Y[0]
    nan = np.isnan(x) | np.isnan(y)
    nan_rows[0] = nan.any()
    if not nan_rows[0]:
        return x, y
    if not omit:
        return None
    return x[~nan], y[~nan]


def _kendall_pvalues(counts, method, alternative, undefined):
    """scipy.stats.kendalltau's p-value rules, row by row (the same test for tau-a, b and c)."""
    n = counts[:, K.K_N]
    dis, tot = counts[:, K.K_DIS], counts[:, K.K_TOT]
    xtie, ytie = counts[:, K.K_XTIE], counts[:, K.K_YTIE]
    ties = (xtie != 0) | (ytie != 0)
    if method == "exact" and np.any(ties & ~undefined):
        row = np.flatnonzero(ties & ~undefined)[0]
        where = f" (row {row})" if counts.shape[0] > 1 else ""
        raise ValueError(f"Ties found{where}, exact method cannot be used.")
    if method == "auto":
        exact = ~ties & ((n <= 33) | (np.minimum(dis, tot - dis) <= 1))
    else:
        exact = np.full(n.shape, method == "exact")
    pvalue = np.full(n.shape, np.nan)
    alt = _ALT_CODES[alternative]
    exact_pvalues = {}  # (n, concordant pairs) -> p: rows of one length repeat them
    for r in np.flatnonzero(exact & ~undefined):
        key = (int(n[r]), int(tot[r] - dis[r]))
        if key not in exact_pvalues:
            exact_pvalues[key] = K.kendall_exact_pvalue(*key, alt)
        pvalue[r] = exact_pvalues[key]
    asym = ~exact & ~undefined
    if asym.any():
        f = counts[asym].astype(np.float64)
        size = f[:, K.K_N]
        m = size * (size - 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            var = ((m * (2 * size + 5) - f[:, K.K_X1] - f[:, K.K_Y1]) / 18
                   + (2 * f[:, K.K_XTIE] * f[:, K.K_YTIE]) / m
                   + f[:, K.K_X0] * f[:, K.K_Y0] / (9 * m * (size - 2)))
            z = (f[:, K.K_CON] - f[:, K.K_DIS]) / np.sqrt(var)
        pvalue[asym] = _pvalue_from_normal(z, alternative)
    return pvalue


def kendalltau(x, y, *, variant="b", method="auto", alternative="two-sided", nan_policy="propagate"):
    """Kendall's tau-a, tau-b (default) or tau-c with scipy.stats.kendalltau's p-value.

    method 'auto' uses the exact null distribution when there are no ties and n <= 33 or at most
    one pair is discordant (or concordant), otherwise the normal approximation with the tie
    correction; 'exact' with ties is an error, as in scipy.

    Example:

        >>> result = kendalltau([1, 2, 3, 4, 5], [1, 3, 2, 4, 5])
        >>> round(result.statistic, 6), round(result.pvalue, 4)
        (0.8, 0.0833)

    :param x: the first sample: any ordered iterable of numbers (list, tuple, array, Series, generator).
    :param y: the second sample, paired with ``x`` (the same length).
    :param variant: ``'b'`` (ties corrected, default), ``'a'`` or ``'c'`` (Stuart's tau-c).
    :param method: ``'auto'``, ``'exact'`` or ``'asymptotic'`` (the p-value's null distribution).
    :param alternative: ``'two-sided'``, ``'less'`` or ``'greater'``: the alternative hypothesis of the p-value.
    :param nan_policy: ``'propagate'`` (a NaN gives NaN), ``'raise'`` (a NaN is a ``ValueError``) or
        ``'omit'`` (pairs with a NaN are dropped).
    :returns: a :class:`CorrelationResult` (statistic and p-value equal to scipy's).
    :raises ValueError: for samples of different lengths, fewer than 2 pairs, an unknown option, or
        ``method='exact'`` with ties.
    """
    code = _KENDALL_CODES[check_choice(variant, tuple(_KENDALL_CODES), "variant")]
    return _kendall(x, y, code, method, alternative, nan_policy, 1, False, "kendalltau")


def kendalltau_rows(X, Y, *, variant="b", method="auto", alternative="two-sided", nan_policy="propagate",
                    n_jobs=None):
    """kendalltau of every row pair of two (rows x items) arrays, rows in parallel.

    Example:

        >>> kendalltau_rows([[1, 2, 3], [1, 2, 3]], [[1, 2, 3], [3, 2, 1]]).statistic.tolist()
        [1.0, -1.0]

    :param X: a (rows x items) array-like.
    :param Y: a (rows x items) array-like of the same shape, row i paired with ``X[i]``.
    :param variant: as :func:`kendalltau`.
    :param method: as :func:`kendalltau`.
    :param alternative: ``'two-sided'``, ``'less'`` or ``'greater'``: the alternative hypothesis of the p-value.
    :param nan_policy: ``'propagate'`` (a NaN gives NaN), ``'raise'`` (a NaN is a ``ValueError``) or
        ``'omit'`` (pairs with a NaN are dropped).
    :param n_jobs: threads for the rows (None: qascore's default thread policy; -1: every core).
    :returns: a :class:`RowsResult` of per-row arrays.
    :raises ValueError: for arrays of different shapes, fewer than 2 items, or an unknown option.
    """
    code = _KENDALL_CODES[check_choice(variant, tuple(_KENDALL_CODES), "variant")]
    return _kendall(X, Y, code, method, alternative, nan_policy, n_jobs, True, "kendalltau")


def goodman_kruskal_gamma(x, y, *, nan_policy="propagate"):
    """(C - D) / (C + D): Kendall's tau that ignores every tied pair (Nuggeteer's "gamma variant").

    Example:

        >>> goodman_kruskal_gamma([1, 1, 2, 3], [1, 2, 2, 3]).statistic
        1.0

    :param x: the first sample (any ordered iterable of numbers).
    :param y: the second sample, paired with ``x``.
    :param nan_policy: ``'propagate'`` (a NaN gives NaN), ``'raise'`` (a NaN is a ``ValueError``) or
        ``'omit'`` (pairs with a NaN are dropped).
    :returns: a :class:`CorrelationResult` whose ``pvalue`` is None (no test is defined here).
    :raises ValueError: for samples of different lengths or fewer than 2 pairs.
    """
    return _kendall(x, y, K.GAMMA, "auto", "two-sided", nan_policy, 1, False, "gamma")


def goodman_kruskal_gamma_rows(X, Y, *, nan_policy="propagate", n_jobs=None):
    """goodman_kruskal_gamma of every row pair of two (rows x items) arrays, rows in parallel.

    Example:

        >>> goodman_kruskal_gamma_rows([[1, 1, 2, 3]], [[1, 2, 2, 3]]).statistic.tolist()
        [1.0]

    :param X: a (rows x items) array-like.
    :param Y: a (rows x items) array-like of the same shape.
    :param nan_policy: ``'propagate'`` (a NaN gives NaN), ``'raise'`` (a NaN is a ``ValueError``) or
        ``'omit'`` (pairs with a NaN are dropped).
    :param n_jobs: threads for the rows (None: qascore's default thread policy; -1: every core).
    :returns: a :class:`RowsResult` whose ``pvalue`` is None.
    :raises ValueError: for arrays of different shapes or fewer than 2 items.
    """
    return _kendall(X, Y, K.GAMMA, "auto", "two-sided", nan_policy, n_jobs, True, "gamma")


def _value_rows(code, x, y, nan_policy, n_jobs, batched, name, finite):
    X, Y = _rows_of(x, y, batched, name, nan_policy, finite)
    omit = nan_policy == "omit"
    stat = np.empty(X.shape[0])
    n = np.empty(X.shape[0], np.int64)
    nan_rows = np.zeros(X.shape[0], np.bool_)
    if X.shape[0] == 1:
        pair = _one_pair(X, Y, omit, nan_rows)
        n[0] = X.shape[1] if pair is None else pair[0].shape[0]
        stat[0] = np.nan if pair is None or n[0] < 2 else K.statistic_of(code, *pair)
    else:
        with numba_threads(n_jobs):
            K.rows_statistic(code, X, Y, omit, stat, n, nan_rows)
    if omit:
        check_enough(n, name, X.shape[1] - n)
    propagated = nan_rows & (not omit)
    return stat, n, propagated


def _spearman(x, y, alternative, nan_policy, n_jobs, batched):
    check_choice(alternative, ALTERNATIVES, "alternative")
    stat, n, propagated = _value_rows(K.SPEARMAN, x, y, nan_policy, n_jobs, batched, "spearmanr", False)
    warn_constant(np.isnan(stat) & ~propagated, "spearmanr", batched)
    dof = (n - 2).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = stat * np.sqrt((dof / ((stat + 1.0) * (1.0 - stat))).clip(0))
        if alternative == "less":
            p = special.stdtr(dof, t)
        elif alternative == "greater":
            p = special.stdtr(dof, -t)
        else:
            p = 2 * special.stdtr(dof, -np.abs(t))
    sig = make_signature("spearmanr", ranks="average", alternative=alternative, nan_policy=nan_policy)
    return _single_or_rows(batched, stat, p, n, sig)


def spearmanr(x, y, *, alternative="two-sided", nan_policy="propagate"):
    """Spearman's rho on average ranks with scipy.stats.spearmanr's t-distribution p-value.

    Example:

        >>> round(spearmanr([1, 2, 3, 4], [1, 3, 2, 4]).statistic, 6)
        0.8

    :param x: the first sample (any ordered iterable of numbers).
    :param y: the second sample, paired with ``x``.
    :param alternative: ``'two-sided'``, ``'less'`` or ``'greater'``: the alternative hypothesis of the p-value.
    :param nan_policy: ``'propagate'`` (a NaN gives NaN), ``'raise'`` (a NaN is a ``ValueError``) or
        ``'omit'`` (pairs with a NaN are dropped).
    :returns: a :class:`CorrelationResult`; constant input gives NaN with a ``ConstantInputWarning``.
    :raises ValueError: for samples of different lengths, fewer than 2 pairs, or an unknown option.
    """
    return _spearman(x, y, alternative, nan_policy, 1, False)


def spearmanr_rows(X, Y, *, alternative="two-sided", nan_policy="propagate", n_jobs=None):
    """spearmanr of every row pair of two (rows x items) arrays, rows in parallel.

    Example:

        >>> spearmanr_rows([[1, 2, 3, 4]], [[1, 3, 2, 4]]).statistic.round(6).tolist()
        [0.8]

    :param X: a (rows x items) array-like.
    :param Y: a (rows x items) array-like of the same shape.
    :param alternative: ``'two-sided'``, ``'less'`` or ``'greater'``: the alternative hypothesis of the p-value.
    :param nan_policy: ``'propagate'`` (a NaN gives NaN), ``'raise'`` (a NaN is a ``ValueError``) or
        ``'omit'`` (pairs with a NaN are dropped).
    :param n_jobs: threads for the rows (None: qascore's default thread policy; -1: every core).
    :returns: a :class:`RowsResult`.
    :raises ValueError: for arrays of different shapes, fewer than 2 items, or an unknown option.
    """
    return _spearman(X, Y, alternative, nan_policy, n_jobs, True)


def _pearson(x, y, alternative, nan_policy, n_jobs, batched):
    check_choice(alternative, ALTERNATIVES, "alternative")
    stat, n, propagated = _value_rows(K.PEARSON, x, y, nan_policy, n_jobs, batched, "pearsonr", True)
    warn_constant(np.isnan(stat) & ~propagated, "pearsonr", batched)
    ab = n / 2.0 - 1
    if alternative == "less":
        p = special.betainc(ab, ab, (stat + 1) / 2)
    elif alternative == "greater":
        p = special.betaincc(ab, ab, (stat + 1) / 2)
    else:
        p = 2 * special.betaincc(ab, ab, (np.abs(stat) + 1) / 2)
    p = np.where((n == 2) & ~np.isnan(stat), 1.0, p)
    sig = make_signature("pearsonr", alternative=alternative, nan_policy=nan_policy)
    return _single_or_rows(batched, stat, p, n, sig)


def pearsonr(x, y, *, alternative="two-sided", nan_policy="propagate"):
    """Pearson's r with scipy.stats.pearsonr's exact (beta distribution) p-value.

    Values must be finite (+-inf is an error); NaN follows nan_policy.

    Example:

        >>> result = pearsonr([1, 2, 3, 4], [2, 4, 6, 9])
        >>> round(result.statistic, 4), round(result.pvalue, 4)
        (0.9944, 0.0056)

    :param x: the first sample (any ordered iterable of numbers).
    :param y: the second sample, paired with ``x``.
    :param alternative: ``'two-sided'``, ``'less'`` or ``'greater'``: the alternative hypothesis of the p-value.
    :param nan_policy: ``'propagate'`` (a NaN gives NaN), ``'raise'`` (a NaN is a ``ValueError``) or
        ``'omit'`` (pairs with a NaN are dropped).
    :returns: a :class:`CorrelationResult`.
    :raises ValueError: for samples of different lengths, fewer than 2 pairs, an infinite value, or an
        unknown option.
    """
    return _pearson(x, y, alternative, nan_policy, 1, False)


def pearsonr_rows(X, Y, *, alternative="two-sided", nan_policy="propagate", n_jobs=None):
    """pearsonr of every row pair of two (rows x items) arrays, rows in parallel.

    Example:

        >>> pearsonr_rows([[1, 2, 3, 4]], [[2, 4, 6, 9]]).statistic.round(4).tolist()
        [0.9944]

    :param X: a (rows x items) array-like of finite numbers.
    :param Y: a (rows x items) array-like of the same shape.
    :param alternative: ``'two-sided'``, ``'less'`` or ``'greater'``: the alternative hypothesis of the p-value.
    :param nan_policy: ``'propagate'`` (a NaN gives NaN), ``'raise'`` (a NaN is a ``ValueError``) or
        ``'omit'`` (pairs with a NaN are dropped).
    :param n_jobs: threads for the rows (None: qascore's default thread policy; -1: every core).
    :returns: a :class:`RowsResult`.
    :raises ValueError: for arrays of different shapes, fewer than 2 items, an infinite value, or an
        unknown option.
    """
    return _pearson(X, Y, alternative, nan_policy, n_jobs, True)


def rmse(predicted, actual, *, nan_policy="propagate") -> float:
    """Root mean squared error sqrt(mean((predicted - actual)^2)); values must be finite.

    Example:

        >>> rmse([1, 2, 3], [1, 2, 6])
        1.7320508075688772

    :param predicted: the predicted values (any ordered iterable of numbers).
    :param actual: the true values, paired with ``predicted``.
    :param nan_policy: ``'propagate'`` (a NaN gives NaN), ``'raise'`` (a NaN is a ``ValueError``) or
        ``'omit'`` (pairs with a NaN are dropped).
    :returns: the RMSE as a float.
    :raises ValueError: for samples of different lengths, fewer than 2 pairs, or an infinite value.
    """
    stat, _, _ = _value_rows(K.RMSE, predicted, actual, nan_policy, 1, False, "rmse", True)
    return float(stat[0])


def r2_score(y_true, y_pred, *, nan_policy="propagate", force_finite=False) -> float:
    """Coefficient of determination 1 - SS_res/SS_tot, as scikit-learn's r2_score.

    With a constant y_true it is undefined: NaN with a ConstantInputWarning, or with
    force_finite=True scikit-learn's convention (1.0 for a perfect prediction, else 0.0).
    For the squared Pearson correlation use ``pearsonr(x, y).statistic ** 2``.

    Example:

        >>> r2_score([1, 2, 3], [1, 2, 4])
        0.5

    :param y_true: the true values (any ordered iterable of numbers).
    :param y_pred: the predicted values, paired with ``y_true``.
    :param nan_policy: ``'propagate'`` (a NaN gives NaN), ``'raise'`` (a NaN is a ``ValueError``) or
        ``'omit'`` (pairs with a NaN are dropped).
    :param force_finite: scikit-learn's rule for a constant ``y_true`` (1.0 or 0.0 instead of NaN).
    :returns: R^2 as a float (1.0 for a perfect prediction; negative when worse than the mean).
    :raises ValueError: for samples of different lengths, fewer than 2 pairs, or an infinite value.
    """
    stat, _, propagated = _value_rows(K.R2, y_true, y_pred, nan_policy, 1, False, "r2_score", True)
    value = float(stat[0])
    if np.isnan(value) and not propagated[0]:
        if force_finite:
            y_true = np.asarray(y_true, np.float64)
            y_pred = np.asarray(y_pred, np.float64)
            keep = ~(np.isnan(y_true) | np.isnan(y_pred))
            return 1.0 if np.array_equal(y_true[keep], y_pred[keep]) else 0.0
        warn_constant(np.array([True]), "r2_score (y_true)", False)
    return value
