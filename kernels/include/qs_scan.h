/* Reading rouge tokens out of str storage: the str object's code units, word loads that never
   read past a text, and the byte classes of rouge-score's token rule (ASCII letters and digits)
   eight bytes at a time (SWAR) or sixteen (SSE2); UCS-2 / UCS-4 text packed to Latin-1 bytes.
   Used by text_encode.pyx and rouge_raw.pyx through _rouge_scan.pxi. Everything is static
   inline: the compiler sees it as if written in the including file. */
#ifndef QS_SCAN_H
#define QS_SCAN_H
#include <Python.h>
#include <string.h>
#include <stdint.h>
static inline int qascore_unicode_ready(PyObject *o) {
#if PY_VERSION_HEX < 0x030C0000
    return PyUnicode_READY(o);
#else
    (void)o;
    return 0;
#endif
}
#define qascore_unicode_kind(o) ((int)PyUnicode_KIND(o))
#define qascore_unicode_data(o) ((const void *)PyUnicode_DATA(o))
#define qascore_unicode_length(o) PyUnicode_GET_LENGTH(o)
/* Strings lie scattered over the heap, beyond the hardware prefetcher's guesses: a pass over
   a batch asks for the object some items ahead, without touching its reference count. */
#define qascore_prefetch(p) __builtin_prefetch((const void *)(p))
#define qascore_prefetch_tuple_item(t, i) __builtin_prefetch((const void *)PyTuple_GET_ITEM(t, i))

/* A tuple holding str only (the caller has checked every item) can be in no reference cycle.
   CPython untracks such a tuple itself, but at the first collection that meets it, which reads
   every item's header on the way (a cache miss each: most of a millisecond for a batch of ten
   thousand texts, a tenth of the compat score_batch). Untracked now, no collection walks it. */
static inline void qascore_untrack_str_tuple(PyObject *t) {
    if (PyObject_GC_IsTracked(t))
        PyObject_GC_UnTrack(t);
}

/* The first `n` (< 8) bytes at p as a word whose other bytes are zero, on either byte order;
   p must have 8 readable bytes. */
static inline uint64_t qascore_load_word(const uint8_t *p, int64_t n) {
    uint64_t w;
    memcpy(&w, p, 8);
    if (n >= 8) return w;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return n == 0 ? 0 : (w & (~(uint64_t)0 << (8 * (8 - n))));
#else
    return w & (((uint64_t)1 << (8 * n)) - 1);
#endif
}

/* qascore_load_word without a branch, for 1 <= n <= 8 (little-endian: the low n bytes). */
static inline uint64_t qascore_load_word_masked(const uint8_t *p, int64_t n) {
    uint64_t w;
    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return w & (~(uint64_t)0 << ((64 - 8 * n) & 63));
#else
    return w & (~(uint64_t)0 >> ((64 - 8 * n) & 63));
#endif
}

/* Byte b at position k (< 8) of a word, as qascore_load_word would place it. */
static inline uint64_t qascore_byte_in_word(uint8_t b, int64_t k) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (uint64_t)b << (8 * (7 - k));
#else
    return (uint64_t)b << (8 * k);
#endif
}

/* Eight Latin-1 code points at a time (SWAR). A byte "flag" is 0x80 in that byte. */
#define QS_ONES 0x0101010101010101ULL
#define QS_HIGHS 0x8080808080808080ULL

/* Bytes text[i : i + keep] (0 <= keep <= 8, i + keep <= n) as a word, zeros past them,
   reading nothing outside text[0:n] (the end of a str's storage may end its memory page).
   Whole-word loads only: bytes stored one by one and read back as a word stall the CPU. */
static inline uint64_t qascore_load_span(const uint8_t *text, int64_t n, int64_t i, int64_t keep) {
    uint64_t w = 0;
    if (keep <= 0) return 0;
    if (i + 8 <= n) {
        memcpy(&w, text + i, 8);
        return keep >= 8 ? w : qascore_load_word((const uint8_t *)&w, keep);
    }
    if (i + keep >= 8) {  /* the word ending at i + keep, shifted */
        memcpy(&w, text + i + keep - 8, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        return keep >= 8 ? w : w << (8 * (8 - keep));
#else
        return keep >= 8 ? w : w >> (8 * (8 - keep));
#endif
    }
    memcpy(&w, text + i, (size_t)keep);  /* a text shorter than a word */
    return w;
}

/* Flags of the bytes in [lo, hi] among x's bytes, all of which are below 0x80: adding
   0x80 - lo sets a byte's high bit iff byte >= lo, adding 0x7F - hi iff byte > hi; no
   addition carries into the next byte. */
static inline uint64_t qascore_in_range(uint64_t x, uint64_t lo, uint64_t hi) {
    return (x + (0x80 - lo) * QS_ONES) & ~(x + (0x7F - hi) * QS_ONES) & QS_HIGHS;
}

/* Flags of the ASCII letters and digits (the rouge token bytes) among w's bytes. */
static inline uint64_t qascore_alnum_bytes(uint64_t w) {
    uint64_t ascii = ~w & QS_HIGHS;
    return (qascore_in_range((w & ~QS_HIGHS) | (0x20 * QS_ONES), 'a', 'z')
            | qascore_in_range(w & ~QS_HIGHS, '0', '9')) & ascii;
}

/* w, whose bytes are ASCII letters, ASCII digits or zeros (a token word), with its capitals
   lowercased. Every such letter and digit has 0x20 set once lowercased ('0' is 0x30), so
   0x20 goes into each nonzero byte: (b & 0x7F) + 0x7F sets a byte's high bit iff b & 0x7F
   is nonzero, without carrying into the next byte; a flag shifted right by 2 is 0x20. */
static inline uint64_t qascore_lower_token_bytes(uint64_t w) {
    uint64_t nonzero = (((w & ~QS_HIGHS) + ~QS_HIGHS) | w) & QS_HIGHS;
    return w | (nonzero >> 2);
}

/* The token-byte flags of text[i : i + 8] (zeros past n) as 8 bits, bit k for byte i + k. */
static inline uint64_t qascore_alnum_bits8(const uint8_t *text, int64_t n, int64_t i) {
    uint64_t w = qascore_load_span(text, n, i, n - i < 8 ? n - i : 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return ((qascore_alnum_bytes(w) >> 7) * 0x0102040810204080ULL) >> 56;
}

/* The token-byte flags of text[i : i + 64] as 64 bits, bit k for byte i + k; i + 64 <= n. */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline uint64_t qascore_alnum_bits64(const uint8_t *text, int64_t n, int64_t i) {
    uint64_t bits = 0;
    (void)n;
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(text + i + 16 * k));
        /* bytes >= 0x80 are negative as signed bytes: below every bound, as they must be */
        __m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
        __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                                       _mm_cmplt_epi8(lower, _mm_set1_epi8('z' + 1)));
        __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                      _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
        bits |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_or_si128(letter, digit)) << (16 * k);
    }
    return bits;
}
#else
static inline uint64_t qascore_alnum_bits64(const uint8_t *text, int64_t n, int64_t i) {
    uint64_t bits = 0;
    for (int b = 0; b < 8; b++)
        bits |= qascore_alnum_bits8(text, n, i + 8 * b) << (8 * b);
    return bits;
}
#endif


/* UCS-2 and UCS-4 text, whose token code units are ASCII letters and digits except two
   (U+0130 ends its token, U+212A is 'k'): a text holding neither is packed to bytes (each
   unit up to 0xFF as itself, every other one a separator byte) and read as Latin-1. */
#if defined(__SSE2__) && defined(__x86_64__)
#define QASCORE_SSE2_UNITS 1
/* Eight UCS-4 units packed to 16-bit lanes with signed saturation: code points (at most
   0x10FFFF) are positive, those from 0x8000 up become 0x7FFF, and every smaller one keeps
   its value (U+0130 and U+212A among them). */
static inline __m128i qascore_pack_ucs4(const uint32_t *p) {
    return _mm_packs_epi32(_mm_loadu_si128((const __m128i *)p), _mm_loadu_si128((const __m128i *)(p + 4)));
}

/* Any of the eight 16-bit lanes U+0130 or U+212A. */
static inline int qascore_special_lanes16(__m128i x) {
    return _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi16(x, _mm_set1_epi16(0x130)),
                                          _mm_cmpeq_epi16(x, _mm_set1_epi16(0x212A)))) != 0;
}

/* Sixteen units packed to bytes, stored at out; 1 when one of them is U+0130 or U+212A (x
   and y: eight 16-bit lanes each, units from 0x8000 up negative or saturated). Bytes are
   the units up to 0xFF, 0xFF for those up to 0x7FFF (the two among them) and 0 above: a
   vector without a 0xFF byte needs no closer look. */
static inline int qascore_store_latin1_16(__m128i x, __m128i y, uint8_t *out) {
    __m128i bytes = _mm_packus_epi16(x, y);
    _mm_storeu_si128((__m128i *)out, bytes);
    if (!_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8((char)0xFF))))
        return 0;
    return qascore_special_lanes16(x) | qascore_special_lanes16(y);
}
#define QASCORE_LATIN1_UCS2(text, i, out) \
    qascore_store_latin1_16(_mm_loadu_si128((const __m128i *)((text) + (i))), \
                            _mm_loadu_si128((const __m128i *)((text) + (i) + 8)), (out) + (i))
#define QASCORE_LATIN1_UCS4(text, i, out) \
    qascore_store_latin1_16(qascore_pack_ucs4((text) + (i)), qascore_pack_ucs4((text) + (i) + 8), (out) + (i))
#else
/* Never expanded in a taken branch (QASCORE_SSE2_UNITS is 0): the plain loop serves. */
#define QASCORE_SSE2_UNITS 0
#define QASCORE_LATIN1_UCS2(text, i, out) 0
#define QASCORE_LATIN1_UCS4(text, i, out) 0
#endif

/* A UCS-2 or UCS-4 text as bytes for the rouge token rule (latin1_of_units). */
#define QASCORE_LATIN1_OF_UNITS(NAME, UNIT, VECTOR16) \
static inline int NAME(const UNIT *text, int64_t n, uint8_t *out) { \
    int64_t i = 0; \
    if (QASCORE_SSE2_UNITS) \
        for (; i + 16 <= n; i += 16) \
            if (VECTOR16(text, i, out)) return 1; \
    for (; i < n; i++) { \
        uint32_t c = text[i]; \
        if (c == 0x130 || c == 0x212A) return 1; \
        out[i] = c < 0x100 ? (uint8_t)c : 0xFF; \
    } \
    return 0; \
}
QASCORE_LATIN1_OF_UNITS(qascore_latin1_of_ucs2, uint16_t, QASCORE_LATIN1_UCS2)
QASCORE_LATIN1_OF_UNITS(qascore_latin1_of_ucs4, uint32_t, QASCORE_LATIN1_UCS4)

#endif /* QS_SCAN_H */
