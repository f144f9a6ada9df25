# Shared by text_encode.pyx (batch encoding into a vocabulary) and rouge_raw.pyx (ROUGE counts
# interned per pair): reading str storage, rouge-score's token rule on code points, token hashing,
# and the byte-string intern table. One source of truth, included (Cython has no cross-extension
# inlining without a package-level .pxd).
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

# Word loads, byte classes and str access in C (kernels/include/qs_scan.h).
cdef extern from "qs_scan.h":
    int qascore_unicode_ready(object o) except -1
    int qascore_unicode_kind(object o)
    const void *qascore_unicode_data(object o)
    Py_ssize_t qascore_unicode_length(object o)
    void qascore_prefetch(const void *p) noexcept nogil
    void qascore_prefetch_tuple_item(tuple t, Py_ssize_t i)
    void qascore_untrack_str_tuple(tuple t)
    uint64_t qascore_load_word(const uint8_t *p, int64_t n) noexcept nogil
    uint64_t qascore_load_word_masked(const uint8_t *p, int64_t n) noexcept nogil
    uint64_t qascore_byte_in_word(uint8_t b, int64_t k) noexcept nogil
    uint64_t QS_HIGHS
    uint64_t qascore_load_span(const uint8_t *text, int64_t n, int64_t i, int64_t keep) noexcept nogil
    uint64_t qascore_alnum_bytes(uint64_t w) noexcept nogil
    uint64_t qascore_lower_token_bytes(uint64_t w) noexcept nogil
    uint64_t qascore_alnum_bits8(const uint8_t *text, int64_t n, int64_t i) noexcept nogil
    uint64_t qascore_alnum_bits64(const uint8_t *text, int64_t n, int64_t i) noexcept nogil
    int qascore_latin1_of_ucs2(const uint16_t *text, int64_t n, uint8_t *out) noexcept nogil
    int qascore_latin1_of_ucs4(const uint32_t *text, int64_t n, uint8_t *out) noexcept nogil
    int qascore_ctz "__builtin_ctzll"(unsigned long long) noexcept nogil
    bint Py_UNICODE_ISSPACE(uint32_t code) noexcept nogil  # what str.split() and str.isspace() use

cdef enum:
    DOTTED_CAPITAL_I = 0x130  # lowercases to 'i' + U+0307 (a separator)
    KELVIN_SIGN = 0x212A  # lowercases to 'k'
    PREFETCH_AHEAD = 16  # items: a miss to memory takes about as long as checking this many str


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


include "_intern_table.pxi"  # token hashing and the intern table

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


cdef enum:
    SPAN_BATCH = 2048  # token spans found per refill (rouge_cursor_refill)
    SPAN_ROOM = SPAN_BATCH + 64  # a refill stops after the bitmap word that reaches SPAN_BATCH (+ 3 spare writes)


cdef struct RougeCursor:
    # Where next_rouge_token is in a text: for Latin-1 text (and wide text packed to bytes by
    # latin1_of_units) the text's token bitmap (bit i of bits[i / 64] set when byte i belongs
    # to a token), built once by rouge_cursor_init, and a batch of token spans read off it
    # (rouge_cursor_refill); for UCS-2 or UCS-4 text (bits NULL) the next code point.
    int64_t pos
    const uint64_t *bits
    int64_t *starts  # SPAN_ROOM each
    int64_t *ends
    int64_t word, n_words  # the next bitmap word to read; words that cover the text
    uint64_t previous_bit  # the last bit of the word before
    int64_t pending_start  # a token whose end the last refill did not reach, -1 if none
    int64_t index, count  # the next span of the batch, spans in the batch


cdef inline const uint8_t *latin1_of_units(const CodeUnit *text, int64_t n, GrowBuffer *bytes,
                                            bint *out_of_memory) noexcept nogil:
    """A UCS-2 or UCS-4 text (no Latin-1 one) as bytes under the rouge token rule, in ``bytes``
    (1-byte items): each unit up to 0xFF as itself, every other one a separator byte (0xFF or
    0); NULL when the text holds U+0130 or U+212A (read it code point by code point) or when
    memory runs out (*out_of_memory). Read as Latin-1 it gives the same tokens, since only
    ASCII letters and digits and those two code points make tokens, and its tokens then need no
    narrowing, each a masked load from a quarter or half of the memory."""
    out_of_memory[0] = not buffer_reserve(bytes, n + 16)
    if out_of_memory[0]:
        return NULL
    cdef uint8_t *out = <uint8_t *>bytes.data
    cdef int special = 1  # set below: CodeUnit is uint16_t or uint32_t here
    if CodeUnit is uint16_t:
        special = qascore_latin1_of_ucs2(text, n, out)
    elif CodeUnit is uint32_t:
        special = qascore_latin1_of_ucs4(text, n, out)
    return NULL if special else out


cdef inline bint rouge_cursor_init(RougeCursor *cursor, const CodeUnit *text, int64_t n,
                                   GrowBuffer *bitmap) noexcept nogil:
    """Start reading ``text``; ``bitmap`` (8-byte items) holds the bitmap and the spans. False
    when out of memory. Classifying the whole text first, 16 bytes per compare with no
    dependence between words, and then reading token starts and ends off the bitmap a word at a
    time, leaves no search per token (finding each boundary by loads and compares chained
    through the positions was the tokeniser's main cost). A UCS-2 or UCS-4 text is read code
    point by code point (cursor.bits NULL): the readers pass one without U+0130 and U+212A as
    Latin-1 bytes (latin1_of_units), so only texts holding one of those two come here wide."""
    cdef int64_t n_words = (n + 63) >> 6, k, b
    cdef uint64_t word
    cdef uint64_t *bits
    cursor.pos = 0
    cursor.bits = NULL
    if CodeUnit is uint8_t:
        if not buffer_reserve(bitmap, n_words + 1 + 2 * SPAN_ROOM):
            return False
        bits = <uint64_t *>bitmap.data
        for k in range(n >> 6):
            bits[k] = qascore_alnum_bits64(text, n, 64 * k)
        for k in range(n >> 6, n_words):  # the last, partial word: no read past the text
            word = 0
            for b in range(((n & 63) + 7) >> 3):
                word |= qascore_alnum_bits8(text, n, 64 * k + 8 * b) << (8 * b)
            bits[k] = word
        bits[n_words] = 0  # ends a token that reaches the end of the text
        cursor.bits = bits
        cursor.starts = <int64_t *>&bits[n_words + 1]
        cursor.ends = cursor.starts + SPAN_ROOM
        cursor.word = 0
        cursor.n_words = n_words
        cursor.previous_bit = 0
        cursor.pending_start = -1
        cursor.index = cursor.count = 0
    return True


cdef inline void rouge_cursor_refill(RougeCursor *cursor) noexcept nogil:
    """The next batch of token spans: a token starts at a set bit whose predecessor is
    clear and ends at a clear bit whose predecessor is set. A token still open when the batch
    is full starts the next batch."""
    cdef int64_t k, n_starts = 0, n_ends = 0
    cdef int i
    cdef uint64_t b, before, starts, ends
    if cursor.pending_start >= 0:
        cursor.starts[0] = cursor.pending_start
        n_starts = 1
        cursor.pending_start = -1
    k = cursor.word
    while k <= cursor.n_words and n_starts < SPAN_BATCH:  # bits[n_words] (0) closes the last token
        b = cursor.bits[k]
        before = (b << 1) | cursor.previous_bit
        cursor.previous_bit = b >> 63
        starts = b & ~before
        ends = ~b & before
        # Set bits to positions four at a time, a position kept (the count moving) only while bits
        # are left: a loop per bit ended at an unpredictable count, one mispredicted branch per
        # word. x | 2**63 has x's lowest set bit, and a defined ctz when x is 0.
        while starts:
            for i in range(4):
                cursor.starts[n_starts] = (k << 6) + qascore_ctz(starts | TOP_BIT64)
                n_starts += starts != 0
                starts &= starts - 1
        while ends:
            for i in range(4):
                cursor.ends[n_ends] = (k << 6) + qascore_ctz(ends | TOP_BIT64)
                n_ends += ends != 0
                ends &= ends - 1
        k += 1
    cursor.word = k
    if n_starts > n_ends:
        n_starts -= 1
        cursor.pending_start = cursor.starts[n_starts]
    cursor.index = 0
    cursor.count = n_starts


cdef inline int64_t next_bitmap_token(const uint8_t *text, int64_t n, RougeCursor *cursor, uint8_t *token,
                                      uint64_t *hash, uint64_t *prefix) noexcept nogil:
    """next_rouge_token on Latin-1 text (with its bitmap): there the rule is plain ASCII
    (letters lowercased, digits kept, every other code point separates), so a token is a
    lowercased run of the bitmap's bytes, read eight at a time."""
    cdef int64_t start, length, k
    cdef uint64_t word, h = HASH_SEED
    if cursor.index == cursor.count:
        rouge_cursor_refill(cursor)
        if cursor.count == 0:
            return 0
    start = cursor.starts[cursor.index]
    length = cursor.ends[cursor.index] - start
    cursor.index += 1
    if length <= 8 and start + 8 <= n:  # most words: one load, no branch on the length
        word = qascore_lower_token_bytes(qascore_load_word_masked(text + start, length))
        memcpy(token, &word, 8)
        hash[0] = hash_last(h, word, length)
        prefix[0] = word
        return length
    k = 0
    while k + 8 < length:  # whole words before the last one
        word = qascore_lower_token_bytes(qascore_load_span(text, n, start + k, 8))
        memcpy(token + k, &word, 8)
        h = hash_mix(h, word)
        k += 8
    word = qascore_lower_token_bytes(qascore_load_span(text, n, start + k, length - k))
    memcpy(token + k, &word, 8)
    hash[0] = hash_last(h, word, length)
    prefix[0] = word if length <= 8 else qascore_load_word(token, 8)
    return length


cdef inline int64_t next_rouge_token(const CodeUnit *text, int64_t n, RougeCursor *cursor, uint8_t *token,
                                     uint64_t *hash, uint64_t *prefix) noexcept nogil:
    """Read the next rouge token of ``text[cursor.pos:n]`` (cursor from rouge_cursor_init) into
    ``token`` (room for n - cursor.pos bytes plus SLACK), set its hash (as hash_token) and first
    word (as qascore_load_word), move the cursor past it; returns its length, 0 when no token is
    left."""
    if CodeUnit is uint8_t:  # Latin-1 text always has its bitmap
        return next_bitmap_token(text, n, cursor, token, hash, prefix)
    else:
        return next_code_point_token(text, n, cursor, token, hash, prefix)


cdef inline int64_t next_code_point_token(const CodeUnit *text, int64_t n, RougeCursor *cursor, uint8_t *token,
                                          uint64_t *hash, uint64_t *prefix) noexcept nogil:
    """next_rouge_token code point by code point, through the rule of rouge_byte."""
    cdef int64_t i = cursor.pos, length = 0
    cdef uint8_t byte = 0
    cdef uint64_t word = 0, h = HASH_SEED
    cdef bint ends_token = False
    while i < n:
        byte = rouge_byte(text[i], &ends_token)
        i += 1
        if byte != 0:
            break
    if byte == 0:
        cursor.pos = i
        return 0
    # Tokens are hashed while they are read: reading back bytes just written stalls the CPU.
    push_byte(token, &length, byte, &word, &h)
    while i < n and not ends_token:
        byte = rouge_byte(text[i], &ends_token)
        if byte == 0:
            break
        push_byte(token, &length, byte, &word, &h)
        i += 1
    cursor.pos = i
    hash[0] = hash_last(h, word, length)
    prefix[0] = word if length <= 8 else qascore_load_word(token, 8)
    return length
