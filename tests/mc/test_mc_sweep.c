/* Unit tests of the checkerboard sweep's shared functions (src/core/mc_sweep.h):
 *
 * - vs_mc_ln, the logarithm from + - * / only that both backends use for the acceptance,
 *   against the C library's log to 1e-15 relative over (0, 1), and exactly 0 at 1;
 * - vs_mc_sweep_energy, the 128-bit sum read in three exact parts, within two roundings of
 *   vs_wide_to_double over the whole range (a capped overlap's 1e6 per pair included);
 * - the plan: an even number of cells per axis, at least 2 and at most 128, each at least the
 *   reach wide, the offset within a cell, the colour order a permutation of 0..7, and the same
 *   plan from the same key; the cell of a position is the one whose (wrapped) span holds it,
 *   the strip before the offset belonging to the last cell;
 * - the neighbour cells of a coordinate: c, c + 1, c - 1 modulo nc, two when nc = 2;
 * - a trial's position stays in [0, L) and moves by at most max_disp per axis (with the
 *   periodic wrap), and its draws depend on (key, cell, step, trial) only.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mc_sweep.h"

static void test_ln(void **state)
{
    (void)state;
    assert_true(vs_mc_ln(1.0) == 0.0);
    double worst = 0.0;
    for (uint32_t k = 0; k < 200000; ++k) {
        const double u = vs_u32_to_open_unit(k * 21473u + 7u);
        const double err = fabs(vs_mc_ln(u) - log(u)) / fabs(log(u));
        worst = err > worst ? err : worst;
    }
    for (int e = 1; e < 1000; e += 7) { /* tiny draws too */
        const double u = ldexp(0.75, -e);
        const double err = fabs(vs_mc_ln(u) - log(u)) / fabs(log(u));
        worst = err > worst ? err : worst;
    }
    assert_true(worst < 1e-15);
}

static void test_energy(void **state)
{
    (void)state;
    const double values[] = {0.0, 1.0, -1.0, 3.25e-7, -123.456789, 9.87654321e5, -4.2e11,
                             4.0e13};
    for (size_t k = 0; k < sizeof values / sizeof values[0]; ++k) {
        const vs_wide w = vs_wide_from_double(values[k]) * 3 + 12345;
        const double a = vs_mc_sweep_energy(w), b = vs_wide_to_double(w);
        assert_true(fabs(a - b) <= 4.5e-16 * fabs(b) + 1e-30);
        if (fabs(values[k]) < 1000.0) /* below 2^93 quanta: rounded once, as the library */
            assert_true(a == b);
    }
}

static vs_mc_sweep_plan plan_for(const double L[3], double reach, uint64_t serial)
{
    vs_mc_sweep_plan p;
    memset(&p, 0, sizeof p);
    p.key = vs_mc_sweep_key(99, 0, serial);
    p.max_disp = 0.3;
    p.kT = 1.0;
    vs_mc_sweep_plan_make(&p, L, reach);
    return p;
}

static void test_plan(void **state)
{
    (void)state;
    const double boxes[][3] = {{6.0, 6.0, 6.0}, {12.0, 9.5, 30.1}, {107.7, 107.7, 107.7},
                               {1000.0, 7.0, 14.0}};
    for (size_t b = 0; b < sizeof boxes / sizeof boxes[0]; ++b)
        for (uint64_t serial = 0; serial < 20; ++serial) {
            const vs_mc_sweep_plan p = plan_for(boxes[b], 3.0, serial);
            int seen[8] = {0};
            for (int k = 0; k < 8; ++k)
                seen[p.order[k]]++;
            for (int k = 0; k < 8; ++k)
                assert_int_equal(seen[k], 1);
            for (int d = 0; d < 3; ++d) {
                assert_true(p.nc[d] >= 2 && p.nc[d] <= VS_MC_SWEEP_MAX_NC && p.nc[d] % 2 == 0);
                assert_true(p.h[d] >= 3.0 || p.nc[d] == 2);
                assert_true(p.off[d] >= 0.0 && p.off[d] < p.h[d]);
            }
            const vs_mc_sweep_plan q = plan_for(boxes[b], 3.0, serial);
            assert_memory_equal(&p, &q, sizeof p);
            /* the cell of a position: its span [off + c h, off + (c + 1) h), wrapped */
            for (int k = 0; k < 500; ++k) {
                const double x = boxes[b][0] * vs_u32_to_open_unit((uint32_t)k * 7919u);
                const int c = vs_mc_sweep_coord(&p, 0, x);
                double lo = p.off[0] + c * p.h[0];
                double xx = x < p.off[0] ? x + p.L[0] : x;
                assert_true(xx >= lo - 1e-9 && xx < lo + p.h[0] + 1e-9);
            }
        }
    const double big[3] = {1000.0, 1000.0, 1000.0};
    assert_int_equal(plan_for(big, 1.0, 0).nc[0], VS_MC_SWEEP_MAX_NC);
}

static void test_near(void **state)
{
    (void)state;
    const double L4[3] = {12.0, 6.0, 12.0};
    const vs_mc_sweep_plan p = plan_for(L4, 3.0, 1);
    int out[3];
    assert_int_equal(p.nc[0], 4);
    assert_int_equal(vs_mc_sweep_near(&p, 0, 0, out), 3);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 1);
    assert_int_equal(out[2], 3);
    assert_int_equal(p.nc[1], 2);
    assert_int_equal(vs_mc_sweep_near(&p, 1, 1, out), 2);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 0);
}

static void test_trial(void **state)
{
    (void)state;
    const double L[3] = {12.0, 12.0, 12.0};
    const vs_mc_sweep_plan p = plan_for(L, 3.0, 5);
    for (uint32_t t = 0; t < 2000; ++t) {
        double r[6], s[6];
        for (uint32_t part = 0; part < 3; ++part) {
            vs_mc_sweep_trial_draw(&p, 17, 3, t, part, &r[2 * part]);
            vs_mc_sweep_trial_draw(&p, 17, 3, t, part, &s[2 * part]);
        }
        assert_memory_equal(r, s, sizeof r);
        double other[2];
        vs_mc_sweep_trial_draw(&p, 18, 3, t, 0, other);
        assert_true(other[0] != r[0]);
        const int k = vs_mc_sweep_pick(r[0], 25);
        assert_true(k >= 0 && k < 25);
        const double x[3] = {0.01, 6.0, 11.99};
        double y[3];
        vs_mc_sweep_propose(&p, r, x, y);
        for (int d = 0; d < 3; ++d) {
            assert_true(y[d] >= 0.0 && y[d] < L[d]);
            double dx = y[d] - x[d];
            dx -= L[d] * floor(dx / L[d] + 0.5);
            assert_true(fabs(dx) <= p.max_disp + 1e-12);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ln),     cmocka_unit_test(test_energy),
        cmocka_unit_test(test_plan),   cmocka_unit_test(test_near),
        cmocka_unit_test(test_trial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
