/* The CPU reference backend: see cpu_backend.h. */
#include "cpu_backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrate.h"
#include "log.h"

vs_cpu_state *vs_cpu_create(const vs_params *prm, const vs_decomp *dc, vs_particles *parts,
                            double list_radius, double bonded_width)
{
    vs_cpu_state *s = VS_MALLOC(sizeof *s);
    memset(s, 0, sizeof *s);
    s->prm = prm;
    s->dc = dc;
    s->parts = parts;
    s->list_radius = list_radius;
    vs_halo_init(&s->halo);
    s->halo.bonded_width = bonded_width;
    vs_neighbor_init(&s->nl);
    vs_tagmap_init(&s->tagmap);
    s->dpd = vs_dpd_make_consts(prm->dpd.rc, prm->dpd.gamma, prm->dpd.kT, prm->dpd.s, prm->integrator.dt);
    return s;
}

void vs_cpu_destroy(vs_cpu_state *s)
{
    if (!s)
        return;
    vs_neighbor_free(&s->nl);
    vs_halo_free(&s->halo);
    vs_tagmap_free(&s->tagmap);
    for (int d = 0; d < 3; ++d)
        free(s->fq[d]);
    free(s->fq_bad);
    free(s);
}

void vs_cpu_integrate_first_half(vs_cpu_state *s) { vs_integrate_first_half(s->parts, s->prm); }
void vs_cpu_integrate_second_half(vs_cpu_state *s)
{
    vs_integrate_second_half(s->parts, s->prm);
}

double vs_cpu_max_displacement2(const vs_cpu_state *s)
{
    return vs_neighbor_max_displacement2(s->parts);
}

int64_t vs_cpu_migrate(vs_cpu_state *s, int64_t step)
{
    const int64_t moved = vs_halo_migrate(&s->halo, s->dc, s->parts, step);
    vs_neighbor_sort_owned(&s->nl, s->parts, s->dc->lo, s->dc->hi, s->list_radius);
    return moved;
}

void vs_cpu_build_ghosts(vs_cpu_state *s)
{
    vs_halo_build_ghosts(&s->halo, s->dc, s->parts, s->list_radius);
    if (s->parts->topo)
        vs_cpu_build_tagmap(s);
}

void vs_cpu_update_ghosts(vs_cpu_state *s) { vs_halo_update_ghosts(&s->halo, s->dc, s->parts); }

void vs_cpu_build_neighbors(vs_cpu_state *s)
{
    vs_neighbor_build(&s->nl, s->parts, s->dc->lo, s->dc->hi, s->list_radius, s->list_radius);
    vs_neighbor_mark_built(s->parts);
}

void vs_cpu_forces_begin(vs_cpu_state *s)
{
    const vs_particles *p = s->parts;
    const int64_t n = p->n_owned;
    if (n > s->fq_capacity) {
        const int64_t cap = n + n / 4 + 64;
        for (int d = 0; d < 3; ++d) {
            free(s->fq[d]);
            s->fq[d] = VS_MALLOC(sizeof(int64_t) * (size_t)cap);
        }
        free(s->fq_bad);
        s->fq_bad = VS_MALLOC((size_t)cap);
        memset(s->fq_bad, 0, (size_t)cap);
        s->fq_capacity = cap;
    }
    s->fq_overflow = 0;
    memset(&s->sums, 0, sizeof s->sums);
    int64_t body[VS_MAX_SPECIES][3];
    int body_bad[VS_MAX_SPECIES];
    for (int sp = 0; sp < s->prm->species.n; ++sp) {
        const double *bf = s->prm->species.list[sp].body_force;
        body_bad[sp] = !(vs_fixed_force_ok(bf[0]) && vs_fixed_force_ok(bf[1]) &&
                         vs_fixed_force_ok(bf[2]));
        for (int d = 0; d < 3; ++d)
            body[sp][d] = body_bad[sp] ? 0 : vs_fixed_force(bf[d]);
    }
    for (int d = 0; d < 3; ++d) {
        int64_t *q = s->fq[d];
        for (int64_t i = 0; i < n; ++i)
            q[i] = body[p->species[i]][d];
    }
    for (int64_t i = 0; i < n; ++i)
        if (body_bad[p->species[i]])
            vs_cpu_mark_bad(s, i);
}

void vs_cpu_mark_bad(vs_cpu_state *s, int64_t i)
{
    s->fq_bad[i] = 1;
    s->any_bad = 1;
    s->sums.out_of_range = 1;
}

/* The closest pair of the neighbour list, or with only >= 0 the closest pair that has
 * particle `only` in it: the likely culprit of a force out of range (the slow path of a run
 * that is stopping anyway). */
static void closest_pair(const vs_cpu_state *s, int64_t only, int64_t *tag_a, int64_t *tag_b,
                         double *r)
{
    const vs_particles *p = s->parts;
    const vs_neighbor *nl = &s->nl;
    double best = INFINITY;
    *tag_a = *tag_b = -1;
    for (int64_t i = 0; i < p->n_owned; ++i)
        for (int64_t k = nl->start[i]; k < nl->start[i + 1]; ++k) {
            const int64_t j = nl->partners[k];
            if (only >= 0 && i != only && j != only)
                continue;
            double r2 = 0.0;
            for (int d = 0; d < 3; ++d) {
                const double dx = p->x[d][i] - p->x[d][j];
                r2 += dx * dx;
            }
            if (r2 < best) {
                best = r2;
                *tag_a = p->tag[i];
                *tag_b = p->tag[j];
            }
        }
    *r = sqrt(best);
}

/* What puts a force out of range, for both messages below. */
static const char out_of_range_causes[] =
    "overlapping particles (a random start with a hard pair potential needs a lattice or a "
    "soft push-off first), a pair closer than its table starts, or a time step too large";

void vs_cpu_forces_end(vs_cpu_state *s, int64_t step)
{
    vs_particles *p = s->parts;
    const int64_t n = p->n_owned;
    if (s->fq_overflow >> 63) {
        int64_t a, b;
        double r;
        closest_pair(s, -1, &a, &b, &r);
        VS_FATAL("step %lld: a particle's force left the fixed-point range of the CPU force "
                 "sums (+-%g per component); the closest pair on this rank is tags %lld and "
                 "%lld at r = %g: %s", (long long)step, VS_FIXED_FORCE_RANGE, (long long)a,
                 (long long)b, r, out_of_range_causes);
    }
    if (s->any_bad)
        for (int64_t i = 0; i < n; ++i)
            if (s->fq_bad[i]) {
                int64_t a, b;
                double r;
                closest_pair(s, i, &a, &b, &r);
                char near[96] = "no neighbour in its list";
                if (a >= 0)
                    snprintf(near, sizeof near, "its closest neighbour is tag %lld at r = %g",
                             (long long)(a == p->tag[i] ? b : a), r);
                VS_FATAL("step %lld: a force contribution on particle %lld is not finite or "
                         "beyond +-%g (the fixed-point range of the CPU force sums); %s: %s",
                         (long long)step, (long long)p->tag[i], VS_FIXED_FORCE_LIMIT, near,
                         out_of_range_causes);
            }
    for (int d = 0; d < 3; ++d) {
        const int64_t *q = s->fq[d];
        double *f = p->f[d];
        for (int64_t i = 0; i < n; ++i)
            f[i] = vs_fixed_force_to_double(q[i]);
    }
}

int64_t vs_cpu_halo_bytes(const vs_cpu_state *s) { return s->halo.bytes_last_exchange; }

double vs_cpu_memory_bytes(const vs_cpu_state *s)
{
    const vs_neighbor *nl = &s->nl;
    const double topo = (s->parts->topo ? (double)sizeof(vs_topo) : 0.0) +
                        (s->parts->special ? (double)sizeof(vs_special) : 0.0) +
                        (s->parts->dih ? (double)sizeof(vs_dihedrals) : 0.0);
    return (double)s->parts->capacity * ((double)vs_particles_bytes_per_slot() + topo) +
           25.0 * (double)s->fq_capacity +
           16.0 * (double)(s->tagmap.mask + 1) +
           8.0 * (double)(nl->cap_partners + nl->cap_start + nl->cap_cells +
                          2 * nl->cap_particles + 2 * nl->cap_sort);
}

void vs_cpu_plan_describe(const vs_cpu_state *s, char *buf, size_t len)
{
    snprintf(buf, len, "double precision, forces summed in 2^-41 fixed point, half Verlet list of radius %g from a cell list, "
             "each pair once, ghosts through host staged exchanges", s->list_radius);
}
