"""Each qascore.stats entry point compiles (or loads from Numba's cache) only the kernels it needs.

A Numba kernel compiles everything it may call, and a parallel one re-optimises all of it: when
one kernel served every statistic, a user's first ``kendalltau`` compiled all of them for 47 s of
CPU. Here a fresh interpreter makes each kind of call in turn and lists the kernels that each one
added (compiled, or loaded from the on-disk cache); a costly kernel outside the call's own set is
the regression this guards against.
"""
import json
import subprocess
import sys

import pytest

_LIST_COMPILED = """
import json, sys, warnings
import numpy as np
from numba.core.registry import CPUDispatcher
from qascore import stats
from qascore.stats import _kernels as K
warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
x = rng.random(40); y = x + rng.random(40)

def compiled():
    names = set()
    def note(obj):
        if isinstance(obj, CPUDispatcher):
            if obj.signatures:
                names.add(obj.py_func.__qualname__)
        elif callable(obj) and hasattr(obj, "parallel"):  # _parallel_njit's pair of compilations
            note(obj.parallel)
            note(obj.serial)
    for value in vars(K).values():
        for obj in (value.values() if isinstance(value, dict) else [value]):
            note(obj)
    return names

added = {}
for case, calls in json.loads(sys.argv[1]).items():
    before = compiled()
    exec(calls)
    added[case] = sorted(compiled() - before)
print(json.dumps(added))
"""

SINGLE_PAIRS = ("stats.kendalltau(x, y); stats.kendalltau(x[:10], y[:10]); stats.goodman_kruskal_gamma(x, y); "
                "stats.spearmanr(x, y); stats.pearsonr(x, y); stats.rmse(x, y); stats.r2_score(x, y)")

# The costly kernels: every parallel one, and the two that sort in Numba.
_PARALLEL_PREFIXES = ("_replicates_", "_rows_statistic_", "rows_kendall_counts", "bootstrap_mean_difference",
                      "resample_means_rows", "sign_flip_means", "poisson_bootstrap_update")
_NUMBA_SORTS = {"kendall_counts", "spearman"}

# call -> (the costly kernels it may compile, the kernel it calls first: compiled or loaded from the
# cache, so it is listed either way; a callee is listed only where the call compiled it). Two cheap
# cases: the common call, and a per-family kernel (its family's branch alone compiled).
CASES = {
    "single pairs": (SINGLE_PAIRS, set(), "kendall_counts_from_orders"),
    "bootstrap mean": ("stats.bootstrap(x, 'mean', n_resamples=50)", {"_replicates_mean"}, "_replicates_mean"),
}


def _costly(names):
    return {n for n in names if n.startswith(_PARALLEL_PREFIXES) or n in _NUMBA_SORTS}


@pytest.fixture(scope="module")
def added():
    """Case -> the kernels its calls added, the cases run in CASES' order in one fresh interpreter."""
    calls = json.dumps({case: spec[0] for case, spec in CASES.items()})
    out = subprocess.run([sys.executable, "-c", _LIST_COMPILED, calls], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return {case: set(names) for case, names in json.loads(out.stdout.strip().splitlines()[-1]).items()}


@pytest.mark.parametrize("case", list(CASES))
def test_a_call_compiles_only_its_own_costly_kernels(case, added):
    _, allowed, entry = CASES[case]
    assert entry in added[case], "the listing does not see the kernel the call runs"
    assert _costly(added[case]) <= allowed
