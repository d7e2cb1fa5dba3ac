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

static inline void vs_pair_setup_gaussian(vs_pair_coeff *c)
{
    c->k[0] = c->eps;
    c->k[1] = 1.0 / (2.0 * c->sigma * c->sigma);
    c->k[2] = 1.0 / (c->sigma * c->sigma);
}

#define VS_PAIR_INFO_gaussian                                                                  \
    .keys = {"epsilon", "sigma"}, .setup = vs_pair_setup_gaussian, .flags = VS_PAIR_SHIFTS

#endif
