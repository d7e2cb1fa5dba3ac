/* The Monte Carlo run's closing statistics: see mc_stats.h. */
#include "mc_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SERIES 16

int vs_mc_series_push(vs_mc_series *s, const vs_mc_row *r)
{
    if (s->n == s->cap) {
        const int64_t cap = s->cap ? 2 * s->cap : 256;
        vs_mc_row *q = realloc(s->row, (size_t)cap * sizeof *q);
        if (!q)
            return -1;
        s->row = q;
        s->cap = cap;
    }
    s->row[s->n++] = *r;
    return 0;
}

void vs_mc_series_free(vs_mc_series *s)
{
    free(s->row);
    memset(s, 0, sizeof *s);
}

int vs_mc_block_estimate(const double *const *x, int k, int64_t n, int blocks, vs_mc_stat_fn f,
                         const void *ctx, double *mean, double *error)
{
    *mean = *error = NAN;
    if (k < 1 || k > MAX_SERIES || n < 1)
        return k < 1 || k > MAX_SERIES ? -1 : 0;
    const int nb = blocks >= 2 && n >= 2 * (int64_t)blocks ? blocks : 0;
    double *sum = calloc((size_t)(nb + 1) * MAX_SERIES, sizeof *sum); /* row nb: all rows */
    int64_t *cnt = calloc((size_t)nb + 1, sizeof *cnt);
    if (!sum || !cnt) {
        free(sum);
        free(cnt);
        return -1;
    }
    for (int64_t i = 0; i < n; ++i) {
        const int64_t b = nb ? i * nb / n : 0;
        for (int j = 0; j < k; ++j) {
            sum[(size_t)b * MAX_SERIES + (size_t)j] += nb ? x[j][i] : 0.0;
            sum[(size_t)nb * MAX_SERIES + (size_t)j] += x[j][i];
        }
        if (nb)
            cnt[b]++;
    }
    double m[MAX_SERIES], fb_sum = 0.0, *fb = malloc(((size_t)nb + 1) * sizeof *fb);
    if (!fb) {
        free(sum);
        free(cnt);
        return -1;
    }
    for (int j = 0; j < k; ++j)
        m[j] = sum[(size_t)nb * MAX_SERIES + (size_t)j] / (double)n;
    *mean = f ? f(m, ctx) : m[0];
    for (int b = 0; b < nb; ++b) {
        for (int j = 0; j < k; ++j)
            m[j] = sum[(size_t)b * MAX_SERIES + (size_t)j] / (double)cnt[b];
        fb[b] = f ? f(m, ctx) : m[0];
        fb_sum += fb[b];
    }
    if (nb) {
        const double c = fb_sum / nb;
        double ss = 0.0;
        for (int b = 0; b < nb; ++b)
            ss += (fb[b] - c) * (fb[b] - c);
        *error = sqrt(ss / ((double)nb * (nb - 1)));
    }
    free(fb);
    free(sum);
    free(cnt);
    return 0;
}

/* <m0> / <m1>: energy or volume per particle from the means. */
static double ratio(const double *m, const void *ctx)
{
    (void)ctx;
    return m[1] != 0.0 ? m[0] / m[1] : NAN;
}

/* m: U_l, N_l, V_l, U_v, N_v, V_v, P_v. */
static double heat_of_vaporization(const double *m, const void *ctx)
{
    (void)ctx;
    if (m[1] == 0.0 || m[4] == 0.0)
        return NAN;
    return (m[3] / m[4] - m[0] / m[1]) + m[6] * (m[5] / m[4] - m[2] / m[1]);
}

static void put(vs_mc_stat *out, int *n, const char *group, const char *name,
                const double *const *x, int k, int64_t rows, int blocks, vs_mc_stat_fn f)
{
    vs_mc_stat *s = &out[*n];
    snprintf(s->group, sizeof s->group, "%s", group);
    snprintf(s->name, sizeof s->name, "%s", name);
    if (vs_mc_block_estimate(x, k, rows, blocks, f, NULL, &s->mean, &s->error) == 0)
        (*n)++;
}

/* The series of one row quantity: q 0 N, 1 volume, 2 density, 3 energy, 4 pressure, NQ + k
 * the particles of species k. */
static double obs_value(const vs_mc_box_obs *o, int q)
{
    switch (q) {
    case 0: return (double)o->n;
    case 1: return o->volume;
    case 2: return o->density;
    case 3: return o->energy;
    case 4: return o->pressure;
    default: return (double)o->count[q - 5];
    }
}

enum { Q_N, Q_V, Q_RHO, Q_U, Q_P, NQ };

int vs_mc_has_composition(const vs_params *prm)
{
    return prm->mc.ensemble == VS_MC_GIBBS_NPT && prm->species.n > 1;
}

/* The mole fraction of each species, per box or phase (xs: the nq series of one). */
static void put_composition(vs_mc_stat *out, int *n, const char *group, const char *suffix,
                            const double *const *xs, const vs_species_params *sp, int64_t r,
                            int blocks)
{
    for (int k = 0; k < sp->n; ++k) {
        char name[sizeof out->name];
        snprintf(name, sizeof name, "x_%s%s", sp->list[k].name, suffix);
        const double *kn[2] = {xs[NQ + k], xs[Q_N]};
        put(out, n, group, name, kn, 2, r, blocks, ratio);
    }
}

int vs_mc_summarize(const vs_mc_series *s, int n_boxes, int blocks,
                    const vs_species_params *species, vs_mc_stat *out)
{
    const int64_t r = s->n;
    if (r < 1)
        return 0;
    /* per box the nq series, then (gibbs) the same of the liquid and of the vapour, and the
     * indicator that box 0 is the liquid */
    const int nq = NQ + (species ? species->n : 0);
    const int n_series = nq * n_boxes + (n_boxes > 1 ? 2 * nq + 1 : 0);
    double *buf = malloc((size_t)n_series * (size_t)r * sizeof *buf);
    if (!buf)
        return -1;
    const double *x[2 * (NQ + VS_MAX_SPECIES) * VS_MC_MAX_BOXES + 1];
    for (int j = 0; j < n_series; ++j)
        x[j] = buf + (size_t)j * (size_t)r;
    for (int64_t i = 0; i < r; ++i) {
        const vs_mc_row *row = &s->row[i];
        for (int b = 0; b < n_boxes; ++b)
            for (int q = 0; q < nq; ++q)
                buf[(size_t)(nq * b + q) * (size_t)r + (size_t)i] = obs_value(&row->box[b], q);
        if (n_boxes < 2)
            continue;
        const int liq = row->box[1].density > row->box[0].density ? 1 : 0;
        for (int q = 0; q < nq; ++q) {
            buf[(size_t)(2 * nq + q) * (size_t)r + (size_t)i] = obs_value(&row->box[liq], q);
            buf[(size_t)(3 * nq + q) * (size_t)r + (size_t)i] = obs_value(&row->box[1 - liq], q);
        }
        buf[(size_t)(4 * nq) * (size_t)r + (size_t)i] = liq == 0;
    }
    static const char *const name[NQ] = {"n", "volume", "density", "energy", "pressure"};
    int n = 0;
    for (int b = 0; b < n_boxes; ++b) {
        char group[16];
        snprintf(group, sizeof group, "box_%d", b);
        const double *const *xb = x + nq * b;
        for (int q = 0; q < NQ; ++q)
            put(out, &n, group, name[q], xb + q, 1, r, blocks, NULL);
        const double *un[2] = {xb[Q_U], xb[Q_N]};
        put(out, &n, group, "energy_per_particle", un, 2, r, blocks, ratio);
        if (species)
            put_composition(out, &n, group, "", xb, species, r, blocks);
    }
    if (n_boxes > 1) {
        const double *const *l = x + 2 * nq, *const *v = x + 3 * nq;
        const char *g = "coexistence";
        put(out, &n, g, "density_liquid", l + Q_RHO, 1, r, blocks, NULL);
        put(out, &n, g, "density_vapour", v + Q_RHO, 1, r, blocks, NULL);
        put(out, &n, g, "pressure_vapour", v + Q_P, 1, r, blocks, NULL);
        put(out, &n, g, "pressure_liquid", l + Q_P, 1, r, blocks, NULL);
        const double *ul[2] = {l[Q_U], l[Q_N]}, *uv[2] = {v[Q_U], v[Q_N]};
        put(out, &n, g, "energy_per_particle_liquid", ul, 2, r, blocks, ratio);
        put(out, &n, g, "energy_per_particle_vapour", uv, 2, r, blocks, ratio);
        const double *hv[7] = {l[Q_U], l[Q_N], l[Q_V], v[Q_U], v[Q_N], v[Q_V], v[Q_P]};
        put(out, &n, g, "heat_of_vaporization", hv, 7, r, blocks, heat_of_vaporization);
        put(out, &n, g, "box_0_liquid_fraction", x + 4 * nq, 1, r, blocks, NULL);
        if (species) {
            put_composition(out, &n, g, "_liquid", l, species, r, blocks);
            put_composition(out, &n, g, "_vapour", v, species, r, blocks);
        }
    }
    free(buf);
    return n;
}

static int by_n_then_bin(const void *pa, const void *pb)
{
    const int64_t *a = pa, *b = pb;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : (a[1] > b[1]);
}

int vs_mc_histograms_build(const vs_mc_series *s, double w, vs_mc_histograms *h)
{
    memset(h, 0, sizeof *h);
    h->energy_bin = w;
    int64_t n_max = -1;
    for (int64_t i = 0; i < s->n; ++i)
        n_max = s->row[i].box[0].n > n_max ? s->row[i].box[0].n : n_max;
    h->n_len = n_max + 1;
    h->count_n = calloc((size_t)h->n_len + 1, sizeof *h->count_n);
    int64_t *pair = malloc(2 * ((size_t)s->n + 1) * sizeof *pair);
    h->joint_n = malloc(((size_t)s->n + 1) * sizeof *h->joint_n);
    h->joint_bin = malloc(((size_t)s->n + 1) * sizeof *h->joint_bin);
    h->joint_count = malloc(((size_t)s->n + 1) * sizeof *h->joint_count);
    if (!h->count_n || !pair || !h->joint_n || !h->joint_bin || !h->joint_count) {
        free(pair);
        vs_mc_histograms_free(h);
        return -1;
    }
    for (int64_t i = 0; i < s->n; ++i) {
        const vs_mc_box_obs *o = &s->row[i].box[0];
        h->count_n[o->n]++;
        pair[2 * i] = o->n;
        pair[2 * i + 1] = (int64_t)floor(o->energy / w);
    }
    qsort(pair, (size_t)s->n, 2 * sizeof *pair, by_n_then_bin);
    for (int64_t i = 0; i < s->n; ++i) {
        const int64_t j = h->joint_len;
        if (j > 0 && h->joint_n[j - 1] == pair[2 * i] && h->joint_bin[j - 1] == pair[2 * i + 1]) {
            h->joint_count[j - 1]++;
            continue;
        }
        h->joint_n[j] = pair[2 * i];
        h->joint_bin[j] = pair[2 * i + 1];
        h->joint_count[j] = 1;
        h->joint_len++;
    }
    free(pair);
    return 0;
}

void vs_mc_histograms_free(vs_mc_histograms *h)
{
    free(h->count_n);
    free(h->joint_n);
    free(h->joint_bin);
    free(h->joint_count);
    memset(h, 0, sizeof *h);
}
