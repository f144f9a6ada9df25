/* Character classes shared by the text kernels. */
#ifndef QS_UNICODE_H
#define QS_UNICODE_H
#include <Python.h>

/* str.split()'s whitespace (Py_UNICODE_ISSPACE, a table lookup that needs no GIL), ASCII
   answered without a call. */
static inline int qascore_split_space(Py_UCS4 c) {
    if (c < 128) return c == 32 || (c >= 9 && c <= 13) || (c >= 28 && c <= 31);
    return Py_UNICODE_ISSPACE(c);
}

#endif /* QS_UNICODE_H */
