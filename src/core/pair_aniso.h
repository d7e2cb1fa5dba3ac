/* The soft anisotropic pair potentials of Li, Lu and co-workers as GALAMOST gives them (Zhu
 * et al., J. Comput. Chem. 34, 2197, 2013, eqs. 13-18), written once for the CPU backend
 * and the CUDA kernels: energy, force and the orientation gradient ("torque") on both
 * particles of one pair.
 *
 * Geometry: R = r_i - r_j, r = |R| / rc (< 1), e = R / |R|, a = n_i . e, b = n_j . e.
 *   disk      U = (alpha/2) (1 - mu F) (1 - r)^2,  F = |a b|^nu
 *   rod       U = (alpha/2) (1 - mu F) (1 - r)^2,  F = (sin th_i sin th_j)^nu
 *                                                  = ((1 - a^2)(1 - b^2))^(nu/2)
 *   janus     U = (alpha_R/2) (1 - r)^2 - F (alpha_A/2) (r - r^2),  F = f^nu,
 *             f = cos(pi th_i / (2 beta)) cos(pi th_j / (2 beta)) when cos th_i >= cos beta
 *             and cos th_j >= cos beta, else 0; cos th_i = n_i . (r_j - r_i)/|R| = -a,
 *             cos th_j = n_j . R/|R| = b (the patches face each other at f = 1)
 *   triblock  as janus with th' = arccos(|cos th|) for both (a patch at each pole)
 * The disk's factor is taken as |a b|^nu: a disk is the same disk under n -> -n and a
 * non-integer power of a negative number is undefined; for even nu it is the paper's f^nu.
 *
 * With U = U(r, a, b) the derivatives the evaluator returns are, exactly,
 *   force on i    F_i = -dU/dR = -(U_r / rc) e - U_a (n_i - a e)/|R| - U_b (n_j - b e)/|R|,
 *                 on j: -F_i;
 *   gradients     g_i = -dU/dn_i = -U_a e,  g_j = -dU/dn_j = -U_b e
 * (n_i taken as a free vector: only the component of g perpendicular to n enters the
 * rotation, dn/dt = u, du/dt = g_perp / I + lambda n; the physical torque is n x g). The
 * pair virial is R . F_i. Edges of the model, not of the code: for nu < 1 the derivative of
 * F grows without bound where F -> 0 (the Janus patch edge, a disk or rod factor at zero);
 * there the evaluator returns what the formula gives (inf or a large number).
 *
 * Bitwise symmetry: the pair seen from j (R -> -R, n_i <-> n_j) gives exactly the opposite
 * force and the gradients swapped, so that an owned-ghost pair computed on both owners'
 * ranks adds exact opposites (runs bit-identical on any rank count). Every expression below
 * is written so that swapping the particles only swaps the factors of commutative two-term
 * products and sums and flips exact signs; a compiler that fuses a * b + c * d into one
 * multiply-add breaks it (the CPU build does not; the CUDA port must round the products
 * apart, vs_mul_rn, or compile with -fmad=false).
 *
 * The same algebra in float (vs_aniso_eval_f, the GPU's mixed mode) is symmetric in the
 * same way: the argument holds for any precision whose products are rounded apart.
 */
#ifndef VESICA_PAIR_ANISO_H
#define VESICA_PAIR_ANISO_H

#include <math.h>

#include "hostdevice.h"

/* The model (aniso.style). */
typedef enum {
    VS_ANISO_NONE = 0,
    VS_ANISO_DISK = 1,
    VS_ANISO_ROD = 2,
    VS_ANISO_JANUS = 3,
    VS_ANISO_TRIBLOCK = 4
} vs_aniso_style;

/* One species pair's coefficients (aniso.coeff.I.J), derived constants included. */
typedef struct {
    int on;          /* 0: the pair has no anisotropic interaction */
    int pad;
    double rc;       /* cut-off (length units); r = |R| / rc */
    double alpha;    /* disk, rod: alpha; janus, triblock: alpha_R */
    double alpha_a;  /* janus, triblock: alpha_A */
    double mu;       /* disk, rod: shape */
    double nu;       /* the angular exponent */
    double beta;     /* janus: the Janus balance in radians, (0, pi]; triblock: (0, pi/2] */
    double cos_beta; /* derived: cos(beta) */
    double k;        /* derived: pi / (2 beta) */
} vs_aniso_coeff;

/* The pair's functions are generated for double (the CPU reference and the GPU `double`
 * mode) and for float (the GPU `mixed` mode) from one body, as dpd_pair.h's; the
 * coefficients stay double and are converted where used. Every literal is cast to REAL so
 * the float body computes in float throughout (the double body is the same expressions).
 *
 * vs_aniso_result: what one pair gives: force on i (on j: the opposite), gradients on i and
 * j, energy and virial.
 * vs_aniso_sin_ratio: sin(k th) / sin(th) for th in [0, beta] (k = pi / (2 beta) >= 1/2):
 * k at th = 0, its limit; beta = pi (janus) lets th reach pi, where the ratio grows without
 * bound (the patch's edge at the back pole, an edge of the model).
 * vs_aniso_patch: the Janus patch factor of one particle, h = cos(k th) with cos th = cth,
 * and dh/dcth; 0, 0 outside the patch (cth < cos beta). `two`: the triblock form,
 * th = arccos |cth|.
 * vs_aniso_factor: the factor F and its partial derivatives F_a, F_b of the model at (a, b).
 * vs_aniso_eval: the pair at separation R = r_i - r_j (0 < |R| < c->rc) with orientations
 * ni, nj. */
#define VS_ANISO_DEFINE(SUFFIX, REAL, SQRT, SIN, COS, ACOS, POW, FABS, FMAX)                  \
    typedef struct {                                                                           \
        REAL f[3];                                                                             \
        REAL gi[3], gj[3];                                                                     \
        REAL energy, virial;                                                                   \
    } vs_aniso_result##SUFFIX;                                                                 \
                                                                                               \
    VS_HOST_DEVICE REAL vs_aniso_sin_ratio##SUFFIX(REAL k, REAL th)                            \
    {                                                                                          \
        const REAL s = SIN(th);                                                                \
        return s > (REAL)1e-7 || th > (REAL)1.0                                                \
                   ? SIN(k * th) / s                                                           \
                   : k * ((REAL)1.0 - (k * k - (REAL)1.0) * th * th / (REAL)6.0);              \
    }                                                                                          \
                                                                                               \
    VS_HOST_DEVICE void vs_aniso_patch##SUFFIX(const vs_aniso_coeff *c, REAL cth, int two,     \
                                               REAL *h, REAL *dh)                              \
    {                                                                                          \
        const REAL sgn = (two && cth < (REAL)0.0) ? (REAL)-1.0 : (REAL)1.0;                    \
        REAL x = sgn * cth;                                                                    \
        if (x < (REAL)c->cos_beta) {                                                           \
            *h = (REAL)0.0;                                                                    \
            *dh = (REAL)0.0;                                                                   \
            return;                                                                            \
        }                                                                                      \
        if (x > (REAL)1.0)                                                                     \
            x = (REAL)1.0;                                                                     \
        const REAL k = (REAL)c->k;                                                             \
        const REAL th = ACOS(x);                                                               \
        *h = COS(k * th);                                                                      \
        /* d cos(k th)/dx = k sin(k th) / sin(th) */                                           \
        *dh = sgn * k * vs_aniso_sin_ratio##SUFFIX(k, th);                                     \
    }                                                                                          \
                                                                                               \
    VS_HOST_DEVICE void vs_aniso_factor##SUFFIX(int style, const vs_aniso_coeff *c, REAL a,    \
                                                REAL b, REAL *F, REAL *Fa, REAL *Fb)           \
    {                                                                                          \
        const REAL nu = (REAL)c->nu;                                                           \
        if (style == VS_ANISO_DISK) {                                                          \
            const REAL ab = a * b, m = FABS(ab);                                               \
            /* d|ab|^nu / d(ab) / nu */                                                        \
            const REAL p1 = POW(m, nu - (REAL)1.0) * (ab < (REAL)0.0 ? (REAL)-1.0 : (REAL)1.0); \
            *F = POW(m, nu);                                                                   \
            *Fa = nu * p1 * b;                                                                 \
            *Fb = nu * p1 * a;                                                                 \
        } else if (style == VS_ANISO_ROD) {                                                    \
            const REAL sa = FMAX((REAL)1.0 - a * a, (REAL)0.0);                                \
            const REAL sb = FMAX((REAL)1.0 - b * b, (REAL)0.0);                                \
            const REAL ha = POW(sa, (REAL)0.5 * nu), hb = POW(sb, (REAL)0.5 * nu);             \
            *F = ha * hb;                                                                      \
            *Fa = -nu * a * POW(sa, (REAL)0.5 * nu - (REAL)1.0) * hb;                          \
            *Fb = -nu * b * POW(sb, (REAL)0.5 * nu - (REAL)1.0) * ha;                          \
        } else {                                                                               \
            const int two = style == VS_ANISO_TRIBLOCK;                                        \
            REAL hi, dhi, hj, dhj;                                                             \
            vs_aniso_patch##SUFFIX(c, -a, two, &hi, &dhi);                                     \
            vs_aniso_patch##SUFFIX(c, b, two, &hj, &dhj);                                      \
            const REAL f = hi * hj;                                                            \
            if (!(f > (REAL)0.0)) {                                                            \
                *F = *Fa = *Fb = (REAL)0.0;                                                    \
                return;                                                                        \
            }                                                                                  \
            const REAL p = POW(f, nu - (REAL)1.0), np = nu * p;                                \
            *F = p * f;                                                                        \
            /* each particle's derivative in the same grouping, so the pair seen from j gives  \
             * the same bits (cos th_i = -a) */                                                \
            *Fa = -(np * (dhi * hj));                                                          \
            *Fb = np * (hi * dhj);                                                             \
        }                                                                                      \
    }                                                                                          \
                                                                                               \
    VS_HOST_DEVICE vs_aniso_result##SUFFIX vs_aniso_eval##SUFFIX(                              \
        int style, const vs_aniso_coeff *c, const REAL R[3], const REAL ni[3],                 \
        const REAL nj[3])                                                                      \
    {                                                                                          \
        vs_aniso_result##SUFFIX out;                                                           \
        const REAL rc = (REAL)c->rc, alpha = (REAL)c->alpha, alpha_a = (REAL)c->alpha_a;       \
        const REAL mu = (REAL)c->mu;                                                           \
        const REAL d = SQRT(R[0] * R[0] + R[1] * R[1] + R[2] * R[2]);                          \
        const REAL inv_d = (REAL)1.0 / d;                                                      \
        const REAL e[3] = {R[0] * inv_d, R[1] * inv_d, R[2] * inv_d};                          \
        const REAL r = d / rc, w = (REAL)1.0 - r;                                              \
        const REAL a = ni[0] * e[0] + ni[1] * e[1] + ni[2] * e[2];                             \
        const REAL b = nj[0] * e[0] + nj[1] * e[1] + nj[2] * e[2];                             \
        REAL F, Fa, Fb;                                                                        \
        vs_aniso_factor##SUFFIX(style, c, a, b, &F, &Fa, &Fb);                                 \
        REAL U, Ur, UF; /* U, dU/dr at fixed F, dU/dF */                                       \
        if (style == VS_ANISO_DISK || style == VS_ANISO_ROD) {                                 \
            const REAL rep = (REAL)0.5 * alpha * w * w;                                        \
            U = rep * ((REAL)1.0 - mu * F);                                                    \
            Ur = -alpha * w * ((REAL)1.0 - mu * F);                                            \
            UF = -mu * rep;                                                                    \
        } else {                                                                               \
            const REAL att = (REAL)0.5 * alpha_a * (r - r * r);                                \
            U = (REAL)0.5 * alpha * w * w - F * att;                                           \
            Ur = -alpha * w - F * (REAL)0.5 * alpha_a * ((REAL)1.0 - (REAL)2.0 * r);           \
            UF = -att;                                                                         \
        }                                                                                      \
        const REAL Ua = UF * Fa, Ub = UF * Fb;                                                 \
        /* F_i = -(Ur/rc) e - Ua (ni - a e)/d - Ub (nj - b e)/d */                             \
        const REAL radial = -Ur / rc + (Ua * a + Ub * b) * inv_d;                              \
        for (int q = 0; q < 3; ++q) {                                                          \
            out.f[q] = radial * e[q] - (Ua * ni[q] + Ub * nj[q]) * inv_d;                      \
            out.gi[q] = -Ua * e[q];                                                            \
            out.gj[q] = -Ub * e[q];                                                            \
        }                                                                                      \
        out.energy = U;                                                                        \
        out.virial = R[0] * out.f[0] + R[1] * out.f[1] + R[2] * out.f[2];                      \
        return out;                                                                            \
    }

VS_ANISO_DEFINE(, double, sqrt, sin, cos, acos, pow, fabs, fmax)
VS_ANISO_DEFINE(_f, float, sqrtf, sinf, cosf, acosf, powf, fabsf, fmaxf)

/* The derived constants of a pair from its given ones (beta in radians). */
static inline void vs_aniso_coeff_finish(vs_aniso_coeff *c)
{
    c->cos_beta = c->beta > 0.0 ? cos(c->beta) : 1.0;
    c->k = c->beta > 0.0 ? 1.5707963267948966 / c->beta : 0.0;
}

#endif
