# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Clipped n-gram match counts (orders 1 .. max_order) and document frequencies over packed token ids.

For a hypothesis h and references r_1 .. r_K the count of order n is
``sum over n-grams g of h: min(count_h(g), max_k count_{r_k}(g))`` -- rouge-score's overlap when
K == 1 and BLEU's clipped count for several references.

N-grams are interned exactly, order by order: the id of the n-gram at position i is the dense id
of the pair (id of the (n-1)-gram at i, token i + n - 1), looked up in an open-addressing table
keyed by that pair packed in 64 bits. Only hypothesis n-grams enter the table; a reference
n-gram that is absent stays dead for every higher order. No hashing of n-gram contents, so no
collisions are possible.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free

include "_ngram_core.pxi"
include "_packed_checks.pxi"


def clipped_ngram_matches(const int32_t[::1] hyp_ids not None, const int64_t[::1] hyp_offsets not None,
                          const int64_t[::1] hyp_rows not None,
                          const int32_t[::1] ref_ids not None, const int64_t[::1] ref_offsets not None,
                          const int64_t[::1] ref_rows not None, const int64_t[::1] ref_groups not None,
                          int max_order, int n_jobs=1):
    """Clipped n-gram match counts of hypothesis row ``hyp_rows[k]`` against the reference rows
    ``ref_rows[ref_groups[k]:ref_groups[k + 1]]``, for orders 1 .. max_order.

    Returns int64[K, max_order]. With one reference per task this is rouge-score's overlap
    ``sum min(count_target, count_prediction)``; with several it is BLEU's clipping by the maximum
    reference count. Ids must be non-negative int32."""
    cdef Py_ssize_t K = hyp_rows.shape[0], k
    if max_order < 1:
        raise ValueError(f"max_order must be >= 1, got {max_order}")
    if ref_groups.shape[0] != K + 1:
        raise ValueError(f"ref_groups must have len(hyp_rows) + 1 = {K + 1} entries, got {ref_groups.shape[0]}")
    checked_max_id(hyp_ids, hyp_offsets, hyp_rows, "hypotheses")
    checked_max_id(ref_ids, ref_offsets, ref_rows, "references")
    cdef bint groups_ok = ref_groups[0] == 0 and ref_groups[K] == ref_rows.shape[0]
    for k in range(K):
        groups_ok &= ref_groups[k + 1] >= ref_groups[k]
    if not groups_ok:  # checked whole before any group is read
        raise ValueError("ref_groups must be non-decreasing from 0 to len(ref_rows)")
    cdef Py_ssize_t max_refs_total = 0, total, r
    for k in range(K):  # the most reference tokens one task holds
        total = 0
        for r in range(ref_groups[k], ref_groups[k + 1]):
            total += ref_offsets[ref_rows[r] + 1] - ref_offsets[ref_rows[r]]
        max_refs_total = max(max_refs_total, total)
    out = np.zeros((K, max_order), dtype=np.int64)
    if K == 0:
        return out
    cdef int64_t[:, ::1] res = out
    cdef Py_ssize_t max_hyp = longest_row(hyp_offsets, hyp_rows)
    cdef Py_ssize_t cap = 16
    while cap < 2 * max_hyp:
        cap <<= 1
    cdef NgramScratch* s = NULL
    cdef int threads = max(1, min(n_jobs, K))
    with nogil, parallel(num_threads=threads):
        s = ngram_scratch_new(max_hyp, max_refs_total, cap)
        for k in prange(K, schedule="dynamic", chunksize=64):
            if s == NULL:
                res[k, 0] = -1
            else:
                clipped_matches(&hyp_ids[hyp_offsets[hyp_rows[k]]] if hyp_ids.shape[0] else NULL,
                                hyp_offsets[hyp_rows[k] + 1] - hyp_offsets[hyp_rows[k]],
                                &ref_ids[0] if ref_ids.shape[0] else NULL, &ref_offsets[0],
                                &ref_rows[ref_groups[k]] if ref_rows.shape[0] else NULL,
                                ref_groups[k + 1] - ref_groups[k], max_order, &res[k, 0], s)
        ngram_scratch_free(s)
    for k in range(K):
        if res[k, 0] < 0:
            raise MemoryError("out of memory in the n-gram kernel")
    return out


def ngram_totals(const int64_t[::1] lengths not None, int max_order):
    """Number of n-grams of each order 1 .. max_order in texts of the given lengths: int64[K, max_order]."""
    orders = np.arange(1, max_order + 1, dtype=np.int64)
    return np.maximum(np.asarray(lengths)[:, None] - orders[None, :] + 1, 0)


def document_frequency(const int32_t[:] ids not None, const int64_t[:] offsets not None, Py_ssize_t n_terms):
    """Number of rows holding each id: int64[n_terms], row r being ``ids[offsets[r]:offsets[r + 1]]``
    (ids in 0..n_terms-1, each counted once per row). The one document-frequency kernel: EXAM's
    idf over paragraphs and the nugget scorers' idf over responses both come here (through
    exam_lexical and nugget_recall, which re-export it)."""
    df_np = np.zeros(n_terms, dtype=np.int64)
    cdef int64_t[::1] df = df_np
    cdef int64_t* last = <int64_t*>calloc(n_terms + 1, sizeof(int64_t))  # 1 + the last row seen
    if last == NULL:
        raise MemoryError()
    cdef Py_ssize_t r, i
    cdef int32_t t
    with nogil:
        for r in range(offsets.shape[0] - 1):
            for i in range(offsets[r], offsets[r + 1]):
                t = ids[i]
                if last[t] != r + 1:  # first time in this row
                    last[t] = r + 1
                    df[t] += 1
    free(last)
    return df_np


def segment_clipped_matches(bytes ids not None, list lengths not None, int max_order):
    """Clipped n-gram match counts (orders 1 .. max_order, a list of ints) of row 0 against rows
    1 .. R-1 of one segment, given as the native int32 ids of its rows back to back (``bytes``)
    and the length of each row: :func:`clipped_ngram_matches` for a sentence-level call, without
    arrays, index checks of a batch or threads (their fixed cost is most of such a call)."""
    cdef Py_ssize_t n_rows = len(lengths), k, n_ids = len(ids) // sizeof(int32_t), lh, max_refs_total
    cdef const int32_t* p = <const int32_t*><const char*>ids
    cdef int64_t* offsets = NULL
    cdef int64_t* rows = NULL
    cdef int64_t* out = NULL
    cdef NgramScratch* s = NULL
    cdef Py_ssize_t cap = 16
    if max_order < 1:
        raise ValueError(f"max_order must be >= 1, got {max_order}")
    if n_rows < 2:
        raise ValueError("a segment needs a hypothesis row and at least one reference row")
    if len(ids) % sizeof(int32_t):
        raise ValueError("ids must hold whole int32 values")
    try:
        offsets = <int64_t*>malloc((n_rows + 1) * sizeof(int64_t))
        rows = <int64_t*>malloc(n_rows * sizeof(int64_t))
        out = <int64_t*>calloc(max_order, sizeof(int64_t))
        if offsets == NULL or rows == NULL or out == NULL:
            raise MemoryError()
        offsets[0] = 0
        for k in range(n_rows):
            length = lengths[k]
            if length < 0:
                raise ValueError("row lengths must be non-negative")
            offsets[k + 1] = offsets[k] + <Py_ssize_t>length
            rows[k] = k + 1
        if offsets[n_rows] != n_ids:
            raise ValueError(f"the row lengths add up to {offsets[n_rows]} ids but there are {n_ids}")
        for k in range(n_ids):
            if p[k] < 0:
                raise ValueError("token ids must be non-negative")
        lh = offsets[1]
        max_refs_total = offsets[n_rows] - lh
        while cap < 2 * lh:
            cap <<= 1
        s = ngram_scratch_new(lh, max_refs_total, cap)
        if s == NULL:
            raise MemoryError("out of memory in the n-gram kernel")
        clipped_matches(p, lh, p, offsets, rows, n_rows - 1, max_order, out, s)
        return [out[k] for k in range(max_order)]
    finally:
        ngram_scratch_free(s)
        free(offsets)
        free(rows)
        free(out)
