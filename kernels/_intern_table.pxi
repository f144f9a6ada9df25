# The token intern table: distinct byte strings -> dense ids 0, 1, 2, ... in order of first
# insertion, exact (bytes compared on every hash hit), clearable in time proportional to its
# tokens. One implementation for every byte-string vocabulary of the ROUGE family: text_encode.pyx
# (a batch vocabulary's raw ids, RawInterner) and rouge_raw.pyx (one table per pair), both through
# _rouge_scan.pxi, whose readers hash tokens as they read them (hash_mix / hash_last); and
# chrf.pyx, whose per-segment word table (hypothesis words, UTF-8 bytes) is cleared per segment.
#
# Cython, not a C header like the helpers in kernels/include: written as C (qs_intern.h) the same
# functions compiled to different register allocation in rouge_raw's fused read-and-intern loop,
# and MS MARCO ROUGE-L+2 (rouge_counts, one thread) ran 5-6% slower in a same-process A/B; the
# Cython text emits the C that the ROUGE benchmarks were tuned on. Included, not cimported:
# Cython has no cross-extension inlining without a package-level .pxd.
#
# The other tables stay separate, each measured or specialised:
# - bleu_tok13a.pyx's Interner (13a tokens are UTF-32 code points, FNV-hashed while the split
#   scans them, a 32-bit tag and an id in 8-byte slots at half load). This table in its place,
#   tokens as UTF-32 bytes or narrowed to one byte per code point where they fit, gave the same
#   ids but ran 3-8% slower on MS MARCO groups and 22% slower on one large vocabulary (same-process
#   A/B of tokenize_13a_packed): its 16-byte slots at quarter load are four times the memory.
# - _ngram_core.pxi maps 64-bit integer keys (previous n-gram id, token id), rebuilt for every
#   order of every pair, and nugget_recall.pyx's per-question tables of int64 keys are built once
#   and probed read-only by many threads. Neither has bytes to store or compare: an arena, a
#   prefix and a tail compare would only add loads to their hot loops.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy

cdef extern from "qs_scan.h":
    uint64_t qascore_load_word(const uint8_t *p, int64_t n) noexcept nogil

cdef enum:
    SLACK = 8  # every buffer that words are loaded from keeps this many readable bytes past its end

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
