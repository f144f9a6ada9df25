/* The float summation of the running CPython's builtin sum(), so a kernel can reproduce a peer's
   `sum([...])` bit for bit: plain left-to-right addition before 3.12; from 3.12 Neumaier's
   compensated summation, with the compensation added at the end only when it is non-zero and
   finite (Python/bltinmodule.c, builtin_sum_impl, float path). The header is compiled against
   the Python the extension is built for, which is the Python it runs under. */
#ifndef QS_PYSUM_H
#define QS_PYSUM_H
#include <math.h>
#include <Python.h>

typedef struct {
    double sum;
    double compensation;
} qs_pysum;

static inline void qs_pysum_init(qs_pysum *s) {
    s->sum = 0.0;
    s->compensation = 0.0;
}

static inline void qs_pysum_add(qs_pysum *s, double x) {
#if PY_VERSION_HEX >= 0x030C0000
    double t = s->sum + x;
    if (fabs(s->sum) >= fabs(x))
        s->compensation += (s->sum - t) + x;
    else
        s->compensation += (x - t) + s->sum;
    s->sum = t;
#else
    s->sum += x;
#endif
}

static inline double qs_pysum_result(const qs_pysum *s) {
#if PY_VERSION_HEX >= 0x030C0000
    if (s->compensation != 0.0 && isfinite(s->compensation))
        return s->sum + s->compensation;
#endif
    return s->sum;
}

#endif /* QS_PYSUM_H */
