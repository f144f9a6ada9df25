# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""One (target, prediction) pair from tokens: the latency path of the compat ``RougeScorer.score()``
with a tokenizer other than rouge-score's plain one (whose pairs go straight from the strings,
``rouge_raw.pair_rouge_counts``).

The pair arrives as lists of token strings (a custom tokenizer's ``tokenize``) or as packed
vocabulary ids (a tokenizer with a compiled encoder): target row 0 and prediction row 1, or
sentences with the target's first. Ids are renumbered densely for this pair only
(renumber_dense), so per-pair tables stay tiny whatever the vocabulary size; then the same C cores as the batch
kernels run (_ngram_core.pxi, _lcs_core.pxi), without numpy or threads.

A module of its own, not functions in lcs.pyx and rouge_raw.pyx: there, a second caller of the
shared cores made GCC stop inlining them into the batch loops (rouge_raw's pair_counts shrank
from 1413 to 1041 instructions and pair_rouge_counts ran 4.5% slower in a same-process A/B;
union_lcs_hits left lcs.pyx's rougeLsum worker). Same results as those modules' entries, in the
same shapes: counts ``(matches, lcs, target tokens, prediction tokens)``, union-LCS hits an int.
"""
from cpython.dict cimport PyDict_GetItem, PyDict_SetItem
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

cimport numpy as cnp

cnp.import_array()

include "_lcs_core.pxi"
include "_ngram_core.pxi"

cdef enum:
    MAX_ORDER = 9  # rouge1 .. rouge9


# ---------------------------------------------------------------- one pair's dense ids
cdef int intern_strings(list tokens, dict ids, int32_t* out) except -1:
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


cdef Py_ssize_t renumber_dense(const int32_t* ids, Py_ssize_t n, int32_t* out) noexcept nogil:
    """Dense local ids (order of first appearance) of ``ids``; returns how many distinct, -1: no memory."""
    cdef Py_ssize_t cap = 16, i
    cdef int bits = 4
    cdef int32_t distinct = 0
    cdef NgramScratch table
    while cap < 2 * n:
        cap <<= 1
        bits += 1
    table.keys = <uint64_t*>malloc(cap * sizeof(uint64_t))
    table.vals = <int32_t*>malloc(cap * sizeof(int32_t))
    if table.keys == NULL or table.vals == NULL:
        free(table.keys)
        free(table.vals)
        return -1
    for i in range(cap):
        table.keys[i] = EMPTY
    for i in range(n):
        out[i] = intern(&table, pair_key(0, ids[i]), cap - 1, 64 - bits, &distinct)
    free(table.keys)
    free(table.vals)
    return distinct


cdef int32_t* renumbered_copy(const int32_t* ids, Py_ssize_t n, Py_ssize_t* distinct) except NULL:
    """A malloc'ed copy of the n ``ids`` renumbered densely (the caller frees it)."""
    cdef int32_t* buf = <int32_t*>malloc((n + 1) * sizeof(int32_t))
    if buf == NULL:
        raise MemoryError()
    distinct[0] = renumber_dense(ids if n else NULL, n, buf)
    if distinct[0] < 0:
        free(buf)
        raise MemoryError()
    return buf


# ---------------------------------------------------------------- ROUGE-N and ROUGE-L counts
cdef tuple counts_of_dense(int32_t* buf, Py_ssize_t lt, Py_ssize_t lp, Py_ssize_t distinct,
                           int max_order, bint want_lcs):
    """(clipped n-gram matches of orders 1 .. max_order, LCS or -1) of target buf[:lt] and
    prediction buf[lt:lt + lp], ids dense in [0, distinct)."""
    cdef int64_t matches[MAX_ORDER]
    cdef int64_t ref_offsets[2]
    cdef int64_t ref_rows[1]
    cdef int64_t lcs = -1
    cdef Py_ssize_t cap = 16
    cdef NgramScratch* ns = NULL
    cdef Scratch* ls = NULL
    if not 0 <= max_order <= MAX_ORDER:
        raise ValueError(f"max_order must be in 0..{MAX_ORDER}, got {max_order}")
    try:
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
            ls = scratch_new(distinct)
            if ls == NULL:
                raise MemoryError()
            lcs = lcs_length(buf, lt, &buf[lt], lp, ls)
            if lcs < 0:
                raise MemoryError()
        return tuple([matches[i] for i in range(max_order)]), lcs
    finally:
        ngram_scratch_free(ns)
        scratch_free(ls)


def pair_rouge_counts_tokens(list target not None, list prediction not None, int max_order, bint want_lcs):
    """pair_rouge_counts of two lists of token strings (a custom tokenizer's output)."""
    cdef dict ids = {}
    cdef Py_ssize_t lt = len(target), lp = len(prediction)
    cdef int32_t* buf = <int32_t*>malloc((lt + lp + 1) * sizeof(int32_t))
    if buf == NULL:
        raise MemoryError()
    try:
        intern_strings(target, ids, buf)
        intern_strings(prediction, ids, &buf[lt])
        matches, lcs = counts_of_dense(buf, lt, lp, len(ids), max_order, want_lcs)
        return matches, lcs, lt, lp
    finally:
        free(buf)


def pair_rouge_counts_ids(cnp.ndarray ids not None, cnp.ndarray offsets not None, int max_order, bint want_lcs):
    """pair_rouge_counts of packed ids (contiguous int32), target = row 0 and prediction = row 1,
    offsets (contiguous int64): a tokenizer with a compiled batch encoder.

    Plain arrays rather than typed memoryviews: taking a buffer costs more than a short pair's work.
    """
    if (cnp.PyArray_TYPE(ids) != cnp.NPY_INT32 or cnp.PyArray_TYPE(offsets) != cnp.NPY_INT64
            or not cnp.PyArray_IS_C_CONTIGUOUS(ids) or not cnp.PyArray_IS_C_CONTIGUOUS(offsets)
            or cnp.PyArray_NDIM(ids) != 1 or cnp.PyArray_NDIM(offsets) != 1):
        raise TypeError("pair_rouge_counts_ids takes contiguous 1-d int32 ids and int64 offsets")
    cdef const int64_t* bounds = <const int64_t*>cnp.PyArray_DATA(offsets)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(ids)
    if cnp.PyArray_SIZE(offsets) != 3 or bounds[0] != 0 or bounds[2] != n or not 0 <= bounds[1] <= bounds[2]:
        raise ValueError("expected exactly two packed rows: target, prediction")
    cdef Py_ssize_t distinct, lt = bounds[1], lp = n - bounds[1]
    cdef int32_t* buf = renumbered_copy(<const int32_t*>cnp.PyArray_DATA(ids), n, &distinct)
    try:
        matches, lcs = counts_of_dense(buf, lt, lp, distinct, max_order, want_lcs)
        return matches, lcs, lt, lp
    finally:
        free(buf)


# ---------------------------------------------------------------- rougeLsum union-LCS hits
cdef int64_t union_hits_of_dense(int32_t* buf, int64_t* offsets, Py_ssize_t n_target, Py_ssize_t n_sentences,
                                 Py_ssize_t distinct) except -1:
    cdef Scratch* ls = scratch_new(distinct)
    cdef int64_t hits
    if ls == NULL:
        raise MemoryError()
    hits = union_lcs_hits(buf, offsets, 0, n_target, buf, offsets, n_target, n_sentences, ls)
    scratch_free(ls)
    if hits < 0:
        raise MemoryError()
    return hits


def pair_union_hits_tokens(list target_sentences not None, list prediction_sentences not None):
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
    if buf == NULL or offsets == NULL:
        free(buf)
        free(offsets)
        raise MemoryError()
    try:
        offsets[0] = 0
        for s in range(nt + np_):
            sentence = target_sentences[s] if s < nt else prediction_sentences[s - nt]
            intern_strings(sentence, ids, &buf[offsets[s]])
            offsets[s + 1] = offsets[s] + len(sentence)
        return union_hits_of_dense(buf, offsets, nt, nt + np_, len(ids))
    finally:
        free(buf)
        free(offsets)


def pair_union_hits_ids(const int32_t[::1] ids not None, const int64_t[::1] offsets not None, Py_ssize_t n_target):
    """Packed sentences, the target's ``n_target`` first and then the prediction's."""
    cdef Py_ssize_t n_sentences = offsets.shape[0] - 1, distinct, s
    if n_sentences < 0 or offsets[0] != 0 or offsets[n_sentences] != ids.shape[0] or not 0 <= n_target <= n_sentences:
        raise ValueError("offsets must run from 0 to len(ids) and n_target lie in [0, number of sentences]")
    for s in range(n_sentences):
        if offsets[s + 1] < offsets[s]:
            raise ValueError("offsets must be non-decreasing")
    cdef int32_t* buf = renumbered_copy(&ids[0] if ids.shape[0] else NULL, ids.shape[0], &distinct)
    try:
        return union_hits_of_dense(buf, <int64_t*>&offsets[0], n_target, n_sentences, distinct)
    finally:
        free(buf)
