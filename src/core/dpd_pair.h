/* The DPD pair force, written once for the CPU backend and the CUDA kernels.
 *
 * For r < r_c, with r_ij = r_i - r_j, e = r_ij / r, v_ij = v_i - v_j, w = 1 - r / r_c:
 *   F^C = a_ij w e
 *   F^D = -gamma w^(2s) (e . v_ij) e
 *   F^R = sigma w^s xi_ij dt^(-1/2) e,   sigma^2 = 2 gamma k_B T
 * The force on i is f * r_ij with one scalar f that is symmetric in (i, j): the same pair seen
 * from j gives exactly -F (r_ij and v_ij flip sign exactly, every product keeps its value).
 * The conservative potential is U = a_ij r_c w^2 / 2, and only F^C enters the virial
 * (the pressure of Groot & Warren 1997).
 */
#ifndef VESICA_DPD_PAIR_H
#define VESICA_DPD_PAIR_H

#include <math.h>

#include "hostdevice.h"

/* The pair force is generated for double (the CPU reference and the GPU `double` mode) and for
 * float (the GPU `mixed` mode) from one body, so the two precisions cannot drift apart. */
#define VS_DPD_DEFINE(SUFFIX, REAL, SQRT, POW)                                                \
    /* Loop-invariant constants of the pair force, computed once per run. */                  \
    typedef struct {                                                                           \
        REAL rc, rc2, inv_rc;                                                                  \
        REAL gamma;                                                                            \
        REAL sigma_over_sqrt_dt; /* sqrt(2 gamma kT) / sqrt(dt) */                             \
        REAL s;                  /* weight exponent */                                         \
        int s_is_one;            /* fast path: w^s = w, w^(2s) = w^2 */                        \
    } vs_dpd_consts##SUFFIX;                                                                   \
                                                                                               \
    typedef struct {                                                                           \
        REAL f_over_r; /* force on i is f_over_r * r_ij */                                     \
        REAL energy;   /* conservative pair energy a r_c w^2 / 2 */                            \
        REAL virial;   /* r_ij . F^C_ij */                                                     \
    } vs_pair_result##SUFFIX;                                                                  \
                                                                                               \
    /* Pair at squared distance r2 (0 < r2 < rc2), separation (dx,dy,dz), relative velocity   \
     * (dvx,dvy,dvz), conservative amplitude a and random number xi. */                        \
    VS_HOST_DEVICE vs_pair_result##SUFFIX vs_dpd_pair##SUFFIX(                                 \
        const vs_dpd_consts##SUFFIX *c, REAL r2, REAL dx, REAL dy, REAL dz, REAL dvx,          \
        REAL dvy, REAL dvz, REAL a, REAL xi)                                                   \
    {                                                                                          \
        const REAL r = SQRT(r2);                                                               \
        const REAL inv_r = (REAL)1 / r;                                                        \
        const REAL w = (REAL)1 - r * c->inv_rc;                                                \
        const REAL wr = c->s_is_one ? w : POW(w, c->s);                                        \
        const REAL e_dot_v = (dx * dvx + dy * dvy + dz * dvz) * inv_r;                         \
        const REAL fc = a * w;                                                                 \
        const REAL f = fc - c->gamma * wr * wr * e_dot_v + c->sigma_over_sqrt_dt * wr * xi;    \
        vs_pair_result##SUFFIX out;                                                            \
        out.f_over_r = f * inv_r;                                                              \
        out.energy = (REAL)0.5 * a * c->rc * w * w;                                            \
        out.virial = fc * r;                                                                   \
        return out;                                                                            \
    }

VS_DPD_DEFINE(, double, sqrt, pow)
VS_DPD_DEFINE(_f, float, sqrtf, powf)

/* sigma = sqrt(2 gamma kT) is computed here and nowhere else. */
VS_HOST_DEVICE vs_dpd_consts vs_dpd_make_consts(double rc, double gamma, double kT, double s,
                                                double dt)
{
    vs_dpd_consts c;
    c.rc = rc;
    c.rc2 = rc * rc;
    c.inv_rc = 1.0 / rc;
    c.gamma = gamma;
    c.sigma_over_sqrt_dt = sqrt(2.0 * gamma * kT) / sqrt(dt);
    c.s = s;
    c.s_is_one = (s == 1.0);
    return c;
}

VS_HOST_DEVICE vs_dpd_consts_f vs_dpd_consts_to_float(const vs_dpd_consts *c)
{
    vs_dpd_consts_f f;
    f.rc = (float)c->rc;
    f.rc2 = (float)c->rc2;
    f.inv_rc = (float)c->inv_rc;
    f.gamma = (float)c->gamma;
    f.sigma_over_sqrt_dt = (float)c->sigma_over_sqrt_dt;
    f.s = (float)c->s;
    f.s_is_one = c->s_is_one;
    return f;
}

#endif
