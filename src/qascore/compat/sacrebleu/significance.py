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


def _p_value(samples: np.ndarray, observed: float) -> float:
    """(number of samples above the observed difference + 1) / (samples + 1)."""
    return (np.sum(samples > observed).item() + 1) / (len(samples) + 1)


def _resampled_scores(metric: Metric, stats: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Scores of the float32 statistics summed over each row of ``indices`` (sacrebleu's bootstrap)."""
    stats32 = np.asarray(stats, dtype=np.float32)
    return metric._scores_from_stats(np.stack([stats32[row].sum(0) for row in indices]))


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
    swap = rng.integers(2, size=(n_samples, len(hypotheses)), dtype=bool)
    keep = ~swap
    if n_ar_confidence > 0:
        indices = rng.choice(len(hypotheses), size=(n_ar_confidence, len(hypotheses)), replace=True)
    results = {}
    for metric_name, metric in metrics.items():
        baseline_stats, stats, score, observed = _system_against_baseline(metric, baseline[metric_name], hypotheses,
                                                                          references)
        scores_a = metric._scores_from_stats(swap @ baseline_stats + keep @ stats)
        scores_b = metric._scores_from_stats(keep @ baseline_stats + swap @ stats)
        result = Result(score, _p_value(np.abs(scores_a - scores_b), observed))
        if n_ar_confidence > 0:
            result.mean, result.ci = estimate_ci(_resampled_scores(metric, stats, indices))
        results[metric_name] = result
    return name, results


def paired_bootstrap(baseline: dict, name: str, hypotheses, references, metrics: dict, n_samples: int = 1000,
                     n_ar_confidence: int = -1, seed: int | None = None) -> tuple[str, dict[str, Result]]:
    """Paired bootstrap resampling of one system against the baseline (``n_ar_confidence`` is
    accepted for the same call shape and unused)."""
    rng = np.random.default_rng(seed)
    indices = rng.choice(len(hypotheses), size=(n_samples, len(hypotheses)), replace=True)
    results = {}
    for metric_name, metric in metrics.items():
        baseline_stats, stats, score, observed = _system_against_baseline(metric, baseline[metric_name], hypotheses,
                                                                          references)
        scores_baseline = _resampled_scores(metric, baseline_stats, indices)
        scores_system = _resampled_scores(metric, stats, indices)
        mean, ci = estimate_ci(scores_system)
        differences = np.abs(scores_system - scores_baseline)
        results[metric_name] = Result(score, _p_value(differences - differences.mean(), observed), mean, ci)
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
        self.n_jobs = max(1, min(os.cpu_count() or 1, self.n_systems)) if n_jobs == 0 else n_jobs
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
