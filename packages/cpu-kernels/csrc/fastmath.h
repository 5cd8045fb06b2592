/* Elementwise float32 exponentials that GCC and Clang vectorise: libm's expf and tanhf
 * are calls the compiler cannot turn into vector code without -ffast-math, which would
 * also relax the rounding of everything else. These are plain arithmetic: a range
 * reduction x = n ln2 + r, |r| <= ln2 / 2, a polynomial for exp(r) - 1, and 2^n built in
 * the exponent bits. Accurate to a few ulp (tests/cpu_kernels_tests check them against
 * float64 NumPy); NaN in gives NaN out. */
#ifndef CHAINER_CPU_KERNELS_FASTMATH_H
#define CHAINER_CPU_KERNELS_FASTMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Inlined even into the AVX2 clones of kernels.h's CK_CLONES, which GCC otherwise leaves
 * calling the baseline copy (no vector loop then). */
#if defined(__GNUC__)
#define CK_INLINE static inline __attribute__((always_inline))
#else
#define CK_INLINE static inline
#endif

CK_INLINE float ck_bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

CK_INLINE uint32_t ck_float_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* (exp(r) - 1 - r) / r^2 for |r| <= ln2 / 2: the Taylor series of exp(r) - 1 to r^8 (the
 * rest is below 6e-10 relative). */
CK_INLINE float ck_expm1_tail(float r)
{
    return 0.5f +
           r * (1.66666667e-1f +
                r * (4.16666667e-2f + r * (8.33333333e-3f + r * (1.38888889e-3f + r * (1.98412698e-4f + r * 2.48015873e-5f)))));
}

/* x = n ln2 + r with |r| <= ln2 / 2, for x in [-87, 88] (the callers clamp; a NaN stays
 * NaN): returns exp(r) - 1 and sets *scale = 2^n. */
CK_INLINE float ck_exp_reduce(float x, float *scale)
{
    /* Rounding to an integer by adding 1.5 * 2^23: the integer n lands in the low
     * mantissa bits, with no float-to-int conversion (undefined for NaN in C). */
    const float shifter = 12582912.0f;
    const float k = x * 1.44269504f + shifter;
    const float n = k - shifter;
    /* ln 2 in two parts: n * ln2_hi is exact for |n| < 2^15. */
    const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
    const int32_t n_int = (int32_t)(ck_float_to_bits(k) - ck_float_to_bits(shifter));
    *scale = ck_bits_to_float((uint32_t)(n_int + 127) << 23); /* n in [-126, 127] */
    return r + r * r * ck_expm1_tail(r);
}

/* exp(x) - 1 for x in [-87, 88] (the caller clamps), with a small relative error near 0,
 * where exp(x) - 1 would cancel. */
CK_INLINE float ck_expm1f(float x)
{
    float scale;
    const float p = ck_exp_reduce(x, &scale);
    return scale * p + (scale - 1.0f);
}

/* exp(x), flushed to 0 below x = -87 (where float32's exp is a denormal under 1.7e-38)
 * and +inf above 88.72. */
CK_INLINE float ck_expf(float x)
{
    float y = x > 88.0f ? 88.0f : x;
    y = y < -87.0f ? -87.0f : y;
    float scale;
    const float p = ck_exp_reduce(y, &scale);
    const float e = x < -87.0f ? 0.0f : scale * (1.0f + p);
    return x > 88.72283935546875f ? INFINITY : e;
}

/* tanh(x) = sign(x) e / (e + 2) with e = exp(2|x|) - 1 (1 from |x| = 44 on, exactly as
 * float32's tanh is 1 from |x| = 9.01). */
CK_INLINE float ck_tanhf(float x)
{
    float y = 2.0f * fabsf(x);
    y = y > 88.0f ? 88.0f : y;
    const float e = ck_expm1f(y);
    return copysignf(e / (e + 2.0f), x);
}

/* sigmoid(x) = 1 / (1 + exp(-x)) = 1 / (2 + expm1(-x)). exp(-x) is clamped to
 * [exp(-87), exp(88)]: sigmoid is 1 there anyway above, and about 6e-39 instead of
 * smaller denormals below x = -88. */
CK_INLINE float ck_sigmoidf(float x)
{
    float y = -x;
    y = y > 88.0f ? 88.0f : y;
    y = y < -87.0f ? -87.0f : y;
    return 1.0f / (2.0f + ck_expm1f(y));
}

#endif
