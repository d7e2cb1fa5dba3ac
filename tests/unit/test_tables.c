/* The operation tables the step runs through:
 * - every integrator.kind has its ensemble table (src/engine/ensemble_step.h) in the registry,
 *   of its own kind, with a unique name, both halves and a thermostat energy; a fusable kind
 *   runs exactly the backend's Verlet steps (the fused step replaces both halves, so nothing
 *   else may happen in them); an unknown kind has none;
 * - the CPU backend's table (src/core/backend_table.h) has every operation the step calls
 *   unconditionally (the optional ones are documented as such and may be NULL).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backend.h"
#include "ensemble_step.h"

static void test_ensemble_registry(void **state)
{
    (void)state;
    const char *names[VS_INTEGRATOR_NPT + 1];
    for (int k = 0; k <= VS_INTEGRATOR_NPT; ++k) {
        const vs_ensemble_kind *e = vs_ensemble_kind_of((vs_integrator_kind)k);
        assert_non_null(e);
        assert_int_equal(e->kind, k);
        assert_non_null(e->name);
        assert_true(strlen(e->name) > 0);
        assert_string_equal(vs_ensemble_name((vs_integrator_kind)k), e->name);
        assert_true(e->first_half != NULL);
        assert_true(e->second_half != NULL);
        assert_true(e->thermostat_energy != NULL);
        assert_in_range(e->columns, 0, 3);
        assert_in_range(e->momentum, VS_MOMENTUM_FREE, VS_MOMENTUM_DIRECTION);
        if (e->fusable) {
            assert_true(e->first_half == vs_ens_verlet_first);
            assert_true(e->second_half == vs_ens_verlet_second);
            assert_false(e->moves_box);
        }
        /* a kind's own fused call: never beside the Verlet fusion, and both of its parts */
        if (e->finish_and_first_half || e->fuses_on) {
            assert_false(e->fusable);
            assert_non_null(e->finish_and_first_half);
            assert_non_null(e->fuses_on);
            assert_false(e->fuses_on(&vs_backend_cpu)); /* the CPU runs the host halves */
        }
        names[k] = e->name;
        for (int j = 0; j < k; ++j)
            assert_true(strcmp(names[j], e->name) != 0);
    }
    assert_null(vs_ensemble_kind_of((vs_integrator_kind)(VS_INTEGRATOR_NPT + 1)));
    assert_string_equal(vs_ensemble_name((vs_integrator_kind)(VS_INTEGRATOR_NPT + 1)), "?");
}

static void test_cpu_table(void **state)
{
    (void)state;
    const vs_backend *b = &vs_backend_cpu;
    assert_string_equal(b->name, "cpu");
    assert_string_equal(b->memory_kind, "host");
    assert_true(b->attach != NULL);
    assert_true(b->detach != NULL);
    assert_true(b->integrate_first_half != NULL);
    assert_true(b->integrate_second_half != NULL);
    assert_true(b->max_displacement2 != NULL);
    assert_true(b->ensemble_op != NULL);
    assert_true(b->brownian_step != NULL);
    assert_true(b->scale_velocities != NULL);
    assert_true(b->shift_velocities != NULL);
    assert_true(b->kinetic_sums != NULL);
    assert_true(b->npt_half != NULL);
    assert_true(b->set_box != NULL);
    assert_true(b->migrate != NULL);
    assert_true(b->build_ghosts != NULL);
    assert_true(b->update_ghosts != NULL);
    assert_true(b->build_neighbors != NULL);
    assert_true(b->forces_begin != NULL);
    assert_true(b->halo_bytes != NULL);
    assert_true(b->local_thermo != NULL);
    assert_true(b->local_integrity != NULL);
    assert_true(b->memory_bytes != NULL);
    assert_true(b->sync != NULL);
    assert_true(b->profile_sums != NULL);
    assert_true(b->sync_host != NULL);
    assert_true(b->reload != NULL);
    /* the CPU's force sums become forces at the end of an evaluation */
    assert_true(b->forces_end != NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ensemble_registry),
        cmocka_unit_test(test_cpu_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
