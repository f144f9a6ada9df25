/* Token hashing for the byte-string intern table (_intern_table.pxi's Table): constants and the
   folded 64x64 -> 128-bit multiplication that hash_mix / hash_last build on.
   C constants, not module variables: a variable is reloaded after every byte store (a byte
   store may alias anything), once per token in the readers' loops. */
#ifndef QS_HASH_H
#define QS_HASH_H
#include <stdint.h>
#define QASCORE_HASH_SEED 0x2545F4914F6CDD1DULL
#define QASCORE_TOP_BIT64 0x8000000000000000ULL

/* The 128-bit product of a and b folded to 64 bits (low half XOR high half): every bit of
   either factor reaches every bit of the result, in one multiplication. */
static inline uint64_t qascore_fold_mul(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
    unsigned __int128 p = (unsigned __int128)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
#else
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t middle = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    uint64_t low = (middle << 32) | (p00 & 0xFFFFFFFFu);
    uint64_t high = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
    return low ^ high;
#endif
}

/* x, with the compiler blind to how it was computed: GCC splits a test of `a | b` built
   from comparisons into one branch per comparison, and where one of them is a coin toss the
   single well-predicted branch meant becomes a mispredicted one. */
static inline int qascore_opaque(int x) {
#if defined(__GNUC__)
    __asm__("" : "+r"(x));
#endif
    return x;
}

#endif /* QS_HASH_H */
