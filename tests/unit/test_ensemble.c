/* The ensembles' building blocks (src/core/integrator.h, src/core/ensemble.c) against exact
 * results:
 * - the per-particle Gaussians (TEA keyed by seed, step, tag and stream): over 300,000
 *   particles, mean 0 and variance 1 within 5 standard errors, fourth moment 3 (Gaussian,
 *   not uniform), and no correlation between the three components, between streams, between
 *   steps or between neighbouring tags beyond 5 standard errors (1 / sqrt(n));
 * - Andersen's collision test fires with its probability p (binomial, 5 standard errors);
 * - the Ornstein-Uhlenbeck step keeps the Maxwell-Boltzmann variance kT / m of v exactly
 *   (c^2 kT/m + sigma^2 = kT/m) and relaxes the mean as exp(-gamma h);
 * - the Nose-Hoover chain at 2K = N_f kT and rest leaves the velocities alone (factor 1), a
 *   hot system gets a factor below 1 and a cold one above; the carried 2K is scaled by the
 *   factor squared; Berendsen's factor is sqrt(1 + dt/tau (kT/T - 1)) by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ensemble.h"
#include "integrator.h"

#define N_TAGS 300000

static void test_particle_gaussians(void **state)
{
    (void)state;
    const uint64_t seed = 12345;
    double s[3] = {0, 0, 0}, s2[3] = {0, 0, 0}, s4 = 0.0;
    double c01 = 0, c02 = 0, c12 = 0, c_stream = 0, c_step = 0, c_tag = 0;
    double prev = 0.0;
    for (uint64_t t = 0; t < N_TAGS; ++t) {
        double g[3], h[3], k[3];
        vs_particle_gauss3(seed, 77, VS_STREAM_LANGEVIN_FIRST, 0, t, g);
        vs_particle_gauss3(seed, 77, VS_STREAM_LANGEVIN_SECOND, 0, t, h);
        vs_particle_gauss3(seed, 78, VS_STREAM_LANGEVIN_FIRST, 0, t, k);
        for (int d = 0; d < 3; ++d) {
            s[d] += g[d];
            s2[d] += g[d] * g[d];
        }
        s4 += g[0] * g[0] * g[0] * g[0];
        c01 += g[0] * g[1];
        c02 += g[0] * g[2];
        c12 += g[1] * g[2];
        c_stream += g[0] * h[0];
        c_step += g[0] * k[0];
        c_tag += g[0] * prev;
        prev = g[0];
    }
    const double n = N_TAGS, se = 1.0 / sqrt(n);
    for (int d = 0; d < 3; ++d) {
        assert_true(fabs(s[d] / n) < 5 * se);
        assert_true(fabs(s2[d] / n - 1.0) < 5 * sqrt(2.0) * se);
    }
    /* E g^4 = 3 for a Gaussian (9/5 for the uniform of the same variance); Var g^4 = 96 */
    assert_true(fabs(s4 / n - 3.0) < 5 * sqrt(96.0) * se);
    const double corr[6] = {c01, c02, c12, c_stream, c_step, c_tag};
    for (int k = 0; k < 6; ++k)
        assert_true(fabs(corr[k] / n) < 5 * se);
}

static void test_andersen_probability(void **state)
{
    (void)state;
    const double p = 0.05;
    int64_t hits = 0;
    for (uint64_t t = 0; t < N_TAGS; ++t)
        hits += vs_andersen_collides(99, 1000, t, p);
    const double n = N_TAGS;
    assert_true(fabs((double)hits - p * n) < 5 * sqrt(n * p * (1 - p)));
}

static void test_ou_step(void **state)
{
    (void)state;
    vs_params p;
    memset(&p, 0, sizeof p);
    p.species.n = 2;
    p.species.list[0].mass = 1.0;
    p.species.list[1].mass = 3.0;
    p.dpd.kT = 1.7;
    p.integrator.dt = 0.02;
    p.integrator.friction = 2.5;
    vs_ensemble_consts c;
    vs_ensemble_consts_make(&c, &p);
    for (int s = 0; s < 2; ++s) {
        const double want = p.dpd.kT / p.species.list[s].mass;
        const double kept = c.ou_c[s] * c.ou_c[s] * want + c.ou_sigma[s] * c.ou_sigma[s];
        assert_true(fabs(kept - want) < 1e-15 * want);
        assert_true(fabs(c.ou_c[s] - exp(-2.5 * 0.01)) < 1e-16);
        assert_true(fabs(c.mb_sigma[s] - sqrt(want)) < 1e-15);
        assert_true(fabs(c.mobility_dt[s] - 0.02 / (p.species.list[s].mass * 2.5)) < 1e-17);
        assert_true(fabs(c.bd_noise[s] - sqrt(2 * 1.7 * 0.02 / (p.species.list[s].mass * 2.5))) <
                    1e-16);
    }
    /* the mean of v relaxes as exp(-gamma h) (noise of mean zero) */
    assert_true(vs_ou_step(2.0, c.ou_c[0], c.ou_sigma[0], 0.0) == 2.0 * c.ou_c[0]);
}

static void test_nose_hoover_chain(void **state)
{
    (void)state;
    vs_params p;
    memset(&p, 0, sizeof p);
    p.system.n_particles = 1000;
    p.dpd.kT = 1.0;
    p.integrator.dt = 0.01;
    p.integrator.tau = 0.5;
    p.integrator.chain = 3;
    p.integrator.kind = VS_INTEGRATOR_NOSE_HOOVER;
    const double dof = 2997.0;
    vs_ensemble_state e;
    vs_ensemble_init(&e, &p);
    assert_int_equal(e.chain, 3);
    /* at the target with the chain at rest: nothing moves but the chain's own kT drive */
    e.ke2 = dof * p.dpd.kT;
    const double f = vs_nhc_half_step(&e, &p);
    assert_true(f == 1.0);
    assert_true(e.vxi[0] == 0.0);
    assert_true(e.ke2 == dof * p.dpd.kT);
    /* hot: the factor cools, the carried 2K follows the factor squared */
    vs_ensemble_init(&e, &p);
    e.ke2 = 2.0 * dof * p.dpd.kT;
    const double hot = vs_nhc_half_step(&e, &p);
    assert_true(hot < 1.0 && e.vxi[0] > 0.0);
    assert_true(fabs(e.ke2 - 2.0 * dof * p.dpd.kT * hot * hot) < 1e-12 * e.ke2);
    /* by hand, the backward sweep from rest (Q_1 = N_f kT tau^2, Q_k = kT tau^2 = 0.25):
     * v3 gets dt/4 (0 - kT) / Q_3 = -0.01; v2 the same between damping factors
     * exp(-dt/8 v3) (zero before it: only the second counts); v1 dt/4 (2K - N_f kT) / Q_1 =
     * dt/4 * 4 the same with exp(-dt/8 v2); then the
     * velocities are scaled by exp(-dt/2 v1) */
    const double v3 = 0.0025 * -4.0, d2 = exp(-0.00125 * v3);
    const double v2 = 0.0025 * -4.0 * d2, d1 = exp(-0.00125 * v2);
    const double v1 = 0.0025 * 4.0 * d1;
    assert_true(fabs(hot - exp(-0.005 * v1)) < 1e-15);
    /* cold: heats */
    vs_ensemble_init(&e, &p);
    e.ke2 = 0.5 * dof * p.dpd.kT;
    assert_true(vs_nhc_half_step(&e, &p) > 1.0);
    /* the energy: N_f kT xi_1 + sum kT xi_k + Q_k v_k^2 / 2 */
    vs_ensemble_init(&e, &p);
    e.xi[0] = 0.5;
    e.xi[1] = 2.0;
    e.vxi[0] = 0.1;
    e.vxi[2] = 3.0;
    const double want = dof * 0.5 + 2.0 + 0.5 * dof * 0.25 * 0.01 + 0.5 * 0.25 * 9.0;
    assert_true(fabs(vs_nhc_energy(&e, &p) - want) < 1e-12 * want);
}

static void test_berendsen_factor(void **state)
{
    (void)state;
    vs_params p;
    memset(&p, 0, sizeof p);
    p.system.n_particles = 101; /* 300 degrees of freedom */
    p.dpd.kT = 2.0;
    p.integrator.dt = 0.01;
    p.integrator.tau = 0.1;
    assert_true(fabs(vs_berendsen_factor(&p, 300.0 * 2.0) - 1.0) < 1e-15);
    /* T = 4 = 2 kT: sqrt(1 + 0.1 (0.5 - 1)) */
    assert_true(fabs(vs_berendsen_factor(&p, 300.0 * 4.0) - sqrt(0.95)) < 1e-15);
    assert_true(vs_berendsen_factor(&p, 0.0) == 1.0);
}

/* npt: the half-step factors against the closed-form solutions of their equations,
 * dv/dt = a - alpha v_eps v over dt/2 and dx/dt = v + v_eps x over dt (alpha = 1 + 3 / N_f),
 * computed here from exp and expm1 directly; plain velocity Verlet at v_eps = 0. */
static void test_npt_factors(void **state)
{
    (void)state;
    vs_params p;
    memset(&p, 0, sizeof p);
    p.system.n_particles = 101; /* N_f = 300 */
    p.dpd.kT = 1.0;
    p.integrator.dt = 0.01;
    p.integrator.tau = 0.5;
    p.integrator.tau_p = 2.0;
    p.integrator.chain = 3;
    p.integrator.kind = VS_INTEGRATOR_NPT;
    vs_ensemble_state e;
    vs_ensemble_init(&e, &p);
    assert_true(e.barostat == 1 && e.chain == 3);
    vs_npt_coefs c = vs_npt_coefs_make(&e, &p);
    assert_true(c.cv == 1.0 && c.cf == 0.005 && c.cx == 1.0 && c.cxv == 0.01);
    const double alpha = 1.0 + 3.0 / 300.0;
    /* v_eps across the series' switch (|y| = 1e-3) and well beyond it */
    const double veps[] = {3e-7, -0.199, 0.2001, 7.5, -40.0};
    for (size_t k = 0; k < sizeof veps / sizeof veps[0]; ++k) {
        e.veps = veps[k];
        c = vs_npt_coefs_make(&e, &p);
        const double u = alpha * e.veps, h = 0.5 * p.integrator.dt;
        assert_true(fabs(c.cv - exp(-u * h)) < 1e-15);
        const double cf = -expm1(-u * h) / u;
        assert_true(fabs(c.cf - cf) < 1e-13 * cf);
        assert_true(fabs(c.cx - exp(e.veps * p.integrator.dt)) < 1e-14 * c.cx);
        const double cxv = expm1(e.veps * p.integrator.dt) / e.veps;
        assert_true(fabs(c.cxv - cxv) < 1e-13 * cxv);
    }
    /* the barostat mass and the energy beyond K + U: P V + W v^2 / 2 + chains */
    const double w = (300.0 + 3.0) * 1.0 * 4.0;
    assert_true(fabs(vs_npt_mass(&p) - w) < 1e-12 * w);
    vs_ensemble_init(&e, &p);
    p.integrator.pressure = 2.0;
    e.veps = 0.1;
    e.bxi[0] = 0.5;
    e.bvxi[1] = 2.0;
    const double want = 2.0 * 10.0 + 0.5 * w * 0.01 + 0.5 + 0.5 * 4.0 * 4.0;
    assert_true(fabs(vs_npt_energy(&e, &p, 10.0) - want) < 1e-12 * want);
    /* G = (1 + 3 / N_f) 2K + W_vir - 3 P V drives v_eps: zero at the balance */
    vs_ensemble_init(&e, &p);
    e.ke2 = 300.0;
    e.virial = 3.0 * p.integrator.pressure * 10.0 - alpha * 300.0;
    vs_npt_veps_half_step(&e, &p, 10.0);
    assert_true(fabs(e.veps) < 1e-15);
    e.virial += w; /* a force of W: v_eps grows by dt / 2 */
    vs_npt_veps_half_step(&e, &p, 10.0);
    assert_true(fabs(e.veps - 0.005) < 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_particle_gaussians),
        cmocka_unit_test(test_andersen_probability),
        cmocka_unit_test(test_ou_step),
        cmocka_unit_test(test_nose_hoover_chain),
        cmocka_unit_test(test_berendsen_factor),
        cmocka_unit_test(test_npt_factors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
