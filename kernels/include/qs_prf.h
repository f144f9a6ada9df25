/* Precision, recall and F of the ROUGE family: the one place they are formed from counts
   (prf.pyx's batch functions and its one-pair pair_score; lexical/rouge.py and the compat
   RougeScorer go through those). Each is the IEEE operations, in order, of rouge-score's Python
   (and of the numpy expressions they replaced); the build turns floating-point contraction off
   (setup.py), so no fused multiply-add changes a bit on any machine. */
#ifndef QS_PRF_H
#define QS_PRF_H
#include <stdint.h>

/* numerator / max(count - shift, 1): `shift` n - 1 turns a token count into rouge-score's n-gram
   count (L tokens make L - n + 1 n-grams). Python's int / int (both below 2**53, as every count
   here is) rounds the same quotient once, as this does. */
static inline double qs_count_ratio(int64_t numerator, int64_t count, int64_t shift) {
    int64_t d = count - shift;
    return (double)numerator / (double)(d > 1 ? d : 1);
}

/* (1 + g2) P R / (R + g2 P), 0 where the denominator is 0 (only where P = R = 0, as both are
   >= 0): it is divided by 1 there, and adding 0 elsewhere leaves its bits. With g2 = 1 this is
   rouge-score's scoring.fmeasure, 2 * P * R / (P + R) or 0: 1.0 * P is P, 1 + 1.0 is 2, and
   R + P is P + R bit for bit. */
static inline double qs_f_gamma(double p, double r, double gamma_squared) {
    double den = r + gamma_squared * p;
    den += den == 0;
    return (1 + gamma_squared) * p * r / den;
}

#endif /* QS_PRF_H */
