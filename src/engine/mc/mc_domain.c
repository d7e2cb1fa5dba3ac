/* The Monte Carlo boxes split over the ranks: see mc_domain.h. */
#include "mc_domain_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mc_ranks.h"
#include "parallel.h"
#ifdef VESICA_HAVE_CUDA
#include "gpu_mc.h"
#endif

static void *grow_to(void *p, int64_t n, size_t size)
{
    void *q = realloc(p, (size_t)(n > 0 ? n : 1) * size);
    if (!q)
        VS_FATAL("out of memory for the Monte Carlo domain split (%lld items)", (long long)n);
    return q;
}

/* ---- gid -> slot --------------------------------------------------------------------- */

static uint64_t hash_of(int64_t g)
{
    uint64_t h = (uint64_t)g * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

void vs_mcd_map_put(dbox *d, int64_t g, int64_t slot)
{
    uint64_t m = (uint64_t)d->hcap - 1, h = hash_of(g) & m;
    while (d->hkey[h] >= 0 && d->hkey[h] != g)
        h = (h + 1) & m;
    d->hkey[h] = g;
    d->hval[h] = slot;
}

int64_t vs_mcd_map_get(const dbox *d, int64_t g)
{
    if (d->hcap == 0)
        return -1;
    uint64_t m = (uint64_t)d->hcap - 1, h = hash_of(g) & m;
    while (d->hkey[h] >= 0) {
        if (d->hkey[h] == g)
            return d->hval[h];
        h = (h + 1) & m;
    }
    return -1;
}

void vs_mcd_map_erase(dbox *d, int64_t g)
{
    uint64_t m = (uint64_t)d->hcap - 1, h = hash_of(g) & m;
    while (d->hkey[h] != g)
        h = (h + 1) & m;
    for (uint64_t j = (h + 1) & m;; j = (j + 1) & m) { /* backward shift of the run after h */
        if (d->hkey[j] < 0)
            break;
        const uint64_t home = hash_of(d->hkey[j]) & m;
        if (((j - home) & m) >= ((j - h) & m)) {
            d->hkey[h] = d->hkey[j];
            d->hval[h] = d->hval[j];
            h = j;
        }
    }
    d->hkey[h] = -1;
}

/* The map rebuilt for the n particles held, with room for twice as many. */
static void map_rebuild(dbox *d, int64_t n)
{
    int64_t c = 64;
    while (c < 4 * n)
        c *= 2;
    if (c != d->hcap) {
        d->hkey = grow_to(d->hkey, c, sizeof(int64_t));
        d->hval = grow_to(d->hval, c, sizeof(int64_t));
        d->hcap = c;
    }
    for (int64_t k = 0; k < c; ++k)
        d->hkey[k] = -1;
    for (int64_t i = 0; i < n; ++i)
        vs_mcd_map_put(d, d->gid[i], i);
}

/* Room for the box's particles' gids, and a map below half full for one more. */
static void reserve_gid(dbox *d, const vs_mc_box *b)
{
    if (d->gid_cap < b->cap) {
        d->gid = grow_to(d->gid, b->cap, sizeof(int64_t));
        d->gid_cap = b->cap;
    }
    if (2 * (b->n + 1) > d->hcap)
        map_rebuild(d, b->n);
}

/* ---- start, files -------------------------------------------------------------------- */

int vs_mc_domain_open(vs_mc_state *s, const vs_par *par)
{
    s->dom = calloc(1, sizeof *s->dom);
    if (!s->dom)
        return -1;
    s->dom->par = *par;
    return 0;
}

void vs_mc_domain_attach(vs_mc_state *s, vs_mc_ranks *ranks)
{
    s->dom->ranks = ranks;
    s->dom->par = ranks->par;
}

void vs_mc_domain_take_gpu(vs_mc_state *s)
{
    for (int b = 0; b < VS_MC_MAX_BOXES; ++b) {
        s->dom->gpu[b] = s->gpu[b];
        s->gpu[b] = NULL;
    }
}

void vs_mc_domain_close(vs_mc_state *s)
{
    vs_mc_domain *d = s->dom;
    if (!d)
        return;
#ifdef VESICA_HAVE_CUDA
    for (int b = 0; b < VS_MC_MAX_BOXES; ++b)
        vs_gpu_mc_free(d->gpu[b]);
#endif
    free(d->cells);
    for (int b = 0; b < VS_MC_MAX_BOXES; ++b) {
        free(d->box[b].gid);
        free(d->box[b].hkey);
        free(d->box[b].hval);
    }
    layout *l = &d->lay;
    free(l->xs);
    free(l->ss);
    free(l->gid);
    free(l->tag);
    free(l->start);
    free(l->peer);
    free(l->scell);
    free(l->rcell);
    free(l->sfirst);
    free(l->rfirst);
    free(d);
    s->dom = NULL;
}

int vs_mc_domain_keeps(const vs_mc_state *s, int64_t i, int64_t n)
{
    const vs_par *p = &s->dom->par;
    return i >= n * p->rank / p->size && i < n * (p->rank + 1) / p->size;
}

int vs_mc_domain_append(vs_mc_state *s, int bi, const double x[3], int32_t species,
                        int64_t tag, int64_t gid)
{
    vs_mc_box *b = &s->box[bi];
    dbox *d = &s->dom->box[bi];
    if (vs_mc_box_reserve(b, b->n + 1))
        return -1;
    reserve_gid(d, b);
    d->gid[b->n] = gid;
    vs_mcd_map_put(d, gid, b->n);
    vs_mc_box_append(b, x, species, tag);
    return 0;
}

void vs_mc_domain_recount(vs_mc_state *s)
{
    for (int bi = 0; bi < s->n_boxes; ++bi) {
        dbox *d = &s->dom->box[bi];
        int64_t c[VS_MAX_SPECIES + 1];
        c[0] = s->box[bi].n;
        memcpy(c + 1, s->box[bi].count, sizeof s->box[bi].count);
        vs_par_sum_int64(&s->dom->par, c, VS_MAX_SPECIES + 1);
        d->n = c[0];
        memcpy(d->count, c + 1, sizeof d->count);
    }
}

static rec record_of(const vs_mc_box *b, const dbox *d, int64_t i)
{
    rec r;
    memcpy(r.x, &b->x[3 * i], sizeof r.x);
    r.gid = d->gid[i];
    r.tag = b->tag[i];
    r.species = b->species[i];
    r.cell = 0;
    return r;
}

/* The rank's part of box bi replaced by the records r[0..n) (gid order kept). */
/* The rank's part of box bi emptied, with room for n particles. Returns 0, or -1. */
static int hold_empty(vs_mc_state *s, int bi, int64_t n)
{
    vs_mc_box *b = &s->box[bi];
    b->n = 0;
    memset(b->count, 0, sizeof b->count);
    if (vs_mc_box_set_edges(b, b->L, &s->pairs) || vs_mc_box_reserve(b, n + 1))
        return -1;
    reserve_gid(&s->dom->box[bi], b);
    return 0;
}

static int hold(vs_mc_state *s, int bi, const rec *r, int64_t n)
{
    vs_mc_box *b = &s->box[bi];
    dbox *d = &s->dom->box[bi];
    if (hold_empty(s, bi, n))
        return -1;
    for (int64_t i = 0; i < n; ++i) {
        d->gid[i] = r[i].gid;
        vs_mc_box_append(b, r[i].x, r[i].species, r[i].tag);
    }
    map_rebuild(d, n);
    return 0;
}

int vs_mc_domain_scatter(vs_mc_state *s)
{
    const vs_par *par = &s->dom->par;
    int bad = 0;
    for (int bi = 0; bi < s->n_boxes; ++bi) {
        vs_mc_box *b = &s->box[bi];
        double L[3];
        memcpy(L, b->L, sizeof L);
        int64_t n = b->n;
        vs_par_bcast_bytes(par, L, sizeof L, 0);
        vs_par_bcast_bytes(par, &n, sizeof n, 0);
        memcpy(b->L, L, sizeof L);
        int64_t *counts = calloc((size_t)par->size, sizeof *counts);
        rec *send = par->rank == 0 ? malloc((size_t)(n > 0 ? n : 1) * sizeof *send) : NULL;
        if (vs_par_any(par, !counts || (par->rank == 0 && !send))) {
            free(counts);
            free(send);
            return -1;
        }
        if (par->rank == 0)
            for (int64_t i = 0; i < n; ++i) { /* the file's order is the index order */
                send[i] = (rec){{b->x[3 * i], b->x[3 * i + 1], b->x[3 * i + 2]}, i, b->tag[i],
                                b->species[i], 0};
                for (int r = 0; r < par->size; ++r)
                    counts[r] += i >= n * r / par->size && i < n * (r + 1) / par->size;
            }
        int64_t got = 0;
        rec *mine = vs_par_alltoallv_records(par, send, counts, sizeof(rec), &got);
        bad |= hold(s, bi, mine, got);
        free(mine);
        free(send);
        free(counts);
    }
    if (vs_par_any(par, bad))
        return -1;
    vs_mc_domain_recount(s);
    return 0;
}

void vs_mc_domain_gather(const vs_mc_state *s, int bi, vs_mc_box_data *out)
{
    const vs_par *par = &s->dom->par;
    const vs_mc_box *b = &s->box[bi];
    const dbox *d = &s->dom->box[bi];
    memset(out, 0, sizeof *out);
    rec *send = VS_MALLOC(sizeof(rec) * (size_t)(b->n > 0 ? b->n : 1));
    for (int64_t i = 0; i < b->n; ++i)
        send[i] = record_of(b, d, i);
    int64_t *counts = calloc((size_t)par->size, sizeof *counts);
    if (!counts)
        VS_FATAL("out of memory gathering a Monte Carlo box");
    counts[0] = b->n;
    int64_t got = 0;
    rec *all = vs_par_alltoallv_records(par, send, counts, sizeof(rec), &got);
    free(send);
    free(counts);
    memcpy(out->L, b->L, sizeof out->L);
    if (par->rank == 0) {
        out->n = got;
        out->x = VS_MALLOC(sizeof(double) * (size_t)(3 * got + 1));
        out->species = VS_MALLOC(sizeof(int32_t) * (size_t)(got + 1));
        out->tag = VS_MALLOC(sizeof(int64_t) * (size_t)(got + 1));
        for (int64_t k = 0; k < got; ++k) {
            const int64_t i = all[k].gid;
            memcpy(&out->x[3 * i], all[k].x, sizeof all[k].x);
            out->species[i] = all[k].species;
            out->tag[i] = all[k].tag;
        }
    }
    free(all);
}

/* Box bi's particles regrouped over the ranks by index (by_tag 0: rank r takes indices
 * [N r / P, N (r + 1) / P)) or by tag (1: tags [T r / P, T (r + 1) / P), T the next tag):
 * this rank's share, *got of them (malloc'd). Collective. */
static rec *regroup(const vs_mc_state *s, int bi, int by_tag, int64_t *got)
{
    const vs_par *par = &s->dom->par;
    const vs_mc_box *b = &s->box[bi];
    const dbox *d = &s->dom->box[bi];
    const int64_t size = par->size;
    const int64_t range = by_tag ? (s->pr.next_tag > 0 ? s->pr.next_tag : 1) : d->n;
    int64_t *counts = calloc(2 * (size_t)size, sizeof *counts), *at = counts + size;
    int *dest = VS_MALLOC(sizeof(int) * (size_t)(b->n + 1));
    rec *send = VS_MALLOC(sizeof(rec) * (size_t)(b->n + 1));
    if (!counts)
        VS_FATAL("out of memory regrouping a Monte Carlo box");
    for (int64_t i = 0; i < b->n; ++i) {
        const int64_t key = by_tag ? (b->tag[i] < range ? b->tag[i] : range - 1) : d->gid[i];
        int64_t r = key * size / range;
        while (key >= range * (r + 1) / size)
            ++r;
        dest[i] = (int)r;
        counts[r]++;
    }
    for (int r = 1; r < size; ++r)
        at[r] = at[r - 1] + counts[r - 1];
    for (int64_t i = 0; i < b->n; ++i)
        send[at[dest[i]]++] = record_of(b, d, i);
    rec *mine = vs_par_alltoallv_records(par, send, counts, sizeof(rec), got);
    free(send);
    free(dest);
    free(counts);
    return mine;
}

static int by_tag(const void *a, const void *b)
{
    const rec *p = a, *q = b;
    return p->tag < q->tag ? -1 : (p->tag > q->tag ? 1 : 0);
}

/* The records r[0..n) into out's new arrays: at their gid - base where base >= 0, else in
 * their order. */
static void to_data(const vs_mc_box *b, const rec *r, int64_t n, int64_t base,
                    vs_mc_box_data *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->L, b->L, sizeof out->L);
    out->n = n;
    out->x = VS_MALLOC(sizeof(double) * (size_t)(3 * n + 3));
    out->species = VS_MALLOC(sizeof(int32_t) * (size_t)(n + 1));
    out->tag = VS_MALLOC(sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t k = 0; k < n; ++k) {
        const int64_t i = base >= 0 ? r[k].gid - base : k;
        memcpy(&out->x[3 * i], r[k].x, sizeof r[k].x);
        out->species[i] = r[k].species;
        out->tag[i] = r[k].tag;
    }
}

void vs_mc_domain_rows(const vs_mc_state *s, int bi, vs_mc_box_data *out, int64_t *row0)
{
    int64_t got = 0;
    rec *mine = regroup(s, bi, 0, &got);
    *row0 = s->dom->box[bi].n * s->dom->par.rank / s->dom->par.size;
    to_data(&s->box[bi], mine, got, *row0, out); /* by index within the rank's rows */
    free(mine);
}

void vs_mc_domain_tag_rows(const vs_mc_state *s, int bi, vs_mc_box_data *out, int64_t *row0)
{
    int64_t got = 0;
    rec *mine = regroup(s, bi, 1, &got);
    qsort(mine, (size_t)got, sizeof *mine, by_tag);
    *row0 = vs_par_exscan_int64(&s->dom->par, got);
    to_data(&s->box[bi], mine, got, -1, out);
    free(mine);
}

int vs_mc_domain_hold_rows(vs_mc_state *s, int bi, const vs_mc_box_data *d, int64_t row0)
{
    rec *r = malloc(sizeof(rec) * (size_t)(d->n + 1));
    if (!r)
        return -1;
    for (int64_t i = 0; i < d->n; ++i)
        r[i] = (rec){{d->x[3 * i], d->x[3 * i + 1], d->x[3 * i + 2]}, row0 + i, d->tag[i],
                     d->species[i], 0};
    memcpy(s->box[bi].L, d->L, sizeof d->L);
    const int rc = hold(s, bi, r, d->n);
    free(r);
    return rc;
}

void vs_mc_box_data_free(vs_mc_box_data *d)
{
    free(d->x);
    free(d->species);
    free(d->tag);
    memset(d, 0, sizeof *d);
}

/* ---- layouts ------------------------------------------------------------------------- */


static int cmp_i64(const void *a, const void *b)
{
    const int64_t p = *(const int64_t *)a, q = *(const int64_t *)b;
    return p < q ? -1 : (p > q ? 1 : 0);
}

static void coords_of(const layout *l, int64_t cell, int c[3])
{
    c[0] = (int)(cell % l->nc[0]);
    c[1] = (int)(cell / l->nc[0] % l->nc[1]);
    c[2] = (int)(cell / ((int64_t)l->nc[0] * l->nc[1]));
}

static int64_t cell_id(const layout *l, const int c[3])
{
    return c[0] + l->nc[0] * (c[1] + (int64_t)l->nc[1] * c[2]);
}

/* The distinct cells next to cell c (c included) of plan p's grid into nb; their number. */
static int near_cells(const vs_mc_sweep_plan *p, const int c[3], int nb[27][3])
{
    int q[3][3], nq[3], m = 0;
    for (int d = 0; d < 3; ++d)
        nq[d] = vs_mc_sweep_near(p, d, c[d], q[d]);
    for (int a = 0; a < nq[2]; ++a)
        for (int b = 0; b < nq[1]; ++b)
            for (int e = 0; e < nq[0]; ++e, ++m) {
                nb[m][0] = q[0][e];
                nb[m][1] = q[1][b];
                nb[m][2] = q[2][a];
            }
    return m;
}

/* Sorted, without repeats: returns the new length. */
static int64_t unique(int64_t *a, int64_t n)
{
    qsort(a, (size_t)n, sizeof *a, cmp_i64);
    int64_t m = 0;
    for (int64_t i = 0; i < n; ++i)
        if (m == 0 || a[i] != a[m - 1])
            a[m++] = a[i];
    return m;
}

/* The records r[0..n) sorted by cell, then gid (a new array): by cell with the counts at
 * l->start[c + 1], then each cell's few by insertion. */
static rec *sort_by_cell(const rec *r, int64_t n, const layout *l)
{
    rec *out = VS_MALLOC(sizeof(rec) * (size_t)(n + 1));
    int64_t *at = VS_MALLOC(sizeof(int64_t) * (size_t)(l->ncell + 1));
    at[0] = 0;
    for (int64_t c = 0; c < l->ncell; ++c)
        at[c + 1] = at[c] + l->start[c + 1];
    for (int64_t i = 0; i < n; ++i)
        out[at[r[i].cell]++] = r[i];
    for (int64_t i = 1; i < n; ++i) { /* at[] now ends each cell: sort within cells only */
        const rec t = out[i];
        int64_t j = i;
        while (j > 0 && out[j - 1].cell == t.cell && out[j - 1].gid > t.gid) {
            out[j] = out[j - 1];
            --j;
        }
        out[j] = t;
    }
    free(at);
    return out;
}

/* Each (peer, cell) key list into the peers' entries: cells[] and first[] by peer. */
static void split_by_peer(const layout *l, const int64_t *keys, int64_t m, int64_t **cells,
                          int64_t **first)
{
    *cells = grow_to(*cells, m, sizeof(int64_t));
    *first = grow_to(*first, l->n_peers + 1, sizeof(int64_t));
    int k = 0;
    for (int64_t i = 0; i < m; ++i) {
        const int q = (int)(keys[i] / l->ncell);
        while (l->peer[k] != q)
            (*first)[++k] = i;
        (*cells)[i] = keys[i] % l->ncell;
    }
    while (k < l->n_peers)
        (*first)[++k] = m;
    (*first)[0] = 0;
}

/* The peers of this rank's brick in plan p's grid and the cells it sends each (its cells
 * next to theirs) and receives from each (theirs next to its), sorted by cell: both sides
 * list the same cells in the same order. */
static void peer_lists(vs_mc_domain *dom, layout *l, const vs_mc_sweep_plan *p)
{
    const int me = dom->par.rank;
    int64_t *snd = NULL, *rcv = NULL, m = 0, cap = 0;
    int c[3];
    for (c[2] = l->lo[2]; c[2] < l->hi[2]; ++c[2])
        for (c[1] = l->lo[1]; c[1] < l->hi[1]; ++c[1])
            for (c[0] = l->lo[0]; c[0] < l->hi[0]; ++c[0]) {
                int nb[27][3];
                const int k = near_cells(p, c, nb);
                for (int i = 0; i < k; ++i) {
                    const int r = vs_mc_ranks_owner(dom->ranks, l->nc, nb[i]);
                    if (r == me)
                        continue;
                    if (m == cap) {
                        cap = cap ? 2 * cap : 1024;
                        snd = grow_to(snd, cap, sizeof *snd);
                        rcv = grow_to(rcv, cap, sizeof *rcv);
                    }
                    snd[m] = (int64_t)r * l->ncell + cell_id(l, c);
                    rcv[m++] = (int64_t)r * l->ncell + cell_id(l, nb[i]);
                }
            }
    const int64_t ms = unique(snd, m), mr = unique(rcv, m);
    l->peer = grow_to(l->peer, dom->par.size, sizeof(int));
    l->n_peers = 0;
    for (int64_t i = 0; i < ms; ++i) /* a peer I send to sends to me: the lists pair up */
        if (l->n_peers == 0 || l->peer[l->n_peers - 1] != (int)(snd[i] / l->ncell))
            l->peer[l->n_peers++] = (int)(snd[i] / l->ncell);
    split_by_peer(l, snd, ms, &l->scell, &l->sfirst);
    split_by_peer(l, rcv, mr, &l->rcell, &l->rfirst);
    free(snd);
    free(rcv);
}

/* Exchange with every peer: send_bytes[k] from sbuf[k], recv_bytes[k] into rbuf[k]. */
static void exchange(const vs_mc_domain *dom, const layout *l, void **sbuf, size_t *sbytes,
                     void **rbuf, size_t *rbytes)
{
    vs_par_peer_exchange(&dom->par, l->n_peers, l->peer, (const void *const *)sbuf, sbytes,
                         rbuf, rbytes, 0x4d43);
}

static void **ptrs(int n)
{
    return VS_MALLOC(sizeof(void *) * (size_t)(n > 0 ? n : 1));
}

static void free_all(void **p, int n)
{
    for (int k = 0; k < n; ++k)
        free(p[k]);
    free(p);
}

/* The slots of the layout: n of them, start[] per cell from counts[] (ncell). */
static void slots_reserve(layout *l, int64_t n)
{
    if (n > l->cap) {
        l->xs = grow_to(l->xs, 3 * n, sizeof(double));
        l->ss = grow_to(l->ss, n, sizeof(int32_t));
        l->gid = grow_to(l->gid, n, sizeof(int64_t));
        l->tag = grow_to(l->tag, n, sizeof(int64_t));
        l->cap = n;
    }
}

static void put(layout *l, int64_t k, const rec *r)
{
    for (int d = 0; d < 3; ++d)
        l->xs[d * l->n + k] = r->x[d];
    l->ss[k] = r->species;
    l->gid[k] = r->gid;
    l->tag[k] = r->tag;
}

/* The ghost cells' counts and records from the peers, into the slots (start[] has the owned
 * cells' counts at c + 1 on entry, the whole layout's starts on return). own: the owned
 * records, sorted. */
static void fill_layout(vs_mc_domain *dom, layout *l, const rec *own, int64_t n_own)
{
    const int np = l->n_peers;
    void **sb = ptrs(np), **rb = ptrs(np);
    size_t *sz = VS_MALLOC(sizeof(size_t) * (size_t)(2 * np + 1)), *rz = sz + np;
    for (int k = 0; k < np; ++k) { /* the counts of the cells each peer gets */
        const int64_t m = l->sfirst[k + 1] - l->sfirst[k], mr = l->rfirst[k + 1] - l->rfirst[k];
        int64_t *c = VS_MALLOC(sizeof(int64_t) * (size_t)(m + 1));
        for (int64_t i = 0; i < m; ++i)
            c[i] = l->start[l->scell[l->sfirst[k] + i] + 1];
        sb[k] = c;
        sz[k] = (size_t)m * sizeof(int64_t);
        rb[k] = VS_MALLOC(sizeof(int64_t) * (size_t)(mr + 1));
        rz[k] = (size_t)mr * sizeof(int64_t);
    }
    exchange(dom, l, sb, sz, rb, rz);
    int64_t n = n_own;
    for (int k = 0; k < np; ++k)
        for (int64_t i = 0; i < (int64_t)(rz[k] / sizeof(int64_t)); ++i) {
            l->start[l->rcell[l->rfirst[k] + i] + 1] = ((int64_t *)rb[k])[i];
            n += ((int64_t *)rb[k])[i];
        }
    for (int64_t c = 0; c < l->ncell; ++c)
        l->start[c + 1] += l->start[c];
    l->n = n;
    slots_reserve(l, n);
    for (int64_t i = 0, cur = 0, prev = -1; i < n_own; ++i) { /* sorted by cell, then gid */
        if ((int64_t)own[i].cell != prev)
            cur = l->start[prev = own[i].cell];
        put(l, cur++, &own[i]);
    }
    for (int k = 0; k < np; ++k) { /* the records of those cells, in cell and slot order */
        free(sb[k]);
        free(rb[k]);
        int64_t m = 0, mr = 0;
        for (int64_t i = l->sfirst[k]; i < l->sfirst[k + 1]; ++i)
            m += l->start[l->scell[i] + 1] - l->start[l->scell[i]];
        for (int64_t i = l->rfirst[k]; i < l->rfirst[k + 1]; ++i)
            mr += l->start[l->rcell[i] + 1] - l->start[l->rcell[i]];
        rec *r = VS_MALLOC(sizeof(rec) * (size_t)(m + 1));
        m = 0;
        for (int64_t i = l->sfirst[k]; i < l->sfirst[k + 1]; ++i)
            for (int64_t j = l->start[l->scell[i]]; j < l->start[l->scell[i] + 1]; ++j, ++m)
                r[m] = (rec){{l->xs[j], l->xs[n + j], l->xs[2 * n + j]}, l->gid[j], l->tag[j],
                             l->ss[j], (uint32_t)l->scell[i]};
        sb[k] = r;
        sz[k] = (size_t)m * sizeof(rec);
        rb[k] = VS_MALLOC(sizeof(rec) * (size_t)(mr + 1));
        rz[k] = (size_t)mr * sizeof(rec);
    }
    exchange(dom, l, sb, sz, rb, rz);
    for (int k = 0; k < np; ++k) {
        const rec *r = rb[k];
        int64_t m = 0;
        for (int64_t i = l->rfirst[k]; i < l->rfirst[k + 1]; ++i)
            for (int64_t j = l->start[l->rcell[i]]; j < l->start[l->rcell[i] + 1]; ++j)
                put(l, j, &r[m++]);
    }
    free_all(sb, np);
    free_all(rb, np);
    free(sz);
}

/* Box bi's particles laid out over plan p's grid on this rank: its brick's cells (their
 * particles from whichever rank holds them) and the ghost layer. The box is not changed. */
static void layout_build(vs_mc_state *s, int bi, const vs_mc_sweep_plan *p)
{
    vs_mc_domain *dom = s->dom;
    layout *l = &dom->lay;
    const vs_mc_box *b = &s->box[bi];
    const dbox *d = &dom->box[bi];
    const int size = dom->par.size;
    memcpy(l->nc, p->nc, sizeof l->nc);
    l->ncell = (int64_t)p->nc[0] * p->nc[1] * p->nc[2];
    vs_mc_ranks_brick(dom->ranks, dom->par.rank, l->nc, l->lo, l->hi);
    int64_t *counts = calloc(2 * (size_t)size, sizeof *counts), *at = counts + size;
    int *dest = VS_MALLOC(sizeof(int) * (size_t)(b->n + 1));
    rec *send = VS_MALLOC(sizeof(rec) * (size_t)(b->n + 1));
    if (!counts)
        VS_FATAL("out of memory for the Monte Carlo domain split");
    for (int64_t i = 0; i < b->n; ++i) { /* to the rank that holds its cell */
        int c[3];
        coords_of(l, vs_mc_sweep_cell(p, &b->x[3 * i]), c);
        dest[i] = vs_mc_ranks_owner(dom->ranks, l->nc, c);
        counts[dest[i]]++;
    }
    for (int r = 1; r < size; ++r)
        at[r] = at[r - 1] + counts[r - 1];
    for (int64_t i = 0; i < b->n; ++i) {
        rec r = record_of(b, d, i);
        r.cell = vs_mc_sweep_cell(p, r.x);
        send[at[dest[i]]++] = r;
    }
    int64_t n_own = 0;
    rec *own = vs_par_alltoallv_records(&dom->par, send, counts, sizeof(rec), &n_own);
    free(send);
    free(dest);
    free(counts);
    if (l->ncell + 1 > l->start_cap) {
        l->start = grow_to(l->start, l->ncell + 1, sizeof(int64_t));
        l->start_cap = l->ncell + 1;
    }
    memset(l->start, 0, sizeof(int64_t) * (size_t)(l->ncell + 1));
    for (int64_t i = 0; i < n_own; ++i)
        l->start[own[i].cell + 1]++;
    rec *sorted = sort_by_cell(own, n_own, l);
    free(own);
    own = sorted;
    peer_lists(dom, l, p);
    l->n_own = n_own;
    fill_layout(dom, l, own, n_own);
    free(own);
}

/* The slots of peer k's cells (cells[first[k]..first[k + 1])) of `colour`, in order:
 * copied into buf (out), or from it; returns their count. buf NULL: counted only. */
static int64_t colour_slots(layout *l, const int64_t *cells, const int64_t *first, int k,
                            int colour, double *buf, int out)
{
    int64_t m = 0;
    for (int64_t i = first[k]; i < first[k + 1]; ++i) {
        int c[3];
        coords_of(l, cells[i], c);
        if (vs_mc_sweep_colour(c[0], c[1], c[2]) != colour)
            continue;
        for (int64_t j = l->start[cells[i]]; j < l->start[cells[i] + 1]; ++j, ++m)
            for (int d = 0; buf && d < 3; ++d) {
                if (out)
                    buf[3 * m + d] = l->xs[d * l->n + j];
                else
                    l->xs[d * l->n + j] = buf[3 * m + d];
            }
    }
    return m;
}

/* After a colour step: the positions of this colour's cells to the peers that see them. */
static void colour_update(vs_mc_domain *dom, layout *l, int colour)
{
    const int np = l->n_peers;
    void **sb = ptrs(np), **rb = ptrs(np);
    size_t *sz = VS_MALLOC(sizeof(size_t) * (size_t)(2 * np + 1)), *rz = sz + np;
    for (int k = 0; k < np; ++k) {
        const int64_t m = colour_slots(l, l->scell, l->sfirst, k, colour, NULL, 1);
        const int64_t mr = colour_slots(l, l->rcell, l->rfirst, k, colour, NULL, 0);
        sb[k] = VS_MALLOC(sizeof(double) * (size_t)(3 * m + 1));
        rb[k] = VS_MALLOC(sizeof(double) * (size_t)(3 * mr + 1));
        sz[k] = (size_t)(3 * m) * sizeof(double);
        rz[k] = (size_t)(3 * mr) * sizeof(double);
        colour_slots(l, l->scell, l->sfirst, k, colour, sb[k], 1);
    }
    exchange(dom, l, sb, sz, rb, rz);
    for (int k = 0; k < np; ++k)
        colour_slots(l, l->rcell, l->rfirst, k, colour, rb[k], 0);
    free_all(sb, np);
    free_all(rb, np);
    free(sz);
}

/* ---- the sweep and the whole-box energy ---------------------------------------------- */

#ifdef VESICA_HAVE_CUDA
/* The GPU's split sweep over the layout (gpu_mc.h): the device holds the layout's slots in
 * their order (sorted by cell, gid within a cell, as the device's stable sort leaves them),
 * runs the brick's cells of each colour from a list, and hands the positions to the host
 * after each colour step for the halo. The split's context is the domain. */
static int64_t gpu_cells(void *ctx, int colour, const uint32_t **list)
{
    vs_mc_domain *dom = ctx;
    const layout *l = &dom->lay;
    int64_t m = 0;
    int c[3];
    for (c[2] = l->lo[2] + ((((colour >> 2) & 1) - l->lo[2]) & 1); c[2] < l->hi[2]; c[2] += 2)
        for (c[1] = l->lo[1] + ((((colour >> 1) & 1) - l->lo[1]) & 1); c[1] < l->hi[1]; c[1] += 2)
            for (c[0] = l->lo[0] + (((colour & 1) - l->lo[0]) & 1); c[0] < l->hi[0]; c[0] += 2)
                dom->cells[m++] = (uint32_t)cell_id(l, c);
    *list = dom->cells;
    return m;
}

static void gpu_share(void *ctx, int colour, const int64_t *start, double *xs, int64_t n)
{
    vs_mc_domain *dom = ctx;
    layout *l = &dom->lay;
    (void)start; /* the device's starts are the layout's: the same cells and counts */
    (void)n;
    double *own = l->xs;
    l->xs = xs;
    colour_update(dom, l, colour);
    l->xs = own;
}

static int gpu_sweep(vs_mc_domain *dom, struct vs_gpu_mc *g, const vs_mc_sweep_plan *p,
                     vs_wide *dU, int64_t *acc, char *err, size_t len)
{
    layout *l = &dom->lay;
    const int64_t n = l->n;
    int64_t cells = 1;
    for (int d = 0; d < 3; ++d)
        cells *= l->hi[d] > l->lo[d] ? l->hi[d] - l->lo[d] : 0;
    if (cells + 1 > dom->cells_cap) {
        dom->cells = grow_to(dom->cells, cells + 1, sizeof(uint32_t));
        dom->cells_cap = cells + 1;
    }
    double *x = VS_MALLOC(sizeof(double) * (size_t)(3 * n + 1));
    for (int64_t k = 0; k < n; ++k)
        for (int d = 0; d < 3; ++d)
            x[3 * k + d] = l->xs[d * n + k];
    const vs_gpu_mc_split split = {gpu_cells, gpu_share, dom};
    const int rc = vs_gpu_mc_upload(g, n, x, l->ss, err, len) ||
                   vs_gpu_mc_sweep(g, p, &split, dU, acc, err, len) ||
                   vs_gpu_mc_download(g, x, err, len);
    for (int64_t k = 0; k < n && !rc; ++k)
        for (int d = 0; d < 3; ++d)
            l->xs[d * n + k] = x[3 * k + d];
    free(x);
    return rc ? -1 : 0;
}
#endif

/* The CPU's colour steps over the layout: the brick's cells of each colour, then the halo. */
static void cpu_colours(const vs_mc_state *s, vs_mc_domain *dom, const vs_mc_sweep_plan *p,
                        vs_wide *dU, int64_t *acc)
{
    layout *l = &dom->lay;
    vs_mc_sweep_work w;
    memset(&w, 0, sizeof w);
    w.xs = l->xs;
    w.ss = l->ss;
    w.start = l->start;
    for (uint32_t step = 0; step < 8; ++step) {
        const int colour = p->order[step];
        int c[3];
        for (c[2] = l->lo[2] + ((((colour >> 2) & 1) - l->lo[2]) & 1); c[2] < l->hi[2]; c[2] += 2)
            for (c[1] = l->lo[1] + ((((colour >> 1) & 1) - l->lo[1]) & 1); c[1] < l->hi[1];
                 c[1] += 2)
                for (c[0] = l->lo[0] + (((colour & 1) - l->lo[0]) & 1); c[0] < l->hi[0];
                     c[0] += 2)
                    vs_mc_cell_trials(s, p, &w, l->n, c, step, dU, acc);
        colour_update(dom, l, colour);
    }
}

int vs_mc_domain_sweep(vs_mc_state *s, int bi, const vs_mc_sweep_plan *p, vs_wide *dU,
                       int64_t *acc, char *err, size_t len)
{
    vs_mc_domain *dom = s->dom;
    layout *l = &dom->lay;
    layout_build(s, bi, p);
    int failed = 0;
#ifdef VESICA_HAVE_CUDA
    if (dom->gpu[bi])
        failed = gpu_sweep(dom, dom->gpu[bi], p, dU, acc, err, len) != 0;
    else
#endif
        cpu_colours(s, dom, p, dU, acc);
    /* the brick's particles are what the rank holds now, in cell order */
    vs_mc_box *b = &s->box[bi];
    dbox *d = &dom->box[bi];
    if (hold_empty(s, bi, l->n_own))
        VS_FATAL("out of memory for a Monte Carlo box");
    int c[3];
    for (c[2] = l->lo[2]; c[2] < l->hi[2]; ++c[2])
        for (c[1] = l->lo[1]; c[1] < l->hi[1]; ++c[1])
            for (c[0] = l->lo[0]; c[0] < l->hi[0]; ++c[0]) {
                const int64_t cell = cell_id(l, c);
                for (int64_t j = l->start[cell]; j < l->start[cell + 1]; ++j) {
                    const double x[3] = {l->xs[j], l->xs[l->n + j], l->xs[2 * l->n + j]};
                    d->gid[b->n] = l->gid[j];
                    vs_mc_box_append(b, x, l->ss[j], l->tag[j]);
                }
            }
    map_rebuild(d, b->n);
    d->last = *p;
    d->have_last = 1;
    const int mine = failed;
    vs_mc_ranks_sum(dom->ranks, dU, acc, &failed);
    if (failed && !mine)
        snprintf(err, len, "the checkerboard sweep failed on another rank's GPU");
    return failed ? -1 : 0;
}

/* The grid of a whole-box energy: the sweep's grid for edges L, no offset. */
static void energy_plan(const vs_mc_state *s, const double L[3], vs_mc_sweep_plan *p)
{
    memset(p, 0, sizeof *p);
    vs_mc_sweep_plan_make(p, L, s->pairs.reach);
    for (int d = 0; d < 3; ++d)
        p->off[d] = 0.0;
}

/* Box bi's pair energy (and virial) over the ranks, each pair once from its lower gid. */
vs_wide vs_mcd_energy(vs_mc_state *s, int bi, double *virial)
{
    vs_mc_domain *dom = s->dom;
    layout *l = &dom->lay;
    const vs_mc_box *b = &s->box[bi];
    vs_mc_sweep_plan p;
    energy_plan(s, b->L, &p);
    layout_build(s, bi, &p);
    const double reach2 = s->pairs.reach * s->pairs.reach;
    vs_wide sum[2] = {0, 0};
    int c[3];
    for (c[2] = l->lo[2]; c[2] < l->hi[2]; ++c[2])
        for (c[1] = l->lo[1]; c[1] < l->hi[1]; ++c[1])
            for (c[0] = l->lo[0]; c[0] < l->hi[0]; ++c[0]) {
                int nb[27][3];
                const int near = near_cells(&p, c, nb);
                const int64_t cell = cell_id(l, c);
                for (int64_t k = l->start[cell]; k < l->start[cell + 1]; ++k) {
                    const double xk[3] = {l->xs[k], l->xs[l->n + k], l->xs[2 * l->n + k]};
                    for (int i = 0; i < near; ++i) {
                        const int64_t cn = cell_id(l, nb[i]);
                        for (int64_t j = l->start[cn]; j < l->start[cn + 1]; ++j) {
                            if (l->gid[j] <= l->gid[k])
                                continue;
                            const double xj[3] = {l->xs[j], l->xs[l->n + j], l->xs[2 * l->n + j]};
                            const double r2 = vs_mc_box_dist2(b->L, xk, xj);
                            if (!(r2 < reach2))
                                continue;
                            vs_wide ee, ww = 0;
                            vs_mc_pair_quanta(&s->pairs, l->ss[k], l->ss[j], r2, &ee,
                                              virial ? &ww : NULL);
                            sum[0] += ee;
                            sum[1] += ww;
                        }
                    }
                }
            }
    vs_mc_ranks_sum_wide(dom->ranks, sum);
    if (virial)
        *virial = vs_wide_to_double(sum[1]);
    return sum[0];
}
