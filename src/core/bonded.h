/* Bonded interactions, written once for host and device (hostdevice.h).
 *
 * Conventions (docs/configuration.md, "Molecules"): d = x_i - x_j is the bond vector seen from
 * bead i, r = |d|; the force on i is fscal * d and on j the opposite.
 *   harmonic bond  E = K/2 (r - r0)^2                 F_i = -K (r - r0) d / r
 *   fene bond      E = -K R0^2/2 ln(1 - (r/R0)^2)     F_i = -K d / (1 - (r/R0)^2), r < R0
 * An angle a-b-c has its vertex at b: r1 = x_a - x_b, r2 = x_c - x_b, theta the angle between
 * them (pi: a straight chain), c = cos theta.
 *   harmonic angle E = K/2 (theta - theta0)^2
 *   cosine angle   E = K (1 + cos theta)              (minimum at theta = pi)
 * F_a = -dE/dr1, F_c = -dE/dr2, F_b = -(F_a + F_c). theta comes from atan2(|r1 x r2|, r1.r2),
 * accurate at 0 and pi where acos is not; the 1/sin theta of the harmonic form is bounded
 * below (at a straight angle the gradient of cos theta vanishes with it), so no NaN there.
 */
#ifndef VESICA_BONDED_H
#define VESICA_BONDED_H

#include <math.h>
#include <stdint.h>

#include "hostdevice.h"
#include "params.h"

/* Why a bonded interaction could not be evaluated; each stops the run (vs_bonded_fail). */
enum {
    VS_BONDED_OK = 0,
    VS_BONDED_MISSING = 1, /* a partner is neither owned nor a ghost */
    VS_BONDED_FENE = 2,    /* a FENE bond at or beyond R0 */
    VS_BONDED_REACH = 3    /* a bond longer than prm->bond_reach */
};

/* Stop the run (exit 1) with failure `kind` of the bond between beads tag_a and tag_b at
 * `step`: r the bond length (FENE, reach), r0 the FENE R0. One wording for both backends (the
 * GPU reports what its kernels recorded, src/core/bonded.c). */
#ifdef __cplusplus
[[noreturn]]
#else
_Noreturn
#endif
void vs_bonded_fail(const vs_params *prm, int kind, int64_t step, int64_t tag_a,
                    int64_t tag_b, double r, double r0);

/* Bond of style `style` at squared length r2: the energy in *e and the force factor in
 * *fscal (F_i = fscal * d). Returns 0, or 1 when a FENE bond is at or beyond R0 (no force). */
VS_HOST_DEVICE int vs_bond_eval(int style, double K, double r0, double r2, double *fscal,
                                double *e)
{
    if (style == VS_BOND_FENE) {
        const double q = r2 / (r0 * r0);
        if (!(q < 1.0)) {
            *fscal = 0.0;
            *e = 0.0;
            return 1;
        }
        *fscal = -K / (1.0 - q);
        *e = -0.5 * K * r0 * r0 * log(1.0 - q);
        return 0;
    }
    const double r = sqrt(r2);
    const double dr = r - r0;
    *fscal = r > 0.0 ? -K * dr / r : 0.0;
    *e = 0.5 * K * dr * dr;
    return 0;
}

/* Angle of style `style` with vertex vectors r1 = x_a - x_b, r2 = x_c - x_b: forces on the
 * end beads in fa and fc (the vertex takes -(fa + fc)); returns the energy. */
VS_HOST_DEVICE double vs_angle_eval(int style, double K, double theta0, const double r1[3],
                                    const double r2[3], double fa[3], double fc[3])
{
    const double n1s = r1[0] * r1[0] + r1[1] * r1[1] + r1[2] * r1[2];
    const double n2s = r2[0] * r2[0] + r2[1] * r2[1] + r2[2] * r2[2];
    const double n1 = sqrt(n1s), n2 = sqrt(n2s);
    const double dot = r1[0] * r2[0] + r1[1] * r2[1] + r1[2] * r2[2];
    const double cx = r1[1] * r2[2] - r1[2] * r2[1], cy = r1[2] * r2[0] - r1[0] * r2[2],
                 cz = r1[0] * r2[1] - r1[1] * r2[0];
    const double cross = sqrt(cx * cx + cy * cy + cz * cz);
    const double theta = atan2(cross, dot);
    const double inv12 = 1.0 / (n1 * n2);
    const double c = dot * inv12;
    double dEdc, e;
    if (style == VS_ANGLE_COSINE) {
        e = K * (1.0 + c);
        dEdc = K;
    } else {
        const double dth = theta - theta0;
        double s = cross * inv12; /* sin theta >= 0 */
        if (s < 1e-12)
            s = 1e-12;
        e = 0.5 * K * dth * dth;
        dEdc = -K * dth / s; /* dtheta/dc = -1 / sin theta */
    }
    /* dc/dr1 = r2 / (n1 n2) - c r1 / n1^2, and the same with 1 and 2 exchanged */
    for (int k = 0; k < 3; ++k) {
        fa[k] = -dEdc * (r2[k] * inv12 - c * r1[k] / n1s);
        fc[k] = -dEdc * (r1[k] * inv12 - c * r2[k] / n2s);
    }
    return e;
}

#endif
