/* The boxes as the moves see them (mc_engine.h): on one rank, or replicated, the box
 * itself; split over the ranks (mc_domain.h), each question asked of the rank that holds the
 * particle, each sum taken exactly over the ranks. */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mc_domain_parts.h"
#include "parallel.h"

int64_t vs_mc_n(const vs_mc_state *s, int bi)
{
    return s->dom ? s->dom->box[bi].n : s->box[bi].n;
}

const int64_t *vs_mc_count(const vs_mc_state *s, int bi)
{
    return s->dom ? s->dom->box[bi].count : s->box[bi].count;
}

void vs_mc_particle(const vs_mc_state *s, int bi, int64_t i, double x[3], int32_t *species,
                    int64_t *tag)
{
    const vs_mc_box *b = &s->box[bi];
    if (!s->dom) {
        memcpy(x, &b->x[3 * i], 3 * sizeof(double));
        *species = b->species[i];
        *tag = b->tag[i];
        return;
    }
    int64_t v[5] = {0, 0, 0, 0, 0}; /* the holder's bits; every other rank adds zeros */
    const int64_t k = vs_mcd_map_get(&s->dom->box[bi], i);
    if (k >= 0) {
        memcpy(v, &b->x[3 * k], 3 * sizeof(double));
        v[3] = b->species[k];
        v[4] = b->tag[k];
    }
    vs_par_sum_int64(&s->dom->par, v, 5);
    memcpy(x, v, 3 * sizeof(double));
    *species = (int32_t)v[3];
    *tag = v[4];
}

vs_wide vs_mc_energy_of(const vs_mc_state *s, int bi, const double y[3], int32_t species,
                        int64_t skip)
{
    if (!s->dom)
        return vs_mc_energy_at(&s->box[bi], &s->pairs, y, species, skip);
    const int64_t k = skip >= 0 ? vs_mcd_map_get(&s->dom->box[bi], skip) : -1;
    vs_wide w[2] = {vs_mc_energy_at(&s->box[bi], &s->pairs, y, species, k), 0};
    vs_mc_ranks_sum_wide(s->dom->ranks, w);
    return w[0];
}

vs_wide vs_mc_energy_box(const vs_mc_state *s, int bi, double *virial)
{
    if (!s->dom)
        return vs_mc_energy_total(&s->box[bi], &s->pairs, virial);
    return vs_mcd_energy((vs_mc_state *)s, bi, virial);
}

int vs_mc_insert(vs_mc_state *s, int bi, const double y[3], int32_t species, int64_t tag)
{
    vs_mc_box *b = &s->box[bi];
    if (!s->dom) {
        if (vs_mc_box_reserve(b, b->n + 1))
            return -1;
        vs_mc_box_append(b, y, species, tag);
        return 0;
    }
    dbox *d = &s->dom->box[bi];
    int holder = (int)(d->n % s->dom->par.size);
    if (d->have_last) { /* the rank of its cell in the last sweep */
        int c[3];
        const uint32_t cell = vs_mc_sweep_cell(&d->last, y);
        c[0] = (int)(cell % (uint32_t)d->last.nc[0]);
        c[1] = (int)(cell / (uint32_t)d->last.nc[0] % (uint32_t)d->last.nc[1]);
        c[2] = (int)(cell / (uint32_t)(d->last.nc[0] * d->last.nc[1]));
        holder = vs_mc_ranks_owner(s->dom->ranks, d->last.nc, c);
    }
    int bad = 0;
    if (holder == s->dom->par.rank)
        bad = vs_mc_domain_append(s, bi, y, species, tag, d->n);
    if (vs_par_any(&s->dom->par, bad))
        return -1;
    d->n++;
    d->count[species]++;
    return 0;
}

void vs_mc_delete(vs_mc_state *s, int bi, int64_t i, int32_t species)
{
    vs_mc_box *b = &s->box[bi];
    if (!s->dom) {
        vs_mc_box_remove(b, i);
        return;
    }
    dbox *d = &s->dom->box[bi];
    const int64_t k = vs_mcd_map_get(d, i);
    if (k >= 0) { /* the holder's last slot moves into k */
        const int64_t last = b->n - 1;
        vs_mcd_map_erase(d, i);
        vs_mc_box_remove(b, k);
        if (k != last) {
            d->gid[k] = d->gid[last];
            vs_mcd_map_put(d, d->gid[k], k);
        }
    }
    const int64_t top = d->n - 1, t = vs_mcd_map_get(d, top);
    if (top != i && t >= 0) { /* index N - 1 becomes i, as one rank fills the hole */
        vs_mcd_map_erase(d, top);
        d->gid[t] = i;
        vs_mcd_map_put(d, i, t);
    }
    d->n--;
    d->count[species]--;
}

void vs_mc_species_at(const vs_mc_state *s, int bi, const int64_t *idx, int m, int32_t *out)
{
    if (!s->dom) {
        for (int k = 0; k < m; ++k)
            out[k] = s->box[bi].species[idx[k]];
        return;
    }
    int64_t *v = VS_MALLOC(sizeof(int64_t) * (size_t)(m + 1));
    for (int k = 0; k < m; ++k) {
        const int64_t j = vs_mcd_map_get(&s->dom->box[bi], idx[k]);
        v[k] = j >= 0 ? s->box[bi].species[j] + 1 : 0;
    }
    vs_par_sum_int64(&s->dom->par, v, m);
    for (int k = 0; k < m; ++k)
        out[k] = (int32_t)(v[k] - 1);
    free(v);
}

int64_t vs_mc_nth_of_species(const vs_mc_state *s, int bi, int32_t species, int64_t j)
{
    const vs_mc_box *b = &s->box[bi];
    if (!s->dom) {
        for (int64_t i = 0; i < b->n; ++i)
            if (b->species[i] == species && j-- == 0)
                return i;
        return b->n - 1; /* not reached: the count says there are more */
    }
    const dbox *d = &s->dom->box[bi];
    int64_t lo = 0, hi = d->n - 1; /* the least index with j + 1 of the species at or below */
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        int64_t c = 0;
        for (int64_t i = 0; i < b->n; ++i)
            c += b->species[i] == species && d->gid[i] <= mid;
        vs_par_sum_int64(&s->dom->par, &c, 1);
        if (c > j)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
