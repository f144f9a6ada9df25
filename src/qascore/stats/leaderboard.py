"""Leaderboards: systems scored per query; ranks with ties, leaderboard correlation with random
tie-breaking (EXAM), bootstrap of leaderboard correlation, and a ranx-style ``compare`` table.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._parallel import numba_threads
from ..signature import make_signature
from ..validate import as_float_array, check_choice, check_stream_size
from . import _kernels as K
from .bootstrap import (
    BootstrapResult,
    _bca_probabilities,
    _check_level,
    _check_resamples,
    _check_seed,
    _quantile,
    _statistic_code,
)


class Leaderboard:
    """Per-query scores of systems (systems x queries), all systems scored on the same queries.

    scores: a mapping system -> per-query scores, or a 2-D array with ``systems`` naming its rows.
    queries: optional query ids (aligns two leaderboards query by query). A leaderboard of final
    scores only (one value per system) has one "query" and standard errors of 0.

    Example:

        >>> board = Leaderboard({"bm25": [0.2, 0.4, 0.3], "dense": [0.5, 0.6, 0.4], "hybrid": [0.6, 0.7, 0.5]},
        ...                     name="exam")
        >>> board.means.round(4).tolist(), board.ranks().tolist()
        ([0.3, 0.5, 0.6], [3.0, 2.0, 1.0])
        >>> board.ranking()[0][0], board.tie_groups()
        ('hybrid', [[2], [1], [0]])

    :param scores: a mapping system -> per-query scores, or a (systems x queries) array.
    :param systems: the row names of an array of scores (None with a mapping).
    :param queries: optional query ids, one per column.
    :param name: the leaderboard's name (the metric), used in tables and errors.
    :param higher_is_better: False for error measures (lower ranks first).
    :raises ValueError: for fewer than 2 systems, duplicate names, rows of different lengths, no
        query scores, or a non-finite score (each naming the system and query).
    """

    def __init__(self, scores, systems=None, queries=None, name="", higher_is_better=True):
        if isinstance(scores, Mapping):
            if systems is not None:
                raise ValueError("give systems either as the mapping's keys or as `systems`, not both")
            systems = list(scores)
            rows = [as_float_array(np.atleast_1d(scores[s]), f"scores[{s!r}]", 1) for s in systems]
            lengths = {r.shape[0] for r in rows}
            if len(lengths) > 1:
                sizes = ", ".join(f"{s!r}: {r.shape[0]}" for s, r in zip(systems, rows))
                raise ValueError(f"leaderboard {name!r}: systems have different numbers of query scores ({sizes})")
            matrix = np.vstack(rows) if rows else np.empty((0, 0))
        else:
            matrix = as_float_array(scores, "scores", 2)
            if systems is None:
                raise ValueError("a score matrix needs `systems` naming its rows")
        self.systems = tuple(str(s) for s in systems)
        self.name = str(name)
        if len(self.systems) != matrix.shape[0]:
            raise ValueError(f"leaderboard {name!r}: {len(self.systems)} system names for {matrix.shape[0]} score rows")
        if len(set(self.systems)) != len(self.systems):
            dup = sorted({s for s in self.systems if self.systems.count(s) > 1})
            raise ValueError(f"leaderboard {name!r}: duplicate systems {dup}")
        if len(self.systems) < 2:
            raise ValueError(f"leaderboard {name!r} needs at least 2 systems, got {len(self.systems)}")
        if matrix.shape[1] < 1:
            raise ValueError(f"leaderboard {name!r} has no query scores")
        bad = ~np.isfinite(matrix)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise ValueError(f"leaderboard {name!r}: system {self.systems[r]!r} has {matrix[r, c]} at query {c}")
        if queries is not None:
            queries = tuple(str(q) for q in queries)
            if len(queries) != matrix.shape[1]:
                raise ValueError(f"leaderboard {name!r}: {len(queries)} query ids for {matrix.shape[1]} score columns")
        self.queries = queries
        self.scores = np.ascontiguousarray(matrix)
        self._given_standard_errors = None  # set by from_means when published errors are known
        self.higher_is_better = bool(higher_is_better)

    @classmethod
    def from_means(cls, means: Mapping, name="", higher_is_better=True, standard_errors: Mapping | None = None
                   ) -> Leaderboard:
        """A leaderboard known only by each system's final score, with published standard errors
        (e.g. an official leaderboard's +- column) or none (0).

        Example:

            >>> Leaderboard.from_means({"bm25": 0.1, "dense": 0.3, "hybrid": 0.2}).ranks().tolist()
            [3.0, 1.0, 2.0]
        """
        board = cls({s: [v] for s, v in means.items()}, name=name, higher_is_better=higher_is_better)
        if standard_errors is not None:
            missing = [s for s in board.systems if s not in standard_errors]
            if missing:
                raise ValueError(f"leaderboard {name!r}: no standard error for systems {missing}")
            errors = as_float_array([standard_errors[s] for s in board.systems], "standard_errors", 1)
            if np.any(errors < 0):
                raise ValueError(f"leaderboard {name!r}: standard errors must be >= 0")
            board._given_standard_errors = errors
        return board

    @property
    def means(self) -> np.ndarray:
        return _row_means(self.scores)

    @property
    def standard_errors(self) -> np.ndarray:
        if self._given_standard_errors is not None:
            return self._given_standard_errors
        q = self.scores.shape[1]
        if q < 2:
            return np.zeros(len(self.systems))
        return np.std(self.scores, axis=1, ddof=1) / np.sqrt(q)

    def _goodness(self) -> np.ndarray:
        """Means oriented so that larger is better."""
        return self.means if self.higher_is_better else -self.means

    def ranks(self, ties="average") -> np.ndarray:
        """Rank of each system (1 = best); tied means share ranks as scipy.stats.rankdata(method=ties)."""
        check_choice(ties, ("average", "min", "max", "dense", "ordinal"), "ties")
        from scipy.stats import rankdata  # here: scipy.stats is slow to import and only ranks() needs it

        return rankdata(-self._goodness(), method=ties)

    def ranking(self) -> list[tuple[str, float, float]]:
        """(system, mean, standard error), best first (ties keep the input order)."""
        order = np.argsort(-self._goodness(), kind="stable")
        m, se = self.means, self.standard_errors
        return [(self.systems[i], float(m[i]), float(se[i])) for i in order]

    def tie_groups(self, ties="standard_error") -> list[list[int]]:
        """Groups of system indices treated as tied, best group first.

        'standard_error': walking down the ranking, a system joins the previous one's group when
        their means differ by at most the larger of their two standard errors (groups chain);
        'exact': only equal means tie; 'none': no ties at all (input order breaks equal means).
        """
        check_choice(ties, ("standard_error", "exact", "none"), "ties")
        g, se = self._goodness(), self.standard_errors
        order = np.argsort(-g, kind="stable")
        groups = [[int(order[0])]]
        for prev, cur in zip(order[:-1], order[1:]):
            gap = g[prev] - g[cur]
            tied = (ties == "standard_error" and gap <= max(se[prev], se[cur])) or (ties == "exact" and gap == 0)
            if tied:
                groups[-1].append(int(cur))
            else:
                groups.append([int(cur)])
        return groups

    def subset(self, systems) -> Leaderboard:
        index = {s: i for i, s in enumerate(self.systems)}
        rows = [index[s] for s in systems]
        board = Leaderboard(self.scores[rows], systems=list(systems), queries=self.queries, name=self.name,
                            higher_is_better=self.higher_is_better)
        if self._given_standard_errors is not None:
            board._given_standard_errors = self._given_standard_errors[rows]
        return board

    def __repr__(self) -> str:
        return f"Leaderboard({self.name!r}, systems={len(self.systems)}, queries={self.scores.shape[1]})"


def _row_means(matrix: np.ndarray) -> np.ndarray:
    """np.mean of each row of a C-contiguous matrix, bit for bit (numpy's pairwise sum of the
    contiguous row, over its length) without np.mean's call overhead, which is most of the time on
    short rows. A 2-D sum along axis 1 is not promised to sum each row in that order."""
    return np.array([np.add.reduce(row) for row in matrix]) / matrix.shape[1]


def _label(board: Leaderboard, fallback: str) -> str:
    return board.name or fallback


def align_systems(a: Leaderboard, b: Leaderboard) -> tuple[Leaderboard, Leaderboard]:
    """The two leaderboards restricted to the same system order; a system missing from one is an error."""
    la, lb = _label(a, "a"), _label(b, "b")
    missing_b = [s for s in a.systems if s not in set(b.systems)]
    missing_a = [s for s in b.systems if s not in set(a.systems)]
    if missing_a or missing_b:
        parts = []
        if missing_b:
            parts.append(f"leaderboard {lb!r} is missing systems {missing_b} that {la!r} has")
        if missing_a:
            parts.append(f"leaderboard {la!r} is missing systems {missing_a} that {lb!r} has")
        raise ValueError("; ".join(parts))
    return a, b.subset(a.systems)


def _random_ranks(groups: list[list[int]], rng: np.random.Generator) -> np.ndarray:
    """Strict ranks (1 = best) of the systems in tie groups (best first), each group's internal
    order shuffled."""
    ranks = np.empty(sum(len(group) for group in groups))
    position = 1
    for group in groups:
        for offset, i in enumerate(rng.permutation(group)):
            ranks[i] = position + offset
        position += len(group)
    return ranks


@dataclass(frozen=True)
class LeaderboardCorrelation:
    """Spearman and Kendall tau-b between two leaderboards over repeated random tie-breaks.

    Example:

        >>> ours = Leaderboard({"bm25": [0.2, 0.4], "dense": [0.5, 0.6], "hybrid": [0.6, 0.7]})
        >>> official = Leaderboard.from_means({"bm25": 0.1, "dense": 0.3, "hybrid": 0.2})
        >>> result = leaderboard_correlation(ours, official, ties="none")
        >>> result.spearman_mean, round(result.kendall_mean, 4), result.ranks_a.shape
        (0.5, 0.3333, (10, 3))
    """

    spearman_mean: float
    spearman_std: float
    kendall_mean: float
    kendall_std: float
    spearman: np.ndarray
    kendall: np.ndarray
    ranks_a: np.ndarray  # (repeats x systems) strict ranks after tie-breaking, systems in a's order
    ranks_b: np.ndarray
    signature: str


def leaderboard_correlation(a: Leaderboard, b: Leaderboard, *, repeats=10, ties="standard_error", seed=0):
    """Rank correlation of two leaderboards, ties broken at random and repeated (EXAM, Dietz 2021).

    Each repeat shuffles the systems inside every tie group (see Leaderboard.tie_groups) of both
    leaderboards, then correlates the resulting strict rankings. std is the sample standard
    deviation over repeats (0 for one repeat).

    Example:

        >>> ours = Leaderboard({"bm25": [0.2, 0.4], "dense": [0.5, 0.6], "hybrid": [0.6, 0.7]})
        >>> official = Leaderboard.from_means({"bm25": 0.1, "dense": 0.3, "hybrid": 0.2})
        >>> leaderboard_correlation(ours, official, ties="none").spearman_mean
        0.5

    :param a: a :class:`Leaderboard`.
    :param b: a :class:`Leaderboard` of the same systems (in any order).
    :param repeats: the number of random tie-breaks.
    :param ties: ``'standard_error'`` (means within a standard error tie), ``'exact'`` or ``'none'``.
    :param seed: the seed of the tie-breaking.
    :returns: a :class:`LeaderboardCorrelation`.
    :raises ValueError: for systems missing from one leaderboard, or an unknown ``ties``.
    """
    repeats = _check_resamples(repeats, "repeats")
    seed = _check_seed(seed)
    a, b = align_systems(a, b)
    rng = np.random.default_rng(seed)
    ra = np.empty((repeats, len(a.systems)))
    rb = np.empty_like(ra)
    groups_a, groups_b = a.tie_groups(ties), b.tie_groups(ties)
    for r in range(repeats):
        ra[r] = _random_ranks(groups_a, rng)
        rb[r] = _random_ranks(groups_b, rng)
    # Each repeat is one small pair of strict rankings (no NaN, no ties, at least 2 systems): the
    # single-pair kernels, not the parallel row kernels, which a first call would compile for 20 s.
    rho = np.array([K.statistic_of(K.SPEARMAN, ra[r], rb[r]) for r in range(repeats)])
    tau = np.array([K.statistic_of(K.KENDALL_B, ra[r], rb[r]) for r in range(repeats)])
    ddof = 1 if repeats > 1 else 0
    sig = make_signature("leaderboard_correlation", ties=ties, repeats=repeats, seed=seed, kendall="b")
    return LeaderboardCorrelation(float(rho.mean()), float(rho.std(ddof=ddof)), float(tau.mean()),
                                  float(tau.std(ddof=ddof)), rho, tau, ra, rb, sig)


def _aligned_queries(a: Leaderboard, b: Leaderboard):
    if a.queries is not None and b.queries is not None:
        if set(a.queries) != set(b.queries):
            only_a = sorted(set(a.queries) - set(b.queries))[:5]
            only_b = sorted(set(b.queries) - set(a.queries))[:5]
            raise ValueError(f"leaderboards have different queries (only in {_label(a, 'a')!r}: {only_a}, "
                             f"only in {_label(b, 'b')!r}: {only_b})")
        pos = {q: i for i, q in enumerate(b.queries)}
        return a.scores, np.ascontiguousarray(b.scores[:, [pos[q] for q in a.queries]])
    if a.scores.shape[1] != b.scores.shape[1]:
        raise ValueError(f"leaderboards have {a.scores.shape[1]} and {b.scores.shape[1]} queries; "
                         "resampling queries needs the same queries (give query ids to align them)")
    return a.scores, b.scores


def bootstrap_leaderboard_correlation(a: Leaderboard, b: Leaderboard, *, statistic="kendall_tau_b",
                                      n_resamples=1000, seed=0, confidence_level=0.95, method="percentile",
                                      n_jobs=None):
    """Interval of the correlation between two leaderboards' system means over resampled queries.

    Each replicate draws queries with replacement (the same queries for both leaderboards),
    recomputes every system's mean in both, and correlates them; all replicates run in parallel.

    Example:

        >>> a = Leaderboard({"bm25": [0.2, 0.4, 0.3], "dense": [0.5, 0.6, 0.4], "hybrid": [0.6, 0.7, 0.5]})
        >>> b = Leaderboard({"bm25": [0.1, 0.3, 0.2], "dense": [0.4, 0.4, 0.5], "hybrid": [0.5, 0.6, 0.7]})
        >>> result = bootstrap_leaderboard_correlation(a, b, n_resamples=200)
        >>> result.statistic, result.low, result.high
        (1.0, 1.0, 1.0)

    :param a: a :class:`Leaderboard`.
    :param b: a :class:`Leaderboard` of the same systems and queries (query ids align them).
    :param statistic: a paired statistic of :data:`STATISTICS` (not ``'mean'``).
    :param n_resamples: the number of replicates.
    :param seed: the seed of the resampling.
    :param confidence_level: the interval's level.
    :param method: ``'percentile'`` or ``'bca'``.
    :param n_jobs: threads for the replicates (None: qascore's default thread policy).
    :returns: a :class:`BootstrapResult`.
    :raises ValueError: for different systems or queries, an unknown statistic or method.
    """
    code = _statistic_code(statistic)
    if code == K.MEAN:
        raise ValueError("statistic must correlate the two leaderboards, not 'mean'")
    check_choice(method, ("percentile", "bca"), "method")
    n_resamples = _check_resamples(n_resamples)
    seed = _check_seed(seed)
    level = _check_level(confidence_level)
    a, b = align_systems(a, b)
    A, B = _aligned_queries(a, b)
    if A.shape[1] < 2:
        raise ValueError("resampling queries needs at least 2 queries per system")
    check_stream_size(A.shape[1], "leaderboard bootstrap")
    sign = 1.0 if a.higher_is_better == b.higher_is_better else -1.0
    out = np.empty(n_resamples)
    with numba_threads(n_jobs):
        K.resampled_leaderboard_statistic(code, A, B, seed, out)
    theta = K.statistic_of(code, _row_means(A), _row_means(B))
    alpha = (1 - level) / 2
    if method == "bca":
        q = A.shape[1]
        jack = np.empty(q)
        for i in range(q):
            keep = np.arange(q) != i
            jack[i] = K.statistic_of(code, _row_means(A[:, keep]), _row_means(B[:, keep]))
        with np.errstate(invalid="ignore", divide="ignore"):
            probs = _bca_probabilities(theta, out, jack, alpha)
    else:
        probs = (alpha, 1 - alpha)
    with np.errstate(invalid="ignore"):
        low, high = (float(v) for v in _quantile(out, probs))
    if sign < 0 and code not in (K.RMSE, K.R2):  # opposite orientations: agreement is negative correlation
        theta, low, high, out = -theta, -high, -low, -out
    sig = make_signature(
        "bootstrap_leaderboards",
        statistic=statistic,
        method=method,
        level=level,
        resamples=n_resamples,
        seed=seed,
        rng="qascore",
    )
    return BootstrapResult(theta, low, high, float(np.std(out, ddof=1)), out, sig)


# ---------------------------------------------------------------- compare (ranx style)

_TESTS = ("paired_bootstrap", "student", "randomization")
_SUPERSCRIPT = dict(zip("abcdefghijklmnopqrstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖᑫʳˢᵗᵘᵛʷˣʸᶻ"))


def _labels(n: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = []
    for i in range(n):
        label = ""
        i += 1
        while i:
            i, r = divmod(i - 1, 26)
            label = letters[r] + label
        out.append(label)
    return out


def paired_pvalue(d: np.ndarray, test: str, n_resamples: int, seed: int) -> float:
    """Two-sided p-value that the mean per-query difference d is 0.

    student: paired t-test (scipy.stats.ttest_rel); randomization: Fisher's sign-flip test,
    (#{|mean d*| >= |mean d|} + 1) / (B + 1); paired_bootstrap: the bootstrap distribution of
    the mean difference shifted to mean 0 under the null, same counting rule.
    """
    n = d.shape[0]
    observed = np.mean(d)
    if test == "student":
        sd = np.std(d, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = observed / (sd / np.sqrt(n))
        return float(2 * special.stdtr(n - 1, -np.abs(t)))
    out = np.empty(n_resamples)
    if test == "randomization":
        K.sign_flip_means(d, n_resamples, seed, out)
        extreme = np.abs(out) >= abs(observed)
    else:
        K.bootstrap_mean_difference(d, n_resamples, seed, out)
        extreme = np.abs(out - observed) >= abs(observed)
    return float((np.count_nonzero(extreme) + 1) / (n_resamples + 1))


CORRECTIONS = ("none", "bonferroni", "holm")


def adjust_pvalues(pvalues, method="holm") -> np.ndarray:
    """p-values of one family of tests adjusted for multiple comparisons (same shape; NaN stays NaN
    and does not count in the family), as statsmodels' ``multipletests(p, method=...)[1]``.

    bonferroni: min(1, m p). holm (Holm 1979, step-down): with the m p-values sorted ascending,
    the i-th (1-based) becomes max over j <= i of min(1, (m - j + 1) p_(j)); it controls the
    family-wise error rate as Bonferroni does and rejects at least as much. none: unchanged.

    Example:

        >>> adjust_pvalues([0.01, 0.04, 0.03]).tolist()
        [0.03, 0.06, 0.06]
        >>> adjust_pvalues([0.01, 0.04, 0.03], "bonferroni").tolist()
        [0.03, 0.12, 0.09]

    :param pvalues: an array-like of p-values in [0, 1] (any shape; NaN allowed).
    :param method: a name in :data:`CORRECTIONS`: ``'holm'``, ``'bonferroni'`` or ``'none'``.
    :returns: the adjusted p-values, a float array of the same shape.
    :raises ValueError: for a p-value outside [0, 1] or an unknown method.
    """
    check_choice(method, CORRECTIONS, "method")
    p = np.array(pvalues, dtype=np.float64)
    flat = p.reshape(-1)
    if np.any((flat < 0) | (flat > 1)):
        bad = flat[(flat < 0) | (flat > 1)][0]
        raise ValueError(f"p-values must lie in [0, 1], got {bad}")
    if method == "none":
        return p
    present = np.flatnonzero(~np.isnan(flat))
    m = present.size
    values = flat[present]
    if method == "bonferroni":
        flat[present] = np.minimum(1.0, m * values)
    else:
        order = np.argsort(values, kind="stable")
        steps = np.minimum(1.0, (m - np.arange(m)) * values[order])
        flat[present[order]] = np.maximum.accumulate(steps)
    return p


@dataclass(frozen=True)
class Comparison:
    """Systems x metrics means with pairwise p-values; ``str()`` is the ranx-style table.

    ``pvalues[m][i, j]``: two-sided p-value of systems i and j on metric m. A cell of system i lists
    the labels of systems j it beats significantly (higher mean, p <= max_p).

    Example:

        >>> board = Leaderboard({"bm25": [0.2, 0.4, 0.3], "hybrid": [0.6, 0.7, 0.5]}, name="exam")
        >>> comparison = compare(board, n_resamples=200)
        >>> comparison.pvalues.shape, comparison.beats("exam", 1, 0)
        ((1, 2, 2), True)
    """

    systems: tuple
    metrics: tuple
    means: np.ndarray
    pvalues: np.ndarray
    higher_is_better: tuple
    max_p: float
    test: str
    signature: str

    def beats(self, metric: str, i: int, j: int) -> bool:
        """System i is significantly better than j on metric (better mean and p <= max_p)."""
        m = self.metrics.index(metric)
        gap = self.means[m, i] - self.means[m, j]
        better = gap > 0 if self.higher_is_better[m] else gap < 0
        return bool(better and self.pvalues[m, i, j] <= self.max_p)

    def to_text(self, digits=4, ascii_only=False) -> str:
        labels = _labels(len(self.systems))
        header = ["#", "System", *self.metrics]
        rows = []
        for i, system in enumerate(self.systems):
            cells = [labels[i], system]
            for m, metric in enumerate(self.metrics):
                won = [labels[j] for j in range(len(self.systems)) if j != i and self.beats(metric, i, j)]
                value = f"{self.means[m, i]:.{digits}f}"
                if won:
                    value += (
                        f" [{','.join(won)}]"
                        if ascii_only
                        else "".join(_SUPERSCRIPT.get(c, c) for c in "".join(won) if len(c) == 1)
                    )
                cells.append(value)
            rows.append(cells)
        widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
        line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
        rule = "  ".join("-" * w for w in widths)
        note = f"{self.test} test, p <= {self.max_p}: marks the systems a row beats"
        return "\n".join([line(header), rule, *map(line, rows), "", note])

    def __str__(self) -> str:
        return self.to_text()


def compare(boards, *, test="paired_bootstrap", max_p=0.05, n_resamples=1000, seed=0, bonferroni=False, n_jobs=None):
    """Pairwise significance table of systems (as ranx.compare), one column per metric.

    boards: one Leaderboard, or a mapping metric name -> Leaderboard over the same systems and
    queries. bonferroni=True multiplies p-values by the number of system pairs (capped at 1):
    :func:`adjust_pvalues` over each metric's pairs.

    Example:

        >>> board = Leaderboard({"bm25": [0.2, 0.4, 0.3], "dense": [0.5, 0.6, 0.4], "hybrid": [0.6, 0.7, 0.5]},
        ...                     name="exam")
        >>> print(compare(board, n_resamples=200))
        #  System  exam
        -  ------  --------
        a  bm25    0.3000
        b  dense   0.5000ᵃ
        c  hybrid  0.6000ᵃᵇ
        <BLANKLINE>
        paired_bootstrap test, p <= 0.05: marks the systems a row beats

    :param boards: a :class:`Leaderboard`, or a mapping metric name -> Leaderboard.
    :param test: ``'paired_bootstrap'``, ``'student'`` (paired t-test) or ``'randomization'``.
    :param max_p: the significance level of the marks, in (0, 1].
    :param n_resamples: replicates of the resampling tests.
    :param seed: the seed of the resampling tests.
    :param bonferroni: adjust each metric's p-values for the number of system pairs.
    :param n_jobs: threads (None: qascore's default thread policy).
    :returns: a :class:`Comparison`; ``print`` it for the table.
    :raises ValueError: for an unknown test, ``max_p`` outside (0, 1], or leaderboards of different
        systems or queries.
    """
    check_choice(test, _TESTS, "test")
    n_resamples = _check_resamples(n_resamples)
    seed = _check_seed(seed)
    if not 0 < max_p <= 1:
        raise ValueError(f"max_p must be in (0, 1], got {max_p!r}")
    if isinstance(boards, Leaderboard):
        boards = {boards.name or "score": boards}
    metrics = tuple(boards)
    if not metrics:
        raise ValueError("compare needs at least one leaderboard")
    first = boards[metrics[0]]
    aligned = [first] + [align_systems(first, boards[m])[1] for m in metrics[1:]]
    n_sys = len(first.systems)
    means = np.empty((len(metrics), n_sys))
    pvalues = np.ones((len(metrics), n_sys, n_sys))
    upper = np.triu_indices(n_sys, 1)
    with numba_threads(n_jobs):
        for m, board in enumerate(aligned):
            if board.scores.shape[1] < 2:
                raise ValueError(f"leaderboard {metrics[m]!r} has one score per system; tests need per-query scores")
            means[m] = board.means
            pairs = [paired_pvalue(board.scores[i] - board.scores[j], test, n_resamples, seed) for i, j in zip(*upper)]
            pvalues[m][upper] = adjust_pvalues(pairs, "bonferroni" if bonferroni else "none")
            pvalues[m].T[upper] = pvalues[m][upper]
    sig = make_signature("compare", test=test, max_p=max_p, resamples=n_resamples, seed=seed, bonferroni=bonferroni)
    return Comparison(
        first.systems, metrics, means, pvalues, tuple(b.higher_is_better for b in aligned), float(max_p), test, sig
    )
