/* The DPD pair term on the CPU backend: its loop over the half Verlet list (see
 * cpu_backend.h). The pair itself is vs_dpd_xi and vs_dpd_pair_gs (src/core/dpd_pair.h),
 * the same source the GPU kernels compile, with the pair's a_ij, gamma_ij and sigma_ij looked
 * up by its species (one table, whether dpd.gamma is one number or a matrix).
 *
 * Forces, energy and virial are summed in fixed point (src/core/fixed_sum.h): a pair's force
 * component is rounded once to q and enters i as +q and j as -q (the force seen from j is the
 * exact negative, so it does not matter which of the two the list holds the pair under), and
 * the integer sums do not depend on the order of the particles or of their partners. */
#include "cpu_backend.h"

#include "tea_rng.h"

void vs_cpu_dpd_forces(vs_cpu_state *s, int64_t step, int want_energy)
{
    const vs_neighbor *nl = &s->nl;
    vs_particles *p = s->parts;
    const vs_params *prm = s->prm;
    const vs_dpd_consts *c = &s->dpd;
    const int64_t n = p->n_owned;
    const vs_tea_key key = vs_tea_make_key(prm->system.seed, (uint64_t)step);
    /* each particle's signature once per step, not once per pair */
    uint64_t *sig = p->signature;
    for (int64_t i = 0; i < n + p->n_ghost; ++i)
        sig[i] = vs_signature_pack(vs_tag_signature(key, (uint64_t)p->tag[i]));
    const int gaussian = prm->dpd.random == VS_RANDOM_GAUSSIAN;
    const double *x = p->x[0], *y = p->x[1], *z = p->x[2];
    const double *vx = p->vp[0], *vy = p->vp[1], *vz = p->vp[2];
    vs_cpu_pair_sums sums = {{0, 0, 0}, 0, 0, 0, 0};
    for (int64_t i = 0; i < n; ++i) {
        const double xi = x[i], yi = y[i], zi = z[i];
        const double vxi = vx[i], vyi = vy[i], vzi = vz[i];
        const uint64_t sig_i = sig[i];
        const int si = p->species[i];
        const double *a_row = prm->dpd.a[si];
        const double *g_row = s->dpd_pair.gamma[si], *s_row = s->dpd_pair.sigma_over_sqrt_dt[si];
        for (int64_t k = nl->start[i]; k < nl->start[i + 1]; ++k) {
            const int64_t j = nl->partners[k];
            const double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
            const double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= c->rc2 || r2 == 0.0)
                continue;
            const int sj = p->species[j];
            const double xi_ij = vs_dpd_xi(key, sig_i, sig[j], gaussian);
            const vs_pair_result r =
                vs_dpd_pair_gs(c, r2, dx, dy, dz, vxi - vx[j], vyi - vy[j], vzi - vz[j],
                               a_row[sj], g_row[sj], s_row[sj], xi_ij);
            vs_cpu_pair_add(s, &sums, i, j, n, r.f_over_r, dx, dy, dz, want_energy, r.energy,
                            r.virial);
        }
        vs_cpu_pair_end_particle(s, &sums, i);
    }
    vs_cpu_pair_finish(s, &sums);
}
