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

/* Loop-invariant constants of the pair force, computed once per step (dpd_pair_consts). */
typedef struct {
    double rc, rc2, inv_rc;
    double gamma;
    double sigma_over_sqrt_dt; /* sqrt(2 gamma kT) / sqrt(dt) */
    double s;                  /* weight exponent */
    int s_is_one;              /* fast path: w^s = w, w^(2s) = w^2 */
} vs_dpd_consts;

typedef struct {
    double f_over_r; /* force on i is f_over_r * r_ij */
    double energy;   /* conservative pair energy a r_c w^2 / 2 */
    double virial;   /* r_ij . F^C_ij */
} vs_pair_result;

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

/* Pair at squared distance r2 (caller guarantees 0 < r2 < rc2), separation (dx,dy,dz),
 * relative velocity (dvx,dvy,dvz), conservative amplitude a and random number xi. */
VS_HOST_DEVICE vs_pair_result vs_dpd_pair(const vs_dpd_consts *c, double r2, double dx,
                                          double dy, double dz, double dvx, double dvy,
                                          double dvz, double a, double xi)
{
    double r = sqrt(r2);
    double inv_r = 1.0 / r;
    double w = 1.0 - r * c->inv_rc;
    double wr = c->s_is_one ? w : pow(w, c->s);
    double e_dot_v = (dx * dvx + dy * dvy + dz * dvz) * inv_r;
    double fc = a * w;
    double f = fc - c->gamma * wr * wr * e_dot_v + c->sigma_over_sqrt_dt * wr * xi;
    vs_pair_result out;
    out.f_over_r = f * inv_r;
    out.energy = 0.5 * a * c->rc * w * w;
    out.virial = fc * r;
    return out;
}

#endif
