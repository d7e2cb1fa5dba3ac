/* integrator.kind = "brownian": the overdamped Brownian step (integrator.h) in place of the
 * first half, positions from the forces and noise, velocities a Maxwell-Boltzmann draw; no
 * second half. */
#include "ensemble_step.h"

static void first_half(const vs_ens_ctx *c) { c->b->brownian_step(c->st, c->step, c->c); }

static void second_half(const vs_ens_ctx *c) { (void)c; }

const vs_ensemble_kind vs_ens_brownian = {
    .kind = VS_INTEGRATOR_BROWNIAN,
    .name = "brownian",
    .columns = 0,
    .momentum = VS_MOMENTUM_FREE,
    .thermostat = 1,
    .first_half = first_half,
    .second_half = second_half,
    .thermostat_energy = vs_ens_chain_energy,
};
