/* Word arithmetic for the bit-parallel kernels: add with carry in and carry out.
 * On x86-64 _addcarry_u64 becomes a single ADC (GCC does not emit ADC from the portable form);
 * elsewhere the overflow builtins give the same result. */
#ifndef QS_BITOPS_H
#define QS_BITOPS_H
#include <stdint.h>
#if defined(__x86_64__) || defined(_M_X64)
#include <x86intrin.h>
static inline uint64_t qs_addc(uint64_t a, uint64_t b, unsigned char carry_in, unsigned char *carry_out) {
    unsigned long long sum;
    *carry_out = _addcarry_u64(carry_in, a, b, &sum);
    return (uint64_t)sum;
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
