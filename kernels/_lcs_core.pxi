# Shared C-level core of the LCS kernels, included by lcs.pyx and rouge_pair.pyx (Cython has no
# cross-extension inlining without a package-level .pxd; an include keeps one source of truth).
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

cdef extern from "qs_bitops.h":  # kernels/include/qs_bitops.h
    int popcount64 "__builtin_popcountll"(unsigned long long) nogil
    uint64_t addc "qs_addc"(uint64_t a, uint64_t b, unsigned char carry_in, unsigned char* carry_out) nogil
    void hyyro4 "qs_hyyro4"(uint64_t* v0, uint64_t* v1, uint64_t* v2, uint64_t* v3, const uint64_t* m,
                            unsigned char* carry) nogil

cdef uint64_t ALL_ONES = ~(<uint64_t>0)


# ---------------------------------------------------------------- per-thread scratch
ctypedef struct Scratch:
    uint64_t* mask      # [vocab] single-word match vector of each token (all zero between pairs)
    int32_t* slot       # [vocab] 1 + dense index of a token in the pattern, 0 when absent
    int32_t* count      # [vocab] token counts (rougeLsum clipping); all zero between pairs
    Py_ssize_t vocab_cap  # ids below this index the three tables above
    uint64_t* pm        # multi-word match rows, one row of W words per distinct pattern token
    Py_ssize_t pm_cap
    Py_ssize_t pm_dirty # the words of pm from here on are zero (build_match_blocks relies on it)
    uint64_t* v         # bit-vector columns of a rougeLsum table (mark_backtracked_lcs)
    Py_ssize_t v_cap
    unsigned char* mark # union flags over the positions of one reference sentence
    Py_ssize_t mark_cap
    int64_t* rows_info  # a reference sentence's token positions and row numbers (build_sentence_rows)
    Py_ssize_t rows_info_cap
    int64_t* index      # the candidate sentences holding each token (build_sentence_index)
    Py_ssize_t index_cap
    Py_ssize_t* text_rows   # the distinct-token index of each text token present in the pattern
    unsigned char* carries  # carry into the current block of words, one per text token
    int64_t* active         # the text tokens a block's sweep visits (see lcs_multi_word), each
                            # packed with its match block (active_text_tokens)
    Py_ssize_t text_cap
    int32_t* block_of       # [token]: its match block in pm in the group being swept, 0 (all zeros) if none
    Py_ssize_t block_of_cap
    int32_t* block_token    # [block]: the distinct token whose match words the block holds
    Py_ssize_t block_token_cap
    int32_t* group_first    # [group]: its first block (blocks are numbered group by group)
    Py_ssize_t group_first_cap


cdef Scratch* scratch_new(Py_ssize_t vocab_size) noexcept nogil:
    cdef Scratch* s = <Scratch*>calloc(1, sizeof(Scratch))
    if s == NULL:
        return NULL
    s.mask = <uint64_t*>calloc(vocab_size + 1, sizeof(uint64_t))
    s.slot = <int32_t*>calloc(vocab_size + 1, sizeof(int32_t))
    s.count = <int32_t*>calloc(vocab_size + 1, sizeof(int32_t))
    if s.mask == NULL or s.slot == NULL or s.count == NULL:
        scratch_free(s)
        return NULL
    s.vocab_cap = vocab_size + 1
    return s


cdef int scratch_fit_vocab(Scratch* s, Py_ssize_t vocab_size) noexcept nogil:
    """Make the per-id tables of ``s`` cover ids below ``vocab_size`` (for ids renumbered per
    pair); 0 on success, -1 when out of memory (``s`` is then unusable)."""
    cdef Py_ssize_t cap = max(s.vocab_cap, 64)
    if s.vocab_cap and vocab_size <= s.vocab_cap:
        return 0
    while cap < vocab_size:
        cap *= 2
    free(s.mask)
    free(s.slot)
    free(s.count)
    s.mask = <uint64_t*>calloc(cap, sizeof(uint64_t))
    s.slot = <int32_t*>calloc(cap, sizeof(int32_t))
    s.count = <int32_t*>calloc(cap, sizeof(int32_t))
    s.vocab_cap = cap if (s.mask != NULL and s.slot != NULL and s.count != NULL) else 0
    return 0 if s.vocab_cap else -1


cdef void scratch_free(Scratch* s) noexcept nogil:
    if s == NULL:
        return
    free(s.mask)
    free(s.slot)
    free(s.count)
    free(s.pm)
    free(s.v)
    free(s.mark)
    free(s.rows_info)
    free(s.index)
    free(s.text_rows)
    free(s.carries)
    free(s.active)
    free(s.block_of)
    free(s.block_token)
    free(s.group_first)
    free(s)


cdef int grow_array(void** buf, Py_ssize_t* cap, Py_ssize_t need, size_t size) noexcept nogil:
    """Make ``*buf`` hold at least ``need`` items of ``size`` bytes; 0 on success, -1 when out of memory."""
    cdef void* p
    if need <= cap[0]:
        return 0
    p = realloc(buf[0], need * size)
    if p == NULL:
        return -1
    buf[0] = p
    cap[0] = need
    return 0


cdef inline int grow_words(uint64_t** buf, Py_ssize_t* cap, Py_ssize_t need) noexcept nogil:
    return grow_array(<void**>buf, cap, need, sizeof(uint64_t))


cdef inline int grow_int32(int32_t** buf, Py_ssize_t* cap, Py_ssize_t need) noexcept nogil:
    return grow_array(<void**>buf, cap, need, sizeof(int32_t))


cdef inline int grow_int64(int64_t** buf, Py_ssize_t* cap, Py_ssize_t need) noexcept nogil:
    return grow_array(<void**>buf, cap, need, sizeof(int64_t))


cdef int grow_pm(Scratch* s, Py_ssize_t need) noexcept nogil:
    """grow_words on ``s.pm``, the new words zeroed (the words from ``s.pm_dirty`` on are zero)."""
    cdef Py_ssize_t old = s.pm_cap
    if grow_words(&s.pm, &s.pm_cap, need) != 0:
        return -1
    if s.pm_cap > old:
        memset(&s.pm[old], 0, (s.pm_cap - old) * sizeof(uint64_t))
    return 0


cdef inline int64_t ones_below(const uint64_t* x, Py_ssize_t nbits) noexcept nogil:
    """Number of set bits among positions 0 .. nbits - 1 of the multi-word vector ``x``."""
    cdef Py_ssize_t k
    cdef int64_t total = 0
    for k in range(nbits >> 6):
        total += popcount64(x[k])
    if nbits & 63:
        total += popcount64(x[nbits >> 6] & (((<uint64_t>1) << (nbits & 63)) - 1))
    return total


# ---------------------------------------------------------------- LCS length
cdef inline int64_t lcs_single_word(const int32_t* p, Py_ssize_t m, const int32_t* t, Py_ssize_t n,
                                    uint64_t* mask) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef uint64_t v = ALL_ONES, u
    for i in range(m):
        mask[p[i]] |= (<uint64_t>1) << i
    for j in range(n):
        u = v & mask[t[j]]
        v = (v + u) | (v - u)
    for i in range(m):
        mask[p[i]] = 0
    if m < 64:
        return popcount64(~v & (((<uint64_t>1) << m) - 1))
    return popcount64(~v)


cdef Py_ssize_t number_pattern_tokens(const int32_t* p, Py_ssize_t m, Scratch* s) noexcept nogil:
    """``s.slot[t]`` = 1 + dense index of token t among the distinct tokens of ``p``; returns how many."""
    cdef Py_ssize_t i, distinct = 0
    cdef int32_t seen
    for i in range(m):  # branch-free: in long texts of many words, a token's first sight is a coin toss
        seen = s.slot[p[i]]
        distinct += seen == 0
        s.slot[p[i]] = seen if seen != 0 else <int32_t>distinct
    return distinct


cdef inline Py_ssize_t build_match_blocks(const int32_t* p, Py_ssize_t m, Scratch* s, Py_ssize_t D,
                                          bint dense) noexcept nogil:
    """The match words of pattern ``p`` for lcs_multi_word, in blocks of eight words: for each
    group g = word / 8 (pattern positions 512 g .. 512 g + 511) and each distinct token d that
    occurs there, one block of ``s.pm``; block 0, all zeros, stands for the others. Blocks are
    numbered in position order, so group g's are ``s.group_first[g]`` .. ``s.group_first[g + 1] - 1``,
    and ``s.block_token`` names each one's token (select_group makes ``s.block_of`` map tokens to
    one group's blocks). Only occurring blocks are stored: memory O(m) whatever the number of
    distinct tokens, and no D * W mostly-zero words to clear. Tokens are numbered by ``s.slot``
    (number_pattern_tokens), or are their own numbers below D (``dense``). Returns W, -1 when out
    of memory."""
    cdef Py_ssize_t W = (m + 63) >> 6, i, g
    cdef Py_ssize_t G = (W + 7) >> 3
    cdef int32_t d, block, n_blocks = 0, first = 1
    cdef bint new
    cdef Py_ssize_t most_blocks = 1 + min(m, D * G)  # block 0 and one per position at most
    if (grow_pm(s, 8 * most_blocks) != 0
            or grow_int32(&s.block_of, &s.block_of_cap, D) != 0
            or grow_int32(&s.block_token, &s.block_token_cap, most_blocks) != 0
            or grow_int32(&s.group_first, &s.group_first_cap, G + 1) != 0):
        return -1
    memset(s.block_of, 0, D * sizeof(int32_t))  # here: each token's latest block
    # All blocks zero, cleared at once: a block cleared as it was opened had its first word's
    # bit written on top of the clearing stores while they were in flight.
    memset(s.pm, 0, s.pm_dirty * sizeof(uint64_t))
    for i in range(m):
        g = i >> 9
        if (i & 511) == 0:
            first = n_blocks + 1
            s.group_first[g] = first
        d = p[i] if dense else s.slot[p[i]] - 1
        block = s.block_of[d]
        new = block < first  # no block of this token in this group yet
        n_blocks += new
        block = n_blocks if new else block
        s.block_of[d] = block
        s.block_token[block] = d
        s.pm[8 * block + ((i >> 6) & 7)] |= (<uint64_t>1) << (i & 63)
    s.group_first[G] = n_blocks + 1
    s.pm_dirty = 8 * (n_blocks + 1)
    memset(s.block_of, 0, D * sizeof(int32_t))  # from now on: the swept group's blocks (select_group)
    return W


cdef inline void select_group(Scratch* s, Py_ssize_t g, bint on) noexcept nogil:
    """Point ``s.block_of`` at group g's blocks (``on``), or back at the zero block."""
    cdef int32_t b
    for b in range(s.group_first[g], s.group_first[g + 1]):
        s.block_of[s.block_token[b]] = b if on else 0


cdef inline void clear_match_rows(const int32_t* p, Py_ssize_t m, Scratch* s) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(m):
        s.slot[p[i]] = 0


cdef inline void advance_row(uint64_t* v_out, const uint64_t* v_in, const uint64_t* row,
                             Py_ssize_t W) noexcept nogil:
    """One text token: V' = (V + U) | (V - U), U = V & row, carry threaded from word 0 upward."""
    cdef Py_ssize_t k
    cdef uint64_t x, u
    cdef unsigned char carry = 0
    for k in range(W):
        x = v_in[k]
        u = x & row[k]
        v_out[k] = addc(x, u, carry, &carry) | (x - u)


cdef inline uint64_t hyyro_step(uint64_t x, uint64_t match, unsigned char* carry) noexcept nogil:
    """One word of V' = (V + U) | (V - U), U = V & match, with carry in and out."""
    cdef uint64_t u = x & match
    return addc(x, u, carry[0], carry) | (x - u)


cdef inline Py_ssize_t active_text_tokens(const Scratch* s, Py_ssize_t nt) noexcept nogil:
    """Into ``s.active``, the text tokens that can change the selected group's words (select_group):
    their token occurs in the group or a carry comes in from the group below. Any other leaves
    V as it is (U = 0 and V + 0 = V), and in long texts of many distinct words most are such.
    Each entry is ``j << 32 | 8 * block``, the token's index and the first word of its match
    block in ``s.pm``: one array to walk leaves the sweep's registers to its eight words.
    Branch-free: every entry is written, the count moves only for the kept ones."""
    cdef Py_ssize_t j, na = 0
    cdef int32_t b
    for j in range(nt):
        b = s.block_of[s.text_rows[j]]
        s.active[na] = (<int64_t>j << 32) | (8 * b)
        na += (b | s.carries[j]) != 0
    return na


cdef inline int64_t sweep_eight(Scratch* s, Py_ssize_t na) noexcept nogil:
    """One group's eight words kept in registers over its active text tokens (active_text_tokens),
    each token's carry into the group taken from and its carry out parked in ``s.carries``;
    returns the ones of ~V."""
    # The fields in locals: a byte store (the carry) may alias the struct, and the compiler would
    # reload each field after it, every token.
    cdef const int64_t* active = s.active
    cdef unsigned char* carries = s.carries
    cdef const uint64_t* pm = s.pm
    cdef Py_ssize_t a, j
    cdef uint64_t v0, v1, v2, v3, v4, v5, v6, v7
    cdef const uint64_t* row
    cdef unsigned char c
    v0 = v1 = v2 = v3 = v4 = v5 = v6 = v7 = ALL_ONES
    for a in range(na):
        j = active[a] >> 32
        row = &pm[<uint32_t>active[a]]
        c = carries[j]
        hyyro4(&v0, &v1, &v2, &v3, row, &c)
        hyyro4(&v4, &v5, &v6, &v7, &row[4], &c)
        carries[j] = c
    return (popcount64(~v0) + popcount64(~v1) + popcount64(~v2) + popcount64(~v3)
            + popcount64(~v4) + popcount64(~v5) + popcount64(~v6) + popcount64(~v7))


cdef inline int64_t sweep_four(Scratch* s, Py_ssize_t na) noexcept nogil:
    """sweep_eight on a group's first four words (the others are past the pattern)."""
    cdef const int64_t* active = s.active  # locals: see sweep_eight
    cdef unsigned char* carries = s.carries
    cdef const uint64_t* pm = s.pm
    cdef Py_ssize_t a, j
    cdef uint64_t v0, v1, v2, v3
    cdef unsigned char c
    v0 = v1 = v2 = v3 = ALL_ONES
    for a in range(na):
        j = active[a] >> 32
        c = carries[j]
        hyyro4(&v0, &v1, &v2, &v3, &pm[<uint32_t>active[a]], &c)
        carries[j] = c
    return popcount64(~v0) + popcount64(~v1) + popcount64(~v2) + popcount64(~v3)


cdef inline int64_t sweep_one(Scratch* s, Py_ssize_t na) noexcept nogil:
    """sweep_eight on a group's first word."""
    cdef const int64_t* active = s.active  # locals: see sweep_eight
    cdef unsigned char* carries = s.carries
    cdef const uint64_t* pm = s.pm
    cdef Py_ssize_t a, j
    cdef uint64_t v0 = ALL_ONES
    cdef unsigned char c
    for a in range(na):
        j = active[a] >> 32
        c = carries[j]
        v0 = hyyro_step(v0, pm[<uint32_t>active[a]], &c)
        carries[j] = c
    return popcount64(~v0)


cdef inline int64_t lcs_multi_word(const int32_t* p, Py_ssize_t m, const int32_t* t, Py_ssize_t n,
                                   Py_ssize_t D, Scratch* s, bint dense) noexcept nogil:
    """Each group of eight pattern words is swept over the text in registers (sweep_eight; a last
    group of one to four words by sweep_one or sweep_four), the carry out of each group parked
    per text token for the next group: no store/load of V between text
    tokens, and the words of a block overlap in the pipeline. Only the blocks of match words that
    hold a bit are stored (build_match_blocks), and a sweep visits only the text tokens that can
    change its words (active_text_tokens). ``s.slot`` numbers the pattern's D distinct tokens
    and is cleared here; or (``dense``) tokens are numbered below D already and every text token
    occurs in the pattern."""
    cdef Py_ssize_t W, j, g, width, nt = 0, na
    cdef int32_t d
    cdef int64_t total = 0
    W = build_match_blocks(p, m, s, D, dense)
    if W < 0:
        if not dense:
            clear_match_rows(p, m, s)
        return -1
    if n > s.text_cap:
        free(s.text_rows)
        free(s.carries)
        free(s.active)
        s.text_rows = <Py_ssize_t*>malloc(n * sizeof(Py_ssize_t))
        s.carries = <unsigned char*>malloc(n)
        s.active = <int64_t*>malloc(n * sizeof(int64_t))
        s.text_cap = n
        if s.text_rows == NULL or s.carries == NULL or s.active == NULL:
            s.text_cap = 0
            if not dense:
                clear_match_rows(p, m, s)
            return -1
    if dense:
        for j in range(n):
            s.text_rows[j] = t[j]
        nt = n
    else:
        for j in range(n):  # a token absent from the pattern leaves V unchanged: dropped (branch-free)
            d = s.slot[t[j]]
            s.text_rows[nt] = d - 1
            nt += d != 0
        clear_match_rows(p, m, s)
    memset(s.carries, 0, nt)
    for g in range((W + 7) >> 3):
        select_group(s, g, True)
        na = active_text_tokens(s, nt)
        select_group(s, g, False)
        width = min(W - 8 * g, 8)
        if width > 4:  # 5 to 8 words: one sweep of eight (sweeps, not words, are what cost)
            total += sweep_eight(s, na)
        elif width > 1:
            total += sweep_four(s, na)
        else:
            total += sweep_one(s, na)
    # Bits at positions >= m start as ones and stay ones (a match word is zero there, so
    # V' = (V + carry) | V), and so do the words of a block past W: ~V counts nothing there.
    return total


cdef int64_t lcs_length(const int32_t* a, Py_ssize_t la, const int32_t* b, Py_ssize_t lb,
                        Scratch* s) noexcept nogil:
    """LCS length of two id sequences; the shorter one is the bit pattern. -1: out of memory."""
    if la > lb:
        a, b = b, a
        la, lb = lb, la
    if la == 0:
        return 0
    if la <= 64:
        return lcs_single_word(a, la, b, lb, s.mask)
    return lcs_multi_word(a, la, b, lb, number_pattern_tokens(a, la, s), s, False)


cdef int64_t lcs_length_shared(const int32_t* a, Py_ssize_t la, const int32_t* b, Py_ssize_t lb,
                               Py_ssize_t vocab, Scratch* s) noexcept nogil:
    """lcs_length of two id sequences that hold the same set of tokens, ids below ``vocab``
    (rouge_raw's pairs after dropping one-sided tokens): the pattern's tokens need no numbering
    and no text token needs dropping, two passes and a table fewer."""
    if la > lb:
        a, b = b, a
        la, lb = lb, la
    if la == 0:
        return 0
    if la <= 64:
        return lcs_single_word(a, la, b, lb, s.mask)
    return lcs_multi_word(a, la, b, lb, vocab, s, True)


# ---------------------------------------------------------------- rougeLsum union LCS
# rouge-score reads each LCS back from the full DP table of a (reference sentence, candidate
# sentence) pair (``_backtrack_norec``). Here column j of that table is the bit-vector V_j after
# candidate tokens c[0..j) (cell t[i][j] = i - ones of V_j below bit i), W words a column. Up to
# lsum_budget_words the n + 1 columns are stored whole; beyond, only evenly spaced checkpoint
# columns are, and the columns between two checkpoints are recomputed from the first of them
# when the backtrace reaches them (backtrack_columns), recursively: the very same V_j, so the very
# same path, in memory bounded by the budget (at least two columns a level) for one forward pass a
# level. Match rows are bounded the same way (build_sentence_rows).
cdef Py_ssize_t lsum_budget_words = 1 << 21  # 16 MB of table columns, and of dense match rows


ctypedef struct SentenceRows:  # the match rows of one reference sentence (build_sentence_rows)
    const int32_t* r
    Py_ssize_t m
    Py_ssize_t W
    bint all_dense       # every distinct token d has its row of W words at s.pm[d * W]
    const int64_t* off   # else token d's positions are pos[off[d]:off[d + 1]] ...
    const int64_t* pos
    const int64_t* row   # ... and its row is s.pm[row[d] * W] when it occurs W times or more, or
    uint64_t* spare      # is written into these W zero words and wiped after each use (row[d] < 0)


cdef int build_sentence_rows(const int32_t* r, Py_ssize_t m, Scratch* s, SentenceRows* R) noexcept nogil:
    """Number the tokens of reference sentence ``r`` in ``s.slot`` and build their match rows.

    One dense row of W words per distinct token while that fits lsum_budget_words (D * W words,
    up to m * m / 64: quadratic); else dense rows only for the tokens that occur W times or more
    (at most 64 of them) and position lists for the others, O(m) memory. 0 on success, -1 when
    out of memory (``s.slot`` is then cleared)."""
    cdef Py_ssize_t W = (m + 63) >> 6, i, k, n_dense = 0
    cdef Py_ssize_t D = number_pattern_tokens(r, m, s)
    cdef int32_t d
    cdef int64_t* off
    cdef int64_t* pos
    cdef int64_t* row
    R.r, R.m, R.W = r, m, W
    R.all_dense = D * W <= lsum_budget_words
    if R.all_dense:
        n_dense = D
    else:
        if grow_int64(&s.rows_info, &s.rows_info_cap, 2 * D + 2 + m) != 0:
            clear_match_rows(r, m, s)
            return -1
        off, pos = s.rows_info, &s.rows_info[D + 2]
        row = &pos[m]
        memset(off, 0, (D + 2) * sizeof(int64_t))
        for i in range(m):  # token d's count at off[d + 2], then its first position's index at off[d + 1]
            off[s.slot[r[i]] + 1] += 1
        for k in range(2, D + 2):
            off[k] += off[k - 1]
        for i in range(m):  # off[d + 1] moves to the end of d's positions, the start of d + 1's
            d = s.slot[r[i]]
            pos[off[d]] = i
            off[d] += 1
        for d in range(D):
            row[d] = n_dense if off[d + 1] - off[d] >= W else -1
            n_dense += row[d] >= 0
        R.off, R.pos, R.row = off, pos, row
    if grow_pm(s, (n_dense + 1) * W) != 0:
        clear_match_rows(r, m, s)
        return -1
    memset(s.pm, 0, (n_dense + 1) * W * sizeof(uint64_t))
    s.pm_dirty = max(s.pm_dirty, (n_dense + 1) * W)
    R.spare = &s.pm[n_dense * W]
    for i in range(m):
        d = s.slot[r[i]] - 1
        if not R.all_dense:
            d = <int32_t>R.row[d]
        if d >= 0:
            s.pm[d * W + (i >> 6)] |= (<uint64_t>1) << (i & 63)
    return 0


cdef inline void advance_column(uint64_t* v_out, const uint64_t* v_in, int32_t token, const SentenceRows* R,
                                const Scratch* s) noexcept nogil:
    """V after one more candidate token (``v_out`` may be ``v_in``)."""
    cdef Py_ssize_t W = R.W, k
    cdef int64_t d = s.slot[token] - 1, p
    if d < 0:  # not in the sentence: V unchanged
        if v_out != v_in:
            memcpy(v_out, v_in, W * sizeof(uint64_t))
        return
    if not R.all_dense:
        if R.row[d] < 0:
            for k in range(R.off[d], R.off[d + 1]):
                p = R.pos[k]
                R.spare[p >> 6] |= (<uint64_t>1) << (p & 63)
            advance_row(v_out, v_in, R.spare, W)
            for k in range(R.off[d], R.off[d + 1]):
                R.spare[R.pos[k] >> 6] = 0
            return
        d = R.row[d]
    advance_row(v_out, v_in, &s.pm[d * W], W)


cdef inline int64_t complement_bit(const uint64_t* v, Py_ssize_t i) noexcept nogil:
    """Bit i of ~V: t[i + 1][j] - t[i][j] for V = V_j."""
    return ((~v[i >> 6]) >> (i & 63)) & 1


cdef Py_ssize_t backtrack_block(const SentenceRows* R, const int32_t* c, const uint64_t* cols, Py_ssize_t lo,
                                Py_ssize_t hi, Py_ssize_t i, unsigned char* mark,
                                Py_ssize_t* newly) noexcept nogil:
    """rouge-score's ``_backtrack_norec`` from cell (i, hi) for as long as it stays right of column
    ``lo``, ``cols + k * W`` holding V_{lo + k}: a match goes diagonally (and marks its reference
    position, counting in ``newly`` the marks that were not set), else left when t[i][j - 1] >
    t[i - 1][j], else up. Returns its row on reaching column ``lo`` (0 when it ran out of rows).

    The cells are kept up to date as it moves (a diagonal step lowers t by one, a step up by a
    bit of ~V): one prefix count of W words per column, not two per step."""
    cdef Py_ssize_t W = R.W, j = hi
    cdef const int32_t* r = R.r
    cdef int64_t here = i - ones_below(&cols[(hi - lo) * W], i)  # t[i][j]
    cdef int64_t left = -1, up  # t[i][j - 1] (-1: not counted yet), t[i - 1][j]
    while i > 0 and j > lo:
        if r[i - 1] == c[j - 1]:
            newly[0] += mark[i - 1] == 0
            mark[i - 1] = 1
            i -= 1
            j -= 1
            here -= 1
            left = -1
            continue
        if left < 0:
            left = i - ones_below(&cols[(j - 1 - lo) * W], i)
        up = here - complement_bit(&cols[(j - lo) * W], i - 1)
        if left > up:
            j -= 1
            here = left
            left = -1
        else:
            left -= complement_bit(&cols[(j - 1 - lo) * W], i - 1)
            i -= 1
            here = up
    return i


cdef Py_ssize_t backtrack_columns(const SentenceRows* R, const int32_t* c, Py_ssize_t lo, Py_ssize_t hi,
                                  const uint64_t* v_lo, Py_ssize_t i, uint64_t* cols, Py_ssize_t b, Scratch* s,
                                  Py_ssize_t* newly) noexcept nogil:
    """backtrack_block over columns (lo, hi] from V_lo, with ``b`` columns of room at ``cols`` and
    as much again at ``cols + b * W`` for each level below. Up to b columns: all of them,
    computed and read back. More: checkpoints every ``step`` columns (at most b), then each
    stretch between two, last to first, the same way one level down."""
    cdef Py_ssize_t W = R.W, span = hi - lo, step, n_points, k, j
    memcpy(cols, v_lo, W * sizeof(uint64_t))
    if span < b:
        for j in range(lo, hi):
            advance_column(&cols[(j - lo + 1) * W], &cols[(j - lo) * W], c[j], R, s)
        return backtrack_block(R, c, cols, lo, hi, i, s.mark, newly)
    step = (span + b - 1) // b
    n_points = (span + step - 1) // step
    for k in range(1, n_points):
        memcpy(&cols[k * W], &cols[(k - 1) * W], W * sizeof(uint64_t))
        for j in range(lo + (k - 1) * step, lo + k * step):
            advance_column(&cols[k * W], &cols[k * W], c[j], R, s)
    k = n_points - 1
    while k >= 0 and i > 0:
        i = backtrack_columns(R, c, lo + k * step, min(lo + (k + 1) * step, hi), &cols[k * W], i,
                              &cols[b * W], b, s, newly)
        k -= 1
    return i


cdef Py_ssize_t table_levels(Py_ssize_t n, Py_ssize_t W, Py_ssize_t* b) noexcept nogil:
    """Levels of backtrack_columns for n candidate tokens, and (``b``) the columns of room per
    level: the whole table when it fits lsum_budget_words, else the fewest levels whose columns
    fit it (at least two columns a level)."""
    cdef Py_ssize_t depth = 1, levels, span
    if (n + 1) * W <= lsum_budget_words:
        b[0] = n + 1
        return 1
    while True:
        depth += 1
        b[0] = max(2, lsum_budget_words // (depth * W))
        levels, span = 1, n
        while span >= b[0]:
            span = (span + b[0] - 1) // b[0]
            levels += 1
        if levels <= depth:
            return levels


cdef int mark_backtracked_lcs(const SentenceRows* R, const int32_t* c, Py_ssize_t n, Scratch* s,
                              Py_ssize_t* newly) noexcept nogil:
    """Mark in ``s.mark`` the positions of the reference sentence on rouge-score's backtracked LCS
    with candidate sentence ``c`` (``newly``: plus the marks not set before). -1: out of memory."""
    cdef Py_ssize_t b, W = R.W, k
    cdef Py_ssize_t levels = table_levels(n, W, &b)
    cdef uint64_t* ones
    if grow_words(&s.v, &s.v_cap, (levels * b + 1) * W) != 0:
        return -1
    ones = &s.v[levels * b * W]  # V_0
    for k in range(W):
        ones[k] = ALL_ONES
    backtrack_columns(R, c, 0, n, ones, R.m, s.v, b, s, newly)
    return 0


cdef int64_t build_sentence_index(const int32_t* c_ids, const int64_t* c_tok_off, int64_t c_s0, int64_t c_s1,
                                  Scratch* s) noexcept nogil:
    """Which candidate sentences of [c_s0, c_s1) hold each token, by counting sort in O(tokens +
    sentences): ``s.mask[token]`` = 1 + its number d (0: in none), and in ``s.index`` (D distinct
    tokens, T tokens, C sentences) d's sentences (relative to c_s0) at ``ent[off[d]:off[d + 1]]``,
    ``off`` the first D + 2 words, ``ent`` from word 2 * D + 2, then C stamps (mark_union_indexed),
    all -1. Returns D, or -1 when out of memory."""
    cdef int64_t n_tok = c_tok_off[c_s1] - c_tok_off[c_s0], C = c_s1 - c_s0, D = 0, cs, pos, k, d
    cdef int64_t* off
    cdef int64_t* last
    cdef int64_t* ent
    for pos in range(c_tok_off[c_s0], c_tok_off[c_s1]):
        if s.mask[c_ids[pos]] == 0:
            D += 1
            s.mask[c_ids[pos]] = <uint64_t>D
    if grow_int64(&s.index, &s.index_cap, 2 * D + 2 + n_tok + C) != 0:
        return -1
    off, last = s.index, &s.index[D + 2]
    ent = &last[D]
    memset(off, 0, (D + 2) * sizeof(int64_t))
    for k in range(D):
        last[k] = -1
    for cs in range(C):  # d's count of sentences at off[d + 2], as in build_sentence_rows
        for pos in range(c_tok_off[c_s0 + cs], c_tok_off[c_s0 + cs + 1]):
            d = <int64_t>s.mask[c_ids[pos]] - 1
            if last[d] != cs:
                last[d] = cs
                off[d + 2] += 1
    for k in range(2, D + 2):
        off[k] += off[k - 1]
    for k in range(D):
        last[k] = -1
    for cs in range(C):
        for pos in range(c_tok_off[c_s0 + cs], c_tok_off[c_s0 + cs + 1]):
            d = <int64_t>s.mask[c_ids[pos]] - 1
            if last[d] != cs:
                last[d] = cs
                ent[off[d + 1]] = cs
                off[d + 1] += 1
    for k in range(C):
        ent[n_tok + k] = -1
    return D


cdef int mark_union_indexed(const SentenceRows* R, int64_t rs, Py_ssize_t markable, const int32_t* c_ids,
                            const int64_t* c_tok_off, int64_t c_s0, int64_t c_s1, int64_t D, Scratch* s) noexcept nogil:
    """The union marks of reference sentence ``R`` (number ``rs``) over only the candidate
    sentences that share a token with it (build_sentence_index, D distinct tokens), each once,
    until the ``markable`` positions are all marked; a sentence's stamp says which reference
    sentence visited it last. -1: out of memory."""
    cdef int64_t n_tok = c_tok_off[c_s1] - c_tok_off[c_s0], e, cs, d
    cdef const int32_t* r = R.r
    cdef Py_ssize_t i, seen = 0, newly = 0
    cdef int64_t* off = s.index
    cdef int64_t* ent
    cdef int64_t* stamp
    ent = &s.index[2 * D + 2]
    stamp = &ent[n_tok]
    for i in range(R.m):
        if s.slot[r[i]] != seen + 1:  # not the first occurrence of its token in r
            continue
        seen += 1
        d = <int64_t>s.mask[r[i]] - 1
        if d < 0:
            continue
        for e in range(off[d], off[d + 1]):
            cs = ent[e]
            if stamp[cs] == rs:
                continue
            stamp[cs] = rs
            if mark_backtracked_lcs(R, &c_ids[c_tok_off[c_s0 + cs]], c_tok_off[c_s0 + cs + 1] - c_tok_off[c_s0 + cs],
                                    s, &newly) != 0:
                return -1
            if newly == markable:
                return 0
    return 0


cdef int64_t union_lcs_hits(const int32_t* r_ids, const int64_t* r_tok_off, int64_t r_s0, int64_t r_s1,
                            const int32_t* c_ids, const int64_t* c_tok_off, int64_t c_s0, int64_t c_s1,
                            Scratch* s) noexcept nogil:
    """rouge-score ``_summary_level_lcs`` hit count of reference sentences [r_s0, r_s1) against
    candidate sentences [c_s0, c_s1). Each union token counts while the candidate still has an
    unused occurrence of it (the reference side can never run out: union positions are distinct).
    -1: out of memory.

    A position whose token the candidate has run out of can add no hit, so it starts marked;
    once the others are all marked, no more candidate sentences can change the hits. With many
    candidate sentences, only those that share a token with the reference sentence are visited
    (mark_union_indexed): with one-token sentences, O(1) visits a reference sentence, not O(C)."""
    cdef int64_t hits = 0, rs, cs, pos, D = 0
    cdef const int32_t* r
    cdef Py_ssize_t m, i, markable, newly
    cdef SentenceRows R
    cdef int failed = 0
    cdef bint indexed = c_s1 - c_s0 >= 4
    for pos in range(c_tok_off[c_s0], c_tok_off[c_s1]):
        s.count[c_ids[pos]] += 1
    if indexed:
        D = build_sentence_index(c_ids, c_tok_off, c_s0, c_s1, s)
        failed = D < 0
    for rs in range(r_s0, r_s1):
        if failed:
            break
        r = &r_ids[r_tok_off[rs]]
        m = r_tok_off[rs + 1] - r_tok_off[rs]
        markable = 0
        for i in range(m):
            markable += s.count[r[i]] > 0
        if markable == 0:
            continue
        if m > s.mark_cap:
            free(s.mark)
            s.mark = <unsigned char*>malloc(m)
            s.mark_cap = m if s.mark != NULL else 0
            if s.mark == NULL:
                failed = 1
                break
        for i in range(m):
            s.mark[i] = s.count[r[i]] == 0
        if build_sentence_rows(r, m, s, &R) != 0:
            failed = 1
            break
        if indexed:
            failed = mark_union_indexed(&R, rs, markable, c_ids, c_tok_off, c_s0, c_s1, D, s) != 0
        else:
            newly = 0
            for cs in range(c_s0, c_s1):
                if c_tok_off[cs + 1] == c_tok_off[cs]:
                    continue
                if mark_backtracked_lcs(&R, &c_ids[c_tok_off[cs]], c_tok_off[cs + 1] - c_tok_off[cs], s, &newly) != 0:
                    failed = 1
                    break
                if newly == markable:
                    break
        clear_match_rows(r, m, s)
        if failed:
            break
        for i in range(m):
            if s.mark[i] and s.count[r[i]] > 0:
                hits += 1
                s.count[r[i]] -= 1
    for pos in range(c_tok_off[c_s0], c_tok_off[c_s1]):
        s.count[c_ids[pos]] = 0
        s.mask[c_ids[pos]] = 0
    return -1 if failed else hits
