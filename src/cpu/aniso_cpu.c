/* The soft anisotropic pair style (aniso group) on the CPU backend: one loop over the half
 * Verlet list, the pair from vs_aniso_eval (src/core/pair_aniso.h), the source the GPU
 * kernels will compile.
 *
 * As in the DPD and pair-style loops, forces, energy and virial are summed in fixed point
 * (src/core/fixed_sum.h), and so are the orientation gradients g = -dU/dn: a pair's
 * component is rounded once and enters i and an owned j as it comes (force: +q and -q), so
 * a run does not depend on the order of the particles or of their partners. An owned-ghost
 * pair is computed on both owners' ranks, each adding to its own particle only (its energy
 * and virial count half there). */
#include "cpu_backend.h"

#include "log.h"
#include "pair_aniso.h"

/* A pair's 9 rounded components into the sums of i (running, qi and gi) and of an owned j;
 * 0 when some component is not finite or out of range. */
static int add_pair(vs_cpu_state *s, vs_cpu_pair_sums *a, int64_t gi[3], int64_t j, int64_t n,
                    const vs_aniso_result *r)
{
    for (int d = 0; d < 3; ++d)
        if (!(vs_fixed_force_ok(r->f[d]) && vs_fixed_force_ok(r->gi[d]) &&
              vs_fixed_force_ok(r->gj[d])))
            return 0;
    for (int d = 0; d < 3; ++d) {
        const int64_t q = vs_fixed_force(r->f[d]);
        vs_fixed_add(&a->qi[d], q, &a->overflow);
        vs_fixed_add(&gi[d], vs_fixed_force(r->gi[d]), &a->overflow);
        if (j < n) {
            vs_fixed_add(&s->fq[d][j], -q, &a->overflow);
            vs_fixed_add(&s->gq[d][j], vs_fixed_force(r->gj[d]), &a->overflow);
        }
    }
    return 1;
}

void vs_cpu_aniso_forces(vs_cpu_state *s, int want_energy)
{
    const vs_neighbor *nl = &s->nl;
    vs_particles *p = s->parts;
    const vs_aniso_params *an = &s->prm->aniso;
    const int style = an->style;
    const int64_t n = p->n_owned;
    const double *x = p->x[0], *y = p->x[1], *z = p->x[2];
    vs_cpu_pair_sums sums = {{0, 0, 0}, 0, 0, 0, 0};
    for (int64_t i = 0; i < n; ++i) {
        const vs_aniso_coeff *row = an->c[p->species[i]];
        int64_t gi[3] = {0, 0, 0};
        for (int64_t k = nl->start[i]; k < nl->start[i + 1]; ++k) {
            const int64_t j = nl->partners[k];
            const vs_aniso_coeff *c = &row[p->species[j]];
            const double R[3] = {x[i] - x[j], y[i] - y[j], z[i] - z[j]};
            const double r2 = R[0] * R[0] + R[1] * R[1] + R[2] * R[2];
            if (!c->on || r2 >= c->rc * c->rc || r2 == 0.0)
                continue;
            const vs_aniso_result r = vs_aniso_eval(style, c, R, p->orient[i].n,
                                                    p->orient[j].n);
            if (!add_pair(s, &sums, gi, j, n, &r)) {
                vs_cpu_mark_bad(s, i); /* cold: overlapping particles, a model edge */
                if (j < n)
                    vs_cpu_mark_bad(s, j);
                continue;
            }
            if (!want_energy)
                continue;
            if (!(vs_wide_ok(r.energy) && vs_wide_ok(r.virial))) {
                sums.wide_bad = 1;
                continue;
            }
            const double share = j < n ? 1.0 : 0.5;
            sums.energy += vs_wide_from_double(share * r.energy);
            sums.virial += vs_wide_from_double(share * r.virial);
            if (want_energy & VS_WANT_TENSOR) { /* the force on i need not lie along R */
                double t[VS_TENSOR];
                vs_tensor_of(0.5, r.f, R, t);
                vs_cpu_add_tensor(s, i, t);
                if (j < n)
                    vs_cpu_add_tensor(s, j, t);
            }
        }
        for (int d = 0; d < 3; ++d)
            vs_fixed_add(&s->gq[d][i], gi[d], &sums.overflow);
        vs_cpu_pair_end_particle(s, &sums, i);
    }
    vs_cpu_pair_finish(s, &sums);
}
