/* integrator.kind = "berendsen": velocity Verlet, then every velocity scaled by Berendsen's
 * factor from the exact 2K after the kick (ensemble.h), and with oriented species every
 * rotation rate u by its own factor from the rotational temperature; both from one
 * reduction of the kinetic sums. */
#include "ensemble_step.h"

#include <math.h>

/* The rotational factor: Berendsen's with the rotational temperature 2 K_rot / (2 N_rot),
 * as GALAMOST scales rotation apart from translation. */
static double rotation_factor(const vs_ens_ctx *c, double ke2, double n)
{
    if (!(ke2 > 0.0) || !(n > 0.0))
        return 1.0;
    const vs_params *p = c->prm;
    const double t = ke2 / (2.0 * n); /* two rotational degrees of freedom each */
    const double f2 = 1.0 + p->integrator.dt / p->integrator.tau * (p->dpd.kT / t - 1.0);
    return f2 > 0.0 ? sqrt(f2) : 0.0;
}

static void second_half(const vs_ens_ctx *c)
{
    c->b->integrate_second_half(c->st);
    /* the rotation's sums do not change as v is scaled: one reduction serves both */
    double s[VS_KINETIC_SUMS];
    vs_ens_global_sums(c, s);
    c->b->scale_velocities(c->st, vs_berendsen_factor(c->prm, 2.0 * s[3]));
    if (vs_params_oriented(c->prm))
        c->b->scale_rotation(c->st, rotation_factor(c, 2.0 * s[5], s[6]));
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
