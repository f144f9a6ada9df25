"""Concurrent calls from many Python threads give bit-identical results to one thread.

The compiled kernels release the GIL, so threads of a server really run them at once; every
public scoring function below is called by 8 threads x 4 rounds on one shared batch and compared,
array for array, with the single-threaded result.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

from fuzz_targets import random_pairs
from qascore import stats
from qascore.ava import default_linear_model
from qascore.lexical import BLEU, rouge
from qascore.lexical.chrf import CHRF
from qascore.lexical.ter import TER

PREDS, REFS = random_pairs(7, 300)
LINEAR = default_linear_model()
X = np.random.default_rng(3).random(500)

CALLS = {
    "rouge": lambda: np.concatenate([np.stack([s.precision, s.recall, s.fmeasure]).ravel()
                                     for s in rouge(PREDS, REFS, ("rouge1", "rouge2", "rougeL", "rougeLsum"),
                                                    use_stemmer=True, n_jobs=2).scores.values()]),
    "bleu": lambda: BLEU(effective_order=True, n_jobs=2).sentence_scores(PREDS, [[r] for r in REFS]),
    "chrf++": lambda: CHRF(word_order=2, n_jobs=2).sentence_scores(PREDS, [[r] for r in REFS]),
    "ter": lambda: TER(n_jobs=2).sentence_scores(PREDS[:60], [[r] for r in REFS[:60]]),
    "linear ava": lambda: LINEAR.predict_proba(REFS, [[r, p] for r, p in zip(REFS, PREDS)], PREDS, n_jobs=2),
    "kendalltau": lambda: np.array(tuple(stats.kendalltau(X, X[::-1] + X))),
    "bootstrap": lambda: stats.bootstrap(X, n_resamples=500, seed=1, n_jobs=2).distribution,
}


@pytest.mark.parametrize("name", list(CALLS))
def test_threads_get_bit_identical_results(name):
    call = CALLS[name]
    expected = np.asarray(call())
    results: list = []
    errors: list = []

    def work():
        try:
            for _ in range(4):
                results.append(np.asarray(call()))
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(results) == 32
    for got in results:
        assert got.dtype == expected.dtype and np.array_equal(got, expected, equal_nan=True)
