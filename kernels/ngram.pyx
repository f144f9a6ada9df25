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
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

cdef uint64_t EMPTY = ~(<uint64_t>0)


ctypedef struct NgramScratch:
    uint64_t* keys      # [cap] open-addressing table over hypothesis n-grams of one order
    int32_t* vals       # [cap] dense n-gram id
    int32_t* hyp_prev   # [max hyp len] id of the (n-1)-gram starting at each hypothesis position
    int32_t* ref_prev   # [max total ref len of a task] same for references, -1 = dead
    int32_t* cnt_hyp    # [max hyp len] count in the hypothesis of each dense id
    int32_t* cnt_ref    # [max hyp len] count in the current reference
    int32_t* cnt_max    # [max hyp len] max count over the references so far


cdef NgramScratch* scratch_new(Py_ssize_t max_hyp, Py_ssize_t max_refs_total, Py_ssize_t cap) noexcept nogil:
    cdef NgramScratch* s = <NgramScratch*>calloc(1, sizeof(NgramScratch))
    if s == NULL:
        return NULL
    s.keys = <uint64_t*>malloc(cap * sizeof(uint64_t))
    s.vals = <int32_t*>malloc(cap * sizeof(int32_t))
    s.hyp_prev = <int32_t*>malloc((max_hyp + 1) * sizeof(int32_t))
    s.ref_prev = <int32_t*>malloc((max_refs_total + 1) * sizeof(int32_t))
    s.cnt_hyp = <int32_t*>calloc(max_hyp + 1, sizeof(int32_t))
    s.cnt_ref = <int32_t*>calloc(max_hyp + 1, sizeof(int32_t))
    s.cnt_max = <int32_t*>calloc(max_hyp + 1, sizeof(int32_t))
    if (s.keys == NULL or s.vals == NULL or s.hyp_prev == NULL or s.ref_prev == NULL
            or s.cnt_hyp == NULL or s.cnt_ref == NULL or s.cnt_max == NULL):
        scratch_free(s)
        return NULL
    return s


cdef void scratch_free(NgramScratch* s) noexcept nogil:
    if s == NULL:
        return
    free(s.keys)
    free(s.vals)
    free(s.hyp_prev)
    free(s.ref_prev)
    free(s.cnt_hyp)
    free(s.cnt_ref)
    free(s.cnt_max)
    free(s)


cdef inline uint64_t pair_key(int32_t prev, int32_t token) noexcept nogil:
    return ((<uint64_t><uint32_t>prev) << 32) | <uint64_t><uint32_t>token


cdef inline Py_ssize_t slot_of(uint64_t key, int shift) noexcept nogil:
    return <Py_ssize_t>((key * <uint64_t>0x9E3779B97F4A7C15) >> shift)


cdef inline int32_t intern(NgramScratch* s, uint64_t key, Py_ssize_t mask, int shift,
                           int32_t* distinct) noexcept nogil:
    cdef Py_ssize_t h = slot_of(key, shift)
    while s.keys[h] != EMPTY:
        if s.keys[h] == key:
            return s.vals[h]
        h = (h + 1) & mask
    s.keys[h] = key
    s.vals[h] = distinct[0]
    distinct[0] += 1
    return s.vals[h]


cdef inline int32_t find(NgramScratch* s, uint64_t key, Py_ssize_t mask, int shift) noexcept nogil:
    cdef Py_ssize_t h = slot_of(key, shift)
    while s.keys[h] != EMPTY:
        if s.keys[h] == key:
            return s.vals[h]
        h = (h + 1) & mask
    return -1


cdef void clipped_matches(const int32_t* hyp, Py_ssize_t lh,
                          const int32_t* ref_ids, const int64_t* ref_offsets,
                          const int64_t* ref_rows, Py_ssize_t n_refs,
                          int max_order, int64_t* out, NgramScratch* s) noexcept nogil:
    """out[n - 1] = clipped match count of order n, for n = 1 .. max_order."""
    cdef Py_ssize_t cap = 16, mask, i, nh, nr, pos, base, r
    cdef int bits = 4, shift, order
    cdef int32_t distinct, d, prev
    cdef int64_t matches
    cdef const int32_t* ref
    while cap < 2 * lh:
        cap <<= 1
        bits += 1
    mask = cap - 1
    shift = 64 - bits
    for i in range(lh):
        s.hyp_prev[i] = 0
    pos = 0
    for r in range(n_refs):
        pos += ref_offsets[ref_rows[r] + 1] - ref_offsets[ref_rows[r]]
    for i in range(pos):
        s.ref_prev[i] = 0
    for order in range(1, max_order + 1):
        out[order - 1] = 0
    for order in range(1, max_order + 1):
        nh = lh - order + 1
        if nh <= 0:
            return
        for i in range(cap):
            s.keys[i] = EMPTY
        distinct = 0
        for i in range(nh):
            d = intern(s, pair_key(s.hyp_prev[i], hyp[i + order - 1]), mask, shift, &distinct)
            s.hyp_prev[i] = d
            s.cnt_hyp[d] += 1
        base = 0
        for r in range(n_refs):
            ref = &ref_ids[ref_offsets[ref_rows[r]]]
            nr = ref_offsets[ref_rows[r] + 1] - ref_offsets[ref_rows[r]] - order + 1
            for i in range(nr):
                prev = s.ref_prev[base + i]
                if prev >= 0:
                    prev = find(s, pair_key(prev, ref[i + order - 1]), mask, shift)
                    s.ref_prev[base + i] = prev
                    if prev >= 0:
                        s.cnt_ref[prev] += 1
            for i in range(nr):
                prev = s.ref_prev[base + i]
                if prev >= 0 and s.cnt_ref[prev] > 0:
                    if s.cnt_ref[prev] > s.cnt_max[prev]:
                        s.cnt_max[prev] = s.cnt_ref[prev]
                    s.cnt_ref[prev] = 0
            # positions i >= nr of this reference start no n-gram of this order: mark them dead
            for i in range(max(nr, 0), ref_offsets[ref_rows[r] + 1] - ref_offsets[ref_rows[r]]):
                s.ref_prev[base + i] = -1
            base += ref_offsets[ref_rows[r] + 1] - ref_offsets[ref_rows[r]]
        matches = 0
        for d in range(distinct):
            matches += s.cnt_hyp[d] if s.cnt_hyp[d] < s.cnt_max[d] else s.cnt_max[d]
            s.cnt_hyp[d] = 0
            s.cnt_max[d] = 0
        out[order - 1] = matches
        if matches == 0:  # every longer matching n-gram would contain a matching one of this order
            return


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
        s = scratch_new(max_hyp, max_refs_total, cap)
        for k in prange(K, schedule="dynamic", chunksize=64):
            if s == NULL:
                res[k, 0] = -1
            else:
                clipped_matches(&hyp_ids[hyp_offsets[hyp_rows[k]]] if hyp_ids.shape[0] else NULL,
                                hyp_offsets[hyp_rows[k] + 1] - hyp_offsets[hyp_rows[k]],
                                &ref_ids[0] if ref_ids.shape[0] else NULL, &ref_offsets[0],
                                &ref_rows[ref_groups[k]] if ref_rows.shape[0] else NULL,
                                ref_groups[k + 1] - ref_groups[k], max_order, &res[k, 0], s)
        scratch_free(s)
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
