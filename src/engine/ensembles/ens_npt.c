/* integrator.kind = "npt": the isotropic Martyna-Tobias-Klein barostat with Nose-Hoover
 * chains on the particles and on the barostat (src/core/ensemble.h has the algebra and the
 * factorisation). The first half leaves the new box in e->box; the step moves the box and
 * rebuilds (ensemble_step.h). */
#include "ensemble_step.h"

/* Chains dt/2, v_eps dt/2, velocities dt/2, positions and box dt. */
static void first_half(const vs_ens_ctx *c)
{
    vs_ensemble_state *e = c->e;
    const vs_params *p = c->prm;
    if (!e->have_ke) { /* the first step of a new run */
        e->ke2 = vs_ens_global_ke2(c);
        e->have_ke = 1;
    }
    if (!e->have_virial) {
        e->virial = vs_ens_global_virial(c);
        e->have_virial = 1;
    }
    vs_npt_chain_half_step(e, p);
    c->b->scale_velocities(c->st, vs_nhc_half_step(e, p));
    vs_npt_veps_half_step(e, p, vs_ens_volume(c));
    const vs_npt_coefs f = vs_npt_coefs_make(e, p);
    c->b->npt_half(c->st, &f, 1);
    for (int d = 0; d < 3; ++d)
        e->box[d] *= f.cx;
}

/* The mirror image after the forces: velocities dt/2, v_eps dt/2 from the exact 2K and the
 * new virial, chains dt/2. */
static void second_half(const vs_ens_ctx *c)
{
    vs_ensemble_state *e = c->e;
    const vs_params *p = c->prm;
    const vs_npt_coefs f = vs_npt_coefs_make(e, p);
    c->b->npt_half(c->st, &f, 0);
    e->ke2 = vs_ens_global_ke2(c);
    e->have_ke = 1;
    e->virial = vs_ens_global_virial(c);
    e->have_virial = 1;
    vs_npt_veps_half_step(e, p, vs_ens_volume(c));
    c->b->scale_velocities(c->st, vs_nhc_half_step(e, p));
    vs_npt_chain_half_step(e, p);
}

/* P V, the barostat's kinetic energy and both chains, with the lj tail's energy as the
 * barostat sees it (W_tail / 3 in place of the tail energy: ensemble.h). */
static double thermostat_energy(const vs_ens_ctx *c, double volume)
{
    return vs_npt_energy(c->e, c->prm, volume) + (c->tail_virial / 3.0 - c->tail_energy);
}

const vs_ensemble_kind vs_ens_npt = {
    .kind = VS_INTEGRATOR_NPT,
    .name = "npt",
    .columns = 3,
    .moves_box = 1,
    .momentum = VS_MOMENTUM_FREE,
    .thermostat = 1,
    .first_half = first_half,
    .second_half = second_half,
    .thermostat_energy = thermostat_energy,
};
