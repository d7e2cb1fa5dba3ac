/* integrator.kind = "langevin": an Ornstein-Uhlenbeck half-step (O, dt/2) before the first
 * half-kick and after the second (integrator.h), keyed by the step, around velocity Verlet. */
#include "ensemble_step.h"

static void first_half(const vs_ens_ctx *c)
{
    c->b->ensemble_op(c->st, VS_ENSEMBLE_OP_LANGEVIN_FIRST, c->step, c->c);
    c->b->integrate_first_half(c->st);
}

static void second_half(const vs_ens_ctx *c)
{
    c->b->integrate_second_half(c->st);
    c->b->ensemble_op(c->st, VS_ENSEMBLE_OP_LANGEVIN_SECOND, c->step, c->c);
}

/* A backend that offers it runs the second half and the next first half in one pass (the
 * same arithmetic and random numbers as the four calls above). */
static int fuses_on(const vs_backend *b) { return b->langevin_half_steps != NULL; }

static void finish_and_first_half(const vs_ens_ctx *c)
{
    c->b->langevin_half_steps(c->st, c->step, c->c);
}

const vs_ensemble_kind vs_ens_langevin = {
    .kind = VS_INTEGRATOR_LANGEVIN,
    .name = "langevin",
    .columns = 0,
    .momentum = VS_MOMENTUM_FREE,
    .thermostat = 1,
    .fuses_on = fuses_on,
    .finish_and_first_half = finish_and_first_half,
    .first_half = first_half,
    .second_half = second_half,
    .thermostat_energy = vs_ens_chain_energy,
};
