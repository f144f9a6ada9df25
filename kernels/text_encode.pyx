# cython: language_level=3
"""Compiled tokenise-and-intern for the rouge tokeniser: str data -> raw token ids, no per-token Python.

rouge-score's rule (``text.lower()``, ``[^a-z0-9]+`` -> space, split) reduces, code point by code
point, to: ASCII letters lowercase, ASCII digits stay, U+0130 gives ``i`` and ends the token (its
lowercase is ``i`` + U+0307), U+212A gives ``k``, everything else separates. No other code point
lowercases to anything containing ASCII letters or digits (checked over all of Unicode in the tests).

Tokens are interned into *raw ids* by a :class:`RawInterner`; the Python layer maps raw ids to
vocabulary ids (stemming once per new raw token). Texts are cut into one contiguous chunk per
thread; threads look tokens up read-only and record the ones they miss, which are then interned
serially in text order, so raw ids never depend on the thread count.
"""
cimport cython
from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy

import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef extern from *:
    """
    #include <Python.h>
    #include <string.h>
    #include <stdint.h>
    static int qascore_unicode_ready(PyObject *o) {
    #if PY_VERSION_HEX < 0x030C0000
        return PyUnicode_READY(o);
    #else
        (void)o;
        return 0;
    #endif
    }
    #define qascore_unicode_kind(o) ((int)PyUnicode_KIND(o))
    #define qascore_unicode_data(o) ((const void *)PyUnicode_DATA(o))
    #define qascore_unicode_length(o) PyUnicode_GET_LENGTH(o)

    /* The first `n` (< 8) bytes at p as a word whose other bytes are zero, on either byte order;
       p must have 8 readable bytes. */
    static inline uint64_t qascore_load_word(const uint8_t *p, int64_t n) {
        uint64_t w;
        memcpy(&w, p, 8);
        if (n >= 8) return w;
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        return n == 0 ? 0 : (w & (~(uint64_t)0 << (8 * (8 - n))));
    #else
        return w & (((uint64_t)1 << (8 * n)) - 1);
    #endif
    }
    """
    int qascore_unicode_ready(object o) except -1
    int qascore_unicode_kind(object o)
    const void *qascore_unicode_data(object o)
    Py_ssize_t qascore_unicode_length(object o)
    uint64_t qascore_load_word(const uint8_t *p, int64_t n) noexcept nogil
    bint Py_UNICODE_ISSPACE(uint32_t code) noexcept nogil  # what str.split() and str.isspace() use

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
    CHUNKS_PER_THREAD = 8
    SLACK = 8  # every buffer that words are loaded from keeps this many readable bytes past its end
    DOTTED_CAPITAL_I = 0x130  # lowercases to 'i' + U+0307 (a separator)
    KELVIN_SIGN = 0x212A  # lowercases to 'k'

# Per Latin-1 code point: the byte it adds to a token, 0 for a separator.
cdef uint8_t ROUGE_LATIN1[256]
for _c in range(256):
    ROUGE_LATIN1[_c] = 0
for _c in range(ord("a"), ord("z") + 1):
    ROUGE_LATIN1[_c] = _c
for _c in range(ord("A"), ord("Z") + 1):
    ROUGE_LATIN1[_c] = _c + 32
for _c in range(ord("0"), ord("9") + 1):
    ROUGE_LATIN1[_c] = _c


def rouge_code_point_bytes():
    """What the kernel makes of each code point, for the tests: {code point: (byte, ends token)}
    for every code point that adds to a token."""
    table = {c: (ROUGE_LATIN1[c], False) for c in range(256) if ROUGE_LATIN1[c]}
    table[DOTTED_CAPITAL_I] = (ord("i"), True)
    table[KELVIN_SIGN] = (ord("k"), False)
    return table


cdef inline uint64_t hash_token(const uint8_t *s, int64_t n) noexcept nogil:
    """Multiplicative hash over 8-byte words (s has SLACK readable bytes past n)."""
    cdef uint64_t h = <uint64_t>n * 0x9E3779B97F4A7C15ULL
    cdef int64_t i = 0
    while True:
        h = (h ^ qascore_load_word(s + i, n - i)) * 0xFF51AFD7ED558CCDULL
        h ^= h >> 32
        i += 8
        if i >= n:
            return h


cdef struct Slot:
    uint64_t prefix  # the token's first 8 bytes, zero padded
    uint32_t length
    int32_t id_plus_one  # 0: empty slot


@cython.final
cdef class RawInterner:
    """Distinct byte strings -> dense raw ids 0, 1, 2, ... in order of first insertion.

    Open addressing with the first 8 bytes and the length inside each slot, so a token of up to 8
    bytes (most words) is found with one memory access; longer tokens compare their tail in the
    arena.
    """

    cdef uint8_t *arena
    cdef int64_t arena_used, arena_capacity
    cdef int64_t *starts
    cdef int64_t count, capacity
    cdef Slot *table
    cdef uint64_t mask

    def __cinit__(self):
        self.arena_capacity = 1 << 16
        self.capacity = 1 << 12
        self.mask = (1 << 13) - 1
        self.arena = <uint8_t *>malloc(self.arena_capacity + SLACK)
        self.starts = <int64_t *>malloc((self.capacity + 1) * sizeof(int64_t))
        self.table = <Slot *>calloc(self.mask + 1, sizeof(Slot))
        if not (self.arena and self.starts and self.table):
            raise MemoryError("RawInterner")
        self.starts[0] = 0

    def __dealloc__(self):
        free(self.arena)
        free(self.starts)
        free(self.table)

    def __len__(self):
        return self.count

    def tokens_from(self, int64_t first, str encoding="ascii"):
        """The tokens with raw ids ``first, first + 1, ...`` decoded to ``str``."""
        return [
            (<char *>self.arena)[self.starts[i]:self.starts[i + 1]].decode(encoding, "surrogatepass")
            for i in range(max(first, 0), self.count)
        ]

    cdef inline int32_t find(self, const uint8_t *s, int64_t n, uint64_t h) noexcept nogil:
        cdef uint64_t slot = h & self.mask
        cdef uint64_t prefix = qascore_load_word(s, n)
        cdef Slot *entry
        while True:
            entry = &self.table[slot]
            if entry.id_plus_one == 0:
                return -1
            if entry.prefix == prefix and entry.length == n:
                if n <= 8 or memcmp(self.arena + self.starts[entry.id_plus_one - 1] + 8, s + 8, n - 8) == 0:
                    return entry.id_plus_one - 1
            slot = (slot + 1) & self.mask

    cdef int32_t add(self, const uint8_t *s, int64_t n, uint64_t h) noexcept nogil:
        """Append a token known to be absent; -1 when memory (or the int32 id space) runs out."""
        if self.count >= 0x7FFFFFFE or n > <int64_t>0xFFFFFFFFLL:
            return -1
        if self.arena_used + n > self.arena_capacity and not self._grow_arena(self.arena_used + n):
            return -1
        if self.count == self.capacity and not self._grow_entries():
            return -1
        if 5 * (self.count + 1) > 4 * <int64_t>(self.mask + 1) and not self._grow_table():
            return -1
        memcpy(self.arena + self.arena_used, s, n)
        self.arena_used += n
        self.count += 1
        self.starts[self.count] = self.arena_used
        self._place(self.table, self.mask, self.count - 1, h)
        return <int32_t>(self.count - 1)

    cdef inline void _place(self, Slot *table, uint64_t mask, int64_t raw, uint64_t h) noexcept nogil:
        cdef int64_t start = self.starts[raw]
        cdef int64_t n = self.starts[raw + 1] - start
        cdef uint64_t slot = h & mask
        while table[slot].id_plus_one != 0:
            slot = (slot + 1) & mask
        table[slot].prefix = qascore_load_word(self.arena + start, n)
        table[slot].length = <uint32_t>n
        table[slot].id_plus_one = <int32_t>(raw + 1)

    cdef bint _grow_arena(self, int64_t needed) noexcept nogil:
        cdef int64_t capacity = self.arena_capacity
        while capacity < needed:
            capacity *= 2
        cdef uint8_t *arena = <uint8_t *>realloc(self.arena, capacity + SLACK)
        if arena == NULL:
            return False
        self.arena, self.arena_capacity = arena, capacity
        return True

    cdef bint _grow_entries(self) noexcept nogil:
        cdef int64_t capacity = self.capacity * 2
        cdef int64_t *starts = <int64_t *>realloc(self.starts, (capacity + 1) * sizeof(int64_t))
        if starts == NULL:
            return False
        self.starts, self.capacity = starts, capacity
        return True

    cdef bint _grow_table(self) noexcept nogil:
        cdef uint64_t mask = self.mask * 2 + 1
        cdef Slot *table = <Slot *>calloc(mask + 1, sizeof(Slot))
        cdef int64_t raw
        if table == NULL:
            return False
        for raw in range(self.count):
            self._place(table, mask, raw,
                        hash_token(self.arena + self.starts[raw], self.starts[raw + 1] - self.starts[raw]))
        free(self.table)
        self.table, self.mask = table, mask
        return True


cdef struct GrowBuffer:
    void *data
    int64_t used, capacity, item_size


cdef inline bint buffer_reserve(GrowBuffer *b, int64_t extra) noexcept nogil:
    """Room for ``extra`` more items, plus SLACK readable bytes past them."""
    cdef int64_t capacity = b.capacity if b.capacity > 0 else 256
    cdef void *data
    if b.used + extra <= b.capacity:
        return True
    while capacity < b.used + extra:
        capacity *= 2
    data = realloc(b.data, capacity * b.item_size + SLACK)
    if data == NULL:
        return False
    b.data, b.capacity = data, capacity
    return True


cdef struct Chunk:
    int64_t first_text, end_text
    GrowBuffer ids  # int32 raw ids (-1 for a miss until resolve_misses)
    GrowBuffer token  # uint8: the token being built
    GrowBuffer miss_positions  # int64: index into ids
    GrowBuffer miss_bytes  # uint8: the missed tokens back to back
    GrowBuffer miss_lengths  # int64
    bint failed


cdef inline bint emit_token(RawInterner interner, Chunk *chunk, int64_t n, bint may_insert) noexcept nogil:
    """Intern the n-byte token in chunk.token and append its raw id; False when out of memory."""
    cdef const uint8_t *s = <const uint8_t *>chunk.token.data
    cdef uint64_t h = hash_token(s, n)
    cdef int32_t raw = interner.find(s, n, h)
    if raw < 0:
        if may_insert:
            raw = interner.add(s, n, h)
            if raw < 0:
                return False
        else:
            if not (buffer_reserve(&chunk.miss_positions, 1) and buffer_reserve(&chunk.miss_lengths, 1)
                    and buffer_reserve(&chunk.miss_bytes, n)):
                return False
            (<int64_t *>chunk.miss_positions.data)[chunk.miss_positions.used] = chunk.ids.used
            chunk.miss_positions.used += 1
            (<int64_t *>chunk.miss_lengths.data)[chunk.miss_lengths.used] = n
            chunk.miss_lengths.used += 1
            memcpy(<uint8_t *>chunk.miss_bytes.data + chunk.miss_bytes.used, s, n)
            chunk.miss_bytes.used += n
    if chunk.ids.used == chunk.ids.capacity and not buffer_reserve(&chunk.ids, 1):
        return False
    (<int32_t *>chunk.ids.data)[chunk.ids.used] = raw
    chunk.ids.used += 1
    return True


ctypedef fused CodeUnit:
    uint8_t
    uint16_t
    uint32_t


cdef inline uint8_t rouge_byte(CodeUnit code, bint *ends_token) noexcept nogil:
    """The byte a code point adds to a rouge token (0: separator); flags U+0130's forced end."""
    if CodeUnit is uint8_t:
        return ROUGE_LATIN1[code]
    else:
        if code < 256:
            return ROUGE_LATIN1[code]
        if code == DOTTED_CAPITAL_I:
            ends_token[0] = True
            return 105  # 'i'
        if code == KELVIN_SIGN:
            return 107  # 'k'
        return 0


cdef inline bint scan_rouge_text(RawInterner interner, Chunk *chunk, const CodeUnit *text, int64_t n,
                                 bint may_insert) noexcept nogil:
    """Append the raw ids of one text's rouge tokens to chunk.ids (room reserved by the caller)."""
    cdef int64_t i = 0, length
    cdef uint8_t byte
    cdef bint ends_token = False
    cdef uint8_t *token = <uint8_t *>chunk.token.data
    while i < n:
        byte = rouge_byte(text[i], &ends_token)
        i += 1
        if byte == 0:
            continue
        token[0] = byte
        length = 1
        if CodeUnit is uint8_t:  # Latin-1 text: nothing forces a token to end
            while i < n:
                byte = ROUGE_LATIN1[text[i]]
                if byte == 0:
                    break
                token[length] = byte
                length += 1
                i += 1
        else:
            while i < n and not ends_token:
                byte = rouge_byte(text[i], &ends_token)
                if byte == 0:
                    break
                token[length] = byte
                length += 1
                i += 1
            ends_token = False
        if not emit_token(interner, chunk, length, may_insert):
            return False
    return True


cdef inline uint8_t generic_class(uint32_t code, int mode, const uint8_t *classes) noexcept nogil:
    if mode == MODE_CLASSES:
        return classes[code] if code < 0x110000 else CLASS_SEPARATOR
    if Py_UNICODE_ISSPACE(code):
        return CLASS_SEPARATOR
    return CLASS_WORD if mode == MODE_WHITESPACE else CLASS_ALONE


cdef inline bint scan_generic_text(RawInterner interner, Chunk *chunk, const CodeUnit *text, int64_t n,
                                   int mode, const uint8_t *classes, bint may_insert) noexcept nogil:
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
            if not emit_token(interner, chunk, length, may_insert):
                return False
            length = 0
        single_open = kind == CLASS_SINGLE
        if kind == CLASS_SEPARATOR:
            continue
        memcpy(token + length, &code, 4)
        length += 4
        if kind == CLASS_ALONE:
            if not emit_token(interner, chunk, length, may_insert):
                return False
            length = 0
    if length > 0:
        return emit_token(interner, chunk, length, may_insert)
    return True


cdef inline bint scan_text(RawInterner interner, Chunk *chunk, const CodeUnit *text, int64_t n, int mode,
                           const uint8_t *classes, bint may_insert) noexcept nogil:
    if mode == MODE_ROUGE:
        return scan_rouge_text(interner, chunk, text, n, may_insert)
    return scan_generic_text(interner, chunk, text, n, mode, classes, may_insert)


cdef bint scan_chunk(RawInterner interner, Chunk *chunk, int *kinds, const void **datas, Py_ssize_t *lengths,
                     int64_t *counts, int mode, const uint8_t *classes, bint may_insert) noexcept nogil:
    cdef int64_t t, before
    cdef bint ok
    cdef int64_t bytes_per_code_point = 1 if mode == MODE_ROUGE else 4
    for t in range(chunk.first_text, chunk.end_text):
        before = chunk.ids.used
        # A token has at most as many code points as its text; ids grow as tokens come.
        if not buffer_reserve(&chunk.token, bytes_per_code_point * (lengths[t] + 1)):
            return False
        if kinds[t] == 1:
            ok = scan_text(interner, chunk, <const uint8_t *>datas[t], lengths[t], mode, classes, may_insert)
        elif kinds[t] == 2:
            ok = scan_text(interner, chunk, <const uint16_t *>datas[t], lengths[t], mode, classes, may_insert)
        else:
            ok = scan_text(interner, chunk, <const uint32_t *>datas[t], lengths[t], mode, classes, may_insert)
        if not ok:
            return False
        counts[t] = chunk.ids.used - before
    return True


cdef bint resolve_misses(RawInterner interner, Chunk *chunk) noexcept nogil:
    """Intern, in text order, the tokens a thread could not find in the read-only table."""
    cdef int64_t m, offset = 0, n
    cdef const uint8_t *s
    cdef uint64_t h
    cdef int32_t raw
    for m in range(chunk.miss_positions.used):
        n = (<int64_t *>chunk.miss_lengths.data)[m]
        s = <const uint8_t *>chunk.miss_bytes.data + offset
        offset += n
        h = hash_token(s, n)
        raw = interner.find(s, n, h)
        if raw < 0:
            raw = interner.add(s, n, h)
            if raw < 0:
                return False
        (<int32_t *>chunk.ids.data)[(<int64_t *>chunk.miss_positions.data)[m]] = raw
    return True


cdef void free_chunk(Chunk *chunk) noexcept nogil:
    free(chunk.ids.data)
    free(chunk.token.data)
    free(chunk.miss_positions.data)
    free(chunk.miss_bytes.data)
    free(chunk.miss_lengths.data)


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
            text = held[t]
            qascore_unicode_ready(text)
            kinds[t] = qascore_unicode_kind(text)
            datas[t] = qascore_unicode_data(text)
            lengths[t] = qascore_unicode_length(text)
            total += lengths[t]
        # Consecutive texts, about the same number of code points per chunk.
        per_chunk = total // n_chunks + 1
        t = 0
        for c in range(n_chunks):
            chunks[c].ids.item_size = sizeof(int32_t)
            chunks[c].token.item_size = 1
            chunks[c].miss_positions.item_size = sizeof(int64_t)
            chunks[c].miss_bytes.item_size = 1
            chunks[c].miss_lengths.item_size = sizeof(int64_t)
            chunks[c].first_text = t
            total = 0
            while t < n_texts and (total < per_chunk or c == n_chunks - 1):
                total += lengths[t]
                t += 1
            chunks[c].end_text = t
        with nogil:
            if n_chunks == 1:
                ok = scan_chunk(interner, &chunks[0], kinds, datas, lengths, offsets_data + 1, mode, class_table,
                                True)
            else:
                for c in prange(n_chunks, num_threads=n_threads, schedule="dynamic", chunksize=1):
                    chunks[c].failed = not scan_chunk(interner, &chunks[c], kinds, datas, lengths,
                                                      offsets_data + 1, mode, class_table, False)
                for c in range(n_chunks):
                    if chunks[c].failed or not resolve_misses(interner, &chunks[c]):
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
