/* The lj_force_shifted pair style (pair_styles.h): Lennard-Jones with its force shifted to
 * zero at the cut-off by a linear term, NIST's "linear-force shifted" potential (the LJ
 * reference data of its SRSW pages for r_c = 2.5 sigma) and LAMMPS's lj/smooth/linear: for
 * r < rc,
 *   U = U_LJ(r) - U_LJ(rc) + (r - rc) F_LJ(rc),   F = F_LJ(r) - F_LJ(rc),
 * with U_LJ = 4 eps ((sigma/r)^12 - (sigma/r)^6) and F_LJ = -dU_LJ/dr. Energy and force both
 * vanish at rc, so the style takes no shift, wca or tail options. */
#ifndef VESICA_PAIR_LJ_FORCE_SHIFTED_H
#define VESICA_PAIR_LJ_FORCE_SHIFTED_H

#include <math.h>

#include "pair_coeff.h"

/* k = {4 eps sigma^12, 4 eps sigma^6, F_LJ(rc), U_LJ(rc) + rc F_LJ(rc)}: the energy is
 * k0 r^-12 - k1 r^-6 + k2 r - k3, and F = (12 k0 r^-12 - 6 k1 r^-6) / r - k2. */
#define VS_PAIR_BODY_lj_force_shifted(REAL, SQRT, EXP, SUFFIX)                                 \
    const REAL inv_r2 = (REAL)1 / r2;                                                          \
    const REAL r6 = inv_r2 * inv_r2 * inv_r2;                                                  \
    const REAL r = SQRT(r2);                                                                   \
    out.f_over_r =                                                                             \
        r6 * ((REAL)12 * (REAL)c->k[0] * r6 - (REAL)6 * (REAL)c->k[1]) * inv_r2 -             \
        (REAL)c->k[2] / r;                                                                     \
    out.energy = r6 * ((REAL)c->k[0] * r6 - (REAL)c->k[1]) + (REAL)c->k[2] * r - (REAL)c->k[3];

/* given = {epsilon, sigma} (keys 0, 1); c->rc is set. */
static inline void vs_pair_setup_lj_force_shifted(vs_pair_coeff *c)
{
    const double s6 = pow(c->given[1], 6.0), e4 = 4.0 * c->given[0];
    c->k[0] = e4 * s6 * s6;
    c->k[1] = e4 * s6;
    const double x6 = 1.0 / (c->rc2 * c->rc2 * c->rc2);
    const double u_rc = x6 * (c->k[0] * x6 - c->k[1]);
    const double f_rc = x6 * (12.0 * c->k[0] * x6 - 6.0 * c->k[1]) / c->rc;
    c->k[2] = f_rc;
    c->k[3] = u_rc + c->rc * f_rc;
}

#define VS_PAIR_INFO_lj_force_shifted                                                          \
    .keys = {"epsilon", "sigma"}, .setup = vs_pair_setup_lj_force_shifted, .flags = 0

#endif
