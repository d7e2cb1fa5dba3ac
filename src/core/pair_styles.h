/* The conservative pair styles beyond DPD, written once for the CPU backend and the CUDA
 * kernels (configuration: the `pair` list; params.h holds their coefficients per species
 * pair, vs_pair_coeff of pair_coeff.h, filled by src/app/config_pair.c).
 *
 * Each style is one header with its formulas (pair_lj.h, pair_soft.h, pair_gaussian.h,
 * pair_tabulated.h, pair_morse.h, pair_mie.h, pair_lj_force_shifted.h): a body VS_PAIR_BODY_<name>(REAL, SQRT, EXP,
 * SUFFIX) that sets out.f_over_r and out.energy from the coefficients c (and the tables) at
 * the squared distance r2 < c->rc2 of each species pair's own cut-off. F is the radial force
 * on i (positive: repulsive), the force on i is (F / r) r_ij with r_ij = r_i - r_j, and the
 * virial of the pair is r_ij . F_ij = F r, added here. The result must be symmetric in
 * (i, j), so a pair seen from j gives exactly -F (one sum per pair in fixed point).
 *
 * Each body is generated for double (the CPU and the GPU `double` mode) and float (the GPU
 * `mixed` mode), as dpd_pair.h does; the coefficients stay double and are converted where
 * used.
 *
 * Each header also declares VS_PAIR_INFO_<name>: the designated initialisers of its
 * vs_pair_style_info (pair_coeff.h): its coefficient keys, the set-up of its derived
 * constants k, its options (shift, wca, tail, file) and any limits of its own on the given
 * coefficients (check). A new style is its header, its line in VS_PAIR_STYLE_LIST below and
 * its coefficient keys in VS_PAIR_COEFF_KEYS (those no style has yet). The list makes the
 * rest: the enum value, the branch of vs_pair_style_eval, the style's name and descriptor
 * (pair_setup.c), the configuration's choices and keys (param_schema.c, config_pair.c), the
 * CPU loop (cpu/pair_cpu.c), the force-field term (engine/term_pair.c), the GPU walks
 * (gpu/gpu_pair_eval.cuh) and Monte Carlo's energies (engine/mc/mc_box.c).
 */
#ifndef VESICA_PAIR_STYLES_H
#define VESICA_PAIR_STYLES_H

#include "pair_coeff.h"
#include "pair_gaussian.h"
#include "pair_lj.h"
#include "pair_lj_force_shifted.h"
#include "pair_mie.h"
#include "pair_morse.h"
#include "pair_soft.h"
#include "pair_tabulated.h"

/* The registry of styles: X(enum value, name of its body), in the order of their values. */
#define VS_PAIR_STYLE_LIST(X)                                                                  \
    X(VS_PAIR_LJ, lj)                                                                          \
    X(VS_PAIR_SOFT, soft)                                                                      \
    X(VS_PAIR_GAUSSIAN, gaussian)                                                              \
    X(VS_PAIR_TABLE, table)                                                                    \
    X(VS_PAIR_MORSE, morse)                                                                    \
    X(VS_PAIR_MIE, mie)                                                                        \
    X(VS_PAIR_LJ_FORCE_SHIFTED, lj_force_shifted)

/* The coefficient keys of all styles, each once (a key may serve several styles; each
 * style's VS_PAIR_INFO names its own): K(name, positive, meaning) makes the row
 * pair.[].coeff.*.*.name of the configuration's schema, a number, > 0 when positive. */
#define VS_PAIR_COEFF_KEYS(K)                                                                  \
    K(epsilon, 0, "lj, gaussian, mie (> 0), lj_force_shifted: energy eps")                     \
    K(sigma, 1, "lj, gaussian, mie, lj_force_shifted: length sigma")                           \
    K(alpha, 0, "soft: energy alpha at r = 0; morse: stiffness alpha (1/length)")              \
    K(D0, 0, "morse: well depth D0")                                                           \
    K(r0, 0, "morse: distance r0 of the minimum")                                              \
    K(n, 1, "mie: repulsive exponent n (> m)")                                                 \
    K(m, 1, "mie: attractive exponent m (> 3 with tail corrections)")

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
#define VS_PAIR_EVAL_DEFINE_(FUNC, RESULT, COEFF, REAL, BRANCH)                               \
    VS_HOST_DEVICE RESULT FUNC(int style, const COEFF *c, const vs_pair_table *tables, REAL r2) \
    {                                                                                          \
        RESULT out;                                                                            \
        (void)tables;                                                                          \
        VS_PAIR_STYLE_LIST(BRANCH)                                                             \
        {                                                                                      \
            out.f_over_r = out.energy = (REAL)NAN;                                             \
        }                                                                                      \
        out.virial = out.f_over_r * r2;                                                        \
        return out;                                                                            \
    }
VS_PAIR_EVAL_DEFINE_(vs_pair_style_eval, vs_pair_result, vs_pair_coeff, double,
                     VS_PAIR_BRANCH_D_)
VS_PAIR_EVAL_DEFINE_(vs_pair_style_eval_f, vs_pair_result_f, vs_pair_coeff, float,
                     VS_PAIR_BRANCH_F_)
/* the same float bodies from coefficients rounded once (vs_pair_coeff_f): the same bits */
VS_PAIR_EVAL_DEFINE_(vs_pair_style_eval_cf, vs_pair_result_f, vs_pair_coeff_f, float,
                     VS_PAIR_BRANCH_F_)

#endif
