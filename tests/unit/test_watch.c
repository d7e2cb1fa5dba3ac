/* The time-step range and the temperature watch (src/app/watch.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "watch.h"

/* Groot & Warren's fluid: a = 25, gamma = 4.5, kT = 1, m = 1, rc = 1. */
static vs_params groot_warren(void)
{
    vs_params p;
    memset(&p, 0, sizeof p);
    p.species.n = 1;
    p.species.list[0].mass = 1.0;
    p.dpd.a[0][0] = 25.0;
    p.dpd.gamma.v = 4.5;
    p.dpd.kT = 1.0;
    p.dpd.rc = 1.0;
    p.integrator.dt = 0.04;
    p.run.temperature_tolerance = 0.5;
    p.run.temperature_rows = 3;
    p.run.equilibration_time = 10.0;
    return p;
}

static void test_tested_range(void **state)
{
    (void)state;
    vs_params p = groot_warren();
    assert_true(fabs(vs_dt_tested_max(&p) - 0.06) < 1e-12);
    p.dpd.a[0][0] = 100.0; /* four times stiffer: half the period */
    assert_true(fabs(vs_dt_tested_max(&p) - 0.03) < 1e-12);
    p = groot_warren();
    p.dpd.gamma.v = 45.0; /* ten times the friction */
    assert_true(fabs(vs_dt_tested_max(&p) - 0.006) < 1e-12);
    p = groot_warren();
    p.species.n = 2;
    p.species.list[1].mass = 0.25; /* the lightest species sets the scales */
    assert_true(vs_dt_tested_max(&p) < 0.0301);
    p = groot_warren();
    p.dpd.a[0][0] = 0.0;
    p.dpd.gamma.v = 0.0;
    p.dpd.kT = 0.0; /* nothing sets a scale */
    assert_true(vs_dt_tested_max(&p) == 0.0);
}

static vs_thermo row(int64_t step, double time, double temperature)
{
    vs_thermo t;
    memset(&t, 0, sizeof t);
    t.step = step;
    t.time = time;
    t.temperature = temperature;
    return t;
}

static void test_temperature_watch(void **state)
{
    (void)state;
    vs_params p = groot_warren();
    vs_watch w = {0};
    vs_thermo t = row(100, 4.0, 21.0); /* hot, but before equilibration_time */
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    t = row(300, 12.0, 21.0);
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    t = row(310, 12.4, 1.2); /* back within the tolerance: the count starts again */
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    t = row(320, 12.8, 0.4);
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 1); /* the third far row in a row */
    p.run.temperature_rows = 0; /* warn only */
    w.far_rows = 0;
    for (int i = 0; i < 10; ++i)
        assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    p.run.temperature_tolerance = 0.0; /* not watched */
    t = row(330, 13.2, 1e6);
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
}

static void test_non_finite_row_stops(void **state)
{
    (void)state;
    vs_params p = groot_warren();
    p.run.temperature_tolerance = 0.0; /* stops whatever the temperature watch says */
    vs_watch w = {0};
    vs_thermo t = row(1, 0.04, 1.0);
    t.pressure = NAN;
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 1);
    t = row(1, 0.04, INFINITY);
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 1);
}

/* A plain DPD fluid conserves momentum: a drift warns past the tolerance and stops past the
 * limit; a body force (or a Langevin thermostat) makes momentum change by design. */
static void test_momentum_drift(void **state)
{
    (void)state;
    vs_params p = groot_warren();
    p.run.momentum_tolerance = 1e-5;
    p.run.momentum_limit = 1e-2;
    vs_watch w = {0};
    vs_thermo t = row(0, 0.0, 1.0);
    t.kinetic = 1500.0; /* 1000 particles at kT = 1: the scale sqrt(2 K m) is about 54.8 */
    t.momentum[0] = 0.3; /* an input file's momentum: the reference, not a drift */
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    t.step = 10;
    t.momentum[0] = 0.3 + 1e-9;
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    assert_int_equal(w.momentum_warned, 0);
    t.momentum[1] = 0.01; /* 1.8e-4 of the scale: a warning only */
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    assert_int_equal(w.momentum_warned, 1);
    t.momentum[1] = 1.0; /* 1.8e-2: beyond the limit */
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 1);
    p.run.momentum_limit = 0.0; /* warn only */
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    p.run.momentum_limit = 1e-2;
    p.species.list[0].body_force[2] = 0.1; /* driven: momentum grows by design, not watched */
    assert_int_equal(vs_watch_momentum_conserved(&p), 0);
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    p.species.list[0].body_force[2] = 0.0;
    p.integrator.kind = VS_INTEGRATOR_LANGEVIN;
    assert_int_equal(vs_watch_momentum_conserved(&p), 0);
    p.integrator.kind = VS_INTEGRATOR_NOSE_HOOVER;
    assert_int_equal(vs_watch_momentum_conserved(&p), 1);
}

/* nose_hoover and berendsen scale the centre-of-mass velocity with the rest: the total
 * momentum keeps its direction, not its length (a frame of a Langevin run read as input
 * starts with P0 != 0); a change across P0 is still a drift. The plain DPD integrator
 * conserves P itself. */
static void test_momentum_rescaled(void **state)
{
    (void)state;
    const vs_integrator_kind kinds[] = {VS_INTEGRATOR_NOSE_HOOVER, VS_INTEGRATOR_BERENDSEN,
                                   VS_INTEGRATOR_DPD};
    for (int k = 0; k < 3; ++k) {
        vs_params p = groot_warren();
        p.integrator.kind = kinds[k];
        p.run.momentum_tolerance = 1e-5;
        p.run.momentum_limit = 1e-2;
        vs_watch w = {0};
        vs_thermo t = row(0, 0.0, 1.0);
        t.kinetic = 1500.0; /* scale about 54.8 */
        t.momentum[0] = 3.0;
        t.momentum[1] = 4.0;
        assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
        t.step = 10;
        t.momentum[0] = 3.0 * 0.5; /* the thermostat halved every velocity */
        t.momentum[1] = 4.0 * 0.5;
        assert_int_equal(vs_watch_row(&w, &p, &t, 0), kinds[k] == VS_INTEGRATOR_DPD);
        assert_int_equal(w.momentum_warned, kinds[k] == VS_INTEGRATOR_DPD);
        t.momentum[2] = 1.0; /* across P0: 1.8e-2 of the scale, beyond the limit for all */
        assert_int_equal(vs_watch_row(&w, &p, &t, 0), 1);
    }
}

/* nve and nose_hoover write a conserved energy: its drift against the first kinetic energy. */
static void test_energy_drift(void **state)
{
    (void)state;
    vs_params p = groot_warren();
    p.integrator.kind = VS_INTEGRATOR_NVE;
    p.run.energy_tolerance = 0.01;
    p.run.energy_limit = 1.0;
    vs_watch w = {0};
    vs_thermo t = row(0, 0.0, 1.0);
    t.kinetic = 1500.0;
    t.ensemble_columns = 1;
    t.conserved_energy = 5000.0;
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    t.conserved_energy = 5001.0; /* 6.7e-4 of K0 */
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    assert_int_equal(w.energy_warned, 0);
    t.conserved_energy = 5100.0; /* 0.067: a warning */
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    assert_int_equal(w.energy_warned, 1);
    t.conserved_energy = 3000.0; /* 1.33: a stop */
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 1);
    t.ensemble_columns = 0; /* the dpd integrator has no conserved energy to watch */
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tested_range),
        cmocka_unit_test(test_temperature_watch),
        cmocka_unit_test(test_non_finite_row_stops),
        cmocka_unit_test(test_momentum_drift),
        cmocka_unit_test(test_momentum_rescaled),
        cmocka_unit_test(test_energy_drift),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
