/* The lj pair style (pair_styles.h): for r < rc,
 *   U = 4 eps ((sigma/r)^12 - (sigma/r)^6) - U_shift
 *   F = 24 eps (2 (sigma/r)^12 - (sigma/r)^6) / r
 * (wca: rc = 2^(1/6) sigma and shifted: purely repulsive, U(rc) = 0). */
#ifndef VESICA_PAIR_LJ_H
#define VESICA_PAIR_LJ_H

#include "pair_coeff.h"

#define VS_PAIR_BODY_lj(REAL, SQRT, EXP, SUFFIX)                                               \
    const REAL inv_r2 = (REAL)1 / r2;                                                          \
    const REAL r6 = inv_r2 * inv_r2 * inv_r2;                                                  \
    out.f_over_r = r6 * ((REAL)c->k[0] * r6 - (REAL)c->k[1]) * inv_r2;                         \
    out.energy = r6 * ((REAL)c->k[2] * r6 - (REAL)c->k[3]) - (REAL)c->shift;

static inline void vs_pair_setup_lj(vs_pair_coeff *c)
{
    const double s6 = pow(c->sigma, 6.0), s12 = s6 * s6;
    c->k[0] = 48.0 * c->eps * s12;
    c->k[1] = 24.0 * c->eps * s6;
    c->k[2] = 4.0 * c->eps * s12;
    c->k[3] = 4.0 * c->eps * s6;
}

/* The integrals from rc to infinity of r^2 U and of r^3 U' of the unshifted form, times pre
 * (= 2 pi / V N_i N_j, vs_pair_tail), added to energy and virial. */
static inline void vs_pair_tail_lj(const vs_pair_coeff *c, double pre, double *energy,
                                   double *virial)
{
    const double s3 = c->sigma * c->sigma * c->sigma;
    const double x3 = s3 / (c->rc * c->rc * c->rc), x9 = x3 * x3 * x3;
    *energy += pre * c->eps * s3 * (x9 / 9.0 - x3 / 3.0);
    *virial += pre * c->eps * s3 * (4.0 / 3.0 * x9 - 2.0 * x3);
}

#define VS_PAIR_INFO_lj                                                                        \
    .keys = {"epsilon", "sigma"}, .setup = vs_pair_setup_lj, .tail = vs_pair_tail_lj,          \
    .flags = VS_PAIR_SHIFTS | VS_PAIR_WCA | VS_PAIR_TAIL

#endif
