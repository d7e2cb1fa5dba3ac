/* integrator.kind = "berendsen": velocity Verlet, then every velocity scaled by Berendsen's
 * factor from the exact 2K after the kick (ensemble.h). */
#include "ensemble_step.h"

static void second_half(const vs_ens_ctx *c)
{
    c->b->integrate_second_half(c->st);
    c->b->scale_velocities(c->st, vs_berendsen_factor(c->prm, vs_ens_global_ke2(c)));
}

const vs_ensemble_kind vs_ens_berendsen = {
    .kind = VS_INTEGRATOR_BERENDSEN,
    .name = "berendsen",
    .columns = 0,
    .momentum = VS_MOMENTUM_DIRECTION,
    .thermostat = 1,
    .first_half = vs_ens_verlet_first,
    .second_half = second_half,
    .thermostat_energy = vs_ens_chain_energy,
};
