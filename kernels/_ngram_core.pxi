# Shared C-level core of the n-gram kernels, included by ngram.pyx and rouge_pair.pyx.
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

cdef uint64_t EMPTY = ~(<uint64_t>0)


# The n-gram table: integer keys (previous n-gram id, token id) packed in 64 bits, Fibonacci
# hashing, rebuilt per order per pair; no bytes to compare, so not the byte-string intern table
# (_intern_table.pxi explains). Also renumbers one pair's ids densely (rouge_pair.pyx).
ctypedef struct NgramScratch:
    uint64_t* keys      # [cap] open-addressing table over hypothesis n-grams of one order
    int32_t* vals       # [cap] dense n-gram id
    int32_t* hyp_prev   # [max hyp len] id of the (n-1)-gram starting at each hypothesis position
    int32_t* ref_prev   # [max total ref len of a task] same for references, -1 = dead
    int32_t* cnt_hyp    # [max hyp len] count in the hypothesis of each dense id
    int32_t* cnt_ref    # [max hyp len] count in the current reference
    int32_t* cnt_max    # [max hyp len] max count over the references so far


cdef NgramScratch* ngram_scratch_new(Py_ssize_t max_hyp, Py_ssize_t max_refs_total, Py_ssize_t cap) noexcept nogil:
    cdef NgramScratch* s = <NgramScratch*>calloc(1, sizeof(NgramScratch))
    if s == NULL:
        return NULL
    s.keys = <uint64_t*>malloc(cap * sizeof(uint64_t))
    s.vals = <int32_t*>malloc(cap * sizeof(int32_t))
    s.hyp_prev = <int32_t*>malloc((max_hyp + 1) * sizeof(int32_t))
    s.ref_prev = <int32_t*>malloc((max_refs_total + 1) * sizeof(int32_t))
    s.cnt_hyp = <int32_t*>calloc(max_hyp + 1, sizeof(int32_t))
    s.cnt_ref = <int32_t*>calloc(max_hyp + 1, sizeof(int32_t))
    s.cnt_max = <int32_t*>calloc(max_hyp + 1, sizeof(int32_t))
    if (s.keys == NULL or s.vals == NULL or s.hyp_prev == NULL or s.ref_prev == NULL
            or s.cnt_hyp == NULL or s.cnt_ref == NULL or s.cnt_max == NULL):
        ngram_scratch_free(s)
        return NULL
    return s


cdef void ngram_scratch_free(NgramScratch* s) noexcept nogil:
    if s == NULL:
        return
    free(s.keys)
    free(s.vals)
    free(s.hyp_prev)
    free(s.ref_prev)
    free(s.cnt_hyp)
    free(s.cnt_ref)
    free(s.cnt_max)
    free(s)


cdef inline uint64_t pair_key(int32_t prev, int32_t token) noexcept nogil:
    return ((<uint64_t><uint32_t>prev) << 32) | <uint64_t><uint32_t>token


cdef inline Py_ssize_t slot_of(uint64_t key, int shift) noexcept nogil:
    return <Py_ssize_t>((key * <uint64_t>0x9E3779B97F4A7C15) >> shift)


cdef inline int32_t intern(NgramScratch* s, uint64_t key, Py_ssize_t mask, int shift,
                           int32_t* distinct) noexcept nogil:
    cdef Py_ssize_t h = slot_of(key, shift)
    while s.keys[h] != EMPTY:
        if s.keys[h] == key:
            return s.vals[h]
        h = (h + 1) & mask
    s.keys[h] = key
    s.vals[h] = distinct[0]
    distinct[0] += 1
    return s.vals[h]


cdef inline int32_t find(NgramScratch* s, uint64_t key, Py_ssize_t mask, int shift) noexcept nogil:
    cdef Py_ssize_t h = slot_of(key, shift)
    while s.keys[h] != EMPTY:
        if s.keys[h] == key:
            return s.vals[h]
        h = (h + 1) & mask
    return -1


cdef void clipped_matches(const int32_t* hyp, Py_ssize_t lh,
                          const int32_t* ref_ids, const int64_t* ref_offsets,
                          const int64_t* ref_rows, Py_ssize_t n_refs,
                          int max_order, int64_t* out, NgramScratch* s) noexcept nogil:
    """out[n - 1] = clipped match count of order n, for n = 1 .. max_order."""
    cdef Py_ssize_t cap = 16, mask, i, nh, nr, pos, base, r
    cdef int bits = 4, shift, order
    cdef int32_t distinct, d, prev
    cdef int64_t matches
    cdef const int32_t* ref
    while cap < 2 * lh:
        cap <<= 1
        bits += 1
    mask = cap - 1
    shift = 64 - bits
    for i in range(lh):
        s.hyp_prev[i] = 0
    pos = 0
    for r in range(n_refs):
        pos += ref_offsets[ref_rows[r] + 1] - ref_offsets[ref_rows[r]]
    for i in range(pos):
        s.ref_prev[i] = 0
    for order in range(1, max_order + 1):
        out[order - 1] = 0
    for order in range(1, max_order + 1):
        nh = lh - order + 1
        if nh <= 0:
            return
        for i in range(cap):
            s.keys[i] = EMPTY
        distinct = 0
        for i in range(nh):
            d = intern(s, pair_key(s.hyp_prev[i], hyp[i + order - 1]), mask, shift, &distinct)
            s.hyp_prev[i] = d
            s.cnt_hyp[d] += 1
        base = 0
        for r in range(n_refs):
            ref = &ref_ids[ref_offsets[ref_rows[r]]]
            nr = ref_offsets[ref_rows[r] + 1] - ref_offsets[ref_rows[r]] - order + 1
            for i in range(nr):
                prev = s.ref_prev[base + i]
                if prev >= 0:
                    prev = find(s, pair_key(prev, ref[i + order - 1]), mask, shift)
                    s.ref_prev[base + i] = prev
                    if prev >= 0:
                        s.cnt_ref[prev] += 1
            for i in range(nr):
                prev = s.ref_prev[base + i]
                if prev >= 0 and s.cnt_ref[prev] > 0:
                    if s.cnt_ref[prev] > s.cnt_max[prev]:
                        s.cnt_max[prev] = s.cnt_ref[prev]
                    s.cnt_ref[prev] = 0
            # positions i >= nr of this reference start no n-gram of this order: mark them dead
            for i in range(max(nr, 0), ref_offsets[ref_rows[r] + 1] - ref_offsets[ref_rows[r]]):
                s.ref_prev[base + i] = -1
            base += ref_offsets[ref_rows[r] + 1] - ref_offsets[ref_rows[r]]
        matches = 0
        for d in range(distinct):
            matches += s.cnt_hyp[d] if s.cnt_hyp[d] < s.cnt_max[d] else s.cnt_max[d]
            s.cnt_hyp[d] = 0
            s.cnt_max[d] = 0
        out[order - 1] = matches
        if matches == 0:  # every longer matching n-gram would contain a matching one of this order
            return
