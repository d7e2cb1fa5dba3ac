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
 *   cosine_squared E = K (cos theta - cos theta0)^2   (no factor 1/2, as LAMMPS cosine/squared)
 *   table bond and angle: E(r), E(theta) from a cubic spline of a file's values (table.h);
 *   a bond outside its table stops the run (VS_BONDED_TABLE), an angle table spans [0, pi]
 * F_a = -dE/dr1, F_c = -dE/dr2, F_b = -(F_a + F_c). theta comes from atan2(|r1 x r2|, r1.r2),
 * accurate at 0 and pi where acos is not; the 1/sin theta of the harmonic form is bounded
 * below (at a straight angle the gradient of cos theta vanishes with it), so no NaN there.
 *
 * A dihedral a-b-c-d turns about the axis b-c: b1 = x_b - x_a, b2 = x_c - x_b, b3 = x_d - x_c,
 * phi the angle between the planes (a, b, c) and (b, c, d) with the IUPAC sign and LAMMPS's
 * convention: phi = 180 degrees trans, 0 cis, positive when, looking from b along b2, the bond
 * b-a must turn clockwise to cover c-d. phi = atan2(|b2| b1.(b2 x b3), (b1 x b2).(b2 x b3)).
 *   periodic       E = K (1 + cos(n phi - delta))       (no 1/2; LAMMPS charmm with w = 0)
 *   harmonic       E = K/2 (phi - phi0)^2, phi - phi0 wrapped into [-pi, pi)
 *                                                       (LAMMPS quadratic with K/2)
 *   multi_harmonic E = sum_{k=0..4} A_k cos^k phi       (LAMMPS multi/harmonic A1..A5)
 *   table          E(phi), a periodic cubic spline over [-pi, pi]
 * The forces are -dE/dphi times the gradients of phi in the form of Blondel and Karplus
 * (J. Comput. Chem. 17, 1132 (1996); Bekker's): with F = x_a - x_b, G = x_b - x_c,
 * H = x_d - x_c, A = F x G, B = H x G,
 *   dphi/dx_a = -|G|/A^2 A,   dphi/dx_d = |G|/B^2 B,
 *   dphi/dx_b = |G|/A^2 A + (F.G)/(A^2 |G|) A - (H.G)/(B^2 |G|) B,   dphi/dx_c = the rest,
 * which sum to zero and exert no torque, with no division by sin phi (no singularity at 0 or
 * 180 degrees). Where a, b, c or b, c, d are collinear phi is undefined: the force is zero.
 */
#ifndef VESICA_BONDED_H
#define VESICA_BONDED_H

#include <math.h>
#include <stdint.h>

#include "hostdevice.h"
#include "params.h"
#include "table.h"

/* Why a bonded interaction could not be evaluated; each stops the run (vs_bonded_fail). */
enum {
    VS_BONDED_OK = 0,
    VS_BONDED_MISSING = 1, /* a partner is neither owned nor a ghost */
    VS_BONDED_FENE = 2,    /* a FENE bond at or beyond R0 */
    VS_BONDED_REACH = 3,   /* a bond longer than prm->molecules.bond_reach */
    VS_BONDED_TABLE = 4    /* a bond length outside its table (r0: the table's end) */
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

/* p->molecules.code from the bond, angle and dihedral types (styles, parameters, tables'
 * contents): a physics key (physics_keys.h), so a restart refuses changed bonded parameters
 * as it refuses a changed dpd.gamma. 52 bits, exact as a double; 0 when p has no types. */
void vs_bonded_set_code(vs_params *p);

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

/* Bond of type `b` (any style, tables included) at squared length r2, as vs_bond_eval.
 * Returns VS_BONDED_OK, VS_BONDED_FENE (at or beyond R0) or VS_BONDED_TABLE (outside the
 * table: no force). */
VS_HOST_DEVICE int vs_bond_eval_type(const vs_bond_type *b, double r2, double *fscal,
                                     double *e)
{
    if (b->style != VS_BOND_TABLE)
        return vs_bond_eval(b->style, b->K, b->r0, r2, fscal, e) ? VS_BONDED_FENE
                                                                  : VS_BONDED_OK;
    const double r = sqrt(r2);
    double dEdr;
    if (vs_table_eval(&b->tab, r, e, &dEdr)) {
        *fscal = 0.0;
        return VS_BONDED_TABLE;
    }
    *fscal = r > 0.0 ? -dEdr / r : 0.0;
    return VS_BONDED_OK;
}

/* Angle of type `at` with vertex vectors r1 = x_a - x_b, r2 = x_c - x_b: forces on the end
 * beads in fa and fc (the vertex takes -(fa + fc)); returns the energy. */
VS_HOST_DEVICE double vs_angle_eval_type(const vs_angle_type *at, const double r1[3],
                                         const double r2[3], double fa[3], double fc[3])
{
    const int style = at->style;
    const double K = at->K, theta0 = at->theta0;
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
    } else if (style == VS_ANGLE_COSINE_SQUARED) {
        const double dc = c - cos(theta0);
        e = K * dc * dc;
        dEdc = 2.0 * K * dc;
    } else {
        double s = cross * inv12; /* sin theta >= 0 */
        if (s < 1e-12)
            s = 1e-12;
        double dEdth;
        if (style == VS_ANGLE_TABLE) { /* the table spans [0, pi]: theta is always inside */
            vs_table_eval(&at->tab, theta, &e, &dEdth);
        } else {
            const double dth = theta - theta0;
            e = 0.5 * K * dth * dth;
            dEdth = K * dth;
        }
        dEdc = -dEdth / s; /* dtheta/dc = -1 / sin theta */
    }
    /* dc/dr1 = r2 / (n1 n2) - c r1 / n1^2, and the same with 1 and 2 exchanged */
    for (int k = 0; k < 3; ++k) {
        fa[k] = -dEdc * (r2[k] * inv12 - c * r1[k] / n1s);
        fc[k] = -dEdc * (r1[k] * inv12 - c * r2[k] / n2s);
    }
    return e;
}

/* The same for an analytic style given by its parameters. */
VS_HOST_DEVICE double vs_angle_eval(int style, double K, double theta0, const double r1[3],
                                    const double r2[3], double fa[3], double fc[3])
{
    vs_angle_type at;
    at.style = style;
    at.K = K;
    at.theta0 = theta0;
    at.tab.n = 0;
    at.tab.lo = at.tab.dx = 0.0;
    at.tab.coef = 0;
    return vs_angle_eval_type(&at, r1, r2, fa, fc);
}

/* The energy of dihedral type `t` at angle phi (radians, in (-pi, pi]) given as its cosine
 * and sine, and dE/dphi in *dEdphi. */
VS_HOST_DEVICE double vs_dihedral_energy(const vs_dihedral_type *t, double phi, double c,
                                         double s, double *dEdphi)
{
    if (t->style == VS_DIHEDRAL_HARMONIC) {
        double d = phi - t->phi0;
        const double pi = 3.14159265358979323846;
        d -= 2.0 * pi * floor((d + pi) / (2.0 * pi)); /* into [-pi, pi) */
        *dEdphi = t->K * d;
        return 0.5 * t->K * d * d;
    }
    if (t->style == VS_DIHEDRAL_TABLE) { /* the table spans [-pi, pi]: phi is inside */
        double e;
        vs_table_eval(&t->tab, phi, &e, dEdphi);
        return e;
    }
    if (t->style == VS_DIHEDRAL_MULTI_HARMONIC) {
        double e = 0.0, de = 0.0, ck = 1.0; /* ck = c^k */
        for (int k = 0; k < VS_DIHEDRAL_TERMS; ++k) {
            e += t->A[k] * ck;
            if (k + 1 < VS_DIHEDRAL_TERMS)
                de += (double)(k + 1) * t->A[k + 1] * ck;
            ck *= c;
        }
        *dEdphi = -s * de; /* dc/dphi = -sin phi */
        return e;
    }
    const double arg = (double)t->n * phi - t->phi0;
    *dEdphi = -t->K * (double)t->n * sin(arg);
    return t->K * (1.0 + cos(arg));
}

/* Dihedral of type `t` with bond vectors b1 = x_b - x_a, b2 = x_c - x_b, b3 = x_d - x_c:
 * the forces on a, b, c, d in f[0..3]; returns the energy, the dihedral angle in *phi and the
 * virial sum_q (x_q - x_b) . f_q in *virial. */
VS_HOST_DEVICE double vs_dihedral_eval(const vs_dihedral_type *t, const double b1[3],
                                       const double b2[3], const double b3[3], double f[4][3],
                                       double *phi, double *virial)
{
    double F[3], G[3], A[3], B[3];
    for (int k = 0; k < 3; ++k) {
        F[k] = -b1[k];
        G[k] = -b2[k];
    }
    /* A = F x G = b1 x b2, B = H x G = b2 x b3 */
    A[0] = b1[1] * b2[2] - b1[2] * b2[1];
    A[1] = b1[2] * b2[0] - b1[0] * b2[2];
    A[2] = b1[0] * b2[1] - b1[1] * b2[0];
    B[0] = b2[1] * b3[2] - b2[2] * b3[1];
    B[1] = b2[2] * b3[0] - b2[0] * b3[2];
    B[2] = b2[0] * b3[1] - b2[1] * b3[0];
    const double A2 = A[0] * A[0] + A[1] * A[1] + A[2] * A[2];
    const double B2 = B[0] * B[0] + B[1] * B[1] + B[2] * B[2];
    const double G2 = G[0] * G[0] + G[1] * G[1] + G[2] * G[2];
    const double F2 = F[0] * F[0] + F[1] * F[1] + F[2] * F[2];
    const double H2 = b3[0] * b3[0] + b3[1] * b3[1] + b3[2] * b3[2];
    const double g = sqrt(G2);
    /* x = A.B, y = |G| b1.(b2 x b3) = |G| b1.B: both |A||B| times cos phi, sin phi */
    const double x = A[0] * B[0] + A[1] * B[1] + A[2] * B[2];
    const double y = g * (b1[0] * B[0] + b1[1] * B[1] + b1[2] * B[2]);
    const double ang = atan2(y, x);
    const double norm = sqrt(x * x + y * y);
    *phi = ang;
    /* collinear a, b, c or b, c, d (sin^2 of a bond angle below 1e-24): phi undefined */
    const int degenerate = !(A2 > 1e-24 * F2 * G2) || !(B2 > 1e-24 * H2 * G2) || !(g > 0.0);
    double dEdphi;
    const double e = vs_dihedral_energy(t, ang, degenerate ? 1.0 : x / norm,
                                        degenerate ? 0.0 : y / norm, &dEdphi);
    if (degenerate) {
        for (int q = 0; q < 4; ++q)
            f[q][0] = f[q][1] = f[q][2] = 0.0;
        *virial = 0.0;
        return e;
    }
    const double fg = F[0] * G[0] + F[1] * G[1] + F[2] * G[2];
    const double hg = b3[0] * G[0] + b3[1] * G[1] + b3[2] * G[2];
    const double ca = g / A2, cb = g / B2, cfa = fg / (A2 * g), chb = hg / (B2 * g);
    *virial = 0.0;
    for (int k = 0; k < 3; ++k) {
        const double da = -ca * A[k], dd = cb * B[k];
        const double db = ca * A[k] + cfa * A[k] - chb * B[k];
        f[0][k] = -dEdphi * da;
        f[1][k] = -dEdphi * db;
        f[3][k] = -dEdphi * dd;
        f[2][k] = -(f[0][k] + f[1][k] + f[3][k]);
        /* x_a - x_b = F, x_c - x_b = b2, x_d - x_b = b2 + b3 */
        *virial += F[k] * f[0][k] + b2[k] * f[2][k] + (b2[k] + b3[k]) * f[3][k];
    }
    return e;
}

/* A bonded term's virial tensor, times `share` (its bead's part): share sum_q rel_q,a f_q,b
 * over its n beads q of position rel_q (relative to any one point: the forces sum to zero)
 * and force f_q, in the order of observables.h's VS_T_* (xx, yy, zz, xy, xz, yz). */
VS_HOST_DEVICE void vs_bonded_tensor(int n, const double rel[][3], const double f[][3],
                                     double share, double t[6])
{
    const int ab[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
    for (int k = 0; k < 6; ++k) {
        double w = 0.0;
        for (int q = 0; q < n; ++q)
            w += rel[q][ab[k][0]] * f[q][ab[k][1]];
        t[k] = share * w;
    }
}

#endif
