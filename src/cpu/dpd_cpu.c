/* The DPD pair term on the CPU backend: its loop over the half Verlet list (see
 * cpu_backend.h). The pair itself, random number included, is vs_dpd_pair_random
 * (src/core/dpd_pair.h), the same source the GPU kernels compile. */
#include "cpu_backend.h"

#include "tea_rng.h"

void vs_cpu_dpd_forces(vs_cpu_state *s, int64_t step)
{
    const vs_neighbor *nl = &s->nl;
    vs_particles *p = s->parts;
    const vs_params *prm = s->prm;
    const vs_dpd_consts *c = &s->dpd;
    const int64_t n = p->n_owned;
    double *fx = p->f[0], *fy = p->f[1], *fz = p->f[2];
    const vs_tea_key key = vs_tea_make_key(prm->seed, (uint64_t)step);
    /* each particle's signature once per step, not once per pair */
    uint64_t *sig = p->signature;
    for (int64_t i = 0; i < n + p->n_ghost; ++i)
        sig[i] = vs_signature_pack(vs_tag_signature(key, (uint64_t)p->tag[i]));
    const int gaussian = prm->random == VS_RANDOM_GAUSSIAN;
    const double *x = p->x[0], *y = p->x[1], *z = p->x[2];
    const double *vx = p->vp[0], *vy = p->vp[1], *vz = p->vp[2];
    double energy = 0.0, virial = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        const double xi = x[i], yi = y[i], zi = z[i];
        const double vxi = vx[i], vyi = vy[i], vzi = vz[i];
        const uint64_t sig_i = sig[i];
        const double *a_row = prm->a[p->species[i]];
        double fxi = 0.0, fyi = 0.0, fzi = 0.0;
        for (int64_t k = nl->start[i]; k < nl->start[i + 1]; ++k) {
            const int64_t j = nl->partners[k];
            const double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
            const double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= c->rc2 || r2 == 0.0)
                continue;
            const vs_pair_result r =
                vs_dpd_pair_random(c, key, sig_i, sig[j], gaussian, r2, dx, dy, dz, vxi - vx[j],
                                   vyi - vy[j], vzi - vz[j], a_row[p->species[j]]);
            const double gx = r.f_over_r * dx, gy = r.f_over_r * dy, gz = r.f_over_r * dz;
            fxi += gx;
            fyi += gy;
            fzi += gz;
            if (j < n) {
                fx[j] -= gx;
                fy[j] -= gy;
                fz[j] -= gz;
                energy += r.energy;
                virial += r.virial;
            } else {
                energy += 0.5 * r.energy;
                virial += 0.5 * r.virial;
            }
        }
        fx[i] += fxi;
        fy[i] += fyi;
        fz[i] += fzi;
    }
    s->sums.energy += energy;
    s->sums.virial += virial;
}
