/* The GPU backend against the CPU reference (label gpu; exits 77 where no GPU is usable).
 *
 * - pair random numbers: the 64 TEA bits and the uniform xi are identical on host and device
 *   for a million pairs (64-bit tags included); the Gaussian xi agrees to a few ulps (libm and
 *   CUDA's log/cos may differ in the last bit);
 * - forces at step 0, particle by particle (matched by tag): 1e-12 relative in `double`, 1e-5
 *   in `mixed` (relative to the larger of the force and 1% of the rms force, see
 *   vs_test_worst_relative); energy and virial likewise;
 * - 50 steps in `double` (rebuilds, ghost refresh, integrator on the device) track the CPU's
 *   thermo to 1e-9;
 * - two GPU runs of the same input give bit-identical positions and velocities;
 * - a box thinner than twice the ghost width (particles with images on both sides) agrees
 *   with the CPU backend too;
 * - phases timed on the device's clock (no synchronisation at phase ends): every phase of
 *   the step is seen, and together they take no longer than the wall clock saw; marked on
 *   one step in ten, they still estimate the step's time.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpu.h"
#include "backend.h"
#include "gpu_backend.h"
#include "simulation.h"
#include "tea_rng.h"
#include "test_support.h"
#include "timer.h"

static uint64_t rng_state = 0x1234567887654321ull;
static uint64_t next_u64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static void test_random_numbers_bitwise(void **state)
{
    (void)state;
    const int n = 1000000;
    uint64_t *a = malloc(sizeof(uint64_t) * n), *b = malloc(sizeof(uint64_t) * n);
    uint32_t *bits = malloc(2 * sizeof(uint32_t) * n);
    double *u = malloc(sizeof(double) * n), *g = malloc(sizeof(double) * n);
    for (int k = 0; k < n; ++k) {
        a[k] = next_u64() % 20000000u;
        b[k] = (k % 10 == 0) ? next_u64() >> 4 : next_u64() % 20000000u; /* some 64-bit tags */
    }
    const uint64_t seed = 0xDEADBEEFCAFEull, step = 123456789ull;
    vs_gpu_selftest_pair_bits(seed, step, n, a, b, bits, u, g);
    const vs_tea_key key = vs_tea_make_key(seed, step);
    int mismatched_bits = 0, mismatched_uniform = 0;
    double worst_gauss = 0.0;
    for (int k = 0; k < n; ++k) {
        const vs_tea_block h = vs_pair_bits(key, a[k], b[k]);
        mismatched_bits += h.v0 != bits[2 * k] || h.v1 != bits[2 * k + 1];
        mismatched_uniform += vs_xi_uniform(h) != u[k];
        const double gh = vs_xi_gaussian(h);
        worst_gauss = fmax(worst_gauss, fabs(gh - g[k]) / fmax(fabs(gh), 1e-3));
    }
    print_message("pairs %d: %d bit mismatches, %d uniform mismatches, Gaussian worst "
                  "relative difference %.3e\n",
                  n, mismatched_bits, mismatched_uniform, worst_gauss);
    assert_int_equal(mismatched_bits, 0);
    assert_int_equal(mismatched_uniform, 0);
    assert_true(worst_gauss < 1e-14);
    free(a);
    free(b);
    free(bits);
    free(u);
    free(g);
}

/* Forces at step 0 by tag, plus the thermo row. */
static double *forces_by_tag(vs_params *prm, vs_thermo *t)
{
    vs_sim sim;
    char err[512] = "";
    assert_int_equal(vs_sim_create(&sim, prm, MPI_COMM_SELF, err, sizeof err), 0);
    assert_int_equal(vs_sim_start(&sim, err, sizeof err), 0);
    vs_sim_thermo(&sim, t);
    sim.backend->sync_host(sim.backend_state, &sim.parts);
    double *f = malloc(sizeof(double) * 3 * (size_t)prm->system.n_particles);
    for (int64_t i = 0; i < sim.parts.n_owned; ++i)
        for (int d = 0; d < 3; ++d)
            f[3 * sim.parts.tag[i] + d] = sim.parts.f[d][i];
    assert_int_equal(sim.parts.n_owned, prm->system.n_particles);
    vs_sim_destroy(&sim);
    return f;
}

static void compare_forces_at(vs_precision_kind precision, vs_gpu_builder_kind builder,
                              double skin, double density, double tol)
{
    vs_params prm;
    vs_test_groot_warren(&prm, 10.0);
    prm.system.n_particles =
        llround(density * prm.system.box[0] * prm.system.box[1] * prm.system.box[2]);
    prm.system.density = density;
    prm.exec.gpu_builder = builder;
    prm.neighbor.skin = skin;
    vs_thermo tc, tg;
    prm.exec.backend = VS_BACKEND_CPU;
    double *fc = forces_by_tag(&prm, &tc);
    prm.exec.backend = VS_BACKEND_GPU;
    prm.exec.precision = precision;
    double *fg = forces_by_tag(&prm, &tg);
    const double worst = vs_test_worst_relative(fg, fc, prm.system.n_particles);
    const double de = fabs(tg.potential - tc.potential) / fabs(tc.potential);
    const double dp = fabs(tg.pressure - tc.pressure) / fabs(tc.pressure);
    print_message("%s, %s builder, skin %g, rho %g: worst per-particle force difference "
                  "%.3e (tolerance %.0e), potential %.3e, pressure %.3e\n",
                  precision == VS_PRECISION_MIXED ? "mixed" : "double",
                  builder == VS_GPU_BUILDER_WARP    ? "warp"
                  : builder == VS_GPU_BUILDER_CELLS ? "cells"
                  : builder == VS_GPU_BUILDER_HALF  ? "half"
                                                    : "thread",
                  skin, density, worst, tol, de, dp);
    assert_true(worst <= tol);
    assert_true(de <= tol);
    assert_true(dp <= tol);
    free(fc);
    free(fg);
}

static void compare_forces_skin(vs_precision_kind precision, vs_gpu_builder_kind builder,
                                double skin, double tol)
{
    compare_forces_at(precision, builder, skin, 3.0, tol);
}

static void compare_forces(vs_precision_kind precision, vs_gpu_builder_kind builder, double tol)
{
    compare_forces_skin(precision, builder, 0.3, tol);
}

static void test_forces_double(void **state)
{
    (void)state;
    compare_forces(VS_PRECISION_DOUBLE, VS_GPU_BUILDER_THREAD, 1e-12);
    compare_forces(VS_PRECISION_DOUBLE, VS_GPU_BUILDER_WARP, 1e-12);
    compare_forces(VS_PRECISION_DOUBLE, VS_GPU_BUILDER_CELLS, 1e-12);
}

static void test_forces_mixed(void **state)
{
    (void)state;
    compare_forces(VS_PRECISION_MIXED, VS_GPU_BUILDER_THREAD, 1e-5);
    compare_forces(VS_PRECISION_MIXED, VS_GPU_BUILDER_WARP, 1e-5);
    compare_forces(VS_PRECISION_MIXED, VS_GPU_BUILDER_CELLS, 1e-5);
    compare_forces(VS_PRECISION_MIXED, VS_GPU_BUILDER_HALF, 1e-5);
}

/* No skin: cells of r_c, lists rebuilt on every step (on both backends). */
static void test_forces_skin_zero(void **state)
{
    (void)state;
    compare_forces_skin(VS_PRECISION_DOUBLE, VS_GPU_BUILDER_CELLS, 0.0, 1e-12);
    compare_forces_skin(VS_PRECISION_MIXED, VS_GPU_BUILDER_CELLS, 0.0, 1e-5);
    compare_forces_skin(VS_PRECISION_MIXED, VS_GPU_BUILDER_THREAD, 0.0, 1e-5);
    compare_forces_skin(VS_PRECISION_MIXED, VS_GPU_BUILDER_HALF, 0.0, 1e-5);
}

/* A dense fluid (rho = 12: ~25 partners in half a stencil, ~50 in a whole one) fills the
 * per-lane pair queues of the force kernels (24 and 32 entries), so the rare path that
 * empties a full queue at once runs too; a pair lost or counted twice there would be an
 * error of order 1e-1. The tolerance is 2e-5, not the 1e-5 of the rho = 3 fluid above: the
 * fp32 rounding of ~50 pair forces of up to ~50 each sums to ~1e-5 of the force of the
 * particles whose net force sits at the metric's floor (1% of the RMS). The measured
 * differences are in docs/history/performance-2026-11.md. */
static void test_forces_dense(void **state)
{
    (void)state;
    compare_forces_at(VS_PRECISION_MIXED, VS_GPU_BUILDER_CELLS, 0.0, 12.0, 2e-5);
    compare_forces_at(VS_PRECISION_MIXED, VS_GPU_BUILDER_CELLS, 0.3, 12.0, 2e-5);
    compare_forces_at(VS_PRECISION_MIXED, VS_GPU_BUILDER_THREAD, 0.3, 12.0, 2e-5);
    compare_forces_at(VS_PRECISION_MIXED, VS_GPU_BUILDER_HALF, 0.3, 12.0, 2e-5);
}

/* `steps` steps, then the thermo (and, if state_by_tag, positions and velocities by tag).
 * separate_halves: finish every step's second half-step on its own, as a step followed by
 * output does, instead of fusing it with the next first half. */
static void run_steps_halves(vs_params *prm, int steps, vs_thermo *last, double **state_by_tag,
                             int separate_halves)
{
    vs_sim sim;
    char err[512] = "";
    assert_int_equal(vs_sim_create(&sim, prm, MPI_COMM_SELF, err, sizeof err), 0);
    assert_int_equal(vs_sim_start(&sim, err, sizeof err), 0);
    for (int k = 0; k < steps; ++k) {
        sim.energy_due = k == steps - 1;
        vs_sim_step(&sim);
        if (separate_halves)
            vs_sim_finish_step(&sim);
    }
    vs_sim_thermo(&sim, last);
    if (state_by_tag) {
        sim.backend->sync_host(sim.backend_state, &sim.parts);
        double *s = malloc(sizeof(double) * 6 * (size_t)prm->system.n_particles);
        for (int64_t i = 0; i < sim.parts.n_owned; ++i)
            for (int d = 0; d < 3; ++d) {
                s[6 * sim.parts.tag[i] + d] = sim.parts.x[d][i];
                s[6 * sim.parts.tag[i] + 3 + d] = sim.parts.v[d][i];
            }
        *state_by_tag = s;
    }
    vs_sim_destroy(&sim);
}

static void run_steps(vs_params *prm, int steps, vs_thermo *last, double **state_by_tag)
{
    run_steps_halves(prm, steps, last, state_by_tag, 0);
}

static void test_trajectory_double_tracks_cpu(void **state)
{
    (void)state;
    vs_params prm;
    vs_test_groot_warren(&prm, 8.0);
    vs_thermo tc, tg;
    prm.exec.backend = VS_BACKEND_CPU;
    run_steps(&prm, 50, &tc, NULL);
    prm.exec.backend = VS_BACKEND_GPU;
    prm.exec.precision = VS_PRECISION_DOUBLE;
    run_steps(&prm, 50, &tg, NULL);
    vs_thermo tcells;
    prm.exec.gpu_builder = VS_GPU_BUILDER_CELLS;
    run_steps(&prm, 50, &tcells, NULL);
    print_message("cells variant after 50 steps: potential %.15g (list: %.15g)\n",
                  tcells.potential, tg.potential);
    assert_true(fabs(tcells.potential - tc.potential) < 1e-9 * fabs(tc.potential));
    vs_thermo tnoskin;
    prm.neighbor.skin = 0.0;
    run_steps(&prm, 50, &tnoskin, NULL);
    print_message("cells variant without skin after 50 steps: potential %.15g\n",
                  tnoskin.potential);
    assert_true(fabs(tnoskin.potential - tc.potential) < 1e-9 * fabs(tc.potential));
    const double q[4][2] = {{tc.temperature, tg.temperature},
                            {tc.pressure, tg.pressure},
                            {tc.kinetic, tg.kinetic},
                            {tc.potential, tg.potential}};
    for (int k = 0; k < 4; ++k) {
        const double rel = fabs(q[k][0] - q[k][1]) / fabs(q[k][0]);
        print_message("after 50 steps, quantity %d: cpu %.15g gpu %.15g (relative %.2e)\n", k,
                      q[k][0], q[k][1], rel);
        assert_true(rel < 1e-9);
    }
}

static void test_bit_identical_runs(void **state)
{
    (void)state;
    vs_params prm;
    vs_test_groot_warren(&prm, 10.0);
    prm.exec.backend = VS_BACKEND_GPU;
    prm.exec.precision = VS_PRECISION_MIXED;
    prm.integrator.dt = 0.04;
    vs_thermo t1, t2;
    double *s1, *s2;
    run_steps(&prm, 300, &t1, &s1);
    run_steps(&prm, 300, &t2, &s2);
    assert_memory_equal(s1, s2, sizeof(double) * 6 * (size_t)prm.system.n_particles);
    print_message("two 300-step runs: positions and velocities bit-identical; T = %.6f\n",
                  t1.temperature);
    free(s2);
    /* the fused second + first half-steps against separate ones (a step followed by output
     * runs them separately): the same arithmetic, so the same bits */
    run_steps_halves(&prm, 300, &t2, &s2, 1);
    assert_memory_equal(s1, s2, sizeof(double) * 6 * (size_t)prm.system.n_particles);
    print_message("separate half-steps: bit-identical to fused\n");
    free(s1);
    free(s2);
    /* the same without a Verlet list or skin (the cell-list kernel, rebuilt every step) */
    prm.exec.gpu_builder = VS_GPU_BUILDER_CELLS;
    prm.neighbor.skin = 0.0;
    run_steps(&prm, 300, &t1, &s1);
    run_steps(&prm, 300, &t2, &s2);
    assert_memory_equal(s1, s2, sizeof(double) * 6 * (size_t)prm.system.n_particles);
    print_message("cells, skin 0: two 300-step runs bit-identical; T = %.6f\n", t1.temperature);
    free(s1);
    free(s2);
}

/* The half list (builder "half") holds the pairs that the Newton kernel's cell walk finds
 * within the list radius, each found from the same side, and both sum in fixed point: with a
 * skin the two give the same bits, over steps that reuse the list and rebuilds, at rho = 3
 * and in a dense fluid whose lanes fill their pair queues. */
static void test_half_list_matches_cells(void **state)
{
    (void)state;
    for (int dense = 0; dense < 2; ++dense) {
        vs_params prm;
        vs_test_groot_warren(&prm, dense ? 6.0 : 10.0);
        if (dense) {
            prm.system.density = 12.0;
            prm.system.n_particles = llround(prm.system.density * prm.system.box[0] *
                                             prm.system.box[1] * prm.system.box[2]);
        }
        prm.exec.backend = VS_BACKEND_GPU;
        prm.exec.precision = VS_PRECISION_MIXED;
        prm.integrator.dt = dense ? 0.01 : 0.04;
        prm.neighbor.skin = 0.3;
        vs_thermo t1, t2;
        double *s1, *s2;
        prm.exec.gpu_builder = VS_GPU_BUILDER_CELLS;
        run_steps(&prm, 200, &t1, &s1);
        prm.exec.gpu_builder = VS_GPU_BUILDER_HALF;
        run_steps(&prm, 200, &t2, &s2);
        assert_memory_equal(s1, s2, sizeof(double) * 6 * (size_t)prm.system.n_particles);
        assert_memory_equal(&t1.potential, &t2.potential, sizeof t1.potential);
        print_message("rho %g, skin 0.3, 200 steps: half list bit-identical to the cell walk; "
                      "T = %.6f, potential %.15g\n",
                      prm.system.density, t1.temperature, t1.potential);
        free(s1);
        free(s2);
    }
}

/* A box thinner than twice the ghost width in x and y (2.4 and 2.5 against 2 x 1.3): on one
 * rank a particle there is near both faces and has images on both sides, in every
 * combination with the other dimensions. Forces at step 0 and the thermo after 50 steps
 * (ghost updates between rebuilds) against the CPU backend. */
static void test_thin_box_images(void **state)
{
    (void)state;
    vs_params prm;
    vs_test_groot_warren(&prm, 6.0);
    prm.system.box[0] = 2.4;
    prm.system.box[1] = 2.5;
    prm.system.n_particles =
        llround(3.0 * prm.system.box[0] * prm.system.box[1] * prm.system.box[2]);
    for (int builder = 0; builder < 2; ++builder) {
        prm.exec.gpu_builder = builder == 0 ? VS_GPU_BUILDER_THREAD : VS_GPU_BUILDER_CELLS;
        vs_thermo tc, tg;
        prm.exec.backend = VS_BACKEND_CPU;
        prm.exec.precision = VS_PRECISION_DOUBLE;
        double *fc = forces_by_tag(&prm, &tc);
        prm.exec.backend = VS_BACKEND_GPU;
        double *fg = forces_by_tag(&prm, &tg);
        const double worst = vs_test_worst_relative(fg, fc, prm.system.n_particles);
        print_message("thin box, %s: worst per-particle force difference %.3e\n",
                      builder == 0 ? "thread" : "cells", worst);
        assert_true(worst <= 1e-12);
        free(fg);
        /* mixed: the cell-list kernel evaluates each pair once, ghosts' threads included */
        prm.exec.precision = VS_PRECISION_MIXED;
        fg = forces_by_tag(&prm, &tg);
        const double worst_mixed = vs_test_worst_relative(fg, fc, prm.system.n_particles);
        print_message("thin box, %s, mixed: worst per-particle force difference %.3e\n",
                      builder == 0 ? "thread" : "cells", worst_mixed);
        assert_true(worst_mixed <= 1e-5);
        prm.exec.precision = VS_PRECISION_DOUBLE;
        free(fc);
        free(fg);
        prm.exec.backend = VS_BACKEND_CPU;
        run_steps(&prm, 50, &tc, NULL);
        prm.exec.backend = VS_BACKEND_GPU;
        run_steps(&prm, 50, &tg, NULL);
        const double dp = fabs(tg.potential - tc.potential) / fabs(tc.potential);
        print_message("thin box, %s, 50 steps: potential %.15g vs %.15g (relative %.2e)\n",
                      builder == 0 ? "thread" : "cells", tg.potential, tc.potential, dp);
        assert_true(dp < 1e-9);
    }
}

static void test_phase_timing_device_clock(void **state)
{
    (void)state;
    vs_params prm;
    vs_test_groot_warren(&prm, 10.0);
    prm.exec.backend = VS_BACKEND_GPU;
    for (int variant = 0; variant < 3; ++variant) {
        prm.neighbor.skin = variant == 0 ? 0.3 : 0.0; /* list reuse with ghost updates; rebuilds */
        /* every step marked, or one in ten (their phases standing for ten steps each) */
        prm.output.timing_every = variant == 2 ? 10 : 1;
        vs_sim sim;
        char err[512] = "";
        assert_int_equal(vs_sim_create(&sim, &prm, MPI_COMM_SELF, err, sizeof err), 0);
        assert_int_equal(vs_sim_start(&sim, err, sizeof err), 0);
        assert_non_null(sim.backend->phase_mark);
        vs_sim_settle_timers(&sim);
        vs_timers_reset(&sim.timers);
        const double t0 = vs_wall_seconds();
        for (int k = 0; k < 200; ++k) /* ~1200 marks: the ring of 64 wraps many times */
            vs_sim_step(&sim);
        vs_sim_settle_timers(&sim);
        const double wall = vs_wall_seconds() - t0;
        double sum = 0.0;
        for (int k = 0; k < VS_TIMER_COUNT; ++k) {
            print_message("skin %.1f: %-10s %.6f s\n", prm.neighbor.skin, vs_timer_labels[k],
                          sim.timers.total[k]);
            sum += sim.timers.total[k];
        }
        print_message("skin %.1f, marks every %lld steps: phases %.6f s, wall %.6f s\n",
                      prm.neighbor.skin, (long long)prm.output.timing_every, sum, wall);
        assert_true(sim.timers.total[VS_TIMER_pair] > 0.0);
        assert_true(sim.timers.total[VS_TIMER_neighbor] > 0.0);
        assert_true(sim.timers.total[VS_TIMER_comm] > 0.0);
        assert_true(sim.timers.total[VS_TIMER_integrate] > 0.0);
        assert_true(sim.timers.total[VS_TIMER_output] == 0.0);
        if (prm.output.timing_every == 1) {
            assert_true(sum <= wall); /* phases follow each other on one stream */
            assert_true(sum > 0.5 * wall); /* and the step is little else */
        } else {
            /* about 20 of the 200 steps marked, each standing for ten: an estimate of the
             * step's time (a marked step also carries its marks' own cost). The lower bound
             * leaves room for a host slowed by other jobs, whose gaps only the wall time
             * holds (0.41 of it under eight parallel GPU tests, twice in sessions 23 and 24);
             * marks not weighted by their ten steps would give about 0.05 */
            assert_true(sum > 0.2 * wall);
            assert_true(sum < 2.0 * wall);
        }
        vs_sim_destroy(&sim);
    }
}

int main(int argc, char **argv)
{
    if (vs_gpu_device_count(NULL, 0) == 0)
        return 77; /* no GPU: CTest reports the test as skipped */
    vs_par_init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_numbers_bitwise),
        cmocka_unit_test(test_forces_double),
        cmocka_unit_test(test_forces_mixed),
        cmocka_unit_test(test_forces_skin_zero),
        cmocka_unit_test(test_forces_dense),
        cmocka_unit_test(test_trajectory_double_tracks_cpu),
        cmocka_unit_test(test_bit_identical_runs),
        cmocka_unit_test(test_half_list_matches_cells),
        cmocka_unit_test(test_thin_box_images),
        cmocka_unit_test(test_phase_timing_device_clock),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    vs_par_finalize();
    return failed;
}
