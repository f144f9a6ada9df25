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

    /* Byte b at position k (< 8) of a word, as qascore_load_word would place it. */
    static inline uint64_t qascore_byte_in_word(uint8_t b, int64_t k) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        return (uint64_t)b << (8 * (7 - k));
    #else
        return (uint64_t)b << (8 * k);
    #endif
    }
    """
    int qascore_unicode_ready(object o) except -1
    int qascore_unicode_kind(object o)
    const void *qascore_unicode_data(object o)
    Py_ssize_t qascore_unicode_length(object o)
    uint64_t qascore_load_word(const uint8_t *p, int64_t n) noexcept nogil
    uint64_t qascore_byte_in_word(uint8_t b, int64_t k) noexcept nogil
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
    CHUNKS_PER_THREAD = 2  # each chunk's own table is merged serially: few chunks, little merging
    SLACK = 8  # every buffer that words are loaded from keeps this many readable bytes past its end
    EXPECTED_CODE_POINTS_PER_TYPE = 64
    MAX_RESERVED_TYPES = 1 << 16  # a wrong guess costs at most a 2 MB table
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


cdef uint64_t HASH_SEED = 0x2545F4914F6CDD1DULL


cdef inline uint64_t hash_mix(uint64_t h, uint64_t word) noexcept nogil:
    h = (h ^ word) * 0xFF51AFD7ED558CCDULL
    return h ^ (h >> 32)


cdef inline uint64_t hash_end(uint64_t h, int64_t n) noexcept nogil:
    return hash_mix(h, <uint64_t>n * 0x9E3779B97F4A7C15ULL)


cdef inline uint64_t hash_token(const uint8_t *s, int64_t n) noexcept nogil:
    """Multiplicative hash over 8-byte words, the last one zero padded, then the length (s has
    SLACK readable bytes past n; n > 0). scan_rouge_text computes the same while it reads."""
    cdef uint64_t h = HASH_SEED
    cdef int64_t i = 0
    while i < n:
        h = hash_mix(h, qascore_load_word(s + i, n - i))
        i += 8
    return hash_end(h, n)


cdef struct Slot:
    uint64_t prefix  # the token's first 8 bytes, zero padded
    uint32_t length
    int32_t id_plus_one  # 0: empty slot


# Distinct byte strings -> dense ids 0, 1, 2, ... in order of first insertion. Open addressing
# with the first 8 bytes and the length inside each slot, so a token of up to 8 bytes (most words)
# is found with one memory access; longer tokens compare their tail in the arena.
cdef struct Table:
    uint8_t *arena
    int64_t arena_used, arena_capacity
    int64_t *starts
    int64_t count, capacity
    Slot *slots
    uint64_t mask


cdef void table_free(Table *t) noexcept nogil:
    free(t.arena)
    free(t.starts)
    free(t.slots)
    t.arena = NULL
    t.starts = NULL
    t.slots = NULL


cdef bint table_init(Table *t) noexcept nogil:
    t.arena_used = 0
    t.count = 0
    t.arena_capacity = 1 << 16
    t.capacity = 1 << 12
    t.mask = (1 << 13) - 1
    t.arena = <uint8_t *>malloc(t.arena_capacity + SLACK)
    t.starts = <int64_t *>malloc((t.capacity + 1) * sizeof(int64_t))
    t.slots = <Slot *>calloc(t.mask + 1, sizeof(Slot))
    if not (t.arena and t.starts and t.slots):
        table_free(t)
        return False
    t.starts[0] = 0
    return True


cdef inline int32_t table_find(const Table *t, const uint8_t *s, int64_t n, uint64_t h) noexcept nogil:
    return table_find_prefix(t, s, n, h, qascore_load_word(s, n))


cdef inline int32_t table_find_prefix(const Table *t, const uint8_t *s, int64_t n, uint64_t h,
                                      uint64_t prefix) noexcept nogil:
    """table_find with the token's first word (qascore_load_word(s, n)) already at hand."""
    cdef uint64_t slot = h & t.mask
    cdef const Slot *entry
    while True:
        entry = &t.slots[slot]
        if entry.id_plus_one == 0:
            return -1
        if entry.prefix == prefix and entry.length == n:
            if n <= 8 or memcmp(t.arena + t.starts[entry.id_plus_one - 1] + 8, s + 8, n - 8) == 0:
                return entry.id_plus_one - 1
        slot = (slot + 1) & t.mask


cdef inline void table_place(Table *t, Slot *slots, uint64_t mask, int64_t raw, uint64_t h) noexcept nogil:
    cdef int64_t start = t.starts[raw]
    cdef int64_t n = t.starts[raw + 1] - start
    cdef uint64_t slot = h & mask
    while slots[slot].id_plus_one != 0:
        slot = (slot + 1) & mask
    slots[slot].prefix = qascore_load_word(t.arena + start, n)
    slots[slot].length = <uint32_t>n
    slots[slot].id_plus_one = <int32_t>(raw + 1)


cdef bint table_grow_arena(Table *t, int64_t needed) noexcept nogil:
    cdef int64_t capacity = t.arena_capacity
    while capacity < needed:
        capacity *= 2
    cdef uint8_t *arena = <uint8_t *>realloc(t.arena, capacity + SLACK)
    if arena == NULL:
        return False
    t.arena, t.arena_capacity = arena, capacity
    return True


cdef bint table_grow_entries(Table *t) noexcept nogil:
    cdef int64_t capacity = t.capacity * 2
    cdef int64_t *starts = <int64_t *>realloc(t.starts, (capacity + 1) * sizeof(int64_t))
    if starts == NULL:
        return False
    t.starts, t.capacity = starts, capacity
    return True


cdef bint table_grow_slots(Table *t) noexcept nogil:
    cdef uint64_t mask = t.mask * 2 + 1
    cdef Slot *slots = <Slot *>calloc(mask + 1, sizeof(Slot))
    cdef int64_t raw
    if slots == NULL:
        return False
    for raw in range(t.count):
        table_place(t, slots, mask, raw, hash_token(t.arena + t.starts[raw], t.starts[raw + 1] - t.starts[raw]))
    free(t.slots)
    t.slots, t.mask = slots, mask
    return True


cdef bint table_reserve(Table *t, int64_t n_types, int64_t n_bytes) noexcept nogil:
    """Room for n_types tokens of n_bytes in all without growing (a fresh table's rehashes)."""
    while 5 * n_types > 4 * <int64_t>(t.mask + 1):
        if not table_grow_slots(t):
            return False
    while t.capacity < n_types:
        if not table_grow_entries(t):
            return False
    return n_bytes <= t.arena_capacity or table_grow_arena(t, n_bytes)


cdef int32_t table_add(Table *t, const uint8_t *s, int64_t n, uint64_t h) noexcept nogil:
    """Append a token known to be absent; -1 when memory (or the int32 id space) runs out."""
    if t.count >= 0x7FFFFFFE or n > <int64_t>0xFFFFFFFFLL:
        return -1
    if t.arena_used + n > t.arena_capacity and not table_grow_arena(t, t.arena_used + n):
        return -1
    if t.count == t.capacity and not table_grow_entries(t):
        return -1
    if 5 * (t.count + 1) > 4 * <int64_t>(t.mask + 1) and not table_grow_slots(t):
        return -1
    memcpy(t.arena + t.arena_used, s, n)
    t.arena_used += n
    t.count += 1
    t.starts[t.count] = t.arena_used
    table_place(t, t.slots, t.mask, t.count - 1, h)
    return <int32_t>(t.count - 1)


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
    GrowBuffer ids  # int32 raw ids; in a parallel run -1 - (local id) for a token the shared table lacked
    GrowBuffer token  # uint8: the token being built
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
    cdef int32_t raw = table_find_prefix(shared, s, n, h, prefix)
    cdef int32_t local
    if raw < 0:
        if not parallel:
            raw = table_add(shared, s, n, h)
            if raw < 0:
                return False
        else:
            local = table_find_prefix(&chunk.local, s, n, h, prefix)
            if local < 0:
                local = table_add(&chunk.local, s, n, h)
                if local < 0:
                    return False
            raw = -1 - local
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


cdef inline void push_byte(uint8_t *token, int64_t *length, uint8_t byte, uint64_t *word, uint64_t *h) noexcept nogil:
    """Append a byte to the token, hashing as hash_token does: each full word is mixed in when
    the next byte arrives, the last (full or partial) one by the caller."""
    cdef int64_t k = length[0] & 7
    if k == 0 and length[0] > 0:
        h[0] = hash_mix(h[0], word[0])
        word[0] = 0
    word[0] |= qascore_byte_in_word(byte, k)
    token[length[0]] = byte
    length[0] += 1


cdef inline bint scan_rouge_text(Table *shared, Chunk *chunk, const CodeUnit *text, int64_t n,
                                 bint parallel) noexcept nogil:
    """Append the raw ids of one text's rouge tokens to chunk.ids (room reserved by the caller).
    Tokens are hashed while they are read: reading back bytes just written stalls the CPU."""
    cdef int64_t i = 0, length
    cdef uint8_t byte
    cdef uint64_t word, h, prefix
    cdef bint ends_token = False
    cdef uint8_t *token = <uint8_t *>chunk.token.data
    while i < n:
        byte = rouge_byte(text[i], &ends_token)
        i += 1
        if byte == 0:
            continue
        length = 0
        word = 0
        h = HASH_SEED
        push_byte(token, &length, byte, &word, &h)
        if CodeUnit is uint8_t:  # Latin-1 text: nothing forces a token to end
            while i < n:
                byte = ROUGE_LATIN1[text[i]]
                if byte == 0:
                    break
                push_byte(token, &length, byte, &word, &h)
                i += 1
        else:
            while i < n and not ends_token:
                byte = rouge_byte(text[i], &ends_token)
                if byte == 0:
                    break
                push_byte(token, &length, byte, &word, &h)
                i += 1
            ends_token = False
        prefix = word if length <= 8 else qascore_load_word(token, 8)
        if not emit_hashed_token(shared, chunk, length, hash_end(hash_mix(h, word), length), prefix, parallel):
            return False
    return True


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
        raw = table_find(shared, local.arena + start, n, h)
        if raw < 0:
            raw = table_add(shared, local.arena + start, n, h)
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
