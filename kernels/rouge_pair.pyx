# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""One (target, prediction) pair given as lists of token strings: the latency path of the
rouge-score compatible ``score()``. Tokens are interned into ids with a dict, then the same C
cores as the batch kernels run (lcs.pyx, ngram.pyx), without numpy or threads."""
from cpython.dict cimport PyDict_GetItem, PyDict_SetItem
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t

include "_lcs_core.pxi"
include "_ngram_core.pxi"


cdef int intern_into(list tokens, dict ids, int32_t* out) except -1:
    cdef Py_ssize_t i
    cdef PyObject* found
    for i in range(len(tokens)):
        tok = tokens[i]
        found = PyDict_GetItem(ids, tok)
        if found == NULL:
            out[i] = <int32_t>len(ids)
            PyDict_SetItem(ids, tok, out[i])
        else:
            out[i] = <int32_t>(<object>found)
    return 0


def pair_counts(list target not None, list prediction not None, int max_order, bint want_lcs):
    """(clipped n-gram matches of orders 1 .. max_order as a tuple, LCS length or -1)."""
    cdef dict ids = {}
    cdef Py_ssize_t lt = len(target), lp = len(prediction), cap = 16
    cdef int32_t* buf = <int32_t*>malloc((lt + lp + 1) * sizeof(int32_t))
    cdef int64_t matches[9]
    cdef int64_t ref_offsets[2]
    cdef int64_t ref_rows[1]
    cdef int64_t lcs = -1
    cdef NgramScratch* ns = NULL
    cdef Scratch* ls = NULL
    if buf == NULL:
        raise MemoryError()
    if max_order < 0 or max_order > 9:
        free(buf)
        raise ValueError(f"max_order must be in 0..9, got {max_order}")
    try:
        intern_into(target, ids, buf)
        intern_into(prediction, ids, &buf[lt])
        if max_order > 0:
            while cap < 2 * lp:
                cap <<= 1
            ns = ngram_scratch_new(lp, lt, cap)
            if ns == NULL:
                raise MemoryError()
            ref_offsets[0] = 0
            ref_offsets[1] = lt
            ref_rows[0] = 0
            clipped_matches(&buf[lt], lp, buf, ref_offsets, ref_rows, 1, max_order, matches, ns)
        if want_lcs:
            ls = scratch_new(len(ids))
            if ls == NULL:
                raise MemoryError()
            lcs = lcs_length(buf, lt, &buf[lt], lp, ls)
            if lcs < 0:
                raise MemoryError()
        return tuple([matches[i] for i in range(max_order)]), lcs
    finally:
        free(buf)
        ngram_scratch_free(ns)
        scratch_free(ls)


def pair_union_hits(list target_sentences not None, list prediction_sentences not None):
    """rougeLsum hits of target sentences (lists of tokens) against prediction sentences."""
    cdef dict ids = {}
    cdef Py_ssize_t nt = len(target_sentences), np_ = len(prediction_sentences), total = 0, s
    cdef list sentence
    for sentence in target_sentences:
        total += len(sentence)
    for sentence in prediction_sentences:
        total += len(sentence)
    cdef int32_t* buf = <int32_t*>malloc((total + 1) * sizeof(int32_t))
    cdef int64_t* offsets = <int64_t*>malloc((nt + np_ + 1) * sizeof(int64_t))
    cdef Scratch* ls = NULL
    cdef int64_t hits
    if buf == NULL or offsets == NULL:
        free(buf)
        free(offsets)
        raise MemoryError()
    try:
        offsets[0] = 0
        for s in range(nt + np_):
            sentence = target_sentences[s] if s < nt else prediction_sentences[s - nt]
            intern_into(sentence, ids, &buf[offsets[s]])
            offsets[s + 1] = offsets[s] + len(sentence)
        ls = scratch_new(len(ids))
        if ls == NULL:
            raise MemoryError()
        hits = union_lcs_hits(buf, offsets, 0, nt, buf, offsets, nt, nt + np_, ls)
        if hits < 0:
            raise MemoryError()
        return hits
    finally:
        free(buf)
        free(offsets)
        scratch_free(ls)
