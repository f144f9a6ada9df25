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
    SLACK = 8  # every buffer that words are loaded from keeps this many readable bytes past its end
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


# C constants (kernels/include/qs_hash.h), not module variables: a variable is reloaded after
# every byte store (a byte store may alias anything), once per token in the readers' loops.
cdef extern from "qs_hash.h":
    const uint64_t HASH_SEED "QASCORE_HASH_SEED"
    const uint64_t TOP_BIT64 "QASCORE_TOP_BIT64"
    uint64_t fold_mul "qascore_fold_mul"(uint64_t a, uint64_t b) noexcept nogil
    int opaque "qascore_opaque"(int x) noexcept nogil


cdef inline uint64_t hash_mix(uint64_t h, uint64_t word) noexcept nogil:
    """A token's hash after one more of its 8-byte words, not its last (hash_last)."""
    return fold_mul(h ^ word, 0xFF51AFD7ED558CCDULL)


cdef inline uint64_t hash_last(uint64_t h, uint64_t word, int64_t n) noexcept nogil:
    """A token's hash from its last word (zero padded) and its length n: one multiplication
    for a token of up to 8 bytes (most words), the length folded into the multiplier."""
    return fold_mul(h ^ word, 0x9E3779B97F4A7C15ULL ^ <uint64_t>n)


cdef inline uint64_t hash_token(const uint8_t *s, int64_t n) noexcept nogil:
    """Hash over 8-byte words, the last one zero padded and mixed with the length (s has SLACK
    readable bytes past n; n > 0). The readers compute the same while they read."""
    cdef uint64_t h = HASH_SEED
    cdef int64_t i = 0
    while i + 8 < n:
        h = hash_mix(h, qascore_load_word(s + i, 8))
        i += 8
    return hash_last(h, qascore_load_word(s + i, n - i), n)


cdef inline bint same_tail(const uint8_t *a, const uint8_t *b, int64_t n) noexcept nogil:
    """a[8:n] == b[8:n] (n > 8), a word at a time: both have SLACK readable bytes past n, and a
    library memcmp call per long token was a tenth of reading English text."""
    cdef int64_t k = 8
    cdef uint64_t x, y
    while k + 8 <= n:
        memcpy(&x, a + k, 8)
        memcpy(&y, b + k, 8)
        if x != y:
            return False
        k += 8
    return k == n or qascore_load_word(a + k, n - k) == qascore_load_word(b + k, n - k)


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
    int64_t *slot_of  # the slot of each token, so that table_clear empties only those
    int64_t count, capacity
    Slot *slots
    uint64_t mask


cdef inline bint too_full(int64_t n_types, uint64_t mask) noexcept nogil:
    """More than a quarter of the slots taken. Under linear probing a miss (a prediction's token
    that the reference lacks) averages 1.4 probes at a quarter load, 2.5 at a half, 13 at 0.8;
    each extra probe is a branch the CPU cannot predict. Measured on 3,000-word pairs: 0.8 to
    0.5 to 0.25 took reading and interning from about 30 to 25 to 22 ns a token."""
    return 4 * n_types > <int64_t>(mask + 1)


cdef void table_free(Table *t) noexcept nogil:
    free(t.arena)
    free(t.starts)
    free(t.slot_of)
    free(t.slots)
    t.arena = NULL
    t.starts = NULL
    t.slot_of = NULL
    t.slots = NULL


cdef bint table_init(Table *t) noexcept nogil:
    return table_init_sized(t, 1 << 12)


cdef bint table_init_sized(Table *t, int64_t n_types) noexcept nogil:
    """An empty table with room for about n_types types (a power of two) before it grows."""
    t.arena_used = 0
    t.count = 0
    t.arena_capacity = 16 * n_types
    t.capacity = n_types
    t.mask = 4 * n_types - 1
    t.arena = <uint8_t *>malloc(t.arena_capacity + SLACK)
    t.starts = <int64_t *>malloc((t.capacity + 1) * sizeof(int64_t))
    t.slot_of = <int64_t *>malloc((t.capacity + 1) * sizeof(int64_t))
    t.slots = <Slot *>calloc(t.mask + 1, sizeof(Slot))
    if not (t.arena and t.starts and t.slot_of and t.slots):
        table_free(t)
        return False
    t.starts[0] = 0
    return True


cdef void table_clear(Table *t) noexcept nogil:
    """Forget every token, keeping the memory, in time proportional to the tokens held (a
    per-pair table is cleared for every pair)."""
    cdef int64_t raw
    for raw in range(t.count):
        t.slots[t.slot_of[raw]].id_plus_one = 0
    t.count = 0
    t.arena_used = 0


cdef inline int32_t table_find_prefix(const Table *t, const uint8_t *s, int64_t n, uint64_t h,
                                      uint64_t prefix) noexcept nogil:
    """Id of the n-byte token s (hash h, first word prefix as qascore_load_word gives it), -1 when absent."""
    cdef uint64_t slot = h & t.mask
    cdef const Slot *entry
    while True:
        entry = &t.slots[slot]
        if entry.id_plus_one == 0:
            return -1
        if entry.prefix == prefix and entry.length == n:
            if n <= 8 or same_tail(t.arena + t.starts[entry.id_plus_one - 1], s, n):
                return entry.id_plus_one - 1
        slot = (slot + 1) & t.mask


cdef inline int32_t table_find_fast(const Table *t, const uint8_t *s, int64_t n, uint64_t h,
                                    uint64_t prefix) noexcept nogil:
    """table_find_prefix deciding the usual case, a token of up to 8 bytes settled by its first
    slot (found there, or the slot empty), without a branch on the outcome: whether a token is
    present is a coin toss that a branch would mispredict, and with no branch the lookups of
    successive tokens overlap their memory latency."""
    cdef const Slot *entry = &t.slots[h & t.mask]
    # a cleared slot keeps its key: a "hit" there returns id_plus_one - 1 = -1, as it must
    cdef bint hit = (entry.prefix == prefix) & (entry.length == n)
    cdef bint settled = opaque((hit & (n <= 8)) | (entry.id_plus_one == 0))  # one branch (qascore_opaque)
    if not settled:  # a collision in the first slot, or a long token
        return table_find_prefix(t, s, n, h, prefix)
    return (entry.id_plus_one if hit else 0) - 1


cdef inline void table_place(Table *t, Slot *slots, uint64_t slot, int64_t raw, uint64_t prefix,
                             int64_t n) noexcept nogil:
    slots[slot].prefix = prefix
    slots[slot].length = <uint32_t>n
    slots[slot].id_plus_one = <int32_t>(raw + 1)
    t.slot_of[raw] = <int64_t>slot


cdef inline uint64_t free_slot(const Slot *slots, uint64_t mask, uint64_t h) noexcept nogil:
    cdef uint64_t slot = h & mask
    while slots[slot].id_plus_one != 0:
        slot = (slot + 1) & mask
    return slot


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
    t.starts = starts
    cdef int64_t *slot_of = <int64_t *>realloc(t.slot_of, (capacity + 1) * sizeof(int64_t))
    if slot_of == NULL:
        return False
    t.slot_of, t.capacity = slot_of, capacity
    return True


cdef bint table_grow_slots(Table *t) noexcept nogil:
    cdef uint64_t mask = t.mask * 2 + 1
    cdef Slot *slots = <Slot *>calloc(mask + 1, sizeof(Slot))
    cdef int64_t raw, start, n
    if slots == NULL:
        return False
    for raw in range(t.count):
        start = t.starts[raw]
        n = t.starts[raw + 1] - start
        table_place(t, slots, free_slot(slots, mask, hash_token(t.arena + start, n)), raw,
                    qascore_load_word(t.arena + start, n), n)
    free(t.slots)
    t.slots, t.mask = slots, mask
    return True


cdef bint table_reserve(Table *t, int64_t n_types, int64_t n_bytes) noexcept nogil:
    """Room for n_types tokens of n_bytes in all without growing (a fresh table's rehashes)."""
    while too_full(n_types, t.mask):
        if not table_grow_slots(t):
            return False
    while t.capacity < n_types:
        if not table_grow_entries(t):
            return False
    return n_bytes <= t.arena_capacity or table_grow_arena(t, n_bytes)


cdef inline bint table_has_room(const Table *t, int64_t n) noexcept nogil:
    """Room for one more token of n bytes without growing anything."""
    return (t.count < t.capacity and t.arena_used + n <= t.arena_capacity
            and not too_full(t.count + 1, t.mask))


cdef inline int32_t table_store(Table *t, const uint8_t *s, int64_t n, uint64_t slot, uint64_t prefix) noexcept nogil:
    """Append a token at an empty slot of its probe chain (table_has_room must hold)."""
    # Every field is read before the first byte store: a byte store may alias them, and the
    # compiler would reload each one after it.
    cdef int64_t k, raw = t.count, used = t.arena_used
    cdef uint8_t *end = t.arena + used
    cdef int64_t *starts = t.starts
    for k in range(0, n, 8):  # whole words (the arena keeps SLACK bytes): no call, no byte stores
        memcpy(end + k, s + k, 8)
    t.arena_used = used + n
    t.count = raw + 1
    starts[raw + 1] = used + n
    table_place(t, t.slots, slot, raw, prefix, n)
    return <int32_t>raw


cdef int32_t table_add(Table *t, const uint8_t *s, int64_t n, uint64_t h, uint64_t prefix) noexcept nogil:
    """Append a token known to be absent (hash h, first word prefix; s has SLACK readable bytes
    past n); -1 when memory (or the int32 id space) runs out."""
    if t.count >= 0x7FFFFFFE or n > <int64_t>0xFFFFFFFFLL:
        return -1
    if t.arena_used + n > t.arena_capacity and not table_grow_arena(t, t.arena_used + n):
        return -1
    if t.count == t.capacity and not table_grow_entries(t):
        return -1
    if too_full(t.count + 1, t.mask) and not table_grow_slots(t):
        return -1
    return table_store(t, s, n, free_slot(t.slots, t.mask, h), prefix)


cdef inline int32_t table_intern(Table *t, const uint8_t *s, int64_t n, uint64_t h, uint64_t prefix) noexcept nogil:
    """The id of a token, added when absent, probing once when no growth is due; -1 when out of memory."""
    cdef uint64_t slot = h & t.mask
    cdef const Slot *entry
    while True:
        entry = &t.slots[slot]
        if entry.id_plus_one == 0:
            break
        if entry.prefix == prefix and entry.length == n:
            if n <= 8 or same_tail(t.arena + t.starts[entry.id_plus_one - 1], s, n):
                return entry.id_plus_one - 1
        slot = (slot + 1) & t.mask
    if table_has_room(t, n):
        return table_store(t, s, n, slot, prefix)
    return table_add(t, s, n, h, prefix)


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
