"""BLEU and MRC speed, side by side with the peers in one run (ratios, not absolute times).

Run: PYTHONPATH=src python -m pytest benchmarks/test_bench_bleu.py --benchmark-only \
         --benchmark-columns=mean,stddev,rounds --benchmark-group-by=group
Groups: corpus BLEU 13a on the 9,754 MS MARCO pairs (qascore, sacrebleu, bleuscore); sentence
BLEU for the same pairs (qascore batch vs a sacrebleu.sentence_bleu loop); the adapted DuReader
metrics on the DuReader 2.0 demo (qascore vs the 2018 script's algorithm in plain Python).
"""
import sys
from pathlib import Path

import pytest

from qascore.lexical.bleu import BLEU
from qascore.lexical.formats import read_dureader_predictions, read_dureader_references
from qascore.lexical.mrc import score_dureader

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import SHARED_DATA  # noqa: E402
from mrc_reference import msmarco_pairs, official_numpy_lcs, oracle_official  # noqa: E402

sacrebleu = pytest.importorskip("sacrebleu")


@pytest.fixture(scope="module")
def shared_data():
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="module")
def pairs(shared_data):
    hyps, refs = msmarco_pairs(shared_data)
    width = max(len(r) for r in refs)
    streams = [[r[j] if j < len(r) else None for r in refs] for j in range(width)]
    return hyps, refs, streams


@pytest.mark.benchmark(group="corpus-bleu-13a-msmarco")
def test_corpus_bleu_qascore(benchmark, pairs):
    hyps, refs, _ = pairs
    metric = BLEU()
    result = benchmark(metric.corpus_score, hyps, refs)
    assert result["score"] == pytest.approx(sacrebleu.corpus_bleu(hyps, pairs[2]).score, abs=1e-12)


@pytest.mark.benchmark(group="corpus-bleu-13a-msmarco")
def test_corpus_bleu_qascore_compat_class(benchmark, pairs):
    """The drop-in class with sacrebleu's reference streams: within 10% of the native call."""
    from qascore.compat.sacrebleu import BLEU as CompatBLEU

    hyps, _, streams = pairs
    result = benchmark(CompatBLEU().corpus_score, hyps, streams)
    assert result.score == sacrebleu.corpus_bleu(hyps, streams).score


@pytest.mark.benchmark(group="corpus-bleu-13a-msmarco")
def test_corpus_bleu_sacrebleu(benchmark, pairs):
    hyps, _, streams = pairs
    # A fresh metric per call: sacrebleu's tokeniser cache would otherwise time dictionary hits.
    benchmark.pedantic(lambda: sacrebleu.metrics.BLEU().corpus_score(hyps, streams), rounds=3, iterations=1)


@pytest.mark.benchmark(group="corpus-bleu-13a-msmarco")
def test_corpus_bleu_bleuscore(benchmark, pairs):
    bleuscore = pytest.importorskip("bleuscore")
    hyps, refs, _ = pairs
    benchmark(bleuscore.compute, predictions=hyps, references=refs, max_order=4)


@pytest.mark.benchmark(group="sentence-bleu-msmarco")
def test_sentence_bleu_qascore(benchmark, pairs):
    hyps, refs, _ = pairs
    metric = BLEU(effective_order=True)
    benchmark(metric.sentence_scores, hyps, refs)


@pytest.mark.benchmark(group="sentence-bleu-msmarco")
def test_sentence_bleu_sacrebleu_loop(benchmark, pairs):
    hyps, refs, _ = pairs

    def loop():
        return [sacrebleu.sentence_bleu(h, r).score for h, r in zip(hyps, refs)]

    benchmark.pedantic(loop, rounds=2, iterations=1)


@pytest.fixture(scope="module")
def dureader2(shared_data):
    d = shared_data / "mrc/dureader2_demo"
    return (read_dureader_predictions(d / "pred_fake_answers.jsonl"),
            read_dureader_references(d / "ref_from_demo_dev.jsonl"))


@pytest.mark.benchmark(group="adapted-metrics-dureader2-demo")
def test_adapted_metrics_qascore(benchmark, dureader2):
    preds, refs = dureader2
    benchmark(score_dureader, preds, refs, alpha=1.0, beta=1.0)


@pytest.mark.benchmark(group="adapted-metrics-dureader2-demo")
def test_adapted_metrics_plain_python_script_algorithm(benchmark, dureader2):
    preds, refs = dureader2
    benchmark.pedantic(oracle_official, args=(preds, refs, 1.0, 1.0, 1.2, "mrc2018"), rounds=2, iterations=1)


@pytest.mark.benchmark(group="adapted-metrics-dureader2-demo")
def test_adapted_metrics_official_script_numpy_dp(benchmark, dureader2):
    preds, refs = dureader2
    benchmark.pedantic(oracle_official, args=(preds, refs, 1.0, 1.0, 1.2, "mrc2018", official_numpy_lcs),
                       rounds=1, iterations=1)
