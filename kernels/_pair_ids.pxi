# One pair's tokens as dense ids numbered for that pair only (order of first appearance), so its
# per-id tables stay tiny whatever the vocabulary: from token strings (custom tokenizers, through
# a dict) or from packed vocabulary ids (through the n-gram kernel's pair table, _ngram_core.pxi,
# which the including module must include first). Included by lcs.pyx and rouge_raw.pyx for
# their one-pair entries (the compat scorer's latency path).
from cpython.dict cimport PyDict_GetItem, PyDict_SetItem
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc


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
