/* Exact, order-free sums in fixed point, written once for host and device (hostdevice.h).
 *
 * Floating-point addition is not associative: a sum of forces, energies or kinetic energies
 * taken in another order rounds differently, so a run whose particles sit in another order in
 * memory (after a checkpoint's canonical re-start, or on another rank count) drifts apart
 * from round-off onwards. Integer addition is associative, so sums of values first rounded to
 * a fixed grid are the same bits in any order.
 *
 * Forces: 2^41 quanta per force unit (quantum 2^-41 = 4.5e-13, so a sum of a few dozen
 * rounded contributions stays within 1e-12 of the double sum) in 64-bit integers, so a
 * particle's sum ranges over +-2^22 = +-4.2e6 force units. Each contribution (one pair's
 * force on one particle, a bond's, the body force) is rounded once, to nearest, which is odd
 * (round(-g) = -round(g)): a pair whose force is exactly odd in (i, j) (dpd_pair.h) enters its
 * two particles as exactly +q and -q. A contribution must lie within +-2^21 (|q| < 2^62) and
 * be finite (vs_fixed_force_ok); the sums are added with a wrap-around check
 * (vs_fixed_add), so an out-of-range sum is seen, never silently wrapped.
 *
 * Energies, virials and the thermo sums: a signed 128-bit integer of 2^80 quanta per unit
 * (vs_wide), into which a double is converted without rounding when 2^-28 <= |e| < 2^42
 * (below, to the nearest 2^-80 = 8e-25): the sum is the exact sum of the doubles, rounded
 * once when read, over +-2^47 = +-1.4e14 units. Across ranks a vs_wide travels as three
 * 42-bit limbs (vs_wide_to_limbs) that an MPI integer sum adds without carries for up to 2^21
 * ranks.
 */
#ifndef VESICA_FIXED_SUM_H
#define VESICA_FIXED_SUM_H

#include <math.h>
#include <stdint.h>

#include "hostdevice.h"

/* v rounded to the nearest integer (even on a tie) as int64; |v| < 2^63. On x86-64 one
 * instruction (cvtsd2si, in the default rounding mode), where rint and a conversion are a
 * branch and five. */
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
#include <emmintrin.h>
VS_HOST_DEVICE int64_t vs_round_to_int64(double v) { return _mm_cvtsd_si64(_mm_set_sd(v)); }
#else
VS_HOST_DEVICE int64_t vs_round_to_int64(double v) { return (int64_t)rint(v); }
#endif

#define VS_FIXED_FORCE_QUANTA 0x1p41 /* quanta per force unit */
#define VS_FIXED_FORCE_LIMIT 0x1p21  /* a contribution's bound (|q| < 2^62) */
#define VS_FIXED_FORCE_RANGE 0x1p22  /* a sum's bound (int64) */

/* Whether g may enter a fixed-point force sum: finite and within the contribution bound. */
VS_HOST_DEVICE int vs_fixed_force_ok(double g) { return fabs(g) < VS_FIXED_FORCE_LIMIT; }

/* g in quanta, rounded to nearest (even on a tie: odd in g). g must pass vs_fixed_force_ok. */
VS_HOST_DEVICE int64_t vs_fixed_force(double g)
{
    return vs_round_to_int64(g * VS_FIXED_FORCE_QUANTA);
}

VS_HOST_DEVICE double vs_fixed_force_to_double(int64_t q)
{
    return (double)q * (1.0 / VS_FIXED_FORCE_QUANTA);
}

/* *sum += q modulo 2^64; *overflow is set (its sign bit) when the true sum left int64. With
 * GCC and Clang an add and a never-taken jump (the overflow flag), which the processor fuses;
 * elsewhere the sign test: the operands had one sign and the result the other. */
VS_HOST_DEVICE void vs_fixed_add(int64_t *sum, int64_t q, uint64_t *overflow)
{
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
    if (__builtin_expect(__builtin_add_overflow(*sum, q, sum), 0))
        *overflow = (uint64_t)1 << 63;
#else
    const uint64_t a = (uint64_t)*sum, b = (uint64_t)q, r = a + b;
    *overflow |= (a ^ r) & (b ^ r);
    *sum = (int64_t)r;
#endif
}

/* ---- 128-bit sums of doubles ------------------------------------------------------------- */

__extension__ typedef __int128 vs_wide;

/* The kinetic sums an ensemble reduces in one pass: m v (3), m v^2 / 2, the moving mass, and
 * of the oriented particles I |u|^2 / 2 and their count (zero without them). */
#define VS_KINETIC_SUMS 7

#define VS_WIDE_QUANTA 0x1p80  /* quanta per unit */
#define VS_WIDE_LIMIT 0x1p42   /* a converted value's bound */
#define VS_WIDE_LIMB_BITS 42

/* Whether e converts (finite, |e| < 2^42). */
VS_HOST_DEVICE int vs_wide_ok(double e) { return fabs(e) < VS_WIDE_LIMIT; }

/* e * 2^80 as an integer, e = hi 2^-20 + rest with hi rounded to nearest: rest is exact
 * (|rest| <= 2^-21 and hi 2^-20 lies within a factor 2 of e, or rest = e), and rest 2^80
 * fits 60 bits. e must pass vs_wide_ok. */
VS_HOST_DEVICE vs_wide vs_wide_from_double(double e)
{
    const int64_t hi = vs_round_to_int64(e * 0x1p20);
    const double rest = e - (double)hi * 0x1p-20; /* (double)hi: exact, a rounded double */
    return (vs_wide)hi * ((vs_wide)1 << 60) + (vs_wide)vs_round_to_int64(rest * 0x1p80);
}

/* The sum as a double, rounded once. */
VS_HOST_DEVICE double vs_wide_to_double(vs_wide w) { return (double)w * (1.0 / VS_WIDE_QUANTA); }

/* w = l[2] 2^84 + l[1] 2^42 + l[0] with 0 <= l[0], l[1] < 2^42: limbs that add without
 * carries (the inverse, vs_wide_from_limbs, takes any limbs). */
VS_HOST_DEVICE void vs_wide_to_limbs(vs_wide w, int64_t l[3])
{
    const int64_t mask = ((int64_t)1 << VS_WIDE_LIMB_BITS) - 1;
    l[0] = (int64_t)(w & mask);
    l[1] = (int64_t)((w >> VS_WIDE_LIMB_BITS) & mask);
    l[2] = (int64_t)(w >> (2 * VS_WIDE_LIMB_BITS)); /* arithmetic shift: keeps the sign */
}

VS_HOST_DEVICE vs_wide vs_wide_from_limbs(const int64_t l[3])
{
    return (vs_wide)l[0] + (vs_wide)l[1] * ((vs_wide)1 << VS_WIDE_LIMB_BITS) +
           (vs_wide)l[2] * ((vs_wide)1 << (2 * VS_WIDE_LIMB_BITS));
}

#endif
