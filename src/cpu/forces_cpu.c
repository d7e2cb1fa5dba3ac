/* CPU pair-force loop over the half Verlet list: see forces_cpu.h. The physics lives in
 * dpd_pair.h and tea_rng.h, shared with the GPU kernels. */
#include "forces_cpu.h"

#include "tea_rng.h"

void vs_forces_cpu(const vs_neighbor *nl, vs_particles *p, const vs_params *prm,
                   const vs_dpd_consts *c, int64_t step, vs_force_sums *sums)
{
    const int64_t n = p->n_owned;
    double *fx = p->f[0], *fy = p->f[1], *fz = p->f[2];
    for (int64_t i = 0; i < n; ++i) {
        const double *bf = prm->species[p->species[i]].body_force;
        fx[i] = bf[0];
        fy[i] = bf[1];
        fz[i] = bf[2];
    }
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
            const vs_tea_block bits = vs_pair_bits_sig(key, sig_i, sig[j]);
            const double xi_ij = gaussian ? vs_xi_gaussian(bits) : vs_xi_uniform(bits);
            const vs_pair_result r = vs_dpd_pair(c, r2, dx, dy, dz, vxi - vx[j], vyi - vy[j],
                                                 vzi - vz[j], a_row[p->species[j]], xi_ij);
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
    sums->energy = energy;
    sums->virial = virial;
}
