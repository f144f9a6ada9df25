# cython: language_level=3
"""Compiled tokenise-and-intern for the rouge tokeniser: str data -> raw token ids, no per-token Python.

rouge-score's rule (``text.lower()``, ``[^a-z0-9]+`` -> space, split) reduces, code point by code
point, to: ASCII letters lowercase, ASCII digits stay, U+0130 gives ``i`` and ends the token (its
lowercase is ``i`` + U+0307), U+212A gives ``k``, everything else separates. No other code point
lowercases to anything containing ASCII letters or digits (checked over all of Unicode in the tests).

Tokens are interned into *raw ids* by a :class:`RawInterner`; the Python layer maps raw ids to
vocabulary ids (stemming once per new raw token), or uses them as vocabulary ids directly. Texts
are cut into a few contiguous chunks per thread; threads look tokens up read-only in the shared
table and intern the ones it lacks in a table of their chunk; the chunks' tables are merged
serially in text order, so raw ids never depend on the thread count.
"""
cimport cython
from cpython.object cimport PyObject
from cpython.sequence cimport PySequence_Fast, PySequence_Fast_ITEMS
from cython.parallel cimport prange

import numpy as np
cimport numpy as cnp

cnp.import_array()

include "_rouge_scan.pxi"

cdef extern from "Python.h":
    bint object_is_str "PyUnicode_Check"(PyObject *o) noexcept  # no reference taken


# Tokenisation rules the kernel knows (the Python tokenisers are their readable definitions).
cpdef enum Mode:
    MODE_ROUGE = 0  # rouge-score: tokens are ASCII bytes
    MODE_WHITESPACE = 1  # str.split(): tokens are UTF-32 code points
    MODE_CHAR = 2  # each non-whitespace code point
    MODE_CLASSES = 3  # per-code-point classes from a table (the Unicode word rule)

# Code point classes of MODE_CLASSES tables (and what the other generic modes reduce to).
cpdef enum CharClass:
    CLASS_WORD = 0  # extends the current token
    CLASS_SINGLE = 1  # a token of its own; combining marks after it join it
    CLASS_MARK = 2  # joins the current token; dropped when there is none
    CLASS_SEPARATOR = 3  # ends the current token
    CLASS_ALONE = 4  # a token of its own, nothing joins it

cdef enum:
    CHUNKS_PER_THREAD = 2  # each chunk's own table is merged serially: few chunks, little merging
    EXPECTED_CODE_POINTS_PER_TYPE = 64
    MAX_RESERVED_TYPES = 1 << 16  # a wrong guess costs at most a 2 MB table


def rouge_code_point_bytes():
    """What the kernel makes of each code point, for the tests: {code point: (byte, ends token)}
    for every code point that adds to a token."""
    table = {c: (ROUGE_LATIN1[c], False) for c in range(256) if ROUGE_LATIN1[c]}
    table[DOTTED_CAPITAL_I] = (ord("i"), True)
    table[KELVIN_SIGN] = (ord("k"), False)
    return table


@cython.final
cdef class RawInterner:
    """A ``Table`` owned by Python: the raw ids of one vocabulary and token encoding."""

    cdef Table table

    def __cinit__(self):
        if not table_init(&self.table):
            raise MemoryError("RawInterner")

    def __dealloc__(self):
        table_free(&self.table)

    def __len__(self):
        return self.table.count

    def tokens_from(self, int64_t first, str encoding="ascii"):
        """The tokens with raw ids ``first, first + 1, ...`` decoded to ``str``."""
        cdef const Table *t = &self.table
        return [
            (<char *>t.arena)[t.starts[i]:t.starts[i + 1]].decode(encoding, "surrogatepass")
            for i in range(max(first, 0), t.count)
        ]


cdef struct Chunk:
    int64_t first_text, end_text
    GrowBuffer ids  # int32 raw ids; in a parallel run -1 - (local id) for a token the shared table lacked
    GrowBuffer token  # uint8: the token being built
    GrowBuffer bitmap  # uint64: the token bitmap and spans of the current text (rouge rule)
    GrowBuffer latin1  # uint8: a UCS-2 or UCS-4 text as bytes (latin1_of_units, rouge rule)
    Table local  # parallel runs: the chunk's tokens absent from the shared table, in first-seen order
    bint has_local
    bint failed


cdef inline bint emit_token(Table *shared, Chunk *chunk, int64_t n, bint parallel) noexcept nogil:
    cdef const uint8_t *s = <const uint8_t *>chunk.token.data
    return emit_hashed_token(shared, chunk, n, hash_token(s, n), qascore_load_word(s, n), parallel)


cdef inline bint emit_hashed_token(Table *shared, Chunk *chunk, int64_t n, uint64_t h, uint64_t prefix,
                                   bint parallel) noexcept nogil:
    """Intern the n-byte token in chunk.token (hash h, first word prefix) and append its id;
    False when out of memory.

    Serial runs add new tokens to the shared table. Parallel runs only read it and collect the
    tokens it lacks in the chunk's own table, merged in text order afterwards (merge_chunk).
    """
    cdef const uint8_t *s = <const uint8_t *>chunk.token.data
    cdef int32_t raw, local
    if not parallel:
        raw = table_intern(shared, s, n, h, prefix)
        if raw < 0:
            return False
    else:
        raw = table_find_prefix(shared, s, n, h, prefix)
        if raw < 0:
            local = table_intern(&chunk.local, s, n, h, prefix)
            if local < 0:
                return False
            raw = -1 - local
    if chunk.ids.used == chunk.ids.capacity and not buffer_reserve(&chunk.ids, 1):
        return False
    (<int32_t *>chunk.ids.data)[chunk.ids.used] = raw
    chunk.ids.used += 1
    return True


cdef inline bint scan_rouge_text(Table *shared, Chunk *chunk, const CodeUnit *text, int64_t n,
                                 bint parallel) noexcept nogil:
    """Append the raw ids of one text's rouge tokens to chunk.ids (room reserved by the caller)."""
    cdef int64_t length
    cdef uint64_t h, prefix
    cdef uint8_t *token = <uint8_t *>chunk.token.data
    cdef RougeCursor cursor
    cdef const uint8_t *latin1
    cdef bint out_of_memory
    if CodeUnit is not uint8_t:  # read as Latin-1 unless it holds U+0130 or U+212A
        latin1 = latin1_of_units(text, n, &chunk.latin1, &out_of_memory)
        if out_of_memory:
            return False
        if latin1 != NULL:
            return scan_rouge_text(shared, chunk, latin1, n, parallel)
    if not rouge_cursor_init(&cursor, text, n, &chunk.bitmap):
        return False
    while True:
        length = next_rouge_token(text, n, &cursor, token, &h, &prefix)
        if length == 0:
            return True
        if not emit_hashed_token(shared, chunk, length, h, prefix, parallel):
            return False


cdef inline uint8_t generic_class(uint32_t code, int mode, const uint8_t *classes) noexcept nogil:
    if mode == MODE_CLASSES:
        return classes[code] if code < 0x110000 else CLASS_SEPARATOR
    if Py_UNICODE_ISSPACE(code):
        return CLASS_SEPARATOR
    return CLASS_WORD if mode == MODE_WHITESPACE else CLASS_ALONE


cdef inline bint scan_generic_text(Table *shared, Chunk *chunk, const CodeUnit *text, int64_t n,
                                   int mode, const uint8_t *classes, bint parallel) noexcept nogil:
    """Append the raw ids of one text's tokens under a class rule; tokens are UTF-32 bytes."""
    cdef int64_t i, length = 0  # bytes in the current token
    cdef uint32_t code
    cdef uint8_t kind
    cdef bint single_open = False  # the current token is a SINGLE: only marks may join it
    cdef uint8_t *token = <uint8_t *>chunk.token.data
    for i in range(n):
        code = text[i]
        kind = generic_class(code, mode, classes)
        if kind == CLASS_MARK:
            if length > 0:
                memcpy(token + length, &code, 4)
                length += 4
            continue
        if length > 0 and (kind != CLASS_WORD or single_open):
            if not emit_token(shared, chunk, length, parallel):
                return False
            length = 0
        single_open = kind == CLASS_SINGLE
        if kind == CLASS_SEPARATOR:
            continue
        memcpy(token + length, &code, 4)
        length += 4
        if kind == CLASS_ALONE:
            if not emit_token(shared, chunk, length, parallel):
                return False
            length = 0
    if length > 0:
        return emit_token(shared, chunk, length, parallel)
    return True


cdef inline bint scan_text(Table *shared, Chunk *chunk, const CodeUnit *text, int64_t n, int mode,
                           const uint8_t *classes, bint parallel) noexcept nogil:
    if mode == MODE_ROUGE:
        return scan_rouge_text(shared, chunk, text, n, parallel)
    return scan_generic_text(shared, chunk, text, n, mode, classes, parallel)


cdef bint scan_chunk(Table *shared, Chunk *chunk, int *kinds, const void **datas, Py_ssize_t *lengths,
                     int64_t *counts, int mode, const uint8_t *classes, bint parallel) noexcept nogil:
    cdef int64_t t, before
    cdef bint ok
    cdef int64_t bytes_per_code_point = 1 if mode == MODE_ROUGE else 4
    for t in range(chunk.first_text, chunk.end_text):
        before = chunk.ids.used
        # A token has at most as many code points as its text; ids grow as tokens come.
        if not buffer_reserve(&chunk.token, bytes_per_code_point * (lengths[t] + 1)):
            return False
        if kinds[t] == 1:
            ok = scan_text(shared, chunk, <const uint8_t *>datas[t], lengths[t], mode, classes, parallel)
        elif kinds[t] == 2:
            ok = scan_text(shared, chunk, <const uint16_t *>datas[t], lengths[t], mode, classes, parallel)
        else:
            ok = scan_text(shared, chunk, <const uint32_t *>datas[t], lengths[t], mode, classes, parallel)
        if not ok:
            return False
        counts[t] = chunk.ids.used - before
    return True


cdef bint merge_chunk(Table *shared, Chunk *chunk) noexcept nogil:
    """Intern the chunk's own tokens into the shared table in their first-seen order, then rewrite
    its ids. Chunks merged in text order give exactly the ids of a serial run."""
    cdef const Table *local = &chunk.local
    cdef int64_t i, start, n
    cdef int32_t raw
    cdef uint64_t h
    cdef int32_t *ids = <int32_t *>chunk.ids.data
    cdef int32_t *to_shared
    if local.count == 0:
        return True
    to_shared = <int32_t *>malloc(local.count * sizeof(int32_t))
    if to_shared == NULL:
        return False
    for i in range(local.count):
        start = local.starts[i]
        n = local.starts[i + 1] - start
        h = hash_token(local.arena + start, n)
        raw = table_intern(shared, local.arena + start, n, h, qascore_load_word(local.arena + start, n))
        if raw < 0:
            free(to_shared)
            return False
        to_shared[i] = raw
    for i in range(chunk.ids.used):
        if ids[i] < 0:
            ids[i] = to_shared[-1 - ids[i]]
    free(to_shared)
    return True


cdef void free_chunk(Chunk *chunk) noexcept nogil:
    free(chunk.ids.data)
    free(chunk.token.data)
    free(chunk.bitmap.data)
    free(chunk.latin1.data)
    if chunk.has_local:
        table_free(&chunk.local)


def encode_raw(list texts, RawInterner interner, int n_jobs, int mode=MODE_ROUGE, classes=None):
    """Raw ids (int32, flat) and offsets (int64) of the tokens of ``texts`` under ``mode``.

    Every element must be a ``str`` (the caller checks). MODE_CLASSES takes ``classes``, a
    C-contiguous uint8 array of 0x110000 CharClass values. New tokens are interned into ``interner``;
    ``n_jobs`` threads share the work (one when 1), taking chunks as they finish the last, so one
    thread the OS delays holds up a small chunk rather than half the batch.
    """
    # Our own references to the strings: their data is read without the GIL, while another thread
    # could be changing the caller's list.
    cdef tuple held = tuple(texts)
    cdef Py_ssize_t n_texts = len(held)
    cdef Py_ssize_t t
    cdef int c, n_threads = <int>max(1, min(n_jobs, n_texts))
    cdef int n_chunks = 1 if n_threads == 1 else <int>min(CHUNKS_PER_THREAD * n_threads, n_texts)
    cdef int64_t total = 0, per_chunk
    cdef bint ok = True
    cdef object text
    cdef cnp.npy_intp dims[1]
    cdef const uint8_t *class_table = NULL
    if mode == MODE_CLASSES:
        if (not isinstance(classes, np.ndarray) or classes.dtype != np.uint8 or classes.shape != (0x110000,)
                or not classes.flags.c_contiguous):
            raise ValueError("MODE_CLASSES needs a contiguous uint8 array of 0x110000 classes")
        class_table = <const uint8_t *>cnp.PyArray_DATA(classes)
    elif not MODE_ROUGE <= mode <= MODE_CHAR:
        raise ValueError(f"unknown mode {mode}")
    dims[0] = n_texts + 1
    offsets = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT64, 0)
    cdef int64_t *offsets_data = <int64_t *>cnp.PyArray_DATA(offsets)
    cdef int *kinds = <int *>malloc(max(n_texts, 1) * sizeof(int))
    cdef const void **datas = <const void **>malloc(max(n_texts, 1) * sizeof(void *))
    cdef Py_ssize_t *lengths = <Py_ssize_t *>malloc(max(n_texts, 1) * sizeof(Py_ssize_t))
    cdef Chunk *chunks = <Chunk *>calloc(n_chunks, sizeof(Chunk))
    if not (kinds and datas and lengths and chunks):
        free(kinds); free(datas); free(lengths); free(chunks)
        raise MemoryError("encode_raw")
    try:
        for t in range(n_texts):
            if t + PREFETCH_AHEAD < n_texts:
                qascore_prefetch_tuple_item(held, t + PREFETCH_AHEAD)
            text = held[t]
            qascore_unicode_ready(text)
            kinds[t] = qascore_unicode_kind(text)
            datas[t] = qascore_unicode_data(text)
            lengths[t] = qascore_unicode_length(text)
            total += lengths[t]
        # A fresh table is sized once for the types such text usually holds (about one per 64
        # code points; a guess, it still grows past it), rather than rehashed as it fills.
        if interner.table.count == 0 and n_chunks == 1 and not table_reserve(
                &interner.table, min(total // EXPECTED_CODE_POINTS_PER_TYPE, MAX_RESERVED_TYPES),
                min(total // EXPECTED_CODE_POINTS_PER_TYPE, MAX_RESERVED_TYPES) * 8):
            raise MemoryError("encode_raw")
        # Consecutive texts, about the same number of code points per chunk.
        per_chunk = total // n_chunks + 1
        t = 0
        for c in range(n_chunks):
            chunks[c].ids.item_size = sizeof(int32_t)
            chunks[c].token.item_size = 1
            chunks[c].bitmap.item_size = sizeof(uint64_t)
            chunks[c].latin1.item_size = 1
            if n_chunks > 1:
                chunks[c].has_local = table_init(&chunks[c].local)
                if not chunks[c].has_local:
                    raise MemoryError("encode_raw")
            chunks[c].first_text = t
            total = 0
            while t < n_texts and (total < per_chunk or c == n_chunks - 1):
                total += lengths[t]
                t += 1
            chunks[c].end_text = t
        with nogil:
            if n_chunks == 1:
                ok = scan_chunk(&interner.table, &chunks[0], kinds, datas, lengths, offsets_data + 1, mode, class_table,
                                False)
            else:
                for c in prange(n_chunks, num_threads=n_threads, schedule="dynamic", chunksize=1):
                    chunks[c].failed = not scan_chunk(&interner.table, &chunks[c], kinds, datas, lengths,
                                                      offsets_data + 1, mode, class_table, True)
                for c in range(n_chunks):
                    if chunks[c].failed or not merge_chunk(&interner.table, &chunks[c]):
                        ok = False
            offsets_data[0] = 0
            for t in range(n_texts):
                offsets_data[t + 1] += offsets_data[t]
        if not ok:
            raise MemoryError("encode_raw: out of memory while interning tokens")
        dims[0] = offsets_data[n_texts]
        raw = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
        total = 0
        for c in range(n_chunks):
            if chunks[c].ids.used:
                memcpy(<int32_t *>cnp.PyArray_DATA(raw) + total, chunks[c].ids.data,
                       chunks[c].ids.used * sizeof(int32_t))
            total += chunks[c].ids.used
        return raw, offsets
    finally:
        for c in range(n_chunks):
            free_chunk(&chunks[c])
        free(kinds); free(datas); free(lengths); free(chunks)


def first_non_str(texts):
    """Index of the first element of a sequence that is not a ``str``, -1 when all are: the
    batch APIs' type check in one C loop (a Python set of the types costs ~40 ns an element)."""
    cdef object seq = PySequence_Fast(texts, "texts must be a sequence")  # a list or tuple as it is
    cdef PyObject **items = PySequence_Fast_ITEMS(seq)
    cdef Py_ssize_t n = len(seq), i
    for i in range(n):
        if i + PREFETCH_AHEAD < n:
            qascore_prefetch(items[i + PREFETCH_AHEAD])
        if not object_is_str(items[i]):
            return i
    return -1


def map_raw_ids(cnp.ndarray raw, cnp.ndarray raw_to_ids):
    """In place: ``raw[i] = raw_to_ids[raw[i]]`` (int32 arrays; every raw id must be mapped)."""
    cdef int32_t *ids = <int32_t *>cnp.PyArray_DATA(raw)
    cdef const int32_t *table = <const int32_t *>cnp.PyArray_DATA(raw_to_ids)
    cdef Py_ssize_t i, n = cnp.PyArray_SIZE(raw)
    if cnp.PyArray_TYPE(raw) != cnp.NPY_INT32 or cnp.PyArray_TYPE(raw_to_ids) != cnp.NPY_INT32:
        raise TypeError("map_raw_ids takes int32 arrays")
    if not (cnp.PyArray_IS_C_CONTIGUOUS(raw) and cnp.PyArray_IS_C_CONTIGUOUS(raw_to_ids)):
        raise ValueError("map_raw_ids takes contiguous arrays")
    with nogil:
        for i in range(n):
            ids[i] = table[ids[i]]
