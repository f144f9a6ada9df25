# cython: language_level=3
"""AVA's four linear-model features over packed token ids (GIL released, rows in parallel).

Per triple i: x1 = is-included(s, t): 1 when some short answer of the triple occurs as a
contiguous token run in t (a triple with no non-empty short answer gets 0); x2 = sim-text(r, t),
x3 = sim-text(r, q), x4 = sim-text(q, t), with sim-text(a, b) = 2 |A & B| / (|A| + |B|) over the
token *sets* A, B (0 when both are empty). Token sets are intersected with per-thread stamp
arrays indexed by token id, so no array is cleared between rows.
"""
from cython.parallel cimport prange, threadid
from libc.stdint cimport int32_t, int64_t
import numpy as np
cimport numpy as cnp


cdef inline double sim_text(const int32_t[:] ids_a, int64_t a0, int64_t a1,
                            const int32_t[:] ids_b, int64_t b0, int64_t b1,
                            int64_t[:] mark_a, int64_t[:] mark_b, int64_t stamp) noexcept nogil:
    cdef int64_t j, tok, unique_a = 0, unique_b = 0, common = 0
    for j in range(a0, a1):
        tok = ids_a[j]
        if mark_a[tok] != stamp:
            mark_a[tok] = stamp
            unique_a += 1
    for j in range(b0, b1):
        tok = ids_b[j]
        if mark_b[tok] != stamp:
            mark_b[tok] = stamp
            unique_b += 1
            if mark_a[tok] == stamp:
                common += 1
    if unique_a + unique_b == 0:
        return 0.0
    return 2.0 * common / (unique_a + unique_b)


cdef inline bint contains_run(const int32_t[:] hay, int64_t h0, int64_t h1,
                              const int32_t[:] needle, int64_t n0, int64_t n1) noexcept nogil:
    cdef int64_t n = n1 - n0, start, k
    if n == 0 or n > h1 - h0:
        return False
    for start in range(h0, h1 - n + 1):
        k = 0
        while k < n and hay[start + k] == needle[n0 + k]:
            k += 1
        if k == n:
            return True
    return False


def ava_features(const int32_t[:] q_ids, const int64_t[:] q_off,
                 const int32_t[:] r_ids, const int64_t[:] r_off,
                 const int32_t[:] t_ids, const int64_t[:] t_off,
                 const int32_t[:] s_ids, const int64_t[:] s_off, const int64_t[:] s_group,
                 int64_t vocab_size, int n_threads):
    """(n, 4) float64 features. Short answers of triple i are rows s_group[i]:s_group[i+1] of s."""
    cdef Py_ssize_t n = q_off.shape[0] - 1
    cdef Py_ssize_t i
    cdef int tid
    cdef int64_t g, base
    cdef bint found
    out_np = np.zeros((n, 4), dtype=np.float64)
    cdef double[:, :] out = out_np
    # stamps start at 0 and row stamps at 1, so a fresh array never matches
    marks_np = np.zeros((2 * n_threads, max(vocab_size, 1)), dtype=np.int64)
    cdef int64_t[:, :] marks = marks_np
    with nogil:
        for i in prange(n, num_threads=n_threads, schedule="static"):
            tid = threadid()
            found = False
            for g in range(s_group[i], s_group[i + 1]):
                if contains_run(t_ids, t_off[i], t_off[i + 1], s_ids, s_off[g], s_off[g + 1]):
                    found = True
                    break
            out[i, 0] = 1.0 if found else 0.0
            base = 3 * <int64_t>i + 1
            out[i, 1] = sim_text(r_ids, r_off[i], r_off[i + 1], t_ids, t_off[i], t_off[i + 1],
                                 marks[2 * tid], marks[2 * tid + 1], base)
            out[i, 2] = sim_text(r_ids, r_off[i], r_off[i + 1], q_ids, q_off[i], q_off[i + 1],
                                 marks[2 * tid], marks[2 * tid + 1], base + 1)
            out[i, 3] = sim_text(q_ids, q_off[i], q_off[i + 1], t_ids, t_off[i], t_off[i + 1],
                                 marks[2 * tid], marks[2 * tid + 1], base + 2)
    return out_np
