/* The ensembles in the step: see ensemble_step.h. */
#include "ensemble_step.h"

#include <math.h>
#include <string.h>

#include "backend.h"
#include "integrate.h"

void vs_ensemble_setup(vs_sim *sim)
{
    vs_ensemble_init(&sim->ens, &sim->prm);
    vs_ensemble_consts_make(&sim->ens_c, &sim->prm);
}

/* Global exact sums of m v, m v^2 / 2 and m: the same doubles on every rank. */
static void global_sums(vs_sim *sim, double out[5])
{
    vs_wide w[6];
    w[5] = sim->backend->momentum_sums(sim, w) != 0;
    vs_par_sum_wide(&sim->dc.cart, w, 6);
    for (int k = 0; k < 5; ++k)
        out[k] = w[5] != 0 ? NAN : vs_wide_to_double(w[k]);
}

static double global_ke2(vs_sim *sim)
{
    double s[5];
    global_sums(sim, s);
    return 2.0 * s[3];
}

/* ---- npt (ensemble.h) ---------------------------------------------------------------- */

static double volume_of(const vs_sim *sim)
{
    return sim->prm.system.box[0] * sim->prm.system.box[1] * sim->prm.system.box[2];
}

/* W_vir of the current forces with the lj tail's: the thermo's reduction (exact sums on
 * both backends), and rank 0's value on every rank, so that every rank scales the same box. */
static double global_virial(vs_sim *sim)
{
    vs_thermo_local local;
    memset(&local, 0, sizeof local);
    sim->backend->local_thermo(sim, &local);
    vs_thermo t;
    vs_thermo_reduce(&sim->dc.cart, &sim->prm, &local, sim->step, &t);
    double w = t.virial + sim->tail_virial;
    vs_par_bcast_bytes(&sim->dc.cart, &w, sizeof w, 0);
    return w;
}

/* Chains dt/2, v_eps dt/2, velocities dt/2, positions and box dt. */
static void npt_first_half(vs_sim *sim)
{
    vs_ensemble_state *e = &sim->ens;
    const vs_params *p = &sim->prm;
    if (!e->have_ke) { /* the first step of a new run */
        e->ke2 = global_ke2(sim);
        e->have_ke = 1;
    }
    if (!e->have_virial) {
        e->virial = global_virial(sim);
        e->have_virial = 1;
    }
    vs_npt_chain_half_step(e, p);
    sim->backend->scale_velocities(sim, vs_nhc_half_step(e, p));
    vs_npt_veps_half_step(e, p, volume_of(sim));
    const vs_npt_coefs c = vs_npt_coefs_make(e, p);
    sim->backend->npt_half(sim, &c, 1);
    for (int d = 0; d < 3; ++d)
        e->box[d] *= c.cx;
    vs_sim_set_box(sim, e->box);
}

/* The mirror image after the forces: velocities dt/2, v_eps dt/2 from the exact 2K and the
 * new virial, chains dt/2. */
static void npt_second_half(vs_sim *sim)
{
    vs_ensemble_state *e = &sim->ens;
    const vs_params *p = &sim->prm;
    const vs_npt_coefs c = vs_npt_coefs_make(e, p);
    sim->backend->npt_half(sim, &c, 0);
    e->ke2 = global_ke2(sim);
    e->have_ke = 1;
    e->virial = global_virial(sim);
    e->have_virial = 1;
    vs_npt_veps_half_step(e, p, volume_of(sim));
    sim->backend->scale_velocities(sim, vs_nhc_half_step(e, p));
    vs_npt_chain_half_step(e, p);
}

void vs_ensemble_first_half(vs_sim *sim)
{
    const vs_backend *b = sim->backend;
    const int64_t step = sim->step + 1;
    switch (sim->prm.integrator.kind) {
    case VS_INTEGRATOR_NOSE_HOOVER:
        if (!sim->ens.have_ke) { /* the first step of a new run */
            sim->ens.ke2 = global_ke2(sim);
            sim->ens.have_ke = 1;
        }
        b->scale_velocities(sim, vs_nhc_half_step(&sim->ens, &sim->prm));
        b->integrate_first_half(sim);
        break;
    case VS_INTEGRATOR_LANGEVIN:
        b->ensemble_op(sim, VS_ENSEMBLE_OP_LANGEVIN_FIRST, step);
        b->integrate_first_half(sim);
        break;
    case VS_INTEGRATOR_BROWNIAN:
        b->brownian_step(sim, step);
        break;
    case VS_INTEGRATOR_NPT:
        npt_first_half(sim);
        break;
    default:
        b->integrate_first_half(sim);
        break;
    }
}

static void remove_com(vs_sim *sim)
{
    double s[5];
    global_sums(sim, s);
    if (!(s[4] > 0.0))
        return;
    const double dv[3] = {s[0] / s[4], s[1] / s[4], s[2] / s[4]};
    sim->backend->shift_velocities(sim, dv);
}

void vs_ensemble_second_half(vs_sim *sim)
{
    const vs_backend *b = sim->backend;
    const int64_t step = sim->step;
    const vs_integrator_kind kind = sim->prm.integrator.kind;
    if (kind == VS_INTEGRATOR_NPT)
        npt_second_half(sim);
    else if (kind != VS_INTEGRATOR_BROWNIAN)
        b->integrate_second_half(sim);
    switch (kind) {
    case VS_INTEGRATOR_NOSE_HOOVER:
        sim->ens.ke2 = global_ke2(sim);
        sim->ens.have_ke = 1;
        b->scale_velocities(sim, vs_nhc_half_step(&sim->ens, &sim->prm));
        break;
    case VS_INTEGRATOR_BERENDSEN:
        b->scale_velocities(sim, vs_berendsen_factor(&sim->prm, global_ke2(sim)));
        break;
    case VS_INTEGRATOR_LANGEVIN:
        b->ensemble_op(sim, VS_ENSEMBLE_OP_LANGEVIN_SECOND, step);
        break;
    case VS_INTEGRATOR_ANDERSEN:
        b->ensemble_op(sim, VS_ENSEMBLE_OP_ANDERSEN, step);
        break;
    default:
        break;
    }
    const int64_t every = sim->prm.integrator.remove_com_every;
    if (every > 0 && step % every == 0)
        remove_com(sim);
}

int vs_ensemble_fusable(const vs_sim *sim)
{
    const vs_integrator_kind kind = sim->prm.integrator.kind;
    const int64_t every = sim->prm.integrator.remove_com_every;
    return (kind == VS_INTEGRATOR_DPD || kind == VS_INTEGRATOR_NVE) &&
           !(every > 0 && sim->step % every == 0);
}

const char *vs_ensemble_name(vs_integrator_kind kind)
{
    switch (kind) {
    case VS_INTEGRATOR_DPD: return "dpd";
    case VS_INTEGRATOR_NVE: return "nve";
    case VS_INTEGRATOR_NOSE_HOOVER: return "nose_hoover";
    case VS_INTEGRATOR_LANGEVIN: return "langevin";
    case VS_INTEGRATOR_ANDERSEN: return "andersen";
    case VS_INTEGRATOR_BERENDSEN: return "berendsen";
    case VS_INTEGRATOR_BROWNIAN: return "brownian";
    case VS_INTEGRATOR_NPT: return "npt";
    }
    return "?";
}

int vs_ensemble_columns(const vs_params *p)
{
    return p->integrator.kind == VS_INTEGRATOR_NVE           ? 1
           : p->integrator.kind == VS_INTEGRATOR_NOSE_HOOVER ? 2
           : p->integrator.kind == VS_INTEGRATOR_NPT         ? 3
                                                        : 0;
}

void vs_ensemble_thermo(const vs_sim *sim, vs_thermo *t)
{
    t->ensemble_columns = vs_ensemble_columns(&sim->prm);
    t->volume = volume_of(sim);
    if (sim->prm.integrator.kind == VS_INTEGRATOR_NPT) /* the tail's energy as the barostat sees it */
        t->thermostat_energy = vs_npt_energy(&sim->ens, &sim->prm, t->volume) +
                               (sim->tail_virial / 3.0 - sim->tail_energy);
    else
        t->thermostat_energy = vs_nhc_energy(&sim->ens, &sim->prm);
    t->conserved_energy = t->kinetic + t->potential + t->thermostat_energy;
}
