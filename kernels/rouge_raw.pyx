# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ROUGE-N, ROUGE-L and rougeLsum (lines) counts straight from raw strings under rouge-score's
tokeniser, with or without its Porter stemming, tokens interned per pair instead of per batch:
one reading of each text serves every type.

For each (prediction, reference) pair the reference's tokens are read from the str storage with
the rule text_encode.pyx uses (``next_rouge_token`` in _rouge_scan.pxi), stemmed when asked
(tokens longer than 3 characters, kernels/include/qs_porter.h, through a bounded per-worker
cache) and interned in a small table of this pair only (exact: token bytes are compared on every
hash hit); the prediction's tokens are looked up in it, a token the reference lacks getting no
id, as it can match nothing. Then the cores of the packed kernels run on the pair's ids: clipped
n-gram matches (_ngram_core.pxi), rougeLsum's union LCS over the texts' lines and the
bit-parallel LCS (_lcs_core.pxi), the LCS after dropping the tokens present on one side only (an
LCS never uses them). No batch vocabulary means no cache-missing global table and no serial
merge: pairs are spread over OpenMP threads, each with its own table, stem cache and scratch
(kept for the next call), and results do not depend on the thread count. ``PairScorer`` is the
compat ``RougeScorer.score()`` of one pair and its ``score_batch``, result dicts included.
"""
cimport cython
cimport openmp
from cython.parallel cimport parallel, prange
from cpython.dict cimport PyDict_SetItem
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memchr

import numpy as np

include "_rouge_scan.pxi"
include "_lcs_core.pxi"
include "_ngram_core.pxi"
include "_packed_checks.pxi"

cdef extern from "qs_porter.h":
    int64_t qs_porter_stem(char *word, int64_t n) noexcept nogil

cdef extern from "qs_prf.h":
    double count_ratio "qs_count_ratio"(int64_t numerator, int64_t count, int64_t shift) noexcept nogil
    double f_gamma "qs_f_gamma"(double p, double r, double gamma_squared) noexcept nogil

cdef extern from "qs_rows.h":
    object new_triple "qascore_new_triple"(object type, double a, double b, double c)
    void untrack_row "qascore_untrack_row"(object row, object type)
    bint is_tuple_type "qascore_is_tuple_type"(object type) noexcept
    void untrack_rows "qascore_untrack_rows"(list rows)
    void track_rows "qascore_track_rows"(list rows)

cdef enum:
    MAX_ORDER = 9
    MAX_TYPES = 16  # rouge1 .. rouge9, rougeL, rougeLsum
    STEM_FROM_LENGTH = 4  # rouge-score stems tokens longer than 3 characters
    STEM_CACHE_TYPES = 1 << 17  # distinct tokens a worker's stem cache holds before it starts over
    FIRST_TABLE_TYPES = 256  # a pair's table starts small (in L1) and grows for long texts
    MAX_IDLE_WORKERS = 64
    KEEP_WORKERS_UP_TO = 1 << 20  # code points in a call's longest text; past it, memory goes back


cdef struct TextRef:
    int kind  # PyUnicode kind: 1, 2 or 4 bytes per code point
    const void *data
    int64_t length


cdef struct StemEntry:
    int64_t start, length  # the stem's bytes in StemCache.stems
    uint64_t hash, prefix  # as the readers give them for a token (hash_token, qascore_load_word)


cdef struct StemCache:
    # Porter stems of the tokens a worker has met: a token's id in ``words`` indexes ``entries``.
    # Bounded (cleared when STEM_CACHE_TYPES tokens are held); each worker has its own, so threads
    # share nothing, and the one-pair worker (under the GIL) serves every scorer of the process.
    Table words
    bint ready
    GrowBuffer stems  # uint8
    GrowBuffer entries  # StemEntry


cdef struct Worker:
    # One thread's memory, reused pair after pair.
    Table table  # the current pair's reference tokens -> ids 0, 1, ...
    StemCache stem
    GrowBuffer ref_ends  # int64: where each token ends in its text (rougeLsum's sentences)
    GrowBuffer pred_ends
    GrowBuffer ref_sentences  # int64: token offsets of the text's sentences (lines)
    GrowBuffer pred_sentences
    GrowBuffer token  # uint8: the token being read
    GrowBuffer bitmap  # uint64: a text's token bitmap and spans (rouge_cursor_init)
    GrowBuffer latin1  # uint8: a UCS-2 or UCS-4 text as bytes (latin1_of_units)
    GrowBuffer ref_ids  # int32
    GrowBuffer pred_ids  # int32; -1 for a token the reference lacks
    GrowBuffer keep  # uint8 per reference type: also in the prediction
    Scratch *lcs
    NgramScratch *ngram
    int64_t ngram_hyp, ngram_ref  # the lengths ngram has room for


cdef void worker_free(Worker *w) noexcept nogil:
    if w == NULL:
        return
    table_free(&w.table)
    if w.stem.ready:
        table_free(&w.stem.words)
    free(w.stem.stems.data)
    free(w.stem.entries.data)
    free(w.ref_ends.data)
    free(w.pred_ends.data)
    free(w.ref_sentences.data)
    free(w.pred_sentences.data)
    free(w.token.data)
    free(w.bitmap.data)
    free(w.latin1.data)
    free(w.ref_ids.data)
    free(w.pred_ids.data)
    free(w.keep.data)
    scratch_free(w.lcs)
    ngram_scratch_free(w.ngram)
    free(w)


cdef Worker *worker_new() noexcept nogil:
    cdef Worker *w = <Worker *>calloc(1, sizeof(Worker))
    if w == NULL:
        return NULL
    w.token.item_size = 1
    w.bitmap.item_size = sizeof(uint64_t)
    w.latin1.item_size = 1
    w.ref_ids.item_size = sizeof(int32_t)
    w.pred_ids.item_size = sizeof(int32_t)
    w.keep.item_size = 1
    w.stem.stems.item_size = 1
    w.stem.entries.item_size = sizeof(StemEntry)
    w.ref_ends.item_size = sizeof(int64_t)
    w.pred_ends.item_size = sizeof(int64_t)
    w.ref_sentences.item_size = sizeof(int64_t)
    w.pred_sentences.item_size = sizeof(int64_t)
    w.lcs = scratch_new(FIRST_TABLE_TYPES)
    if w.lcs == NULL or not table_init_sized(&w.table, FIRST_TABLE_TYPES):
        worker_free(w)  # table_free and scratch_free take what was not allocated
        return NULL
    return w


# Workers kept between calls (touched only under the GIL): a call of a few long pairs otherwise
# spends a tenth of its time in the kernel mapping and clearing fresh pages for its buffers.
cdef Worker *_idle_workers[MAX_IDLE_WORKERS]
cdef int _n_idle = 0


cdef Worker *worker_take() noexcept:
    global _n_idle
    if _n_idle > 0:
        _n_idle -= 1
        return _idle_workers[_n_idle]
    return worker_new()


cdef void worker_give_back(Worker *w, bint keep) noexcept:
    global _n_idle
    if w != NULL and keep and _n_idle < MAX_IDLE_WORKERS:
        _idle_workers[_n_idle] = w
        _n_idle += 1
    else:
        worker_free(w)


def _free_idle_workers():
    """Free the workers kept between calls (tests use it to start a call on a fresh worker,
    whose table is small and grows)."""
    global _n_idle
    while _n_idle > 0:
        _n_idle -= 1
        worker_free(_idle_workers[_n_idle])


cdef const StemEntry *stem_of(StemCache *c, const uint8_t *token, int64_t n, uint64_t h,
                              uint64_t prefix) noexcept nogil:
    """The Porter stem of a token (hash h, first word prefix): a lookup when the cache holds it,
    else stemmed (qs_porter.h) and added; NULL when out of memory."""
    cdef int32_t token_id
    cdef uint8_t *out
    cdef StemEntry *entry
    if not c.ready:
        c.ready = table_init(&c.words)
        if not c.ready:
            return NULL
    token_id = table_find_fast(&c.words, token, n, h, prefix)
    if token_id >= 0:
        return &(<StemEntry *>c.entries.data)[token_id]
    if c.words.count >= STEM_CACHE_TYPES:  # bounded: a long-running process meets endless words
        table_clear(&c.words)
        c.stems.used = 0
        c.entries.used = 0
    if not buffer_reserve(&c.stems, n + SLACK) or not buffer_reserve(&c.entries, 1):
        return NULL
    token_id = table_add(&c.words, token, n, h, prefix)
    if token_id < 0:
        return NULL
    out = <uint8_t *>c.stems.data + c.stems.used
    memcpy(out, token, n)
    entry = &(<StemEntry *>c.entries.data)[token_id]
    entry.start = c.stems.used
    entry.length = qs_porter_stem(<char *>out, n)  # never longer than the token
    entry.hash = hash_token(out, entry.length)
    entry.prefix = qascore_load_word(out, entry.length)
    c.stems.used += entry.length
    c.entries.used += 1
    return entry


# How read_tokens_of reads, fixed at compile time: the plain loop (no stemming, no token ends, the
# batch ROUGE-N / ROUGE-L route) compiles without the branches of the other, which cost a fifth of
# MS MARCO rouge() rougeL time as run-time tests.
cdef struct PlainRead:
    char unused


cdef struct FullRead:  # stemming and token ends as asked
    char unused


ctypedef fused ReadMode:
    PlainRead
    FullRead


cdef int64_t read_tokens_of(Worker *w, const CodeUnit *text, int64_t n, bint intern, bint stem, int32_t *out,
                            int64_t *ends, ReadMode *mode) noexcept nogil:
    cdef int64_t length, count = 0
    cdef uint64_t h, prefix
    cdef int32_t token_id
    cdef uint8_t *token = <uint8_t *>w.token.data
    cdef const uint8_t *key
    cdef const StemEntry *stemmed
    cdef RougeCursor cursor
    cdef const uint8_t *latin1
    cdef bint out_of_memory
    if CodeUnit is not uint8_t:  # read as Latin-1 unless it holds U+0130 or U+212A
        latin1 = latin1_of_units(text, n, &w.latin1, &out_of_memory)
        if out_of_memory:
            return -1
        if latin1 != NULL:
            return read_tokens_of(w, latin1, n, intern, stem, out, ends, mode)
    if not rouge_cursor_init(&cursor, text, n, &w.bitmap):
        return -1
    while True:
        length = next_rouge_token(text, n, &cursor, token, &h, &prefix)
        if length == 0:
            return count
        key = token
        if ReadMode is FullRead:
            if ends != NULL:  # a token ends before a line break at or after its end
                if CodeUnit is uint8_t:
                    ends[count] = cursor.ends[cursor.index - 1]
                else:
                    ends[count] = cursor.pos
            if stem and length >= STEM_FROM_LENGTH:
                stemmed = stem_of(&w.stem, token, length, h, prefix)
                if stemmed == NULL:
                    return -1
                key = <const uint8_t *>w.stem.stems.data + stemmed.start
                length, h, prefix = stemmed.length, stemmed.hash, stemmed.prefix
        if intern:
            token_id = table_intern(&w.table, key, length, h, prefix)
            if token_id < 0:
                return -1
        else:
            token_id = table_find_fast(&w.table, key, length, h, prefix)
        out[count] = token_id
        count += 1


cdef inline int64_t read_text(Worker *w, const TextRef *text, bint intern, bint stem, int32_t *out, int64_t *ends,
                              ReadMode *mode) noexcept nogil:
    if text.kind == 1:
        return read_tokens_of(w, <const uint8_t *>text.data, text.length, intern, stem, out, ends, mode)
    if text.kind == 2:
        return read_tokens_of(w, <const uint16_t *>text.data, text.length, intern, stem, out, ends, mode)
    return read_tokens_of(w, <const uint32_t *>text.data, text.length, intern, stem, out, ends, mode)


cdef int64_t read_tokens(Worker *w, const TextRef *text, bint intern, bint stem, GrowBuffer *out,
                         GrowBuffer *ends) noexcept nogil:
    """The ids of one text's tokens (Porter-stemmed when ``stem``) into ``out``: interned in the
    pair's table, or only looked up (-1 when absent); with ``ends`` (not NULL) where each token
    ends in the text. Returns how many, -1 when out of memory."""
    # a token takes at least one code point
    if not buffer_reserve(&w.token, text.length + 1) or not buffer_reserve(out, text.length + 1):
        return -1
    cdef PlainRead plain
    cdef FullRead full
    if ends == NULL and not stem:
        return read_text(w, text, intern, False, <int32_t *>out.data, NULL, &plain)
    if ends != NULL and not buffer_reserve(ends, text.length + 1):
        return -1
    return read_text(w, text, intern, stem, <int32_t *>out.data, <int64_t *>ends.data if ends != NULL else NULL,
                     &full)


cdef inline int64_t next_line_break(const TextRef *text, int64_t pos) noexcept nogil:
    """Index of the first '\\n' at or after pos, text.length when none."""
    cdef const void *found
    cdef int64_t i
    if text.kind == 1:
        found = memchr(<const uint8_t *>text.data + pos, 10, text.length - pos)
        return text.length if found == NULL else <const uint8_t *>found - <const uint8_t *>text.data
    for i in range(pos, text.length):
        if (text.kind == 2 and (<const uint16_t *>text.data)[i] == 10) or (
                text.kind == 4 and (<const uint32_t *>text.data)[i] == 10):
            return i
    return text.length


cdef int64_t line_offsets(const TextRef *text, const int64_t *ends, int64_t count, GrowBuffer *out) noexcept nogil:
    """rouge-score's rougeLsum sentences without sentence splitting, ``text.split("\\n")``, as
    token offsets into ``out`` (lines without tokens left out: they add nothing to the union LCS);
    returns how many, -1 when out of memory. Tokens never cross a line break (one separates
    tokens), so the text's tokens are its lines' tokens one after another."""
    cdef int64_t *offsets
    cdef int64_t n = 0, j = 0, pos = 0, line_end
    if not buffer_reserve(out, count + 2):
        return -1
    offsets = <int64_t *>out.data
    offsets[0] = 0
    while j < count:
        line_end = next_line_break(text, pos)
        while j < count and ends[j] <= line_end:
            j += 1
        if j > offsets[n]:
            n += 1
            offsets[n] = j
        pos = line_end + 1
    return n


cdef int64_t lsum_hits(Worker *w, const TextRef *pred, const TextRef *ref, int64_t lp, int64_t lr,
                       int32_t n_types) noexcept nogil:
    """rougeLsum's union-LCS hits of the pair read by pair_counts (prediction ids below
    n_types + 1); -1 when out of memory."""
    cdef int64_t n_ref_lines = line_offsets(ref, <int64_t *>w.ref_ends.data, lr, &w.ref_sentences)
    cdef int64_t n_pred_lines = line_offsets(pred, <int64_t *>w.pred_ends.data, lp, &w.pred_sentences)
    if n_ref_lines < 0 or n_pred_lines < 0 or scratch_fit_vocab(w.lcs, n_types + 1) != 0:
        return -1
    if lr == 0 or lp == 0:
        return 0
    return union_lcs_hits(<int32_t *>w.ref_ids.data, <int64_t *>w.ref_sentences.data, 0, n_ref_lines,
                          <int32_t *>w.pred_ids.data, <int64_t *>w.pred_sentences.data, 0, n_pred_lines, w.lcs)


cdef int ngram_fit(Worker *w, int64_t n_hyp, int64_t n_ref) noexcept nogil:
    """Room in w.ngram for a hypothesis of n_hyp and a reference of n_ref tokens; -1: no memory."""
    cdef int64_t cap = 16
    if w.ngram != NULL and n_hyp <= w.ngram_hyp and n_ref <= w.ngram_ref:
        return 0
    n_hyp = max(n_hyp, 2 * w.ngram_hyp)
    n_ref = max(n_ref, 2 * w.ngram_ref)
    while cap < 2 * n_hyp:  # the key table clipped_matches sizes for n_hyp
        cap <<= 1
    ngram_scratch_free(w.ngram)
    w.ngram = ngram_scratch_new(n_hyp, n_ref, cap)
    if w.ngram == NULL:
        w.ngram_hyp = w.ngram_ref = 0
        return -1
    w.ngram_hyp = n_hyp
    w.ngram_ref = n_ref
    return 0


cdef int64_t lcs_of_shared_tokens(Worker *w, int32_t *pred, int64_t lp, int32_t *ref, int64_t lr,
                                  int32_t n_types) noexcept nogil:
    """LCS of the pair after dropping, on each side, the tokens the other side lacks (in place);
    -1 when out of memory. Branch-free: in long texts of many distinct words whether a token is
    shared is a coin toss, and a branch on it was a tenth of the LCS time."""
    cdef int64_t i, kept = 0
    cdef int32_t token
    cdef uint8_t *keep
    if not buffer_reserve(&w.keep, n_types + 2) or scratch_fit_vocab(w.lcs, n_types + 1) != 0:
        return -1
    # keep[-1 .. n_types]: a token the reference lacks (-1, or n_types under n-grams) marks a
    # spare entry at either end, indexed as it is; choosing the index made GCC branch on it
    keep = <uint8_t *>w.keep.data + 1
    memset(keep - 1, 0, n_types + 2)
    for i in range(lp):
        token = pred[i]
        keep[token] = 1
        pred[kept] = token
        kept += <uint32_t>token < <uint32_t>n_types
    lp = kept
    kept = 0
    for i in range(lr):
        token = ref[i]
        ref[kept] = token
        kept += keep[token]
    return lcs_length_shared(ref, kept, pred, lp, n_types, w.lcs)


cdef int pair_counts(Worker *w, const TextRef *pred, const TextRef *ref, int max_order, bint want_lcs,
                     bint want_lsum, bint stem, int64_t *matches, int64_t *lcs, int64_t *lsum, int64_t *n_pred,
                     int64_t *n_ref) noexcept nogil:
    """Token counts, clipped n-gram matches of orders 1 .. max_order, (want_lcs) the LCS length
    and (want_lsum) rougeLsum's union-LCS hits over lines of one pair, from one reading of each
    text (Porter-stemmed when ``stem``); -1 when out of memory."""
    cdef int64_t lr, lp, i
    cdef int32_t n_types
    cdef int32_t *ref_ids
    cdef int32_t *pred_ids
    cdef int64_t ref_offsets[2]
    cdef int64_t ref_rows[1]
    table_clear(&w.table)
    lr = read_tokens(w, ref, True, stem, &w.ref_ids, &w.ref_ends if want_lsum else NULL)
    lp = read_tokens(w, pred, False, stem, &w.pred_ids, &w.pred_ends if want_lsum else NULL) if lr >= 0 else -1
    if lp < 0:
        return -1
    n_pred[0] = lp
    n_ref[0] = lr
    n_types = <int32_t>w.table.count
    ref_ids = <int32_t *>w.ref_ids.data
    pred_ids = <int32_t *>w.pred_ids.data
    if max_order > 0 or want_lsum:
        for i in range(lp):
            if pred_ids[i] < 0:  # one id for every token the reference lacks: no reference n-gram holds it
                pred_ids[i] = n_types
    if max_order > 0:
        if ngram_fit(w, lp, lr) != 0:
            return -1
        ref_offsets[0] = 0
        ref_offsets[1] = lr
        ref_rows[0] = 0
        clipped_matches(pred_ids, lp, ref_ids, ref_offsets, ref_rows, 1, max_order, matches, w.ngram)
    if want_lsum:  # before the LCS, which drops one-sided tokens in place
        lsum[0] = lsum_hits(w, pred, ref, lp, lr, n_types)
        if lsum[0] < 0:
            return -1
    if want_lcs:
        lcs[0] = lcs_of_shared_tokens(w, pred_ids, lp, ref_ids, lr, n_types)
        if lcs[0] < 0:
            return -1
    return 0


cdef int64_t read_text_refs(tuple texts, TextRef *out, str what) except -1:
    """Storage of each str (under the GIL; the tuple keeps them alive while threads read);
    returns the longest length."""
    cdef Py_ssize_t i
    cdef int64_t longest = 0
    cdef object text
    cdef Py_ssize_t n = len(texts)
    for i in range(n):
        if i + PREFETCH_AHEAD < n:
            qascore_prefetch_tuple_item(texts, i + PREFETCH_AHEAD)
        text = texts[i]
        if not isinstance(text, str):
            raise TypeError(f"{what}[{i}] must be str, got {type(text).__name__}")
        qascore_unicode_ready(text)
        out[i].kind = qascore_unicode_kind(text)
        out[i].data = qascore_unicode_data(text)
        out[i].length = qascore_unicode_length(text)
        longest = max(longest, out[i].length)
    qascore_untrack_str_tuple(texts)
    return longest


cdef void *cnp_data(object array):
    cdef int64_t[:, ::1] view = array
    return &view[0, 0] if view.shape[0] and view.shape[1] else NULL


cdef inline void prefetch_text(const TextRef *text) noexcept nogil:
    """Start loading a text's first bytes: texts lie wherever Python put them, out of reach of the
    hardware prefetcher, and a short pair takes less time than a miss to memory."""
    cdef const uint8_t *start = <const uint8_t *>text.data
    qascore_prefetch(start)
    if text.length * text.kind > 64:
        qascore_prefetch(start + 64)


cdef void run_pair(Worker *w, const TextRef *preds, const TextRef *refs, const int64_t[::1] pred_rows,
                   const int64_t[::1] ref_rows, Py_ssize_t k, int max_order, bint want_lcs, bint want_lsum,
                   bint stem, int64_t *matches, int64_t[::1] lcs, int64_t[::1] lsum, int64_t[::1] n_pred,
                   int64_t[::1] n_ref) noexcept nogil:
    """Pair k into row k of the outputs; n_pred[k] = -1 when out of memory."""
    if k + 1 < pred_rows.shape[0]:  # the next pair, most often this thread's next
        prefetch_text(&preds[pred_rows[k + 1]])
        prefetch_text(&refs[ref_rows[k + 1]])
    if w == NULL or pair_counts(w, &preds[pred_rows[k]], &refs[ref_rows[k]], max_order, want_lcs, want_lsum, stem,
                                &matches[k * max_order], &lcs[k], &lsum[k], &n_pred[k], &n_ref[k]) != 0:
        n_pred[k] = -1


def rouge_counts(predictions, references, const int64_t[::1] pred_rows not None,
                 const int64_t[::1] ref_rows not None, int max_order, bint want_lcs, int n_jobs=1, *,
                 bint want_lsum=False, bint stem=False):
    """For every k, prediction ``predictions[pred_rows[k]]`` against reference
    ``references[ref_rows[k]]`` under rouge-score's tokeniser (tokens longer than 3 characters
    Porter-stemmed when ``stem``): ``(matches, lcs, prediction tokens, reference tokens, lsum)``,
    int64 arrays of shapes (K, max_order), (K,), (K,), (K,), (K,); matches[k, n - 1] = sum over
    n-grams of min(count in the prediction, count in the reference); lcs is 0 unless
    ``want_lcs``; lsum (rougeLsum's union-LCS hits over the texts' lines, rouge-score's
    ``_summary_level_lcs`` numerator) is 0 unless ``want_lsum``. ``predictions`` and
    ``references`` are sequences of str; tuples are read without a copy."""
    if not 0 <= max_order <= MAX_ORDER:
        raise ValueError(f"max_order must be in 0..{MAX_ORDER}, got {max_order}")
    if pred_rows.shape[0] != ref_rows.shape[0]:
        raise ValueError(f"pred_rows has {pred_rows.shape[0]} pairs but ref_rows has {ref_rows.shape[0]}")
    # the strings' storage is read without the GIL: a tuple keeps them alive (tuple() of a tuple is
    # that tuple, which cannot change; anything else is copied, as another thread might change it)
    cdef tuple held_preds = tuple(predictions), held_refs = tuple(references)
    check_row_indices(pred_rows, len(held_preds), "pred_rows")
    check_row_indices(ref_rows, len(held_refs), "ref_rows")
    cdef Counts counts = Counts(pred_rows.shape[0], max_order)
    counts.fill(held_preds, held_refs, pred_rows, ref_rows, want_lcs, want_lsum, stem, n_jobs)
    return counts.matches, counts.lcs, counts.n_pred, counts.n_ref, counts.lsum


@cython.final
cdef class Counts:
    """rouge_counts' int64 arrays of K pairs, filled by ``fill`` (rouge_counts and
    ``PairScorer.score_batch``: one pair loop for both)."""

    cdef object matches, lcs, lsum, n_pred, n_ref
    cdef int64_t[::1] lcs_view, lsum_view, n_pred_view, n_ref_view
    cdef int64_t *matches_data
    cdef int max_order

    def __cinit__(self, Py_ssize_t K, int max_order):
        self.max_order = max_order
        self.matches = np.zeros((K, max_order), dtype=np.int64)
        self.lcs = np.zeros(K, dtype=np.int64)
        self.lsum = np.zeros(K, dtype=np.int64)
        self.n_pred = np.zeros(K, dtype=np.int64)
        self.n_ref = np.zeros(K, dtype=np.int64)
        self.lcs_view, self.lsum_view = self.lcs, self.lsum
        self.n_pred_view, self.n_ref_view = self.n_pred, self.n_ref
        self.matches_data = <int64_t *>cnp_data(self.matches)

    cdef int fill(self, tuple held_preds, tuple held_refs, const int64_t[::1] pred_rows, const int64_t[::1] ref_rows,
                  bint want_lcs, bint want_lsum, bint stem, int n_jobs) except -1:
        """Pair k (rows checked by the caller) into row k, on up to n_jobs threads without the GIL."""
        cdef Py_ssize_t K = pred_rows.shape[0], k
        if K == 0:
            return 0
        cdef int max_order = self.max_order
        cdef int64_t *matches = self.matches_data
        cdef int64_t[::1] lcs_view = self.lcs_view, lsum_view = self.lsum_view
        cdef int64_t[::1] n_pred = self.n_pred_view, n_ref = self.n_ref_view
        cdef TextRef *preds = <TextRef *>malloc((len(held_preds) + 1) * sizeof(TextRef))
        cdef TextRef *refs = <TextRef *>malloc((len(held_refs) + 1) * sizeof(TextRef))
        cdef int threads = max(1, min(n_jobs, K)), i
        cdef int64_t longest = 0
        cdef bint out_of_memory = True  # until the kernel has run
        cdef Worker *w = NULL
        cdef Worker **workers = <Worker **>calloc(threads, sizeof(Worker *))
        try:
            if preds == NULL or refs == NULL or workers == NULL:
                raise MemoryError()
            longest = max(read_text_refs(held_preds, preds, "predictions"),
                          read_text_refs(held_refs, refs, "references"))
            for i in range(threads):
                workers[i] = worker_take()
            if threads == 1:  # no OpenMP region to enter: a few microseconds on a short batch
                with nogil:
                    for k in range(K):
                        run_pair(workers[0], preds, refs, pred_rows, ref_rows, k, max_order, want_lcs, want_lsum,
                                 stem, matches, lcs_view, lsum_view, n_pred, n_ref)
            else:
                with nogil, parallel(num_threads=threads):
                    w = workers[openmp.omp_get_thread_num()]
                    for k in prange(K, schedule="guided"):  # big chunks first, single pairs at the end (long texts)
                        run_pair(w, preds, refs, pred_rows, ref_rows, k, max_order, want_lcs, want_lsum, stem,
                                 matches, lcs_view, lsum_view, n_pred, n_ref)
            out_of_memory = any_negative(n_pred)
            if out_of_memory:
                raise MemoryError("out of memory in the rouge_raw kernel")
            return 0
        finally:
            if workers != NULL:
                # a worker that ran out of memory may hold half-grown buffers: it is not kept
                for i in range(threads):
                    worker_give_back(workers[i], longest <= KEEP_WORKERS_UP_TO and not out_of_memory)
            free(workers)
            free(preds)
            free(refs)


# One pair on the calling thread (compat score()): it keeps the GIL throughout, so one worker
# (and its stem cache) serves every scorer and every Python thread in turn.
cdef Worker *_pair_worker = NULL


cdef Worker *pair_worker() except NULL:
    global _pair_worker
    if _pair_worker == NULL:
        _pair_worker = worker_new()
        if _pair_worker == NULL:
            raise MemoryError()
    return _pair_worker


cdef int pair_failed() except -1:
    global _pair_worker
    worker_free(_pair_worker)  # its buffers may be half grown
    _pair_worker = NULL
    raise MemoryError()


cdef inline void text_ref(str text, TextRef *out) noexcept:
    qascore_unicode_ready(text)
    out.kind = qascore_unicode_kind(text)
    out.data = qascore_unicode_data(text)
    out.length = qascore_unicode_length(text)


def pair_rouge_counts(str target not None, str prediction not None, int max_order, bint want_lcs, *,
                      bint stem=False):
    """One pair: ``(matches, lcs, target tokens, prediction tokens)``, matches a tuple of the
    orders 1 .. max_order, lcs -1 unless ``want_lcs``."""
    cdef TextRef texts[2]
    cdef int64_t matches[MAX_ORDER]
    cdef int64_t lcs = -1, lsum = 0, n_pred = 0, n_ref = 0
    if not 0 <= max_order <= MAX_ORDER:
        raise ValueError(f"max_order must be in 0..{MAX_ORDER}, got {max_order}")
    cdef Worker *w = pair_worker()
    text_ref(target, &texts[0])
    text_ref(prediction, &texts[1])
    if pair_counts(w, &texts[1], &texts[0], max_order, want_lcs, False, stem, matches, &lcs, &lsum, &n_pred,
                   &n_ref) != 0:
        pair_failed()
    return tuple([matches[i] for i in range(max_order)]), lcs, n_ref, n_pred


cdef enum:
    ROUGE_L = 0  # codes of PairScorer's types; 1 .. 9 are ROUGE-N orders
    ROUGE_LSUM = -1


@cython.final
cdef class PairScorer:
    """rouge-score's ``RougeScorer(types, use_stemmer).score(target, prediction)`` under its
    default tokeniser (lines as rougeLsum's sentences), whole in C: each text read once (tokens,
    cached stems, ids), every asked order, the LCS and the union LCS from the same ids, and the
    result dict of ``score_type`` triples built here. ``codes[t]`` says what ``names[t]`` is: n
    for rougeN, 0 for rougeL, -1 for rougeLsum. ``zero`` is what rougeL and rougeLsum give when a
    side has no tokens (rouge-score returns integer zeros there)."""

    cdef tuple names
    cdef int codes[MAX_TYPES]
    cdef int n_types, max_order
    cdef bint want_lcs, want_lsum, stem
    cdef object score_type, zero

    def __init__(self, tuple names not None, tuple codes not None, bint stem, type score_type not None, zero):
        cdef int t, code
        if len(names) != len(codes) or len(names) > MAX_TYPES:
            raise ValueError(f"names and codes must have the same length, at most {MAX_TYPES}")
        if not is_tuple_type(score_type):
            raise TypeError(f"score_type must be a namedtuple class, got {score_type!r}")
        self.names, self.stem, self.score_type, self.zero = names, stem, score_type, zero
        self.n_types = len(names)
        self.max_order = 0
        self.want_lcs = self.want_lsum = False
        for t in range(self.n_types):
            code = codes[t]
            if not ROUGE_LSUM <= code <= MAX_ORDER:
                raise ValueError(f"codes[{t}] must be in -1..{MAX_ORDER}, got {code}")
            self.codes[t] = code
            self.max_order = max(self.max_order, code)
            self.want_lcs |= code == ROUGE_L
            self.want_lsum |= code == ROUGE_LSUM

    def score(self, target, prediction):
        """``{name: score_type(P, R, F)}`` of ``prediction`` against ``target``."""
        cdef TextRef texts[2]
        cdef int64_t matches[MAX_ORDER]
        cdef int64_t lcs = -1, lsum = 0, n_pred = 0, n_ref = 0
        if not isinstance(target, str):
            raise TypeError(f"target must be str, got {type(target).__name__}")
        if not isinstance(prediction, str):
            raise TypeError(f"prediction must be str, got {type(prediction).__name__}")
        cdef Worker *w = pair_worker()
        text_ref(target, &texts[0])
        text_ref(prediction, &texts[1])
        if pair_counts(w, &texts[1], &texts[0], self.max_order, self.want_lcs, self.want_lsum, self.stem, matches,
                       &lcs, &lsum, &n_pred, &n_ref) != 0:
            pair_failed()
        return self.row(matches, lcs, lsum, n_pred, n_ref, self.zero)

    def score_batch(self, tuple targets not None, tuple predictions not None, int n_jobs=1):
        """``[score(t, p) for t, p in zip(targets, predictions)]`` (same-length tuples of str) on up
        to ``n_jobs`` threads, except that a side without tokens gives rougeL and rougeLsum the
        computed zeros (floats), as ``qascore.lexical.rouge.rouge`` does, instead of ``zero``.
        The counts go straight into the result dicts: no float arrays in between."""
        cdef Py_ssize_t K = len(predictions), k
        if len(targets) != K:
            raise ValueError(f"targets has {len(targets)} items but predictions has {K}")
        rows = np.arange(K, dtype=np.int64)
        cdef Counts counts = Counts(K, self.max_order)
        counts.fill(predictions, targets, rows, rows, self.want_lcs, self.want_lsum, self.stem, n_jobs)
        cdef list out = [None] * K
        untrack_rows(out)
        for k in range(K):
            out[k] = self.row(counts.matches_data + k * self.max_order, counts.lcs_view[k], counts.lsum_view[k],
                              counts.n_pred_view[k], counts.n_ref_view[k], None)
        track_rows(out)
        return out

    cdef dict row(self, const int64_t *matches, int64_t lcs, int64_t lsum, int64_t n_pred, int64_t n_ref, zero):
        """One pair's result dict from its counts; ``zero`` (unless None) for rougeL and
        rougeLsum when a side has no tokens."""
        cdef int64_t hits, shift
        cdef double p, r
        cdef int t, code
        cdef dict result = {}
        for t in range(self.n_types):
            code = self.codes[t]
            if code <= ROUGE_L and zero is not None and (n_ref == 0 or n_pred == 0):
                PyDict_SetItem(result, self.names[t], zero)
                continue
            hits = lcs if code == ROUGE_L else lsum if code == ROUGE_LSUM else matches[code - 1]
            shift = code - 1 if code > 0 else 0
            p = count_ratio(hits, n_pred, shift)
            r = count_ratio(hits, n_ref, shift)
            PyDict_SetItem(result, self.names[t], new_triple(self.score_type, p, r, f_gamma(p, r, 1.0)))
        untrack_row(result, self.score_type)  # ``zero`` too holds numbers only
        return result


def porter_stem_ascii(str word not None):
    """The compiled Porter stem (kernels/include/qs_porter.h) of a word of lowercase ASCII letters
    and digits, as the kernel's stemmed tokens get it; the tests hold it to qascore.text.porter."""
    cdef bytearray buffer = bytearray(word.encode("ascii"))
    cdef int64_t n = qs_porter_stem(<char *>buffer, len(buffer)) if len(buffer) else 0
    return buffer[:n].decode("ascii")
