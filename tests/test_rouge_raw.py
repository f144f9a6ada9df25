"""ROUGE counts from raw strings interned per pair (kernels/rouge_raw.pyx) against the readable
tokeniser with a plain-Python DP LCS and Counter n-grams, and against the packed-id kernels."""
from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_kernels_lcs import clipped_reference, dp_lcs, summary_hits
from test_text_corpus import all_texts, msmarco_pairs

from qascore._kernels.lcs import lcs_lengths
from qascore._kernels.ngram import clipped_ngram_matches
from qascore._kernels.rouge_pair import (pair_rouge_counts_ids, pair_rouge_counts_tokens, pair_union_hits_ids,
                                         pair_union_hits_tokens)
from qascore._kernels.rouge_raw import _free_idle_workers, pair_rouge_counts, rouge_counts
from qascore.text import RougeTokenizer, Vocabulary

TOKENIZER = RougeTokenizer()
MAX_ORDER = 4

# Pieces that meet every branch of the reader: capitals, digits, tokens of 1 to 20 bytes (word
# boundaries at 8 and 16), separators of every kind, Latin-1 and wider code points (U+0130 and
# the Kelvin sign lowercase to ASCII), repeated words.
PIECES = ["a", "B", "cat", "Cat", "x1", "123", "abcdefgh", "ABCDEFGHI", "abcdefghijklmnop",
          "abcdefghijklmnopqrst", "Über", "café", "\u0130stanbul", "\u212aelvin", "東京", "😀x", "--", ".", "\n", " ",
          "\t", "_", "ß", "The quick brown fox jumps over the lazy dog", "SPHINX OF BLACK QUARTZ, JUDGE MY VOW",
          "0123456789", "@[`{", "\x7f\x80\xff"]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map(lambda parts: "".join(
    p + (" " if i % 3 else "") for i, p in enumerate(parts)))
any_text = st.one_of(texts, st.text(max_size=60), st.text(st.characters(max_codepoint=0x7F), max_size=60))


def reference_counts(prediction: str, reference: str, max_order: int):
    """The readable tokeniser, Counter n-gram clipping and a DP LCS, written for the tests."""
    p, r = TOKENIZER.tokenize(prediction), TOKENIZER.tokenize(reference)
    matches = [clipped_reference(p, [r], n) for n in range(1, max_order + 1)]
    return matches, dp_lcs(p, r), len(p), len(r)


def raw_counts(predictions, references, max_order=MAX_ORDER, n_jobs=1):
    rows = np.arange(len(predictions), dtype=np.int64)
    return rouge_counts(list(predictions), list(references), rows, rows, max_order, True, n_jobs)


def packed_counts(predictions, references, max_order=MAX_ORDER):
    """The readable tokeniser's tokens as packed ids through the packed-id kernels."""
    vocab = Vocabulary()
    pred = vocab.pack(TOKENIZER.tokenize_batch(list(predictions)))
    ref = vocab.pack(TOKENIZER.tokenize_batch(list(references)))
    rows = np.arange(len(pred), dtype=np.int64)
    groups = np.arange(len(rows) + 1, dtype=np.int64)
    matches = clipped_ngram_matches(pred.ids, pred.offsets, rows, ref.ids, ref.offsets, rows, groups, max_order)
    lcs = lcs_lengths(pred.ids, pred.offsets, rows, ref.ids, ref.offsets, rows)
    return matches, lcs, pred.lengths(), ref.lengths()


def assert_same_counts(got, expected):
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(any_text, any_text), min_size=1, max_size=6))
def test_counts_equal_readable_tokenizer_and_dp(pairs):
    predictions = [p for p, _ in pairs]
    references = [r for _, r in pairs]
    expected = [reference_counts(p, r, MAX_ORDER) for p, r in pairs]
    want = (np.array([e[0] for e in expected]), np.array([e[1] for e in expected]),
            np.array([e[2] for e in expected]), np.array([e[3] for e in expected]))
    for n_jobs in (1, 2):
        assert_same_counts(raw_counts(predictions, references, n_jobs=n_jobs), want)
    assert_same_counts(packed_counts(predictions, references), want)
    for (p, r), (matches, lcs, n_p, n_r) in zip(pairs, expected):
        assert pair_rouge_counts(r, p, MAX_ORDER, True) == (tuple(matches), lcs, n_r, n_p)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["w1", "w2", "w3", "Word", "longerword", "x"]), min_size=60, max_size=400),
       st.lists(st.sampled_from(["w1", "w2", "w3", "Word", "longerword", "y"]), min_size=60, max_size=400))
def test_long_texts_use_the_multi_word_lcs(a, b):
    """Over 64 shared tokens on both sides: the blocked LCS with carries."""
    prediction, reference = " ".join(a), ", ".join(b)
    matches, lcs, n_p, n_r = reference_counts(prediction, reference, 2)
    got = raw_counts([prediction], [reference], max_order=2)
    assert_same_counts(got, (np.array([matches]), [lcs], [n_p], [n_r]))


# A separator that sets how each text is stored: Latin-1, UCS-2 and UCS-4 (packed to bytes and
# read like Latin-1), UCS-2 or UCS-4 holding U+212A or U+0130 (read code point by code point). The
# highest code points saturate the packs that narrow UCS-2 and UCS-4 units to bytes; U+10041,
# whose low 16 bits are "A", is a separator only if UCS-4 units saturate instead of truncating.
STORAGE_SEPARATORS = {"latin1": "\xe9", "ucs2": "\u2019", "ucs2-kelvin": "\u212a", "ucs2-dotted-i": " \u0130",
                      "ucs2-high": "\uffff\u8000", "ucs4": "\U0001f600", "ucs4-high": "\U0010ffff\u8000",
                      "ucs4-low-ascii": "\U00010041", "ucs4-kelvin": "\U0001f600\u212a",
                      "ucs4-dotted-i": "\U0001f600\u0130"}


@pytest.mark.parametrize("storage", sorted(STORAGE_SEPARATORS))
def test_texts_shorter_than_a_word_and_tokens_at_every_end_position(storage):
    """Every prefix and suffix of a text of two 64-unit words and a part: tokens end at every
    position of a word, on the last (partial, zero-padded) word too, next to wide code points."""
    sep = STORAGE_SEPARATORS[storage]
    base = f"Ab1{sep}cD ef.GHIJKLMN{sep}op,qrstuvwxyz0123 end{sep}x9" * 3
    pairs = [(base[:i], base[j:]) for i in range(len(base) + 1) for j in range(0, len(base) + 1, 5)]
    predictions = [p for p, _ in pairs]
    references = [r for _, r in pairs]
    assert_same_counts(raw_counts(predictions, references), packed_counts(predictions, references))


@pytest.mark.parametrize("storage", sorted(STORAGE_SEPARATORS))
@pytest.mark.parametrize("seed", range(3))
def test_thousands_of_tokens_cross_every_batch_of_spans(seed, storage):
    """Token spans are read off the bitmap in batches of about 2,048 tokens; a
    token still open at the end of a batch (even one longer than a 64-unit word) starts the next.
    Tokens of 1 to 70 code points, separators of 1 to 3, so that token ends fall on every
    position of a word and of a batch; every storage kind of str."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))
    seps = [" ", ", ", "-", STORAGE_SEPARATORS[storage], " . ", "\t"]
    def text(n_tokens):
        parts = []
        for _ in range(n_tokens):
            length = int(rng.choice([1, 2, 3, 7, 8, 9, 63, 64, 65, 70], p=[.2, .15, .15, .1, .1, .1, .05, .05, .05, .05]))
            parts.append("".join(rng.choice(letters[: int(rng.integers(3, 62))], length)))
            parts.append(seps[int(rng.integers(0, len(seps)))])
        return "".join(parts[: len(parts) - int(rng.integers(0, 2))])  # with and without a trailing separator
    predictions = [text(int(n)) for n in rng.integers(1900, 6000, 3)]
    references = [text(int(n)) for n in rng.integers(1900, 6000, 3)]
    got = raw_counts(predictions, references, max_order=2)
    assert_same_counts(got, packed_counts(predictions, references, max_order=2))
    for p, r, n_p, n_r in zip(predictions, references, got[2], got[3]):
        assert (n_p, n_r) == (len(TOKENIZER.tokenize(p)), len(TOKENIZER.tokenize(r)))


@pytest.mark.parametrize("vocabulary", [40, 700, 2000, 20000])
def test_long_pairs_with_one_sided_words_equal_the_packed_path(vocabulary):
    """3,000-word pairs over vocabularies from dense to sparse: many words on one side only, which
    the raw path drops before its LCS (and numbers no further), over several 512-token groups."""
    rng = np.random.default_rng(vocabulary)
    words = np.array([f"Word{i}" for i in range(vocabulary)])
    make = lambda n: " ".join(rng.choice(words, n))  # noqa: E731
    predictions = [make(3000), make(700), make(65), make(2000)]
    references = [make(3000), make(2900), make(3000), make(64)]
    assert_same_counts(raw_counts(predictions, references, max_order=2),
                       packed_counts(predictions, references, max_order=2))


@pytest.mark.parametrize("length", [9, 16, 17, 30])
def test_long_tokens_alike_but_for_their_tails_stay_distinct(length):
    """Tokens longer than 8 bytes that share all but their last two bytes meet in the pair's
    table, where only their tails (compared a word at a time, the last word in part) tell them
    apart."""
    rng = np.random.default_rng(length)
    common = ("Prefix00" + "q" * length)[: length - 2]
    words = sorted({common + "".join(rng.choice(list("xyz0123456789"), 2)) for _ in range(400)})
    prediction = " ".join(rng.choice(words, 600))
    reference = " ".join(rng.choice(words[::2] + [common.lower() + "ww"], 500))
    matches, lcs, n_p, n_r = reference_counts(prediction, reference, 1)
    assert_same_counts(raw_counts([prediction], [reference], max_order=1), (np.array([matches]), [lcs], [n_p], [n_r]))


@pytest.mark.parametrize("storage", ["latin1", "ucs2", "ucs4", "code points"])
def test_tokens_read_before_the_table_grows_are_found_after_it(storage):
    """A fresh worker's table starts small and grows (rehashing its tokens by hash_token) while a
    long reference is read; the tokens read before it grew, of every length up to 17 bytes
    (words of 8 and 16 bytes end exactly on a word), must be found by the hash the reader
    computes as it reads them again after."""
    _free_idle_workers()
    early = ["abcdefghijklmnopq"[:k] for k in range(1, 18)] + ["ABCDEFGH", "Abcdefghijklmnop", "12345678"]
    filler = [f"f{i:05d}" for i in range(600)]  # 600 more types: the table grows at least once
    # a Kelvin sign sends the text to the code-point reader, which hashes byte by byte
    wide = {"latin1": "", "ucs2": " \u2014", "ucs4": " \U0001F600", "code points": " \u212a"}[storage]
    reference = " ".join(early + filler + early) + wide
    prediction = " ".join(early[::-1] + early + filler[::7]) + wide
    matches, lcs, n_p, n_r = reference_counts(prediction, reference, 2)
    assert_same_counts(raw_counts([prediction], [reference], max_order=2), (np.array([matches]), [lcs], [n_p], [n_r]))


def test_workers_kept_between_calls_serve_short_pairs_after_long_ones():
    long_text = " ".join(f"w{i % 3000}" for i in range(20_000))
    short = [("the cat sat", "the cat"), ("", "x"), ("a b", "")]
    expected = raw_counts([p for p, _ in short], [r for _, r in short])
    raw_counts([long_text, long_text[::-1]], [long_text[7:], long_text], n_jobs=2)
    assert_same_counts(raw_counts([p for p, _ in short], [r for _, r in short]), expected)
    with pytest.raises(TypeError, match=r"references\[1\]"):
        raw_counts(["a", "b"], ["a", None])
    assert_same_counts(raw_counts([p for p, _ in short], [r for _, r in short], n_jobs=2), expected)


def test_rougeN_only_and_rougeL_only_calls():
    rows = np.arange(2, dtype=np.int64)
    preds, refs = ["the cat sat", "a b a b"], ["the cat", "b a b a"]
    matches, lcs, n_p, n_r, lsum = rouge_counts(preds, refs, rows, rows, 0, True)
    assert matches.shape == (2, 0) and lcs.tolist() == [2, 3] and n_p.tolist() == [3, 4] and n_r.tolist() == [2, 4]
    assert lsum.tolist() == [0, 0]  # not asked for
    matches, lcs, _, _, _ = rouge_counts(preds, refs, rows, rows, 2, False)
    assert matches.tolist() == [[2, 1], [4, 2]] and lcs.tolist() == [0, 0]
    assert pair_rouge_counts("the cat", "the cat sat", 1, False) == ((2,), -1, 2, 3)


def test_rows_pick_pairs_and_references_repeat():
    preds, refs = ["a b c", "x y"], ["a c", "y", "q"]
    got = rouge_counts(preds, refs, np.array([0, 0, 1, 1], dtype=np.int64), np.array([0, 2, 1, 0], dtype=np.int64), 1, True)
    assert got[1].tolist() == [2, 0, 1, 0] and got[0][:, 0].tolist() == [2, 0, 1, 0]


def test_tuples_lists_and_other_sequences_give_the_same_counts():
    # rouge() hands its own tuples over uncopied; any other sequence is copied into one
    preds, refs = ["a b c", "x y", "ünï a"], ["a c", "y", "a"]
    rows = np.array([0, 1, 2, 0], dtype=np.int64)
    want = rouge_counts(preds, refs, rows, rows[::-1].copy(), 2, True, 2)
    for p_seq, r_seq in ((tuple(preds), tuple(refs)), (iter(preds), (r for r in refs)), (preds, tuple(refs))):
        got = rouge_counts(p_seq, r_seq, rows, rows[::-1].copy(), 2, True, 2)
        assert all((a == b).all() for a, b in zip(got, want))
    assert want[1].tolist() == [2, 0, 0, 2]


def test_bad_input_names_what_and_where():
    rows = np.zeros(1, dtype=np.int64)
    with pytest.raises(TypeError, match=r"references\[1\] must be str, got NoneType"):
        rouge_counts(["a"], ["a", None], rows, rows, 1, True)
    with pytest.raises(ValueError, match="ref_rows: row index out of range"):
        rouge_counts(["a"], ["a"], rows, rows + 1, 1, True)
    with pytest.raises(ValueError, match="pred_rows has 1 pairs but ref_rows has 2"):
        rouge_counts(["a"], ["a"], rows, np.zeros(2, dtype=np.int64), 1, True)
    with pytest.raises(ValueError, match="max_order"):
        rouge_counts(["a"], ["a"], rows, rows, 10, True)
    with pytest.raises(TypeError):
        pair_rouge_counts("a", None, 1, True)


def test_shared_data_equals_the_packed_path(shared_data):
    """Every text of the shared data against a rotated partner, and the MS MARCO pairs."""
    references, candidates = msmarco_pairs(shared_data)
    assert_same_counts(raw_counts(candidates, references, n_jobs=2), packed_counts(candidates, references))
    texts = list(all_texts(shared_data))[::3]
    partners = texts[1:] + texts[:1]
    assert_same_counts(raw_counts(texts, partners, max_order=2, n_jobs=2), packed_counts(texts, partners, max_order=2))


def test_concurrent_python_threads_get_identical_results(shared_data):
    references, candidates = msmarco_pairs(shared_data)
    expected = raw_counts(candidates, references)
    outputs = []
    threads = [threading.Thread(target=lambda: outputs.append(raw_counts(candidates, references, n_jobs=2)))
               for _ in range(3)]
    threads += [threading.Thread(target=lambda: outputs.append(
        [pair_rouge_counts(r, c, MAX_ORDER, True) for r, c in zip(references[:500], candidates[:500])]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for out in outputs:
        if isinstance(out, list):
            assert out == [(tuple(expected[0][k]), expected[1][k], expected[3][k], expected[2][k]) for k in range(500)]
        else:
            assert_same_counts(out, expected)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10**7), st.integers(1, 10**7), st.integers(0, 10**7), st.integers(0, 8))
def test_pair_score_is_rouge_scores_python_float_arithmetic(n_prediction, n_target, hits, shift):
    """The compat scorer's one-pair P / R / F (kernels/prf.pyx pair_score, qs_prf.h) against
    rouge-score's own scoring.fmeasure over Python floats, bit for bit."""
    import collections
    import struct

    from rouge_score import scoring

    from qascore._kernels.prf import pair_score

    score_type = collections.namedtuple("Score", ["precision", "recall", "fmeasure"])
    hits = min(hits, max(n_prediction - shift, 1), max(n_target - shift, 1))
    precision = hits / max(n_prediction - shift, 1)
    recall = hits / max(n_target - shift, 1)
    expected = (precision, recall, scoring.fmeasure(precision, recall))
    got = pair_score(score_type, hits, n_prediction, n_target, shift)
    assert type(got) is score_type
    assert [struct.pack("<d", x) for x in got] == [struct.pack("<d", float(x)) for x in expected]


def test_pair_score_refuses_a_class_whose_instances_are_not_tuples():
    from qascore._kernels.prf import pair_score

    with pytest.raises(TypeError, match="namedtuple"):
        pair_score(dict, 1, 2, 3)


words = st.lists(st.sampled_from(["a", "b", "c", "dd", "e", "the", "x9"]), max_size=40)


@settings(max_examples=200, deadline=None)
@given(words, words, st.integers(0, 9), st.booleans())
def test_one_pair_from_tokens_or_ids_equals_the_readable_counts(target, prediction, max_order, want_lcs):
    """The compat scorer's one-pair entries for custom tokenizers: token lists renumbered by a
    dict, packed vocabulary ids renumbered by the n-gram pair table; both against Counter
    clipping and the DP LCS."""
    expected = (tuple(clipped_reference(prediction, [target], n) for n in range(1, max_order + 1)),
                dp_lcs(prediction, target) if want_lcs else -1, len(target), len(prediction))
    assert pair_rouge_counts_tokens(target, prediction, max_order, want_lcs) == expected
    vocab = Vocabulary()
    vocab.pack([["pad"] * 50])  # vocabulary ids far from 0: the pair renumbers them
    packed = vocab.pack([target, prediction])
    assert pair_rouge_counts_ids(packed.ids, packed.offsets, max_order, want_lcs) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(words, max_size=5), st.lists(words, max_size=5))
def test_one_pair_union_hits_from_tokens_or_ids_equal_the_readable_backtrack(target, prediction):
    expected = summary_hits(target, prediction)
    assert pair_union_hits_tokens(target, prediction) == expected
    packed = Vocabulary().pack(target + prediction)
    assert pair_union_hits_ids(packed.ids, packed.offsets, len(target)) == expected


STEMMER = RougeTokenizer(use_stemmer=True)
# words whose stems differ from themselves, and lines: stemming and rougeLsum's sentences
STEM_PIECES = PIECES + ["running", "Runs", "runner", "relational", "ponies", "caresses", "\n\n", ".\n", "hopping",
                        "generalizations", "\u0130ssues", "skies", "dying"]
stem_texts = st.lists(st.sampled_from(STEM_PIECES), max_size=30).map(lambda parts: "".join(
    p + (" " if i % 3 else "") for i, p in enumerate(parts)))


def readable_lsum_hits(prediction: str, reference: str, tokenizer) -> int:
    """rouge-score's rougeLsum hits: lines (empty ones dropped), each tokenised, summary-level LCS."""
    lines = lambda text: [tokenizer.tokenize(s) for s in text.split("\n") if s]  # noqa: E731
    return summary_hits(lines(reference), lines(prediction))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.one_of(stem_texts, any_text), st.one_of(stem_texts, any_text)), min_size=1, max_size=5),
       st.booleans())
def test_stemmed_counts_and_line_lsum_equal_the_readable_tokenizer(pairs, stem):
    tokenizer = STEMMER if stem else TOKENIZER
    predictions, references = [p for p, _ in pairs], [r for _, r in pairs]
    rows = np.arange(len(pairs), dtype=np.int64)
    for n_jobs in (1, 2):
        matches, lcs, n_p, n_r, lsum = rouge_counts(predictions, references, rows, rows, MAX_ORDER, True, n_jobs,
                                                    want_lsum=True, stem=stem)
        for k, (p, r) in enumerate(pairs):
            pt, rt = tokenizer.tokenize(p), tokenizer.tokenize(r)
            assert [clipped_reference(pt, [rt], n) for n in range(1, MAX_ORDER + 1)] == matches[k].tolist()
            assert (dp_lcs(pt, rt), len(pt), len(rt)) == (lcs[k], n_p[k], n_r[k])
            assert lsum[k] == readable_lsum_hits(p, r, tokenizer)
    for k, (p, r) in enumerate(pairs):
        assert pair_rouge_counts(r, p, MAX_ORDER, True, stem=stem) == (
            tuple(matches[k].tolist()), lcs[k], n_r[k], n_p[k])


def test_stem_cache_starts_over_when_full_and_stems_stay_right():
    """More distinct long tokens than a worker's stem cache holds (2**17): it is cleared and
    refilled, and every token still gets its stem."""
    words = [f"{a}{b}{c}ations" for a in "abcdefghijklmnopqrstuvwxyz" for b in "bcdfghjklmnpqrstvwxz"
             for c in range(300)]
    assert len(set(words)) > 1 << 17
    reference = " ".join(words)
    prediction = " ".join(w.replace("ations", "ate") for w in words[::-1])
    expected = clipped_reference(STEMMER.tokenize(prediction), [STEMMER.tokenize(reference)], 1)
    assert expected > len(words) // 10  # many stems shared, none of them by the unstemmed words
    for _ in range(2):  # the second time round the cache holds the last words of the first
        assert pair_rouge_counts(reference, prediction, 1, False, stem=True) == (
            (expected,), -1, len(words), len(words))
