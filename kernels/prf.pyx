# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Precision, recall and F of the ROUGE family from counts, one compiled pass each: numpy took
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


def ratio_of_counts(const int64_t[:] numerator not None, const int64_t[:] denominator not None, int64_t shift=0):
    """``numerator / max(denominator - shift, 1)`` as float64 (``shift`` n - 1 turns a token count
    into rouge-score's n-gram count). Every ROUGE count (n-gram matches, LCS, union hits) is 0
    when either side has no tokens (or n-grams), so this is 0 exactly where rouge-score returns
    its early 0."""
    cdef Py_ssize_t n = numerator.shape[0], i
    cdef int64_t d
    out = float_output(n, denominator.shape[0], "numerator", "denominator")
    cdef double[::1] o = out
    with nogil:
        for i in range(n):
            d = denominator[i] - shift
            o[i] = <double>numerator[i] / <double>(d if d > 1 else 1)
    return out


def f_measure(const double[::1] precision not None, const double[::1] recall not None, double gamma_squared):
    """``(1 + g2) P R / (R + g2 P)`` per element, 0 where the denominator is 0 (only where P = R =
    0, as both are >= 0): it is divided by 1 there, and adding 0 elsewhere leaves its bits."""
    cdef Py_ssize_t n = precision.shape[0], i
    cdef double p, r, den
    out = float_output(n, recall.shape[0], "precision", "recall")
    cdef double[::1] o = out
    with nogil:
        for i in range(n):
            p = precision[i]
            r = recall[i]
            den = r + gamma_squared * p
            den += den == 0
            o[i] = (1 + gamma_squared) * p * r / den
    return out
