/* Integrator: see integrate.h. */
#include "integrate.h"

#include <math.h>

#include "integrator.h"
#include "log.h"
#include "wrap.h"

/* 1 / mass of every species. */
static void inverse_masses(const vs_params *prm, double inv_mass[VS_MAX_SPECIES])
{
    for (int s = 0; s < prm->species.n; ++s)
        inv_mass[s] = 1.0 / prm->species.list[s].mass;
}

/* 1 for each frozen species (they never move); returns whether any species is frozen. */
static int frozen_species(const vs_params *prm, int frozen[VS_MAX_SPECIES])
{
    int any = 0;
    for (int s = 0; s < VS_MAX_SPECIES; ++s) {
        frozen[s] = s < prm->species.n && prm->species.list[s].frozen;
        any |= frozen[s];
    }
    return any;
}

void vs_integrate_walls(vs_particles *p, const vs_params *prm)
{
    const vs_walls w = vs_walls_of(prm);
    for (int64_t i = 0; i < p->n_owned; ++i) {
        int inside = 1;
        for (int d = 0; d < 3; ++d)
            inside &= w.kind[d] == VS_BOUNDARY_PERIODIC ||
                      (p->x[d][i] >= 0.0 && p->x[d][i] < w.len[d]);
        if (inside)
            continue;
        double x[3], v[3], vp[3];
        for (int q = 0; q < 3; ++q) {
            x[q] = p->x[q][i];
            v[q] = p->v[q][i];
            vp[q] = p->vp[q][i];
        }
        if (vs_walls_reflect(&w, x, v, vp))
            VS_FATAL("particle %lld left the box through a wall (at [%g, %g, %g] after the "
                     "reflection, the box [%g, %g, %g]): it moved more than a box edge in one "
                     "step; the forces blew up or integrator.dt is too large",
                     (long long)p->tag[i], x[0], x[1], x[2], w.len[0], w.len[1], w.len[2]);
        for (int q = 0; q < 3; ++q) {
            p->x[q][i] = x[q];
            p->v[q][i] = v[q];
            p->vp[q][i] = vp[q];
        }
    }
}

/* The first half-step of the particles of species not frozen (frozen ones keep x and v). */
static void first_half_mobile(vs_particles *p, const vs_params *prm,
                              const int frozen[VS_MAX_SPECIES])
{
    const double dt = prm->integrator.dt, half_dt = 0.5 * prm->integrator.dt,
                 lambda_dt = prm->integrator.lambda * prm->integrator.dt;
    double inv_mass[VS_MAX_SPECIES];
    inverse_masses(prm, inv_mass);
    for (int d = 0; d < 3; ++d)
        for (int64_t i = 0; i < p->n_owned; ++i) {
            if (frozen[p->species[i]])
                continue;
            const double a = p->f[d][i] * inv_mass[p->species[i]];
            const double vi = p->v[d][i];
            p->x[d][i] = vs_vv_drift(p->x[d][i], vi, a, dt, half_dt);
            p->vp[d][i] = vs_vv_predict(vi, a, lambda_dt);
            p->v[d][i] = vs_vv_kick(vi, a, half_dt);
        }
}

void vs_integrate_first_half(vs_particles *p, const vs_params *prm)
{
    int frozen[VS_MAX_SPECIES];
    if (frozen_species(prm, frozen)) {
        first_half_mobile(p, prm, frozen);
        vs_integrate_walls(p, prm);
        return;
    }
    const double dt = prm->integrator.dt, half_dt = 0.5 * prm->integrator.dt,
                 lambda_dt = prm->integrator.lambda * prm->integrator.dt;
    double inv_mass[VS_MAX_SPECIES];
    inverse_masses(prm, inv_mass);
    for (int d = 0; d < 3; ++d) {
        double *x = p->x[d], *v = p->v[d], *vp = p->vp[d];
        const double *f = p->f[d];
        for (int64_t i = 0; i < p->n_owned; ++i) {
            const double a = f[i] * inv_mass[p->species[i]];
            const double vi = v[i];
            x[i] = vs_vv_drift(x[i], vi, a, dt, half_dt);
            vp[i] = vs_vv_predict(vi, a, lambda_dt);
            v[i] = vs_vv_kick(vi, a, half_dt);
        }
    }
    if (vs_has_walls(prm))
        vs_integrate_walls(p, prm);
}

void vs_integrate_second_half(vs_particles *p, const vs_params *prm)
{
    const double half_dt = 0.5 * prm->integrator.dt;
    double inv_mass[VS_MAX_SPECIES];
    inverse_masses(prm, inv_mass);
    int frozen[VS_MAX_SPECIES];
    const int any_frozen = frozen_species(prm, frozen);
    for (int d = 0; d < 3; ++d) {
        double *v = p->v[d];
        const double *f = p->f[d];
        for (int64_t i = 0; i < p->n_owned; ++i)
            if (!any_frozen || !frozen[p->species[i]])
                v[i] = vs_vv_kick_force(v[i], f[i], inv_mass[p->species[i]], half_dt);
    }
}

void vs_integrate_npt(vs_particles *p, const vs_params *prm, const vs_npt_coefs *c, int first)
{
    double inv_mass[VS_MAX_SPECIES];
    inverse_masses(prm, inv_mass);
    for (int d = 0; d < 3; ++d) {
        double *x = p->x[d], *v = p->v[d], *vp = p->vp[d];
        const double *f = p->f[d];
        for (int64_t i = 0; i < p->n_owned; ++i) {
            const double a = f[i] * inv_mass[p->species[i]];
            const double vi = vs_npt_kick(v[i], a, c->cv, c->cf);
            v[i] = vi;
            if (first) {
                x[i] = vs_npt_drift(x[i], vi, c->cx, c->cxv);
                vp[i] = vi;
            }
        }
    }
}

void vs_integrate_ensemble_op(vs_particles *p, const vs_params *prm,
                              const vs_ensemble_consts *c, vs_ensemble_op op, int64_t step)
{
    const uint64_t seed = prm->system.seed, st = (uint64_t)step;
    int frozen[VS_MAX_SPECIES];
    frozen_species(prm, frozen);
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const int s = p->species[i];
        const uint64_t tag = (uint64_t)p->tag[i];
        double g[3];
        if (frozen[s])
            continue;
        if (op == VS_ENSEMBLE_OP_ANDERSEN) {
            if (!vs_andersen_collides(seed, st, tag, c->collide_p))
                continue;
            vs_particle_gauss3(seed, st, VS_STREAM_ANDERSEN, 1, tag, g);
            for (int d = 0; d < 3; ++d)
                p->v[d][i] = c->mb_sigma[s] * g[d];
            continue;
        }
        const int stream = op == VS_ENSEMBLE_OP_LANGEVIN_FIRST ? VS_STREAM_LANGEVIN_FIRST
                                                               : VS_STREAM_LANGEVIN_SECOND;
        vs_particle_gauss3(seed, st, stream, 0, tag, g);
        for (int d = 0; d < 3; ++d)
            p->v[d][i] = vs_ou_step(p->v[d][i], c->ou_c[s], c->ou_sigma[s], g[d]);
    }
    if (p->orient && op != VS_ENSEMBLE_OP_ANDERSEN)
        vs_integrate_rotation_ou(p, prm, c,
                                 op == VS_ENSEMBLE_OP_LANGEVIN_FIRST ? VS_STREAM_LANGEVIN_FIRST
                                                                     : VS_STREAM_LANGEVIN_SECOND,
                                 step);
}

void vs_integrate_rotation(vs_particles *p, const vs_params *prm, int first)
{
    const double dt = prm->integrator.dt;
    double h[VS_MAX_SPECIES];
    for (int s = 0; s < prm->species.n; ++s) {
        const double inertia = prm->species.list[s].inertia;
        h[s] = inertia > 0.0 ? 0.5 * dt / inertia : 0.0;
    }
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const int s = p->species[i];
        if (h[s] == 0.0)
            continue; /* a point bead */
        vs_orient *o = &p->orient[i];
        vs_rot_kick(o->u, o->n, o->g, h[s]);
        if (first)
            vs_rot_drift(o->n, o->u, dt);
    }
}

void vs_integrate_rotation_ou(vs_particles *p, const vs_params *prm,
                              const vs_ensemble_consts *c, int stream, int64_t step)
{
    const uint64_t seed = prm->system.seed, st = (uint64_t)step;
    double sigma[VS_MAX_SPECIES];
    for (int s = 0; s < prm->species.n; ++s) {
        const double inertia = prm->species.list[s].inertia, cs = c->ou_c[s];
        sigma[s] = inertia > 0.0 ? sqrt((1.0 - cs * cs) * prm->dpd.kT / inertia) : 0.0;
    }
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const int s = p->species[i];
        if (!(prm->species.list[s].inertia > 0.0))
            continue;
        double g[3];
        vs_particle_gauss3(seed, st, stream, 2, (uint64_t)p->tag[i], g);
        vs_rot_ou_step(p->orient[i].u, p->orient[i].n, c->ou_c[s], sigma[s], g);
    }
}

void vs_scale_rotation(vs_particles *p, double s)
{
    for (int64_t i = 0; p->orient && i < p->n_owned; ++i)
        for (int q = 0; q < 3; ++q)
            p->orient[i].u[q] *= s;
}

int vs_rotation_sums(const vs_particles *p, const vs_params *prm, vs_wide out[2])
{
    int bad = 0;
    out[0] = out[1] = 0;
    for (int64_t i = 0; p->orient && i < p->n_owned; ++i) {
        const double inertia = prm->species.list[p->species[i]].inertia;
        if (!(inertia > 0.0))
            continue;
        const double *u = p->orient[i].u;
        const double k = 0.5 * inertia * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        if (vs_wide_ok(k))
            out[0] += vs_wide_from_double(k);
        else
            bad = 1;
        out[1] += vs_wide_from_double(1.0);
    }
    return bad;
}

void vs_integrate_brownian(vs_particles *p, const vs_params *prm, const vs_ensemble_consts *c,
                           int64_t step)
{
    const uint64_t seed = prm->system.seed, st = (uint64_t)step;
    int frozen[VS_MAX_SPECIES];
    frozen_species(prm, frozen);
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const int s = p->species[i];
        const uint64_t tag = (uint64_t)p->tag[i];
        double g[3], u[3];
        if (frozen[s])
            continue;
        vs_particle_gauss3(seed, st, VS_STREAM_BROWNIAN, 0, tag, g);
        vs_particle_gauss3(seed, st, VS_STREAM_BROWNIAN, 2, tag, u);
        for (int d = 0; d < 3; ++d) {
            p->x[d][i] = vs_brownian_move(p->x[d][i], p->f[d][i], c->mobility_dt[s],
                                          c->bd_noise[s], g[d]);
            p->v[d][i] = c->mb_sigma[s] * u[d];
            p->vp[d][i] = p->v[d][i];
        }
    }
    if (vs_has_walls(prm))
        vs_integrate_walls(p, prm);
}

/* Frozen particles keep v = 0 (their velocity is never scaled nor shifted). */
void vs_scale_velocities(vs_particles *p, const vs_params *prm, double s)
{
    int frozen[VS_MAX_SPECIES];
    const int any = frozen_species(prm, frozen);
    for (int d = 0; d < 3; ++d)
        for (int64_t i = 0; i < p->n_owned; ++i)
            if (!any || !frozen[p->species[i]])
                p->v[d][i] *= s;
}

void vs_shift_velocities(vs_particles *p, const vs_params *prm, const double dv[3])
{
    int frozen[VS_MAX_SPECIES];
    const int any = frozen_species(prm, frozen);
    for (int d = 0; d < 3; ++d)
        for (int64_t i = 0; i < p->n_owned; ++i)
            if (!any || !frozen[p->species[i]])
                p->v[d][i] -= dv[d];
}

int vs_momentum_sums(const vs_particles *p, const vs_params *prm, vs_wide out[5])
{
    int bad = 0;
    for (int k = 0; k < 5; ++k)
        out[k] = 0;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const vs_species *sp = &prm->species.list[p->species[i]];
        const double m = sp->mass;
        const double vx = p->v[0][i], vy = p->v[1][i], vz = p->v[2][i];
        /* the thermo row's terms, so the kinetic energy is the row's to the bit; a frozen
         * particle's mass is not part of the moving mass */
        const double term[5] = {m * vx, m * vy, m * vz, 0.5 * m * (vx * vx + vy * vy + vz * vz),
                                sp->frozen ? 0.0 : m};
        for (int k = 0; k < 5; ++k) {
            if (vs_wide_ok(term[k]))
                out[k] += vs_wide_from_double(term[k]);
            else
                bad = 1;
        }
    }
    return bad;
}
