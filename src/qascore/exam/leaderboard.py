"""Leaderboards for EXAM: official leaderboard files, EXAM/ROUGE leaderboards, correlation, plot.

Correlation is :func:`qascore.stats.leaderboard_correlation` (Spearman and Kendall tau-b, systems
within standard error of each other tied and the ties broken at random over repeats, as the paper
does). This module only shapes EXAM's data into :class:`qascore.stats.Leaderboard`.

Official leaderboard file: one system per line, ``system<whitespace>score[<whitespace>stderr]``;
blank lines and ``#`` lines are skipped; higher is better. A published standard error is given to
``Leaderboard.from_means``, so the stats module's standard-error ties apply to it.

Leaderboard table (several measures in one file): TSV, ``#`` lines and blank lines skipped, the first
other line ``system<TAB>measure<TAB>...``, then one system a line with a score per measure.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputFormatError
from ..io import iter_lines, open_output

# qascore.stats (Numba, SciPy) is imported by the functions that build or correlate leaderboards,
# so that ``import qascore.exam`` and EXAM grading do not load it.
if TYPE_CHECKING:
    from ..stats import Leaderboard


def leaderboard_from_means(means: dict, stderr: dict | None = None, name: str = "") -> Leaderboard:
    """A stats Leaderboard from final scores and optional standard errors."""
    from ..stats import Leaderboard

    return Leaderboard.from_means(means, name=name, standard_errors=stderr)


def exam_leaderboard(result, measure: str = "exam", name: str = "EXAM") -> Leaderboard:
    """EXAM (per-query scores, so standard errors are EXAM's own) or n-EXAM (final scores only)."""
    from ..stats import Leaderboard

    if measure == "exam":
        return Leaderboard({s: [v.per_query[q] for q in result.query_ids] for s, v in result.systems.items()},
                           queries=result.query_ids, name=name)
    return Leaderboard.from_means({s: getattr(v, measure) for s, v in result.systems.items()}, name=name)


def _finite_numbers(cells: list[str], path, lineno: int, what: str) -> list[float]:
    try:
        values = [float(v) for v in cells]
    except ValueError:
        raise InputFormatError(path, lineno, f"{what} must be numbers") from None
    if not all(math.isfinite(v) for v in values):
        raise InputFormatError(path, lineno, f"{what} must be finite")
    return values


def read_leaderboard(path, name: str | None = None) -> Leaderboard:
    """An official leaderboard file: ``system score [stderr]`` a line (see the module).

    Example:

        >>> import os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "official.txt")
        >>> with open(path, "w") as out:
        ...     _ = out.write("sys1 0.8 0.05\\nsys2 0.6\\n")
        >>> board = read_leaderboard(path, name="official")
        >>> board.systems, board.means.tolist(), board.standard_errors.tolist()
        (('sys1', 'sys2'), [0.8, 0.6], [0.05, 0.0])
        >>> folder.cleanup()

    :param path: the file, or ``-``.
    :param name: the leaderboard's name (default: the path).
    :returns: a :class:`qascore.stats.Leaderboard` of final scores.
    :raises qascore.errors.InputFormatError: for a line of another shape, a number that is not
        finite, a negative standard error or a repeated system, naming the file and line.
    """
    means: dict[str, float] = {}
    stderr: dict[str, float] = {}
    for lineno, line in iter_lines(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        if len(parts) not in (2, 3):
            raise InputFormatError(path, lineno, f"expected 'system score [stderr]', got {len(parts)} fields")
        values = _finite_numbers(parts[1:], path, lineno, "score and stderr")
        if len(values) == 2 and values[1] < 0:
            raise InputFormatError(path, lineno, "stderr must be >= 0")
        if parts[0] in means:
            raise InputFormatError(path, lineno, f"duplicate system {parts[0]!r}")
        means[parts[0]] = values[0]
        stderr[parts[0]] = values[1] if len(values) == 2 else 0.0
    if len(means) < 2:
        raise InputFormatError(path, None, "a leaderboard needs at least two systems")
    return leaderboard_from_means(means, stderr if any(stderr.values()) else None, name=name or str(path))


def read_leaderboard_table(path) -> dict[str, Leaderboard]:
    """One leaderboard per measure column of a TSV table (``system<TAB>measure...`` header first).

    Every row needs a finite number per measure; a duplicate system or fewer than two is an error.

    Example:

        >>> import os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "table.tsv")
        >>> with open(path, "w") as out:
        ...     _ = out.write("system\\texam\\tn_exam\\nsys1\\t0.5\\t0.7\\nsys2\\t0.4\\t0.9\\n")
        >>> boards = read_leaderboard_table(path)
        >>> sorted(boards), boards["n_exam"].means.tolist()
        (['exam', 'n_exam'], [0.7, 0.9])
        >>> folder.cleanup()

    :param path: the TSV file, or ``-``.
    :returns: measure -> :class:`qascore.stats.Leaderboard`.
    :raises qascore.errors.InputFormatError: naming the file and line of a bad row.
    """
    header: list[str] | None = None
    columns: dict[str, dict[str, float]] = {}
    for lineno, line in iter_lines(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = line.split("\t")
        if header is None:
            if len(cells) < 2 or len(set(cells)) != len(cells):
                raise InputFormatError(path, lineno, "expected a header 'system<TAB>measure...' of distinct names")
            header = cells
            columns = {m: {} for m in header[1:]}
            continue
        if len(cells) != len(header):
            raise InputFormatError(path, lineno, f"expected {len(header)} tab-separated columns, got {len(cells)}")
        values = _finite_numbers(cells[1:], path, lineno, "scores")
        if cells[0] in columns[header[1]]:
            raise InputFormatError(path, lineno, f"duplicate system {cells[0]!r}")
        for measure, value in zip(header[1:], values):
            columns[measure][cells[0]] = value
    if header is None or len(columns[header[1]]) < 2:
        raise InputFormatError(path, None, "a leaderboard table needs a header and at least two systems")
    return {m: leaderboard_from_means(means, name=m) for m, means in columns.items()}


@dataclass
class CorrelationRow:
    a: str
    b: str
    spearman_mean: float
    spearman_std: float
    kendall_mean: float
    kendall_std: float
    signature: str


def correlate(a: Leaderboard, b: Leaderboard, *, repeats: int = 10, ties: str = "standard_error",
              seed: int = 0) -> CorrelationRow:
    from ..stats import leaderboard_correlation

    r = leaderboard_correlation(a, b, repeats=repeats, ties=ties, seed=seed)
    return CorrelationRow(a.name, b.name, r.spearman_mean, r.spearman_std, r.kendall_mean, r.kendall_std, r.signature)


def correlation_report(a: Leaderboard, b: Leaderboard, *, repeats: int = 10, ties: str = "standard_error",
                       seed: int = 0) -> str:
    r = correlate(a, b, repeats=repeats, ties=ties, seed=seed)
    return (f"{a.name} vs {b.name}: Spearman {r.spearman_mean:+.3f} (std {r.spearman_std:.3f}), "
            f"Kendall tau-b {r.kendall_mean:+.3f} (std {r.kendall_std:.3f}) over {repeats} random tie-breaks\n"
            f"{r.signature}")


def plot_leaderboards(x: Leaderboard, y: Leaderboard, path, *, title: str | None = None) -> None:
    """A PNG scatter of the systems (means with standard-error bars on both axes), points labelled."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install 'qascore[plot]'") from None
    missing = sorted(set(x.systems) ^ set(y.systems))
    if missing:
        raise ValueError(f"leaderboards differ in systems: {missing}")
    y = y.subset(x.systems)
    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    ax.errorbar(x.means, y.means, xerr=x.standard_errors, yerr=y.standard_errors, fmt="o", capsize=3, markersize=4)
    for s, xv, yv in zip(x.systems, x.means, y.means):
        ax.annotate(s, (xv, yv), textcoords="offset points", xytext=(4, 3), fontsize=7)
    ax.set_xlabel(x.name or "EXAM")
    ax.set_ylabel(y.name or "official measure")
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    try:
        with open_output(path, binary=True) as out:  # atomic, like every output file
            fig.savefig(out, format="png")
    finally:
        plt.close(fig)
