"""Statistics shared by every method: correlation, resampling and leaderboards (Numba kernels).

Public API (stable; other modules import from ``qascore.stats`` only)
----------------------------------------------------------------------
Correlation of two paired samples; each returns a ``CorrelationResult`` (``statistic``,
``pvalue``, ``n``, ``signature``; unpacks and indexes as ``(statistic, pvalue)`` like scipy).
Samples are any ordered iterable of numbers: lists, tuples, numpy arrays, pandas Series,
generators:

- ``kendalltau(x, y, *, variant='b'|'a'|'c', method='auto'|'exact'|'asymptotic',
  alternative='two-sided'|'less'|'greater', nan_policy='propagate'|'raise'|'omit')`` --
  statistic and p-value equal to ``scipy.stats.kendalltau`` (tau-a uses the same S test).
- ``goodman_kruskal_gamma(x, y, *, nan_policy)`` -- (C - D) / (C + D); pvalue None.
- ``spearmanr(x, y, *, alternative, nan_policy)`` -- average ranks, scipy's t p-value.
- ``pearsonr(x, y, *, alternative, nan_policy)`` -- scipy's statistic and beta p-value.
- ``rmse(predicted, actual, *, nan_policy) -> float``;
  ``r2_score(y_true, y_pred, *, nan_policy, force_finite=False) -> float``.

Batched over rows of two (rows x items) arrays, rows in parallel, ``RowsResult`` of arrays:
``kendalltau_rows``, ``goodman_kruskal_gamma_rows``, ``spearmanr_rows``, ``pearsonr_rows``
(same keywords plus ``n_jobs``).

Resampling (seeded; ``rng='qascore'`` per-replicate xoshiro256++ streams, ``rng='scipy'`` the
exact indices of ``scipy.stats.bootstrap(..., rng=seed)``):

- ``bootstrap(data, statistic='mean', *, n_resamples=9999, confidence_level=0.95,
  method='bca'|'percentile'|'basic', alternative, seed=0, rng, nan_policy='raise', n_jobs)``
  -> ``BootstrapResult`` (statistic, low, high, standard_error, distribution, signature).
  ``statistic`` is a name in ``STATISTICS``; ``data`` is a sample, or a pair (x, y).
- ``paired_bootstrap_means(scores_a, scores_b, *, n_resamples=1000, seed=0, ...)`` and
  ``paired_bootstrap_correlation(metric_a, metric_b, human, *, statistic='pearson', ...)`` ->
  ``PairedBootstrapResult`` (a, b, difference, win_rate, tie_rate, p_value, low, high).
- ``micro_average(values, weights=None, *, confidence_level=0.95)`` -> ``MeanResult``
  (mean, standard_error, low, high, n, signature).
- ``StreamingBootstrap(n_resamples=1000, seed=0, confidence_level=0.95)``: ``update(values,
  start=None)`` with per-example scores (1-D) or statistics ([n, k]), ``merge(other)``,
  ``compute(statistic=None)`` -> ``BootstrapResult``; the Poisson bootstrap in bounded memory,
  bit-identical over any split of the stream into batches or workers.
- ``BootstrapAggregator`` / ``rouge_bootstrap_percentiles``: rouge-score's aggregator, same
  numbers for the same numpy seed.

Leaderboards (systems x per-query scores):

- ``Leaderboard(scores, systems=None, name='')`` (``scores``: mapping system -> per-query
  scores, or a (systems x queries) array with ``systems``); ``.means``, ``.standard_errors``,
  ``.ranks(ties='average'|'min'|'max'|'dense'|'ordinal')``, ``.ranking()``,
  ``.tie_groups(ties)``; ``Leaderboard.from_means(mapping)`` for final scores only.
- ``leaderboard_correlation(a, b, *, repeats=10, ties='standard_error'|'exact'|'none', seed=0)`` ->
  ``LeaderboardCorrelation`` (Spearman and Kendall tau-b mean and std over random tie-breaks).
- ``bootstrap_leaderboard_correlation(a, b, *, statistic='kendall_tau_b', n_resamples=1000, seed=0)``
  -> ``BootstrapResult`` of the correlation of system means over resampled queries.
- ``compare(leaderboard or {metric: leaderboard}, *, test='paired_bootstrap'|'student'|
  'randomization', max_p=0.05, n_resamples=1000, seed=0, bonferroni=False)`` -> ``Comparison``
  (p-value matrix, ``str()`` prints a ranx-style table).
- ``adjust_pvalues(pvalues, method='holm'|'bonferroni'|'none')``: one family of p-values adjusted
  for multiple comparisons, as statsmodels' ``multipletests``.

Systems against a baseline with sacrebleu's paired bootstrap and approximate randomization (the
``qascore compare`` command): the tests live in ``qascore.compat.sacrebleu.significance`` (NumPy
only, so sacrebleu's drop-in loads no Numba), shared by sacrebleu's ``PairedTest`` and the command.

Undefined cases follow scipy: NaN with ``nan_policy='propagate'``; constant input gives NaN with
``scipy.stats.ConstantInputWarning`` (scipy's kendalltau is silent there; we warn for all).
Deliberate differences: fewer than two items raises ``ValueError`` (scipy returns NaN or
raises depending on the function) and +-inf is an error for Pearson, RMSE and R^2.
"""

from .bootstrap import (
    STATISTICS,
    AggregateScore,
    BootstrapAggregator,
    BootstrapResult,
    MeanResult,
    PairedBootstrapResult,
    StreamingBootstrap,
    bootstrap,
    micro_average,
    paired_bootstrap_correlation,
    paired_bootstrap_means,
    rouge_bootstrap_percentiles,
)
from .correlation import (
    CorrelationResult,
    RowsResult,
    goodman_kruskal_gamma,
    goodman_kruskal_gamma_rows,
    kendalltau,
    kendalltau_rows,
    pearsonr,
    pearsonr_rows,
    r2_score,
    rmse,
    spearmanr,
    spearmanr_rows,
)
from .leaderboard import (
    CORRECTIONS,
    Comparison,
    Leaderboard,
    LeaderboardCorrelation,
    adjust_pvalues,
    bootstrap_leaderboard_correlation,
    compare,
    leaderboard_correlation,
)

__all__ = [
    "CORRECTIONS",
    "Comparison",
    "Leaderboard",
    "LeaderboardCorrelation",
    "adjust_pvalues",
    "bootstrap_leaderboard_correlation",
    "compare",
    "leaderboard_correlation",
    "STATISTICS",
    "AggregateScore",
    "BootstrapAggregator",
    "BootstrapResult",
    "CorrelationResult",
    "MeanResult",
    "PairedBootstrapResult",
    "RowsResult",
    "StreamingBootstrap",
    "bootstrap",
    "goodman_kruskal_gamma",
    "goodman_kruskal_gamma_rows",
    "kendalltau",
    "kendalltau_rows",
    "micro_average",
    "paired_bootstrap_correlation",
    "paired_bootstrap_means",
    "pearsonr",
    "pearsonr_rows",
    "r2_score",
    "rmse",
    "rouge_bootstrap_percentiles",
    "spearmanr",
    "spearmanr_rows",
]
