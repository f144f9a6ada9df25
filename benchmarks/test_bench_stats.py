"""qascore.stats against the code a user would otherwise run, side by side in one run.

    PYTHONPATH=src python -m pytest benchmarks/test_bench_stats.py --benchmark-group-by=group

Each group holds our call and the peer's on the same data; the ratio of their means is the
number reported in docs/stats.md. No timing assertions: equality of results is asserted instead.
"""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.stats as st

from qascore import stats

SRC = Path(__file__).resolve().parents[1] / "src"


# ---------------------------------------------------------------- Kendall tau-b, n = 100,000

def _pair(kind):
    rng = np.random.default_rng(0)
    if kind == "continuous":
        x = rng.standard_normal(100_000)
        return x, x + rng.standard_normal(100_000)
    x = rng.integers(0, 50, 100_000).astype(float)  # 50 levels: many ties
    return x, x + rng.integers(0, 20, 100_000)


KINDS = ["continuous", "ties"]


@pytest.mark.parametrize("kind", KINDS)
def test_kendall_qascore(benchmark, kind):
    benchmark.group = f"kendall tau-b n=100000 {kind}"
    x, y = _pair(kind)
    stats.kendalltau(x, y)  # compile outside the timing
    res = benchmark(stats.kendalltau, x, y)
    theirs = st.kendalltau(x, y)
    assert res.statistic == pytest.approx(theirs.statistic, abs=1e-12)
    assert res.pvalue == pytest.approx(theirs.pvalue, rel=1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_kendall_scipy(benchmark, kind):
    benchmark.group = f"kendall tau-b n=100000 {kind}"
    benchmark(st.kendalltau, *_pair(kind))


# ---------------------------------------------------------------- 1,000 bootstrap replicates of leaderboard tau-b

@pytest.fixture(scope="module")
def boards():
    rng = np.random.default_rng(2)
    quality = rng.random(16)
    a = quality[:, None] + rng.normal(0, 0.3, (16, 131))
    b = quality[:, None] + rng.normal(0, 0.3, (16, 131))
    names = [f"s{i}" for i in range(16)]
    return stats.Leaderboard(a, systems=names), stats.Leaderboard(b, systems=names)


def scipy_loop_leaderboard_bootstrap(a, b, n_resamples=1000, seed=0):
    rng = np.random.default_rng(seed)
    out = np.empty(n_resamples)
    for r in range(n_resamples):
        idx = rng.integers(0, a.shape[1], a.shape[1])
        out[r] = st.kendalltau(a[:, idx].mean(axis=1), b[:, idx].mean(axis=1)).statistic
    return out


@pytest.mark.benchmark(group="1000 bootstrap tau-b, 16 systems x 131 queries")
def test_leaderboard_bootstrap_qascore(benchmark, boards):
    a, b = boards
    stats.bootstrap_leaderboard_correlation(a, b, n_resamples=10)
    res = benchmark(stats.bootstrap_leaderboard_correlation, a, b, n_resamples=1000)
    assert res.distribution.shape == (1000,)


@pytest.mark.benchmark(group="1000 bootstrap tau-b, 16 systems x 131 queries")
def test_leaderboard_bootstrap_scipy_loop(benchmark, boards):
    a, b = boards
    out = benchmark(scipy_loop_leaderboard_bootstrap, a.scores, b.scores)
    ours = stats.bootstrap_leaderboard_correlation(a, b, n_resamples=1000)
    # different random streams: the two bootstrap distributions agree in distribution
    assert abs(np.mean(out) - np.mean(ours.distribution)) < 0.02


# ---------------------------------------------------------------- paired bootstrap, 1,000 x 10,000 items

@pytest.fixture(scope="module")
def two_systems():
    rng = np.random.default_rng(3)
    x = rng.random(10_000)
    return x, x - 0.002 + rng.normal(0, 0.1, 10_000)


def numpy_loop_paired_bootstrap(x, y, n_resamples=1000, seed=0):
    rng = np.random.default_rng(seed)
    wins = 0
    for _ in range(n_resamples):
        idx = rng.integers(0, len(x), len(x))
        wins += x[idx].mean() > y[idx].mean()
    return wins / n_resamples


@pytest.mark.benchmark(group="paired bootstrap 1000 x 10000 items")
def test_paired_bootstrap_qascore(benchmark, two_systems):
    stats.paired_bootstrap_means(*two_systems, n_resamples=10)
    res = benchmark(stats.paired_bootstrap_means, *two_systems, n_resamples=1000)
    assert 0 <= res.win_rate <= 1


@pytest.mark.benchmark(group="paired bootstrap 1000 x 10000 items")
def test_paired_bootstrap_numpy_loop(benchmark, two_systems):
    win_rate = benchmark(numpy_loop_paired_bootstrap, *two_systems)
    ours = stats.paired_bootstrap_means(*two_systems, n_resamples=1000)
    assert abs(win_rate - ours.win_rate) < 0.1


# ---------------------------------------------------------------- first-call compile time

_FIRST_CALLS = """
import time, numpy as np
t = time.perf_counter()
from qascore import stats
x = np.arange(50.0); y = x[::-1].copy()
stats.kendalltau(x, y); stats.spearmanr(x, y); stats.pearsonr(x, y)
stats.bootstrap(x, "mean", n_resamples=10); stats.paired_bootstrap_means(x, y, n_resamples=10)
a = stats.Leaderboard(np.vstack([x, y, x]), systems=["a", "b", "c"])
stats.bootstrap_leaderboard_correlation(a, a, n_resamples=10)
print(time.perf_counter() - t)
"""


def _first_call_seconds(cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=str(SRC))
    out = subprocess.run([sys.executable, "-c", _FIRST_CALLS], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


@pytest.mark.benchmark(group="first call (import + compile or cache load)")
def test_first_call_compile_and_cached(benchmark):
    with tempfile.TemporaryDirectory() as cache_dir:
        start = time.perf_counter()
        cold = _first_call_seconds(cache_dir)
        benchmark.extra_info["cold_compile_s"] = round(cold, 2)
        benchmark.extra_info["cold_wall_s"] = round(time.perf_counter() - start, 2)
        warm = benchmark.pedantic(_first_call_seconds, args=(cache_dir,), rounds=2, iterations=1)
        benchmark.extra_info["cached_s"] = round(warm, 2)
    print(f"\nfirst calls: cold compile {cold:.1f} s, from cache {warm:.2f} s")
