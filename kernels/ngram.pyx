# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Clipped n-gram match counts (orders 1 .. max_order) over packed token ids.

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

include "_ngram_core.pxi"


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
    hyp_len = _check_packed(np.asarray(hyp_ids), np.asarray(hyp_offsets), np.asarray(hyp_rows), "hypotheses")
    ref_len = _check_packed(np.asarray(ref_ids), np.asarray(ref_offsets), np.asarray(ref_rows), "references")
    groups = np.asarray(ref_groups)
    if groups[0] != 0 or groups[K] != ref_rows.shape[0] or np.any(np.diff(groups) < 0):
        raise ValueError("ref_groups must be non-decreasing from 0 to len(ref_rows)")
    out = np.zeros((K, max_order), dtype=np.int64)
    if K == 0:
        return out
    cdef int64_t[:, ::1] res = out
    lengths_per_task = np.add.reduceat(np.append(ref_len[np.asarray(ref_rows)], 0), groups[:K]) \
        if ref_rows.shape[0] else np.zeros(K, dtype=np.int64)
    lengths_per_task = np.where(np.diff(groups) > 0, lengths_per_task, 0)
    cdef Py_ssize_t max_hyp = int(hyp_len[np.asarray(hyp_rows)].max())
    cdef Py_ssize_t max_refs_total = int(lengths_per_task.max())
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
    if np.min(out[:, 0]) < 0:
        raise MemoryError("out of memory in the n-gram kernel")
    return out


def ngram_totals(const int64_t[::1] lengths not None, int max_order):
    """Number of n-grams of each order 1 .. max_order in texts of the given lengths: int64[K, max_order]."""
    orders = np.arange(1, max_order + 1, dtype=np.int64)
    return np.maximum(np.asarray(lengths)[:, None] - orders[None, :] + 1, 0)


def _check_packed(ids, offsets, rows, name):
    """Validate packed rows once at the boundary; returns the row lengths."""
    if offsets.shape[0] < 1 or offsets[0] != 0 or offsets[offsets.shape[0] - 1] != ids.shape[0]:
        raise ValueError(f"{name}: offsets must start at 0 and end at len(ids)")
    lengths = np.diff(offsets)
    if np.any(lengths < 0):
        raise ValueError(f"{name}: offsets must be non-decreasing")
    if ids.shape[0] and np.min(ids) < 0:
        raise ValueError(f"{name}: token ids must be non-negative")
    if rows.shape[0] and (np.min(rows) < 0 or np.max(rows) >= offsets.shape[0] - 1):
        raise ValueError(f"{name}: row index out of range [0, {offsets.shape[0] - 1})")
    return lengths
