"""sacrebleu 2.6's paired significance tests: ``PairedTest`` with paired bootstrap resampling
(``bs``, as Moses' bootstrap-hypothesis-difference-significance.pl) or paired approximate
randomization (``ar``, as multeval), with the same random draws (numpy ``default_rng`` seeded from
``SACREBLEU_SEED``, default 12345) and so the same p-values and intervals.

The resampled statistics are scored in one vectorised call per system and metric (sacrebleu calls
its scorer once per resample); ``n_jobs > 1`` runs systems on threads (the kernels release the GIL)
rather than forked processes.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ...validate import resolve_n_jobs
from .metrics.base import Metric, Signature, bootstrap_resample, logger


class Result:
    """One system's result under a test: ``score``, and where computed ``p_value`` (against the
    baseline), ``mean`` and ``ci`` (the 95% bootstrap interval's half width)."""

    def __init__(self, score: float, p_value: float | None = None, mean: float | None = None,
                 ci: float | None = None):
        self.score = score
        self.p_value = p_value
        self.mean = mean
        self.ci = ci

    def __repr__(self) -> str:
        return ",".join(f"{k}={v}" for k, v in vars(self).items())


def estimate_ci(scores: np.ndarray) -> tuple[float, float]:
    """(mean, half the width of the central 95%) of bootstrap scores."""
    scores = np.sort(scores)
    lower = len(scores) // 40
    return scores.mean(), 0.5 * (scores[len(scores) - lower - 1] - scores[lower])


# The draws, sums and p-values of the two tests, with sacrebleu's semantics. They are the one
# implementation of these tests: PairedTest below and ``qascore compare`` (per-example scores, or
# these metrics' statistics) both call them.

def bootstrap_indices(rng: np.random.Generator, n: int, n_resamples: int) -> np.ndarray:
    """sacrebleu's bootstrap draws: ``n_resamples`` rows of ``n`` segment indices, with replacement."""
    return rng.choice(n, size=(n_resamples, n), replace=True)


def randomization_swaps(rng: np.random.Generator, n: int, n_trials: int) -> np.ndarray:
    """sacrebleu's approximate-randomization draws: per trial and segment, whether the system's and
    the baseline's statistics trade places (probability 1/2)."""
    return rng.integers(2, size=(n_trials, n), dtype=bool)


_SUM_CHUNK_BYTES = 1 << 25  # the gathered rows of one chunk of resamples


def resampled_sums(stats: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """[resamples, k]: the rows of ``stats`` [segments, k] summed over each row of ``indices``, in
    the statistics' dtype and, like sacrebleu's ``stats[row].sum(0)``, one segment after another."""
    stats = np.asarray(stats)
    out = np.empty((indices.shape[0], stats.shape[1]), dtype=stats.dtype)
    step = max(1, _SUM_CHUNK_BYTES // max(1, indices.shape[1] * stats.shape[1] * stats.itemsize))
    for lo in range(0, indices.shape[0], step):
        out[lo:lo + step] = stats[indices[lo:lo + step]].sum(axis=1)
    return out


def swapped_sums(swaps: np.ndarray, baseline_stats: np.ndarray, stats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The summed statistics of the two pseudo-systems of each trial, sacrebleu's ``swaps @ baseline
    + keep @ system`` and ``keep @ baseline + swaps @ system`` (``keep = ~swaps``; columns
    broadcast), a block of trials at a time: numpy casts a block's mask, not all trials', to the
    statistics' dtype."""
    baseline_stats, stats = np.asarray(baseline_stats), np.asarray(stats)
    step = max(1, _SUM_CHUNK_BYTES // max(1, swaps.shape[1] * 8))
    blocks_a, blocks_b = [], []
    for lo in range(0, swaps.shape[0], step):
        block = swaps[lo:lo + step]
        keep = ~block
        blocks_a.append(block @ baseline_stats + keep @ stats)
        blocks_b.append(keep @ baseline_stats + block @ stats)
    return np.concatenate(blocks_a), np.concatenate(blocks_b)


def _p_value(samples: np.ndarray, observed: float) -> float:
    """(number of samples above the observed difference + 1) / (samples + 1), as multeval: a
    difference equal to the observed one does not count."""
    return (np.sum(samples > observed).item() + 1) / (len(samples) + 1)


def bootstrap_p_value(system_scores: np.ndarray, baseline_scores: np.ndarray, observed: float) -> float:
    """Paired bootstrap p-value (Moses' bootstrap-hypothesis-difference-significance.pl): the
    resampled absolute differences, centred on their mean, that exceed the observed one."""
    differences = np.abs(system_scores - baseline_scores)
    return _p_value(differences - differences.mean(), observed)


def randomization_p_value(scores_a: np.ndarray, scores_b: np.ndarray, observed: float) -> float:
    """Paired approximate randomization p-value (two-sided): the trials whose pseudo-systems
    differ by more than the observed difference."""
    return _p_value(np.abs(scores_a - scores_b), observed)


def resampled_scores(metric: Metric, stats: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Scores of the float32 statistics summed over each row of ``indices`` (sacrebleu's bootstrap)."""
    return metric._scores_from_stats(resampled_sums(np.asarray(stats, dtype=np.float32), indices))


def _system_against_baseline(metric: Metric, baseline_entry: tuple, hypotheses, references):
    """(baseline statistics, the system's statistics, its score, |baseline score - its score|)."""
    baseline_stats, baseline_result = baseline_entry
    stats = metric._extract_corpus_statistics(hypotheses, references)
    score = metric._aggregate_and_compute(stats).score
    return baseline_stats, stats, score, abs(baseline_result.score - score)


def paired_approximate_randomization(baseline: dict, name: str, hypotheses, references, metrics: dict,
                                     n_samples: int = 10000, n_ar_confidence: int = -1,
                                     seed: int | None = None) -> tuple[str, dict[str, Result]]:
    """Two-sided paired approximate randomization of one system against the baseline: each
    segment's statistics are swapped between the two with probability 1/2, ``n_samples`` times."""
    rng = np.random.default_rng(seed)
    swaps = randomization_swaps(rng, len(hypotheses), n_samples)
    if n_ar_confidence > 0:
        indices = bootstrap_indices(rng, len(hypotheses), n_ar_confidence)
    results = {}
    for metric_name, metric in metrics.items():
        baseline_stats, stats, score, observed = _system_against_baseline(metric, baseline[metric_name], hypotheses,
                                                                          references)
        sums_a, sums_b = swapped_sums(swaps, baseline_stats, stats)
        result = Result(score, randomization_p_value(metric._scores_from_stats(sums_a),
                                                     metric._scores_from_stats(sums_b), observed))
        if n_ar_confidence > 0:
            result.mean, result.ci = estimate_ci(resampled_scores(metric, stats, indices))
        results[metric_name] = result
    return name, results


def paired_bootstrap(baseline: dict, name: str, hypotheses, references, metrics: dict, n_samples: int = 1000,
                     n_ar_confidence: int = -1, seed: int | None = None) -> tuple[str, dict[str, Result]]:
    """Paired bootstrap resampling of one system against the baseline (``n_ar_confidence`` is
    accepted for the same call shape and unused)."""
    indices = bootstrap_indices(np.random.default_rng(seed), len(hypotheses), n_samples)
    results = {}
    for metric_name, metric in metrics.items():
        baseline_stats, stats, score, observed = _system_against_baseline(metric, baseline[metric_name], hypotheses,
                                                                          references)
        scores_baseline = resampled_scores(metric, baseline_stats, indices)
        scores_system = resampled_scores(metric, stats, indices)
        mean, ci = estimate_ci(scores_system)
        results[metric_name] = Result(score, bootstrap_p_value(scores_system, scores_baseline, observed), mean, ci)
    return name, results


class PairedTest:
    """``PairedTest(named_systems, metrics, references, test_type='ar', n_samples=0,
    n_ar_confidence=-1, n_jobs=1)``; calling it returns (signatures, scores) as sacrebleu's: scores
    maps ``System`` to the names and each metric's name to one :class:`Result` per system, the
    baseline (the first system) first."""

    _DEFAULT_SAMPLES = {"ar": 10000, "bs": 1000}

    def __init__(self, named_systems: list[tuple[str, Sequence[str]]], metrics: Mapping[str, Metric], references,
                 test_type: str = "ar", n_samples: int = 0, n_ar_confidence: int = -1, n_jobs: int = 1):
        if test_type not in self._DEFAULT_SAMPLES:
            raise ValueError(f"Unknown test type {test_type!r}; known: ar, bs")
        if len(named_systems) < 1:
            raise ValueError("named_systems needs the baseline system first")
        self.test_type = test_type
        self._fn = paired_approximate_randomization if test_type == "ar" else paired_bootstrap
        seed = os.environ.get("SACREBLEU_SEED", "12345")
        self._seed = None if seed.lower() == "none" else int(seed)
        self.references = references
        self.named_systems = named_systems
        self.n_ar_confidence = n_ar_confidence if n_ar_confidence != 0 else self._DEFAULT_SAMPLES["bs"]
        self.n_samples = n_samples if n_samples > 0 else self._DEFAULT_SAMPLES[test_type]
        self.n_systems = len(named_systems) - 1
        self.n_jobs = max(1, min(resolve_n_jobs(None), self.n_systems)) if n_jobs == 0 else n_jobs
        self._signatures: dict[str, Signature] = {}
        self._baseline_info: dict[str, tuple[Any, Result]] = {}
        self.metrics: dict[str, Metric] = {}
        baseline_name, baseline_hyps = named_systems[0]
        for metric in metrics.values():
            logger.info(f"Pre-computing statistics for {baseline_name!r}")
            stats = metric._extract_corpus_statistics(baseline_hyps, references)
            score = metric._aggregate_and_compute(stats)
            confidence_n = self.n_samples if test_type == "bs" else self.n_ar_confidence
            mean = ci = None
            if confidence_n > 0:
                _, samples = bootstrap_resample(stats, metric, confidence_n)
                mean, ci = estimate_ci(np.array([s.score for s in samples]))
            self._baseline_info[score.name] = (stats, Result(score.score, mean=mean, ci=ci))
            self.metrics[score.name] = metric
            signature = metric.get_signature()
            signature.update("seed", str(self._seed).lower())
            signature.update(test_type, self.n_samples)
            if self.n_ar_confidence > 0:
                signature.update("bs", self.n_ar_confidence)
            self._signatures[score.name] = signature

    def __call__(self) -> tuple[dict[str, Signature], dict[str, list]]:
        scores: dict[str, list] = {"System": [name for name, _ in self.named_systems]}
        for metric_name, (_, result) in self._baseline_info.items():
            scores[metric_name] = [result]
        seed = self._seed if self._seed else None
        tasks = [(self._baseline_info, name, hyps, self.references, self.metrics, self.n_samples,
                  self.n_ar_confidence, seed) for name, hyps in self.named_systems[1:]]
        if self.n_jobs == 1:
            results = [self._fn(*task) for task in tasks]
        else:
            with ThreadPoolExecutor(self.n_jobs) as pool:
                results = list(pool.map(lambda task: self._fn(*task), tasks))
        for _, system_results in results:
            for metric_name, result in system_results.items():
                scores[metric_name].append(result)
        return self._signatures, scores
