# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""sacreBLEU's ``13a`` tokeniser fused with exact token interning, for a batch of lines.

For each line: strip trailing whitespace (``str.rstrip``), apply 13a's escapes in sacrebleu's
order as single left-to-right passes (``str.replace`` semantics), pad with one space on each side,
apply the four mteval substitutions one after another (``re.sub`` semantics: non-overlapping,
left to right), split on Unicode whitespace (``str.split``). Tokens are interned into dense ids
by content (hash table with full comparison, so no collisions). The Python tokeniser in
``qascore.text.sacrebleu_tokenizers`` is the readable definition; tests hold the two equal.
"""
import numpy as np

from cpython.unicode cimport Py_UNICODE_ISSPACE

cdef extern from "Python.h":
    int PyUnicode_KIND(object o)
    void* PyUnicode_DATA(object o)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memcpy


cdef struct Buf:
    Py_UCS4* p
    Py_ssize_t n
    Py_ssize_t cap


cdef int reserve(Buf* b, Py_ssize_t need) except -1:
    cdef Py_ssize_t cap
    cdef Py_UCS4* p
    if need <= b.cap:
        return 0
    cap = max(need, 2 * b.cap, 64)
    p = <Py_UCS4*>realloc(b.p, cap * sizeof(Py_UCS4))
    if p == NULL:
        raise MemoryError()
    b.p = p
    b.cap = cap
    return 0


cdef inline bint is_digit(Py_UCS4 c) noexcept nogil:
    return 0x30 <= c <= 0x39


cdef inline bint is_13a_symbol(Py_UCS4 c) noexcept nogil:
    # [\{-\~\[-\` -\&\(-\+\:-\@\/]
    return ((0x7B <= c <= 0x7E) or (0x5B <= c <= 0x60) or (0x20 <= c <= 0x26)
            or (0x28 <= c <= 0x2B) or (0x3A <= c <= 0x40) or c == 0x2F)


cdef int replace_pass(Buf* src, Buf* dst, const Py_UCS4* pat, Py_ssize_t plen,
                      const Py_UCS4* rep, Py_ssize_t rlen) except -1:
    """``str.replace(pat, rep)`` from src into dst (rlen <= plen, so dst never outgrows src)."""
    reserve(dst, src.n + 1)
    cdef Py_ssize_t i = 0, o = 0, n = src.n, k
    cdef Py_UCS4* s = src.p
    cdef Py_UCS4* d = dst.p
    while i < n:
        if s[i] == pat[0] and i + plen <= n and memcmp(&s[i], pat, plen * sizeof(Py_UCS4)) == 0:
            for k in range(rlen):
                d[o + k] = rep[k]
            o += rlen
            i += plen
        else:
            d[o] = s[i]
            o += 1
            i += 1
    dst.n = o
    return 0


cdef void swap(Buf* a, Buf* b) noexcept:
    cdef Buf t = a[0]
    a[0] = b[0]
    b[0] = t


cdef int mteval_passes(Buf* a, Buf* b) except -1:
    """The four mteval-v13a substitutions; the result ends in ``a``."""
    cdef Py_ssize_t i, o, n
    cdef Py_UCS4 c
    # 1. ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> ' \1 '
    n = a.n
    reserve(b, 3 * n + 1)
    o = 0
    for i in range(n):
        c = a.p[i]
        if is_13a_symbol(c):
            b.p[o] = 32
            b.p[o + 1] = c
            b.p[o + 2] = 32
            o += 3
        else:
            b.p[o] = c
            o += 1
    b.n = o
    swap(a, b)
    # 2. ([^0-9])([\.,]) -> '\1 \2 '
    n = a.n
    reserve(b, 2 * n + 1)
    i = 0
    o = 0
    while i < n:
        c = a.p[i]
        if i + 1 < n and not is_digit(c) and (a.p[i + 1] == 46 or a.p[i + 1] == 44):
            b.p[o] = c
            b.p[o + 1] = 32
            b.p[o + 2] = a.p[i + 1]
            b.p[o + 3] = 32
            o += 4
            i += 2
        else:
            b.p[o] = c
            o += 1
            i += 1
    b.n = o
    swap(a, b)
    # 3. ([\.,])([^0-9]) -> ' \1 \2'
    n = a.n
    reserve(b, 2 * n + 1)
    i = 0
    o = 0
    while i < n:
        c = a.p[i]
        if (c == 46 or c == 44) and i + 1 < n and not is_digit(a.p[i + 1]):
            b.p[o] = 32
            b.p[o + 1] = c
            b.p[o + 2] = 32
            b.p[o + 3] = a.p[i + 1]
            o += 4
            i += 2
        else:
            b.p[o] = c
            o += 1
            i += 1
    b.n = o
    swap(a, b)
    # 4. ([0-9])(-) -> '\1 \2 '
    n = a.n
    reserve(b, 2 * n + 1)
    i = 0
    o = 0
    while i < n:
        c = a.p[i]
        if is_digit(c) and i + 1 < n and a.p[i + 1] == 45:
            b.p[o] = c
            b.p[o + 1] = 32
            b.p[o + 2] = 45
            b.p[o + 3] = 32
            o += 4
            i += 2
        else:
            b.p[o] = c
            o += 1
            i += 1
    b.n = o
    swap(a, b)
    return 0


cdef class _Interner:
    """Exact token -> dense id table (open addressing, full comparison of contents)."""
    cdef int32_t* slots
    cdef Py_ssize_t cap
    cdef Py_UCS4* pool
    cdef Py_ssize_t pool_n, pool_cap
    cdef int64_t* start
    cdef int32_t* length
    cdef uint64_t* hashes
    cdef Py_ssize_t n_types, types_cap

    def __cinit__(self):
        self.cap = 1024
        self.slots = <int32_t*>malloc(self.cap * sizeof(int32_t))
        self.types_cap = 512
        self.start = <int64_t*>malloc(self.types_cap * sizeof(int64_t))
        self.length = <int32_t*>malloc(self.types_cap * sizeof(int32_t))
        self.hashes = <uint64_t*>malloc(self.types_cap * sizeof(uint64_t))
        self.pool_cap = 4096
        self.pool = <Py_UCS4*>malloc(self.pool_cap * sizeof(Py_UCS4))
        if self.slots == NULL or self.start == NULL or self.length == NULL or self.hashes == NULL or self.pool == NULL:
            raise MemoryError()
        cdef Py_ssize_t i
        for i in range(self.cap):
            self.slots[i] = -1

    def __dealloc__(self):
        free(self.slots)
        free(self.pool)
        free(self.start)
        free(self.length)
        free(self.hashes)

    cdef int grow_table(self) except -1:
        cdef Py_ssize_t cap = self.cap * 2, i, j
        cdef int32_t* slots = <int32_t*>malloc(cap * sizeof(int32_t))
        if slots == NULL:
            raise MemoryError()
        for i in range(cap):
            slots[i] = -1
        for i in range(self.n_types):
            j = <Py_ssize_t>(self.hashes[i] & <uint64_t>(cap - 1))
            while slots[j] != -1:
                j = (j + 1) & (cap - 1)
            slots[j] = <int32_t>i
        free(self.slots)
        self.slots = slots
        self.cap = cap
        return 0

    cdef int32_t intern(self, const Py_UCS4* tok, Py_ssize_t n) except -1:
        cdef uint64_t h = 1469598103934665603ULL
        cdef Py_ssize_t i, j
        cdef int32_t t
        for i in range(n):
            h = (h ^ <uint64_t>tok[i]) * 1099511628211ULL
        h ^= h >> 29
        j = <Py_ssize_t>(h & <uint64_t>(self.cap - 1))
        while True:
            t = self.slots[j]
            if t == -1:
                break
            if (self.hashes[t] == h and self.length[t] == n
                    and memcmp(&self.pool[self.start[t]], tok, n * sizeof(Py_UCS4)) == 0):
                return t
            j = (j + 1) & (self.cap - 1)
        # new type
        if self.n_types == self.types_cap:
            self.types_cap *= 2
            self.start = <int64_t*>realloc(self.start, self.types_cap * sizeof(int64_t))
            self.length = <int32_t*>realloc(self.length, self.types_cap * sizeof(int32_t))
            self.hashes = <uint64_t*>realloc(self.hashes, self.types_cap * sizeof(uint64_t))
            if self.start == NULL or self.length == NULL or self.hashes == NULL:
                raise MemoryError()
        if self.pool_n + n > self.pool_cap:
            self.pool_cap = max(2 * self.pool_cap, self.pool_n + n)
            self.pool = <Py_UCS4*>realloc(self.pool, self.pool_cap * sizeof(Py_UCS4))
            if self.pool == NULL:
                raise MemoryError()
        memcpy(&self.pool[self.pool_n], tok, n * sizeof(Py_UCS4))
        t = <int32_t>self.n_types
        self.start[t] = self.pool_n
        self.length[t] = <int32_t>n
        self.hashes[t] = h
        self.pool_n += n
        self.n_types += 1
        self.slots[j] = t
        if 2 * self.n_types > self.cap:
            self.grow_table()
        return t


cdef Py_UCS4 SKIPPED[9]
cdef Py_UCS4 DASH_NL[2]
cdef Py_UCS4 NL[1]
cdef Py_UCS4 SPACE[1]
cdef Py_UCS4 QUOT[6]
cdef Py_UCS4 AMP[5]
cdef Py_UCS4 LT[4]
cdef Py_UCS4 GT[4]
cdef Py_UCS4 CH_QUOTE[1]
cdef Py_UCS4 CH_AMP[1]
cdef Py_UCS4 CH_LT[1]
cdef Py_UCS4 CH_GT[1]


cdef void fill(Py_UCS4* dst, str text):
    cdef Py_ssize_t i
    for i in range(len(text)):
        dst[i] = text[i]


fill(SKIPPED, "<skipped>")
fill(DASH_NL, "-\n")
fill(NL, "\n")
fill(SPACE, " ")
fill(QUOT, "&quot;")
fill(AMP, "&amp;")
fill(LT, "&lt;")
fill(GT, "&gt;")
fill(CH_QUOTE, '"')
fill(CH_AMP, "&")
fill(CH_LT, "<")
fill(CH_GT, ">")


def tokenize_13a_packed(list lines):
    """13a-tokenise and intern every line: (ids int32, offsets int64, number of token types).

    Row i is ``ids[offsets[i]:offsets[i + 1]]``; lines must be ``str`` (checked by the caller).
    """
    cdef Buf a, b
    a.p = NULL; a.n = 0; a.cap = 0
    b.p = NULL; b.n = 0; b.cap = 0
    cdef _Interner vocab = _Interner()
    cdef Py_ssize_t n_lines = len(lines), li, i, end, tok_start
    cdef Py_ssize_t ids_n = 0, ids_cap = 1024
    cdef int32_t* ids = <int32_t*>malloc(ids_cap * sizeof(int32_t))
    cdef int32_t* grown
    offsets = np.zeros(n_lines + 1, dtype=np.int64)
    cdef int64_t[::1] off = offsets
    cdef str line
    cdef int kind
    cdef void* data
    cdef int32_t[::1] out_view
    cdef Py_UCS4 c
    cdef bint has_lt, has_nl, has_amp
    if ids == NULL:
        raise MemoryError()
    try:
        for li in range(n_lines):
            line = <str>lines[li]
            kind = PyUnicode_KIND(line)
            data = PyUnicode_DATA(line)
            end = PyUnicode_GET_LENGTH(line)
            while end > 0 and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, end - 1)):
                end -= 1
            # copy with a leading pad space; note which escapes can occur
            reserve(&a, end + 2)
            a.p[0] = 32
            has_lt = has_nl = has_amp = False
            for i in range(end):
                c = PyUnicode_READ(kind, data, i)
                a.p[i + 1] = c
                if c == 60:
                    has_lt = True
                elif c == 10:
                    has_nl = True
                elif c == 38:
                    has_amp = True
            a.n = end + 1
            if has_lt:
                # the pad space cannot take part in any pattern, so passes over a[0:] are exact
                replace_pass(&a, &b, SKIPPED, 9, NULL, 0); swap(&a, &b)
            if has_nl:
                replace_pass(&a, &b, DASH_NL, 2, NULL, 0); swap(&a, &b)
                replace_pass(&a, &b, NL, 1, SPACE, 1); swap(&a, &b)
            if has_amp:
                replace_pass(&a, &b, QUOT, 6, CH_QUOTE, 1); swap(&a, &b)
                replace_pass(&a, &b, AMP, 5, CH_AMP, 1); swap(&a, &b)
                replace_pass(&a, &b, LT, 4, CH_LT, 1); swap(&a, &b)
                replace_pass(&a, &b, GT, 4, CH_GT, 1); swap(&a, &b)
            reserve(&a, a.n + 1)
            a.p[a.n] = 32
            a.n += 1
            mteval_passes(&a, &b)
            # split on whitespace and intern
            i = 0
            while i < a.n:
                while i < a.n and Py_UNICODE_ISSPACE(a.p[i]):
                    i += 1
                if i >= a.n:
                    break
                tok_start = i
                while i < a.n and not Py_UNICODE_ISSPACE(a.p[i]):
                    i += 1
                if ids_n == ids_cap:
                    ids_cap *= 2
                    grown = <int32_t*>realloc(ids, ids_cap * sizeof(int32_t))
                    if grown == NULL:
                        raise MemoryError()
                    ids = grown
                ids[ids_n] = vocab.intern(&a.p[tok_start], i - tok_start)
                ids_n += 1
            off[li + 1] = ids_n
        out = np.empty(ids_n, dtype=np.int32)
        if ids_n:
            out_view = out
            memcpy(&out_view[0], ids, ids_n * sizeof(int32_t))
        return out, offsets, vocab.n_types
    finally:
        free(a.p)
        free(b.p)
        free(ids)
