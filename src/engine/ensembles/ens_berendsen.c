/* integrator.kind = "berendsen": velocity Verlet, then every velocity scaled by Berendsen's
 * factor from the exact 2K after the kick (ensemble.h), and with oriented species every
 * rotation rate u by its own factor from the rotational temperature; both from one
 * reduction of the kinetic sums. A backend that offers berendsen_half_steps computes the
 * factors where the velocities are (the same formula, vs_berendsen_scale) and runs the second
 * half fused with the next first half. */
#include "ensemble_step.h"

#include "integrator.h"

/* The rotational factor: Berendsen's with the rotational temperature 2 K_rot / (2 N_rot),
 * as GALAMOST scales rotation apart from translation. */
static double rotation_factor(const vs_ens_ctx *c, double ke2, double n)
{
    const vs_params *p = c->prm;
    return vs_berendsen_scale(p->integrator.dt, p->integrator.tau, p->dpd.kT, ke2, 2.0 * n);
}

static void sum_over_ranks(const void *par, vs_wide *w, int n) { vs_par_sum_wide(par, w, n); }

/* The backend's own half-steps: the same sums and factors without bringing the sums to the
 * host at one rank. */
static void device_half_steps(const vs_ens_ctx *c, int with_first_half)
{
    c->b->berendsen_half_steps(c->st, with_first_half, vs_ensemble_dof(c->prm),
                               c->par->size > 1 ? sum_over_ranks : NULL, c->par);
}

static void second_half(const vs_ens_ctx *c)
{
    if (c->b->berendsen_half_steps) {
        device_half_steps(c, 0);
        return;
    }
    c->b->integrate_second_half(c->st);
    /* the rotation's sums do not change as v is scaled: one reduction serves both */
    double s[VS_KINETIC_SUMS];
    vs_ens_global_sums(c, s);
    c->b->scale_velocities(c->st, vs_berendsen_factor(c->prm, 2.0 * s[3]));
    if (vs_params_oriented(c->prm))
        c->b->scale_rotation(c->st, rotation_factor(c, 2.0 * s[5], s[6]));
}

static int fuses_on(const vs_backend *b) { return b->berendsen_half_steps != NULL; }

static void finish_and_first_half(const vs_ens_ctx *c) { device_half_steps(c, 1); }

const vs_ensemble_kind vs_ens_berendsen = {
    .kind = VS_INTEGRATOR_BERENDSEN,
    .name = "berendsen",
    .columns = 0,
    .momentum = VS_MOMENTUM_DIRECTION,
    .thermostat = 1,
    .first_half = vs_ens_verlet_first,
    .second_half = second_half,
    .fuses_on = fuses_on,
    .finish_and_first_half = finish_and_first_half,
    .thermostat_energy = vs_ens_chain_energy,
};
