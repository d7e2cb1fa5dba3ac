/* The conservative pair styles (VS_PAIR_STYLE_LIST) on the CPU backend: one loop over the
 * half Verlet list per style, a copy per style of the list, the pair from vs_pair_style_eval (src/core/pair_styles.h),
 * the source the GPU kernels compile.
 *
 * As in the DPD loop (dpd_cpu.c), forces, energy and virial are summed in fixed point
 * (src/core/fixed_sum.h): a pair's force component is rounded once and enters i as +q and j
 * as -q, so a run does not depend on the order of the particles or of their partners. The
 * lists have the radius of the largest cut-off of all pair terms (vs_list_radius): each
 * pair is tested against its own species pair's cut-off here.
 *
 * Special neighbours (special.h; a style's `special` factors): in the copies of the loop made
 * for them (SPECIAL), a pair within its cut-off takes the factor of its level in the owned
 * particle i's list, looked up by j's tag: 0 skips the pair, s scales its force, energy and
 * virial. Lists are symmetric, so an owned pair counted once from i, and an owned-ghost pair
 * counted on both owners' ranks, take the same factor. */
#include "cpu_backend.h"

#include "log.h"
#include "pair_styles.h"

/* The loop of one style, inlined into a copy per style (vs_cpu_pair_style_forces) so that
 * the evaluator's choice of form is made at compile time, not per pair. */
static inline __attribute__((always_inline)) void pair_loop(vs_cpu_state *s, const int style,
                                                            int want_energy, const int special)
{
    const vs_neighbor *nl = &s->nl;
    vs_particles *p = s->parts;
    const vs_params *prm = s->prm;
    const vs_pair_style_params *ps = &prm->pair.set->style[style];
    const vs_pair_table *tables = prm->pair.set->tables;
    const int64_t n = p->n_owned;
    const double factor[4] = {1.0, ps->special_factor[0], ps->special_factor[1],
                              ps->special_factor[2]};
    const double *x = p->x[0], *y = p->x[1], *z = p->x[2];
    vs_cpu_pair_sums sums = {{0, 0, 0}, 0, 0, 0, 0};
    for (int64_t i = 0; i < n; ++i) {
        const double xi = x[i], yi = y[i], zi = z[i];
        const vs_pair_coeff *row = ps->c[p->species[i]];
        for (int64_t k = nl->start[i]; k < nl->start[i + 1]; ++k) {
            const int64_t j = nl->partners[k];
            const vs_pair_coeff *c = &row[p->species[j]];
            const double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
            const double r2 = dx * dx + dy * dy + dz * dz;
            if (!c->on || r2 >= c->rc2 || r2 == 0.0)
                continue;
            vs_pair_result r;
            if (special) {
                const double sf = factor[vs_special_level(&p->special[i], p->tag[j])];
                if (sf == 0.0)
                    continue; /* excluded: no force, energy or virial */
                r = vs_pair_style_eval(style, c, tables, r2);
                r.f_over_r *= sf;
                r.energy *= sf;
                r.virial *= sf;
            } else {
                r = vs_pair_style_eval(style, c, tables, r2);
            }
            vs_cpu_pair_add(s, &sums, i, j, n, r.f_over_r, dx, dy, dz, want_energy, r.energy,
                            r.virial);
        }
        vs_cpu_pair_end_particle(s, &sums, i);
    }
    vs_cpu_pair_finish(s, &sums);
}

/* One style with or without special factors (the style has them and the particles carry
 * lists: vs_special_depth > 0). */
static inline __attribute__((always_inline)) void pair_style(vs_cpu_state *s, const int style,
                                                             int want_energy)
{
    if (s->prm->pair.set->style[style].special && s->parts->special)
        pair_loop(s, style, want_energy, 1);
    else
        pair_loop(s, style, want_energy, 0);
}

void vs_cpu_pair_style_forces(vs_cpu_state *s, int style, int want_energy)
{
#define VS_PAIR_CPU_CASE_(ID, NAME)                                                            \
    case ID:                                                                                   \
        pair_style(s, ID, want_energy);                                                        \
        return;
    switch (style) {
        VS_PAIR_STYLE_LIST(VS_PAIR_CPU_CASE_)
    default:
        break;
    }
#undef VS_PAIR_CPU_CASE_
    VS_FATAL("pair style %d is not in VS_PAIR_STYLE_LIST", style);
}
