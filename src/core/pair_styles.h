/* The conservative pair styles beyond DPD, written once for the CPU backend and the CUDA
 * kernels (configuration: the `pair` list; params.h holds their coefficients per species
 * pair, vs_pair_coeff of pair_coeff.h, filled by src/app/config_pair.c).
 *
 * Each style is one header with its formulas (pair_lj.h, pair_soft.h, pair_gaussian.h,
 * pair_tabulated.h): a body VS_PAIR_BODY_<name>(REAL, SQRT, EXP, SUFFIX) that sets
 * out.f_over_r and out.energy from the coefficients c (and the tables) at the squared
 * distance r2 < c->rc2 of each species pair's own cut-off. F is the radial force on i
 * (positive: repulsive), the force on i is (F / r) r_ij with r_ij = r_i - r_j, and the
 * virial of the pair is r_ij . F_ij = F r, added here. The result must be symmetric in
 * (i, j), so a pair seen from j gives exactly -F (one sum per pair in fixed point).
 *
 * Each body is generated for double (the CPU and the GPU `double` mode) and float (the GPU
 * `mixed` mode), as dpd_pair.h does; the coefficients stay double and are converted where
 * used. A new style: its header, its line in VS_PAIR_STYLE_LIST below (which makes its enum
 * value and its branch of vs_pair_style_eval; the GPU walks dispatch over the list,
 * gpu/gpu_pair_eval.cuh), and its keys in the configuration.
 */
#ifndef VESICA_PAIR_STYLES_H
#define VESICA_PAIR_STYLES_H

#include "pair_coeff.h"
#include "pair_gaussian.h"
#include "pair_lj.h"
#include "pair_soft.h"
#include "pair_tabulated.h"

/* The registry of styles: X(enum value, name of its body), in the order of their values. */
#define VS_PAIR_STYLE_LIST(X)                                                                  \
    X(VS_PAIR_LJ, lj)                                                                          \
    X(VS_PAIR_SOFT, soft)                                                                      \
    X(VS_PAIR_GAUSSIAN, gaussian)                                                              \
    X(VS_PAIR_TABLE, table)

#define VS_PAIR_ENUM_(ID, NAME) ID,
typedef enum { VS_PAIR_STYLE_LIST(VS_PAIR_ENUM_) VS_PAIR_STYLES } vs_pair_style;
#undef VS_PAIR_ENUM_

/* The pair of `style` at squared distance r2 (0 < r2 < c->rc2): one branch per style, so a
 * constant style folds to its own body where the call is inlined. NaN for a style not in
 * the list. */
#define VS_PAIR_BRANCH_D_(ID, NAME)                                                            \
    if (style == ID) {                                                                         \
        VS_PAIR_BODY_##NAME(double, sqrt, exp, )                                               \
    } else
#define VS_PAIR_BRANCH_F_(ID, NAME)                                                            \
    if (style == ID) {                                                                         \
        VS_PAIR_BODY_##NAME(float, sqrtf, expf, _f)                                            \
    } else
#define VS_PAIR_EVAL_DEFINE_(SUFFIX, REAL, BRANCH)                                             \
    VS_HOST_DEVICE vs_pair_result##SUFFIX vs_pair_style_eval##SUFFIX(                          \
        int style, const vs_pair_coeff *c, const vs_pair_table *tables, REAL r2)               \
    {                                                                                          \
        vs_pair_result##SUFFIX out;                                                            \
        (void)tables;                                                                          \
        VS_PAIR_STYLE_LIST(BRANCH)                                                             \
        {                                                                                      \
            out.f_over_r = out.energy = (REAL)NAN;                                             \
        }                                                                                      \
        out.virial = out.f_over_r * r2;                                                        \
        return out;                                                                            \
    }
VS_PAIR_EVAL_DEFINE_(, double, VS_PAIR_BRANCH_D_)
VS_PAIR_EVAL_DEFINE_(_f, float, VS_PAIR_BRANCH_F_)

#endif
