/* The morse pair style (pair_styles.h), LAMMPS's pair_style morse: for r < rc,
 *   U = D0 (exp(-2 alpha (r - r0)) - 2 exp(-alpha (r - r0))) - U_shift
 *   F = 2 alpha D0 (exp(-2 alpha (r - r0)) - exp(-alpha (r - r0)))
 * (the minimum -D0 at r = r0; F > 0, repulsive, for r < r0). */
#ifndef VESICA_PAIR_MORSE_H
#define VESICA_PAIR_MORSE_H

#include "pair_coeff.h"

/* k = {D0, alpha, r0, 2 alpha D0}: the given D0, alpha, r0 in slots 0, 2, 1 (alpha shares
 * soft's slot, r0 sigma's). */
#define VS_PAIR_BODY_morse(REAL, SQRT, EXP, SUFFIX)                                            \
    const REAL r = SQRT(r2);                                                                   \
    const REAL e1 = EXP(-(REAL)c->k[1] * (r - (REAL)c->k[2]));                                 \
    out.f_over_r = (REAL)c->k[3] * e1 * (e1 - (REAL)1) / r;                                    \
    out.energy = (REAL)c->k[0] * e1 * (e1 - (REAL)2) - (REAL)c->shift;

static inline void vs_pair_setup_morse(vs_pair_coeff *c)
{
    c->k[0] = c->given[0];
    c->k[1] = c->given[2];
    c->k[2] = c->given[1];
    c->k[3] = 2.0 * c->given[2] * c->given[0];
}

#define VS_PAIR_INFO_morse                                                                     \
    .keys = {"D0", "r0", "alpha"}, .setup = vs_pair_setup_morse, .flags = VS_PAIR_SHIFTS

#endif
