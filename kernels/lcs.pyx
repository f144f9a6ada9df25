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
        if np.min(out) < 0:
            raise MemoryError(f"out of memory in the {what} kernel")
    return out


def _check_packed(ids, offsets, rows, vocab_size, name):
    if offsets.shape[0] < 1 or offsets[0] != 0 or offsets[offsets.shape[0] - 1] != ids.shape[0]:
        raise ValueError(f"{name}: offsets must start at 0 and end at len(ids)")
    if offsets.shape[0] > 1 and np.any(np.diff(offsets) < 0):
        raise ValueError(f"{name}: offsets must be non-decreasing")
    if ids.shape[0] and (np.min(ids) < 0 or np.max(ids) >= vocab_size):
        raise ValueError(f"{name}: token ids must lie in [0, vocab_size={vocab_size})")
    if rows.shape[0] and (np.min(rows) < 0 or np.max(rows) >= offsets.shape[0] - 1):
        raise ValueError(f"{name}: row index out of range [0, {offsets.shape[0] - 1})")


def _dense_ids(a, b):
    """(a, b, vocab_size) with ids dense enough for the per-thread tables indexed by id: sparse
    ids (e.g. hashes) far above the number of tokens are renumbered together first."""
    vocab = max([int(np.max(x)) + 1 if x.shape[0] else 0 for x in (a, b)] + [1])
    if vocab <= 4 * (a.shape[0] + b.shape[0]) + 65536 or (a.shape[0] and np.min(a) < 0) or (b.shape[0] and np.min(b) < 0):
        return a, b, vocab  # negative ids are left for _check_packed to report
    uniq, dense = np.unique(np.concatenate([a, b]), return_inverse=True)
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
    a_dense, b_dense, vocab = _dense_ids(np.asarray(a_ids), np.asarray(b_ids))
    a_ids, b_ids = a_dense, b_dense
    _check_packed(np.asarray(a_ids), np.asarray(a_offsets), np.asarray(a_rows), vocab, "a")
    _check_packed(np.asarray(b_ids), np.asarray(b_offsets), np.asarray(b_rows), vocab, "b")
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
    ref_dense, cand_dense, vocab = _dense_ids(np.asarray(ref_ids), np.asarray(cand_ids))
    ref_ids, cand_ids = ref_dense, cand_dense
    _check_packed(np.asarray(ref_ids), np.asarray(ref_tok_offsets), np.empty(0, np.int64), vocab, "ref sentences")
    _check_packed(np.asarray(cand_ids), np.asarray(cand_tok_offsets), np.empty(0, np.int64), vocab, "cand sentences")
    _check_texts(np.asarray(ref_sent_offsets), np.asarray(ref_tok_offsets), np.asarray(ref_rows), "ref")
    _check_texts(np.asarray(cand_sent_offsets), np.asarray(cand_tok_offsets), np.asarray(cand_rows), "cand")
    cdef PairBatch batch
    batch.kind = UNION_HITS_OF_TEXTS
    batch.a_ids, batch.a_tok_offsets, batch.a_sent_offsets = ids_ptr(ref_ids), &ref_tok_offsets[0], &ref_sent_offsets[0]
    batch.b_ids, batch.b_tok_offsets, batch.b_sent_offsets = ids_ptr(cand_ids), &cand_tok_offsets[0], &cand_sent_offsets[0]
    batch.a_rows = &ref_rows[0] if ref_rows.shape[0] else NULL
    batch.b_rows = &cand_rows[0] if cand_rows.shape[0] else NULL
    return _run_batch(&batch, ref_rows.shape[0], vocab, n_jobs, "rougeLsum")


def _check_texts(sent_offsets, tok_offsets, rows, name):
    if sent_offsets.shape[0] < 1 or sent_offsets[0] != 0 or sent_offsets[sent_offsets.shape[0] - 1] != tok_offsets.shape[0] - 1:
        raise ValueError(f"{name}: sentence offsets must start at 0 and end at the number of sentences")
    if np.any(np.diff(sent_offsets) < 0):
        raise ValueError(f"{name}: sentence offsets must be non-decreasing")
    if rows.shape[0] and (np.min(rows) < 0 or np.max(rows) >= sent_offsets.shape[0] - 1):
        raise ValueError(f"{name}: text row index out of range [0, {sent_offsets.shape[0] - 1})")


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
