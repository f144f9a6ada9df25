"""Choosing Nuggeteer's global threshold against judgements, cross-validated across runs.

As in the paper (section 4): each run is scored by classifiers trained on the judgements of the
*other* runs (with ``group_of``, of other groups: runs of one institution are alike), so its own
judgements never score it; the official scores are recomputed from the judgements; the threshold
that maximises Kendall's tau (or minimises the RMSE) between the predicted and official run
scores over all runs is chosen. Kendall's tau is the gamma variant the paper uses (tied pairs
ignored). Statistics come from :mod:`qascore.stats`.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from collections.abc import Callable, Sequence

import numpy as np

from qascore.nuggets.formats import AnswerKey, Judgements, Run
from qascore.nuggets.nuggeteer import Nuggeteer, score_assignment
from qascore.nuggets.official import score_judged_runs

CRITERIA = ("kendall", "rmse")


def threshold_grid(step: float = 0.01) -> np.ndarray:
    """Thresholds 0, step, ..., 1 (rounded so that 0.3 is 0.3)."""
    if not 0 < step <= 1:
        raise ValueError(f"step must lie in (0, 1], got {step}")
    return np.round(np.arange(0.0, 1.0 + step / 2, step), 12)


@dataclass(frozen=True)
class Agreement:
    rmse: float
    tau_b: float  # NaN when either side is constant
    gamma: float  # Goodman-Kruskal gamma, the paper's "gamma variant" of tau (ties ignored)


def agreement(predicted, official) -> Agreement:
    """RMSE, Kendall tau-b and gamma of predicted against official scores (qascore.stats)."""
    from qascore.stats import goodman_kruskal_gamma, kendalltau, rmse

    predicted = np.asarray(predicted, dtype=np.float64)
    official = np.asarray(official, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant predictions: NaN correlation, handled by callers
        return Agreement(float(rmse(predicted, official)), float(kendalltau(predicted, official).statistic),
                         float(goodman_kruskal_gamma(predicted, official).statistic))


@dataclass
class ThresholdSelection:
    threshold: float
    criterion: str
    grid: np.ndarray
    kendall: np.ndarray  # per grid threshold: the gamma variant (NaN where predictions are constant)
    rmse: np.ndarray
    predicted: dict[str, float]  # run tag -> cross-validated Nuggeteer score at the chosen threshold
    official: dict[str, float]
    signature: str


def select_threshold(key: AnswerKey, judgements: Judgements, *, beta: float, criterion: str = "kendall",
                     grid: Sequence[float] | None = None, group_of: Callable[[str], str] | None = None,
                     runs: Sequence[Run] | None = None, n_jobs: int | None = None, **options) -> ThresholdSelection:
    """Cross-validated threshold choice; ``options`` go to :class:`Nuggeteer`."""
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    grid = threshold_grid() if grid is None else np.asarray(grid, dtype=np.float64)
    runs = list(judgements.runs.values()) if runs is None else list(runs)
    if len(runs) < 2:
        raise ValueError("cross-validation across runs needs at least two judged runs")
    group_of = group_of or (lambda tag: tag)
    official = {tag: s.mean for tag, s in score_judged_runs(key, judgements, beta=beta).items()}
    missing = [r.tag for r in runs if r.tag not in official]
    if missing:
        raise ValueError(f"runs {missing} have no judgements")
    scores = np.zeros((len(grid), len(runs)))
    models = {}
    for i, run in enumerate(runs):
        held_out = {t for t in judgements.runs if group_of(t) == group_of(run.tag)}
        model = models[i] = Nuggeteer(key, judgements=judgements, exclude_runs=held_out, **options)
        table = model.recall_table([run], n_jobs=n_jobs)
        for g, t in enumerate(grid):
            scores[g, i] = score_assignment(key, model.assign_from_table(table, [run], float(t))[0], beta).mean
    target = np.array([official[r.tag] for r in runs])
    stats = [agreement(row, target) for row in scores]
    rmse = np.array([a.rmse for a in stats])
    kendall = np.array([a.gamma for a in stats])
    if criterion == "kendall" and np.isnan(kendall).all():
        raise ValueError("Kendall's tau is undefined at every threshold (constant scores); use criterion='rmse'")
    best = int(np.nanargmax(kendall)) if criterion == "kendall" else int(np.argmin(rmse))
    signature = f"{models[0].assignment_signature(float(grid[best]))}|select:{criterion}|cv:leave-group-out|beta:{beta}"
    return ThresholdSelection(float(grid[best]), criterion, grid, kendall, rmse,
                              {r.tag: float(scores[best, i]) for i, r in enumerate(runs)}, official, signature)
