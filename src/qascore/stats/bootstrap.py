"""Resampling: bootstrap confidence intervals, paired bootstrap tests, micro-averaged means, and a
drop-in for rouge-score's BootstrapAggregator.

Two sources of resampling indices, both seeded and reproducible:

- ``rng="qascore"`` (default): each replicate draws from its own stream (16 xoshiro256++ lanes
  seeded by splitmix64 keyed by (seed, replicate)) inside the Numba kernel, so replicates run in
  parallel and the result does not depend on the number of threads.
- ``rng="scipy"``: indices drawn exactly as ``scipy.stats.bootstrap(..., rng=seed)`` draws them
  (``numpy.random.default_rng(seed).integers(0, n, (n_resamples, n))``), so intervals equal
  scipy's for the same seed; slower, because numpy draws the indices.
"""
from __future__ import annotations

import collections
import math
import warnings
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from scipy import special

from .._parallel import numba_threads
from ..signature import make_signature
from ..validate import (
    ALTERNATIVES,
    NAN_POLICIES,
    as_float_array,
    check_choice,
    check_int,
    check_pair,
    check_real,
    check_stream_size,
    first_bad,
)
from . import _kernels as K

STATISTICS = {
    "mean": K.MEAN,
    "kendall_tau_a": K.KENDALL_A,
    "kendall_tau_b": K.KENDALL_B,
    "kendalltau": K.KENDALL_B,
    "kendall_tau_c": K.KENDALL_C,
    "gamma": K.GAMMA,
    "spearman": K.SPEARMAN,
    "pearson": K.PEARSON,
    "rmse": K.RMSE,
    "r2": K.R2,
}
_VALUE_STATISTICS = {K.MEAN, K.PEARSON, K.RMSE, K.R2}  # need finite inputs; ranks accept +-inf
_RNGS = ("qascore", "scipy")


def _quantile(values, probs):
    """scipy.stats.quantile (what scipy.stats.bootstrap uses) where available, else numpy's."""
    try:
        from scipy.stats import quantile
    except ImportError:  # scipy < 1.15
        return np.quantile(values, probs)
    return quantile(values, np.asarray(probs, dtype=np.float64))


MAX_RESAMPLES = 2**31 - 1  # the replicate index of the kernels is a 32-bit int


def _check_seed(seed):
    return check_int(seed, "seed", low=0, high=2**63 - 1)  # an int64 in the kernels


def _check_resamples(n_resamples, name="n_resamples"):
    return check_int(n_resamples, name, low=1, high=MAX_RESAMPLES)


def _check_level(level, name="confidence_level"):
    return float(check_real(level, name, low=0.0, high=1.0, low_open=True, high_open=True))


def _statistic_code(statistic):
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {', '.join(map(repr, STATISTICS))}, got {statistic!r}")
    return STATISTICS[statistic]


def _prepare_sample(data, code, nan_policy):
    """(x, y) float arrays for the statistic; y is x for the one-sample mean. NaN per nan_policy."""
    check_choice(nan_policy, ("raise", "omit"), "nan_policy")
    finite = code in _VALUE_STATISTICS
    if code == K.MEAN:
        x = as_float_array(data, "data", 1)
        y = x
    else:
        if not isinstance(data, tuple) or len(data) != 2:
            raise ValueError("data must be a tuple (x, y) of paired samples for a two-sample statistic")
        x, y = check_pair(data[0], data[1], ("data[0]", "data[1]"), nan_policy, finite, 1)
    if code == K.MEAN:
        nan = np.isnan(x)
        if nan_policy == "raise" and nan.any():
            raise ValueError(f"data contains NaN at {first_bad(x, nan)} (nan_policy='raise')")
        if finite and np.isinf(x).any():
            raise ValueError(
                f"data contains {x[np.isinf(x)][0]} at {first_bad(x, np.isinf(x))}; the mean needs finite values"
            )
    keep = ~(np.isnan(x) | np.isnan(y))
    if not keep.all():
        x, y = np.ascontiguousarray(x[keep]), np.ascontiguousarray(y[keep])
    if x.shape[0] < 2:
        raise ValueError(f"the bootstrap needs at least 2 items, got {x.shape[0]}")
    return x, y


@dataclass(frozen=True)
class BootstrapResult:
    """A bootstrap confidence interval; ``distribution`` holds the statistic of every replicate.

    Example:

        >>> result = bootstrap([0.2, 0.4, 0.5, 0.9, 0.7], n_resamples=999, seed=0)
        >>> result.statistic, round(result.low, 2), round(result.high, 2), result.distribution.shape
        (0.54, 0.34, 0.77, (999,))
    """

    statistic: float
    low: float
    high: float
    standard_error: float
    distribution: np.ndarray
    signature: str

    @property
    def confidence_interval(self) -> tuple[float, float]:
        return (self.low, self.high)


def _scipy_indices(seed, n_resamples, n):
    return np.random.default_rng(seed).integers(0, n, (n_resamples, n))


def bootstrap_distribution(x, y, code, n_resamples, seed, rng, n_jobs):
    """The statistic of n_resamples paired resamples of (x, y)."""
    if rng == "scipy":
        source, idx = K.GIVEN, _scipy_indices(seed, n_resamples, x.shape[0])
    else:
        check_stream_size(x.shape[0], "bootstrap")
        source, idx = K.DRAWN, K.NO_INDICES
    out = np.empty(n_resamples)
    with numba_threads(n_jobs):
        K.resampled_statistic(code, x, y, source, seed, idx, out)
    return out


def jackknife(x, y, code, n_jobs):
    """Leave-one-out values of the statistic (BCa's acceleration)."""
    out = np.empty(x.shape[0])
    with numba_threads(n_jobs):
        K.resampled_statistic(code, x, y, K.LEAVE_ONE_OUT, 0, K.NO_INDICES, out)
    return out


def _bca_probabilities(theta_hat, theta_b, jack, alpha):
    """scipy.stats.bootstrap's BCa: bias from the replicate rank of theta_hat, acceleration from the jackknife."""
    percentile = (np.count_nonzero(theta_b < theta_hat) + np.count_nonzero(theta_b <= theta_hat)) / (2 * theta_b.size)
    z0 = special.ndtri(percentile)
    n = float(jack.size)
    u = (n - 1) * (np.mean(jack) - jack)
    a_hat = 1 / 6 * (np.sum(u**3) / n**3) / (np.sum(u**2) / n**2) ** (3 / 2)
    z_alpha = float(special.ndtri(alpha))
    num1 = z0 + z_alpha
    num2 = z0 - z_alpha
    return special.ndtr(z0 + num1 / (1 - a_hat * num1)), special.ndtr(z0 + num2 / (1 - a_hat * num2))


def bootstrap(
    data,
    statistic="mean",
    *,
    n_resamples=9999,
    confidence_level=0.95,
    method="bca",
    alternative="two-sided",
    seed=0,
    rng="qascore",
    nan_policy="raise",
    n_jobs=None,
):
    """Bootstrap confidence interval of a statistic (percentile, basic or BCa), as scipy.stats.bootstrap.

    data: a 1-D sample for 'mean', or a pair (x, y) resampled together for the paired statistics
    ('kendall_tau_a'/'kendall_tau_b'/'kendall_tau_c', 'gamma', 'spearman', 'pearson', 'rmse', 'r2').
    With rng='scipy' the result equals ``scipy.stats.bootstrap(data, stat, paired=True,
    rng=seed, n_resamples=..., method=...)`` for the same seed. nan_policy 'omit' drops pairs
    with NaN before resampling; 'raise' (default) refuses them.

    Example:

        >>> result = bootstrap(([1, 2, 3, 4, 5, 6], [1, 3, 2, 4, 6, 5]), "spearman", n_resamples=999,
        ...                    method="percentile")
        >>> round(result.statistic, 4), round(result.low, 2), result.high
        (0.8857, 0.2, 1.0)

    :param data: a 1-D sample (``'mean'``) or a pair ``(x, y)`` of paired samples.
    :param statistic: a name in :data:`STATISTICS`.
    :param n_resamples: the number of bootstrap replicates.
    :param confidence_level: the interval's level, in (0, 1).
    :param method: ``'bca'`` (default), ``'percentile'`` or ``'basic'``.
    :param alternative: ``'two-sided'``, ``'less'`` (low is -inf) or ``'greater'`` (high is +inf).
    :param seed: the seed of the resampling (a non-negative integer).
    :param rng: ``'qascore'`` (per-replicate streams, any thread count gives the same numbers) or
        ``'scipy'`` (the indices ``scipy.stats.bootstrap`` draws).
    :param nan_policy: ``'raise'`` or ``'omit'``.
    :param n_jobs: threads for the replicates (None: qascore's default thread policy; -1: every core).
    :returns: a :class:`BootstrapResult`; a degenerate distribution gives a NaN interval with scipy's
        ``DegenerateDataWarning``.
    :raises ValueError: for an unknown statistic or option, fewer than 2 items, or a NaN with
        ``nan_policy='raise'``.
    """
    code = _statistic_code(statistic)
    check_choice(method, ("percentile", "basic", "bca"), "method")
    check_choice(alternative, ALTERNATIVES, "alternative")
    check_choice(rng, _RNGS, "rng")
    n_resamples = _check_resamples(n_resamples)
    level = _check_level(confidence_level)
    seed = _check_seed(seed)
    x, y = _prepare_sample(data, code, nan_policy)

    theta_hat = K.statistic_of(code, x, y)
    theta_b = bootstrap_distribution(x, y, code, n_resamples, seed, rng, n_jobs)
    alpha = (1 - level) / 2 if alternative == "two-sided" else 1 - level
    if method == "bca":
        jack = jackknife(x, y, code, n_jobs)
        with np.errstate(invalid="ignore", divide="ignore"):  # degenerate data: NaN, warned below
            probs = _bca_probabilities(theta_hat, theta_b, jack, alpha)
    else:
        probs = (alpha, 1 - alpha)
    with np.errstate(invalid="ignore"):
        low, high = (float(v) for v in _quantile(theta_b, probs))
    if np.isnan(low) or np.isnan(high):
        from scipy.stats import DegenerateDataWarning

        warnings.warn(
            DegenerateDataWarning(
                f"the {method} interval of {statistic} cannot be calculated (degenerate bootstrap distribution "
                "or undefined statistic); it is NaN"
            ),
            stacklevel=2,
        )
    if method == "basic":
        low, high = 2 * theta_hat - high, 2 * theta_hat - low
    if alternative == "less":
        low = -np.inf
    elif alternative == "greater":
        high = np.inf
    sig = make_signature(
        "bootstrap",
        statistic=statistic,
        method=method,
        level=level,
        alternative=alternative,
        resamples=n_resamples,
        seed=seed,
        rng=rng,
        nan_policy=nan_policy,
    )
    return BootstrapResult(theta_hat, low, high, float(np.std(theta_b, ddof=1)), theta_b, sig)


# ---------------------------------------------------------------- paired bootstrap tests


@dataclass(frozen=True)
class PairedBootstrapResult:
    """Paired bootstrap test of A against B (Koehn 2004).

    win_rate is the share of replicates in which A beats B (greater value), p_value the share in
    which it does not (one-sided: small p means A is significantly better). difference is A - B
    on the original data; low/high the percentile interval of the replicate differences.

    Example:

        >>> result = paired_bootstrap_means([0.9, 0.8, 0.7, 0.9, 0.6], [0.5, 0.6, 0.7, 0.4, 0.6])
        >>> round(result.difference, 2), float(result.win_rate), float(result.p_value)
        (0.22, 0.997, 0.003)
    """

    a: float
    b: float
    difference: float
    win_rate: float
    tie_rate: float
    p_value: float
    low: float
    high: float
    n_resamples: int
    signature: str


def _paired_result(a, b, diffs, level, sig):
    wins = np.count_nonzero(diffs > 0)
    ties = np.count_nonzero(diffs == 0)
    alpha = (1 - level) / 2
    # numpy's linear quantile (type 7, as scipy's): no scipy parity to keep here, and it is 5x faster
    low, high = (float(v) for v in np.quantile(diffs, (alpha, 1 - alpha)))
    n = diffs.size
    return PairedBootstrapResult(
        float(a), float(b), float(a - b), wins / n, ties / n, (n - wins) / n, low, high, n, sig
    )


def paired_bootstrap_means(scores_a, scores_b, *, n_resamples=1000, seed=0, confidence_level=0.95, n_jobs=None):
    """Is system A better than B on the same items? Resample items, compare the two means.

    A replicate's difference is the mean of the resampled per-item differences a_i - b_i (equal to
    the difference of the two resampled means up to rounding), summed while the indices are drawn
    (K.resampled_sum: the same stream as bootstrap's, not numpy's pairwise order).

    Example:

        >>> result = paired_bootstrap_means([0.9, 0.8, 0.7, 0.9, 0.6], [0.5, 0.6, 0.7, 0.4, 0.6], seed=0)
        >>> result.a, result.b, float(result.p_value)
        (0.78, 0.56, 0.003)

    :param scores_a: per-item scores of system A (finite numbers).
    :param scores_b: per-item scores of system B on the same items, in the same order.
    :param n_resamples: the number of bootstrap replicates.
    :param seed: the seed of the resampling.
    :param confidence_level: the level of the interval of the difference.
    :param n_jobs: threads for the replicates (None: qascore's default thread policy; -1: every core).
    :returns: a :class:`PairedBootstrapResult` (``p_value`` small when A is better).
    :raises ValueError: for samples of different lengths, fewer than 2 items or a non-finite score.
    """
    n_resamples = _check_resamples(n_resamples)
    seed = _check_seed(seed)
    level = _check_level(confidence_level)
    a, b = check_pair(scores_a, scores_b, ("scores_a", "scores_b"), "raise", True, 1)
    if a.shape[0] < 2:
        raise ValueError(f"the paired bootstrap needs at least 2 items, got {a.shape[0]}")
    check_stream_size(a.shape[0], "paired bootstrap")
    diffs = np.empty(n_resamples)
    with numba_threads(n_jobs):
        K.bootstrap_mean_difference(a - b, n_resamples, seed, diffs)
    sig = make_signature("paired_bootstrap", statistic="mean", resamples=n_resamples, seed=seed, level=level)
    return _paired_result(np.mean(a), np.mean(b), diffs, level, sig)


def paired_bootstrap_correlation(
    metric_a, metric_b, human, *, statistic="pearson", n_resamples=1000, seed=0, confidence_level=0.95, n_jobs=None
):
    """Does metric A correlate better with human scores than metric B? Resample items, recompute both.

    statistic: any paired statistic of STATISTICS except 'mean' (for 'rmse' lower is better, so
    the comparison is reversed: A wins when its error is smaller).

    Example:

        >>> human = [1, 2, 3, 4, 5, 6]
        >>> result = paired_bootstrap_correlation([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5], human)
        >>> round(result.a, 4), round(result.b, 4), float(result.p_value)
        (1.0, 0.8286, 0.022)

    :param metric_a: metric A's score of each item.
    :param metric_b: metric B's score of the same items.
    :param human: the human score of each item.
    :param statistic: the correlation (or ``'rmse'``) of each metric with ``human``.
    :param n_resamples: the number of bootstrap replicates.
    :param seed: the seed of the resampling (both metrics see the same resamples).
    :param confidence_level: the level of the interval of the difference.
    :param n_jobs: threads for the replicates (None: qascore's default thread policy; -1: every core).
    :returns: a :class:`PairedBootstrapResult` (``a`` and ``b`` are the two correlations).
    :raises ValueError: for ``statistic='mean'`` or an unknown one, samples of different lengths, or
        fewer than 2 items.
    """
    code = _statistic_code(statistic)
    if code == K.MEAN:
        raise ValueError("statistic must compare a metric with human scores, not 'mean'")
    n_resamples = _check_resamples(n_resamples)
    seed = _check_seed(seed)
    level = _check_level(confidence_level)
    finite = code in _VALUE_STATISTICS
    a, h = check_pair(metric_a, human, ("metric_a", "human"), "raise", finite, 1)
    b, _ = check_pair(metric_b, human, ("metric_b", "human"), "raise", finite, 1)
    if a.shape[0] < 2:
        raise ValueError(f"the paired bootstrap needs at least 2 items, got {a.shape[0]}")
    # One seed for both sides: replicate r resamples the same items for A and for B.
    out_a = bootstrap_distribution(a, h, code, n_resamples, seed, "qascore", n_jobs)
    out_b = bootstrap_distribution(b, h, code, n_resamples, seed, "qascore", n_jobs)
    sa, sb = K.statistic_of(code, a, h), K.statistic_of(code, b, h)
    sign = -1.0 if code == K.RMSE else 1.0
    sig = make_signature("paired_bootstrap", statistic=statistic, resamples=n_resamples, seed=seed, level=level)
    with np.errstate(invalid="ignore"):
        return _paired_result(sign * sa, sign * sb, sign * (out_a - out_b), level, sig)


# ---------------------------------------------------------------- micro-averaged mean


@dataclass(frozen=True)
class MeanResult:
    """A mean over questions with its standard error and a normal-theory interval.

    Example:

        >>> result = micro_average([0.5, 1.0, 0.0, 0.5])
        >>> result.mean, round(result.standard_error, 4), result.n
        (0.5, 0.2041, 4)
    """

    mean: float
    standard_error: float
    low: float
    high: float
    n: int
    signature: str


def micro_average(values, weights=None, *, confidence_level=0.95):
    """Mean over questions with standard error and interval (Nuggeteer's "micro-averaged" score).

    Without weights: the mean of per-question values, SE = sample std (ddof=1) / sqrt(n). With
    weights (e.g. items per question): the pooled ratio sum(w v) / sum(w) with the linearised
    (ratio-estimator) SE sqrt(n / (n - 1) * sum(w_i^2 (v_i - mean)^2)) / sum(w). The interval is
    mean +- z * SE with z the normal quantile of the level.

    Example:

        >>> result = micro_average([0.5, 1.0], weights=[1, 3])
        >>> result.mean, result.standard_error
        (0.875, 0.1875)

    :param values: one value per question (finite numbers).
    :param weights: optional non-negative weights (e.g. items per question), one per value.
    :param confidence_level: the level of the normal interval.
    :returns: a :class:`MeanResult`.
    :raises ValueError: for fewer than 2 values, a non-finite value, weights of another length, a
        negative weight, or weights that sum to 0.
    """
    level = _check_level(confidence_level)
    v = as_float_array(values, "values", 1)
    if not np.isfinite(v).all():
        raise ValueError(f"values contains {v[~np.isfinite(v)][0]} at {first_bad(v, ~np.isfinite(v))}")
    n = v.shape[0]
    if n < 2:
        raise ValueError(f"a mean with a standard error needs at least 2 questions, got {n}")
    if weights is None:
        m = np.mean(v)
        se = float(np.std(v, ddof=1) / np.sqrt(n))
    else:
        w = as_float_array(weights, "weights", 1)
        if w.shape != v.shape:
            raise ValueError(f"values has {n} items but weights has {w.shape[0]}")
        bad = ~np.isfinite(w) | (w < 0)
        if bad.any():
            raise ValueError(f"weights must be finite and non-negative; {w[bad][0]} at {first_bad(w, bad)}")
        total = w.sum()
        if total == 0:
            raise ValueError("weights sum to 0; the weighted mean is undefined")
        m = float((w * v).sum() / total)
        se = float(np.sqrt(n / (n - 1) * np.sum((w * (v - m)) ** 2)) / total)
    z = float(special.ndtri(0.5 + level / 2))
    sig = make_signature("micro_average", weighted=weights is not None, level=level, interval="normal")
    return MeanResult(float(m), se, float(m - z * se), float(m + z * se), n, sig)


# ---------------------------------------------------------------- rouge-score compatibility

class AggregateScore(NamedTuple):
    """rouge-score's ``(low, mid, high)`` triple of one measure's bootstrap percentiles (each a
    ``Score``), as :meth:`BootstrapAggregator.aggregate` returns per ROUGE type.

    Example:

        >>> AggregateScore(low=0.2, mid=0.35, high=0.5).mid
        0.35
    """

    low: Any
    mid: Any
    high: Any


def rouge_bootstrap_percentiles(matrix, *, confidence_interval=0.95, n_samples=1000, random_state=None):
    """rouge-score's BootstrapAggregator._bootstrap_resample on one (items x measures) matrix.

    Draws from random_state (a numpy RandomState; None = numpy's global state, as rouge-score
    does) exactly what rouge-score draws, so for the same numpy seed the (low, mid, high)
    percentiles of the bootstrap means are identical. Returns a (3, measures) array.

    Example:

        >>> import numpy as np
        >>> rouge_bootstrap_percentiles([[0.5, 1.0], [0.2, 0.4], [0.3, 0.3]], n_samples=100,
        ...                             random_state=np.random.RandomState(0)).round(4).tolist()
        [[0.2, 0.3], [0.3333, 0.5667], [0.5, 1.0]]

    :param matrix: an (items x measures) array of scores.
    :param confidence_interval: the level, in [0, 1].
    :param n_samples: the number of bootstrap samples (positive).
    :param random_state: a ``numpy.random.RandomState``, or None for numpy's global state.
    :returns: a (3, measures) array: rows low, mid and high.
    :raises ValueError: for a level outside [0, 1], ``n_samples <= 0`` or a matrix without rows.
    """
    if confidence_interval < 0 or confidence_interval > 1:
        raise ValueError("confidence_interval must be in range [0, 1]")
    if n_samples <= 0:
        raise ValueError("n_samples must be positive")
    m = as_float_array(matrix, "matrix", 2)
    if m.shape[0] < 1:
        raise ValueError("matrix has no rows (no scores were added)")
    state = np.random.mtrand._rand if random_state is None else random_state
    # rouge-score calls np.random.choice(np.arange(n), size=n) once per sample; one randint call
    # of shape (n_samples, n) consumes the legacy generator identically.
    idx = state.randint(0, m.shape[0], size=(int(n_samples), m.shape[0]))
    means = np.empty((int(n_samples), m.shape[1]))
    K.resample_means_rows(m, idx, means)
    delta = (1 - confidence_interval) / 2
    return np.percentile(means, 100 * np.array([delta, 0.5, 1 - delta]), axis=0)


class BootstrapAggregator:
    """Drop-in for ``rouge_score.scoring.BootstrapAggregator`` with the resampling in Numba.

    Same constructor, ``add_scores`` and ``aggregate``; for the same numpy global seed (or a
    RandomState passed as random_state) the numbers are identical to rouge-score's.

    Example:

        >>> import numpy as np
        >>> from qascore.compat.rouge_score.scoring import Score
        >>> aggregator = BootstrapAggregator(n_samples=100, random_state=np.random.RandomState(0))
        >>> aggregator.add_scores({"rouge1": Score(0.5, 1.0, 0.6)})
        >>> aggregator.add_scores({"rouge1": Score(0.2, 0.4, 0.3)})
        >>> mid = aggregator.aggregate()["rouge1"].mid
        >>> round(float(mid.precision), 4), round(float(mid.recall), 4)
        (0.35, 0.7)

    :param confidence_interval: the level, in [0, 1].
    :param n_samples: the number of bootstrap samples (positive).
    :param random_state: a ``numpy.random.RandomState``, or None for numpy's global state.
    :raises ValueError: for a level outside [0, 1] or ``n_samples <= 0``.
    """

    def __init__(self, confidence_interval=0.95, n_samples=1000, random_state=None):
        if confidence_interval < 0 or confidence_interval > 1:
            raise ValueError("confidence_interval must be in range [0, 1]")
        if n_samples <= 0:
            raise ValueError("n_samples must be positive")
        self._n_samples = n_samples
        self._confidence_interval = confidence_interval
        self._random_state = random_state
        self._scores = collections.defaultdict(list)

    def add_scores(self, scores):
        for score_type, score in scores.items():
            self._scores[score_type].append(score)

    def aggregate(self):
        result = {}
        for score_type, scores in self._scores.items():
            percentiles = rouge_bootstrap_percentiles(
                np.vstack(tuple(scores)),
                confidence_interval=self._confidence_interval,
                n_samples=self._n_samples,
                random_state=self._random_state,
            )
            cls = scores[0].__class__
            result[score_type] = AggregateScore(*(cls(*percentiles[j, :]) for j in range(3)))
        return result

    def signature(self) -> str:
        return make_signature(
            "rouge_bootstrap", level=self._confidence_interval, samples=self._n_samples, rng="numpy-legacy"
        )


# ---------------------------------------------------------------- streaming Poisson bootstrap

_MAX_INDEX = 2**63 - 1  # global example indices are int64
_NORMALISE_EVERY = 1 << 24  # examples per kernel call: each limb then stays below 2**62


def _limbs_to_floats(limbs, divisors=None):
    """[rows, k]: the exact sum of each cell of normalised limbs [k, _LIMBS, rows] (see
    K.split_into_limbs), divided by divisors[row] if given (NaN for 0), rounded once to a double
    (+-inf beyond the largest one)."""
    k, rows = limbs.shape[0], limbs.shape[2]
    # little-endian 32-bit words; the top limb (|top| < 2**31) becomes its two's complement
    cells = np.ascontiguousarray(limbs.transpose(2, 0, 1)).reshape(-1, limbs.shape[1]).astype("<u4")
    out = np.empty(cells.shape[0])
    unit = 1 << 1074
    for c in range(cells.shape[0]):
        units = int.from_bytes(cells[c].tobytes(), "little", signed=True)
        scale = unit if divisors is None else unit * int(divisors[c // k])
        if scale == 0:
            out[c] = math.nan
            continue
        try:
            out[c] = units / scale  # Python's int / int: correctly rounded
        except OverflowError:
            out[c] = math.inf if units > 0 else -math.inf
    return out.reshape(rows, k)


def _statistic_name(statistic):
    if statistic is None:
        return "mean"
    return getattr(statistic, "__qualname__", None) or getattr(statistic, "__name__", None) or repr(statistic)


class StreamingBootstrap:
    """Bootstrap confidence interval over a stream of batches, in memory independent of the stream
    length: the Poisson ("online") bootstrap (Oza 2005; Hanley & MacGibbon 2006; Chamandy, Muralidharan,
    Najmi & Naidu 2012, "Estimating uncertainty for massive data streams").

    Each example gets, in each of ``n_resamples`` replicates, an independent Poisson(1) weight (a
    resample with replacement gives each example a Binomial(n, 1/n) count, which tends to
    Poisson(1); the total weight of a replicate is then random, mean n). The accumulator keeps per
    replicate the weighted sums of the k per-example statistics and the total weight, never the
    examples: ``update(values)`` takes a 1-D array of per-example scores (k = 1) or a 2-D [n, k]
    array of per-example sufficient statistics (e.g. BLEU's n-gram matches, totals and lengths).

    Split invariance: the weight of example i in replicate r is a function of (seed, i, r) only,
    a counter-based draw (``mix64(mix64((i + 1) * 0x9E3779B97F4A7C15) + mix64(seed *
    0x9E3779B97F4A7C15 + r + 1))`` with splitmix64's finaliser ``mix64``, mapped to Poisson(1) by
    inverse CDF on exact 64-bit thresholds), with i the global example index (``start`` of an
    update, by default right after the examples seen). The sums are exact (integers in units of
    2**-1074, as :class:`~qascore.metric.ExactSum`, kept as 68 32-bit limbs per cell and carried
    into a unique form) and rounded once in ``compute``, so feeding the same examples in batches
    of any sizes, in any order of ``start``, or to several accumulators later ``merge``-d, gives
    bit-identical results. The state: int64 limbs [k, 68, n_resamples] of the replicates' sums
    and [k, 68, 1] of the plain sums (the point estimate), the n_resamples total weights, and the
    index ranges seen: 0.5 MB per column for 1000 replicates, whatever the number of examples.
    The first update with examples fixes k.

    ``compute(statistic=None)`` -> :class:`BootstrapResult` with the statistic of the plain sums,
    the percentile interval and the standard error (sample std of the replicates). ``statistic``
    maps (summed statistics as a 1-D array of k floats, total weight) to a number; the default is
    column 0's weighted mean, its exact sum over the total weight rounded once (so the point
    estimate is the correctly rounded mean, a Metric's streamed mean bit for bit). A statistic of
    sums, smooth in them (a mean, a ratio, corpus BLEU), is what the Poisson bootstrap suits.

    Example:

        >>> whole = StreamingBootstrap(n_resamples=200, seed=0)
        >>> _ = whole.update([0.25, 0.5] * 10).update([1.0, 0.0] * 10)
        >>> result = whole.compute()
        >>> result.statistic, round(result.low, 2), round(result.high, 2), whole.n
        (0.4375, 0.35, 0.55, 40)
        >>> first, second = StreamingBootstrap(n_resamples=200), StreamingBootstrap(n_resamples=200)
        >>> _ = first.update([0.25, 0.5] * 10)
        >>> _ = second.update([1.0, 0.0] * 10, start=20)
        >>> first.merge(second).compute().high == result.high
        True

    :param n_resamples: the number of replicates.
    :param seed: the seed of the Poisson weights.
    :param confidence_level: the level of the percentile interval.
    :param n_jobs: threads for the replicates (None: qascore's default thread policy).
    :raises ValueError: for a non-positive ``n_resamples``, a negative seed or a level outside (0, 1).
    """

    def __init__(self, n_resamples=1000, seed=0, confidence_level=0.95, *, n_jobs=None):
        self.n_resamples = _check_resamples(n_resamples)
        self.seed = _check_seed(seed)
        self.confidence_level = _check_level(confidence_level)
        self.n_jobs = n_jobs
        self.k = None
        self._limbs = None  # [k, 68, n_resamples] limbs of the replicates' weighted sums
        self._point = None  # [k, 68, 1] limbs of the plain sums
        self._weights = None  # [n_resamples] total weights
        self._ranges = []  # sorted, disjoint, non-adjacent [start, stop) of the global indices seen

    @property
    def n(self) -> int:
        """The number of examples seen."""
        return sum(stop - start for start, stop in self._ranges)

    @property
    def ranges(self) -> list[tuple[int, int]]:
        """The global index ranges [start, stop) seen, sorted."""
        return list(self._ranges)

    def _columns(self, values):
        """values as a C-contiguous float64 [n, k] array of finite numbers (1-D: k = 1)."""
        ndim = np.ndim(values)
        if ndim not in (1, 2):
            raise ValueError("values must be a 1-D array of per-example scores or a 2-D [n, k] array of "
                             f"per-example statistics, got an array of shape {np.shape(values)}")
        x = as_float_array(values, "values", ndim)
        bad = ~np.isfinite(x)
        if bad.any():
            raise ValueError(f"values contains {x[bad][0]} at {first_bad(x, bad)}; "
                             "the streaming bootstrap needs finite values")
        if ndim == 1:
            x = x.reshape(-1, 1)
        if self.k is not None and x.shape[1] != self.k:
            raise ValueError(f"values has {x.shape[1]} columns but this accumulator holds {self.k}")
        return x

    def _claim(self, start, n):
        """Record [start, start + n) as seen; an overlap with what was seen is an error."""
        self._ranges = _joined_ranges(self._ranges, [(start, start + n)], "update")

    def update(self, values, start=None):
        """Add a batch: values[i] (a score, or a row of k statistics) is example ``start + i``.

        start: the global index of the first example; default: after the last example seen
        (0 at first). Indices seen before are an error (an example counted twice).
        """
        x = self._columns(values)
        n = x.shape[0]
        if start is None:
            start = self._ranges[-1][1] if self._ranges else 0
        start = check_int(start, "start", low=0, high=_MAX_INDEX)
        if start + n > _MAX_INDEX:
            raise ValueError(f"start + len(values) = {start + n} exceeds the largest example index {_MAX_INDEX}")
        if n == 0:  # valid, and it fixes nothing (not even k)
            return self
        if self.k is None:
            self.k = x.shape[1]
            self._limbs = np.zeros((self.k, K._LIMBS, self.n_resamples), np.int64)
            self._point = np.zeros((self.k, K._LIMBS, 1), np.int64)
            self._weights = np.zeros(self.n_resamples, np.int64)
        self._claim(start, n)
        row_keys = K.replicate_keys(self.seed, self.n_resamples)
        with numba_threads(self.n_jobs):
            for lo in range(0, n, _NORMALISE_EVERY):
                chunk = x[lo:lo + _NORMALISE_EVERY]
                first = np.empty(chunk.shape, np.int64)
                parts = np.empty((*chunk.shape, 3), np.int64)
                K.split_into_limbs(chunk, first, parts)
                keys = K.example_keys(start + lo, chunk.shape[0])
                K.poisson_bootstrap_update(keys, first, parts, row_keys, self._limbs, self._weights)
                K.add_unweighted(first, parts, self._point[:, :, 0])
                K.normalise_limbs(self._limbs)
                K.normalise_limbs(self._point)
        return self

    def merge(self, other):
        """Add the state of ``other`` (same seed, n_resamples and k; disjoint example indices, e.g.
        another worker's range) to this one. Equal, bit for bit, to one accumulator that saw both."""
        if not isinstance(other, StreamingBootstrap):
            raise TypeError(f"can only merge a StreamingBootstrap, got {type(other).__name__}")
        for name in ("seed", "n_resamples", "confidence_level"):
            if getattr(self, name) != getattr(other, name):
                raise ValueError(f"cannot merge accumulators with {name} {getattr(self, name)} "
                                 f"and {getattr(other, name)}")
        if other.k is None:
            return self
        if self.k is not None and self.k != other.k:
            raise ValueError(f"cannot merge accumulators of {self.k} and {other.k} columns")
        ranges = _joined_ranges(self._ranges, other._ranges, "merge")
        if self.k is None:
            self.k = other.k
            self._limbs, self._point, self._weights = other._limbs.copy(), other._point.copy(), other._weights.copy()
        else:
            # normalised limbs are below 2**32 (the top one far below): the sums cannot overflow
            self._limbs += other._limbs
            self._point += other._point
            self._weights += other._weights
            K.normalise_limbs(self._limbs)
            K.normalise_limbs(self._point)
        self._ranges = ranges
        return self

    def compute(self, statistic=None):
        """The point estimate, percentile interval and standard error of ``statistic`` (see the class)."""
        if self.k is None or not self._ranges:
            raise ValueError("StreamingBootstrap.compute() before any update() with examples")
        if self.n < 2:
            raise ValueError(f"the bootstrap needs at least 2 items, got {self.n}")
        # rows: the replicates, then the point estimate (every weight 1)
        limbs = np.concatenate([self._limbs, self._point], axis=2)
        weights = np.append(self._weights, self.n)
        if statistic is None:  # the exact weighted sum over the total weight, rounded once (NaN for 0)
            values = _limbs_to_floats(limbs[:1], weights)[:, 0]
        elif callable(statistic):
            sums, totals = _limbs_to_floats(limbs), weights.astype(np.float64)
            values = np.array([float(statistic(sums[r], totals[r])) for r in range(sums.shape[0])])
        else:
            raise TypeError(f"statistic must be None or a callable (sums, total_weight) -> float, got {statistic!r}")
        theta_hat, theta_b = float(values[-1]), values[:-1]
        alpha = (1 - self.confidence_level) / 2
        with np.errstate(invalid="ignore"):
            low, high = (float(v) for v in _quantile(theta_b, (alpha, 1 - alpha)))
        if np.isnan(theta_b).any():
            from scipy.stats import DegenerateDataWarning

            warnings.warn(DegenerateDataWarning(
                f"{np.isnan(theta_b).sum()} of {theta_b.size} replicates have an undefined statistic "
                "(e.g. total weight 0); the interval is NaN"), stacklevel=2)
        return BootstrapResult(theta_hat, low, high, float(np.std(theta_b, ddof=1)), theta_b,
                               self._result_signature(statistic))

    def signature(self) -> str:
        """The settings of the resampling; a result's signature adds its statistic."""
        return make_signature("streaming_bootstrap", **self._settings())

    def _result_signature(self, statistic) -> str:
        return make_signature("streaming_bootstrap", statistic=_statistic_name(statistic), **self._settings())

    def _settings(self) -> dict:
        return {"method": "percentile", "weights": "poisson1", "level": self.confidence_level,
                "resamples": self.n_resamples, "seed": self.seed}

    def __repr__(self) -> str:
        return (f"StreamingBootstrap(n_resamples={self.n_resamples}, seed={self.seed}, "
                f"confidence_level={self.confidence_level}; k={self.k}, n={self.n})")


def _joined_ranges(ranges, new, what):
    """The union of two sets of disjoint [start, stop) ranges, sorted and with adjacent ones
    joined; an overlap is a ValueError (the same example would be counted twice)."""
    out = []
    for start, stop in sorted([*ranges, *new]):
        if start == stop:
            continue
        if out and start < out[-1][1]:
            raise ValueError(f"{what}: examples [{start}, {stop}) overlap the examples "
                             f"[{out[-1][0]}, {out[-1][1]}) already seen")
        if out and start == out[-1][1]:
            out[-1] = (out[-1][0], stop)
        else:
            out.append((start, stop))
    return out


__all__ = [
    "AggregateScore",
    "BootstrapAggregator",
    "BootstrapResult",
    "MeanResult",
    "NAN_POLICIES",
    "PairedBootstrapResult",
    "STATISTICS",
    "StreamingBootstrap",
    "bootstrap",
    "bootstrap_distribution",
    "micro_average",
    "paired_bootstrap_correlation",
    "paired_bootstrap_means",
    "rouge_bootstrap_percentiles",
]
