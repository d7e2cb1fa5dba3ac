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
    p.n_species = 1;
    p.species[0].mass = 1.0;
    p.a[0][0] = 25.0;
    p.gamma = 4.5;
    p.kT = 1.0;
    p.rc = 1.0;
    p.dt = 0.04;
    p.temperature_tolerance = 0.5;
    p.temperature_rows = 3;
    p.equilibration_time = 10.0;
    return p;
}

static void test_tested_range(void **state)
{
    (void)state;
    vs_params p = groot_warren();
    assert_true(fabs(vs_dt_tested_max(&p) - 0.06) < 1e-12);
    p.a[0][0] = 100.0; /* four times stiffer: half the period */
    assert_true(fabs(vs_dt_tested_max(&p) - 0.03) < 1e-12);
    p = groot_warren();
    p.gamma = 45.0; /* ten times the friction */
    assert_true(fabs(vs_dt_tested_max(&p) - 0.006) < 1e-12);
    p = groot_warren();
    p.n_species = 2;
    p.species[1].mass = 0.25; /* the lightest species sets the scales */
    assert_true(vs_dt_tested_max(&p) < 0.0301);
    p = groot_warren();
    p.a[0][0] = 0.0;
    p.gamma = 0.0;
    p.kT = 0.0; /* nothing sets a scale */
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
    p.temperature_rows = 0; /* warn only */
    w.far_rows = 0;
    for (int i = 0; i < 10; ++i)
        assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
    p.temperature_tolerance = 0.0; /* not watched */
    t = row(330, 13.2, 1e6);
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 0);
}

static void test_non_finite_row_stops(void **state)
{
    (void)state;
    vs_params p = groot_warren();
    p.temperature_tolerance = 0.0; /* stops whatever the temperature watch says */
    vs_watch w = {0};
    vs_thermo t = row(1, 0.04, 1.0);
    t.pressure = NAN;
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 1);
    t = row(1, 0.04, INFINITY);
    assert_int_equal(vs_watch_row(&w, &p, &t, 0), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tested_range),
        cmocka_unit_test(test_temperature_watch),
        cmocka_unit_test(test_non_finite_row_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
