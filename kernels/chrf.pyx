# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""chrF / chrF++ segment statistics with sacrebleu 2.6's semantics, and its F-score.

Per segment (a hypothesis and its references, read from str storage as code points, already
lowercased by the caller when asked): character units are the code points, whitespace dropped
unless ``whitespace``; word units are ``str.split()`` tokens with one ASCII punctuation mark
peeled off the end, else off the start, of every token longer than one character (sacrebleu's
``_remove_punctuation``), interned by content per segment (hypothesis words only: a reference
word the hypothesis lacks can match nothing). N-grams of both are interned exactly order by
order as (id of the (n-1)-gram, next unit) pairs (_ngram_core.pxi), so no collisions are possible.
For each reference and order the row holds [hypothesis n-grams (0 when the reference has none
of that order), reference n-grams, sum of min counts]; the row kept is the first reference with
the highest F-score, as sacrebleu picks it.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

include "_ngram_core.pxi"
include "_intern_table.pxi"

cdef extern from "qs_scan.h":
    int qascore_unicode_ready(object o) except -1
    int qascore_unicode_kind(object o)
    const void *qascore_unicode_data(object o)
    Py_ssize_t qascore_unicode_length(object o)

cdef extern from "Python.h":
    Py_UCS4 PyUnicode_READ(int kind, const void *data, Py_ssize_t index) noexcept nogil

cdef extern from "qs_unicode.h":
    bint is_space "qascore_split_space"(Py_UCS4 c) noexcept nogil

cdef extern from "qs_chrf.h":
    bint is_punct "qascore_chrf_punct"(Py_UCS4 c) noexcept nogil
    double chrf_f_score "qascore_chrf_f_score"(const int64_t *row, int order, double factor,
                                                bint eps_smoothing) noexcept nogil


cdef struct Config:
    int char_order, word_order, order
    bint whitespace, eps_smoothing
    double factor


cdef struct Text:
    const void *data
    Py_ssize_t length
    int kind


cdef struct Work:
    # One thread's buffers, sized for the largest segment of the batch.
    NgramScratch *ngrams
    Table words             # word -> id, cleared per segment
    bint has_words
    Py_UCS4 *line           # the line being read, SLACK bytes readable past it (word hashing)
    int32_t *chars          # character units of the hypothesis then each reference
    int32_t *tokens         # word ids of the same, -1 for a reference word the hypothesis lacks
    int64_t *char_starts    # [refs + 2] where each text's units start in chars / tokens
    int64_t *token_starts
    int64_t *matches        # [refs, order] match counts
    int64_t *row            # [3 * order] the row of the reference being weighed


cdef void work_free(Work *w) noexcept nogil:
    if w == NULL:
        return
    ngram_scratch_free(w.ngrams)
    if w.has_words:
        table_free(&w.words)
    free(w.line)
    free(w.chars)
    free(w.tokens)
    free(w.char_starts)
    free(w.token_starts)
    free(w.matches)
    free(w.row)
    free(w)


cdef Work *work_new(Py_ssize_t longest_line, Py_ssize_t longest_hyp, Py_ssize_t most_units,
                    Py_ssize_t most_refs, const Config *c) noexcept nogil:
    cdef Work *w = <Work *>calloc(1, sizeof(Work))
    cdef Py_ssize_t cap = 16
    if w == NULL:
        return NULL
    while cap < 2 * longest_hyp:
        cap <<= 1
    w.ngrams = ngram_scratch_new(longest_hyp, most_units, cap)
    w.line = <Py_UCS4 *>malloc((longest_line + 1) * sizeof(Py_UCS4) + SLACK)
    w.chars = <int32_t *>malloc((most_units + 1) * sizeof(int32_t))
    w.tokens = <int32_t *>malloc((most_units + 1) * sizeof(int32_t))
    w.char_starts = <int64_t *>malloc((most_refs + 2) * sizeof(int64_t))
    w.token_starts = <int64_t *>malloc((most_refs + 2) * sizeof(int64_t))
    w.matches = <int64_t *>calloc(most_refs * c.order + 1, sizeof(int64_t))
    w.row = <int64_t *>malloc((3 * c.order + 1) * sizeof(int64_t))
    if c.word_order > 0:
        w.has_words = table_init(&w.words)
    if (w.ngrams == NULL or w.line == NULL or w.chars == NULL or w.tokens == NULL or w.char_starts == NULL
            or w.token_starts == NULL or w.matches == NULL or w.row == NULL
            or (c.word_order > 0 and not w.has_words)):
        work_free(w)
        return NULL
    return w


cdef inline int32_t word_id(Work *w, Py_ssize_t start, Py_ssize_t n, bint add) noexcept nogil:
    """Id of the word line[start:start + n]: added when ``add`` (a hypothesis word; -2 when out of
    memory), else looked up (-1 when absent)."""
    cdef const uint8_t *s = <const uint8_t *>&w.line[start]
    cdef int64_t nbytes = 4 * n
    cdef uint64_t h = hash_token(s, nbytes), prefix = qascore_load_word(s, nbytes)
    cdef int32_t found
    if not add:
        return table_find_prefix(&w.words, s, nbytes, h, prefix)
    found = table_intern(&w.words, s, nbytes, h, prefix)
    return found if found >= 0 else -2


cdef bint read_text(Work *w, const Text *t, Py_ssize_t *n_chars, Py_ssize_t *n_tokens, bint hyp,
                    const Config *c) noexcept nogil:
    """Append one text's character units and (chrF++) word ids; False when out of memory."""
    cdef Py_ssize_t i, start, n = t.length, nc = n_chars[0], nt = n_tokens[0]
    cdef Py_UCS4 ch
    cdef int32_t ids[2]
    cdef int k, n_ids
    for i in range(n):
        ch = PyUnicode_READ(t.kind, t.data, i)
        w.line[i] = ch
        if c.whitespace or not is_space(ch):
            w.chars[nc] = <int32_t>ch
            nc += 1
    n_chars[0] = nc
    if c.word_order == 0:
        return True
    i = 0
    while i < n:
        while i < n and is_space(w.line[i]):
            i += 1
        if i == n:
            break
        start = i
        while i < n and not is_space(w.line[i]):
            i += 1
        # sacrebleu's _remove_punctuation: '(hi)' -> '(hi', ')' (one mark, the end first)
        if i - start > 1 and is_punct(w.line[i - 1]):
            ids[0] = word_id(w, start, i - start - 1, hyp)
            ids[1] = word_id(w, i - 1, 1, hyp)
            n_ids = 2
        elif i - start > 1 and is_punct(w.line[start]):
            ids[0] = word_id(w, start, 1, hyp)
            ids[1] = word_id(w, start + 1, i - start - 1, hyp)
            n_ids = 2
        else:
            ids[0] = word_id(w, start, i - start, hyp)
            n_ids = 1
        for k in range(n_ids):
            if ids[k] == -2:
                return False
            w.tokens[nt] = ids[k]
            nt += 1
    n_tokens[0] = nt
    return True


cdef void order_matches(NgramScratch *s, const int32_t *units, const int64_t *starts, Py_ssize_t n_refs,
                        int max_order, int64_t *matches, Py_ssize_t stride) noexcept nogil:
    """matches[r * stride + n - 1] += clipped matches of order n (1 .. max_order) between the
    hypothesis units[starts[0]:starts[1]] and reference r, units[starts[r + 1]:starts[r + 2]]
    (negative units match nothing). Match counts must be zero on entry."""
    cdef const int32_t *hyp = units + starts[0]
    cdef Py_ssize_t lh = starts[1] - starts[0], cap = 16, mask, i, nh, nr, base, r, total
    cdef int bits = 4, shift, order
    cdef int32_t distinct, d, prev
    cdef int64_t m
    cdef bint matched
    while cap < 2 * lh:
        cap <<= 1
        bits += 1
    mask = cap - 1
    shift = 64 - bits
    for i in range(lh):
        s.hyp_prev[i] = 0
    total = starts[n_refs + 1] - starts[1]
    for i in range(total):
        s.ref_prev[i] = 0 if units[starts[1] + i] >= 0 else -1
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
        matched = False
        for r in range(n_refs):
            base = starts[r + 1] - starts[1]
            nr = starts[r + 2] - starts[r + 1] - order + 1
            m = 0
            for i in range(nr):
                prev = s.ref_prev[base + i]
                if prev >= 0:
                    prev = find(s, pair_key(prev, units[starts[1] + base + i + order - 1]), mask, shift)
                    s.ref_prev[base + i] = prev
                    if prev >= 0:
                        m += s.cnt_ref[prev] < s.cnt_hyp[prev]  # this occurrence pairs with one of the hypothesis
                        s.cnt_ref[prev] += 1
            for i in range(nr):
                if s.ref_prev[base + i] >= 0:
                    s.cnt_ref[s.ref_prev[base + i]] = 0
            matches[r * stride + order - 1] = m
            matched |= m > 0
        for d in range(distinct):
            s.cnt_hyp[d] = 0
        if not matched:  # every longer matching n-gram would contain a matching one of this order
            return


cdef inline void put_triplets(int64_t *row, Py_ssize_t hyp_len, Py_ssize_t ref_len, const int64_t *matches,
                              int max_order) noexcept nogil:
    cdef int n
    cdef int64_t n_hyp, n_ref
    for n in range(1, max_order + 1):
        n_ref = max(ref_len - n + 1, 0)
        n_hyp = max(hyp_len - n + 1, 0) if n_ref > 0 else 0  # sacrebleu: no reference n-grams, no hits
        row[3 * (n - 1)] = n_hyp
        row[3 * (n - 1) + 1] = n_ref
        row[3 * (n - 1) + 2] = matches[n - 1]


cdef bint segment_row(Work *w, const Text *texts, int64_t hyp_row, const int64_t *ref_rows, Py_ssize_t n_refs,
                      const Config *c, int64_t *out) noexcept nogil:
    """The row of one hypothesis against its best reference; False when out of memory."""
    cdef Py_ssize_t nc = 0, nt = 0, r, i, width = 3 * c.order
    cdef double f, best = -1.0
    if w.has_words:
        table_clear(&w.words)
    w.char_starts[0] = 0
    w.token_starts[0] = 0
    for r in range(n_refs + 1):
        if not read_text(w, &texts[hyp_row if r == 0 else ref_rows[r - 1]], &nc, &nt, r == 0, c):
            return False
        w.char_starts[r + 1] = nc
        w.token_starts[r + 1] = nt
    for i in range(n_refs * c.order):
        w.matches[i] = 0
    order_matches(w.ngrams, w.chars, w.char_starts, n_refs, c.char_order, w.matches, c.order)
    if c.word_order > 0:
        order_matches(w.ngrams, w.tokens, w.token_starts, n_refs, c.word_order, w.matches + c.char_order,
                      c.order)
    for r in range(n_refs):
        put_triplets(w.row, w.char_starts[1], w.char_starts[r + 2] - w.char_starts[r + 1],
                     &w.matches[r * c.order], c.char_order)
        put_triplets(w.row + 3 * c.char_order, w.token_starts[1], w.token_starts[r + 2] - w.token_starts[r + 1],
                     &w.matches[r * c.order + c.char_order], c.word_order)
        f = chrf_f_score(w.row, c.order, c.factor, c.eps_smoothing)
        if f > best:  # the first best reference wins ties
            best = f
            memcpy(out, w.row, width * sizeof(int64_t))
    return True


def chrf_segment_statistics(list lines, const int64_t[::1] hyp_rows not None, const int64_t[::1] ref_rows not None,
                            const int64_t[::1] groups not None, int char_order, int word_order, bint whitespace,
                            double factor, bint eps_smoothing, int n_jobs=1):
    """int64[Q, 3 * (char_order + word_order)]: the chrF statistics of hypothesis ``lines[hyp_rows[k]]``
    against its best reference among ``lines[ref_rows[groups[k]:groups[k + 1]]]`` (at least one).

    Lines are ``str``, preprocessed (lowercased) by the caller; ``factor`` is ``float(beta ** 2)``
    as Python computes it."""
    cdef tuple held = tuple(lines)  # keeps every string alive while threads read it without the GIL
    cdef Py_ssize_t n_lines = len(held), q = hyp_rows.shape[0], k, i, units
    cdef Py_ssize_t longest_line = 0, longest_hyp = 0, most_units = 0, most_refs = 0
    cdef Config c
    cdef Text *texts
    cdef Work *w = NULL
    cdef str line
    if char_order < 0 or word_order < 0 or char_order + word_order < 1:
        raise ValueError("char_order and word_order must be >= 0 with a positive sum")
    if groups.shape[0] != q + 1 or groups[0] != 0 or groups[q] != ref_rows.shape[0]:
        raise ValueError("groups must have len(hyp_rows) + 1 entries from 0 to len(ref_rows)")
    for k in range(q):
        if groups[k + 1] <= groups[k]:
            raise ValueError(f"hypothesis {k} has no reference")
        if not 0 <= hyp_rows[k] < n_lines:
            raise ValueError("hyp_rows: line index out of range")
    for k in range(ref_rows.shape[0]):
        if not 0 <= ref_rows[k] < n_lines:
            raise ValueError("ref_rows: line index out of range")
    c.char_order, c.word_order, c.order = char_order, word_order, char_order + word_order
    c.whitespace, c.eps_smoothing, c.factor = whitespace, eps_smoothing, factor
    out = np.zeros((q, 3 * c.order), dtype=np.int64)
    if q == 0:
        return out
    cdef int64_t[:, ::1] res = out
    texts = <Text *>malloc(n_lines * sizeof(Text))
    if texts == NULL:
        raise MemoryError()
    cdef uint8_t[::1] failed = np.zeros(q, dtype=np.uint8)
    try:
        for i in range(n_lines):  # under the GIL: each line's storage
            line = <str?>held[i]  # checked: a non-string raises TypeError, never a crash
            qascore_unicode_ready(line)
            texts[i].kind = qascore_unicode_kind(line)
            texts[i].data = qascore_unicode_data(line)
            texts[i].length = qascore_unicode_length(line)
            longest_line = max(longest_line, texts[i].length)
        for k in range(q):  # scratch sizes: the largest segment
            units = texts[hyp_rows[k]].length
            longest_hyp = max(longest_hyp, units)
            for i in range(groups[k], groups[k + 1]):
                units += texts[ref_rows[i]].length
            most_units = max(most_units, units)
            most_refs = max(most_refs, groups[k + 1] - groups[k])
        with nogil, parallel(num_threads=max(1, min(n_jobs, q))):
            w = work_new(longest_line, longest_hyp, most_units, most_refs, &c)
            for k in prange(q, schedule="dynamic", chunksize=16):
                if w == NULL or not segment_row(w, texts, hyp_rows[k], &ref_rows[groups[k]],
                                                groups[k + 1] - groups[k], &c, &res[k, 0]):
                    failed[k] = 1
            work_free(w)
    finally:
        free(texts)
    for k in range(q):
        if failed[k]:
            raise MemoryError("out of memory in the chrF kernel")
    return out


def chrf_f_scores(const int64_t[:, ::1] rows not None, double factor, bint eps_smoothing):
    """float64[Q]: sacrebleu's ``CHRF._compute_f_score`` of every row (3 * order columns)."""
    cdef Py_ssize_t q = rows.shape[0], k
    if rows.shape[1] % 3 != 0 or rows.shape[1] == 0:
        raise ValueError(f"a chrF statistics row has 3 * order entries, got {rows.shape[1]}")
    cdef int order = <int>(rows.shape[1] // 3)
    out = np.empty(q, dtype=np.float64)
    cdef double[::1] res = out
    with nogil:
        for k in range(q):
            res[k] = chrf_f_score(&rows[k, 0], order, factor, eps_smoothing)
    return out
