/* Unit tests of the DPD pair force and of the engine's conservation laws.
 *
 * - F_ij = -F_ji bit for bit for the same pair (the property that lets two ranks compute the
 *   two halves of a split pair without talking);
 * - the conservative force is minus the derivative of its potential U = a r_c w^2 / 2,
 *   checked by central differences (an independent calculation, not the code's own formula);
 * - total momentum of the Groot-Warren fluid is conserved to round-off over 1000 steps;
 * - the weight exponent s enters as w^s in the random and w^(2s) in the dissipative term.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dpd_pair.h"
#include "simulation.h"
#include "tea_rng.h"
#include "test_support.h"

/* A small seeded generator for test inputs (xorshift64*). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static void test_pair_antisymmetric_bitwise(void **state)
{
    (void)state;
    const vs_dpd_consts c = vs_dpd_make_consts(1.0, 4.5, 1.0, 1.0, 0.01);
    const vs_tea_key key = vs_tea_make_key(7, 123);
    for (int k = 0; k < 100000; ++k) {
        double xi_[3], xj[3], vi[3], vj[3];
        for (int d = 0; d < 3; ++d) {
            xi_[d] = 10.0 * urand();
            xj[d] = xi_[d] + (urand() - 0.5) * 1.1;
            vi[d] = urand() - 0.5;
            vj[d] = urand() - 0.5;
        }
        const uint64_t ti = (uint64_t)k, tj = (uint64_t)(k * 7 + 3);
        double dij[3], dji[3];
        for (int d = 0; d < 3; ++d) {
            dij[d] = xi_[d] - xj[d];
            dji[d] = xj[d] - xi_[d];
        }
        const double r2 = dij[0] * dij[0] + dij[1] * dij[1] + dij[2] * dij[2];
        if (r2 >= 1.0 || r2 == 0.0)
            continue;
        const double xa = vs_xi_uniform(vs_pair_bits(key, ti, tj));
        const double xb = vs_xi_uniform(vs_pair_bits(key, tj, ti));
        vs_pair_result a = vs_dpd_pair(&c, r2, dij[0], dij[1], dij[2], vi[0] - vj[0],
                                       vi[1] - vj[1], vi[2] - vj[2], 25.0, xa);
        const double r2b = dji[0] * dji[0] + dji[1] * dji[1] + dji[2] * dji[2];
        vs_pair_result b = vs_dpd_pair(&c, r2b, dji[0], dji[1], dji[2], vj[0] - vi[0],
                                       vj[1] - vi[1], vj[2] - vi[2], 25.0, xb);
        for (int d = 0; d < 3; ++d)
            assert_true(a.f_over_r * dij[d] == -(b.f_over_r * dji[d]));
        assert_true(a.energy == b.energy);
    }
}

static double potential(double a, double rc, double r)
{
    return r < rc ? 0.5 * a * rc * (1.0 - r / rc) * (1.0 - r / rc) : 0.0;
}

static void test_conservative_force_is_gradient(void **state)
{
    (void)state;
    for (int k = 0; k < 1000; ++k) {
        const double rc = 0.8 + 0.5 * urand(), a = 5.0 + 40.0 * urand();
        const vs_dpd_consts c = vs_dpd_make_consts(rc, 0.0, 1.0, 1.0, 0.01);
        const double r = (0.01 + 0.98 * urand()) * rc;
        double dir[3] = {urand() - 0.5, urand() - 0.5, urand() - 0.5};
        const double n = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        double d[3];
        for (int q = 0; q < 3; ++q)
            d[q] = dir[q] / n * r;
        const vs_pair_result res =
            vs_dpd_pair(&c, r * r, d[0], d[1], d[2], 0.0, 0.0, 0.0, a, 0.0);
        const double h = 1e-6 * rc;
        const double dU = (potential(a, rc, r + h) - potential(a, rc, r - h)) / (2.0 * h);
        /* |F| along r_ij equals -dU/dr, and the energy is U itself */
        VS_ASSERT_NEAR(res.f_over_r * r, -dU, 1e-6 * a);
        VS_ASSERT_NEAR(res.energy, potential(a, rc, r), 1e-12 * a);
        VS_ASSERT_NEAR(res.virial, -dU * r, 1e-6 * a);
    }
}

static void test_weight_exponent(void **state)
{
    (void)state;
    /* s = 0.5: dissipative weight w^(2s) = w, random weight w^s = sqrt(w) */
    const double rc = 1.0, gamma = 3.0, kT = 2.0, dt = 0.04, r = 0.36;
    const vs_dpd_consts c = vs_dpd_make_consts(rc, gamma, kT, 0.5, dt);
    const double w = 1.0 - r / rc;
    /* dissipative only: xi = 0, a = 0, approaching pair along x with unit speed */
    vs_pair_result d = vs_dpd_pair(&c, r * r, r, 0, 0, -1.0, 0, 0, 0.0, 0.0);
    VS_ASSERT_NEAR(d.f_over_r * r, gamma * w * 1.0, 1e-14);
    /* random only: v = 0, a = 0, xi = 1 */
    vs_pair_result rr = vs_dpd_pair(&c, r * r, r, 0, 0, 0, 0, 0, 0.0, 1.0);
    VS_ASSERT_NEAR(rr.f_over_r * r, sqrt(2.0 * gamma * kT) * sqrt(w) / sqrt(dt), 1e-12);
}

static void test_momentum_conserved_1000_steps(void **state)
{
    (void)state;
    vs_params prm;
    vs_test_groot_warren(&prm, 6.0);
    vs_sim sim;
    char err[256];
    assert_int_equal(vs_sim_create(&sim, &prm, MPI_COMM_SELF, err, sizeof err), 0);
    vs_sim_start(&sim, err, sizeof err);
    double p0[3] = {0, 0, 0};
    for (int64_t i = 0; i < sim.parts.n_owned; ++i)
        for (int d = 0; d < 3; ++d)
            p0[d] += sim.parts.v[d][i];
    for (int k = 0; k < 1000; ++k)
        vs_sim_step(&sim);
    vs_sim_finish_step(&sim);
    double p1[3] = {0, 0, 0};
    for (int64_t i = 0; i < sim.parts.n_owned; ++i)
        for (int d = 0; d < 3; ++d)
            p1[d] += sim.parts.v[d][i];
    /* Round-off bound: 1000 steps x N x eps x |f| ~ 30 x dt ~ 4e-11 (1e-13 seen). A pair force applied
     * to one side only, or a lost ghost pair, would drift by O(1). */
    for (int d = 0; d < 3; ++d) {
        print_message("momentum %c: start %.3e, after 1000 steps %.3e\n", "xyz"[d], p0[d],
                      p1[d]);
        assert_true(fabs(p0[d]) < 1e-11);
        assert_true(fabs(p1[d]) < 1e-10);
    }
    assert_true(sim.n_builds > 1);
    vs_sim_destroy(&sim);
}

int main(int argc, char **argv)
{
    vs_par_init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_antisymmetric_bitwise),
        cmocka_unit_test(test_conservative_force_is_gradient),
        cmocka_unit_test(test_weight_exponent),
        cmocka_unit_test(test_momentum_conserved_1000_steps),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    vs_par_finalize();
    return failed;
}
