/* Integrator: see integrate.h. */
#include "integrate.h"

#include "integrator.h"

void vs_integrate_first_half(vs_particles *p, const vs_params *prm)
{
    const double dt = prm->dt, half_dt = 0.5 * prm->dt, lambda_dt = prm->lambda * prm->dt;
    double inv_mass[VS_MAX_SPECIES];
    for (int s = 0; s < prm->n_species; ++s)
        inv_mass[s] = 1.0 / prm->species[s].mass;
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
}

void vs_integrate_second_half(vs_particles *p, const vs_params *prm)
{
    const double half_dt = 0.5 * prm->dt;
    double inv_mass[VS_MAX_SPECIES];
    for (int s = 0; s < prm->n_species; ++s)
        inv_mass[s] = 1.0 / prm->species[s].mass;
    for (int d = 0; d < 3; ++d) {
        double *v = p->v[d];
        const double *f = p->f[d];
        for (int64_t i = 0; i < p->n_owned; ++i)
            v[i] = vs_vv_kick_force(v[i], f[i], inv_mass[p->species[i]], half_dt);
    }
}
