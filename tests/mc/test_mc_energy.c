/* Unit tests of the Monte Carlo engine's boxes and draws (src/engine/mc/):
 *
 * - the pair energy and virial of a box, with a cell list and without one (a box under three
 *   cut-offs), against a plain double sum over all pairs with the lj formula written here
 *   (cut and shifted, two species with their own epsilon and sigma);
 * - a displacement's old and new energies from one pass (a box without cells) equal two
 *   separate sums;
 * - after many random displacements, insertions and removals, each applied with the
 *   difference of the moved particle's energies, the kept total is the same integer as a sum
 *   from scratch (the fixed-point sums are exact and order-free);
 * - the draws are a function of (seed, cycle, move, draw) only.
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

#include "config.h"
#include "mc_engine.h"

static const char *CONFIG =
    "box = [%g, %g, %g];\n"
    "particles = 10;\n"
    "seed = 99;\n"
    "species = ( { name = \"A\"; fraction = 0.5; }, { name = \"B\"; fraction = 0.5; } );\n"
    "pair = ( { style = \"lj\"; rc = 2.5; shift = \"on\";\n"
    "  coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; B = { epsilon = 0.7; sigma = 1.1; }; };\n"
    "            B = { B = { epsilon = 1.3; sigma = 0.9; }; }; }; } );\n"
    "mc = { kT = 1.0; cycles = 1; };\n"
    "output = { dir = \"unused\"; };\n";

static void parse(vs_params *p, double L)
{
    char text[2048], err[512];
    snprintf(text, sizeof text, CONFIG, L, L, L);
    const int rc = vs_config_parse(text, "test", NULL, 0, p, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
}

static uint64_t lcg = 12345;
static double rnd(void)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg >> 11) * 0x1p-53;
}

/* The reference: every pair once, minimum image, 4 eps ((s/r)^12 - (s/r)^6) - U(rc). */
static void brute(const vs_mc_box *b, double *energy, double *virial)
{
    static const double eps[2][2] = {{1.0, 0.7}, {0.7, 1.3}}, sig[2][2] = {{1.0, 1.1}, {1.1, 0.9}};
    const double rc = 2.5;
    *energy = *virial = 0.0;
    for (int64_t i = 0; i < b->n; ++i)
        for (int64_t j = i + 1; j < b->n; ++j) {
            double r2 = 0.0;
            for (int d = 0; d < 3; ++d) {
                double dx = b->x[3 * i + d] - b->x[3 * j + d];
                dx -= b->L[d] * round(dx / b->L[d]);
                r2 += dx * dx;
            }
            if (r2 >= rc * rc)
                continue;
            const int si = b->species[i], sj = b->species[j];
            const double e = eps[si][sj], s = sig[si][sj];
            const double sr6 = pow(s * s / r2, 3), src6 = pow(s / rc, 6);
            *energy += 4 * e * (sr6 * sr6 - sr6) - 4 * e * (src6 * src6 - src6);
            *virial += 24 * e * (2 * sr6 * sr6 - sr6);
        }
}

static void fill(vs_mc_box *b, int64_t n)
{
    assert_int_equal(vs_mc_box_reserve(b, n), 0);
    for (int64_t i = 0; i < n; ++i) {
        /* a loose lattice with jitter: no pair closer than the cap */
        const int64_t m = (int64_t)ceil(cbrt((double)n));
        double x[3] = {(double)(i % m), (double)((i / m) % m), (double)(i / (m * m))};
        for (int d = 0; d < 3; ++d)
            x[d] = (x[d] + 0.5 + 0.3 * (rnd() - 0.5)) * b->L[d] / (double)m;
        vs_mc_box_append(b, x, (int32_t)(i % 2), i);
    }
}

static void check_against_brute(double L, int64_t n, int want_cells)
{
    vs_params p;
    parse(&p, L);
    vs_mc_state s;
    assert_int_equal(vs_mc_init(&s, &p), 0);
    vs_mc_box *b = &s.box[0];
    assert_int_equal(b->use_cells, want_cells);
    fill(b, n);
    double w = 0.0, e_ref, w_ref;
    const double e = vs_wide_to_double(vs_mc_energy_total(b, &s.pairs, &w));
    brute(b, &e_ref, &w_ref);
    assert_true(fabs(e - e_ref) <= 1e-9 * (1 + fabs(e_ref)));
    assert_true(fabs(w - w_ref) <= 1e-9 * (1 + fabs(w_ref)));
    if (!(fabs(e_ref) > 1.0)) /* the test has pairs within reach */
        fail_msg("energy %g, virial %g", e_ref, w_ref);
    /* a displacement's two energies in one pass are the integers of two separate sums */
    for (int k = 0; k < 50; ++k) {
        const int64_t i = (int64_t)(rnd() * (double)b->n);
        const double y[3] = {rnd() * L, rnd() * L, rnd() * L};
        vs_wide e0, e1;
        vs_mc_energy_move(b, &s.pairs, i, y, &e0, &e1);
        assert_true(e0 == vs_mc_energy_at(b, &s.pairs, &b->x[3 * i], b->species[i], i));
        assert_true(e1 == vs_mc_energy_at(b, &s.pairs, y, b->species[i], i));
    }
    vs_mc_free(&s);
    vs_params_release(&p);
}

static void test_energy_cells(void **state)
{
    (void)state;
    check_against_brute(10.0, 400, 1);
}

static void test_energy_no_cells(void **state)
{
    (void)state;
    check_against_brute(6.0, 120, 0);
}

static void test_incremental_exact(void **state)
{
    (void)state;
    vs_params p;
    parse(&p, 9.0);
    vs_mc_state s;
    assert_int_equal(vs_mc_init(&s, &p), 0);
    vs_mc_box *b = &s.box[0];
    fill(b, 300);
    vs_mc_refresh(&s);
    int64_t next = 300;
    for (int k = 0; k < 3000; ++k) {
        const double r = rnd();
        const int64_t i = (int64_t)(rnd() * (double)b->n);
        if (r < 0.8) {
            double y[3];
            for (int d = 0; d < 3; ++d)
                y[d] = fmod(b->x[3 * i + d] + 0.4 * (rnd() - 0.5) + b->L[d], b->L[d]);
            const vs_wide e0 = vs_mc_energy_at(b, &s.pairs, &b->x[3 * i], b->species[i], i);
            const vs_wide e1 = vs_mc_energy_at(b, &s.pairs, y, b->species[i], i);
            vs_mc_box_move(b, i, y);
            b->pair_energy += e1 - e0;
        } else if (r < 0.9) {
            b->pair_energy -= vs_mc_energy_at(b, &s.pairs, &b->x[3 * i], b->species[i], i);
            vs_mc_box_remove(b, i);
        } else {
            const double y[3] = {rnd() * b->L[0], rnd() * b->L[1], rnd() * b->L[2]};
            assert_int_equal(vs_mc_box_reserve(b, b->n + 1), 0);
            const vs_wide e = vs_mc_energy_at(b, &s.pairs, y, 1, -1);
            vs_mc_box_append(b, y, 1, next++);
            b->pair_energy += e;
        }
    }
    const vs_wide fresh = vs_mc_energy_total(b, &s.pairs, NULL);
    assert_true(fresh == b->pair_energy);
    int64_t per[2] = {0, 0};
    for (int64_t i = 0; i < b->n; ++i)
        per[b->species[i]]++;
    assert_int_equal(per[0], b->count[0]);
    assert_int_equal(per[1], b->count[1]);
    vs_mc_free(&s);
    vs_params_release(&p);
}

static void test_draws_keyed(void **state)
{
    (void)state;
    vs_params p;
    parse(&p, 9.0);
    double a[2], b[2], c[2], d[2];
    vs_mc_draw(&p, 7, 3, 1, a);
    vs_mc_draw(&p, 7, 3, 1, b);
    vs_mc_draw(&p, 8, 3, 1, c);
    vs_mc_draw(&p, 7, 3, 2, d);
    assert_true(a[0] == b[0] && a[1] == b[1]);
    assert_true(a[0] != c[0] && a[0] != d[0] && a[0] != a[1]);
    assert_true(a[0] > 0.0 && a[0] < 1.0);
    vs_params_release(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_energy_cells),
        cmocka_unit_test(test_energy_no_cells),
        cmocka_unit_test(test_incremental_exact),
        cmocka_unit_test(test_draws_keyed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
