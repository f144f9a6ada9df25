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


cdef extern from "qs_unicode.h":
    bint is_space "qascore_split_space"(Py_UCS4 c) noexcept nogil

cdef extern from "qs_scan.h":
    void qascore_prefetch_tuple_item(tuple t, Py_ssize_t i)

cdef enum:
    PREFETCH_AHEAD = 16  # lines: a miss to memory takes about as long as reading this many headers

cdef extern from "Python.h":
    int PyUnicode_KIND(object o)
    void* PyUnicode_DATA(object o)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy


cdef struct Buf:
    Py_UCS4* p
    Py_ssize_t n
    Py_ssize_t cap


cdef int reserve(Buf* b, Py_ssize_t need) noexcept nogil:
    """Grow ``b`` to hold ``need`` characters; -1 when out of memory (every caller passes it on)."""
    cdef Py_ssize_t cap
    cdef Py_UCS4* p
    if need <= b.cap:
        return 0
    cap = max(need, 2 * b.cap, 64)
    p = <Py_UCS4*>realloc(b.p, cap * sizeof(Py_UCS4))
    if p == NULL:
        return -1
    b.p = p
    b.cap = cap
    return 0


cdef inline bint is_digit(Py_UCS4 c) noexcept nogil:
    return 0x30 <= c <= 0x39


cdef inline bint is_13a_symbol(Py_UCS4 c) noexcept nogil:
    # [\{-\~\[-\` -\&\(-\+\:-\@\/]
    return ((0x7B <= c <= 0x7E) or (0x5B <= c <= 0x60) or (0x20 <= c <= 0x26)
            or (0x28 <= c <= 0x2B) or (0x3A <= c <= 0x40) or c == 0x2F)


cdef void swap(Buf* a, Buf* b) noexcept nogil:
    cdef Buf t = a[0]
    a[0] = b[0]
    b[0] = t


cdef int replace_pass(Buf* src, Buf* dst, const Py_UCS4* pat, Py_ssize_t plen,
                      const Py_UCS4* rep, Py_ssize_t rlen) noexcept nogil:
    """``str.replace(pat, rep)`` from src into dst (rlen <= plen, so dst never outgrows src);
    the result ends in ``src``."""
    if reserve(dst, src.n + 1) < 0:
        return -1
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
    swap(src, dst)
    return 0


cdef bint has_amp_char(Buf* a) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(a.n):
        if a.p[i] == 38:
            return True
    return False


cdef inline bint pair_rule_matches(int rule, Py_UCS4 c, Py_UCS4 d) noexcept nogil:
    if rule == 2:  # ([^0-9])([\.,])
        return not is_digit(c) and (d == 46 or d == 44)
    if rule == 3:  # ([\.,])([^0-9])
        return (c == 46 or c == 44) and not is_digit(d)
    return is_digit(c) and d == 45  # rule 4: ([0-9])(-)


cdef int pair_pass(Buf* a, Buf* b, int rule) noexcept nogil:
    """One two-character mteval substitution with ``re.sub`` semantics (non-overlapping, left to
    right): rules 2 and 4 write ``\\1 \\2 ``, rule 3 writes `` \\1 \\2``; the result ends in ``a``."""
    cdef Py_ssize_t i = 0, o = 0, n = a.n
    cdef Py_UCS4 c, d
    if reserve(b, 2 * n + 1) < 0:
        return -1
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


cdef int symbol_pass(Buf* a, Buf* b) noexcept nogil:
    """The first mteval-v13a substitution; the result ends in ``a``."""
    cdef Py_ssize_t i, o = 0, n = a.n
    cdef Py_UCS4 c
    # 1. ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> ' \1 '
    if reserve(b, 3 * n + 1) < 0:
        return -1
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


cdef int pair_passes(Buf* a, Buf* b, bint has_point, bint has_dash) noexcept nogil:
    """The other three mteval substitutions. A pass whose trigger character (``.``/``,`` or
    ``-``) is absent from the line cannot change it and is skipped; no pass creates them."""
    if has_point and (pair_pass(a, b, 2) < 0 or pair_pass(a, b, 3) < 0):
        return -1
    if has_dash and pair_pass(a, b, 4) < 0:
        return -1
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


cdef struct Interner:
    # Exact token -> dense id table: open addressing on a 64-bit hash (its high half kept in the
    # slot as a tag) and a full comparison of the contents before a hit is accepted. Not the
    # shared byte-string table (_intern_table.pxi): in its place the 13a tokeniser ran 3-8%
    # slower (measured there); these 8-byte slots at half load keep a vocabulary compact.
    Slot* slots
    Py_ssize_t cap
    Py_UCS4* pool
    Py_ssize_t pool_n, pool_cap
    TypeSpan* spans
    uint64_t* hashes  # full hash per type, only read when the table grows
    Py_ssize_t n_types, types_cap


cdef int interner_init(Interner* v) noexcept nogil:
    cdef Py_ssize_t i
    v.cap = 256
    v.slots = <Slot*>malloc(v.cap * sizeof(Slot))
    v.types_cap = 128
    v.spans = <TypeSpan*>malloc(v.types_cap * sizeof(TypeSpan))
    v.hashes = <uint64_t*>malloc(v.types_cap * sizeof(uint64_t))
    v.pool_cap = 1024
    v.pool = <Py_UCS4*>malloc(v.pool_cap * sizeof(Py_UCS4))
    v.pool_n = 0
    v.n_types = 0
    if v.slots == NULL or v.spans == NULL or v.hashes == NULL or v.pool == NULL:
        return -1
    for i in range(v.cap):
        v.slots[i].id = -1
    return 0


cdef void interner_free(Interner* v) noexcept nogil:
    free(v.slots)
    free(v.pool)
    free(v.spans)
    free(v.hashes)


cdef void interner_reset(Interner* v) noexcept nogil:
    """Forget every type (ids restart at 0) in time proportional to the types seen."""
    cdef Py_ssize_t t
    for t in range(v.n_types):
        v.slots[v.spans[t].slot].id = -1
    v.n_types = 0
    v.pool_n = 0


cdef int interner_grow(Interner* v) noexcept nogil:
    cdef Py_ssize_t cap = v.cap * 2, i, j
    cdef Slot* slots = <Slot*>malloc(cap * sizeof(Slot))
    if slots == NULL:
        return -1
    for i in range(cap):
        slots[i].id = -1
    for i in range(v.cap):
        if v.slots[i].id != -1:
            j = <Py_ssize_t>(v.hashes[v.slots[i].id] & <uint64_t>(cap - 1))
            while slots[j].id != -1:
                j = (j + 1) & (cap - 1)
            slots[j] = v.slots[i]
            v.spans[v.slots[i].id].slot = <int32_t>j
    free(v.slots)
    v.slots = slots
    v.cap = cap
    return 0


cdef int32_t intern(Interner* v, const Py_UCS4* tok, Py_ssize_t n, uint64_t h) noexcept nogil:
    """Id of token ``tok[:n]`` whose FNV-1a hash (computed while scanning) is h; -1: out of memory."""
    cdef Py_ssize_t j
    cdef int32_t t
    cdef uint32_t tag
    cdef void* grown
    # FNV's low bits depend only on the characters' low bits: mix (murmur3 fmix64) before masking
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= 0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    tag = <uint32_t>(h >> 32)
    j = <Py_ssize_t>(h & <uint64_t>(v.cap - 1))
    while True:
        t = v.slots[j].id
        if t == -1:
            break
        if (v.slots[j].tag == tag and v.spans[t].length == n
                and same_text(&v.pool[v.spans[t].start], tok, n)):
            return t
        j = (j + 1) & (v.cap - 1)
    if v.n_types == v.types_cap:
        v.types_cap *= 2
        grown = realloc(v.spans, v.types_cap * sizeof(TypeSpan))
        if grown == NULL:
            return -1
        v.spans = <TypeSpan*>grown
        grown = realloc(v.hashes, v.types_cap * sizeof(uint64_t))
        if grown == NULL:
            return -1
        v.hashes = <uint64_t*>grown
    if v.pool_n + n > v.pool_cap:
        v.pool_cap = max(2 * v.pool_cap, v.pool_n + n)
        grown = realloc(v.pool, v.pool_cap * sizeof(Py_UCS4))
        if grown == NULL:
            return -1
        v.pool = <Py_UCS4*>grown
    memcpy(&v.pool[v.pool_n], tok, n * sizeof(Py_UCS4))
    t = <int32_t>v.n_types
    v.spans[t].start = v.pool_n
    v.spans[t].length = <int32_t>n
    v.spans[t].slot = <int32_t>j
    v.hashes[t] = h
    v.pool_n += n
    v.n_types += 1
    v.slots[j].tag = tag
    v.slots[j].id = t
    if 2 * v.n_types > v.cap and interner_grow(v) < 0:
        return -1
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

# 13a's replacements in sacrebleu's order; the last four only run when the line has an '&'.
cdef const Py_UCS4* ESC_PAT[7]
cdef Py_ssize_t ESC_PLEN[7]
cdef const Py_UCS4* ESC_REP[7]
cdef Py_ssize_t ESC_RLEN[7]
ESC_PLEN[:] = [9, 2, 1, 6, 5, 4, 4]
ESC_RLEN[:] = [0, 0, 1, 1, 1, 1, 1]
ESC_PAT[0] = SKIPPED; ESC_PAT[1] = DASH_NL; ESC_PAT[2] = NL; ESC_PAT[3] = QUOT
ESC_PAT[4] = AMP; ESC_PAT[5] = LT; ESC_PAT[6] = GT
ESC_REP[0] = NULL; ESC_REP[1] = NULL; ESC_REP[2] = SPACE; ESC_REP[3] = CH_QUOTE
ESC_REP[4] = CH_AMP; ESC_REP[5] = CH_LT; ESC_REP[6] = CH_GT


cdef struct Chunk:
    # One thread's share: lines [first, last), its own buffers, vocabulary and output ids.
    Py_ssize_t first, last
    int32_t* ids
    Py_ssize_t ids_n, ids_cap
    Py_ssize_t most_types
    int failed


cdef int push_id(Chunk* ch, int32_t token_id) noexcept nogil:
    cdef int32_t* grown
    if token_id < 0:
        return -1
    if ch.ids_n == ch.ids_cap:
        ch.ids_cap = max(2 * ch.ids_cap, 1024)
        grown = <int32_t*>realloc(ch.ids, ch.ids_cap * sizeof(int32_t))
        if grown == NULL:
            return -1
        ch.ids = grown
    ch.ids[ch.ids_n] = token_id
    ch.ids_n += 1
    return 0


cdef int tokenize_line(int kind, void* data, Py_ssize_t end, Buf* a, Buf* b, Interner* vocab,
                       Chunk* ch) noexcept nogil:
    """13a-tokenise ``data[:end]`` (already right-stripped) and append its token ids to ``ch``."""
    cdef Py_ssize_t i, o, tok_start
    cdef Py_UCS4 c
    cdef uint64_t h
    cdef bint has_escape = False, has_point = False, has_dash = False
    cdef int k
    # Fast path: copy with pad spaces and the symbol rule applied at once, noting triggers.
    if reserve(a, 3 * end + 3) < 0:
        return -1
    a.p[0] = 32
    o = 1
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
        a.p[0] = 32
        for i in range(end):
            a.p[i + 1] = PyUnicode_READ(kind, data, i)
        a.n = end + 1
        for k in range(7):
            if k == 3 and not has_amp_char(a):  # sacrebleu only unescapes when '&' is present
                break
            if replace_pass(a, b, ESC_PAT[k], ESC_PLEN[k], ESC_REP[k], ESC_RLEN[k]) < 0:
                return -1
        if reserve(a, a.n + 1) < 0:
            return -1
        a.p[a.n] = 32
        a.n += 1
        if symbol_pass(a, b) < 0:
            return -1
    if pair_passes(a, b, has_point, has_dash) < 0:
        return -1
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
        if push_id(ch, intern(vocab, &a.p[tok_start], i - tok_start, h)) < 0:
            return -1
    return 0


cdef void tokenize_chunk(Chunk* ch, const int* kinds, void** datas, const Py_ssize_t* ends,
                         const char* starts_group, int64_t* line_len) noexcept nogil:
    cdef Buf a, b
    cdef Interner vocab
    cdef Py_ssize_t li, before, end
    a.p = NULL; a.n = 0; a.cap = 0
    b.p = NULL; b.n = 0; b.cap = 0
    if interner_init(&vocab) < 0:
        ch.failed = 1
    else:
        for li in range(ch.first, ch.last):
            if starts_group[li]:
                ch.most_types = max(ch.most_types, vocab.n_types)
                interner_reset(&vocab)
            before = ch.ids_n
            end = ends[li]  # str.rstrip: here, in the threads, where the text is read anyway
            while end > 0 and is_space(PyUnicode_READ(kinds[li], datas[li], end - 1)):
                end -= 1
            if tokenize_line(kinds[li], datas[li], end, &a, &b, &vocab, ch) < 0:
                ch.failed = 1
                break
            line_len[li] = ch.ids_n - before
        ch.most_types = max(ch.most_types, vocab.n_types)
    interner_free(&vocab)
    free(a.p)
    free(b.p)


def tokenize_13a_packed(list lines, const int64_t[::1] group_starts=None, int n_jobs=1):
    """13a-tokenise and intern every line: (ids int32, offsets int64, most token types in a group).

    Row i is ``ids[offsets[i]:offsets[i + 1]]``; lines must be ``str`` (checked by the caller).
    With ``group_starts`` (increasing line indices, the first 0) ids are only comparable within
    a group: the table restarts at each group, so it stays small and in cache (BLEU compares a
    hypothesis with its own references only), and groups are shared out to ``n_jobs`` threads.
    Without it one vocabulary spans the batch and one thread works.
    """
    # A tuple keeps every string alive while threads read its storage without the GIL, even if
    # the caller's list changes meanwhile.
    cdef tuple held = tuple(lines)
    cdef Py_ssize_t n_lines = len(held), li, k, n_chunks, per, pos
    cdef str line
    offsets = np.zeros(n_lines + 1, dtype=np.int64)
    line_len = np.zeros(n_lines, dtype=np.int64)
    cdef int64_t[::1] lens = line_len
    cdef int* kinds = <int*>malloc((n_lines + 1) * sizeof(int))
    cdef void** datas = <void**>malloc((n_lines + 1) * sizeof(void*))
    cdef Py_ssize_t* ends = <Py_ssize_t*>malloc((n_lines + 1) * sizeof(Py_ssize_t))
    cdef char* starts_group = <char*>calloc(n_lines + 1, sizeof(char))
    cdef Chunk* chunks = NULL
    try:
        if kinds == NULL or datas == NULL or ends == NULL or starts_group == NULL:
            raise MemoryError()
        # Under the GIL, one thread: only each line's storage and length (the str header). The
        # lines lie scattered over the heap, so headers are fetched ahead; the text itself is
        # first read by the threads.
        for li in range(n_lines):
            if li + PREFETCH_AHEAD < n_lines:
                qascore_prefetch_tuple_item(held, li + PREFETCH_AHEAD)
            line = <str?>held[li]  # checked: a non-string raises TypeError, never a crash
            kinds[li] = PyUnicode_KIND(line)
            datas[li] = PyUnicode_DATA(line)
            ends[li] = PyUnicode_GET_LENGTH(line)
        if group_starts is None:
            n_chunks = 1
            starts_group[0] = 1
        else:
            if group_starts.shape[0] and group_starts[0] != 0:
                raise ValueError("group_starts must begin at line 0")
            for k in range(group_starts.shape[0]):
                if group_starts[k] < 0 or group_starts[k] > n_lines:
                    raise ValueError(f"group_starts[{k}] = {group_starts[k]} is outside [0, {n_lines}]")
                if group_starts[k] < n_lines:
                    starts_group[group_starts[k]] = 1
            n_chunks = max(1, min(n_jobs, group_starts.shape[0] // 256))
        chunks = <Chunk*>calloc(n_chunks, sizeof(Chunk))
        if chunks == NULL:
            raise MemoryError()
        # Cut the lines into n_chunks runs, each starting at a group start.
        per = (n_lines + n_chunks - 1) // n_chunks if n_lines else 0
        pos = 0
        for k in range(n_chunks):
            chunks[k].first = pos
            pos = min(n_lines, max(pos, (k + 1) * per))
            while pos < n_lines and not starts_group[pos]:
                pos += 1
            chunks[k].last = pos if k < n_chunks - 1 else n_lines
        with nogil:
            for k in prange(n_chunks, num_threads=n_chunks, schedule="static", chunksize=1):
                tokenize_chunk(&chunks[k], kinds, datas, ends, starts_group, &lens[0] if n_lines else NULL)
        total = 0
        most = 0
        for k in range(n_chunks):
            if chunks[k].failed:
                raise MemoryError("out of memory in the 13a tokeniser")
            total += chunks[k].ids_n
            most = max(most, chunks[k].most_types)
        out = np.empty(total, dtype=np.int32)
        cdef_copy(out, chunks, n_chunks)
        np.cumsum(line_len, out=offsets[1:])
        return out, offsets, most
    finally:
        if chunks != NULL:
            for k in range(n_chunks):
                free(chunks[k].ids)
            free(chunks)
        free(kinds)
        free(datas)
        free(ends)
        free(starts_group)


cdef void cdef_copy(out, Chunk* chunks, Py_ssize_t n_chunks):
    cdef int32_t[::1] view = out
    cdef Py_ssize_t k, pos = 0
    for k in range(n_chunks):
        if chunks[k].ids_n:
            memcpy(&view[pos], chunks[k].ids, chunks[k].ids_n * sizeof(int32_t))
            pos += chunks[k].ids_n


def tokenize_13a_segment(list lines):
    """13a-tokenise and intern the few lines of one segment (a sentence-level call): (the ids as
    the bytes of an int32 array, the token count of each line as a list). One vocabulary spans
    the lines. :func:`tokenize_13a_packed` without its batch machinery (arrays, group table,
    threads), whose fixed cost is most of a one-sentence call."""
    cdef Py_ssize_t n_lines = len(lines), li, end, before
    cdef str line
    cdef int kind
    cdef void* data
    cdef Buf a, b
    cdef Interner vocab
    cdef Chunk ch
    a.p = NULL; a.n = 0; a.cap = 0
    b.p = NULL; b.n = 0; b.cap = 0
    ch.first = 0; ch.last = n_lines; ch.ids = NULL; ch.ids_n = 0; ch.ids_cap = 0; ch.most_types = 0; ch.failed = 0
    lengths = []
    if interner_init(&vocab) < 0:
        interner_free(&vocab)
        raise MemoryError("out of memory in the 13a tokeniser")
    try:
        for li in range(n_lines):
            line = <str?>lines[li]  # checked: a non-string raises TypeError, never a crash
            kind = PyUnicode_KIND(line)
            data = PyUnicode_DATA(line)
            end = PyUnicode_GET_LENGTH(line)
            while end > 0 and is_space(PyUnicode_READ(kind, data, end - 1)):  # str.rstrip
                end -= 1
            before = ch.ids_n
            if tokenize_line(kind, data, end, &a, &b, &vocab, &ch) < 0:
                raise MemoryError("out of memory in the 13a tokeniser")
            lengths.append(ch.ids_n - before)
        ids = (<char*>ch.ids)[:ch.ids_n * sizeof(int32_t)] if ch.ids_n else b""
        return ids, lengths
    finally:
        interner_free(&vocab)
        free(a.p)
        free(b.p)
        free(ch.ids)
