"""The LCS, rougeLsum-union and n-gram kernels against plain-Python references written here."""
from __future__ import annotations

import threading
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore._kernels.lcs import char_lcs_length, lcs_lengths, union_lcs_hits_batch
from qascore._kernels.ngram import clipped_ngram_matches, ngram_totals


# ---------------------------------------------------------------- plain-Python references
def dp_table(a, b):
    t = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            t[i][j] = t[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(t[i - 1][j], t[i][j - 1])
    return t


def dp_lcs(a, b):
    return dp_table(a, b)[-1][-1]


def backtracked_positions(ref, can):
    """Positions of ``ref`` on the LCS read back from the bottom-right corner: diagonal on a
    match, left when the left cell is strictly larger than the upper one, else up."""
    t = dp_table(ref, can)
    i, j, out = len(ref), len(can), set()
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            out.add(i - 1)
            i, j = i - 1, j - 1
        elif t[i][j - 1] > t[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return out


def summary_hits(ref_sents, cand_sents):
    """Lin (2004) summary-level LCS hits with per-token clipping (ROUGE-1.5.5)."""
    cand_left = Counter(tok for s in cand_sents for tok in s)
    ref_left = Counter(tok for s in ref_sents for tok in s)
    hits = 0
    for ref in ref_sents:
        union = set()
        for can in cand_sents:
            union |= backtracked_positions(ref, can)
        for pos in sorted(union):
            tok = ref[pos]
            if cand_left[tok] > 0 and ref_left[tok] > 0:
                hits += 1
                cand_left[tok] -= 1
                ref_left[tok] -= 1
    return hits


def ngrams(tokens, n):
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def clipped_reference(hyp, refs, n):
    ref_counts = [ngrams(r, n) for r in refs]
    return sum(min(c, max((rc[g] for rc in ref_counts), default=0)) for g, c in ngrams(hyp, n).items())


# ---------------------------------------------------------------- packing helpers
def pack(rows):
    ids = np.array([x for r in rows for x in r], dtype=np.int32)
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(r) for r in rows])
    return ids, offsets


def pack_texts(texts):
    ids, tok_offsets = pack([s for t in texts for s in t])
    sent_offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    sent_offsets[1:] = np.cumsum([len(t) for t in texts])
    return ids, tok_offsets, sent_offsets


def run_lcs(A, B, n_jobs=1):
    a, ao = pack(A)
    b, bo = pack(B)
    rows = np.arange(len(A), dtype=np.int64)
    return lcs_lengths(a, ao, rows, b, bo, rows, n_jobs)


# ---------------------------------------------------------------- strategies
def token_lists(alphabet, max_size):
    return st.lists(st.integers(0, alphabet - 1), max_size=max_size)


small_alphabet = st.sampled_from([1, 2, 3, 8, 1000])


@st.composite
def seq_pairs(draw, max_size=150):
    alphabet = draw(small_alphabet)
    return draw(token_lists(alphabet, max_size)), draw(token_lists(alphabet, max_size))


# ---------------------------------------------------------------- LCS length
@settings(max_examples=150, deadline=None)
@given(st.lists(seq_pairs(), min_size=1, max_size=6))
def test_lcs_matches_dp(pairs):
    A, B = zip(*pairs)
    assert run_lcs(A, B).tolist() == [dp_lcs(a, b) for a, b in pairs]


@pytest.mark.parametrize("la,lb", [(63, 70), (64, 64), (65, 65), (64, 200), (128, 129), (200, 1200), (1100, 1050), (950, 700)])
def test_lcs_word_boundaries_and_long(la, lb):
    rng = np.random.default_rng(la * 7919 + lb)
    for alphabet in (2, 5, 50) if la * lb < 500_000 else (5,):
        a = rng.integers(0, alphabet, la).tolist()
        b = rng.integers(0, alphabet, lb).tolist()
        assert run_lcs([a, b], [b, a]).tolist() == [dp_lcs(a, b)] * 2


def numpy_row_lcs(a, b):
    """LCS length by the DP a row at a time: row_i[j] = running max over k <= j of
    max(row_{i-1}[k], row_{i-1}[k-1] + [a_i == b_k]) (rows never decrease). Fast enough for
    thousands of tokens a side; checked against dp_lcs below."""
    b = np.asarray(b)
    row = np.zeros(len(b) + 1, dtype=np.int64)
    for x in a:
        diagonal = row[:-1] + (b == x)
        row[1:] = np.maximum.accumulate(np.maximum(row[1:], diagonal))
    return int(row[-1])


def test_numpy_row_lcs_is_the_dp():
    rng = np.random.default_rng(11)
    for alphabet in (1, 3, 40):
        for _ in range(20):
            a = rng.integers(0, alphabet, rng.integers(0, 60)).tolist()
            b = rng.integers(0, alphabet, rng.integers(0, 60)).tolist()
            assert numpy_row_lcs(a, b) == dp_lcs(a, b)


@pytest.mark.parametrize("alphabet", [30, 400, 2000, 20000])
@pytest.mark.parametrize("la,lb", [(3000, 3000), (1500, 4100), (700, 2600)])
def test_lcs_long_texts_of_many_distinct_tokens(la, lb, alphabet):
    """Thousands of tokens a side over large alphabets: most (text token, 512-position group)
    pairs hold no match and are skipped unless a carry comes in from the group below; the
    alphabet of 30 keeps every group busy. Shared runs make long carry chains."""
    rng = np.random.default_rng(la + lb + alphabet)
    a = rng.integers(0, alphabet, la)
    b = rng.integers(0, alphabet, lb)
    run = rng.integers(0, alphabet, 300)
    a[100:400] = run  # a shared run: one match per text token, carried across groups
    b[lb - 400:lb - 100] = run
    a, b = a.tolist(), b.tolist()
    expected = numpy_row_lcs(a, b)
    assert run_lcs([a, b, a], [b, a, a]).tolist() == [expected, expected, la]


@pytest.mark.parametrize("words", range(9, 18))
def test_lcs_every_width_of_the_last_group(words):
    """Patterns of 9 to 17 words: the group after the first eight words is one to eight words
    wide, swept as one, four or eight words (the words past the pattern padded), over dense
    (alphabet 3) and sparse (alphabet 300) text, as pattern and as text."""
    rng = np.random.default_rng(words)
    la = 64 * words - 5
    for alphabet in (3, 300):
        a = rng.integers(0, alphabet, la).tolist()
        b = rng.integers(0, alphabet, la + 37).tolist()
        expected = numpy_row_lcs(a, b)
        assert run_lcs([a, b], [b, a]).tolist() == [expected, expected]


def test_lcs_pairs_of_falling_and_rising_length_in_one_batch():
    """One thread's scratch serves pair after pair: the match blocks a long pair leaves behind
    must not leak into a shorter pair's (they are cleared in bulk before each pattern)."""
    rng = np.random.default_rng(5)
    lengths = [3000, 700, 2100, 130, 1500, 65, 2900]
    A = [rng.integers(0, 12, n).tolist() for n in lengths]
    B = [rng.integers(0, 12, n + 40).tolist() for n in lengths]
    assert run_lcs(A, B).tolist() == [numpy_row_lcs(a, b) for a, b in zip(A, B)]


def longest_increasing(seq):
    """Length of the longest strictly increasing subsequence (patience sorting)."""
    import bisect
    tails = []
    for x in seq:
        k = bisect.bisect_left(tails, x)
        tails[k:k + 1] = [x]
    return len(tails)


def test_lcs_of_two_permutations_of_100k_tokens():
    """Every token distinct: the LCS of two permutations is the longest increasing subsequence
    of one read in the other's order. 100,000 distinct tokens over 196 groups of 512 positions:
    match memory must grow with the text, not with tokens x groups (that would be 78 MB here)."""
    rng = np.random.default_rng(5)
    a = rng.permutation(100_000)
    b = a.copy()
    for start in rng.integers(0, 99_000, 300):  # local shuffles keep long common runs
        b[start:start + 200] = rng.permutation(b[start:start + 200])
    position_in_a = np.empty_like(a)
    position_in_a[a] = np.arange(len(a))
    expected = longest_increasing(position_in_a[b].tolist())
    assert run_lcs([a.tolist()], [b.tolist()]).tolist() == [expected]


def test_lcs_identical_and_empty():
    x = list(range(300)) * 2
    assert run_lcs([x, [], x, [5, 5, 5]], [x, x, [], [5]]).tolist() == [600, 0, 0, 1]


def test_lcs_known_example():
    # rouge-score's testLcsTable
    assert run_lcs([[1, 2, 3, 4, 5]], [[2, 5, 3, 4]]).tolist() == [3]


def test_lcs_pair_rows_select_rows():
    a, ao = pack([[1, 2, 3], [4, 5]])
    b, bo = pack([[4, 5, 9], [3, 1, 2, 3]])
    got = lcs_lengths(a, ao, np.array([0, 1, 0, 1]), b, bo, np.array([1, 0, 0, 1]))
    assert got.tolist() == [3, 2, 0, 0]


def test_lcs_rejects_bad_arrays():
    a, ao = pack([[1, 2]])
    with pytest.raises(ValueError, match="row index"):
        lcs_lengths(a, ao, np.array([1]), a, ao, np.array([0]))
    with pytest.raises(ValueError, match="pairs"):
        lcs_lengths(a, ao, np.array([0]), a, ao, np.array([0, 0]))
    with pytest.raises(ValueError, match="token ids"):
        lcs_lengths(np.array([-1, 2], np.int32), ao, np.array([0]), a, ao, np.array([0]))
    with pytest.raises(ValueError, match="offsets"):
        lcs_lengths(a, np.array([0, 5]), np.array([0]), a, ao, np.array([0]))
    with pytest.raises(ValueError, match="b: offsets must be non-decreasing"):
        lcs_lengths(a, ao, np.array([0]), a, np.array([0, 2, 1, 2]), np.array([0]))
    with pytest.raises(ValueError, match="b: offsets must start at 0"):
        lcs_lengths(a, ao, np.array([0]), a, np.array([1, 2]), np.array([0]))
    with pytest.raises(ValueError, match="b: row index out of range"):
        lcs_lengths(a, ao, np.array([0]), a, ao, np.array([-1]))


def test_union_hits_reject_bad_arrays():
    ids, tok = pack([[1, 2], [3]])
    sent = np.array([0, 2])
    rows = np.array([0])
    assert union_lcs_hits_batch(ids, tok, sent, rows, ids, tok, sent, rows).tolist() == [3]
    with pytest.raises(ValueError, match="cand: sentence offsets must be non-decreasing"):
        union_lcs_hits_batch(ids, tok, sent, rows, ids, tok, np.array([0, 2, 1, 2]), rows)
    with pytest.raises(ValueError, match="ref: sentence offsets must start at 0"):
        union_lcs_hits_batch(ids, tok, np.array([0, 1]), rows, ids, tok, sent, rows)
    with pytest.raises(ValueError, match="ref: text row index out of range"):
        union_lcs_hits_batch(ids, tok, sent, np.array([1]), ids, tok, sent, np.array([0]))
    with pytest.raises(ValueError, match="cand sentences: token ids must be non-negative"):
        union_lcs_hits_batch(ids, tok, sent, rows, np.array([1, -2, 3], np.int32), tok, sent, rows)


# ---------------------------------------------------------------- rougeLsum union
@st.composite
def sentence_texts(draw):
    alphabet = draw(small_alphabet)
    sentence = token_lists(alphabet, draw(st.sampled_from([6, 40, 90])))
    return draw(st.lists(sentence, max_size=4)), draw(st.lists(sentence, max_size=4))


@settings(max_examples=100, deadline=None)
@given(st.lists(sentence_texts(), min_size=1, max_size=4))
def test_union_lcs_matches_reference(pairs):
    refs, cands = zip(*pairs)
    rows = np.arange(len(pairs), dtype=np.int64)
    got = union_lcs_hits_batch(*pack_texts(refs), rows, *pack_texts(cands), rows, 1)
    assert got.tolist() == [summary_hits(r, c) for r, c in pairs]


def test_union_lcs_paper_example():
    # Lin (2004) 3.2 / rouge-score testRougeLsum: w1..w5 vs "w1 w2 w6 w7 w8 / w1 w3 w8 w9 w5"
    ref = [[1, 2, 3, 4, 5]]
    cand = [[1, 2, 6, 7, 8], [1, 3, 8, 9, 5]]
    rows = np.array([0])
    assert union_lcs_hits_batch(*pack_texts([cand]), rows, *pack_texts([ref]), rows).tolist() == [4]


def test_union_lcs_long_sentences():
    rng = np.random.default_rng(5)
    refs = [[rng.integers(0, 6, 150).tolist(), rng.integers(0, 6, 70).tolist()]]
    cands = [[rng.integers(0, 6, 130).tolist()], ]
    rows = np.array([0])
    got = union_lcs_hits_batch(*pack_texts(refs), rows, *pack_texts(cands), rows)
    assert got.tolist() == [summary_hits(refs[0], cands[0])]


@st.composite
def many_sentence_texts(draw):
    """Texts of up to six sentences over a few tokens (ties in every table), some one token
    long, some past one word of 64 (the spare-row and multi-word paths)."""
    alphabet = draw(st.sampled_from([1, 2, 3, 5, 40]))
    sentence = st.lists(st.integers(0, alphabet - 1), min_size=1, max_size=draw(st.sampled_from([1, 12, 75])))
    return draw(st.lists(sentence, max_size=6)), draw(st.lists(sentence, max_size=6))


@settings(max_examples=200, deadline=None)
@given(st.lists(many_sentence_texts(), min_size=1, max_size=3), st.sampled_from([0, 2, 16, 100]))
def test_union_lcs_under_a_small_budget_matches_the_full_table_and_reference(lsum_budget, pairs, budget):
    """A budget below the table's size stores checkpoints only (budget 0: two columns a level,
    the deepest recursion) and keeps rare tokens' match rows as position lists; same hits as the
    whole table and as the plain-Python backtrace."""
    refs, cands = zip(*pairs)
    rows = np.arange(len(pairs), dtype=np.int64)
    args = (*pack_texts(refs), rows, *pack_texts(cands), rows, 1)
    whole = union_lcs_hits_batch(*args).tolist()
    with lsum_budget(budget):
        bounded = union_lcs_hits_batch(*args).tolist()
    assert bounded == whole == [summary_hits(r, c) for r, c in pairs]


def test_union_lcs_long_sentences_under_a_small_budget(lsum_budget):
    """Sentences of hundreds of tokens over three tokens under budgets that need two, three and
    more levels of checkpoints: the same hits as the whole table."""
    rng = np.random.default_rng(7)
    refs = [[rng.integers(0, 3, 900).tolist(), rng.integers(0, 3, 40).tolist()]]
    cands = [[rng.integers(0, 3, 1300).tolist(), rng.integers(0, 3, 5).tolist()]]
    rows = np.array([0])
    args = (*pack_texts(refs), rows, *pack_texts(cands), rows)
    whole = union_lcs_hits_batch(*args).tolist()
    assert whole == [summary_hits(refs[0], cands[0])]
    for budget in (0, 30, 200, 2000):
        with lsum_budget(budget):
            assert union_lcs_hits_batch(*args).tolist() == whole, budget


# ---------------------------------------------------------------- n-gram counts
@st.composite
def ngram_tasks(draw):
    alphabet = draw(st.sampled_from([1, 2, 3, 20]))
    hyp = draw(token_lists(alphabet, 40))
    refs = draw(st.lists(token_lists(alphabet, 40), max_size=4))
    return hyp, refs


def run_ngrams(tasks, max_order, n_jobs=1):
    hyps = [h for h, _ in tasks]
    refs = [r for _, rs in tasks for r in rs]
    groups = np.zeros(len(tasks) + 1, dtype=np.int64)
    groups[1:] = np.cumsum([len(rs) for _, rs in tasks])
    h, ho = pack(hyps)
    r, ro = pack(refs)
    return clipped_ngram_matches(h, ho, np.arange(len(hyps), dtype=np.int64), r, ro,
                                 np.arange(len(refs), dtype=np.int64), groups, max_order, n_jobs)


@settings(max_examples=150, deadline=None)
@given(st.lists(ngram_tasks(), min_size=1, max_size=4))
def test_clipped_ngrams_match_counter(tasks):
    got = run_ngrams(tasks, 9)
    expected = [[clipped_reference(h, rs, n) for n in range(1, 10)] for h, rs in tasks]
    assert got.tolist() == expected


def test_clipped_ngrams_long_repeated_text():
    rng = np.random.default_rng(11)
    hyp = rng.integers(0, 3, 1500).tolist()
    refs = [rng.integers(0, 3, 1200).tolist(), hyp[100:900]]
    got = run_ngrams([(hyp, refs)], 9)
    assert got[0].tolist() == [clipped_reference(hyp, refs, n) for n in range(1, 10)]


def test_ngram_totals():
    assert ngram_totals(np.array([0, 1, 3], dtype=np.int64), 3).tolist() == [[0, 0, 0], [1, 0, 0], [3, 2, 1]]


def test_ngram_rejects_bad_groups():
    h, ho = pack([[1, 2]])
    with pytest.raises(ValueError, match="ref_groups"):
        clipped_ngram_matches(h, ho, np.array([0]), h, ho, np.array([0]), np.array([0]), 2)
    with pytest.raises(ValueError, match="max_order"):
        clipped_ngram_matches(h, ho, np.array([0]), h, ho, np.array([0]), np.array([0, 1]), 0)
    # a group running past the references, with the last entry right: checked before any is read
    two = np.array([0, 0])
    with pytest.raises(ValueError, match="ref_groups must be non-decreasing"):
        clipped_ngram_matches(h, ho, two, h, ho, two, np.array([0, 100, 2]), 2)
    with pytest.raises(ValueError, match="references: token ids must be non-negative"):
        clipped_ngram_matches(h, ho, np.array([0]), np.array([1, -2], np.int32), ho, np.array([0]),
                              np.array([0, 1]), 2)
    with pytest.raises(ValueError, match="hypotheses: row index out of range"):
        clipped_ngram_matches(h, ho, np.array([1]), h, ho, np.array([0]), np.array([0, 1]), 2)
    with pytest.raises(ValueError, match="hypotheses: offsets must be non-decreasing"):
        clipped_ngram_matches(h, np.array([0, 2, 1, 2]), np.array([0]), h, ho, np.array([0]), np.array([0, 1]), 2)


# ---------------------------------------------------------------- threads
def random_batch(seed, n=400):
    rng = np.random.default_rng(seed)
    A = [rng.integers(0, 40, rng.integers(0, 150)).tolist() for _ in range(n)]
    B = [rng.integers(0, 40, rng.integers(0, 150)).tolist() for _ in range(n)]
    return A, B


def test_results_do_not_depend_on_n_jobs():
    A, B = random_batch(1)
    assert np.array_equal(run_lcs(A, B, 1), run_lcs(A, B, 2))
    tasks = [(a, [b, a[::-1]]) for a, b in zip(A, B)]
    assert np.array_equal(run_ngrams(tasks, 4, 1), run_ngrams(tasks, 4, 2))
    texts_a = [[a[:50], a[50:]] for a in A]
    texts_b = [[b[:70], b[70:]] for b in B]
    rows = np.arange(len(A), dtype=np.int64)
    one = union_lcs_hits_batch(*pack_texts(texts_a), rows, *pack_texts(texts_b), rows, 1)
    two = union_lcs_hits_batch(*pack_texts(texts_a), rows, *pack_texts(texts_b), rows, 2)
    assert np.array_equal(one, two)


def test_concurrent_python_threads_agree():
    A, B = random_batch(2)
    expected = run_lcs(A, B, 1)
    results = [None] * 6
    errors = []

    def work(slot):
        try:
            results[slot] = run_lcs(A, B, 2)
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(np.array_equal(r, expected) for r in results)


def test_sparse_large_ids_are_renumbered_not_tabled():
    # ids near 2**31 (hashes) must not size per-thread tables by the largest id
    rng = np.random.default_rng(4)
    A = [rng.integers(2**31 - 50, 2**31 - 1, 80).tolist() for _ in range(3)]
    B = [rng.integers(2**31 - 50, 2**31 - 1, 90).tolist() for _ in range(3)]
    assert run_lcs(A, B).tolist() == [dp_lcs(a, b) for a, b in zip(A, B)]
    texts_a = [[a[:30], a[30:]] for a in A]
    texts_b = [[b] for b in B]
    rows = np.arange(3, dtype=np.int64)
    got = union_lcs_hits_batch(*pack_texts(texts_a), rows, *pack_texts(texts_b), rows)
    assert got.tolist() == [summary_hits(a, b) for a, b in zip(texts_a, texts_b)]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcd é😀", max_size=150), st.text(alphabet="abcd é😀", max_size=150))
def test_char_lcs_length_matches_dp(a, b):
    """One pair of strings over code points: one word and several words, empty, astral chars."""
    assert char_lcs_length(a, b) == dp_lcs(list(a), list(b)) == char_lcs_length(b, a)


def test_char_lcs_length_reuses_its_scratch_across_alphabets():
    big = "".join(chr(0x4E00 + i) for i in range(300))  # more distinct characters than before
    assert char_lcs_length("abc", "abc") == 3
    assert char_lcs_length(big, big[::2]) == 150
    assert char_lcs_length("xay", "a") == 1
    with pytest.raises(TypeError):
        char_lcs_length(None, "a")
