/* The conservative pair styles beyond DPD, written once for the CPU backend and the CUDA
 * kernels: lj, soft, gaussian and table (configuration: the `pair` list; params.h holds
 * their coefficients per species pair, vs_pair_coeff, filled by src/app/config_pair.c).
 *
 * For r < rc of the species pair (each pair of species has its own cut-off), with
 * U_shift = U(rc) when the style's energy is shifted, else 0:
 *   lj        U = 4 eps ((sigma/r)^12 - (sigma/r)^6) - U_shift
 *             F = 24 eps (2 (sigma/r)^12 - (sigma/r)^6) / r
 *             (wca: rc = 2^(1/6) sigma and shifted: purely repulsive, U(rc) = 0)
 *   soft      U = alpha (1 - r/rc)^2                (no factor 1/2; U(rc) = 0)
 *             F = 2 alpha (1 - r/rc) / rc          (= DPD's a_ij w with a_ij = 2 alpha / rc)
 *   gaussian  U = eps exp(-(r/sigma)^2 / 2) - U_shift
 *             F = eps (r / sigma^2) exp(-(r/sigma)^2 / 2)
 *   table     U and F from a file on a uniform r grid, each interpolated by its own cubic
 *             spline (energy clamped by the file's end forces, force by its end secants)
 * F is the radial force on i (positive: repulsive), and the force on i is (F / r) r_ij with
 * r_ij = r_i - r_j; the virial of the pair is r_ij . F_ij = F r. The result is symmetric in
 * (i, j), so a pair seen from j gives exactly -F (one sum per pair in fixed point).
 *
 * Each body is generated for double (the CPU and the GPU `double` mode) and float (the GPU
 * `mixed` mode) from one macro, as dpd_pair.h does; the coefficients stay double and are
 * converted where used.
 */
#ifndef VESICA_PAIR_STYLES_H
#define VESICA_PAIR_STYLES_H

#include <math.h>

#include "dpd_pair.h" /* vs_pair_result, vs_pair_result_f */
#include "hostdevice.h"

typedef enum {
    VS_PAIR_LJ = 0,
    VS_PAIR_SOFT = 1,
    VS_PAIR_GAUSSIAN = 2,
    VS_PAIR_TABLE = 3,
    VS_PAIR_STYLES = 4
} vs_pair_style;

#define VS_MAX_TABLES 8           /* tables of all species pairs together */
#define VS_PAIR_TABLE_MAX_POINTS 1024  /* points per table */

/* The coefficients of one style for one pair of species (on = 0: no interaction). */
typedef struct {
    int on;
    int table;       /* table: index into the tables */
    double rc, rc2;  /* cut-off */
    /* derived constants:
     *   lj: k = {48 eps sigma^12, 24 eps sigma^6, 4 eps sigma^12, 4 eps sigma^6}
     *   soft: k = {alpha, 1 / rc, 2 alpha / rc}
     *   gaussian: k = {eps, 1 / (2 sigma^2), 1 / sigma^2} */
    double k[4];
    double shift;    /* U(rc) subtracted from the energy (0: not shifted) */
    double eps, sigma, alpha; /* as given (reports, tail corrections) */
} vs_pair_coeff;

/* One tabulated potential: n points r0 + k dr; e, f the file's energies and forces, e2 and
 * f2 their splines' second derivatives times dr^2 / 6. */
typedef struct {
    int n;
    double r0, dr, inv_dr;
    double e[VS_PAIR_TABLE_MAX_POINTS], e2[VS_PAIR_TABLE_MAX_POINTS];
    double f[VS_PAIR_TABLE_MAX_POINTS], f2[VS_PAIR_TABLE_MAX_POINTS];
} vs_pair_table;

#define VS_PAIR_STYLE_DEFINE(SUFFIX, REAL, SQRT, EXP)                                          \
    /* The cubic spline of y (second derivatives y2, times dr^2 / 6) at u = (r - r0) / dr.     \
     * Below the first point: NaN (the force's check reports the particle). */                 \
    VS_HOST_DEVICE REAL vs_table_spline##SUFFIX(const double *y, const double *y2, int n,      \
                                                REAL u)                                        \
    {                                                                                          \
        if (!(u >= (REAL)0))                                                                   \
            return (REAL)NAN;                                                                  \
        int k = (int)u;                                                                        \
        if (k > n - 2)                                                                         \
            k = n - 2;                                                                         \
        const REAL b = u - (REAL)k, a = (REAL)1 - b;                                           \
        return a * (REAL)y[k] + b * (REAL)y[k + 1] +                                           \
               (a * a * a - a) * (REAL)y2[k] + (b * b * b - b) * (REAL)y2[k + 1];              \
    }                                                                                          \
                                                                                               \
    /* The pair of `style` at squared distance r2 (0 < r2 < c->rc2). */                        \
    VS_HOST_DEVICE vs_pair_result##SUFFIX vs_pair_style_eval##SUFFIX(                          \
        int style, const vs_pair_coeff *c, const vs_pair_table *tables, REAL r2)               \
    {                                                                                          \
        vs_pair_result##SUFFIX out;                                                            \
        if (style == VS_PAIR_LJ) {                                                             \
            const REAL inv_r2 = (REAL)1 / r2;                                                  \
            const REAL r6 = inv_r2 * inv_r2 * inv_r2;                                          \
            out.f_over_r = r6 * ((REAL)c->k[0] * r6 - (REAL)c->k[1]) * inv_r2;                 \
            out.energy = r6 * ((REAL)c->k[2] * r6 - (REAL)c->k[3]) - (REAL)c->shift;           \
        } else if (style == VS_PAIR_SOFT) {                                                    \
            const REAL r = SQRT(r2);                                                           \
            const REAL w = (REAL)1 - r * (REAL)c->k[1];                                        \
            out.f_over_r = (REAL)c->k[2] * w / r;                                              \
            out.energy = (REAL)c->k[0] * w * w;                                                \
        } else if (style == VS_PAIR_GAUSSIAN) {                                                \
            const REAL e0 = (REAL)c->k[0] * EXP(-r2 * (REAL)c->k[1]);                          \
            out.f_over_r = e0 * (REAL)c->k[2];                                                 \
            out.energy = e0 - (REAL)c->shift;                                                  \
        } else {                                                                               \
            const vs_pair_table *t = &tables[c->table];                                        \
            const REAL r = SQRT(r2);                                                           \
            const REAL u = (r - (REAL)t->r0) * (REAL)t->inv_dr;                                \
            out.f_over_r = vs_table_spline##SUFFIX(t->f, t->f2, t->n, u) / r;                  \
            out.energy = vs_table_spline##SUFFIX(t->e, t->e2, t->n, u) - (REAL)c->shift;       \
        }                                                                                      \
        out.virial = out.f_over_r * r2;                                                        \
        return out;                                                                            \
    }

VS_PAIR_STYLE_DEFINE(, double, sqrt, exp)
VS_PAIR_STYLE_DEFINE(_f, float, sqrtf, expf)

#endif
