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
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
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


cdef inline bint is_space(Py_UCS4 c) noexcept:
    # str.split()'s whitespace; ASCII answered without a call
    if c < 128:
        return c == 32 or (9 <= c <= 13) or (28 <= c <= 31)
    return Py_UNICODE_ISSPACE(c)


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


cdef bint has_amp_char(Buf* a) noexcept:
    cdef Py_ssize_t i
    for i in range(a.n):
        if a.p[i] == 38:
            return True
    return False


cdef void swap(Buf* a, Buf* b) noexcept:
    cdef Buf t = a[0]
    a[0] = b[0]
    b[0] = t


cdef inline bint pair_rule_matches(int rule, Py_UCS4 c, Py_UCS4 d) noexcept nogil:
    if rule == 2:  # ([^0-9])([\.,])
        return not is_digit(c) and (d == 46 or d == 44)
    if rule == 3:  # ([\.,])([^0-9])
        return (c == 46 or c == 44) and not is_digit(d)
    return is_digit(c) and d == 45  # rule 4: ([0-9])(-)


cdef int pair_pass(Buf* a, Buf* b, int rule) except -1:
    """One two-character mteval substitution with ``re.sub`` semantics (non-overlapping, left to
    right): rules 2 and 4 write ``\\1 \\2 ``, rule 3 writes `` \\1 \\2``; the result ends in ``a``."""
    cdef Py_ssize_t i = 0, o = 0, n = a.n
    cdef Py_UCS4 c, d
    reserve(b, 2 * n + 1)
    while i < n:
        c = a.p[i]
        if i + 1 < n and pair_rule_matches(rule, c, a.p[i + 1]):
            d = a.p[i + 1]
            if rule == 3:
                b.p[o] = 32
                b.p[o + 1] = c
                b.p[o + 2] = 32
                b.p[o + 3] = d
            else:
                b.p[o] = c
                b.p[o + 1] = 32
                b.p[o + 2] = d
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


cdef int symbol_pass(Buf* a, Buf* b) except -1:
    """The first mteval-v13a substitution; the result ends in ``a``."""
    cdef Py_ssize_t i, o = 0, n = a.n
    cdef Py_UCS4 c
    # 1. ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> ' \1 '
    reserve(b, 3 * n + 1)
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
    return 0


cdef int pair_passes(Buf* a, Buf* b, bint has_point, bint has_dash) except -1:
    """The other three mteval substitutions. A pass whose trigger character (``.``/``,`` or
    ``-``) is absent from the line cannot change it and is skipped; no pass creates them."""
    if has_point:
        pair_pass(a, b, 2)
        pair_pass(a, b, 3)
    if has_dash:
        pair_pass(a, b, 4)
    return 0


cdef struct Slot:
    uint32_t tag   # high half of the hash: most mismatches end here without touching the pool
    int32_t id


cdef struct TypeSpan:
    int64_t start  # offset of the token's characters in the pool
    int32_t length
    int32_t slot   # where the type sits in the table, so a reset clears only used slots


cdef inline bint same_text(const Py_UCS4* a, const Py_UCS4* b, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if a[i] != b[i]:
            return False
    return True


cdef class _Interner:
    """Exact token -> dense id table: open addressing on a 64-bit hash kept in the slot, and a
    full comparison of the contents before a hit is accepted (so no collisions)."""
    cdef Slot* slots
    cdef Py_ssize_t cap
    cdef Py_UCS4* pool
    cdef Py_ssize_t pool_n, pool_cap
    cdef TypeSpan* spans
    cdef uint64_t* hashes  # full hash per type, only read when the table grows
    cdef Py_ssize_t n_types, types_cap

    def __cinit__(self):
        self.cap = 1024
        self.slots = <Slot*>malloc(self.cap * sizeof(Slot))
        self.types_cap = 512
        self.spans = <TypeSpan*>malloc(self.types_cap * sizeof(TypeSpan))
        self.hashes = <uint64_t*>malloc(self.types_cap * sizeof(uint64_t))
        self.pool_cap = 4096
        self.pool = <Py_UCS4*>malloc(self.pool_cap * sizeof(Py_UCS4))
        if self.slots == NULL or self.spans == NULL or self.hashes == NULL or self.pool == NULL:
            raise MemoryError()
        cdef Py_ssize_t i
        for i in range(self.cap):
            self.slots[i].id = -1

    def __dealloc__(self):
        free(self.slots)
        free(self.pool)
        free(self.spans)
        free(self.hashes)

    cdef void reset(self) noexcept:
        """Forget every type (ids restart at 0) in time proportional to the types seen."""
        cdef Py_ssize_t t
        for t in range(self.n_types):
            self.slots[self.spans[t].slot].id = -1
        self.n_types = 0
        self.pool_n = 0

    cdef int grow_table(self) except -1:
        cdef Py_ssize_t cap = self.cap * 2, i, j
        cdef Slot* slots = <Slot*>malloc(cap * sizeof(Slot))
        if slots == NULL:
            raise MemoryError()
        for i in range(cap):
            slots[i].id = -1
        for i in range(self.cap):
            if self.slots[i].id != -1:
                j = <Py_ssize_t>(self.hashes[self.slots[i].id] & <uint64_t>(cap - 1))
                while slots[j].id != -1:
                    j = (j + 1) & (cap - 1)
                slots[j] = self.slots[i]
                self.spans[self.slots[i].id].slot = <int32_t>j
        free(self.slots)
        self.slots = slots
        self.cap = cap
        return 0

    cdef int32_t intern(self, const Py_UCS4* tok, Py_ssize_t n, uint64_t h) except -1:
        """Id of token ``tok[:n]`` whose FNV-1a hash (computed by the caller while scanning) is h."""
        cdef Py_ssize_t j
        cdef int32_t t
        cdef uint32_t tag
        # FNV's low bits depend only on the characters' low bits: mix (murmur3 fmix64) before masking
        h ^= h >> 33
        h *= 0xff51afd7ed558ccdULL
        h ^= h >> 33
        h *= 0xc4ceb9fe1a85ec53ULL
        h ^= h >> 33
        tag = <uint32_t>(h >> 32)
        j = <Py_ssize_t>(h & <uint64_t>(self.cap - 1))
        while True:
            t = self.slots[j].id
            if t == -1:
                break
            if (self.slots[j].tag == tag and self.spans[t].length == n
                    and same_text(&self.pool[self.spans[t].start], tok, n)):
                return t
            j = (j + 1) & (self.cap - 1)
        if self.n_types == self.types_cap:
            self.types_cap *= 2
            self.spans = <TypeSpan*>realloc(self.spans, self.types_cap * sizeof(TypeSpan))
            self.hashes = <uint64_t*>realloc(self.hashes, self.types_cap * sizeof(uint64_t))
            if self.spans == NULL or self.hashes == NULL:
                raise MemoryError()
        if self.pool_n + n > self.pool_cap:
            self.pool_cap = max(2 * self.pool_cap, self.pool_n + n)
            self.pool = <Py_UCS4*>realloc(self.pool, self.pool_cap * sizeof(Py_UCS4))
            if self.pool == NULL:
                raise MemoryError()
        memcpy(&self.pool[self.pool_n], tok, n * sizeof(Py_UCS4))
        t = <int32_t>self.n_types
        self.spans[t].start = self.pool_n
        self.spans[t].length = <int32_t>n
        self.spans[t].slot = <int32_t>j
        self.hashes[t] = h
        self.pool_n += n
        self.n_types += 1
        self.slots[j].tag = tag
        self.slots[j].id = t
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


def tokenize_13a_packed(list lines, const int64_t[::1] group_starts=None):
    """13a-tokenise and intern every line: (ids int32, offsets int64, most token types in a group).

    Row i is ``ids[offsets[i]:offsets[i + 1]]``; lines must be ``str`` (checked by the caller).
    With ``group_starts`` (increasing line indices, the first 0) ids are only comparable within
    a group: the table restarts at each group, so it stays small and in cache (BLEU compares a
    hypothesis with its own references only). Without it one vocabulary spans the batch.
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
    cdef bint has_escape, has_point, has_dash
    cdef Py_ssize_t o
    cdef uint64_t h
    cdef Py_ssize_t next_group = 0, n_groups = 0, most_types = 0
    if group_starts is not None:
        n_groups = group_starts.shape[0]
        if n_groups and group_starts[0] != 0:
            raise ValueError("group_starts must begin at line 0")
    if ids == NULL:
        raise MemoryError()
    try:
        for li in range(n_lines):
            if next_group < n_groups and group_starts[next_group] == li:
                most_types = max(most_types, vocab.n_types)
                vocab.reset()
                next_group += 1
            line = <str>lines[li]
            kind = PyUnicode_KIND(line)
            data = PyUnicode_DATA(line)
            end = PyUnicode_GET_LENGTH(line)
            while end > 0 and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, end - 1)):
                end -= 1
            # Fast path: copy with pad spaces and the symbol rule applied at once, noting triggers.
            reserve(&a, 3 * end + 3)
            a.p[0] = 32
            o = 1
            has_escape = has_point = has_dash = False
            for i in range(end):
                c = PyUnicode_READ(kind, data, i)
                if is_13a_symbol(c):
                    a.p[o] = 32
                    a.p[o + 1] = c
                    a.p[o + 2] = 32
                    o += 3
                    if c == 60 or c == 38:  # '<skipped>' and '&...;' escapes start here
                        has_escape = True
                else:
                    a.p[o] = c
                    o += 1
                    if c == 46 or c == 44:
                        has_point = True
                    elif c == 45:
                        has_dash = True
                    elif c == 10:
                        has_escape = True
            a.p[o] = 32
            a.n = o + 1
            if has_escape:
                # Rare: redo from the raw line with 13a's replacements in sacrebleu's order. The pad
                # space cannot take part in any pattern, so passes over the padded text are exact.
                reserve(&a, end + 2)
                a.p[0] = 32
                for i in range(end):
                    a.p[i + 1] = PyUnicode_READ(kind, data, i)
                a.n = end + 1
                replace_pass(&a, &b, SKIPPED, 9, NULL, 0); swap(&a, &b)
                replace_pass(&a, &b, DASH_NL, 2, NULL, 0); swap(&a, &b)
                replace_pass(&a, &b, NL, 1, SPACE, 1); swap(&a, &b)
                if has_amp_char(&a):
                    replace_pass(&a, &b, QUOT, 6, CH_QUOTE, 1); swap(&a, &b)
                    replace_pass(&a, &b, AMP, 5, CH_AMP, 1); swap(&a, &b)
                    replace_pass(&a, &b, LT, 4, CH_LT, 1); swap(&a, &b)
                    replace_pass(&a, &b, GT, 4, CH_GT, 1); swap(&a, &b)
                reserve(&a, a.n + 1)
                a.p[a.n] = 32
                a.n += 1
                symbol_pass(&a, &b)
            pair_passes(&a, &b, has_point, has_dash)
            # split on whitespace, hashing each token while scanning it, and intern
            i = 0
            while i < a.n:
                while i < a.n and is_space(a.p[i]):
                    i += 1
                if i >= a.n:
                    break
                tok_start = i
                h = 1469598103934665603ULL
                while i < a.n and not is_space(a.p[i]):
                    h = (h ^ <uint64_t>a.p[i]) * 1099511628211ULL
                    i += 1
                if ids_n == ids_cap:
                    ids_cap *= 2
                    grown = <int32_t*>realloc(ids, ids_cap * sizeof(int32_t))
                    if grown == NULL:
                        raise MemoryError()
                    ids = grown
                ids[ids_n] = vocab.intern(&a.p[tok_start], i - tok_start, h)
                ids_n += 1
            off[li + 1] = ids_n
        out = np.empty(ids_n, dtype=np.int32)
        if ids_n:
            out_view = out
            memcpy(&out_view[0], ids, ids_n * sizeof(int32_t))
        return out, offsets, max(most_types, vocab.n_types)
    finally:
        free(a.p)
        free(b.p)
        free(ids)
