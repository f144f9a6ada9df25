/* chrF's character classes and its F-score, in C so that the float operations are spelled out
   one by one: the kernel picks the best reference with this function and f_scores() reports it,
   and both must give sacrebleu's bits (setup.py compiles with -ffp-contract=off: no fused
   multiply-add may merge two roundings into one). */
#ifndef QS_CHRF_H
#define QS_CHRF_H
#include <Python.h>
#include <stdint.h>
#include "qs_prf.h"

/* string.punctuation, the characters chrF++'s word split peels off a word's ends. */
static inline int qascore_chrf_punct(Py_UCS4 c) {
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/* sacrebleu 2.6 CHRF._compute_f_score of one row of `order` triplets [hyp, ref, match], its F
   formed by qs_prf.h's qs_f_gamma: sacrebleu's factor1 * P * R / (factor * P + R), with
   factor = float(beta ** 2) and factor1 = float(1 + beta ** 2), is qs_f_gamma(P, R, factor) bit
   for bit, as 1 + factor rounds to float(1 + beta ** 2) (beta ** 2 is exact for an int beta
   below 2**26.5, and the float sacrebleu adds for a float one) and a sum's operands commute. Where the denominator
   is 0 sacrebleu adds eps, or returns 0 for the average, so those stay here. Python's int / int
   of counts below 2**53 is the division of the two doubles, and int * float converts the int
   first. */
static inline double qascore_chrf_f_score(const int64_t *row, int order, double factor, int eps_smoothing) {
    const double eps = 1e-16;
    double score = 0.0, avg_prec = 0.0, avg_rec = 0.0, prec, rec, denom;
    int effective_order = 0, i;
    for (i = 0; i < order; i++) {
        int64_t n_hyp = row[3 * i], n_ref = row[3 * i + 1], n_match = row[3 * i + 2];
        prec = n_hyp > 0 ? (double)n_match / (double)n_hyp : eps;
        rec = n_ref > 0 ? (double)n_match / (double)n_ref : eps;
        denom = factor * prec + rec;
        score += denom > 0 ? qs_f_gamma(prec, rec, factor) : eps;
        if (n_hyp > 0 && n_ref > 0) {  /* effective order, as sacrebleu < 2.0 */
            avg_prec += prec;
            avg_rec += rec;
            effective_order++;
        }
    }
    if (eps_smoothing) return 100.0 * score / (double)order;
    if (effective_order == 0) {
        avg_prec = avg_rec = 0.0;
    } else {
        avg_prec /= (double)effective_order;
        avg_rec /= (double)effective_order;
    }
    if (avg_prec + avg_rec != 0.0) return 100.0 * qs_f_gamma(avg_prec, avg_rec, factor);
    return 0.0;
}

#endif /* QS_CHRF_H */
