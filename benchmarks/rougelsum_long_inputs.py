"""Peak memory and time of rougeLsum on the inputs that are quadratic for a union LCS: one long
sentence each side (no line breaks), and many one-token sentences each side.

Run: ``PYTHONPATH=src python benchmarks/rougelsum_long_inputs.py [N ...]`` (default 10k, 50k,
100k, 150k tokens a side). Each case runs in a fresh child process, so its peak RSS
(``ru_maxrss``, which counts the kernels' C allocations) is its own; the table shows the peak and
how much the rougeLsum call added to the peak before it. Tokens are drawn uniformly from 1,000
words (seed 1), one thread. Not a pytest-benchmark module: a peak RSS is a per-process figure.
"""
from __future__ import annotations

import subprocess
import sys

CHILD = """
import resource, sys, time
import numpy as np
from qascore.lexical.rouge import rouge
shape, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(1)
words = np.array([f"w{i}" for i in range(1000)])
sep = " " if shape == "sentence" else "\\n"
pred, ref = sep.join(rng.choice(words, n)), sep.join(rng.choice(words, n))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
f = rouge([pred], [ref], ["rougeLsum"], n_jobs=1)["rougeLsum"].fmeasure[0]
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"{seconds:.3f} {peak / 1024:.0f} {(peak - before) / 1024:.0f} {float(f):.6f}")
"""

CASES = {"sentence": "one N-token sentence each side", "lines": "N one-token sentences each side"}


def main(sizes: list[int]) -> None:
    print("| input | N | time (s) | peak RSS (MB) | added by the call (MB) | F |")
    print("|---|---|---|---|---|---|")
    for shape, label in CASES.items():
        for n in sizes:
            done = subprocess.run([sys.executable, "-c", CHILD, shape, str(n)], capture_output=True, text=True)
            if done.returncode:
                print(f"| {label} | {n:,} | failed: {done.stderr.strip().splitlines()[-1]} | | | |")
                continue
            seconds, peak, added, f = done.stdout.split()
            print(f"| {label} | {n:,} | {seconds} | {peak} | {added} | {f} |")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 50_000, 100_000, 150_000])
