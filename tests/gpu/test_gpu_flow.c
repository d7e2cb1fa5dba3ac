/* The flow term on the GPU backend against the CPU reference (label gpu; exits 77 where no
 * GPU is usable). The double Poiseuille force (g = 0.5 along y, changing sign across z, on one
 * of two species and on all) is added after the pair forces, to doubles or to the cell-list
 * kernel's fixed-point sums:
 * - forces at step 0, particle by particle (matched by tag): 1e-12 relative in `double`, 1e-5
 *   in `mixed` (the tolerances of test_gpu_backend), every partner search;
 * - 50 steps in `double` track the CPU's thermo (temperature, kinetic energy, momentum along
 *   the flow) to 1e-9.
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

#include "backend.h"
#include "gpu.h"
#include "simulation.h"
#include "test_support.h"

static void flow_params(vs_params *prm, int driven)
{
    vs_test_groot_warren(prm, 10.0);
    prm->species.n = 2;
    snprintf(prm->species.list[1].name, VS_NAME_LEN, "B");
    prm->species.list[0].fraction = prm->species.list[1].fraction = 0.5;
    prm->species.list[1].mass = 1.0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            prm->dpd.a[i][j] = i == j ? 25.0 : 30.0;
    prm->flow.kind = VS_FLOW_DOUBLE_POISEUILLE;
    prm->flow.axis = 1;
    prm->flow.across = 2;
    prm->flow.species = driven;
    prm->flow.g = 0.5;
}

static double *forces_by_tag(vs_params *prm)
{
    vs_sim sim;
    char err[512] = "";
    assert_int_equal(vs_sim_create(&sim, prm, MPI_COMM_SELF, err, sizeof err), 0);
    assert_int_equal(vs_sim_start(&sim, err, sizeof err), 0);
    sim.backend->sync_host(sim.backend_state, &sim.parts);
    double *f = malloc(sizeof(double) * 3 * (size_t)prm->system.n_particles);
    for (int64_t i = 0; i < sim.parts.n_owned; ++i)
        for (int d = 0; d < 3; ++d)
            f[3 * sim.parts.tag[i] + d] = sim.parts.f[d][i];
    vs_sim_destroy(&sim);
    return f;
}

static void compare(vs_precision_kind precision, vs_gpu_builder_kind builder, int driven,
                    double tol)
{
    vs_params prm;
    flow_params(&prm, driven);
    prm.exec.backend = VS_BACKEND_CPU;
    double *fc = forces_by_tag(&prm);
    prm.exec.backend = VS_BACKEND_GPU;
    prm.exec.precision = precision;
    prm.exec.gpu_builder = builder;
    double *fg = forces_by_tag(&prm);
    const double worst = vs_test_worst_relative(fg, fc, prm.system.n_particles);
    print_message("%s, builder %d, driven %d: worst per-particle force difference %.3e "
                  "(tolerance %.0e)\n", precision == VS_PRECISION_MIXED ? "mixed" : "double",
                  (int)builder, driven, worst, tol);
    assert_true(worst <= tol);
    free(fc);
    free(fg);
}

static void test_forces_double(void **state)
{
    (void)state;
    compare(VS_PRECISION_DOUBLE, VS_GPU_BUILDER_THREAD, -1, 1e-12);
    compare(VS_PRECISION_DOUBLE, VS_GPU_BUILDER_CELLS, 1, 1e-12);
}

static void test_forces_mixed(void **state)
{
    (void)state;
    compare(VS_PRECISION_MIXED, VS_GPU_BUILDER_THREAD, -1, 1e-5);
    compare(VS_PRECISION_MIXED, VS_GPU_BUILDER_WARP, 0, 1e-5);
    compare(VS_PRECISION_MIXED, VS_GPU_BUILDER_CELLS, -1, 1e-5); /* fixed-point sums */
    compare(VS_PRECISION_MIXED, VS_GPU_BUILDER_CELLS, 1, 1e-5);
}

static void run_thermo(vs_params *prm, vs_thermo *t)
{
    vs_sim sim;
    char err[512] = "";
    assert_int_equal(vs_sim_create(&sim, prm, MPI_COMM_SELF, err, sizeof err), 0);
    assert_int_equal(vs_sim_start(&sim, err, sizeof err), 0);
    for (int k = 0; k < 50; ++k) {
        sim.energy_due = k == 49;
        vs_sim_step(&sim);
    }
    vs_sim_thermo(&sim, t);
    vs_sim_destroy(&sim);
}

static void test_steps_double(void **state)
{
    (void)state;
    vs_params prm;
    flow_params(&prm, -1);
    vs_thermo tc, tg;
    prm.exec.backend = VS_BACKEND_CPU;
    run_thermo(&prm, &tc);
    prm.exec.backend = VS_BACKEND_GPU;
    prm.exec.precision = VS_PRECISION_DOUBLE;
    run_thermo(&prm, &tg);
    const double dt = fabs(tg.temperature - tc.temperature) / tc.temperature;
    const double dp = fabs(tg.momentum[1] - tc.momentum[1]) / fmax(fabs(tc.momentum[1]), 1.0);
    print_message("50 steps: temperature %.17g vs %.17g (%.3e), p_y %.17g vs %.17g (%.3e)\n",
                  tg.temperature, tc.temperature, dt, tg.momentum[1], tc.momentum[1], dp);
    assert_true(dt <= 1e-9);
    assert_true(dp <= 1e-9);
}

int main(int argc, char **argv)
{
    if (vs_gpu_device_count(NULL, 0) == 0)
        return 77; /* no GPU: CTest reports the test as skipped */
    vs_par_init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forces_double),
        cmocka_unit_test(test_forces_mixed),
        cmocka_unit_test(test_steps_double),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    vs_par_finalize();
    return failed;
}
