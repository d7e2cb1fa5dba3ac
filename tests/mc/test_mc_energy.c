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
 * - the draws are a function of (seed, cycle, move, draw) only;
 * - the GPU's sums of the other moves, run here through their shared functions
 *   (src/core/mc_energy.h): a particle at a trial position or an existing one against every
 *   other, and a whole box at scaled coordinates over its own grid of cells, are the same
 *   integers as the host's vs_mc_energy_at and vs_mc_energy_total (so the GPU run decides
 *   every volume, insertion, deletion and transfer as the CPU's).
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
#include "mc_energy.h"
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

/* The one-particle sum as the GPU takes it: every particle but skip a candidate. */
static vs_wide device_energy_at(const vs_mc_state *s, const vs_mc_box *b, const double y[3],
                                int si, int64_t skip)
{
    vs_wide sum = 0;
    for (int64_t j = 0; j < b->n; ++j)
        if (j != skip)
            sum += vs_mc_energy_term(&s->sweep_pairs, s->sweep_coeff, b->L, y, si,
                                     b->x[3 * j], b->x[3 * j + 1], b->x[3 * j + 2],
                                     b->species[j]);
    return sum;
}

/* The whole-box sum as the GPU takes it: coordinates scaled by f, sorted into the energy
 * grid of edges L f (stably; the order is free), each slot with each neighbour cell. */
static vs_wide device_energy_scaled(const vs_mc_state *s, const vs_mc_box *b, double f)
{
    const int64_t n = b->n;
    const double L[3] = {b->L[0] * f, b->L[1] * f, b->L[2] * f};
    vs_mc_sweep_plan p;
    memset(&p, 0, sizeof p);
    vs_mc_energy_grid(&p, L, s->pairs.reach);
    const int64_t ncell = (int64_t)p.nc[0] * p.nc[1] * p.nc[2];
    double *xs = malloc(3 * (size_t)n * sizeof *xs);
    int32_t *ss = malloc((size_t)n * sizeof *ss), *id = malloc((size_t)n * sizeof *id);
    int32_t *start = calloc((size_t)ncell + 1, sizeof *start);
    uint32_t *cell = malloc((size_t)n * sizeof *cell), *slot_cell = malloc((size_t)n * 4);
    assert_non_null(xs);
    assert_non_null(ss);
    assert_non_null(id);
    assert_non_null(start);
    assert_non_null(cell);
    assert_non_null(slot_cell);
    for (int64_t i = 0; i < n; ++i) {
        const double y[3] = {vs_mc_scale_coord(b->x[3 * i], f),
                             vs_mc_scale_coord(b->x[3 * i + 1], f),
                             vs_mc_scale_coord(b->x[3 * i + 2], f)};
        cell[i] = vs_mc_sweep_cell(&p, y);
        start[cell[i] + 1]++;
    }
    for (int64_t c = 0; c < ncell; ++c)
        start[c + 1] += start[c];
    for (int64_t i = 0; i < n; ++i) { /* start[c] runs through cell c, then is restored */
        const int32_t k = start[cell[i]]++;
        for (int d = 0; d < 3; ++d)
            xs[d * n + k] = vs_mc_scale_coord(b->x[3 * i + d], f);
        ss[k] = b->species[i];
        id[k] = (int32_t)i;
        slot_cell[k] = cell[i];
    }
    for (int64_t c = ncell; c > 0; --c)
        start[c] = start[c - 1];
    start[0] = 0;
    const vs_mc_energy_cells cells = {xs, xs + n, xs + 2 * n, ss, id, start};
    vs_wide sum = 0;
    for (int64_t k = 0; k < n; ++k)
        for (int r = 0; r < 27; ++r)
            sum += vs_mc_energy_cell_pairs(&s->sweep_pairs, s->sweep_coeff, &p, &cells, (int)k,
                                           slot_cell[k], r);
    free(xs);
    free(ss);
    free(id);
    free(start);
    free(cell);
    free(slot_cell);
    return sum;
}

static void check_device_sums(double L, int64_t n)
{
    vs_params p;
    parse(&p, L);
    vs_mc_state s;
    assert_int_equal(vs_mc_init(&s, &p), 0);
    assert_int_equal(vs_mc_sweep_init(&s), 0);
    vs_mc_box *b = &s.box[0];
    fill(b, n);
    for (int k = 0; k < 60; ++k) { /* trial insertions, one at the upper edge */
        double y[3] = {rnd() * L, rnd() * L, rnd() * L};
        if (k == 0)
            y[0] = L;
        const int si = k % 2;
        assert_true(vs_mc_energy_at(b, &s.pairs, y, si, -1) ==
                    device_energy_at(&s, b, y, si, -1));
    }
    for (int k = 0; k < 60; ++k) { /* existing particles */
        const int64_t i = (int64_t)(rnd() * (double)b->n);
        assert_true(vs_mc_energy_at(b, &s.pairs, &b->x[3 * i], b->species[i], i) ==
                    device_energy_at(&s, b, &b->x[3 * i], b->species[i], i));
    }
    /* trial volumes, as volume_try scales the host's box; 2 * 2.5 / L: the smallest box */
    const double fs[] = {0.93, 0.999, 1.0, 1.004, 1.07, 5.0 / L};
    double *saved = malloc(3 * (size_t)b->n * sizeof *saved);
    assert_non_null(saved);
    memcpy(saved, b->x, 3 * (size_t)b->n * sizeof *saved);
    const double L0[3] = {b->L[0], b->L[1], b->L[2]};
    for (size_t q = 0; q < sizeof fs / sizeof fs[0]; ++q) {
        const double f = fs[q];
        const vs_wide dev = device_energy_scaled(&s, b, f);
        for (int64_t k = 0; k < 3 * b->n; ++k)
            b->x[k] *= f;
        const double Ls[3] = {L0[0] * f, L0[1] * f, L0[2] * f};
        assert_int_equal(vs_mc_box_set_edges(b, Ls, &s.pairs), 0);
        assert_true(vs_mc_energy_total(b, &s.pairs, NULL) == dev);
        memcpy(b->x, saved, 3 * (size_t)b->n * sizeof *saved);
        assert_int_equal(vs_mc_box_set_edges(b, L0, &s.pairs), 0);
    }
    free(saved);
    vs_mc_free(&s);
    vs_params_release(&p);
}

static void test_device_sums_cells(void **state)
{
    (void)state;
    check_device_sums(11.0, 500);
}

static void test_device_sums_small_box(void **state)
{
    (void)state;
    check_device_sums(6.0, 150); /* 2 cells per axis; no host cells */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_energy_cells),
        cmocka_unit_test(test_energy_no_cells),
        cmocka_unit_test(test_incremental_exact),
        cmocka_unit_test(test_draws_keyed),
        cmocka_unit_test(test_device_sums_cells),
        cmocka_unit_test(test_device_sums_small_box),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
