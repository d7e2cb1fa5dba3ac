/* The soft pair style (pair_styles.h): for r < rc,
 *   U = alpha (1 - r/rc)^2      (no factor 1/2; U(rc) = 0)
 *   F = 2 alpha (1 - r/rc) / rc (= DPD's a_ij w with a_ij = 2 alpha / rc). */
#ifndef VESICA_PAIR_SOFT_H
#define VESICA_PAIR_SOFT_H

#include "pair_coeff.h"

#define VS_PAIR_BODY_soft(REAL, SQRT, EXP, SUFFIX)                                             \
    const REAL r = SQRT(r2);                                                                   \
    const REAL w = (REAL)1 - r * (REAL)c->k[1];                                                \
    out.f_over_r = (REAL)c->k[2] * w / r;                                                      \
    out.energy = (REAL)c->k[0] * w * w;

static inline void vs_pair_setup_soft(vs_pair_coeff *c)
{
    c->k[0] = c->alpha;
    c->k[1] = 1.0 / c->rc;
    c->k[2] = 2.0 * c->alpha / c->rc;
}

/* U(rc) = 0: shift = "on" changes nothing (so the flag is not set). The key alpha lands in
 * slot 2 (pair_coeff.h's alpha). */
#define VS_PAIR_INFO_soft .keys = {NULL, NULL, "alpha"}, .setup = vs_pair_setup_soft

#endif
