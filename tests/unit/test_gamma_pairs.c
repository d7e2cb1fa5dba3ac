/* dpd.gamma per species pair against an independent calculation.
 *
 * - A small two-species system through the engine (CPU backend): every particle's force
 *   equals a direct sum over all pairs (minimum image) of the hand-written DPD pair
 *   F = [a_ij w - gamma_ij w^2 (e . v_ij) + sqrt(2 gamma_ij kT) w xi_ij / sqrt(dt)] e,
 *   with gamma_ij and sigma_ij of the pair's own species (the pair random number xi_ij from
 *   the TEA bits, tested on its own in tests/rng);
 * - a matrix with every entry equal gives the same forces, bit for bit, as that one number;
 * - a matrix that differs in one pair changes the forces (the matrix is read at all).
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

#include "parallel.h"
#include "simulation.h"
#include "tea_rng.h"
#include "test_support.h"

#define N 60
#define L 3.0

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static double urand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

/* Two species A, B in a cube of side L: a_ij and gamma_ij as given (gamma_ij NULL: the one
 * number g for every pair). */
static void two_species(vs_params *p, const double g_ab[2][2], double g)
{
    vs_test_groot_warren(p, L);
    p->system.n_particles = N;
    p->species.n = 2;
    snprintf(p->species.list[1].name, VS_NAME_LEN, "B");
    p->species.list[0].fraction = p->species.list[1].fraction = 0.5;
    p->species.list[1].mass = 2.0;
    const double a[2][2] = {{25.0, 40.0}, {40.0, 18.0}};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            p->dpd.a[i][j] = a[i][j];
            if (g_ab)
                p->dpd.gamma.ij[i][j] = g_ab[i][j];
        }
    p->dpd.gamma.per_pair = g_ab != NULL;
    p->dpd.gamma.v = g;
    p->dpd.kT = 0.7;
    p->integrator.dt = 0.02;
}

static void make_records(vs_particle_rec *r)
{
    rng_state = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < N; ++i) {
        memset(&r[i], 0, sizeof r[i]);
        for (int d = 0; d < 3; ++d) {
            r[i].x[d] = L * urand();
            r[i].v[d] = r[i].vp[d] = 2.0 * urand() - 1.0;
        }
        r[i].tag = i;
        r[i].species = i % 2;
    }
}

/* The engine's forces at step 0, by tag, and the records it started from. */
static void engine_forces(const vs_params *p, double f[N][3], vs_particle_rec *rec)
{
    vs_sim sim;
    char err[256] = "";
    assert_int_equal(vs_sim_create(&sim, p, MPI_COMM_SELF, err, sizeof err), 0);
    make_records(rec);
    vs_particle_rec copy[N];
    memcpy(copy, rec, sizeof copy);
    assert_int_equal(vs_sim_start_from_system(&sim, copy, NULL, NULL, NULL, NULL, N, 0, err,
                                              sizeof err), 0);
    const vs_particles *q = vs_sim_owned_particles(&sim);
    assert_int_equal(q->n_owned, N);
    for (int64_t k = 0; k < q->n_owned; ++k)
        for (int d = 0; d < 3; ++d)
            f[q->tag[k]][d] = q->f[d][k];
    vs_sim_destroy(&sim);
}

/* The direct sum over all pairs, from the formula above. */
static void direct_forces(const vs_params *p, const vs_particle_rec *r, double f[N][3])
{
    const vs_tea_key key = vs_tea_make_key(p->system.seed, 0);
    const double kT = p->dpd.kT, dt = p->integrator.dt;
    memset(f, 0, sizeof(double) * N * 3);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            if (i == j)
                continue;
            double dx[3], dv[3], r2 = 0.0, ev = 0.0;
            for (int d = 0; d < 3; ++d) {
                dx[d] = r[i].x[d] - r[j].x[d];
                dx[d] -= L * round(dx[d] / L);
                dv[d] = r[i].vp[d] - r[j].vp[d];
                r2 += dx[d] * dx[d];
            }
            if (r2 >= 1.0)
                continue;
            const double dist = sqrt(r2), w = 1.0 - dist;
            for (int d = 0; d < 3; ++d)
                ev += dx[d] / dist * dv[d];
            const int si = r[i].species, sj = r[j].species;
            const double g = vs_pair_real_at(&p->dpd.gamma, si, sj);
            const double xi = vs_xi_uniform(vs_pair_bits(key, (uint64_t)i, (uint64_t)j));
            const double mag = p->dpd.a[si][sj] * w - g * w * w * ev +
                               sqrt(2.0 * g * kT) * w * xi / sqrt(dt);
            for (int d = 0; d < 3; ++d)
                f[i][d] += mag * dx[d] / dist;
        }
}

static void test_matrix_against_direct_sum(void **state)
{
    (void)state;
    const double g[2][2] = {{4.5, 1.5}, {1.5, 12.0}};
    vs_params p;
    two_species(&p, g, 12.0);
    double fe[N][3], fd[N][3];
    vs_particle_rec rec[N];
    engine_forces(&p, fe, rec);
    direct_forces(&p, rec, fd);
    for (int i = 0; i < N; ++i)
        for (int d = 0; d < 3; ++d)
            VS_ASSERT_NEAR(fe[i][d], fd[i][d], 1e-9 * (1.0 + fabs(fd[i][d])));
}

static void test_equal_matrix_is_the_number(void **state)
{
    (void)state;
    const double g[2][2] = {{3.0, 3.0}, {3.0, 3.0}};
    vs_params ps, pm;
    two_species(&ps, NULL, 3.0);
    two_species(&pm, g, 3.0);
    double fs[N][3], fm[N][3];
    vs_particle_rec rec[N];
    engine_forces(&ps, fs, rec);
    engine_forces(&pm, fm, rec);
    assert_memory_equal(fs, fm, sizeof fs);
}

static void test_one_pair_changes_forces(void **state)
{
    (void)state;
    const double g[2][2] = {{3.0, 6.0}, {6.0, 3.0}};
    vs_params ps, pm;
    two_species(&ps, NULL, 3.0);
    two_species(&pm, g, 6.0);
    double fs[N][3], fm[N][3];
    vs_particle_rec rec[N];
    engine_forces(&ps, fs, rec);
    engine_forces(&pm, fm, rec);
    double worst = 0.0;
    for (int i = 0; i < N; ++i)
        for (int d = 0; d < 3; ++d)
            worst = fmax(worst, fabs(fs[i][d] - fm[i][d]));
    assert_true(worst > 0.1);
}

int main(int argc, char **argv)
{
    vs_par_init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_against_direct_sum),
        cmocka_unit_test(test_equal_matrix_is_the_number),
        cmocka_unit_test(test_one_pair_changes_forces),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    vs_par_finalize();
    return failed;
}
