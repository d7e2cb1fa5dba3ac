/* Unit tests of the dihedral evaluators and the cosine_squared angle (src/core/bonded.h).
 *
 * - every dihedral style: the force on each of the four beads is minus the numerical
 *   derivative (central differences) of the energy, on random geometries and on geometries
 *   within 1e-3 to 1e-6 rad of collinear (where the gradient of phi grows as 1/sin);
 * - the four forces sum to zero and exert no torque; the virial is sum_q x_q . f_q;
 * - the sign of phi (IUPAC, LAMMPS): 0 cis, 180 trans, +90 when the far bond is turned
 *   clockwise seen from b along b -> c; exactly collinear beads give zero force, no NaN;
 * - Xu et al. (the united-atom polyethylene of their Table I: k_phi = 4.184 kJ/mol, n = 3,
 *   phi_s = 0, E = k_phi (1 + cos(n phi - phi_s))): the staggered conformations (trans 180,
 *   gauche +-60) have E = 0 and the eclipsed ones (0, +-120) E = 2 k_phi = 8.368 kJ/mol, and
 *   the same series written as multi_harmonic (A = k (1, -3, 0, 4, 0), from
 *   cos 3 phi = 4 cos^3 phi - 3 cos phi) gives the same energies and forces;
 * - harmonic: phi - phi0 wraps through +-180 degrees;
 * - cosine_squared angle: minus the numerical derivative, E = K (cos theta - cos theta0)^2.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bonded.h"
#include "test_support.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double eval(const vs_dihedral_type *t, const double x[4][3], double f[4][3],
                   double *phi, double *virial)
{
    double b[3][3];
    for (int q = 0; q < 3; ++q)
        for (int k = 0; k < 3; ++k)
            b[q][k] = x[q + 1][k] - x[q][k];
    return vs_dihedral_eval(t, b[0], b[1], b[2], f, phi, virial);
}

static double energy(const vs_dihedral_type *t, const double x[4][3])
{
    double f[4][3], phi, w;
    return eval(t, x, f, &phi, &w);
}

/* Forces against central differences with step h; the tolerance is relative to the largest
 * force component. Also: no net force, no torque, the virial. */
static void check_forces(const vs_dihedral_type *t, double x[4][3], double h)
{
    double f[4][3], phi, virial;
    eval(t, x, f, &phi, &virial);
    double fmaxabs = 1e-300, net[3] = {0, 0, 0}, torque[3] = {0, 0, 0}, w = 0.0;
    for (int q = 0; q < 4; ++q)
        for (int k = 0; k < 3; ++k) {
            fmaxabs = fmax(fmaxabs, fabs(f[q][k]));
            net[k] += f[q][k];
            w += (x[q][k] - x[1][k]) * f[q][k];
        }
    for (int q = 0; q < 4; ++q) {
        torque[0] += x[q][1] * f[q][2] - x[q][2] * f[q][1];
        torque[1] += x[q][2] * f[q][0] - x[q][0] * f[q][2];
        torque[2] += x[q][0] * f[q][1] - x[q][1] * f[q][0];
    }
    for (int k = 0; k < 3; ++k) {
        VS_ASSERT_NEAR(net[k], 0.0, 1e-12 * fmaxabs);
        VS_ASSERT_NEAR(torque[k], 0.0, 1e-11 * fmaxabs);
    }
    VS_ASSERT_NEAR(virial, w, 1e-11 * fmax(1.0, fabs(w)) * fmaxabs);
    for (int q = 0; q < 4; ++q)
        for (int k = 0; k < 3; ++k) {
            double d[2];
            for (int s = 0; s < 2; ++s) { /* steps h and h/2, Richardson-extrapolated */
                const double hs = s ? 0.5 * h : h, keep = x[q][k];
                x[q][k] = keep + hs;
                const double ep = energy(t, x);
                x[q][k] = keep - hs;
                const double em = energy(t, x);
                x[q][k] = keep;
                d[s] = -(ep - em) / (2.0 * hs);
            }
            const double numeric = (4.0 * d[1] - d[0]) / 3.0;
            if (!(fabs(f[q][k] - numeric) <= 1e-6 * fmax(fmaxabs, 1e-3)))
                print_message("phi %.6f deg, bead %d, component %d, h %g\n", phi / DEG, q, k, h);
            VS_ASSERT_NEAR(f[q][k], numeric, 1e-6 * fmax(fmaxabs, 1e-3));
        }
}

static void random_unit(double u[3])
{
    const double z = 2.0 * urand() - 1.0, a = 2.0 * PI * urand();
    u[0] = sqrt(1.0 - z * z) * cos(a);
    u[1] = sqrt(1.0 - z * z) * sin(a);
    u[2] = z;
}

/* A chain of four beads with bond lengths in [0.5, 1.5) and random directions. */
static void random_chain(double x[4][3])
{
    for (int k = 0; k < 3; ++k)
        x[0][k] = urand();
    for (int q = 1; q < 4; ++q) {
        double u[3];
        random_unit(u);
        const double len = 0.5 + urand();
        for (int k = 0; k < 3; ++k)
            x[q][k] = x[q - 1][k] + len * u[k];
    }
}

/* A chain whose bond angle at b (end = 0) or at c (end = 1) is within eps of 0 or pi. */
static void near_collinear_chain(double x[4][3], double eps, int end, int straight)
{
    random_chain(x);
    const int v = 1 + end;              /* the vertex bent nearly straight */
    double axis[3], n = 0.0;           /* unit vector from x[v] to its inner neighbour */
    const int inner = end ? 1 : 2, outer = end ? 3 : 0;
    for (int k = 0; k < 3; ++k) {
        axis[k] = x[inner][k] - x[v][k];
        n += axis[k] * axis[k];
    }
    n = sqrt(n);
    double perp[3], u[3];
    random_unit(u); /* a unit vector perpendicular to the axis */
    double d = 0.0;
    for (int k = 0; k < 3; ++k)
        d += u[k] * axis[k] / n;
    double pn = 0.0;
    for (int k = 0; k < 3; ++k) {
        perp[k] = u[k] - d * axis[k] / n;
        pn += perp[k] * perp[k];
    }
    pn = sqrt(pn);
    const double len = 0.5 + urand(), sgn = straight ? -1.0 : 1.0;
    for (int k = 0; k < 3; ++k) /* theta = pi - eps (straight) or eps (folded back) */
        x[outer][k] = x[v][k] + len * (sgn * cos(eps) * axis[k] / n + sin(eps) * perp[k] / pn);
}

static vs_dihedral_type periodic(double K, int n, double delta)
{
    vs_dihedral_type t;
    memset(&t, 0, sizeof t);
    t.style = VS_DIHEDRAL_PERIODIC;
    t.K = K;
    t.n = n;
    t.phi0 = delta;
    return t;
}

static vs_dihedral_type harmonic(double K, double phi0)
{
    vs_dihedral_type t = periodic(K, 0, phi0);
    t.style = VS_DIHEDRAL_HARMONIC;
    return t;
}

static vs_dihedral_type multi(const double A[5])
{
    vs_dihedral_type t = periodic(0.0, 0, 0.0);
    t.style = VS_DIHEDRAL_MULTI_HARMONIC;
    for (int k = 0; k < 5; ++k)
        t.A[k] = A[k];
    return t;
}

static void check_style(const vs_dihedral_type *t)
{
    for (int trial = 0; trial < 300; ++trial) {
        double x[4][3];
        random_chain(x);
        check_forces(t, x, 1e-6);
    }
    const double eps[] = {1e-3, 1e-4, 1e-5, 1e-6};
    for (int e = 0; e < 4; ++e)
        for (int trial = 0; trial < 40; ++trial) {
            double x[4][3];
            near_collinear_chain(x, eps[e], trial & 1, (trial >> 1) & 1);
            check_forces(t, x, 1e-3 * eps[e] * 0.5); /* well within the 1/eps scale */
        }
}

/* Four beads with the axis b -> c along +z and the far bond at phi from the near one. */
static void chain_at(double phi_deg, double x[4][3])
{
    const double p = phi_deg * DEG;
    const double pos[4][3] = {{1.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 1.2},
                              {0.9 * cos(p), 0.9 * sin(p), 1.2}};
    memcpy(x, pos, sizeof pos);
}

static void test_dihedral_sign(void **state)
{
    (void)state;
    const vs_dihedral_type t = periodic(1.0, 1, 0.0);
    const double angles[] = {0.0, 60.0, 90.0, -90.0, 179.0, -120.0};
    for (int k = 0; k < 6; ++k) {
        double x[4][3], f[4][3], phi, w;
        chain_at(angles[k], x);
        eval(&t, x, f, &phi, &w);
        VS_ASSERT_NEAR(phi, angles[k] * DEG, 1e-13);
    }
    /* collinear: zero force, finite energy */
    const double line[4][3] = {{0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {1, 0, 2}};
    double f[4][3], phi, w;
    const double e = eval(&t, line, f, &phi, &w);
    assert_true(isfinite(e));
    for (int q = 0; q < 4; ++q)
        for (int k = 0; k < 3; ++k)
            assert_true(f[q][k] == 0.0);
}

static void test_dihedral_periodic(void **state)
{
    (void)state;
    vs_dihedral_type t = periodic(1.7, 3, 20.0 * DEG);
    check_style(&t);
    t = periodic(0.8, 1, -45.0 * DEG);
    check_style(&t);
    t = periodic(2.5, 2, 180.0 * DEG);
    check_style(&t);
}

static void test_dihedral_harmonic(void **state)
{
    (void)state;
    vs_dihedral_type t = harmonic(3.0, -60.0 * DEG);
    check_style(&t);
    /* the difference wraps: phi0 = 170, phi = -170 is 20 degrees away */
    t = harmonic(3.0, 170.0 * DEG);
    double x[4][3], f[4][3], phi, w;
    chain_at(-170.0, x);
    VS_ASSERT_NEAR(eval(&t, x, f, &phi, &w), 0.5 * 3.0 * (20.0 * DEG) * (20.0 * DEG), 1e-12);
}

static void test_dihedral_multi_harmonic(void **state)
{
    (void)state;
    const double A[5] = {1.0, -1.5, 0.4, 2.0, -0.3};
    vs_dihedral_type t = multi(A);
    check_style(&t);
    double x[4][3], f[4][3], phi, w;
    chain_at(75.0, x);
    const double c = cos(75.0 * DEG);
    const double want = A[0] + A[1] * c + A[2] * c * c + A[3] * c * c * c + A[4] * c * c * c * c;
    VS_ASSERT_NEAR(eval(&t, x, f, &phi, &w), want, 1e-13);
}

/* Xu et al., Table I: C32-C32 dihedral, k_phi = 4.184 kJ/mol, phi_s = 0, n = 3. */
static void test_dihedral_xu_polyethylene(void **state)
{
    (void)state;
    const double k = 4.184;
    const vs_dihedral_type t = periodic(k, 3, 0.0);
    const double A[5] = {k, -3.0 * k, 0.0, 4.0 * k, 0.0};
    const vs_dihedral_type series = multi(A);
    const double staggered[] = {180.0, 60.0, -60.0}, eclipsed[] = {0.0, 120.0, -120.0};
    for (int q = 0; q < 3; ++q) {
        double x[4][3], f[4][3], g[4][3], phi, w;
        chain_at(staggered[q], x);
        VS_ASSERT_NEAR(eval(&t, x, f, &phi, &w), 0.0, 1e-12);
        VS_ASSERT_NEAR(eval(&series, x, g, &phi, &w), 0.0, 1e-12);
        chain_at(eclipsed[q], x);
        VS_ASSERT_NEAR(eval(&t, x, f, &phi, &w), 2.0 * k, 1e-12);
        VS_ASSERT_NEAR(eval(&series, x, g, &phi, &w), 8.368, 1e-12);
    }
    /* and at random geometries the series is the same function */
    for (int trial = 0; trial < 200; ++trial) {
        double x[4][3], f[4][3], g[4][3], phi, w;
        random_chain(x);
        const double e1 = eval(&t, x, f, &phi, &w), e2 = eval(&series, x, g, &phi, &w);
        VS_ASSERT_NEAR(e1, e2, 1e-12);
        for (int q = 0; q < 4; ++q)
            for (int c = 0; c < 3; ++c)
                VS_ASSERT_NEAR(f[q][c], g[q][c], 1e-9 * fmax(1.0, fabs(f[q][c])));
    }
}

static double angle_energy(double K, double th0, const double x[3][3])
{
    double r1[3], r2[3], fa[3], fc[3];
    for (int k = 0; k < 3; ++k) {
        r1[k] = x[0][k] - x[1][k];
        r2[k] = x[2][k] - x[1][k];
    }
    return vs_angle_eval(VS_ANGLE_COSINE_SQUARED, K, th0, r1, r2, fa, fc);
}

static void test_angle_cosine_squared(void **state)
{
    (void)state;
    const double K = 4.0, th0 = 112.0 * DEG;
    for (int trial = 0; trial < 300; ++trial) {
        double x[3][3], r1[3], r2[3], fa[3], fc[3];
        for (int b = 0; b < 3; ++b)
            for (int k = 0; k < 3; ++k)
                x[b][k] = urand();
        for (int k = 0; k < 3; ++k) {
            r1[k] = x[0][k] - x[1][k];
            r2[k] = x[2][k] - x[1][k];
        }
        vs_angle_eval(VS_ANGLE_COSINE_SQUARED, K, th0, r1, r2, fa, fc);
        double f[3][3];
        for (int k = 0; k < 3; ++k) {
            f[0][k] = fa[k];
            f[2][k] = fc[k];
            f[1][k] = -(fa[k] + fc[k]);
        }
        const double h = 1e-6;
        for (int b = 0; b < 3; ++b)
            for (int k = 0; k < 3; ++k) {
                const double keep = x[b][k];
                x[b][k] = keep + h;
                const double ep = angle_energy(K, th0, x);
                x[b][k] = keep - h;
                const double em = angle_energy(K, th0, x);
                x[b][k] = keep;
                const double numeric = -(ep - em) / (2 * h);
                VS_ASSERT_NEAR(f[b][k], numeric, 1e-5 * fmax(1.0, fabs(numeric)));
            }
    }
    /* a right angle: E = K (0 - cos theta0)^2; straight and folded: finite */
    const double r1[3] = {1, 0, 0}, r2[3] = {0, 2, 0}, r3[3] = {-2, 0, 0}, r4[3] = {2, 0, 0};
    double fa[3], fc[3];
    VS_ASSERT_NEAR(vs_angle_eval(VS_ANGLE_COSINE_SQUARED, K, th0, r1, r2, fa, fc),
                   K * cos(th0) * cos(th0), 1e-14);
    const double *ends[2] = {r3, r4};
    for (int q = 0; q < 2; ++q) {
        const double e = vs_angle_eval(VS_ANGLE_COSINE_SQUARED, K, th0, r1, ends[q], fa, fc);
        assert_true(isfinite(e));
        for (int k = 0; k < 3; ++k)
            assert_true(isfinite(fa[k]) && isfinite(fc[k]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dihedral_sign),
        cmocka_unit_test(test_dihedral_periodic),
        cmocka_unit_test(test_dihedral_harmonic),
        cmocka_unit_test(test_dihedral_multi_harmonic),
        cmocka_unit_test(test_dihedral_xu_polyethylene),
        cmocka_unit_test(test_angle_cosine_squared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
