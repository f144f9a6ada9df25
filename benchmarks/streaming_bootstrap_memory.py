"""Peak memory and time of StreamingBootstrap over a long stream: N uniform values (seed 0) in
batches, n_resamples=1000, all cores (n_jobs=None).

Run: ``PYTHONPATH=src python benchmarks/streaming_bootstrap_memory.py [N [BATCH]]`` (default 10M
values in batches of 100k). Peak RSS is ``ru_maxrss`` of this process, read before the stream
(imports and compiled kernels, warmed on 10 values), after the updates and after ``compute``; the
difference is what the stream cost. Not a pytest-benchmark module: a peak RSS is a per-process figure.
"""
from __future__ import annotations

import os
import resource
import sys
import time

import numpy as np

from qascore.stats import StreamingBootstrap


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(n_total: int = 10_000_000, batch: int = 100_000, n_resamples: int = 1000) -> None:
    rng = np.random.default_rng(0)
    StreamingBootstrap(n_resamples=n_resamples).update(rng.random(10)).compute()  # compile, import
    before = peak_rss_mb()
    acc = StreamingBootstrap(n_resamples=n_resamples, seed=0)
    t0, c0 = time.perf_counter(), time.process_time()
    for start in range(0, n_total, batch):
        acc.update(rng.random(min(batch, n_total - start)))
    t1, c1 = time.perf_counter(), time.process_time()
    after_updates = peak_rss_mb()
    res = acc.compute()
    t2 = time.perf_counter()
    state = (acc._limbs.nbytes + acc._point.nbytes + acc._weights.nbytes) / 2**20
    print(f"n={n_total:,} in batches of {batch:,}, n_resamples={n_resamples}: updates {t1 - t0:.1f} s wall "
          f"({c1 - c0:.1f} s CPU; {(t1 - t0) / (n_total * n_resamples) * 1e9:.2f} ns wall per example x replicate), "
          f"compute {t2 - t1:.2f} s")
    print(f"peak RSS: {before:.0f} MB before the stream, {after_updates:.0f} MB after the updates, "
          f"{peak_rss_mb():.0f} MB after compute; accumulator state {state:.2f} MB")
    print(f"mean {res.statistic:.6f} [{res.low:.6f}, {res.high:.6f}], se {res.standard_error:.2e}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
