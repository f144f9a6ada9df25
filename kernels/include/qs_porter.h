/* The Porter stemmer as NLTK's PorterStemmer() runs it (mode NLTK_EXTENSIONS), in C, for the
   compiled ROUGE tokeniser (rouge_raw.pyx). The readable definition, with NLTK's departures from
   Porter (1980) listed, is src/qascore/text/porter.py; this follows it step by step, on lowercase
   ASCII letters and digits (the rouge tokeniser's tokens; digits are consonants, as in NLTK).
   tests/test_text_porter.py checks that both give the same stem for every word of the shared
   data, generated words and the corner cases. */
#ifndef QS_PORTER_H
#define QS_PORTER_H
#include <stdint.h>
#include <string.h>

/* Is w[i] a consonant, given whether w[i - 1] is: 'y' is a vowel after a consonant. */
static inline int qs_porter_cons(char c, int64_t i, int previous_cons) {
    if (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u')
        return 0;
    if (c == 'y')
        return i == 0 || !previous_cons;
    return 1;
}

/* Porter's m of w[:k]: vowel-run -> consonant-run transitions. */
static inline int64_t qs_porter_measure(const char *w, int64_t k) {
    int64_t m = 0, i;
    int cons = 0, previous = 0;
    for (i = 0; i < k; i++) {
        cons = qs_porter_cons(w[i], i, previous);
        m += i > 0 && cons && !previous;
        previous = cons;
    }
    return m;
}

static inline int qs_porter_has_vowel(const char *w, int64_t k) {
    int64_t i;
    int previous = 0;
    for (i = 0; i < k; i++) {
        previous = qs_porter_cons(w[i], i, previous);
        if (!previous)
            return 1;
    }
    return 0;
}

/* Consonant flags of the last three characters of w[:k]: bit 0 the last, bit 1 the one before,
   bit 2 the one before that. */
static inline unsigned qs_porter_tail_shape(const char *w, int64_t k) {
    int64_t i;
    int previous = 0;
    unsigned bits = 0;
    for (i = 0; i < k; i++) {
        previous = qs_porter_cons(w[i], i, previous);
        bits = (bits << 1) | (unsigned)previous;
    }
    return bits & 7u;
}

static inline int qs_porter_ends(const char *w, int64_t n, const char *suffix, int64_t len) {
    return n >= len && memcmp(w + n - len, suffix, (size_t)len) == 0;
}

static inline int qs_porter_ends_double_cons(const char *w, int64_t k) {
    return k >= 2 && w[k - 1] == w[k - 2] && (qs_porter_tail_shape(w, k) & 1u);
}

/* consonant-vowel-consonant, the last not w, x or y; a two-letter vowel-consonant stem also
   counts (NLTK's extension). */
static inline int qs_porter_ends_cvc(const char *w, int64_t k) {
    unsigned shape;
    if (k >= 3) {
        shape = qs_porter_tail_shape(w, k);
        return shape == 5u && w[k - 1] != 'w' && w[k - 1] != 'x' && w[k - 1] != 'y';
    }
    if (k == 2)
        return qs_porter_tail_shape(w, k) == 1u;
    return 0;
}

enum { QS_NO_CONDITION, QS_M_POSITIVE, QS_M_ABOVE_ONE, QS_ION, QS_LOGI };

typedef struct {
    const char *suffix;
    int64_t suffix_len;
    const char *replacement;
    int64_t replacement_len;
    int condition;
} qs_porter_rule;

#define QS_RULE(s, r, c) {s, sizeof(s) - 1, r, sizeof(r) - 1, c}

static int qs_porter_condition(const char *w, int64_t k, int condition) {
    switch (condition) {
    case QS_M_POSITIVE:
        return qs_porter_measure(w, k) > 0;
    case QS_M_ABOVE_ONE:
        return qs_porter_measure(w, k) > 1;
    case QS_ION:
        return qs_porter_measure(w, k) > 1 && (w[k - 1] == 's' || w[k - 1] == 't');
    case QS_LOGI: /* the l of 'logi' counts as part of the stem */
        return qs_porter_measure(w, k + 1) > 0;
    default:
        return 1;
    }
}

/* The first rule whose suffix ends w decides: rewrite if its condition holds, else nothing.
   Replacements are never longer than their suffixes, so w never grows. */
static int64_t qs_porter_first_rule(char *w, int64_t n, const qs_porter_rule *rules, int count) {
    int r;
    int64_t k;
    for (r = 0; r < count; r++) {
        if (!qs_porter_ends(w, n, rules[r].suffix, rules[r].suffix_len))
            continue;
        k = n - rules[r].suffix_len;
        if (!qs_porter_condition(w, k, rules[r].condition))
            return n;
        memcpy(w + k, rules[r].replacement, (size_t)rules[r].replacement_len);
        return k + rules[r].replacement_len;
    }
    return n;
}

static const qs_porter_rule QS_STEP1A[] = {
    QS_RULE("sses", "ss", QS_NO_CONDITION), QS_RULE("ies", "i", QS_NO_CONDITION),
    QS_RULE("ss", "ss", QS_NO_CONDITION), QS_RULE("s", "", QS_NO_CONDITION),
};

static const qs_porter_rule QS_STEP2[] = {
    QS_RULE("ational", "ate", QS_M_POSITIVE), QS_RULE("tional", "tion", QS_M_POSITIVE),
    QS_RULE("enci", "ence", QS_M_POSITIVE), QS_RULE("anci", "ance", QS_M_POSITIVE),
    QS_RULE("izer", "ize", QS_M_POSITIVE), QS_RULE("bli", "ble", QS_M_POSITIVE),
    QS_RULE("alli", "al", QS_M_POSITIVE), QS_RULE("entli", "ent", QS_M_POSITIVE),
    QS_RULE("eli", "e", QS_M_POSITIVE), QS_RULE("ousli", "ous", QS_M_POSITIVE),
    QS_RULE("ization", "ize", QS_M_POSITIVE), QS_RULE("ation", "ate", QS_M_POSITIVE),
    QS_RULE("ator", "ate", QS_M_POSITIVE), QS_RULE("alism", "al", QS_M_POSITIVE),
    QS_RULE("iveness", "ive", QS_M_POSITIVE), QS_RULE("fulness", "ful", QS_M_POSITIVE),
    QS_RULE("ousness", "ous", QS_M_POSITIVE), QS_RULE("aliti", "al", QS_M_POSITIVE),
    QS_RULE("iviti", "ive", QS_M_POSITIVE), QS_RULE("biliti", "ble", QS_M_POSITIVE),
    QS_RULE("fulli", "ful", QS_M_POSITIVE), QS_RULE("logi", "log", QS_LOGI),
};

static const qs_porter_rule QS_STEP3[] = {
    QS_RULE("icate", "ic", QS_M_POSITIVE), QS_RULE("ative", "", QS_M_POSITIVE),
    QS_RULE("alize", "al", QS_M_POSITIVE), QS_RULE("iciti", "ic", QS_M_POSITIVE),
    QS_RULE("ical", "ic", QS_M_POSITIVE), QS_RULE("ful", "", QS_M_POSITIVE),
    QS_RULE("ness", "", QS_M_POSITIVE),
};

static const qs_porter_rule QS_STEP4[] = {
    QS_RULE("al", "", QS_M_ABOVE_ONE), QS_RULE("ance", "", QS_M_ABOVE_ONE),
    QS_RULE("ence", "", QS_M_ABOVE_ONE), QS_RULE("er", "", QS_M_ABOVE_ONE),
    QS_RULE("ic", "", QS_M_ABOVE_ONE), QS_RULE("able", "", QS_M_ABOVE_ONE),
    QS_RULE("ible", "", QS_M_ABOVE_ONE), QS_RULE("ant", "", QS_M_ABOVE_ONE),
    QS_RULE("ement", "", QS_M_ABOVE_ONE), QS_RULE("ment", "", QS_M_ABOVE_ONE),
    QS_RULE("ent", "", QS_M_ABOVE_ONE), QS_RULE("ion", "", QS_ION),
    QS_RULE("ou", "", QS_M_ABOVE_ONE), QS_RULE("ism", "", QS_M_ABOVE_ONE),
    QS_RULE("ate", "", QS_M_ABOVE_ONE), QS_RULE("iti", "", QS_M_ABOVE_ONE),
    QS_RULE("ous", "", QS_M_ABOVE_ONE), QS_RULE("ive", "", QS_M_ABOVE_ONE),
    QS_RULE("ize", "", QS_M_ABOVE_ONE),
};

#define QS_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* NLTK_EXTENSIONS' irregular forms: surface form -> stem. */
static const char *const QS_IRREGULAR[][2] = {
    {"sky", "sky"}, {"skies", "sky"}, {"dying", "die"}, {"lying", "lie"}, {"tying", "tie"},
    {"news", "news"}, {"innings", "inning"}, {"inning", "inning"}, {"outings", "outing"},
    {"outing", "outing"}, {"cannings", "canning"}, {"canning", "canning"}, {"howe", "howe"},
    {"proceed", "proceed"}, {"exceed", "exceed"}, {"succeed", "succeed"},
};

static int64_t qs_porter_step1b(char *w, int64_t n) {
    int64_t k;
    if (qs_porter_ends(w, n, "ied", 3)) {
        if (n == 4) {
            w[2] = 'e';
            return 3;
        }
        return n - 2;
    }
    if (qs_porter_ends(w, n, "eed", 3))
        return qs_porter_measure(w, n - 3) > 0 ? n - 1 : n;
    if (qs_porter_ends(w, n, "ed", 2))
        k = n - 2;
    else if (qs_porter_ends(w, n, "ing", 3))
        k = n - 3;
    else
        return n;
    if (!qs_porter_has_vowel(w, k))
        return n;
    /* tidy the stem left by removing -ed / -ing: at, bl, iz take an e */
    if (qs_porter_ends(w, k, "at", 2) || qs_porter_ends(w, k, "bl", 2) || qs_porter_ends(w, k, "iz", 2)) {
        w[k] = 'e';
        return k + 1;
    }
    if (qs_porter_ends_double_cons(w, k))
        return (w[k - 1] == 'l' || w[k - 1] == 's' || w[k - 1] == 'z') ? k : k - 1;
    if (qs_porter_measure(w, k) == 1 && qs_porter_ends_cvc(w, k)) {
        w[k] = 'e';
        return k + 1;
    }
    return k;
}

static int64_t qs_porter_step2(char *w, int64_t n) {
    while (qs_porter_ends(w, n, "alli", 4) && qs_porter_measure(w, n - 4) > 0)
        n -= 2; /* alli -> al, then step 2 again */
    return qs_porter_first_rule(w, n, QS_STEP2, QS_COUNT(QS_STEP2));
}

/* Stem the n bytes at w in place (lowercase ASCII letters and digits); returns the stem's
   length, never more than n. */
static int64_t qs_porter_stem(char *w, int64_t n) {
    int r;
    int64_t k, m;
    for (r = 0; r < QS_COUNT(QS_IRREGULAR); r++) {
        if ((int64_t)strlen(QS_IRREGULAR[r][0]) == n && memcmp(w, QS_IRREGULAR[r][0], (size_t)n) == 0) {
            k = (int64_t)strlen(QS_IRREGULAR[r][1]);
            memcpy(w, QS_IRREGULAR[r][1], (size_t)k);
            return k;
        }
    }
    if (n <= 2)
        return n;
    /* step 1a */
    if (n == 4 && qs_porter_ends(w, n, "ies", 3)) {
        w[2] = 'e';
        n = 3;
    } else {
        n = qs_porter_first_rule(w, n, QS_STEP1A, QS_COUNT(QS_STEP1A));
    }
    n = qs_porter_step1b(w, n);
    /* step 1c: y -> i after a consonant that is not the first letter */
    if (n > 2 && w[n - 1] == 'y' && (qs_porter_tail_shape(w, n - 1) & 1u))
        w[n - 1] = 'i';
    n = qs_porter_step2(w, n);
    n = qs_porter_first_rule(w, n, QS_STEP3, QS_COUNT(QS_STEP3));
    n = qs_porter_first_rule(w, n, QS_STEP4, QS_COUNT(QS_STEP4));
    /* step 5a */
    if (n > 0 && w[n - 1] == 'e') {
        k = n - 1;
        m = qs_porter_measure(w, k);
        if (m > 1 || (m == 1 && !qs_porter_ends_cvc(w, k)))
            n = k;
    }
    /* step 5b */
    if (qs_porter_ends(w, n, "ll", 2) && qs_porter_measure(w, n - 1) > 1)
        n -= 1;
    return n;
}

#endif /* QS_PORTER_H */
