# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Translation edit rate (number of edits, shifts included) of hypothesis/reference pairs of token
ids, with the semantics of sacrebleu 2.6's ``translation_edit_rate`` (metrics/lib_ter.py).

That is not Tercom's search. Per pair:

* The edit distance is a beam-limited Levenshtein distance rewriting the hypothesis (rows i) into
  the reference (columns j): row i only fills columns ``[floor(i * m / n) - bw, floor(i * m / n) + bw)``
  clipped to the matrix (the last row up to m), every other cell counting as unreachable; ``bw``
  is 25, widened to ``ceil(m / n / 2 + 25)`` for very unequal lengths. A cell takes the first
  strictly cheapest of: match/substitution, deletion (a hypothesis word), insertion (a reference word).
* The trace back from (n, m) gives the alignment: for each reference word, the hypothesis position
  it is matched to (or the last one before it), and which words of either side are in error.
* Shift candidates are the common runs (up to 10 words) of the hypothesis at ``sh`` and the
  reference at ``sr`` with ``|sh - sr| <= 50``, in order of sh, then sr, then length. A run is tried
  when both sides hold an error inside it and the run does not already cover its own target; it is
  moved before each distinct position ``align[sr + k] + 1`` for k in -1 .. length - 1 (position 0
  for k = -1 at sr = 0). The best candidate has the largest gain, then the longest run, then the
  earliest start, then the earliest target; the first wins a full tie.
* The best shift is applied while its gain is positive. At most 1000 candidates are evaluated in
  all (counted per run, so the last run may pass 1000); the search that reaches the limit is
  discarded and the pair stops there.

Result: shifts + edit distance of the final hypothesis (the hypothesis length for an empty
reference). sacrebleu's cache of matrix rows does not change results and is not copied; instead a
candidate reuses the rows of the current hypothesis' unchanged prefix, and is abandoned once a
lower bound on its distance proves its gain below max(best gain so far, 1): such a candidate can
neither win nor be applied, so the outcome is the same as evaluating it fully.

Memory: each thread keeps buffers grown to the largest pair it has scored: the band (about 50
cells, 5 bytes each, per hypothesis word, plus the reference length) and a few arrays per word.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport ceil, floor
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

include "_packed_checks.pxi"

cdef enum:
    BEAM_WIDTH = 25
    MAX_SHIFT_SIZE = 10
    MAX_SHIFT_DIST = 50
    MAX_SHIFT_CANDIDATES = 1000
    COST_INF = 1 << 30  # an unreachable cell; INF + a few edits still fits in int32
    # Edit operations of a cell, rewriting the hypothesis into the reference.
    OP_UNDEF = 0
    OP_MATCH = 1
    OP_SUB = 2
    OP_DEL = 3  # drops a hypothesis word (row i - 1 to i, same column)
    OP_INS = 4  # adds a reference word (column j - 1 to j, same row)
    FAILED_MEMORY = -1
    FAILED_TRACE = -2


cdef struct Scratch:
    # One thread's buffers, grown to the largest pair it has seen.
    int64_t cap_n, cap_m, cap_cells
    int32_t *words  # the current hypothesis [n]
    int32_t *shifted  # a candidate [n]
    int64_t *lo  # row i of the band holds columns lo[i] .. hi[i] - 1 [n + 1]
    int64_t *hi
    int64_t *start  # ... at cost[start[i]] onwards [n + 1]
    int32_t *cost  # the band of the current hypothesis' matrix [cells]
    uint8_t *ops  # and each cell's operation [cells]
    int32_t *row_a  # two rows for a candidate's matrix [m + 1]
    int32_t *row_b
    int32_t *align  # hypothesis position of each reference word [m]
    int32_t *hyp_err  # running count of hypothesis words in error [n + 1]
    int32_t *ref_err  # running count of reference words in error [m + 1]


cdef void scratch_free(Scratch *s) noexcept nogil:
    if s == NULL:
        return
    free(s.words); free(s.shifted); free(s.lo); free(s.hi); free(s.start); free(s.row_a); free(s.row_b)
    free(s.align); free(s.hyp_err); free(s.ref_err); free(s.cost); free(s.ops)
    free(s)


cdef bint reserve_rows(Scratch *s, int64_t n, int64_t m) noexcept nogil:
    """Room for a pair of n and m words, bar the band's cells; False when out of memory."""
    if n <= s.cap_n and m <= s.cap_m:
        return True
    n = max(n, s.cap_n)
    m = max(m, s.cap_m)
    free(s.words); free(s.shifted); free(s.lo); free(s.hi); free(s.start); free(s.row_a); free(s.row_b)
    free(s.align); free(s.hyp_err); free(s.ref_err)
    s.words = <int32_t *>malloc((n + 1) * sizeof(int32_t))
    s.shifted = <int32_t *>malloc((n + 1) * sizeof(int32_t))
    s.lo = <int64_t *>malloc((n + 1) * sizeof(int64_t))
    s.hi = <int64_t *>malloc((n + 1) * sizeof(int64_t))
    s.start = <int64_t *>malloc((n + 2) * sizeof(int64_t))
    s.row_a = <int32_t *>malloc((m + 1) * sizeof(int32_t))
    s.row_b = <int32_t *>malloc((m + 1) * sizeof(int32_t))
    s.align = <int32_t *>malloc((m + 1) * sizeof(int32_t))
    s.hyp_err = <int32_t *>malloc((n + 1) * sizeof(int32_t))
    s.ref_err = <int32_t *>malloc((m + 1) * sizeof(int32_t))
    if not (s.words and s.shifted and s.lo and s.hi and s.start and s.row_a and s.row_b and s.align
            and s.hyp_err and s.ref_err):
        s.cap_n = s.cap_m = -1  # whatever was allocated is freed next time, or with the scratch
        return False
    s.cap_n, s.cap_m = n, m
    return True


cdef bint reserve_cells(Scratch *s, int64_t cells) noexcept nogil:
    if cells <= s.cap_cells:
        return True
    free(s.cost); free(s.ops)
    s.cost = <int32_t *>malloc(cells * sizeof(int32_t))
    s.ops = <uint8_t *>malloc(cells * sizeof(uint8_t))
    if not (s.cost and s.ops):
        s.cap_cells = -1
        return False
    s.cap_cells = cells
    return True


cdef inline int64_t beam_width(double ratio) noexcept nogil:
    # Wide enough that consecutive rows overlap however unequal the lengths.
    return <int64_t>ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH


cdef int64_t set_band(Scratch *s, int64_t n, int64_t m) noexcept nogil:
    """The columns each row of an n x m matrix fills (row 0: all); returns the band's cells."""
    cdef double ratio = (<double>m) / n if n > 0 else 1.0
    cdef int64_t bw = beam_width(ratio), i, diag
    s.lo[0], s.hi[0], s.start[0] = 0, m + 1, 0
    for i in range(1, n + 1):
        diag = <int64_t>floor(i * ratio)
        s.lo[i] = max(0, diag - bw)
        s.hi[i] = max(s.lo[i], m + 1 if i == n else min(m + 1, diag + bw))
        s.start[i] = s.start[i - 1] + s.hi[i - 1] - s.lo[i - 1]
    return s.start[n] + s.hi[n] - s.lo[n]


cdef inline int32_t cell(const int32_t *row, int64_t lo, int64_t hi, int64_t j) noexcept nogil:
    return row[j - lo] if lo <= j < hi else COST_INF


cdef void dp_row_ops(const int32_t *prev, int64_t plo, int64_t phi, int32_t *cur, int64_t lo, int64_t hi,
                     int32_t word, const int32_t *ref, uint8_t *ops) noexcept nogil:
    """Row ``cur`` (columns lo .. hi - 1) of the matrix from the row before it (columns plo .. phi - 1);
    ``word`` is this row's hypothesis word. Each cell takes the first strictly cheapest operation,
    in sacrebleu's order, and records it in ``ops``; a cell with nothing cheaper than COST_INF stays
    unreachable."""
    cdef int64_t j = lo
    cdef int32_t left = COST_INF, c, via
    cdef uint8_t op
    if j == 0 and hi > 0:  # column 0 is reached by deletions only
        cur[0] = left = cell(prev, plo, phi, 0) + 1
        ops[0] = OP_DEL
        j = 1
    while j < hi:
        c = COST_INF
        op = OP_UNDEF
        via = cell(prev, plo, phi, j - 1)
        if word == ref[j - 1]:
            if via < c:
                c, op = via, OP_MATCH
        elif via + 1 < c:
            c, op = via + 1, OP_SUB
        via = cell(prev, plo, phi, j) + 1
        if via < c:
            c, op = via, OP_DEL
        if left + 1 < c:
            c, op = left + 1, OP_INS
        cur[j - lo] = left = c
        ops[j - lo] = op
        j += 1


cdef inline int32_t cheapest(int32_t diag, int32_t up, int32_t left) noexcept nogil:
    """A cell's cost: what ``dp_row_ops`` keeps, whichever operation gives it (diag is the
    match/substitution cost, up the deletion's, left the insertion's)."""
    cdef int32_t c = COST_INF
    if diag < c:
        c = diag
    if up < c:
        c = up
    if left < c:
        c = left
    return c


cdef inline int32_t bounded(int32_t bound, int32_t c, int64_t gap) noexcept nogil:
    """min(bound, c + |gap|): the rest of a path through a cell costs at least |gap|, the difference
    of the words left on each side."""
    c += <int32_t>(gap if gap >= 0 else -gap)
    return c if c < bound else bound


cdef int32_t dp_row_cost(const int32_t *prev, int64_t plo, int64_t phi, int32_t *cur, int64_t lo, int64_t hi,
                         int32_t word, const int32_t *ref, int64_t m, int64_t rows_left) noexcept nogil:
    """``dp_row_ops``'s costs without the operations: the hot loop of candidate evaluation. Returns a
    lower bound on the final distance (min over the row of cell + |rows_left - (m - j)|)."""
    cdef int64_t j = lo, both, end
    cdef int32_t left = COST_INF, c, bound = COST_INF
    if j == 0 and hi > 0:
        cur[0] = left = cell(prev, plo, phi, 0) + 1
        bound = bounded(bound, left, rows_left - m)
        j = 1
    # Columns where the previous row holds both j - 1 and j, then the edges around them.
    both = min(max(j, plo + 1), hi)
    end = max(both, min(hi, phi))
    while j < both:
        c = cheapest(cell(prev, plo, phi, j - 1) + (word != ref[j - 1]), cell(prev, plo, phi, j) + 1, left + 1)
        cur[j - lo] = left = c
        bound = bounded(bound, c, rows_left - m + j)
        j += 1
    while j < end:
        c = cheapest(prev[j - 1 - plo] + (word != ref[j - 1]), prev[j - plo] + 1, left + 1)
        cur[j - lo] = left = c
        bound = bounded(bound, c, rows_left - m + j)
        j += 1
    while j < hi:
        c = cheapest(cell(prev, plo, phi, j - 1) + (word != ref[j - 1]), cell(prev, plo, phi, j) + 1, left + 1)
        cur[j - lo] = left = c
        bound = bounded(bound, c, rows_left - m + j)
        j += 1
    return bound


cdef int32_t fill_matrix(Scratch *s, int64_t first_row, int64_t n, const int32_t *ref, int64_t m) noexcept nogil:
    """Rows first_row .. n of the current hypothesis' band (costs and operations); the rows before
    are kept. Returns the edit distance."""
    cdef int64_t i, j
    if first_row == 0:
        for j in range(m + 1):  # reference words inserted into an empty hypothesis
            s.cost[j] = <int32_t>j
            s.ops[j] = OP_INS
        first_row = 1
    for i in range(first_row, n + 1):
        dp_row_ops(s.cost + s.start[i - 1], s.lo[i - 1], s.hi[i - 1], s.cost + s.start[i], s.lo[i], s.hi[i],
                   s.words[i - 1], ref, s.ops + s.start[i])
    return cell(s.cost + s.start[n], s.lo[n], s.hi[n], m)


cdef int32_t candidate_distance(Scratch *s, int64_t same_rows, int64_t n, const int32_t *ref, int64_t m,
                                int32_t give_up) noexcept nogil:
    """Edit distance of ``s.shifted``, whose first ``same_rows`` words are the current hypothesis'
    (so are its matrix rows up to there). Returns more than ``give_up`` as soon as the distance
    is proven to exceed it."""
    if same_rows >= n:
        return cell(s.cost + s.start[n], s.lo[n], s.hi[n], m)
    cdef const int32_t *prev = s.cost + s.start[same_rows]
    cdef int32_t *cur = s.row_a
    cdef int32_t *spare = s.row_b
    cdef int32_t bound
    cdef int64_t i
    for i in range(same_rows + 1, n + 1):
        bound = dp_row_cost(prev, s.lo[i - 1], s.hi[i - 1], cur, s.lo[i], s.hi[i], s.shifted[i - 1], ref, m, n - i)
        if bound > give_up:
            return bound
        prev = cur
        cur, spare = spare, cur
    return cell(prev, s.lo[n], s.hi[n], m)


cdef bint trace_alignment(Scratch *s, int64_t n, int64_t m) noexcept nogil:
    """From the operations of the current band: ``align[j]`` (the hypothesis position of reference
    word j, or of the last hypothesis word before it; -1 when none) and running error counts of
    both sides. False if the trace meets an unreachable cell (sacrebleu raises there)."""
    cdef int64_t i = n, j = m, k
    cdef uint8_t op
    for k in range(n + 1):
        s.hyp_err[k] = 0
    for k in range(m + 1):
        s.ref_err[k] = 0
    while i > 0 or j > 0:
        op = s.ops[s.start[i] + j - s.lo[i]] if s.lo[i] <= j < s.hi[i] else OP_UNDEF
        if op == OP_MATCH or op == OP_SUB:
            s.align[j - 1] = <int32_t>(i - 1)
            s.hyp_err[i] = s.ref_err[j] = op == OP_SUB
            i -= 1
            j -= 1
        elif op == OP_DEL:
            s.hyp_err[i] = 1
            i -= 1
        elif op == OP_INS:
            s.align[j - 1] = <int32_t>(i - 1)
            s.ref_err[j] = 1
            j -= 1
        else:
            return False
    for k in range(1, n + 1):
        s.hyp_err[k] += s.hyp_err[k - 1]
    for k in range(1, m + 1):
        s.ref_err[k] += s.ref_err[k - 1]
    return True


cdef inline void concat4(const int32_t *src, int32_t *dst, int64_t a0, int64_t a1, int64_t b0, int64_t b1,
                         int64_t c0, int64_t c1, int64_t d0, int64_t d1) noexcept nogil:
    """``dst`` = src[a0:a1] + src[b0:b1] + src[c0:c1] + src[d0:d1]."""
    cdef int64_t out = 0
    memcpy(dst + out, src + a0, (a1 - a0) * sizeof(int32_t)); out += a1 - a0
    memcpy(dst + out, src + b0, (b1 - b0) * sizeof(int32_t)); out += b1 - b0
    memcpy(dst + out, src + c0, (c1 - c0) * sizeof(int32_t)); out += c1 - c0
    memcpy(dst + out, src + d0, (d1 - d0) * sizeof(int32_t))


cdef int64_t shift_words(const int32_t *src, int32_t *dst, int64_t n, int64_t start, int64_t length,
                         int64_t target) noexcept nogil:
    """``dst`` = ``src`` with its words start .. start + length - 1 moved to ``target`` (sacrebleu's
    three cases; a target inside the run moves it right by target - start). Returns how many leading
    words are unchanged."""
    cdef int64_t k, end = start + length, mid
    if target < start:
        concat4(src, dst, 0, target, start, end, target, start, end, n)
        return target
    if target > end:
        mid = target
    else:
        if target == start:
            for k in range(n):
                dst[k] = src[k]
            return n
        mid = min(n, length + target)
        target = mid
    concat4(src, dst, 0, start, end, mid, start, end, target, n)
    return start


cdef inline bint better(int32_t gain, int64_t length, int64_t start, int64_t target,
                        int32_t best_gain, int64_t best_length, int64_t best_start, int64_t best_target) noexcept nogil:
    """sacrebleu's ranking: largest gain, then longest run, then earliest start, then earliest target."""
    if gain != best_gain:
        return gain > best_gain
    if length != best_length:
        return length > best_length
    if start != best_start:
        return start < best_start
    return target < best_target


cdef int64_t pair_edits(Scratch *s, const int32_t *hyp, int64_t n, const int32_t *ref, int64_t m) noexcept nogil:
    """sacrebleu's number of edits of one pair, or FAILED_*."""
    if m == 0:
        return n
    if not reserve_rows(s, n, m) or not reserve_cells(s, set_band(s, n, m)):
        return FAILED_MEMORY
    cdef int64_t k, sh, sr, length, offset, target, prev_target, same
    cdef int64_t checked = 0, shifts = 0
    cdef int64_t best_length = 0, best_start = 0, best_target = 0
    cdef int32_t distance, gain, best_gain = 0
    cdef int32_t *swap
    cdef bint found, limit = False
    for k in range(n):
        s.words[k] = hyp[k]
    distance = fill_matrix(s, 0, n, ref, m)
    while True:
        if not trace_alignment(s, n, m):
            return FAILED_TRACE
        found = False
        for sh in range(n):
            for sr in range(max(0, sh - MAX_SHIFT_DIST), min(m, sh + MAX_SHIFT_DIST + 1)):
                length = 1
                while (length <= MAX_SHIFT_SIZE and sh + length <= n and sr + length <= m
                       and s.words[sh + length - 1] == ref[sr + length - 1]):
                    # the run must fix an error on both sides and not already sit on its target
                    if (s.hyp_err[sh + length] != s.hyp_err[sh] and s.ref_err[sr + length] != s.ref_err[sr]
                            and not sh <= s.align[sr] < sh + length):
                        prev_target = -1
                        for offset in range(-1, length):
                            target = 0 if sr + offset < 0 else s.align[sr + offset] + 1
                            if target == prev_target:
                                continue
                            prev_target = target
                            same = shift_words(s.words, s.shifted, n, sh, length, target)
                            # Only a gain of at least max(best gain, 1) can matter (a shift is
                            # applied only for a positive gain): one short of it stops once proven so.
                            gain = distance - candidate_distance(
                                s, same, n, ref, m, distance - (best_gain if found and best_gain > 1 else 1))
                            checked += 1
                            if not found or better(gain, length, sh, target, best_gain, best_length, best_start,
                                                   best_target):
                                found = True
                                best_gain, best_length, best_start, best_target = gain, length, sh, target
                        if checked >= MAX_SHIFT_CANDIDATES:
                            limit = True
                            break
                    length += 1
                if limit:
                    break
            if limit:
                break
        if limit or not found or best_gain <= 0:
            return shifts + distance
        same = shift_words(s.words, s.shifted, n, best_start, best_length, best_target)
        swap = s.words
        s.words = s.shifted
        s.shifted = swap
        shifts += 1
        distance = fill_matrix(s, same + 1, n, ref, m)


def shift_edit_counts(const int32_t[::1] ids not None, const int64_t[::1] offsets not None,
                      const int64_t[::1] hyp_rows not None, const int64_t[::1] ref_rows not None, int n_jobs=1):
    """sacrebleu's TER edit count of hypothesis row ``hyp_rows[k]`` against reference row
    ``ref_rows[k]``, for every k (rows of ``ids[offsets[r]:offsets[r + 1]]``): int64[K].

    Pairs run on ``n_jobs`` threads, each with buffers grown to the largest pair it meets (linear
    in the pair's length: the band has about 50 cells a hypothesis word)."""
    cdef Py_ssize_t K = hyp_rows.shape[0], k
    if ref_rows.shape[0] != K:
        raise ValueError(f"hyp_rows has {K} entries but ref_rows has {ref_rows.shape[0]}")
    checked_max_id(ids, offsets, hyp_rows, "hypotheses")
    check_row_indices(ref_rows, offsets.shape[0] - 1, "references")
    out = np.zeros(K, dtype=np.int64)
    if K == 0:
        return out
    cdef int64_t[::1] res = out
    cdef const int32_t *base = &ids[0] if ids.shape[0] else NULL
    cdef Scratch *s = NULL
    cdef int threads = max(1, min(n_jobs, K))
    with nogil, parallel(num_threads=threads):
        s = <Scratch *>calloc(1, sizeof(Scratch))  # no buffers yet
        for k in prange(K, schedule="dynamic", chunksize=1):
            if s == NULL:
                res[k] = FAILED_MEMORY
            else:
                res[k] = pair_edits(s, base + offsets[hyp_rows[k]], offsets[hyp_rows[k] + 1] - offsets[hyp_rows[k]],
                                    base + offsets[ref_rows[k]], offsets[ref_rows[k] + 1] - offsets[ref_rows[k]])
        scratch_free(s)
    for k in range(K):
        if res[k] == FAILED_MEMORY:
            raise MemoryError("out of memory in the TER kernel")
        if res[k] == FAILED_TRACE:
            raise RuntimeError(f"TER: the edit trace of pair {k} met an unreachable cell (sacrebleu fails there too)")
    return out
