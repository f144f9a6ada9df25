# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Bit-parallel longest common subsequence kernels over packed token ids.

Hyyro's (2004) recurrence ``U = V & M[t]; V = (V + U) | (V - U)`` with one machine word when the
pattern (the shorter sequence) has at most 64 tokens, and blocks of words with a carry chain
beyond. Token ids are dense (``0 <= id < vocab_size``), so match vectors are looked up in a table
indexed by id that each thread owns and clears after every pair (no hashing on the hot path).

Also the summary-level union LCS of rouge-score's rougeLsum, with its exact tie-breaking
(``_backtrack_norec``) and per-token count clipping. All batch calls release the GIL and spread
the pairs over ``n_jobs`` OpenMP threads; results do not depend on ``n_jobs``.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int32_t, int64_t, uint64_t

include "_lcs_core.pxi"
include "_packed_checks.pxi"

# ---------------------------------------------------------------- Python-callable batch API
cdef enum PairKind:
    LCS_OF_ROWS
    UNION_HITS_OF_TEXTS


ctypedef struct PairBatch:
    PairKind kind
    const int32_t* a_ids
    const int64_t* a_tok_offsets
    const int64_t* a_sent_offsets   # texts as runs of sentences (union hits only)
    const int64_t* a_rows
    const int32_t* b_ids
    const int64_t* b_tok_offsets
    const int64_t* b_sent_offsets
    const int64_t* b_rows


cdef inline int64_t pair_task(const PairBatch* p, Py_ssize_t k, Scratch* s) noexcept nogil:
    cdef int64_t a = p.a_rows[k], b = p.b_rows[k]
    if p.kind == LCS_OF_ROWS:
        return lcs_length(&p.a_ids[p.a_tok_offsets[a]], p.a_tok_offsets[a + 1] - p.a_tok_offsets[a],
                          &p.b_ids[p.b_tok_offsets[b]], p.b_tok_offsets[b + 1] - p.b_tok_offsets[b], s)
    return union_lcs_hits(p.a_ids, p.a_tok_offsets, p.a_sent_offsets[a], p.a_sent_offsets[a + 1],
                          p.b_ids, p.b_tok_offsets, p.b_sent_offsets[b], p.b_sent_offsets[b + 1], s)


cdef void run_pairs(const PairBatch* p, int64_t* res, Py_ssize_t K, Py_ssize_t vocab,
                    int threads) noexcept nogil:
    """Every pair on ``threads`` OpenMP threads, each with its own scratch; -1 marks no memory."""
    cdef Scratch* s = NULL
    cdef Py_ssize_t k
    with parallel(num_threads=threads):
        s = scratch_new(vocab)
        for k in prange(K, schedule="dynamic", chunksize=16):
            if s == NULL:
                res[k] = -1
            else:
                res[k] = pair_task(p, k, s)
        scratch_free(s)


cdef inline const int32_t* ids_ptr(const int32_t[::1] ids) noexcept:
    return &ids[0] if ids.shape[0] else NULL


cdef object _run_batch(PairBatch* batch, Py_ssize_t K, Py_ssize_t vocab, int n_jobs, what):
    out = np.empty(K, dtype=np.int64)
    cdef int64_t[::1] res = out
    cdef int threads = max(1, min(n_jobs, K))
    if K:
        with nogil:
            run_pairs(batch, &res[0], K, vocab, threads)
        if any_negative(res):
            raise MemoryError(f"out of memory in the {what} kernel")
    return out


def _dense_ids(a, b, highest):
    """(a, b, vocab_size) with ids dense enough for the per-thread tables indexed by id (``highest``:
    the largest id of the two): sparse ids (e.g. hashes) far above the number of tokens are
    renumbered together first."""
    vocab = highest + 1 if highest >= 0 else 1
    if vocab <= 4 * (a.shape[0] + b.shape[0]) + 65536:
        return a, b, vocab
    uniq, dense = np.unique(np.concatenate([np.asarray(a), np.asarray(b)]), return_inverse=True)
    dense = dense.astype(np.int32).reshape(-1)
    return dense[: a.shape[0]], dense[a.shape[0] :], max(len(uniq), 1)


def _check_pair_count(a_rows, b_rows, a_name, b_name):
    if b_rows.shape[0] != a_rows.shape[0]:
        raise ValueError(f"{a_name} has {a_rows.shape[0]} pairs but {b_name} has {b_rows.shape[0]}")


def lcs_lengths(const int32_t[::1] a_ids not None, const int64_t[::1] a_offsets not None,
                const int64_t[::1] a_rows not None,
                const int32_t[::1] b_ids not None, const int64_t[::1] b_offsets not None,
                const int64_t[::1] b_rows not None, int n_jobs=1):
    """LCS length of row ``a_rows[k]`` of packed A against row ``b_rows[k]`` of packed B, for
    every k. Ids are non-negative int32 (a Vocabulary's dense ids are fastest; sparse ids such as
    hashes are renumbered first); returns int64[K]."""
    _check_pair_count(a_rows, b_rows, "a_rows", "b_rows")
    cdef int64_t highest = max(checked_max_id(a_ids, a_offsets, a_rows, "a"), checked_max_id(b_ids, b_offsets, b_rows, "b"))
    a_ids, b_ids, vocab = _dense_ids(a_ids, b_ids, highest)
    cdef PairBatch batch
    batch.kind = LCS_OF_ROWS
    batch.a_ids, batch.a_tok_offsets, batch.a_sent_offsets = ids_ptr(a_ids), &a_offsets[0], NULL
    batch.b_ids, batch.b_tok_offsets, batch.b_sent_offsets = ids_ptr(b_ids), &b_offsets[0], NULL
    batch.a_rows = &a_rows[0] if a_rows.shape[0] else NULL
    batch.b_rows = &b_rows[0] if b_rows.shape[0] else NULL
    return _run_batch(&batch, a_rows.shape[0], vocab, n_jobs, "LCS")


def union_lcs_hits_batch(const int32_t[::1] ref_ids not None, const int64_t[::1] ref_tok_offsets not None,
                         const int64_t[::1] ref_sent_offsets not None, const int64_t[::1] ref_rows not None,
                         const int32_t[::1] cand_ids not None, const int64_t[::1] cand_tok_offsets not None,
                         const int64_t[::1] cand_sent_offsets not None, const int64_t[::1] cand_rows not None,
                         int n_jobs=1):
    """rougeLsum hits of reference text ``ref_rows[k]`` against candidate text ``cand_rows[k]``.

    A text is a run of sentences: text i of the references holds sentences
    ``ref_sent_offsets[i] .. ref_sent_offsets[i + 1] - 1``, sentence s holds tokens
    ``ref_ids[ref_tok_offsets[s]:ref_tok_offsets[s + 1]]``; the same for candidates.
    Precision = hits / candidate tokens, recall = hits / reference tokens (rouge-score)."""
    _check_pair_count(ref_rows, cand_rows, "ref_rows", "cand_rows")
    cdef int64_t highest = max(checked_max_id(ref_ids, ref_tok_offsets, ref_tok_offsets[:0], "ref sentences"),
                               checked_max_id(cand_ids, cand_tok_offsets, cand_tok_offsets[:0], "cand sentences"))
    ref_ids, cand_ids, vocab = _dense_ids(ref_ids, cand_ids, highest)
    _check_texts(ref_sent_offsets, ref_tok_offsets, ref_rows, "ref")
    _check_texts(cand_sent_offsets, cand_tok_offsets, cand_rows, "cand")
    cdef PairBatch batch
    batch.kind = UNION_HITS_OF_TEXTS
    batch.a_ids, batch.a_tok_offsets, batch.a_sent_offsets = ids_ptr(ref_ids), &ref_tok_offsets[0], &ref_sent_offsets[0]
    batch.b_ids, batch.b_tok_offsets, batch.b_sent_offsets = ids_ptr(cand_ids), &cand_tok_offsets[0], &cand_sent_offsets[0]
    batch.a_rows = &ref_rows[0] if ref_rows.shape[0] else NULL
    batch.b_rows = &cand_rows[0] if cand_rows.shape[0] else NULL
    return _run_batch(&batch, ref_rows.shape[0], vocab, n_jobs, "rougeLsum")


def _set_lsum_budget_words(Py_ssize_t words):
    """Set how many 8-byte words of table columns and of dense match rows one rougeLsum pair may
    hold (``lsum_budget_words`` in _lcs_core.pxi; beyond, the checkpointed table and position
    lists take over) and return the previous value. For tests: a tiny budget sends small inputs
    down the large-input paths."""
    global lsum_budget_words
    previous = lsum_budget_words
    lsum_budget_words = max(words, 0)
    return previous


cdef int _check_texts(const int64_t[::1] sent_offsets, const int64_t[::1] tok_offsets, const int64_t[::1] rows,
                      str name) except -1:
    cdef Py_ssize_t n_texts = sent_offsets.shape[0] - 1, k
    if n_texts < 0 or sent_offsets[0] != 0 or sent_offsets[n_texts] != tok_offsets.shape[0] - 1:
        raise ValueError(f"{name}: sentence offsets must start at 0 and end at the number of sentences")
    for k in range(n_texts):
        if sent_offsets[k + 1] < sent_offsets[k]:
            raise ValueError(f"{name}: sentence offsets must be non-decreasing")
    for k in range(rows.shape[0]):
        if not 0 <= rows[k] < n_texts:
            raise ValueError(f"{name}: text row index out of range [0, {n_texts})")
    return 0


# ---------------------------------------------------------------- one pair of strings
# Pairs scored one at a time (EXAM's fuzzy answer check) would pay more for a batch call's set-up
# than for the pair itself. This runs on the calling thread and keeps the GIL throughout, so one
# scratch serves every Python thread in turn.
cdef Scratch* _char_scratch = NULL


def char_lcs_length(str a not None, str b not None):
    """LCS length of two strings over their code points."""
    global _char_scratch
    if len(a) > len(b):
        a, b = b, a
    ids = {}  # the shorter string's characters, numbered densely; others share one absent id
    a_ids = np.fromiter([ids.setdefault(c, len(ids)) for c in a], np.int32, len(a))
    absent = len(ids)
    b_ids = np.fromiter([ids.get(c, absent) for c in b], np.int32, len(b))
    cdef const int32_t[::1] av = a_ids
    cdef const int32_t[::1] bv = b_ids
    if _char_scratch == NULL:
        _char_scratch = scratch_new(absent + 1)
    elif scratch_fit_vocab(_char_scratch, absent + 1) != 0:
        scratch_free(_char_scratch)
        _char_scratch = NULL
    if _char_scratch == NULL:
        raise MemoryError()
    cdef int64_t result = lcs_length(ids_ptr(av), av.shape[0], ids_ptr(bv), bv.shape[0], _char_scratch)
    if result < 0:
        scratch_free(_char_scratch)  # its buffers may be half grown
        _char_scratch = NULL
        raise MemoryError()
    return result
