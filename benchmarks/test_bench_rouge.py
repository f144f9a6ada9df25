"""ROUGE speed, side by side with the peers in one run (pytest-benchmark groups).

Run: ``PYTHONPATH=src python -m pytest benchmarks/test_bench_rouge.py --benchmark-group-by=group``
(``--benchmark-json=FILE`` to keep the numbers; docs/rouge.md lists the measured ratios).

rouge-score-rs is pinned to one thread (RAYON_NUM_THREADS=1, set before it is imported) as the
issue compares one thread against one thread.
"""
from __future__ import annotations

import json
import os

os.environ["RAYON_NUM_THREADS"] = "1"

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from qascore._kernels.lcs import lcs_lengths  # noqa: E402
from qascore.compat.rouge_score import RougeScorer  # noqa: E402
from qascore.lexical.rouge import rouge  # noqa: E402
from qascore.text import RougeTokenizer, Vocabulary  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MSMARCO = SHARED / "mrc" / "msmarco"


def _answers(path):
    return {r["query_id"]: r["answers"] for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


@pytest.fixture(scope="module")
def msmarco_pairs():
    """The 9,754 MS MARCO dev queries with a reference answer: (candidates, first references)."""
    if not MSMARCO.is_dir():
        pytest.skip(f"shared data not found at {MSMARCO}")
    refs = _answers(MSMARCO / "dev_as_references.json")
    cands = _answers(MSMARCO / "dev_first_sentence_as_candidates.json")
    queries = [q for q in refs if refs[q] and q in cands]
    return [cands[q][0] for q in queries], [refs[q][0] for q in queries]


@pytest.fixture(scope="module")
def msmarco_ids(msmarco_pairs):
    predictions, references = msmarco_pairs
    vocab = Vocabulary()
    tokenizer = RougeTokenizer()
    return tokenizer.encode_batch(predictions, vocab), tokenizer.encode_batch(references, vocab)


@pytest.fixture(scope="module")
def long_pairs():
    """Ten pairs of 3,000-word texts drawn from a 2,000-word vocabulary."""
    rng = np.random.default_rng(0)
    words = np.array([f"word{i}" for i in range(2000)])
    make = lambda: " ".join(rng.choice(words, 3000))  # noqa: E731
    return [make() for _ in range(10)], [make() for _ in range(10)]


def joined_long_pairs(predictions, references, n_pairs=10, n_tokens=3000):
    """``n_pairs`` pairs of about ``n_tokens`` words: consecutive predictions joined into one,
    the same rows' references into its reference."""
    pairs, start = [], 0
    while len(pairs) < n_pairs:
        end, tokens = start, 0
        while tokens < n_tokens:
            tokens += len(predictions[end].split())
            end += 1
        pairs.append((" ".join(predictions[start:end]), " ".join(references[start:end])))
        start = end
    return [p for p, _ in pairs], [r for _, r in pairs]


@pytest.fixture(scope="module")
def long_natural_pairs(msmarco_pairs):
    """Ten pairs of about 3,000 tokens of English from MS MARCO (joined_long_pairs). Unlike the
    random words above, common words occur everywhere, so the LCS has matches in every block."""
    return joined_long_pairs(*msmarco_pairs)


def with_emoji(predictions, references):
    """Each text with one emoji at its end, which makes Python store the whole text as UCS-4
    (4 bytes a code point), as chat and RAG output often is."""
    return tuple([text + " \U0001F600" for text in texts] for texts in (predictions, references))


@pytest.fixture(scope="module")
def long_emoji_pairs(long_natural_pairs):
    """The English pairs stored as UCS-4 (with_emoji)."""
    return with_emoji(*long_natural_pairs)


def bench_rouge_score_rs_batch(benchmark, predictions, references, rouge_types=("rougeL",)):
    from rouge_score_rs.rouge_scorer import RougeScorer as RsScorer

    scorer = RsScorer(list(rouge_types))
    benchmark(scorer.score_batch, references, predictions)


# ---------------------------------------------------------------- MS MARCO, raw strings, one thread
@pytest.mark.benchmark(group="msmarco-rougeL-raw-1thread")
def test_msmarco_qascore_1thread(benchmark, msmarco_pairs):
    predictions, references = msmarco_pairs
    benchmark(rouge, predictions, references, ["rougeL"], n_jobs=1)


@pytest.mark.benchmark(group="msmarco-rougeL-raw-1thread")
def test_msmarco_qascore_compat_batch_1thread(benchmark, msmarco_pairs):
    """The drop-in path: compat score_batch, results as rouge-score's dicts of Score tuples."""
    predictions, references = msmarco_pairs
    benchmark(RougeScorer(["rougeL"]).score_batch, references, predictions, n_jobs=1)


@pytest.mark.benchmark(group="msmarco-rougeL-raw-1thread")
def test_msmarco_rouge_score_rs_1thread(benchmark, msmarco_pairs):
    bench_rouge_score_rs_batch(benchmark, *msmarco_pairs)


@pytest.mark.benchmark(group="msmarco-rougeL-raw-1thread")
def test_msmarco_rouge_score(benchmark, msmarco_pairs):
    from rouge_score.rouge_scorer import RougeScorer as PeerScorer

    predictions, references = msmarco_pairs
    scorer = PeerScorer(["rougeL"])
    benchmark.pedantic(lambda: [scorer.score(t, p) for t, p in zip(references, predictions)], rounds=1, iterations=1)


# ---------------------------------------------------------------- MS MARCO rougeLsum, one thread
@pytest.mark.benchmark(group="msmarco-rougeLsum-1thread")
@pytest.mark.parametrize("scorer", ["qascore", "rouge_score_rs"])
def test_msmarco_lsum_1thread(benchmark, msmarco_pairs, scorer):
    predictions, references = msmarco_pairs
    if scorer == "qascore":
        benchmark(rouge, predictions, references, ["rougeLsum"], n_jobs=1)
    else:
        bench_rouge_score_rs_batch(benchmark, predictions, references, rouge_types=("rougeLsum",))


# ---------------------------------------------------------------- threads
@pytest.mark.benchmark(group="msmarco-rougeL-raw-threads")
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_msmarco_qascore_threads(benchmark, msmarco_pairs, n_jobs):
    predictions, references = msmarco_pairs
    benchmark(rouge, predictions, references, ["rougeL"], n_jobs=n_jobs)


# ---------------------------------------------------------------- kernel alone on token ids
@pytest.mark.benchmark(group="msmarco-lcs-kernel-ids")
def test_kernel_qascore_lcs_ids(benchmark, msmarco_ids):
    pred, ref = msmarco_ids
    rows = np.arange(len(pred), dtype=np.int64)
    benchmark(lcs_lengths, pred.ids, pred.offsets, rows, ref.ids, ref.offsets, rows, 1)


@pytest.mark.benchmark(group="msmarco-lcs-kernel-ids")
def test_kernel_rapidfuzz_lcsseq_ids(benchmark, msmarco_ids):
    from rapidfuzz.distance import LCSseq

    pred, ref = msmarco_ids
    # rapidfuzz's fastest input: Python lists of the same int ids (numpy rows are slower for it)
    pairs = [(pred.row(i).tolist(), ref.row(i).tolist()) for i in range(len(pred))]
    similarity = LCSseq.similarity
    benchmark(lambda: [similarity(a, b) for a, b in pairs])


@pytest.mark.benchmark(group="msmarco-lcs-kernel-ids")
def test_kernel_rapidfuzz_cdist_ids(benchmark, msmarco_ids):
    """rapidfuzz's own batch call (one thread) on the aligned pairs via cpdist."""
    from rapidfuzz.distance import LCSseq
    from rapidfuzz.process import cpdist

    pred, ref = msmarco_ids
    a = [pred.row(i).tolist() for i in range(len(pred))]
    b = [ref.row(i).tolist() for i in range(len(ref))]
    benchmark(cpdist, a, b, scorer=LCSseq.similarity, workers=1)


# ---------------------------------------------------------------- long texts
@pytest.fixture(params=["random", "natural", "emoji"])
def long_case(request):
    """(group name, pairs): random words (sparse matches), English prose (dense), or the same
    prose stored as UCS-4."""
    fixture = {"random": "long_pairs", "natural": "long_natural_pairs", "emoji": "long_emoji_pairs"}[request.param]
    return f"long-3000-tokens-{request.param}-rougeL", request.getfixturevalue(fixture)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_long_qascore(benchmark, long_case, n_jobs):
    """n_jobs=1 is the comparison with rouge-score-rs (one thread); 2 shows what both cores give."""
    benchmark.group, (predictions, references) = long_case
    benchmark(rouge, predictions, references, ["rougeL"], n_jobs=n_jobs)


def test_long_rouge_score_rs(benchmark, long_case):
    benchmark.group, pairs = long_case
    bench_rouge_score_rs_batch(benchmark, *pairs)


# ---------------------------------------------------------------- one short pair, compat score()
SHORT = ("The quick brown fox jumps over the lazy dog", "The quick brown dog jumps on the log.")


@pytest.mark.benchmark(group="compat-score-one-short-pair")
def test_short_qascore_compat(benchmark):
    scorer = RougeScorer(["rougeL"])
    benchmark(scorer.score, *SHORT)


@pytest.mark.benchmark(group="compat-score-one-short-pair")
def test_short_rouge_score_rs(benchmark):
    from rouge_score_rs.rouge_scorer import RougeScorer as RsScorer

    benchmark(RsScorer(["rougeL"]).score, *SHORT)


@pytest.mark.benchmark(group="compat-score-one-short-pair")
def test_short_rouge_score(benchmark):
    from rouge_score.rouge_scorer import RougeScorer as PeerScorer

    benchmark(PeerScorer(["rougeL"]).score, *SHORT)


# ---------------------------------------------------------------- a reranker's batch: ten short pairs
@pytest.fixture(scope="module")
def ten_pairs(msmarco_pairs):
    predictions, references = msmarco_pairs
    return predictions[:10], references[:10]


@pytest.mark.benchmark(group="ten-short-pairs-rougeL")
def test_ten_pairs_qascore_rouge(benchmark, ten_pairs):
    """rouge() whole: input checks, the kernel, scores and the result object."""
    benchmark(rouge, *ten_pairs, ["rougeL"], n_jobs=1)


@pytest.mark.benchmark(group="ten-short-pairs-rougeL")
def test_ten_pairs_qascore_compat_loop(benchmark, ten_pairs):
    scorer = RougeScorer(["rougeL"])
    benchmark(lambda: [scorer.score(r, p) for p, r in zip(*ten_pairs)])


@pytest.mark.benchmark(group="ten-short-pairs-rougeL")
def test_ten_pairs_rouge_score_rs_batch(benchmark, ten_pairs):
    bench_rouge_score_rs_batch(benchmark, *ten_pairs)


@pytest.mark.benchmark(group="ten-short-pairs-rougeL")
def test_ten_pairs_rouge_score_rs_loop(benchmark, ten_pairs):
    from rouge_score_rs.rouge_scorer import RougeScorer as RsScorer

    scorer = RsScorer(["rougeL"])
    benchmark(lambda: [scorer.score(r, p) for p, r in zip(*ten_pairs)])


THREE_TYPES = ("rouge1", "rouge2", "rougeL")


@pytest.mark.benchmark(group="ten-short-pairs-rouge1-rouge2-rougeL")
def test_ten_pairs_three_types_qascore_rouge(benchmark, ten_pairs):
    """rouge()'s default types: P, R and F of every type come from one compiled call."""
    benchmark(rouge, *ten_pairs, THREE_TYPES, n_jobs=1)


@pytest.mark.benchmark(group="ten-short-pairs-rouge1-rouge2-rougeL")
def test_ten_pairs_three_types_rouge_score_rs_batch(benchmark, ten_pairs):
    bench_rouge_score_rs_batch(benchmark, *ten_pairs, THREE_TYPES)


# ---------------------------------------------------------------- the calls of issue 22, pytest-benchmark form
# (benchmarks/rouge_calls_table.py prints the same cases as one interleaved table with ratios)
ALL_FOUR = ("rouge1", "rouge2", "rougeL", "rougeLsum")


@pytest.mark.parametrize("scorer", ["qascore", "rouge_score_rs"])
@pytest.mark.parametrize("types", [("rougeL",), ALL_FOUR], ids=["rougeL", "all-four"])
@pytest.mark.parametrize("stem", [False, True], ids=["plain", "stemmed"])
def test_score_loop_fresh_pairs(benchmark, msmarco_pairs, scorer, types, stem):
    """``score(t, p)`` over 1,000 different MS MARCO pairs, caches warm (one pass first)."""
    from rouge_score_rs.rouge_scorer import RougeScorer as RsScorer

    benchmark.group = f"score-loop-1000-pairs-{'-'.join(types)}-{'stemmed' if stem else 'plain'}"
    predictions, references = (texts[:1000] for texts in msmarco_pairs)
    score = (RougeScorer if scorer == "qascore" else RsScorer)(list(types), use_stemmer=stem).score
    run = lambda: [score(t, p) for t, p in zip(references, predictions)]  # noqa: E731
    run()
    benchmark(run)


@pytest.mark.benchmark(group="batch-all-four-stemmed-1thread")
@pytest.mark.parametrize("scorer", ["qascore", "rouge_score_rs"])
def test_batch_all_four_stemmed(benchmark, msmarco_pairs, scorer):
    from rouge_score_rs.rouge_scorer import RougeScorer as RsScorer

    predictions, references = msmarco_pairs
    if scorer == "qascore":
        benchmark(rouge, predictions, references, ALL_FOUR, use_stemmer=True, n_jobs=1)
    else:
        benchmark(RsScorer(list(ALL_FOUR), use_stemmer=True).score_batch, references, predictions)
