/* The table pair style (pair_styles.h): U and F from a file on a uniform r grid (read by
 * io/pair_table.c), each interpolated by its own cubic spline (energy clamped by the file's
 * end forces, force by its end secants), U_shift subtracted from the energy. */
#ifndef VESICA_PAIR_TABULATED_H
#define VESICA_PAIR_TABULATED_H

#include "pair_coeff.h"

/* The cubic spline of y (second derivatives y2, times dr^2 / 6) at u = (r - r0) / dr. Below
 * the first point: NaN (the force's check reports the particle). */
#define VS_TABLE_SPLINE_DEFINE(SUFFIX, REAL)                                                   \
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
    }

VS_TABLE_SPLINE_DEFINE(, double)
VS_TABLE_SPLINE_DEFINE(_f, float)

#define VS_PAIR_BODY_table(REAL, SQRT, EXP, SUFFIX)                                            \
    const vs_pair_table *t = &tables[c->table];                                                \
    const REAL r = SQRT(r2);                                                                   \
    const REAL u = (r - (REAL)t->r0) * (REAL)t->inv_dr;                                        \
    out.f_over_r = vs_table_spline##SUFFIX(t->f, t->f2, t->n, u) / r;                          \
    out.energy = vs_table_spline##SUFFIX(t->e, t->e2, t->n, u) - (REAL)c->shift;

#define VS_PAIR_INFO_table .flags = VS_PAIR_SHIFTS | VS_PAIR_FILE

#endif
