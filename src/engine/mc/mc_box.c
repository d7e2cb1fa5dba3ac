/* A Monte Carlo box: see mc_box.h. */
#include "mc_box.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mc_ranks.h"
#include "pair_setup.h"

void vs_mc_pairs_init(vs_mc_pairs *pp, const vs_params *prm)
{
    memset(pp, 0, sizeof *pp);
    pp->prm = prm;
    for (int s = 0; s < VS_PAIR_STYLES; ++s)
        if (vs_pair_style_of(prm, s)->active)
            pp->style[pp->n_styles++] = s;
    pp->reach = vs_pair_reach(prm);
}

static int grow(void **p, int64_t n, size_t size)
{
    void *q = realloc(*p, (size_t)(n > 0 ? n : 1) * size);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

int vs_mc_box_reserve(vs_mc_box *b, int64_t cap)
{
    if (cap <= b->cap)
        return 0;
    int64_t c = b->cap > 16 ? b->cap : 16;
    while (c < cap)
        c *= 2;
    if (grow((void **)&b->x, 3 * c, sizeof(double)) || grow((void **)&b->species, c, 4) ||
        grow((void **)&b->tag, c, 8) || grow((void **)&b->next, c, 8) ||
        grow((void **)&b->prev, c, 8) || grow((void **)&b->cell_of, c, 8))
        return -1;
    b->cap = c;
    return 0;
}

static int64_t cell_index(const vs_mc_box *b, const double x[3])
{
    int64_t k = 0;
    for (int d = 2; d >= 0; --d) {
        int c = (int)(x[d] / b->L[d] * b->nc[d]);
        c = c < 0 ? 0 : (c >= b->nc[d] ? b->nc[d] - 1 : c);
        k = k * b->nc[d] + c;
    }
    return k;
}

static void link(vs_mc_box *b, int64_t i)
{
    const int64_t c = b->use_cells ? cell_index(b, &b->x[3 * i]) : 0;
    b->cell_of[i] = c;
    b->prev[i] = -1;
    b->next[i] = b->head[c];
    if (b->head[c] >= 0)
        b->prev[b->head[c]] = i;
    b->head[c] = i;
}

static void unlink_(vs_mc_box *b, int64_t i)
{
    if (b->prev[i] >= 0)
        b->next[b->prev[i]] = b->next[i];
    else
        b->head[b->cell_of[i]] = b->next[i];
    if (b->next[i] >= 0)
        b->prev[b->next[i]] = b->prev[i];
}

int vs_mc_box_set_edges(vs_mc_box *b, const double L[3], const vs_mc_pairs *pp)
{
    memcpy(b->L, L, sizeof b->L);
    b->use_cells = 1;
    int64_t cells = 1;
    for (int d = 0; d < 3; ++d) {
        b->nc[d] = (int)floor(L[d] / pp->reach);
        if (b->nc[d] > 1024)
            b->nc[d] = 1024;
        if (b->nc[d] < 3)
            b->use_cells = 0;
        cells *= b->nc[d] > 0 ? b->nc[d] : 1;
    }
    if (!b->use_cells)
        cells = 1;
    if (cells > b->head_cap) {
        if (grow((void **)&b->head, cells, sizeof(int64_t)))
            return -1;
        b->head_cap = cells;
    }
    for (int64_t c = 0; c < cells; ++c)
        b->head[c] = -1;
    for (int64_t i = 0; i < b->n; ++i)
        link(b, i);
    return 0;
}

int vs_mc_box_init(vs_mc_box *b, const double L[3], int64_t cap, const vs_mc_pairs *pp)
{
    memset(b, 0, sizeof *b);
    if (vs_mc_box_reserve(b, cap))
        return -1;
    return vs_mc_box_set_edges(b, L, pp);
}

void vs_mc_box_free(vs_mc_box *b)
{
    free(b->x);
    free(b->species);
    free(b->tag);
    free(b->next);
    free(b->prev);
    free(b->cell_of);
    free(b->head);
    memset(b, 0, sizeof *b);
}

static void wrap_into(const vs_mc_box *b, const double in[3], double out[3])
{
    for (int d = 0; d < 3; ++d) {
        double v = in[d] - b->L[d] * floor(in[d] / b->L[d]);
        out[d] = v < b->L[d] ? v : 0.0; /* a tiny negative rounds up to L */
    }
}

void vs_mc_box_append(vs_mc_box *b, const double x[3], int32_t species, int64_t tag)
{
    const int64_t i = b->n++;
    wrap_into(b, x, &b->x[3 * i]);
    b->species[i] = species;
    b->tag[i] = tag;
    b->count[species]++;
    link(b, i);
}

void vs_mc_box_remove(vs_mc_box *b, int64_t i)
{
    const int64_t last = b->n - 1;
    unlink_(b, i);
    b->count[b->species[i]]--;
    if (i != last) {
        unlink_(b, last);
        memcpy(&b->x[3 * i], &b->x[3 * last], 3 * sizeof(double));
        b->species[i] = b->species[last];
        b->tag[i] = b->tag[last];
        link(b, i);
    }
    b->n = last;
}

void vs_mc_box_move(vs_mc_box *b, int64_t i, const double x[3])
{
    wrap_into(b, x, &b->x[3 * i]);
    const int64_t c = b->use_cells ? cell_index(b, &b->x[3 * i]) : 0;
    if (c != b->cell_of[i]) {
        unlink_(b, i);
        link(b, i);
    }
}

/* The pair of species si and sj at squared distance r2, every active style: energy (capped)
 * and r . F. */
static inline double pair_energy(const vs_mc_pairs *pp, int si, int sj, double r2,
                                 double *virial)
{
    const vs_pair_set *set = pp->prm->pair.set;
    double e = 0.0, w = 0.0;
    for (int k = 0; k < pp->n_styles; ++k) {
        const vs_pair_coeff *c = &set->style[pp->style[k]].c[si][sj];
        if (!c->on || !(r2 < c->rc2))
            continue;
        const vs_pair_result r = vs_pair_style_eval(pp->style[k], c, set->tables, r2);
        e += r.energy;
        w += r.virial;
    }
    if (virial)
        *virial = w;
    return e < VS_MC_PAIR_CAP ? e : VS_MC_PAIR_CAP; /* NaN (r2 = 0) too */
}

/* Calls body(j, r2) for each particle j != skip, j >= lo, within reach of x. */
#define VS_MC_FOR_NEIGHBOURS(b, pp, x, skip, lo, BODY)                                          \
    do {                                                                                       \
        const double reach2_ = (pp)->reach * (pp)->reach;                                      \
        int lo_[3], span_ = (b)->use_cells ? 3 : 1;                                            \
        for (int d_ = 0; d_ < 3; ++d_)                                                         \
            lo_[d_] = (b)->use_cells ? (int)((x)[d_] / (b)->L[d_] * (b)->nc[d_]) - 1 : 0;      \
        for (int a_ = 0; a_ < span_; ++a_)                                                     \
            for (int b_ = 0; b_ < span_; ++b_)                                                 \
                for (int c_ = 0; c_ < span_; ++c_) {                                           \
                    int64_t cell_ = 0;                                                         \
                    if ((b)->use_cells) {                                                      \
                        const int q_[3] = {lo_[0] + c_, lo_[1] + b_, lo_[2] + a_};             \
                        for (int d_ = 2; d_ >= 0; --d_)                                        \
                            cell_ = cell_ * (b)->nc[d_] +                                      \
                                    ((q_[d_] % (b)->nc[d_]) + (b)->nc[d_]) % (b)->nc[d_];      \
                    }                                                                          \
                    for (int64_t j = (b)->head[cell_]; j >= 0; j = (b)->next[j]) {             \
                        if (j == (skip) || j < (lo))                                           \
                            continue;                                                          \
                        double r2 = 0.0;                                                       \
                        for (int d_ = 0; d_ < 3; ++d_) {                                       \
                            /* both in [0, L): one image shift at most */                      \
                            double dx_ = (x)[d_] - (b)->x[3 * j + d_];                         \
                            dx_ = dx_ > 0.5 * (b)->L[d_]    ? dx_ - (b)->L[d_]                 \
                                  : dx_ < -0.5 * (b)->L[d_] ? dx_ + (b)->L[d_]                 \
                                                            : dx_;                             \
                            r2 += dx_ * dx_;                                                   \
                        }                                                                      \
                        if (r2 < reach2_) {                                                    \
                            BODY                                                               \
                        }                                                                      \
                    }                                                                          \
                }                                                                              \
    } while (0)

vs_wide vs_mc_energy_at(const vs_mc_box *b, const vs_mc_pairs *pp, const double x[3],
                        int32_t species, int64_t skip)
{
    vs_wide sum = 0;
    VS_MC_FOR_NEIGHBOURS(b, pp, x, skip, 0, {
        sum += vs_wide_from_double(pair_energy(pp, species, b->species[j], r2, NULL));
    });
    return sum;
}

/* The minimum-image squared distance of x and particle j (both in [0, L)). */
static inline double dist2(const vs_mc_box *b, const double *x, int64_t j)
{
    return vs_mc_box_dist2(b->L, x, &b->x[3 * j]);
}

void vs_mc_energy_move(const vs_mc_box *b, const vs_mc_pairs *pp, int64_t i, const double y[3],
                       vs_wide *e_old, vs_wide *e_new)
{
    if (b->use_cells) {
        *e_old = vs_mc_energy_at(b, pp, &b->x[3 * i], b->species[i], i);
        *e_new = vs_mc_energy_at(b, pp, y, b->species[i], i);
        return;
    }
    /* every particle is a neighbour: one pass for both positions */
    const double reach2 = pp->reach * pp->reach, *x = &b->x[3 * i];
    const int32_t si = b->species[i];
    vs_wide a = 0, c = 0;
    for (int64_t j = 0; j < b->n; ++j) {
        if (j == i)
            continue;
        const double r2o = dist2(b, x, j), r2n = dist2(b, y, j);
        if (r2o < reach2)
            a += vs_wide_from_double(pair_energy(pp, si, b->species[j], r2o, NULL));
        if (r2n < reach2)
            c += vs_wide_from_double(pair_energy(pp, si, b->species[j], r2n, NULL));
    }
    *e_old = a;
    *e_new = c;
}

void vs_mc_pair_quanta(const vs_mc_pairs *pp, int si, int sj, double r2, vs_wide *e, vs_wide *w)
{
    double v;
    *e = vs_wide_from_double(pair_energy(pp, si, sj, r2, &v));
    if (w)
        *w = vs_wide_from_double(v < VS_MC_PAIR_CAP ? v : VS_MC_PAIR_CAP);
}

vs_wide vs_mc_energy_total(const vs_mc_box *b, const vs_mc_pairs *pp, double *virial)
{
    vs_wide sum = 0, wsum = 0;
    int64_t i0 = 0, i1 = b->n;
    if (pp->ranks)
        vs_mc_ranks_split(pp->ranks, b->n, &i0, &i1);
    for (int64_t i = i0; i < i1; ++i) {
        const double *x = &b->x[3 * i];
        const int32_t si = b->species[i];
        /* each pair once, from its lower index: the same integers as half the sum over both
         * sides (a pair's distance and coefficients are the same from either side) */
        VS_MC_FOR_NEIGHBOURS(b, pp, x, i, i + 1, {
            vs_wide ew[2];
            ew[1] = 0;
            vs_mc_pair_quanta(pp, si, b->species[j], r2, &ew[0], virial ? &ew[1] : NULL);
            sum += ew[0];
            wsum += ew[1];
        });
    }
    if (pp->ranks) {
        vs_wide w[2] = {sum, wsum};
        vs_mc_ranks_sum_wide(pp->ranks, w);
        sum = w[0];
        wsum = w[1];
    }
    if (virial)
        *virial = vs_wide_to_double(wsum);
    return sum;
}

void vs_mc_tail(const vs_mc_box *b, const vs_mc_pairs *pp, const int64_t *count, double volume,
                double *energy, double *virial)
{
    (void)b;
    double e = 0.0, w = 0.0;
    vs_pair_tail(pp->prm, count, volume, &e, &w);
    *energy = e;
    *virial = w;
}
