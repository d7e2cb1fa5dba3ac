/* The gaussian pair style (pair_styles.h): for r < rc,
 *   U = eps exp(-(r/sigma)^2 / 2) - U_shift
 *   F = eps (r / sigma^2) exp(-(r/sigma)^2 / 2). */
#ifndef VESICA_PAIR_GAUSSIAN_H
#define VESICA_PAIR_GAUSSIAN_H

#include "pair_coeff.h"

#define VS_PAIR_BODY_gaussian(REAL, SQRT, EXP, SUFFIX)                                         \
    const REAL e0 = (REAL)c->k[0] * EXP(-r2 * (REAL)c->k[1]);                                  \
    out.f_over_r = e0 * (REAL)c->k[2];                                                         \
    out.energy = e0 - (REAL)c->shift;

#endif
