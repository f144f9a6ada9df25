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
#else
static inline uint64_t qs_addc(uint64_t a, uint64_t b, unsigned char carry_in, unsigned char *carry_out) {
    unsigned long long s1, s2;
    unsigned char c1 = __builtin_uaddll_overflow(a, b, &s1);
    unsigned char c2 = __builtin_uaddll_overflow(s1, carry_in, &s2);
    *carry_out = c1 | c2;
    return (uint64_t)s2;
}
#endif
#endif
