# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Precision, recall and F of the ROUGE family from counts: the one place they are formed (the
formulas in kernels/include/qs_prf.h), for a batch (ratio_of_counts, f_measure, rouge_prf) or
one pair (pair_score). One compiled pass each: numpy took
two to five calls per array (a microsecond or more each, most of a short batch's time in
``rouge()``). Each element goes through the IEEE operations of the numpy expressions these
replace, in the same order; the build turns floating-point contraction off (setup.py), so no
fused multiply-add changes a bit on any machine.
"""
from libc.stdint cimport int64_t

import numpy as np


cdef object float_output(Py_ssize_t n, Py_ssize_t m, str first, str second):
    """An empty float64 array for the n entries of two arguments that must have n each."""
    if m != n:
        raise ValueError(f"{first} has {n} entries but {second} has {m}")
    return np.empty(n, dtype=np.float64)


cdef extern from "qs_prf.h":  # kernels/include/qs_prf.h: the formulas, shared with pair_score
    double count_ratio "qs_count_ratio"(int64_t numerator, int64_t count, int64_t shift) noexcept nogil
    double f_gamma "qs_f_gamma"(double p, double r, double gamma_squared) noexcept nogil

cdef extern from "qs_rows.h":
    object new_triple "qascore_new_triple"(object type, double a, double b, double c)
    bint is_tuple_type "qascore_is_tuple_type"(object type) noexcept


def pair_score(type score_type not None, int64_t hits, int64_t n_prediction, int64_t n_target, int64_t shift=0):
    """``score_type(P, R, F1)`` of one pair from its ROUGE count ``hits`` and the prediction's
    and target's token counts: rouge-score's ``Score`` of ``hits / max(n_prediction - shift, 1)``,
    ``hits / max(n_target - shift, 1)`` (``shift`` n - 1 for ROUGE-N, as ratio_of_counts) and
    ``scoring.fmeasure``, with the same bits (qs_prf.h). The compat scorer's one-pair route: one
    C call per type instead of a Python function and a namedtuple ``__new__``. ``score_type`` is
    a namedtuple class of three fields."""
    if not is_tuple_type(score_type):
        raise TypeError(f"score_type must be a namedtuple class, got {score_type!r}")
    cdef double p = count_ratio(hits, n_prediction, shift)
    cdef double r = count_ratio(hits, n_target, shift)
    return new_triple(score_type, p, r, f_gamma(p, r, 1.0))


def ratio_of_counts(const int64_t[:] numerator not None, const int64_t[:] denominator not None, int64_t shift=0):
    """``numerator / max(denominator - shift, 1)`` as float64 (``shift`` n - 1 turns a token count
    into rouge-score's n-gram count). Every ROUGE count (n-gram matches, LCS, union hits) is 0
    when either side has no tokens (or n-grams), so this is 0 exactly where rouge-score returns
    its early 0."""
    cdef Py_ssize_t n = numerator.shape[0], i
    out = float_output(n, denominator.shape[0], "numerator", "denominator")
    cdef double[::1] o = out
    with nogil:
        for i in range(n):
            o[i] = count_ratio(numerator[i], denominator[i], shift)
    return out


def f_measure(const double[::1] precision not None, const double[::1] recall not None, double gamma_squared):
    """``(1 + g2) P R / (R + g2 P)`` per element, 0 where the denominator is 0 (only where P = R =
    0, as both are >= 0): it is divided by 1 there, and adding 0 elsewhere leaves its bits."""
    cdef Py_ssize_t n = precision.shape[0], i
    out = float_output(n, recall.shape[0], "precision", "recall")
    cdef double[::1] o = out
    with nogil:
        for i in range(n):
            o[i] = f_gamma(precision[i], recall[i], gamma_squared)
    return out


def rouge_prf(const int64_t[:, ::1] matches not None, tuple orders not None, const int64_t[::1] lcs,
              const int64_t[::1] pred_len not None, const int64_t[::1] ref_len not None, double gamma_squared):
    """(P, R, F) of one pair per row, for each ROUGE-N order n in ``orders`` (its matches in
    column n - 1 of ``matches``) and then, when ``lcs`` is not None, for rougeL: a list of
    (precision, recall, F) float64 arrays, exactly ratio_of_counts and f_measure, in one call so
    that a small batch pays it once instead of three numpy-wrapped calls a type."""
    cdef Py_ssize_t K = pred_len.shape[0], i
    cdef int64_t n, shift, numerator
    cdef double p, r
    cdef double[::1] ps, rs, fs
    if ref_len.shape[0] != K or matches.shape[0] != K or (lcs is not None and lcs.shape[0] != K):
        raise ValueError(f"counts of {K} pairs must all have {K} rows")
    cdef list out = []
    for n in orders + ((0,) if lcs is not None else ()):  # 0: rougeL
        if n != 0 and not 1 <= n <= matches.shape[1]:
            raise ValueError(f"order {n} has no column in matches of {matches.shape[1]} orders")
        shift = n - 1 if n else 0  # L tokens make L - n + 1 n-grams
        arrays = (np.empty(K), np.empty(K), np.empty(K))
        ps, rs, fs = arrays
        with nogil:
            for i in range(K):
                numerator = matches[i, shift] if n else lcs[i]
                p = count_ratio(numerator, pred_len[i], shift)
                r = count_ratio(numerator, ref_len[i], shift)
                ps[i] = p
                rs[i] = r
                fs[i] = f_gamma(p, r, gamma_squared)
        out.append(arrays)
    return out
