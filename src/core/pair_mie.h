/* The mie pair style (pair_styles.h), the n-m potential of Mie (LAMMPS's mie/cut, GOMC's Mie
 * force fields): for r < rc,
 *   U = C eps ((sigma/r)^n - (sigma/r)^m) - U_shift,  C = (n / (n - m)) (n / m)^(m / (n - m))
 *   F = C eps (n (sigma/r)^n - m (sigma/r)^m) / r
 * (the minimum -eps at r = (n / m)^(1 / (n - m)) sigma; n = 12, m = 6 is lj, C = 4).
 *
 * The exponents are any reals n > m > 0, so the powers are exp(-(n/2) ln r^2): one logarithm
 * and two exponentials per pair. At n = 12, m = 6 that equals lj to round-off, not bit for
 * bit (lj's integer powers are products). */
#ifndef VESICA_PAIR_MIE_H
#define VESICA_PAIR_MIE_H

#include <stdio.h>

#include "pair_coeff.h"

/* The logarithm of each precision, named by the body's SUFFIX. */
VS_HOST_DEVICE double vs_pair_mie_log(double x) { return log(x); }
VS_HOST_DEVICE float vs_pair_mie_log_f(float x) { return logf(x); }

/* k = {C eps sigma^n, C eps sigma^m, n / 2, m / 2}: the energy's two terms are k0 r^-n and
 * k1 r^-m, and r F = n k0 r^-n - m k1 r^-m. */
#define VS_PAIR_BODY_mie(REAL, SQRT, EXP, SUFFIX)                                              \
    const REAL lr2 = vs_pair_mie_log##SUFFIX(r2);                                              \
    const REAL rep = (REAL)c->k[0] * EXP(-(REAL)c->k[2] * lr2);                                \
    const REAL att = (REAL)c->k[1] * EXP(-(REAL)c->k[3] * lr2);                                \
    out.f_over_r = (REAL)2 * ((REAL)c->k[2] * rep - (REAL)c->k[3] * att) / r2;                 \
    out.energy = rep - att - (REAL)c->shift;

/* C(n, m) of the potential's prefactor. */
static inline double vs_pair_mie_prefactor(double n, double m)
{
    return n / (n - m) * pow(n / m, m / (n - m));
}

/* given = {epsilon, sigma, n, m} (keys 0..3). */
static inline void vs_pair_setup_mie(vs_pair_coeff *c)
{
    const double eps = c->given[0], sigma = c->given[1], n = c->given[2], m = c->given[3];
    const double ce = vs_pair_mie_prefactor(n, m) * eps;
    c->k[0] = ce * pow(sigma, n);
    c->k[1] = ce * pow(sigma, m);
    c->k[2] = 0.5 * n;
    c->k[3] = 0.5 * m;
}

/* The integrals from rc to infinity of r^2 U and -r^3 U' of the unshifted form, x = sigma / rc:
 *   C eps sigma^3 (x^(n-3) / (n-3) - x^(m-3) / (m-3)),
 *   C eps sigma^3 (n x^(n-3) / (n-3) - m x^(m-3) / (m-3)),
 * finite for m > 3 only (the configuration refuses tail = "on" otherwise). vs_pair_tail's pre
 * is 8 pi / V N_i N_j, four times the 2 pi / V of the corrections (lj's integrals carry a 4
 * in C): hence C / 4 here. */
static inline void vs_pair_tail_mie(const vs_pair_coeff *c, double pre, double *energy,
                                    double *virial)
{
    const double eps = c->given[0], sigma = c->given[1], n = c->given[2], m = c->given[3];
    const double x = sigma / c->rc;
    const double xn = pow(x, n - 3.0), xm = pow(x, m - 3.0);
    const double a = 0.25 * pre * vs_pair_mie_prefactor(n, m) * eps * sigma * sigma * sigma;
    *energy += a * (xn / (n - 3.0) - xm / (m - 3.0));
    *virial += a * (n * xn / (n - 3.0) - m * xm / (m - 3.0));
}

/* What the configuration refuses beyond the keys' own ranges (sigma, n and m > 0): eps <= 0,
 * n <= m, and m <= 3 with tail corrections. -1 when the pair is good, else the slot of the
 * key at fault, with what was expected written into why. */
static inline int vs_pair_check_mie(const vs_pair_coeff *c, int tail, char *why, size_t len)
{
    const double eps = c->given[0], n = c->given[2], m = c->given[3];
    if (!(eps > 0.0)) {
        snprintf(why, len, "expected a number > 0 for pair style mie (got %g)", eps);
        return 0;
    }
    if (!(n > m)) {
        snprintf(why, len, "expected n > m (got n = %g, m = %g)", n, m);
        return 2;
    }
    if (tail && !(m > 3.0)) {
        snprintf(why, len, "expected m > 3 with tail = \"on\" (the integral of r^2 U beyond "
                 "rc diverges otherwise; got m = %g)", m);
        return 3;
    }
    return -1;
}

#define VS_PAIR_INFO_mie                                                                       \
    .keys = {"epsilon", "sigma", "n", "m"}, .setup = vs_pair_setup_mie,                        \
    .tail = vs_pair_tail_mie, .check = vs_pair_check_mie, .flags = VS_PAIR_SHIFTS | VS_PAIR_TAIL

#endif
