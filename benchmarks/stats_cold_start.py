"""Cold start of each qascore.stats entry point: the first call in a fresh process with an empty
Numba cache (what a user waits for after installing), the first call with the cache filled by
that run (every later process), and the warm time per call, beside scipy's where it has the call.

Each case runs in two fresh interpreters sharing one new ``NUMBA_CACHE_DIR``: the first compiles,
the second loads the cache. Times are wall seconds of the call alone (the import is reported
apart) and, for the cold call, the CPU seconds of the process during it (compilation runs on one
thread, so CPU time is the figure that the machine's load disturbs least). Warm: minimum over
``--repeat`` calls after the first.

    python benchmarks/stats_cold_start.py                 # every case, a markdown table
    python benchmarks/stats_cold_start.py kendalltau spearmanr --repeat 200
    python benchmarks/stats_cold_start.py --list

Run it on the qascore under test (installed, or ``PYTHONPATH=src``) on a quiet machine: each
cold case compiles for seconds to tens of seconds on one core.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

_DATA = """
import numpy as np
rng = np.random.default_rng(0)
x = rng.random(50); y = x + rng.random(50)
X = rng.random((8, 50)); Y = X + rng.random((8, 50))
big_x = rng.standard_normal(5000); big_y = big_x + rng.standard_normal(5000)
boards = [rng.random((6, 40)) + np.arange(6)[:, None] * 0.1 for _ in range(2)]
names = ["s%d" % i for i in range(6)]
"""

# name: (setup, our call, scipy's call or None)
CASES = {
    "kendalltau": ("", "stats.kendalltau(x, y)", "st.kendalltau(x, y)"),
    "kendalltau n=20 (exact p-value)": ("", "stats.kendalltau(x[:20], y[:20])", "st.kendalltau(x[:20], y[:20])"),
    "kendalltau n=5000": ("", "stats.kendalltau(big_x, big_y)", "st.kendalltau(big_x, big_y)"),
    "kendalltau_rows 8x50": ("", "stats.kendalltau_rows(X, Y)", None),
    "goodman_kruskal_gamma": ("", "stats.goodman_kruskal_gamma(x, y)", None),
    "spearmanr": ("", "stats.spearmanr(x, y)", "st.spearmanr(x, y)"),
    "spearmanr_rows 8x50": ("", "stats.spearmanr_rows(X, Y)", None),
    "pearsonr": ("", "stats.pearsonr(x, y)", "st.pearsonr(x, y)"),
    "pearsonr_rows 8x50": ("", "stats.pearsonr_rows(X, Y)", None),
    "rmse": ("", "stats.rmse(x, y)", None),
    "r2_score": ("", "stats.r2_score(x, y)", None),
    "micro_average": ("", "stats.micro_average(x)", None),
    "bootstrap mean": ("", "stats.bootstrap(x, 'mean', n_resamples=999)", None),
    "bootstrap mean rng=scipy": ("", "stats.bootstrap(x, 'mean', n_resamples=999, rng='scipy')", None),
    "bootstrap kendall_tau_b": ("", "stats.bootstrap((x, y), 'kendall_tau_b', n_resamples=999)", None),
    "bootstrap pearson": ("", "stats.bootstrap((x, y), 'pearson', n_resamples=999)", None),
    "paired_bootstrap_means": ("", "stats.paired_bootstrap_means(x, y, n_resamples=999)", None),
    "paired_bootstrap_correlation": ("", "stats.paired_bootstrap_correlation(x, y, x + y, n_resamples=999)",
                                     None),
    "StreamingBootstrap": ("", "stats.StreamingBootstrap(n_resamples=200).update(x).compute()", None),
    "BootstrapAggregator": ("", "stats.rouge_bootstrap_percentiles(X.T, n_samples=200)", None),
    "leaderboard_correlation": (
        "a = stats.Leaderboard(boards[0], systems=names); b = stats.Leaderboard(boards[1], systems=names)",
        "stats.leaderboard_correlation(a, b)", None),
    "bootstrap_leaderboard_correlation": (
        "a = stats.Leaderboard(boards[0], systems=names); b = stats.Leaderboard(boards[1], systems=names)",
        "stats.bootstrap_leaderboard_correlation(a, b, n_resamples=200)", None),
    "compare": (
        "a = stats.Leaderboard(boards[0], systems=names)",
        "stats.compare(a, n_resamples=200)", None),
}

_CHILD = """
import json, resource, sys, time, warnings
repeat = int(sys.argv[1])
warnings.simplefilter("ignore")
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
t0 = time.perf_counter()
from qascore import stats
import scipy.stats as st
t1 = time.perf_counter()
{data}
{setup}
c0, t2 = cpu(), time.perf_counter()
{call}
t3, c1 = time.perf_counter(), cpu()
def best(f):
    times = []
    for _ in range(repeat):
        s = time.perf_counter(); f(); times.append(time.perf_counter() - s)
    return min(times)
warm = best(lambda: {call}) if repeat else None
peer = best(lambda: {peer}) if repeat and {has_peer} else None
print(json.dumps(dict(import_s=t1 - t0, first_s=t3 - t2, first_cpu_s=c1 - c0, warm_s=warm, peer_s=peer)))
"""


def run_case(name: str, repeat: int) -> dict:
    setup, call, peer = CASES[name]
    code = _CHILD.format(data=_DATA, setup=setup, call=call, peer=peer or "None", has_peer=peer is not None)
    with tempfile.TemporaryDirectory(prefix="qascore-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)

        def child(rep):
            out = subprocess.run([sys.executable, "-c", code, str(rep)], env=env, capture_output=True, text=True)
            if out.returncode:
                raise SystemExit(f"{name}: the child failed:\n{out.stderr}")
            return json.loads(out.stdout.strip().splitlines()[-1])

        cold = child(0)
        cached = child(repeat)
    return {"case": name, "import_s": cold["import_s"], "cold_s": cold["first_s"], "cold_cpu_s": cold["first_cpu_s"],
            "cached_s": cached["first_s"], "warm_s": cached["warm_s"], "peer_s": cached["peer_s"]}


def _ms(seconds):
    return "" if seconds is None else f"{seconds * 1e3:.3g} ms"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="case names (default: all; see --list)")
    parser.add_argument("--repeat", type=int, default=50, help="warm calls timed per case (minimum reported)")
    parser.add_argument("--list", action="store_true", help="print the case names and exit")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(CASES))
        return 0
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}; --list shows them")
    rows = []
    print("| entry point | cold first call (wall) | its CPU time | first call, cache filled | warm per call "
          "| scipy per call |")
    print("|---|---|---|---|---|---|")
    for name in args.cases or CASES:
        r = run_case(name, args.repeat)
        rows.append(r)
        print(f"| {name} | {r['cold_s']:.2f} s | {r['cold_cpu_s']:.2f} s | {_ms(r['cached_s'])} | {_ms(r['warm_s'])} "
              f"| {_ms(r['peer_s'])} |", flush=True)
    print(f"\nimport qascore.stats + scipy.stats: {min(r['import_s'] for r in rows):.2f} s (min over cases)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
