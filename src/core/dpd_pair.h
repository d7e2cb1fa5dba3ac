/* The DPD pair force, written once for the CPU backend and the CUDA kernels.
 *
 * For r < r_c, with r_ij = r_i - r_j, e = r_ij / r, v_ij = v_i - v_j, w = 1 - r / r_c:
 *   F^C = a_ij w e
 *   F^D = -gamma_ij w^(2s) (e . v_ij) e
 *   F^R = sigma_ij w^s xi_ij dt^(-1/2) e,   sigma_ij^2 = 2 gamma_ij k_B T
 * (gamma_ij one number for every pair, or per species pair: dpd.gamma as a matrix)
 * The force on i is f * r_ij with one scalar f that is symmetric in (i, j): the same pair seen
 * from j gives exactly -F (r_ij and v_ij flip sign exactly, every product keeps its value).
 * The conservative potential is U = a_ij r_c w^2 / 2, and only F^C enters the virial
 * (the pressure of Groot & Warren 1997).
 */
#ifndef VESICA_DPD_PAIR_H
#define VESICA_DPD_PAIR_H

#include <math.h>

#include "hostdevice.h"
#include "tea_rng.h"

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
     * (dvx,dvy,dvz), conservative amplitude a, the pair's dissipative strength gamma and      \
     * sigma / sqrt(dt) (vs_dpd_sigma_over_sqrt_dt), and random number xi. */                  \
    VS_HOST_DEVICE vs_pair_result##SUFFIX vs_dpd_pair_gs##SUFFIX(                              \
        const vs_dpd_consts##SUFFIX *c, REAL r2, REAL dx, REAL dy, REAL dz, REAL dvx,          \
        REAL dvy, REAL dvz, REAL a, REAL gamma, REAL sigma_over_sqrt_dt, REAL xi)              \
    {                                                                                          \
        const REAL r = SQRT(r2);                                                               \
        const REAL inv_r = (REAL)1 / r;                                                        \
        const REAL w = (REAL)1 - r * c->inv_rc;                                                \
        const REAL wr = c->s_is_one ? w : POW(w, c->s);                                        \
        const REAL e_dot_v = (dx * dvx + dy * dvy + dz * dvz) * inv_r;                         \
        const REAL fc = vs_mul_rn(a, w); /* also the virial's: rounded alike in every use */   \
        const REAL f = fc - gamma * wr * wr * e_dot_v + sigma_over_sqrt_dt * wr * xi;          \
        vs_pair_result##SUFFIX out;                                                            \
        out.f_over_r = f * inv_r;                                                              \
        out.energy = (REAL)0.5 * a * c->rc * w * w;                                            \
        out.virial = fc * r;                                                                   \
        return out;                                                                            \
    }                                                                                          \
                                                                                               \
    /* The pair with the run's one gamma and sigma (dpd.gamma one number). */                  \
    VS_HOST_DEVICE vs_pair_result##SUFFIX vs_dpd_pair##SUFFIX(                                 \
        const vs_dpd_consts##SUFFIX *c, REAL r2, REAL dx, REAL dy, REAL dz, REAL dvx,          \
        REAL dvy, REAL dvz, REAL a, REAL xi)                                                   \
    {                                                                                          \
        return vs_dpd_pair_gs##SUFFIX(c, r2, dx, dy, dz, dvx, dvy, dvz, a, c->gamma,           \
                                      c->sigma_over_sqrt_dt, xi);                              \
    }

VS_DPD_DEFINE(, double, sqrt, pow)
VS_DPD_DEFINE(_f, float, sqrtf, powf)

/* The pair's random number xi_ij at the step of `key`, from the two particles' signatures
 * (tea_rng.h): uniform on [-sqrt 3, sqrt 3] or Gaussian, symmetric in (i, j). */
VS_HOST_DEVICE double vs_dpd_xi(vs_tea_key key, uint64_t sig_i, uint64_t sig_j, int gaussian)
{
    const vs_tea_block bits = vs_pair_bits_sig(key, sig_i, sig_j);
    return gaussian ? vs_xi_gaussian(bits) : vs_xi_uniform(bits);
}

/* The whole pair: its random number, then the force, in the precision of the constants. Every
 * backend evaluates a DPD pair through one of these two. */
VS_HOST_DEVICE vs_pair_result vs_dpd_pair_random(const vs_dpd_consts *c, vs_tea_key key,
                                                 uint64_t sig_i, uint64_t sig_j, int gaussian,
                                                 double r2, double dx, double dy, double dz,
                                                 double dvx, double dvy, double dvz, double a)
{
    const double xi = vs_dpd_xi(key, sig_i, sig_j, gaussian);
    return vs_dpd_pair(c, r2, dx, dy, dz, dvx, dvy, dvz, a, xi);
}

VS_HOST_DEVICE vs_pair_result_f vs_dpd_pair_random_f(const vs_dpd_consts_f *c, vs_tea_key key,
                                                     uint64_t sig_i, uint64_t sig_j,
                                                     int gaussian, float r2, float dx, float dy,
                                                     float dz, float dvx, float dvy, float dvz,
                                                     float a)
{
    const float xi = (float)vs_dpd_xi(key, sig_i, sig_j, gaussian);
    return vs_dpd_pair_f(c, r2, dx, dy, dz, dvx, dvy, dvz, a, xi);
}

/* sigma = sqrt(2 gamma kT) is computed here and nowhere else: sigma / sqrt(dt), the random
 * force's amplitude, of a pair of dissipative strength gamma. */
VS_HOST_DEVICE double vs_dpd_sigma_over_sqrt_dt(double gamma, double kT, double dt)
{
    return sqrt(2.0 * gamma * kT) / sqrt(dt);
}

VS_HOST_DEVICE vs_dpd_consts vs_dpd_make_consts(double rc, double gamma, double kT, double s,
                                                double dt)
{
    vs_dpd_consts c;
    c.rc = rc;
    c.rc2 = rc * rc;
    c.inv_rc = 1.0 / rc;
    c.gamma = gamma;
    c.sigma_over_sqrt_dt = vs_dpd_sigma_over_sqrt_dt(gamma, kT, dt);
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
