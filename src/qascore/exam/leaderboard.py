"""Leaderboards: reading an official leaderboard, correlating EXAM with it, and plotting the two.

Official leaderboard file: one system per line, ``system<whitespace>score[<whitespace>stderr]``;
blank lines and lines starting with ``#`` are skipped. Higher scores are better.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputFormatError
from ..io import iter_lines


@dataclass
class Leaderboard:
    """Scores (higher is better) and their standard errors (0 when unknown) by system."""

    scores: dict[str, float]
    stderr: dict[str, float]

    @property
    def systems(self) -> list[str]:
        return list(self.scores)


def read_leaderboard(path) -> Leaderboard:
    scores: dict[str, float] = {}
    stderr: dict[str, float] = {}
    for lineno, line in iter_lines(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        if len(parts) not in (2, 3):
            raise InputFormatError(path, lineno, f"expected 'system score [stderr]', got {len(parts)} fields")
        try:
            values = [float(v) for v in parts[1:]]
        except ValueError:
            raise InputFormatError(path, lineno, "score and stderr must be numbers") from None
        if any(v != v or v in (float("inf"), float("-inf")) for v in values):
            raise InputFormatError(path, lineno, "score and stderr must be finite")
        if parts[0] in scores:
            raise InputFormatError(path, lineno, f"duplicate system {parts[0]!r}")
        scores[parts[0]] = values[0]
        stderr[parts[0]] = values[1] if len(values) == 2 else 0.0
    if len(scores) < 2:
        raise InputFormatError(path, None, "a leaderboard needs at least two systems")
    return Leaderboard(scores, stderr)


def common_systems(a: Leaderboard, b: Leaderboard) -> list[str]:
    """Systems on both leaderboards (in a's order); a system on only one is an error."""
    only_a = sorted(set(a.scores) - set(b.scores))
    only_b = sorted(set(b.scores) - set(a.scores))
    if only_a or only_b:
        raise ValueError(f"leaderboards differ in systems: only in the first {only_a}, only in the second {only_b}")
    return list(a.scores)


def plot_leaderboards(x: Leaderboard, y: Leaderboard, path, *, x_label: str = "EXAM",
                      y_label: str = "official measure", title: str | None = None) -> None:
    """A PNG scatter of the systems with standard-error bars on both axes, each point labelled."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install 'qascore[plot]'") from None
    systems = common_systems(x, y)
    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    xs = [x.scores[s] for s in systems]
    ys = [y.scores[s] for s in systems]
    ax.errorbar(xs, ys, xerr=[x.stderr[s] for s in systems], yerr=[y.stderr[s] for s in systems],
                fmt="o", capsize=3, markersize=4)
    for s, xv, yv in zip(systems, xs, ys):
        ax.annotate(s, (xv, yv), textcoords="offset points", xytext=(4, 3), fontsize=7)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
