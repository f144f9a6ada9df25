"""research/nuggets/tuning.py: the paper's cross-validated choice of Nuggeteer's threshold."""
import sys
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(_ROOT / "research" / "nuggets"))
sys.path.insert(0, str(_ROOT / "tests"))
from test_nuggeteer import JUDGED_RUNS, judged_task, plain_gamma  # noqa: E402
from tuning import select_threshold  # noqa: E402

from qascore.nuggets.nuggeteer import Nuggeteer  # noqa: E402


@pytest.mark.parametrize("criterion", ["kendall", "rmse"])
def test_threshold_selection_cross_validates_across_runs(criterion):
    import math

    from qascore.nuggets.official import score_judged_runs

    key, judged = judged_task()
    grid = [0.0, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0]
    sel = select_threshold(key, judged, beta=3, criterion=criterion, grid=grid)
    official = {t: s.mean for t, s in score_judged_runs(key, judged, beta=3).items()}
    assert sel.official == official
    # recompute every cell plainly: run i scored by a model that never saw run i's judgements
    tags = list(JUDGED_RUNS)
    table = []
    for t in grid:
        row = [Nuggeteer(key, judgements=judged, exclude_runs={tag}).score([judged.runs[tag]], beta=3, threshold=t)[0].mean
               for tag in tags]
        table.append(row)
    target = [official[t] for t in tags]
    rmse = [math.sqrt(sum((a - b) ** 2 for a, b in zip(row, target)) / len(row)) for row in table]
    gamma = [plain_gamma(row, target) for row in table]
    assert list(sel.rmse) == pytest.approx(rmse, rel=1e-12)
    assert [g for g in sel.kendall if g == g] == pytest.approx([g for g in gamma if g == g], rel=1e-12)
    if criterion == "rmse":
        assert sel.threshold == grid[rmse.index(min(rmse))]
    else:
        best = max(g for g in gamma if g == g)
        assert sel.threshold == grid[[i for i, g in enumerate(gamma) if g == best][0]]
    assert sel.predicted == pytest.approx(dict(zip(tags, table[grid.index(sel.threshold)])))
    assert "select:" + criterion in sel.signature
