"""``qascore compare``'s paired tests against sacrebleu's own ``PairedTest`` for the same work.

Run: PYTHONPATH=src python benchmarks/test_bench_compare.py        (a table, no pytest)
 or: PYTHONPATH=src python -m pytest benchmarks/test_bench_compare.py -s

Work (issue 37): 5 systems (a baseline and 4 tested against it) x 3 metrics x 2,000 examples x
1,000 paired bootstrap resamples.

* means: per-example scores (seeded random numbers); sacrebleu's PairedTest is given a metric whose
  statistics are the per-example scores and whose score is their mean (its float32 sums), ours is
  ``qascore.cli.compare.test_means`` on the same numbers;
* corpus: BLEU, chrF and TER of the first 2,000 segments of five WMT17 en-de systems of sacrebleu's
  test data (looked up or fetched as benchmarks/test_bench_sentence_calls.py does), statistics
  extracted and corpus scores recomputed per resample on both sides: sacrebleu's PairedTest
  against ``qascore.cli.compare.test_corpus``; every score and p-value checked equal.

Each side runs ``ROUNDS`` times interleaved, in-process and after a warm-up (imports and the first
call excluded); the median wall time of each and the ratio (sacrebleu / qascore) are printed.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sacrebleu")

ROOT = Path(__file__).resolve().parent
ROUNDS = int(os.environ.get("QASCORE_COMPARE_ROUNDS", "3"))
SYSTEMS, METRICS, EXAMPLES, RESAMPLES = 5, 3, 2000, 1000


class MeanMetric:
    """A sacrebleu metric (the methods PairedTest calls) whose statistics are the per-example
    scores of metric ``k``: a hypothesis is a tuple of an example's scores."""

    def __init__(self, k: int, n: int) -> None:
        from sacrebleu.metrics.base import Score

        self.k, self.n, self._score = k, n, Score
        self.num_refs = 1

    def _extract_corpus_statistics(self, hypotheses, references):
        return [[h[self.k]] for h in hypotheses]

    def _compute_score_from_stats(self, stats):
        return self._score(f"m{self.k}", float(stats[0]) / self.n)

    def _aggregate_and_compute(self, stats):
        return self._compute_score_from_stats(np.sum(stats, axis=0))

    def get_signature(self):
        from sacrebleu.metrics.base import Signature

        return Signature({"num_refs": 1})


def _median_times(peer, ours) -> tuple[float, float]:
    peer(), ours()  # warm-up
    times_peer, times_ours = [], []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        peer()
        times_peer.append(time.perf_counter() - start)
        start = time.perf_counter()
        ours()
        times_ours.append(time.perf_counter() - start)
    return statistics.median(times_peer), statistics.median(times_ours)


def bench_means() -> tuple[float, float]:
    from sacrebleu.significance import PairedTest

    from qascore.cli.compare import test_means

    rng = np.random.default_rng(0)
    values = rng.random((METRICS, EXAMPLES, SYSTEMS))
    named = [(f"s{s}", [tuple(values[:, i, s]) for i in range(EXAMPLES)]) for s in range(SYSTEMS)]
    metrics = {f"m{k}": MeanMetric(k, EXAMPLES) for k in range(METRICS)}
    os.environ["SACREBLEU_SEED"] = "12345"
    peer = lambda: PairedTest(named, metrics, None, test_type="bs", n_samples=RESAMPLES)()  # noqa: E731
    ours = lambda: test_means(values, 0, "bs", RESAMPLES, 12345)  # noqa: E731
    return _median_times(peer, ours)


def bench_corpus() -> tuple[float, float]:
    import bz2
    import pickle

    from sacrebleu.metrics import BLEU, CHRF, TER
    from sacrebleu.significance import PairedTest

    from qascore.cli.compare import test_corpus

    spec = importlib.util.spec_from_file_location("bench_sentence_calls", ROOT / "test_bench_sentence_calls.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = module.wmt17_path()
    if path is None:
        pytest.skip("sacrebleu's WMT17 systems are not available")
    with bz2.open(path, "rb") as f:
        systems = dict(pickle.load(f))
    (reference,) = systems.pop("reference")
    names = sorted(systems)[:SYSTEMS]
    hyps = [systems[n][:EXAMPLES] for n in names]
    streams = [reference[:EXAMPLES]]
    os.environ["SACREBLEU_SEED"] = "12345"
    args = argparse.Namespace(metrics=["bleu", "chrf", "ter"], test="bs", resamples=RESAMPLES, seed=12345)
    peer = lambda: PairedTest(list(zip(names, hyps)), {"BLEU": BLEU(), "chrF": CHRF(), "TER": TER()},  # noqa: E731
                              streams, test_type="bs", n_samples=RESAMPLES)()
    ours = lambda: test_corpus(args, names, hyps, streams)  # noqa: E731
    _, theirs = peer()
    metric_names, cells, _ = ours()
    for m, name in enumerate(metric_names):
        assert [c[m].score for c in cells] == [r.score for r in theirs[name]]
        assert [c[m].p_value for c in cells] == [r.p_value for r in theirs[name]]
    return _median_times(peer, ours)


def report(name: str, times: tuple[float, float]) -> str:
    peer, ours = times
    return f"{name:<8} sacrebleu {peer:8.3f} s   qascore {ours:8.3f} s   ratio {peer / ours:6.1f}x"


def test_bench_compare_means():
    print("\n" + report("means", bench_means()))


def test_bench_compare_corpus():
    print("\n" + report("corpus", bench_corpus()))


if __name__ == "__main__":
    print(f"{SYSTEMS} systems x {METRICS} metrics x {EXAMPLES} examples x {RESAMPLES} bootstrap resamples, "
          f"median of {ROUNDS} rounds", file=sys.stderr)
    print(report("means", bench_means()))
    print(report("corpus", bench_corpus()))
