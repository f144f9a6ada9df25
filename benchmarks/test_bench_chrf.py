"""chrF and chrF++ speed, side by side with sacrebleu in one run (ratios, not absolute times).

Run: PYTHONPATH=src python -m pytest benchmarks/test_bench_chrf.py --benchmark-only \
         --benchmark-columns=mean,stddev,rounds --benchmark-group-by=group
Groups: corpus chrF and chrF++ on the 9,754 MS MARCO pairs (qascore on all cores and on one
thread, sacrebleu); sentence chrF for the same pairs (qascore batch vs a loop of one sacrebleu
metric's sentence_score). Every qascore result is checked equal to sacrebleu's once.
"""
import sys
from pathlib import Path

import pytest

from qascore.lexical.chrf import CHRF

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import SHARED_DATA  # noqa: E402
from mrc_reference import msmarco_pairs  # noqa: E402

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402

VARIANTS = {"chrf": 0, "chrf++": 2}


@pytest.fixture(scope="module")
def pairs():
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    hyps, refs = msmarco_pairs(SHARED_DATA)
    width = max(len(r) for r in refs)
    streams = [[r[j] if j < len(r) else None for r in refs] for j in range(width)]
    return hyps, refs, streams


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n_jobs", [None, 1], ids=["all-cores", "one-thread"])
def test_corpus_qascore(benchmark, pairs, variant, n_jobs):
    benchmark.group = f"corpus-{variant}-msmarco"
    hyps, refs, streams = pairs
    metric = CHRF(word_order=VARIANTS[variant], n_jobs=n_jobs)
    result = benchmark(metric.corpus_score, hyps, refs)
    assert result["score"] == SacreCHRF(word_order=VARIANTS[variant]).corpus_score(hyps, streams).score


@pytest.mark.parametrize("variant", VARIANTS)
def test_corpus_sacrebleu(benchmark, pairs, variant):
    benchmark.group = f"corpus-{variant}-msmarco"
    hyps, _, streams = pairs
    benchmark.pedantic(lambda: SacreCHRF(word_order=VARIANTS[variant]).corpus_score(hyps, streams),
                       rounds=3, iterations=1)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n_jobs", [None, 1], ids=["all-cores", "one-thread"])
def test_sentence_qascore(benchmark, pairs, variant, n_jobs):
    benchmark.group = f"sentence-{variant}-msmarco"
    hyps, refs, _ = pairs
    metric = CHRF(word_order=VARIANTS[variant], n_jobs=n_jobs)
    scores = benchmark(metric.sentence_scores, hyps, refs)
    peer = SacreCHRF(word_order=VARIANTS[variant])
    assert scores[:200].tolist() == [peer.sentence_score(h, r).score for h, r in zip(hyps[:200], refs[:200])]


@pytest.mark.parametrize("variant", VARIANTS)
def test_sentence_sacrebleu_loop(benchmark, pairs, variant):
    benchmark.group = f"sentence-{variant}-msmarco"
    hyps, refs, _ = pairs
    peer = SacreCHRF(word_order=VARIANTS[variant])  # one metric for the loop: no per-call construction

    def loop():
        return [peer.sentence_score(h, r).score for h, r in zip(hyps, refs)]

    benchmark.pedantic(loop, rounds=2, iterations=1)
