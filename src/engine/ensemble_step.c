/* The ensembles in the step: see ensemble_step.h. */
#include "ensemble_step.h"

#include <math.h>
#include <string.h>

/* Every ensemble kind (src/engine/ensembles/ens_<name>.c). */
extern const vs_ensemble_kind vs_ens_dpd, vs_ens_nve, vs_ens_nose_hoover, vs_ens_langevin,
    vs_ens_andersen, vs_ens_berendsen, vs_ens_brownian, vs_ens_npt;
static const vs_ensemble_kind *const registry[] = {
    &vs_ens_dpd,      &vs_ens_nve,       &vs_ens_nose_hoover, &vs_ens_langevin,
    &vs_ens_andersen, &vs_ens_berendsen, &vs_ens_brownian,    &vs_ens_npt,
};

const vs_ensemble_kind *vs_ensemble_kind_of(vs_integrator_kind kind)
{
    for (size_t k = 0; k < sizeof registry / sizeof registry[0]; ++k)
        if (registry[k]->kind == kind)
            return registry[k];
    return NULL;
}

const char *vs_ensemble_name(vs_integrator_kind kind)
{
    const vs_ensemble_kind *k = vs_ensemble_kind_of(kind);
    return k ? k->name : "?";
}

int vs_ensemble_columns(const vs_params *p)
{
    const vs_ensemble_kind *k = vs_ensemble_kind_of(p->integrator.kind);
    return k ? k->columns : 0;
}

void vs_ensemble_setup(vs_ensemble_state *e, vs_ensemble_consts *c, const vs_params *p)
{
    vs_ensemble_init(e, p);
    vs_ensemble_consts_make(c, p);
}

void vs_ens_global_sums(const vs_ens_ctx *c, double out[VS_KINETIC_SUMS])
{
    vs_wide w[VS_KINETIC_SUMS + 1];
    w[VS_KINETIC_SUMS] = c->b->kinetic_sums(c->st, w) != 0;
    vs_par_sum_wide(c->par, w, VS_KINETIC_SUMS + 1);
    for (int k = 0; k < VS_KINETIC_SUMS; ++k)
        out[k] = w[VS_KINETIC_SUMS] != 0 ? NAN : vs_wide_to_double(w[k]);
}

double vs_ens_global_ke2(const vs_ens_ctx *c)
{
    double s[VS_KINETIC_SUMS];
    vs_ens_global_sums(c, s);
    return 2.0 * s[3];
}

double vs_ens_volume(const vs_ens_ctx *c)
{
    return c->prm->system.box[0] * c->prm->system.box[1] * c->prm->system.box[2];
}

/* The thermo's reduction (exact sums on both backends), and rank 0's value on every rank, so
 * that every rank scales the same box. */
double vs_ens_global_virial(const vs_ens_ctx *c)
{
    vs_thermo_local local;
    memset(&local, 0, sizeof local);
    c->b->local_thermo(c->st, &local);
    vs_thermo t;
    vs_thermo_reduce(c->par, c->prm, &local, c->step, &t);
    double w = t.virial + c->tail_virial;
    vs_par_bcast_bytes(c->par, &w, sizeof w, 0);
    return w;
}

void vs_ens_global_rotation(const vs_ens_ctx *c, double *ke2, double *n_oriented)
{
    double s[VS_KINETIC_SUMS];
    vs_ens_global_sums(c, s);
    *ke2 = 2.0 * s[5];
    *n_oriented = s[6];
}

void vs_ens_verlet_first(const vs_ens_ctx *c) { c->b->integrate_first_half(c->st); }
void vs_ens_verlet_second(const vs_ens_ctx *c) { c->b->integrate_second_half(c->st); }

double vs_ens_chain_energy(const vs_ens_ctx *c, double volume)
{
    (void)volume;
    return vs_nhc_energy(c->e, c->prm);
}

static void remove_com(const vs_ens_ctx *c)
{
    double s[VS_KINETIC_SUMS];
    vs_ens_global_sums(c, s);
    if (!(s[4] > 0.0))
        return;
    const double dv[3] = {s[0] / s[4], s[1] / s[4], s[2] / s[4]};
    c->b->shift_velocities(c->st, dv);
}

static int remove_com_due(const vs_params *p, int64_t step)
{
    const int64_t every = p->integrator.remove_com_every;
    return every > 0 && step % every == 0;
}

void vs_ensemble_second_half(const vs_ensemble_kind *k, const vs_ens_ctx *c)
{
    k->second_half(c);
    if (remove_com_due(c->prm, c->step))
        remove_com(c);
}

int vs_ensemble_fusable(const vs_ensemble_kind *k, const vs_backend *b, const vs_params *p,
                        int64_t step)
{
    if (remove_com_due(p, step))
        return 0;
    if (k->fusable)
        return b->integrate_finish_and_first_half != NULL;
    return k->fuses_on && k->fuses_on(b);
}

void vs_ensemble_finish_and_first_half(const vs_ensemble_kind *k, const vs_ens_ctx *c)
{
    if (k->fusable)
        c->b->integrate_finish_and_first_half(c->st);
    else
        k->finish_and_first_half(c);
}

void vs_ensemble_thermo(const vs_ensemble_kind *k, const vs_ens_ctx *c, vs_thermo *t)
{
    t->ensemble_columns = k->columns;
    t->volume = vs_ens_volume(c);
    t->thermostat_energy = k->thermostat_energy(c, t->volume);
    t->conserved_energy = t->kinetic + t->potential + t->thermostat_energy;
    if (vs_params_oriented(c->prm)) {
        double ke2, n;
        vs_ens_global_rotation(c, &ke2, &n);
        t->oriented = 1;
        t->rot_kinetic = 0.5 * ke2;
        t->rot_temperature = n > 0.0 ? ke2 / (2.0 * n) : 0.0;
        t->conserved_energy += t->rot_kinetic;
    }
}
