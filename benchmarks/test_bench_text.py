"""Rouge tokenisation + packing of the MS MARCO dev texts: qascore encode_batch vs the peers.

Side by side in one run on the same texts: rouge-score 0.1.2's DefaultTokenizer (Python),
rouge-score-rs's DefaultTokenizer (Rust, one text per call) and qascore's
``RougeTokenizer.encode_batch`` (whole batch in compiled code, one thread unless said). The
texts: the 9,754 scored MS MARCO dev pairs (first reference answer and first-sentence candidate),
19,508 texts. With stemming rouge-score takes about half a millisecond per text, so those cases
use the first 1,000 pairs. At the end the speed-up of each qascore case over each peer is
printed (median times, same texts).

Run: python setup.py build_ext --inplace && PYTHONPATH=src python -m pytest benchmarks/test_bench_text.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from rouge_score.tokenizers import DefaultTokenizer as RougeScoreTokenizer
from rouge_score_rs.tokenizers import DefaultTokenizer as RougeScoreRsTokenizer

from qascore.text import RougeTokenizer, Vocabulary

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_text_corpus import msmarco_pairs  # noqa: E402  (the tests' loader of the shared data)

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
STEMMED_PAIRS = 1000  # rouge-score stems at about 0.5 ms per text


@pytest.fixture(scope="module")
def msmarco_texts() -> list[str]:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    references, candidates = msmarco_pairs(SHARED_DATA)
    return [text for pair in zip(references, candidates) for text in pair]


@pytest.fixture(scope="module")
def medians(request):
    """Median seconds per case, printed as speed-up ratios when the module ends."""
    collected: dict[tuple[bool, str], float] = {}
    yield collected
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    with request.config.pluginmanager.get_plugin("capturemanager").global_and_fixture_disabled():
        _report_ratios(reporter, collected)


def _report_ratios(reporter, collected):
    reporter.write_line("")
    for stem in (False, True):
        peers = {name: t for (s, name), t in collected.items() if s == stem and not name.startswith("qascore")}
        for (s, name), t in collected.items():
            if s == stem and name.startswith("qascore"):
                ratios = ", ".join(f"{t_peer / t:.1f}x {peer}" for peer, t_peer in peers.items())
                reporter.write_line(f"[text] stem={stem} {name}: faster than {ratios}")


def _texts_for(texts, use_stemmer):
    return texts[: 2 * STEMMED_PAIRS] if use_stemmer else texts


def _record(benchmark, medians, use_stemmer, name, texts):
    if benchmark.stats is None:  # --benchmark-disable: the cases ran once, untimed
        return
    medians[(use_stemmer, name)] = benchmark.stats.stats.median
    benchmark.extra_info["us_per_text"] = benchmark.stats.stats.median / len(texts) * 1e6


# (name, tokeniser class, timed rounds): rouge-score is slow enough for three.
_PEERS = [("rouge-score", RougeScoreTokenizer, 3), ("rouge-score-rs", RougeScoreRsTokenizer, 5)]


@pytest.mark.parametrize("use_stemmer", [False, True], ids=["plain", "stemmed"])
@pytest.mark.parametrize("peer, peer_tokenizer, rounds", _PEERS, ids=[name for name, _, _ in _PEERS])
def test_peer_tokenizer(benchmark, msmarco_texts, medians, use_stemmer, peer, peer_tokenizer, rounds):
    texts = _texts_for(msmarco_texts, use_stemmer)
    tokenizer = peer_tokenizer(use_stemmer)
    benchmark.group = f"rouge tokenise stem={use_stemmer}"
    benchmark.pedantic(lambda: [tokenizer.tokenize(t) for t in texts], rounds=rounds, warmup_rounds=1)
    _record(benchmark, medians, use_stemmer, peer, texts)


@pytest.mark.parametrize("use_stemmer", [False, True], ids=["plain", "stemmed"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_qascore_encode_batch_warm_vocabulary(benchmark, msmarco_texts, medians, use_stemmer, n_jobs):
    """Steady state: the vocabulary has seen these token types (production traffic)."""
    texts = _texts_for(msmarco_texts, use_stemmer)
    tokenizer, vocab = RougeTokenizer(use_stemmer), Vocabulary()
    tokenizer.encode_batch(texts, vocab, n_jobs=n_jobs)
    benchmark.group = f"rouge tokenise stem={use_stemmer}"
    benchmark.pedantic(lambda: tokenizer.encode_batch(texts, vocab, n_jobs=n_jobs), rounds=20, warmup_rounds=2)
    _record(benchmark, medians, use_stemmer, f"qascore warm vocabulary n_jobs={n_jobs}", texts)


@pytest.mark.parametrize("use_stemmer", [False, True], ids=["plain", "stemmed"])
def test_qascore_encode_batch_fresh_vocabulary(benchmark, msmarco_texts, medians, use_stemmer):
    """Every call builds a new vocabulary (stems come from the process-wide Porter cache)."""
    texts = _texts_for(msmarco_texts, use_stemmer)
    tokenizer = RougeTokenizer(use_stemmer)
    benchmark.group = f"rouge tokenise stem={use_stemmer}"
    benchmark.pedantic(lambda: tokenizer.encode_batch(texts, Vocabulary(), n_jobs=1), rounds=10, warmup_rounds=1)
    _record(benchmark, medians, use_stemmer, "qascore fresh vocabulary n_jobs=1", texts)


def test_qascore_porter_stemmer_cold(benchmark, msmarco_texts):
    """Our pure-Python Porter on every distinct token of the texts, cache cleared each round."""
    from qascore.text.porter import porter_stem

    words = sorted({w for t in msmarco_texts for w in RougeTokenizer().tokenize(t)})

    def stem_all():
        porter_stem.cache_clear()
        return [porter_stem(w) for w in words]

    benchmark.group = "porter"
    benchmark.pedantic(stem_all, rounds=3)


def test_nltk_porter_stemmer(benchmark, msmarco_texts):
    from nltk.stem.porter import PorterStemmer

    words = sorted({w for t in msmarco_texts for w in RougeTokenizer().tokenize(t)})
    stemmer = PorterStemmer()
    benchmark.group = "porter"
    benchmark.pedantic(lambda: [stemmer.stem(w) for w in words], rounds=3)


_ONE_PAIR = ["The average Walgreens salary ranges from approximately $15,000 per year.", "Approximately $15,000 per year."]


def test_one_pair_rouge_score(benchmark):
    """Latency of one (reference, candidate) pair, as a reranker calls it."""
    tokenizer = RougeScoreTokenizer(False)
    benchmark.group = "one pair"
    benchmark(lambda: [tokenizer.tokenize(t) for t in _ONE_PAIR])


def test_one_pair_qascore_encode_batch(benchmark):
    tokenizer, vocab = RougeTokenizer(), Vocabulary()
    benchmark.group = "one pair"
    benchmark(tokenizer.encode_batch, _ONE_PAIR, vocab)
