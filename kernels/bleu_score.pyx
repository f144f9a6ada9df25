# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""BLEU's final formula with the float operations of sacrebleu's ``compute_bleu``.

sacrebleu forms ``bp = math.exp(1 - ref_len / sys_len)`` and ``bp * math.exp(sum([my_log(p) for p
in precisions[:eff_order]]) / eff_order)``. numpy's vectorised exp and log are not libm's and
differ from ``math.exp`` / ``math.log`` in the last ulp on some inputs; this kernel calls libm (what
``math`` calls) and sums as the running Python's ``sum()`` does (qs_pysum.h), so the scores are
sacrebleu's bit for bit. Precisions (products and quotients, the same in numpy) come from the caller.
"""
from libc.math cimport exp, log
from libc.stdint cimport int64_t

import numpy as np


cdef extern from "qs_pysum.h":
    ctypedef struct qs_pysum:
        pass
    void qs_pysum_init(qs_pysum *s) noexcept nogil
    void qs_pysum_add(qs_pysum *s, double x) noexcept nogil
    double qs_pysum_result(const qs_pysum *s) noexcept nogil

# sacrebleu's my_log(0): a floor that drives the score to 0 (it is an exact double).
cdef double LOG_ZERO = -9999999999.0


def brevity_penalties(const double[::1] sys_len, const double[::1] ref_len):
    """1 where the hypothesis is at least as long as the reference, else exp(1 - ref_len / sys_len)
    (0 for an empty hypothesis); lengths are integers below 2**53, so the quotient is Python's."""
    cdef Py_ssize_t i, rows = sys_len.shape[0]
    if ref_len.shape[0] != rows:
        raise ValueError(f"sys_len has {rows} entries but ref_len has {ref_len.shape[0]}")
    bp_array = np.ones(rows, dtype=np.float64)
    cdef double[::1] bp = bp_array
    with nogil:
        for i in range(rows):
            if sys_len[i] < ref_len[i]:
                bp[i] = exp(1 - ref_len[i] / sys_len[i]) if sys_len[i] > 0 else 0.0
    return bp_array


def geometric_means(const double[:, ::1] precisions, const int64_t[::1] eff_order, const double[::1] bp,
                    const unsigned char[::1] matched):
    """Per row, ``bp * exp(sum(log p_n for n < eff_order) / eff_order)``, with log(0) floored as
    sacrebleu's my_log; 0 for rows with ``matched`` false (sacrebleu returns 0 when nothing matches)."""
    cdef Py_ssize_t i, n, rows = precisions.shape[0]
    if eff_order.shape[0] != rows or bp.shape[0] != rows or matched.shape[0] != rows:
        raise ValueError("precisions, eff_order, bp and matched must have one entry per row")
    for i in range(rows):
        if eff_order[i] < 1 or eff_order[i] > precisions.shape[1]:
            raise ValueError(f"eff_order[{i}] = {eff_order[i]} is outside 1..{precisions.shape[1]}")
    score_array = np.zeros(rows, dtype=np.float64)
    cdef double[::1] score = score_array
    cdef qs_pysum total
    cdef double p
    with nogil:
        for i in range(rows):
            if not matched[i]:
                continue
            qs_pysum_init(&total)
            for n in range(eff_order[i]):
                p = precisions[i, n]
                qs_pysum_add(&total, log(p) if p != 0.0 else LOG_ZERO)
            score[i] = bp[i] * exp(qs_pysum_result(&total) / <double>eff_order[i])
    return score_array
