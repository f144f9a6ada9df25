/* Result rows built in C: rouge-score's Score namedtuples without a Python-level __new__ call
   (score_rows.pyx). */
#ifndef QS_ROWS_H
#define QS_ROWS_H
#include <Python.h>
/* A tuple subclass (a namedtuple) holding three floats, made as tuple.__new__(type, (a, b, c))
   makes one: the type's allocator, then the items. */
static inline PyObject *qascore_new_triple(PyObject *type, double a, double b, double c) {
    PyObject *x = PyFloat_FromDouble(a), *y = PyFloat_FromDouble(b), *z = PyFloat_FromDouble(c);
    PyObject *t = NULL;
    if (x && y && z)
        t = ((PyTypeObject *)type)->tp_alloc((PyTypeObject *)type, 3);
    if (!t) {
        Py_XDECREF(x);
        Py_XDECREF(y);
        Py_XDECREF(z);
        return NULL;
    }
    PyTuple_SET_ITEM(t, 0, x);
    PyTuple_SET_ITEM(t, 1, y);
    PyTuple_SET_ITEM(t, 2, z);
    /* Three floats can be part of no reference cycle: the cycle collector need not see the
       triple (CPython untracks such plain tuples itself, lazily, one collection later), nor the
       result dict that holds it (qascore_untrack_row). Rows of a large batch otherwise made every collection scan all rows so far. A
       type whose instances have a __dict__ could reach anything: it stays tracked. */
    if (((PyTypeObject *)type)->tp_dictoffset == 0 && PyObject_GC_IsTracked(t))
        PyObject_GC_UnTrack(t);
    return t;
}

/* A result dict of str keys and qascore_new_triple values of `type`: untracked like them (a
   dict re-tracks itself when a value that could be in a cycle is put in later). */
static inline void qascore_untrack_row(PyObject *row, PyObject *type) {
    if (((PyTypeObject *)type)->tp_dictoffset == 0 && PyObject_GC_IsTracked(row))
        PyObject_GC_UnTrack(row);
}

/* The list of a batch's rows while it fills: out of the cycle collector's sight, as the
   collections that the rows' own allocations trigger otherwise walked every row so far (1-2% of a
   large compat score_batch). Hiding it is safe (the collector then only keeps what
   it holds alive); qascore_track_rows shows it again once full, before the caller gets it. */
static inline void qascore_untrack_rows(PyObject *rows) {
    if (PyObject_GC_IsTracked(rows))
        PyObject_GC_UnTrack(rows);
}

static inline void qascore_track_rows(PyObject *rows) {
    if (!PyObject_GC_IsTracked(rows))
        PyObject_GC_Track(rows);
}

/* A class whose instances are tuples (a namedtuple class among them): a flag test, cheap enough
   for a one-pair call. qascore_new_triple's allocation is only safe for such a class. */
#define qascore_is_tuple_type(t) PyType_FastSubclass((PyTypeObject *)(t), Py_TPFLAGS_TUPLE_SUBCLASS)

#endif /* QS_ROWS_H */
