/* Word arithmetic for the bit-parallel kernels: add with carry in and carry out. */
#ifndef QS_BITOPS_H
#define QS_BITOPS_H
#include <stdint.h>
#if defined(__x86_64__) && defined(__GNUC__)
/* The carry goes through the flags in one asm statement: GCC's _addcarry_u64 passed each sum
   through a stack slot (a store and a reload per word), and a 128-bit sum spilled as well. */
static inline uint64_t qs_addc(uint64_t a, uint64_t b, unsigned char carry_in, unsigned char *carry_out) {
    unsigned char c = carry_in;
    __asm__("addb $0xff, %1\n\tadcq %2, %0\n\tsetc %1" : "+r"(a), "+q"(c) : "r"(b) : "cc");
    *carry_out = c;
    return a;
}

/* Hyyro's step on four consecutive words, V' = (V + U) | (V - U) with U = V & M, carry in and out
   through *carry: the four additions run as one ADC chain, the carry kept in the flags. */
static inline void qs_hyyro4(uint64_t *v0, uint64_t *v1, uint64_t *v2, uint64_t *v3,
                             const uint64_t *m, unsigned char *carry) {
    uint64_t u0 = *v0 & m[0], u1 = *v1 & m[1], u2 = *v2 & m[2], u3 = *v3 & m[3];
    uint64_t s0 = *v0, s1 = *v1, s2 = *v2, s3 = *v3;
    unsigned char c = *carry;
    __asm__("addb $0xff, %[c]\n\t"
            "adcq %[u0], %[s0]\n\tadcq %[u1], %[s1]\n\tadcq %[u2], %[s2]\n\tadcq %[u3], %[s3]\n\t"
            "setc %[c]"
            : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [c] "+q"(c)
            : [u0] "r"(u0), [u1] "r"(u1), [u2] "r"(u2), [u3] "r"(u3)
            : "cc");
    /* U's bits are a subset of V's, so V - U = V ^ U */
    *v0 = s0 | (*v0 ^ u0);
    *v1 = s1 | (*v1 ^ u1);
    *v2 = s2 | (*v2 ^ u2);
    *v3 = s3 | (*v3 ^ u3);
    *carry = c;
}
#else
static inline uint64_t qs_addc(uint64_t a, uint64_t b, unsigned char carry_in, unsigned char *carry_out) {
    unsigned long long s1, s2;
    unsigned char c1 = __builtin_uaddll_overflow(a, b, &s1);
    unsigned char c2 = __builtin_uaddll_overflow(s1, carry_in, &s2);
    *carry_out = c1 | c2;
    return (uint64_t)s2;
}

static inline void qs_hyyro4(uint64_t *v0, uint64_t *v1, uint64_t *v2, uint64_t *v3,
                             const uint64_t *m, unsigned char *carry) {
    uint64_t *v[4] = {v0, v1, v2, v3};
    for (int k = 0; k < 4; k++) {
        uint64_t x = *v[k], u = x & m[k];
        *v[k] = qs_addc(x, u, *carry, carry) | (x - u);
    }
}
#endif
#endif
