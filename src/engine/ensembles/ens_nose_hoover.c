/* integrator.kind = "nose_hoover": a Nose-Hoover chain around velocity Verlet (ensemble.h).
 * Each half drives the chain dt/2 from 2K and scales every velocity by its factor; the first
 * half carries 2K from the last scaling, the second sums it anew after the kick. */
#include "ensemble_step.h"

static void first_half(const vs_ens_ctx *c)
{
    if (!c->e->have_ke) { /* the first step of a new run */
        c->e->ke2 = vs_ens_global_ke2(c);
        c->e->have_ke = 1;
    }
    c->b->scale_velocities(c->st, vs_nhc_half_step(c->e, c->prm));
    c->b->integrate_first_half(c->st);
}

static void second_half(const vs_ens_ctx *c)
{
    c->b->integrate_second_half(c->st);
    c->e->ke2 = vs_ens_global_ke2(c);
    c->e->have_ke = 1;
    c->b->scale_velocities(c->st, vs_nhc_half_step(c->e, c->prm));
}

const vs_ensemble_kind vs_ens_nose_hoover = {
    .kind = VS_INTEGRATOR_NOSE_HOOVER,
    .name = "nose_hoover",
    .columns = 2,
    .momentum = VS_MOMENTUM_DIRECTION,
    .thermostat = 1,
    .first_half = first_half,
    .second_half = second_half,
    .thermostat_energy = vs_ens_chain_energy,
};
