/* The flow term on the CPU backend (label unit):
 * - the double Poiseuille sign: +1 in [0, L/2), -1 in [L/2, L), decided on the wrapped
 *   coordinate for positions a skin outside the box;
 * - the force reaches only the driven species (or all), along the flow axis only;
 * - the momentum input of one force evaluation is exactly +N_lower g and -N_upper g in the
 *   two halves, and nothing along the other axes;
 * - a whole run (vs_sim) registers the term after DPD and adds N_lower g - N_upper g to the
 *   total force.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpu_backend.h"
#include "flow.h"
#include "forcefield.h"
#include "parallel.h"
#include "simulation.h"
#include "test_support.h"

static void test_sign(void **state)
{
    (void)state;
    const double L = 12.0;
    assert_true(vs_double_poiseuille_sign(0.0, L) == 1.0);
    assert_true(vs_double_poiseuille_sign(5.999999, L) == 1.0);
    assert_true(vs_double_poiseuille_sign(6.0, L) == -1.0);
    assert_true(vs_double_poiseuille_sign(11.99, L) == -1.0);
    assert_true(vs_double_poiseuille_sign(-0.01, L) == -1.0);  /* wraps to 11.99 */
    assert_true(vs_double_poiseuille_sign(12.01, L) == 1.0);   /* wraps to 0.01 */
    assert_true(vs_double_poiseuille_sign(-6.01, L) == 1.0);
    assert_true(vs_double_poiseuille_force(1.0, L, 1, 0, 0.5) == 0.0);  /* not driven */
    assert_true(vs_double_poiseuille_force(1.0, L, 1, -1, 0.5) == 0.5); /* all */
    assert_true(vs_double_poiseuille_force(7.0, L, 0, 0, 0.5) == -0.5);
}

static void make_particles(vs_particles *p, int64_t n, const double box[3])
{
    vs_particles_init(p, n);
    p->n_owned = n;
    uint64_t s = 88172645463325252ull;
    for (int64_t i = 0; i < n; ++i) {
        for (int d = 0; d < 3; ++d) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            /* a few particles a little outside the box, as between migrations */
            p->x[d][i] = ((double)(s >> 11) / 9007199254740992.0) * (box[d] + 0.4) - 0.2;
            p->f[d][i] = 0.0;
        }
        p->species[i] = (int32_t)(i % 2);
        p->tag[i] = i;
    }
}

static void momentum_by_half(int driven)
{
    vs_params prm;
    vs_test_groot_warren(&prm, 10.0);
    prm.system.box[0] = 12.0;
    prm.species.n = 2;
    prm.flow.kind = VS_FLOW_DOUBLE_POISEUILLE;
    prm.flow.axis = 2;
    prm.flow.across = 0;
    prm.flow.species = driven;
    prm.flow.g = 0.055;
    vs_particles p;
    const int64_t n = 4608;
    make_particles(&p, n, prm.system.box);
    vs_cpu_state s;
    memset(&s, 0, sizeof s);
    s.prm = &prm;
    s.parts = &p;
    vs_backend_cpu.forces_begin(&s, 0); /* the fixed-point sums that the flow term adds to */
    vs_cpu_flow_forces(&s);
    vs_backend_cpu.forces_end(&s, 0);
    double lower = 0.0, upper = 0.0, other = 0.0;
    int64_t n_lower = 0, n_upper = 0;
    for (int64_t i = 0; i < n; ++i) {
        other += fabs(p.f[0][i]) + fabs(p.f[1][i]);
        if (driven >= 0 && p.species[i] != driven) {
            other += fabs(p.f[2][i]);
            continue;
        }
        const double u = p.x[0][i] - prm.system.box[0] * floor(p.x[0][i] / prm.system.box[0]);
        if (u < 6.0)
            lower += p.f[2][i], ++n_lower;
        else
            upper += p.f[2][i], ++n_upper;
    }
    print_message("driven %d: %lld lower, %lld upper; momentum input %.6f and %.6f per step "
                  "(dt = 1)\n", driven, (long long)n_lower, (long long)n_upper, lower, upper);
    VS_ASSERT_NEAR(lower, 0.055 * (double)n_lower, 1e-9);
    VS_ASSERT_NEAR(upper, -0.055 * (double)n_upper, 1e-9);
    assert_true(other == 0.0);
    assert_true(n_lower > 0 && n_upper > 0);
    for (int d = 0; d < 3; ++d)
        free(s.fq[d]);
    free(s.fq_bad);
    vs_particles_free(&p);
}

static void test_momentum_all(void **state)
{
    (void)state;
    momentum_by_half(-1);
}

static void test_momentum_one_species(void **state)
{
    (void)state;
    momentum_by_half(1);
}

/* The force field lists the term after DPD only when asked; the total force of a run's first
 * evaluation is the DPD total (zero: Newton's third law) plus N_lower g - N_upper g. */
static void test_in_simulation(void **state)
{
    (void)state;
    vs_params prm;
    vs_test_groot_warren(&prm, 8.0);
    vs_forcefield ff;
    char err[256];
    assert_int_equal(vs_forcefield_init(&ff, &prm, err, sizeof err), 0);
    assert_int_equal(ff.n_terms, 1);
    prm.flow.kind = VS_FLOW_DOUBLE_POISEUILLE;
    prm.flow.axis = 1;
    prm.flow.across = 2;
    prm.flow.species = -1;
    prm.flow.g = 0.25;
    assert_int_equal(vs_forcefield_init(&ff, &prm, err, sizeof err), 0);
    assert_int_equal(ff.n_terms, 2);
    assert_string_equal(ff.terms[1]->name, "flow");
    vs_sim sim;
    assert_int_equal(vs_sim_create(&sim, &prm, MPI_COMM_SELF, err, sizeof err), 0);
    assert_int_equal(vs_sim_start(&sim, err, sizeof err), 0);
    double total[3] = {0, 0, 0};
    int64_t n_lower = 0;
    for (int64_t i = 0; i < sim.parts.n_owned; ++i) {
        for (int d = 0; d < 3; ++d)
            total[d] += sim.parts.f[d][i];
        n_lower += vs_double_poiseuille_sign(sim.parts.x[2][i], prm.system.box[2]) > 0.0;
    }
    const double want = 0.25 * (double)(2 * n_lower - sim.parts.n_owned);
    print_message("total force %.3e %.6f %.3e, expected 0 %.6f 0\n", total[0], total[1],
                  total[2], want);
    VS_ASSERT_NEAR(total[0], 0.0, 1e-8);
    VS_ASSERT_NEAR(total[1], want, 1e-8);
    VS_ASSERT_NEAR(total[2], 0.0, 1e-8);
    vs_sim_destroy(&sim);
}

int main(int argc, char **argv)
{
    vs_par_init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sign),
        cmocka_unit_test(test_momentum_all),
        cmocka_unit_test(test_momentum_one_species),
        cmocka_unit_test(test_in_simulation),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    vs_par_finalize();
    return rc;
}
