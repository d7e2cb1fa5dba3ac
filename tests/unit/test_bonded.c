/* Unit tests of the bonded evaluators (src/core/bonded.h) and the tag map (topology.h).
 *
 * - every style: the force is minus the numerical derivative (central differences) of the
 *   energy, component by component, an independent calculation from the energy alone;
 * - the forces of a bond and of an angle sum to zero (no net force on a molecule) and the
 *   angle's forces exert no torque;
 * - the angle styles at theta within 1e-9 of 0 and of pi give finite forces and energies;
 * - FENE refuses r >= R0;
 * - the tag map finds every inserted tag, keeps the first copy, and misses absent tags.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bonded.h"
#include "test_support.h"
#include "topology.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static double urand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double bond_energy(int style, double K, double r0, const double d[3])
{
    double f, e;
    vs_bond_eval(style, K, r0, d[0] * d[0] + d[1] * d[1] + d[2] * d[2], &f, &e);
    return e;
}

static void check_bond_style(int style, double K, double r0, double rmax)
{
    for (int trial = 0; trial < 200; ++trial) {
        double d[3];
        const double r = 0.05 + (rmax - 0.05) * urand();
        const double z = 2.0 * urand() - 1.0, phi = 6.283185307179586 * urand();
        d[0] = r * sqrt(1 - z * z) * cos(phi);
        d[1] = r * sqrt(1 - z * z) * sin(phi);
        d[2] = r * z;
        double fscal, e;
        assert_int_equal(vs_bond_eval(style, K, r0, r * r, &fscal, &e), 0);
        const double h = 1e-6;
        for (int k = 0; k < 3; ++k) {
            double p[3] = {d[0], d[1], d[2]}, m[3] = {d[0], d[1], d[2]};
            p[k] += h;
            m[k] -= h;
            /* d = x_i - x_j, so dE/dx_i = dE/dd */
            const double numeric = -(bond_energy(style, K, r0, p) - bond_energy(style, K, r0, m)) /
                                   (2 * h);
            VS_ASSERT_NEAR(fscal * d[k], numeric, 1e-6 * fmax(1.0, fabs(numeric)));
        }
    }
}

static void test_bond_harmonic(void **state)
{
    (void)state;
    check_bond_style(VS_BOND_HARMONIC, 80.0, 0.38, 1.5);
    double f, e;
    vs_bond_eval(VS_BOND_HARMONIC, 80.0, 0.38, 0.5 * 0.5, &f, &e);
    VS_ASSERT_NEAR(e, 40.0 * 0.12 * 0.12, 1e-14); /* K/2 (r - r0)^2, the paper's K and r0 */
    VS_ASSERT_NEAR(f * 0.5, -80.0 * 0.12, 1e-13); /* restoring: -K (r - r0) along d */
}

static void test_bond_fene(void **state)
{
    (void)state;
    check_bond_style(VS_BOND_FENE, 30.0, 1.5, 1.45);
    double f, e;
    vs_bond_eval(VS_BOND_FENE, 30.0, 1.5, 1.0, &f, &e);
    VS_ASSERT_NEAR(e, -0.5 * 30.0 * 2.25 * log(1.0 - 1.0 / 2.25), 1e-13);
    assert_int_equal(vs_bond_eval(VS_BOND_FENE, 30.0, 1.5, 1.5 * 1.5, &f, &e), 1);
    assert_int_equal(vs_bond_eval(VS_BOND_FENE, 30.0, 1.5, 4.0, &f, &e), 1);
}

static double angle_energy(int style, double K, double th0, const double x[3][3])
{
    double r1[3], r2[3], fa[3], fc[3];
    for (int k = 0; k < 3; ++k) {
        r1[k] = x[0][k] - x[1][k];
        r2[k] = x[2][k] - x[1][k];
    }
    return vs_angle_eval(style, K, th0, r1, r2, fa, fc);
}

static void random_triple(double x[3][3])
{
    for (int b = 0; b < 3; ++b)
        for (int k = 0; k < 3; ++k)
            x[b][k] = urand();
}

static void check_angle_style(int style, double K, double th0)
{
    for (int trial = 0; trial < 200; ++trial) {
        double x[3][3], r1[3], r2[3], fa[3], fc[3];
        random_triple(x);
        for (int k = 0; k < 3; ++k) {
            r1[k] = x[0][k] - x[1][k];
            r2[k] = x[2][k] - x[1][k];
        }
        vs_angle_eval(style, K, th0, r1, r2, fa, fc);
        double f[3][3];
        double torque[3] = {0, 0, 0};
        for (int k = 0; k < 3; ++k) {
            f[0][k] = fa[k];
            f[2][k] = fc[k];
            f[1][k] = -(fa[k] + fc[k]);
        }
        for (int b = 0; b < 3; ++b) {
            torque[0] += x[b][1] * f[b][2] - x[b][2] * f[b][1];
            torque[1] += x[b][2] * f[b][0] - x[b][0] * f[b][2];
            torque[2] += x[b][0] * f[b][1] - x[b][1] * f[b][0];
        }
        const double h = 1e-6;
        for (int b = 0; b < 3; ++b)
            for (int k = 0; k < 3; ++k) {
                const double keep = x[b][k];
                x[b][k] = keep + h;
                const double ep = angle_energy(style, K, th0, x);
                x[b][k] = keep - h;
                const double em = angle_energy(style, K, th0, x);
                x[b][k] = keep;
                const double numeric = -(ep - em) / (2 * h);
                VS_ASSERT_NEAR(f[b][k], numeric, 1e-5 * fmax(1.0, fabs(numeric)));
            }
        for (int k = 0; k < 3; ++k)
            VS_ASSERT_NEAR(torque[k], 0.0, 1e-9 * fmax(1.0, K));
    }
}

/* theta = pi - eps and eps: finite energies and forces */
static void check_angle_extremes(int style, double K, double th0)
{
    const double eps[] = {1e-9, 1e-12, 0.0};
    for (int q = 0; q < 3; ++q)
        for (int end = 0; end < 2; ++end) {
            const double th = end ? eps[q] : 3.14159265358979323846 - eps[q];
            const double r1[3] = {1.0, 0.0, 0.0};
            const double r2[3] = {0.8 * cos(th), 0.8 * sin(th), 0.0};
            double fa[3], fc[3];
            const double e = vs_angle_eval(style, K, th0, r1, r2, fa, fc);
            assert_true(isfinite(e));
            for (int k = 0; k < 3; ++k)
                assert_true(isfinite(fa[k]) && isfinite(fc[k]));
        }
}

static void test_angle_harmonic(void **state)
{
    (void)state;
    check_angle_style(VS_ANGLE_HARMONIC, 3.0, 150.0 * 3.14159265358979323846 / 180.0);
    check_angle_style(VS_ANGLE_HARMONIC, 5.0, 3.14159265358979323846);
    check_angle_extremes(VS_ANGLE_HARMONIC, 3.0, 2.0);
    check_angle_extremes(VS_ANGLE_HARMONIC, 3.0, 3.14159265358979323846);
    /* a right angle against theta0 = pi: E = K/2 (pi/2)^2 */
    const double r1[3] = {1, 0, 0}, r2[3] = {0, 2, 0};
    double fa[3], fc[3];
    VS_ASSERT_NEAR(vs_angle_eval(VS_ANGLE_HARMONIC, 2.0, 3.14159265358979323846, r1, r2, fa, fc),
                   0.25 * 3.14159265358979323846 * 3.14159265358979323846, 1e-14);
}

static void test_angle_cosine(void **state)
{
    (void)state;
    check_angle_style(VS_ANGLE_COSINE, 2.0, 0.0);
    check_angle_extremes(VS_ANGLE_COSINE, 2.0, 0.0);
    const double r1[3] = {1, 0, 0}, r2[3] = {-3, 0, 0};
    double fa[3], fc[3];
    VS_ASSERT_NEAR(vs_angle_eval(VS_ANGLE_COSINE, 2.0, 0.0, r1, r2, fa, fc), 0.0, 1e-15);
}

static void test_tagmap(void **state)
{
    (void)state;
    vs_tagmap m;
    vs_tagmap_init(&m);
    for (int round = 0; round < 2; ++round) { /* a reset map is as good as new */
        vs_tagmap_reset(&m, 1000);
        for (int64_t i = 0; i < 1000; ++i)
            vs_tagmap_insert(&m, 7919 * i + 3, i);
        vs_tagmap_insert(&m, 3, 5000); /* a second copy of tag 3: the first stays */
        for (int64_t i = 0; i < 1000; ++i)
            assert_int_equal(vs_tagmap_find(m.key, m.val, m.mask, 7919 * i + 3), i);
        assert_int_equal(vs_tagmap_find(m.key, m.val, m.mask, 4), -1);
        assert_int_equal(vs_tagmap_find(m.key, m.val, m.mask, (int64_t)1 << 40), -1);
        assert_int_equal(m.n, 1000);
    }
    vs_tagmap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bond_harmonic), cmocka_unit_test(test_bond_fene),
        cmocka_unit_test(test_angle_harmonic), cmocka_unit_test(test_angle_cosine),
        cmocka_unit_test(test_tagmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
