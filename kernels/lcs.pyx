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
def _check_packed(ids, offsets, rows, vocab_size, name):
    if offsets.shape[0] < 1 or offsets[0] != 0 or offsets[offsets.shape[0] - 1] != ids.shape[0]:
        raise ValueError(f"{name}: offsets must start at 0 and end at len(ids)")
    if offsets.shape[0] > 1 and np.any(np.diff(offsets) < 0):
        raise ValueError(f"{name}: offsets must be non-decreasing")
    if ids.shape[0] and (np.min(ids) < 0 or np.max(ids) >= vocab_size):
        raise ValueError(f"{name}: token ids must lie in [0, vocab_size={vocab_size})")
    if rows.shape[0] and (np.min(rows) < 0 or np.max(rows) >= offsets.shape[0] - 1):
        raise ValueError(f"{name}: row index out of range [0, {offsets.shape[0] - 1})")


def _vocab_size(*id_arrays):
    return max([int(np.max(a)) + 1 if a.shape[0] else 0 for a in id_arrays] + [1])


def lcs_lengths(const int32_t[::1] a_ids not None, const int64_t[::1] a_offsets not None,
                const int64_t[::1] a_rows not None,
                const int32_t[::1] b_ids not None, const int64_t[::1] b_offsets not None,
                const int64_t[::1] b_rows not None, int n_jobs=1):
    """LCS length of row ``a_rows[k]`` of packed A against row ``b_rows[k]`` of packed B, for
    every k. Ids must be dense non-negative ints (as a Vocabulary produces); returns int64[K]."""
    cdef Py_ssize_t K = a_rows.shape[0], k
    if b_rows.shape[0] != K:
        raise ValueError(f"a_rows has {K} pairs but b_rows has {b_rows.shape[0]}")
    cdef Py_ssize_t vocab = _vocab_size(np.asarray(a_ids), np.asarray(b_ids))
    _check_packed(np.asarray(a_ids), np.asarray(a_offsets), np.asarray(a_rows), vocab, "a")
    _check_packed(np.asarray(b_ids), np.asarray(b_offsets), np.asarray(b_rows), vocab, "b")
    out = np.empty(K, dtype=np.int64)
    cdef int64_t[::1] res = out
    cdef Scratch* s = NULL
    cdef int threads = max(1, min(n_jobs, K))
    with nogil, parallel(num_threads=threads):
        s = scratch_new(vocab)
        for k in prange(K, schedule="dynamic", chunksize=64):
            if s == NULL:
                res[k] = -1
            else:
                res[k] = lcs_length(&a_ids[a_offsets[a_rows[k]]],
                                    a_offsets[a_rows[k] + 1] - a_offsets[a_rows[k]],
                                    &b_ids[b_offsets[b_rows[k]]],
                                    b_offsets[b_rows[k] + 1] - b_offsets[b_rows[k]], s)
        scratch_free(s)
    if K and np.min(out) < 0:
        raise MemoryError("out of memory in the LCS kernel")
    return out


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
    cdef Py_ssize_t K = ref_rows.shape[0], k
    if cand_rows.shape[0] != K:
        raise ValueError(f"ref_rows has {K} pairs but cand_rows has {cand_rows.shape[0]}")
    cdef Py_ssize_t vocab = _vocab_size(np.asarray(ref_ids), np.asarray(cand_ids))
    _check_packed(np.asarray(ref_ids), np.asarray(ref_tok_offsets), np.empty(0, np.int64), vocab, "ref sentences")
    _check_packed(np.asarray(cand_ids), np.asarray(cand_tok_offsets), np.empty(0, np.int64), vocab, "cand sentences")
    _check_texts(np.asarray(ref_sent_offsets), np.asarray(ref_tok_offsets), np.asarray(ref_rows), "ref")
    _check_texts(np.asarray(cand_sent_offsets), np.asarray(cand_tok_offsets), np.asarray(cand_rows), "cand")
    out = np.empty(K, dtype=np.int64)
    cdef int64_t[::1] res = out
    cdef Scratch* s = NULL
    cdef int threads = max(1, min(n_jobs, K))
    with nogil, parallel(num_threads=threads):
        s = scratch_new(vocab)
        for k in prange(K, schedule="dynamic", chunksize=16):
            if s == NULL:
                res[k] = -1
            else:
                res[k] = union_lcs_hits(&ref_ids[0] if ref_ids.shape[0] else NULL, &ref_tok_offsets[0],
                                        ref_sent_offsets[ref_rows[k]], ref_sent_offsets[ref_rows[k] + 1],
                                        &cand_ids[0] if cand_ids.shape[0] else NULL, &cand_tok_offsets[0],
                                        cand_sent_offsets[cand_rows[k]], cand_sent_offsets[cand_rows[k] + 1], s)
        scratch_free(s)
    if K and np.min(out) < 0:
        raise MemoryError("out of memory in the rougeLsum kernel")
    return out


def _check_texts(sent_offsets, tok_offsets, rows, name):
    if sent_offsets.shape[0] < 1 or sent_offsets[0] != 0 or sent_offsets[sent_offsets.shape[0] - 1] != tok_offsets.shape[0] - 1:
        raise ValueError(f"{name}: sentence offsets must start at 0 and end at the number of sentences")
    if np.any(np.diff(sent_offsets) < 0):
        raise ValueError(f"{name}: sentence offsets must be non-decreasing")
    if rows.shape[0] and (np.min(rows) < 0 or np.max(rows) >= sent_offsets.shape[0] - 1):
        raise ValueError(f"{name}: text row index out of range [0, {sent_offsets.shape[0] - 1})")
