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

#endif
