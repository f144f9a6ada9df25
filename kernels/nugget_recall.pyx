# cython: language_level=3
"""Idf-weighted n-gram recall of every (response, nugget) pair (Nuggeteer eq. 4, Pourpre overlap).

Token ids are *description ids*: 1..V for tokens that occur in some nugget description, 0 for any
other token (it can match nothing, so it ends every n-gram through it). An n-gram of up to three
ids packs exactly into one int64 key: id1 | id2 << 21 | id3 << 42 (ids < 2**21).

Each question has an open-addressing table (key -> feature). A feature (an n-gram of that
question's descriptions) lists entries (description, weight). For a response the kernel sums the
weights of the *distinct* n-grams it shares with each description, divides by the description's
total weight, and keeps per nugget the best description. Because every prefix of a description
n-gram is itself a description n-gram, a missed prefix ends the scan of longer n-grams there.
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport parallel, prange
from libc.stdlib cimport calloc, free
from libc.stdint cimport int64_t, uint64_t, int32_t

cnp.import_array()

# The shared kernel (ngram.pyx), under the name this module's callers use.
from qascore._kernels.ngram import document_frequency

cdef enum:
    ID_BITS = 21
MAX_ID = (1 << ID_BITS) - 1


# Per-question tables of packed int64 n-gram keys, built once (build_tables) and probed read-only
# by every thread: integer keys with nothing to compare but the key, so neither the byte-string
# intern table (_intern_table.pxi) nor the n-gram kernel's per-pair table (_ngram_core.pxi),
# which is rebuilt per pair and owned by one thread.
cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    # splitmix64 finaliser: spreads packed keys over the table
    x ^= x >> 30
    x *= <uint64_t>0xbf58476d1ce4e5b9
    x ^= x >> 27
    x *= <uint64_t>0x94d049bb133111eb
    x ^= x >> 31
    return x


cdef inline int64_t _lookup(const int64_t* tab_keys, const int32_t* tab_feat,
                            int64_t start, int64_t mask, int64_t key) noexcept nogil:
    # raw pointers: passing memoryviews to a cdef function would touch their reference counts
    cdef int64_t slot = <int64_t>(_mix(<uint64_t>key) & <uint64_t>mask)
    cdef int64_t k
    while True:
        k = tab_keys[start + slot]
        if k == key:
            return tab_feat[start + slot]
        if k == 0:
            return -1
        slot = (slot + 1) & mask


def build_tables(const int64_t[::1] keys, const int32_t[::1] key_question, int n_questions):
    """Hash tables of ``keys`` (feature f = position f; keys distinct within a question, > 0).

    Returns (tab_keys, tab_feat, q_start, q_mask): question q's table is
    ``tab_keys[q_start[q] : q_start[q] + q_mask[q] + 1]`` with load factor <= 1/2.
    """
    cdef Py_ssize_t n = keys.shape[0], i
    counts = np.bincount(np.asarray(key_question), minlength=n_questions).astype(np.int64)
    # power-of-two sizes with load factor <= 1/2
    sizes = np.left_shift(1, np.ceil(np.log2(np.maximum(2 * counts, 1))).astype(np.int64))
    q_start_np = np.zeros(n_questions, dtype=np.int64)
    if n_questions > 1:
        q_start_np[1:] = np.cumsum(sizes)[:-1]
    q_mask_np = sizes - 1
    tab_keys_np = np.zeros(int(sizes.sum()), dtype=np.int64)
    tab_feat_np = np.full(int(sizes.sum()), -1, dtype=np.int32)
    cdef int64_t[::1] tab_keys = tab_keys_np
    cdef int32_t[::1] tab_feat = tab_feat_np
    cdef int64_t[::1] q_start = q_start_np
    cdef int64_t[::1] q_mask = q_mask_np
    cdef int64_t slot, start, mask, key
    cdef int32_t q
    with nogil:
        for i in range(n):
            key = keys[i]
            q = key_question[i]
            start = q_start[q]
            mask = q_mask[q]
            slot = <int64_t>(_mix(<uint64_t>key) & <uint64_t>mask)
            while tab_keys[start + slot] != 0 and tab_keys[start + slot] != key:
                slot = (slot + 1) & mask
            tab_keys[start + slot] = key
            tab_feat[start + slot] = <int32_t>i
    return tab_keys_np, tab_feat_np, q_start_np, q_mask_np


def ngram_recall(
    const int32_t[::1] resp_ids,
    const int64_t[::1] resp_offsets,
    const int32_t[::1] resp_question,
    int n_max,
    const int64_t[::1] tab_keys,
    const int32_t[::1] tab_feat,
    const int64_t[::1] q_tab_start,
    const int64_t[::1] q_tab_mask,
    const int64_t[::1] feat_ptr,
    const int32_t[::1] entry_desc,
    const double[::1] entry_weight,
    const double[::1] desc_total,
    const int32_t[::1] desc_nugget,
    const int32_t[::1] q_desc_start,
    const int32_t[::1] q_nugget_start,
    const int64_t[::1] out_offsets,
    double[::1] out_recall,
    int32_t[::1] out_best_desc,
    int n_threads,
):
    """Fill ``out_recall[out_offsets[r] + j]`` with the best-description recall of nugget j of
    response r's question (global description index in ``out_best_desc``, -1 when none scores)."""
    cdef Py_ssize_t n_resp = resp_offsets.shape[0] - 1
    cdef Py_ssize_t n_feat = feat_ptr.shape[0] - 1
    cdef Py_ssize_t n_q = q_desc_start.shape[0] - 1
    cdef int max_desc = 0
    cdef Py_ssize_t q
    for q in range(n_q):
        if q_desc_start[q + 1] - q_desc_start[q] > max_desc:
            max_desc = q_desc_start[q + 1] - q_desc_start[q]
    if n_max < 1 or n_max > 3:
        raise ValueError("n_max must be 1, 2 or 3")
    if n_resp == 0:
        return
    cdef double* acc = NULL
    cdef int64_t* stamp = NULL
    cdef Py_ssize_t r, i, k, e, pos, end
    cdef int64_t key, f, base
    cdef int32_t qq, ds, de, d, t, j
    cdef double v
    with nogil, parallel(num_threads=n_threads):
        acc = <double*>calloc(max_desc + 1, sizeof(double))
        stamp = <int64_t*>calloc(n_feat + 1, sizeof(int64_t))
        for r in prange(n_resp, schedule="guided"):
            qq = resp_question[r]
            ds = q_desc_start[qq]
            de = q_desc_start[qq + 1]
            for d in range(de - ds):
                acc[d] = 0.0
            pos = resp_offsets[r]
            end = resp_offsets[r + 1]
            for i in range(pos, end):
                key = 0
                for k in range(n_max):
                    if i + k >= end:
                        break
                    t = resp_ids[i + k]
                    if t == 0:
                        break
                    key = key | (<int64_t>t << (ID_BITS * k))
                    f = _lookup(&tab_keys[0], &tab_feat[0], q_tab_start[qq], q_tab_mask[qq], key)
                    if f < 0:
                        break
                    if stamp[f] == r + 1:
                        continue
                    stamp[f] = r + 1
                    for e in range(feat_ptr[f], feat_ptr[f + 1]):
                        acc[entry_desc[e] - ds] += entry_weight[e]
            base = out_offsets[r]
            for j in range(<int32_t>(out_offsets[r + 1] - base)):
                out_recall[base + j] = 0.0
                out_best_desc[base + j] = -1
            for d in range(ds, de):
                if desc_total[d] > 0.0 and acc[d - ds] > 0.0:
                    v = acc[d - ds] / desc_total[d]
                    j = desc_nugget[d] - q_nugget_start[qq]
                    if v > out_recall[base + j]:
                        out_recall[base + j] = v
                        out_best_desc[base + j] = d
        free(acc)
        free(stamp)


def sequence_hashes(const int32_t[::1] ids, const int64_t[::1] offsets):
    """A 64-bit hash of each row's id sequence (equal rows give equal hashes; a prefilter only)."""
    cdef Py_ssize_t n = offsets.shape[0] - 1, r, i
    out_np = np.zeros(n, dtype=np.uint64)
    cdef uint64_t[::1] out = out_np
    cdef uint64_t h
    with nogil:
        for r in range(n):
            h = <uint64_t>(offsets[r + 1] - offsets[r])
            for i in range(offsets[r], offsets[r + 1]):
                h = _mix(h ^ (<uint64_t>ids[i] + <uint64_t>0x9e3779b97f4a7c15))
            out[r] = h
    return out_np
