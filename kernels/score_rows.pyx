# cython: language_level=3, boundscheck=False, wraparound=False
"""rouge-score's per-pair results, ``{rouge_type: Score(precision, recall, fmeasure)}``, built in C
from a batch's float64 arrays. In Python each row cost about 0.7 us a type (a namedtuple's
``__new__`` is a Python function), as much as scoring the pair: the compat ``score_batch`` took
twice as long as ``rouge()`` on the same pairs.
"""
import numpy as np

cdef extern from "qs_rows.h":
    object qascore_new_triple(object type, double a, double b, double c)
    void qascore_untrack_row(object row, object type)
    void qascore_untrack_rows(list rows)
    void qascore_track_rows(list rows)

cdef enum:
    MAX_TYPES = 16  # rouge1 .. rouge9, rougeL, rougeLsum: 11


def score_rows(tuple names not None, list columns not None, type score_type not None):
    """``[{names[t]: score_type(P_t[i], R_t[i], F_t[i]) for t} for i in range(n)]`` where
    ``columns[t]`` is the (precision, recall, fmeasure) float64 arrays of ``names[t]``, n entries
    each; ``score_type`` is a namedtuple class of three fields."""
    cdef Py_ssize_t n_types = len(names), n, i, t
    cdef const double *p[MAX_TYPES]
    cdef const double *r[MAX_TYPES]
    cdef const double *f[MAX_TYPES]
    cdef const double[::1] view
    cdef dict row
    cdef list rows = []
    if not issubclass(score_type, tuple) or len(score_type._fields) != 3:
        raise TypeError(f"score_type must be a namedtuple class of three fields, got {score_type!r}")
    if len(columns) != n_types or not 0 < n_types <= MAX_TYPES:
        raise ValueError(f"{n_types} names need as many columns (1 to {MAX_TYPES}), got {len(columns)}")
    arrays = [[np.ascontiguousarray(a, dtype=np.float64) for a in column] for column in columns]
    n = len(arrays[0][0]) if arrays[0] else 0
    for t in range(n_types):
        if len(arrays[t]) != 3 or any(len(a) != n for a in arrays[t]):
            raise ValueError(f"column {t} must be three arrays of {n} entries")
    if n == 0:
        return rows
    for t in range(n_types):  # pointers into arrays, which this call holds
        view = arrays[t][0]
        p[t] = &view[0]
        view = arrays[t][1]
        r[t] = &view[0]
        view = arrays[t][2]
        f[t] = &view[0]
    qascore_untrack_rows(rows)
    for i in range(n):
        row = {}
        for t in range(n_types):
            row[names[t]] = qascore_new_triple(score_type, p[t][i], r[t][i], f[t][i])
        qascore_untrack_row(row, score_type)
        rows.append(row)
    qascore_track_rows(rows)
    return rows
