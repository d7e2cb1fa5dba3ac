/* integrator.kind = "andersen": velocity Verlet, then Andersen's collisions after the second
 * half-kick (integrator.h): each particle draws a Maxwell-Boltzmann velocity with the
 * collision probability of one step. */
#include "ensemble_step.h"

static void second_half(const vs_ens_ctx *c)
{
    c->b->integrate_second_half(c->st);
    c->b->ensemble_op(c->st, VS_ENSEMBLE_OP_ANDERSEN, c->step, c->c);
}

const vs_ensemble_kind vs_ens_andersen = {
    .kind = VS_INTEGRATOR_ANDERSEN,
    .name = "andersen",
    .columns = 0,
    .momentum = VS_MOMENTUM_FREE,
    .thermostat = 1,
    .first_half = vs_ens_verlet_first,
    .second_half = second_half,
    .thermostat_energy = vs_ens_chain_energy,
};
