/* Unit tests of the Monte Carlo run's closing statistics (src/engine/mc/mc_stats.c), against
 * values worked out here by hand or known in distribution:
 *
 * - block estimates of short series whose block means are written out (even blocks, and
 *   uneven ones: row k of R in block floor(k B / R));
 * - the block error of a long series of independent normal numbers of known variance is its
 *   standard error sigma / sqrt(R) (within 30 %: 100 blocks give the error to 7 %);
 * - a ratio of means of two proportional series: the ratio, with error 0;
 * - the Gibbs summary of rows whose boxes swap phase every other row: the liquid is the denser
 *   box of each row, and the heat of vaporization is the formula of mc_stats.h;
 * - the grand canonical histograms of a few rows (negative energies in floor bins).
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

#include "mc_stats.h"

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

static void even_blocks(void **state)
{
    (void)state;
    const double x[10] = {1, 3, 2, 2, 5, 7, 0, 2, 4, 4}; /* block means 2 2 6 1 4 */
    const double *xs[1] = {x};
    double m, e;
    assert_int_equal(vs_mc_block_estimate(xs, 1, 10, 5, NULL, NULL, &m, &e), 0);
    assert_near(m, 3.0, 1e-15);
    /* deviations -1 -1 3 -2 1: 16 / (5 * 4) */
    assert_near(e, sqrt(0.8), 1e-15);
}

static void uneven_blocks(void **state)
{
    (void)state;
    const double x[7] = {0, 1, 2, 3, 4, 5, 6}; /* blocks {0 1 2} {3 4} {5 6} */
    const double *xs[1] = {x};
    double m, e;
    assert_int_equal(vs_mc_block_estimate(xs, 1, 7, 3, NULL, NULL, &m, &e), 0);
    assert_near(m, 3.0, 1e-15);
    const double c = (1.0 + 3.5 + 5.5) / 3.0;
    const double ss = (1 - c) * (1 - c) + (3.5 - c) * (3.5 - c) + (5.5 - c) * (5.5 - c);
    assert_near(e, sqrt(ss / 6.0), 1e-15);
    /* too few rows for the blocks: the mean, no error */
    assert_int_equal(vs_mc_block_estimate(xs, 1, 7, 4, NULL, NULL, &m, &e), 0);
    assert_near(m, 3.0, 1e-15);
    assert_true(isnan(e));
}

/* A 64-bit LCG's top 53 bits: uniform on (0, 1). */
static double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
}

static void known_variance(void **state)
{
    (void)state;
    const int64_t n = 200000;
    double *x = malloc((size_t)n * sizeof *x);
    assert_non_null(x);
    uint64_t s = 12345;
    const double sigma = 2.0;
    for (int64_t i = 0; i < n; i += 2) { /* Box-Muller */
        const double r = sqrt(-2.0 * log(uniform(&s))), a = 2.0 * 3.14159265358979323846 * uniform(&s);
        x[i] = 1.5 + sigma * r * cos(a);
        x[i + 1] = 1.5 + sigma * r * sin(a);
    }
    const double *xs[1] = {x};
    double m, e;
    assert_int_equal(vs_mc_block_estimate(xs, 1, n, 100, NULL, NULL, &m, &e), 0);
    const double se = sigma / sqrt((double)n);
    assert_true(fabs(m - 1.5) < 5 * se);
    assert_true(e > 0.7 * se && e < 1.3 * se);
    free(x);
}

static double ratio(const double *m, const void *ctx)
{
    (void)ctx;
    return m[0] / m[1];
}

static void ratio_of_means(void **state)
{
    (void)state;
    double u[40], n[40];
    for (int i = 0; i < 40; ++i) {
        n[i] = 50 + (i * 7) % 11;
        u[i] = -2.5 * n[i];
    }
    const double *xs[2] = {u, n};
    double m, e;
    assert_int_equal(vs_mc_block_estimate(xs, 2, 40, 4, ratio, NULL, &m, &e), 0);
    assert_near(m, -2.5, 1e-14);
    assert_near(e, 0.0, 1e-14);
}

static const vs_mc_stat *find(const vs_mc_stat *st, int n, const char *g, const char *name)
{
    for (int i = 0; i < n; ++i)
        if (!strcmp(st[i].group, g) && !strcmp(st[i].name, name))
            return &st[i];
    fail_msg("%s/%s missing", g, name);
    return NULL;
}

static void gibbs_summary(void **state)
{
    (void)state;
    const vs_mc_box_obs liq = {100, 125.0, 0.8, -500.0, 0.3, {75, 25}};
    const vs_mc_box_obs vap = {10, 1000.0, 0.01, -2.0, 0.1, {2, 8}};
    vs_mc_series s = {0};
    for (int i = 0; i < 20; ++i) {
        vs_mc_row r = {.cycle = i + 1};
        r.box[i % 2] = liq;
        r.box[1 - i % 2] = vap;
        assert_int_equal(vs_mc_series_push(&s, &r), 0);
    }
    vs_mc_stat st[VS_MC_MAX_STATS];
    vs_species_params sp;
    memset(&sp, 0, sizeof sp);
    sp.n = 2;
    snprintf(sp.list[0].name, sizeof sp.list[0].name, "A");
    snprintf(sp.list[1].name, sizeof sp.list[1].name, "B");
    const int n = vs_mc_summarize(&s, 2, 5, &sp, st);
    assert_true(n > 0);
    /* mole fractions <N_k> / <N>: per phase the rows' own, per box the two phases mixed */
    assert_near(find(st, n, "coexistence", "x_A_liquid")->mean, 0.75, 1e-15);
    assert_near(find(st, n, "coexistence", "x_B_liquid")->mean, 0.25, 1e-15);
    assert_near(find(st, n, "coexistence", "x_A_vapour")->mean, 0.2, 1e-15);
    assert_near(find(st, n, "coexistence", "x_B_vapour")->mean, 0.8, 1e-15);
    assert_near(find(st, n, "box_1", "x_A")->mean, 77.0 / 110.0, 1e-15);
    assert_near(find(st, n, "box_1", "x_A")->error, 0.0, 1e-15);
    /* without species: no mole fractions */
    vs_mc_stat st2[VS_MC_MAX_STATS];
    const int n2 = vs_mc_summarize(&s, 2, 5, NULL, st2);
    assert_int_equal(n2, n - 8);
    for (int i = 0; i < n2; ++i)
        assert_true(strncmp(st2[i].name, "x_", 2) != 0);
    const char *g = "coexistence";
    assert_near(find(st, n, g, "density_liquid")->mean, 0.8, 1e-15);
    assert_near(find(st, n, g, "density_liquid")->error, 0.0, 1e-15);
    assert_near(find(st, n, g, "density_vapour")->mean, 0.01, 1e-15);
    assert_near(find(st, n, g, "pressure_vapour")->mean, 0.1, 1e-15);
    assert_near(find(st, n, g, "energy_per_particle_liquid")->mean, -5.0, 1e-14);
    /* (-2/10 + 500/100) + 0.1 (1000/10 - 125/100) */
    assert_near(find(st, n, g, "heat_of_vaporization")->mean, 4.8 + 9.875, 1e-12);
    assert_near(find(st, n, g, "box_0_liquid_fraction")->mean, 0.5, 1e-15);
    /* box 0 alone mixes the phases: its mean density is the average of the two */
    assert_near(find(st, n, "box_0", "density")->mean, 0.405, 1e-15);
    vs_mc_series_free(&s);
}

static void histograms(void **state)
{
    (void)state;
    const int64_t ns[6] = {3, 1, 3, 3, 0, 1};
    const double es[6] = {-0.05, 0.0, -0.15, -0.01, 0.0, 0.25};
    vs_mc_series s = {0};
    for (int i = 0; i < 6; ++i) {
        vs_mc_row r = {.cycle = i};
        r.box[0].n = ns[i];
        r.box[0].energy = es[i];
        assert_int_equal(vs_mc_series_push(&s, &r), 0);
    }
    vs_mc_histograms h;
    assert_int_equal(vs_mc_histograms_build(&s, 0.1, &h), 0);
    assert_int_equal(h.n_len, 4);
    const int64_t cn[4] = {1, 2, 0, 3};
    for (int i = 0; i < 4; ++i)
        assert_int_equal(h.count_n[i], cn[i]);
    /* (0, 0) 1; (1, 0) 1; (1, 2) 1; (3, -2) 1; (3, -1) 2 */
    const int64_t jn[5] = {0, 1, 1, 3, 3}, jb[5] = {0, 0, 2, -2, -1}, jc[5] = {1, 1, 1, 1, 2};
    assert_int_equal(h.joint_len, 5);
    for (int i = 0; i < 5; ++i) {
        assert_int_equal(h.joint_n[i], jn[i]);
        assert_int_equal(h.joint_bin[i], jb[i]);
        assert_int_equal(h.joint_count[i], jc[i]);
    }
    vs_mc_histograms_free(&h);
    vs_mc_series_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(even_blocks),    cmocka_unit_test(uneven_blocks),
        cmocka_unit_test(known_variance), cmocka_unit_test(ratio_of_means),
        cmocka_unit_test(gibbs_summary),  cmocka_unit_test(histograms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
