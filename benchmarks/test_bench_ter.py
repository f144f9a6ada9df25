"""TER speed, side by side with sacrebleu 2.6 in one run; the qascore rows report the ratio.

Run: PYTHONPATH=src python -m pytest benchmarks/test_bench_ter.py --benchmark-only \
         --benchmark-columns=mean,stddev,rounds --benchmark-group-by=group -s
Groups, on the first 2,000 MS MARCO pairs (1-4 references each; sacrebleu takes seconds there):
corpus TER with default options; corpus TER normalised (the tokeniser's regexes dominate);
sentence TER for every pair (qascore batch vs a loop of sacrebleu's ``sentence_score``).
Each side gets a cold tokeniser cache per call: the same text is not tokenised twice.
"""
import sys
from pathlib import Path

import pytest

from qascore.compat.sacrebleu.metrics import TER as CompatTER
from qascore.lexical.ter import TER
from qascore.text import tercom

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import SHARED_DATA  # noqa: E402
from mrc_reference import msmarco_pairs  # noqa: E402

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import TER as SacreTER  # noqa: E402

N_PAIRS = 2000
_SACREBLEU_MEAN: dict[str, float] = {}  # group -> sacrebleu's mean seconds, for the ratio


@pytest.fixture(scope="module")
def pairs():
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    hyps, refs = msmarco_pairs(SHARED_DATA)
    hyps, refs = hyps[:N_PAIRS], refs[:N_PAIRS]
    width = max(len(r) for r in refs)
    streams = [[r[j] if j < len(r) else None for r in refs] for j in range(width)]
    return hyps, refs, streams


def _run_sacrebleu(benchmark, group, fn):
    benchmark.pedantic(fn, rounds=2, iterations=1)
    _SACREBLEU_MEAN[group] = benchmark.stats.stats.mean


def _run_qascore(benchmark, group, fn):
    result = benchmark(fn)
    theirs = _SACREBLEU_MEAN.get(group)
    if theirs is not None:
        ratio = theirs / benchmark.stats.stats.mean
        benchmark.extra_info["speedup_vs_sacrebleu"] = round(ratio, 1)
        print(f"\n{group}: qascore is {ratio:.1f}x sacrebleu")
    return result


# sacrebleu runs first in each group, so that the qascore row can report the ratio.
@pytest.mark.benchmark(group="corpus-ter-msmarco")
def test_corpus_ter_sacrebleu(benchmark, pairs):
    hyps, _, streams = pairs
    _run_sacrebleu(benchmark, "corpus-ter-msmarco", lambda: SacreTER().corpus_score(hyps, streams))


@pytest.mark.benchmark(group="corpus-ter-msmarco")
def test_corpus_ter_qascore(benchmark, pairs):
    hyps, refs, streams = pairs
    result = _run_qascore(benchmark, "corpus-ter-msmarco", lambda: TER().corpus_score(hyps, refs))
    assert result["score"] == SacreTER().corpus_score(hyps, streams).score


@pytest.mark.benchmark(group="corpus-ter-msmarco")
def test_corpus_ter_qascore_compat_class(benchmark, pairs):
    """The same corpus through ``qascore.compat.sacrebleu``'s class (reference streams)."""
    hyps, _, streams = pairs
    result = _run_qascore(benchmark, "corpus-ter-msmarco", lambda: CompatTER().corpus_score(hyps, streams))
    assert result.score == SacreTER().corpus_score(hyps, streams).score


@pytest.mark.benchmark(group="corpus-ter-normalized-msmarco")
def test_corpus_ter_normalized_sacrebleu(benchmark, pairs):
    hyps, _, streams = pairs
    _run_sacrebleu(benchmark, "corpus-ter-normalized-msmarco",
                   lambda: SacreTER(normalized=True).corpus_score(hyps, streams))


@pytest.mark.benchmark(group="corpus-ter-normalized-msmarco")
def test_corpus_ter_normalized_qascore(benchmark, pairs):
    hyps, refs, _ = pairs

    def run():
        tercom._tokenize.cache_clear()  # sacrebleu's cache is per metric object, so cold on each call
        return TER(normalized=True).corpus_score(hyps, refs)

    _run_qascore(benchmark, "corpus-ter-normalized-msmarco", run)


@pytest.mark.benchmark(group="sentence-ter-msmarco")
def test_sentence_ter_sacrebleu_loop(benchmark, pairs):
    hyps, refs, _ = pairs

    def loop():
        metric = SacreTER()
        return [metric.sentence_score(h, r).score for h, r in zip(hyps, refs)]

    _run_sacrebleu(benchmark, "sentence-ter-msmarco", loop)


@pytest.mark.benchmark(group="sentence-ter-msmarco")
def test_sentence_ter_qascore(benchmark, pairs):
    hyps, refs, _ = pairs
    _run_qascore(benchmark, "sentence-ter-msmarco", lambda: TER().sentence_scores(hyps, refs))
