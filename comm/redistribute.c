/* All-to-all redistribution of particle records: see redistribute.h. */
#include "redistribute.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

void vs_tag_slab(int64_t n_total, int size, int rank, int64_t *lo, int64_t *hi)
{
    const int64_t base = n_total / size, extra = n_total % size;
    *lo = rank * base + (rank < extra ? rank : extra);
    *hi = *lo + base + (rank < extra ? 1 : 0);
}

/* Group the records that leave (dest[i] >= 0; a negative dest stays on this rank and is not
 * sent) by destination, a stable counting sort, and exchange them. The caller places the
 * stayers itself: on one rank nothing is copied here. */
static void *route_bytes(const vs_par *par, const void *recs, size_t size, int64_t n,
                         const int *dest, int64_t *n_out)
{
    int64_t *counts = VS_MALLOC(sizeof(int64_t) * (size_t)(par->size + 1));
    memset(counts, 0, sizeof(int64_t) * (size_t)(par->size + 1));
    int64_t leaving = 0;
    for (int64_t i = 0; i < n; ++i)
        if (dest[i] >= 0) {
            counts[dest[i] + 1]++;
            ++leaving;
        }
    for (int r = 0; r < par->size; ++r)
        counts[r + 1] += counts[r]; /* now counts[r] is the first slot of rank r */
    char *grouped = VS_MALLOC(size * (size_t)(leaving > 0 ? leaving : 1));
    for (int64_t i = 0; i < n; ++i)
        if (dest[i] >= 0)
            memcpy(grouped + size * (size_t)counts[dest[i]]++,
                   (const char *)recs + size * (size_t)i, size);
    /* counts[r] is now the end of rank r's group: turn ends into counts */
    for (int r = par->size - 1; r > 0; --r)
        counts[r] -= counts[r - 1];
    void *out = vs_par_alltoallv_records(par, grouped, counts, size, n_out);
    free(grouped);
    free(counts);
    return out;
}

/* The records that leave, and each kind of their optional records that is present (ext,
 * NULL: none), to the ranks of `dest` (route_bytes): all arrive in the same order (the same
 * stable grouping and the same counts). */
static vs_particle_rec *route(const vs_par *par, const vs_particle_rec *recs,
                              const vs_particle_ext *ext, int64_t n, const int *dest,
                              int64_t *n_out, vs_particle_ext *ext_out)
{
    vs_particle_rec *out = route_bytes(par, recs, sizeof *recs, n, dest, n_out);
    memset(ext_out, 0, sizeof *ext_out);
    int64_t m = 0;
    if (ext && ext->topo)
        ext_out->topo = route_bytes(par, ext->topo, sizeof(vs_topo), n, dest, &m);
    if (ext && ext->special)
        ext_out->special = route_bytes(par, ext->special, sizeof(vs_special), n, dest, &m);
    if (ext && ext->dih)
        ext_out->dih = route_bytes(par, ext->dih, sizeof(vs_dihedrals), n, dest, &m);
    if (ext && ext->orient)
        ext_out->orient = route_bytes(par, ext->orient, sizeof(vs_orient), n, dest, &m);
    return out;
}

/* Record k of an optional array (NULL: none) to slot `to` of another. */
#define VS_EXT_COPY(dst, src, to, k)                                                           \
    do {                                                                                       \
        if (src)                                                                               \
            (dst)[to] = (src)[k];                                                              \
    } while (0)

static void *alloc_like(const void *src, size_t size, int64_t m)
{
    return src ? VS_MALLOC(size * (size_t)(m > 0 ? m : 1)) : NULL;
}

/* Where the records of this rank end up: the stayers (dest[i] < 0) of recs/ext and the
 * arrivals got/got_ext. */
typedef struct {
    const vs_particle_rec *recs;
    const vs_particle_ext *ext; /* NULL: none */
    const int *dest;
    int64_t n;
    const vs_particle_rec *got;
    const vs_particle_ext *got_ext;
    int64_t n_got;
} rank_share;

/* Record k of the input (a stayer) or, with from_got, of the arrivals, with its optional
 * records, to slot `to`. */
static void put_record(const rank_share *a, int from_got, int64_t k, vs_particle_rec *out,
                       vs_particle_ext *out_ext, int64_t to)
{
    if (from_got) {
        out[to] = a->got[k];
        VS_EXT_COPY(out_ext->topo, a->got_ext->topo, to, k);
        VS_EXT_COPY(out_ext->special, a->got_ext->special, to, k);
        VS_EXT_COPY(out_ext->dih, a->got_ext->dih, to, k);
        VS_EXT_COPY(out_ext->orient, a->got_ext->orient, to, k);
    } else {
        out[to] = a->recs[k];
        if (a->ext) {
            VS_EXT_COPY(out_ext->topo, a->ext->topo, to, k);
            VS_EXT_COPY(out_ext->special, a->ext->special, to, k);
            VS_EXT_COPY(out_ext->dih, a->ext->dih, to, k);
            VS_EXT_COPY(out_ext->orient, a->ext->orient, to, k);
        }
    }
}

/* The stayers and the arrivals in one malloc'd array (out_ext: the kinds present), either
 * placed by tag into the slab [lo, hi) (when they fill it exactly once), or else, with
 * `place` 0 or when particles were lost or duplicated, concatenated and sorted by tag (for
 * the caller to report, or to place as it likes). */
static vs_particle_rec *collect(const rank_share *a, int place, int64_t lo, int64_t hi,
                                int64_t *n_out, vs_particle_ext *out_ext)
{
    int64_t stay = 0;
    for (int64_t i = 0; i < a->n; ++i)
        stay += a->dest[i] < 0;
    const int64_t m = stay + a->n_got;
    const vs_particle_ext *kinds = a->got_ext;
    vs_particle_rec *out = VS_MALLOC(sizeof(vs_particle_rec) * (size_t)(m > 0 ? m : 1));
    out_ext->topo = alloc_like(kinds->topo, sizeof(vs_topo), m);
    out_ext->special = alloc_like(kinds->special, sizeof(vs_special), m);
    out_ext->dih = alloc_like(kinds->dih, sizeof(vs_dihedrals), m);
    out_ext->orient = alloc_like(kinds->orient, sizeof(vs_orient), m);
    *n_out = m;
    int placed = place && m == hi - lo;
    if (placed) {
        /* each slot once: a duplicate leaves another slot unfilled */
        unsigned char *filled = VS_MALLOC((size_t)(m > 0 ? m : 1));
        memset(filled, 0, (size_t)(m > 0 ? m : 1));
        for (int from_got = 0; from_got < 2 && placed; ++from_got) {
            const int64_t count = from_got ? a->n_got : a->n;
            for (int64_t k = 0; k < count; ++k) {
                if (!from_got && a->dest[k] >= 0)
                    continue;
                const int64_t tag = from_got ? a->got[k].tag : a->recs[k].tag;
                if (tag < lo || tag >= hi || filled[tag - lo]) {
                    placed = 0;
                    break;
                }
                filled[tag - lo] = 1;
                put_record(a, from_got, k, out, out_ext, tag - lo);
            }
        }
        free(filled);
    }
    if (!placed) {
        int64_t to = 0;
        for (int64_t k = 0; k < a->n; ++k)
            if (a->dest[k] < 0)
                put_record(a, 0, k, out, out_ext, to++);
        for (int64_t k = 0; k < a->n_got; ++k)
            put_record(a, 1, k, out, out_ext, to++);
        vs_particle_recs_sort_by_tag_ext(out, out_ext, m);
    }
    return out;
}

/* Send each record to dest[i] (this rank's own entries are rewritten to -1 and stay), and
 * collect this rank's share (collect). */
static vs_particle_rec *exchange(const vs_par *par, const vs_particle_rec *recs,
                                 const vs_particle_ext *ext, int64_t n, int *dest, int place,
                                 int64_t lo, int64_t hi, int64_t *n_out,
                                 vs_particle_ext *ext_out)
{
    for (int64_t i = 0; i < n; ++i)
        if (dest[i] == par->rank)
            dest[i] = -1;
    vs_particle_ext got_ext;
    int64_t n_got = 0;
    vs_particle_rec *got = route(par, recs, ext, n, dest, &n_got, &got_ext);
    const rank_share a = {recs, ext, dest, n, got, &got_ext, n_got};
    vs_particle_ext out_ext;
    vs_particle_rec *out = collect(&a, place, lo, hi, n_out, &out_ext);
    free(got);
    vs_particle_ext_free(&got_ext);
    if (ext_out)
        *ext_out = out_ext;
    else
        vs_particle_ext_free(&out_ext);
    return out;
}

vs_particle_rec *vs_redistribute_by_tag(const vs_par *par, const vs_particle_rec *recs,
                                        int64_t n, int64_t n_total, int64_t *n_out)
{
    return vs_redistribute_by_tag_ext(par, recs, NULL, n, n_total, n_out, NULL);
}

vs_particle_rec *vs_redistribute_by_tag_ext(const vs_par *par, const vs_particle_rec *recs,
                                            const vs_particle_ext *ext, int64_t n,
                                            int64_t n_total, int64_t *n_out,
                                            vs_particle_ext *ext_out)
{
    int *dest = VS_MALLOC(sizeof(int) * (size_t)(n > 0 ? n : 1));
    const int64_t base = n_total / par->size, extra = n_total % par->size;
    const int64_t split = extra * (base + 1); /* slabs below `split` hold base + 1 tags */
    for (int64_t i = 0; i < n; ++i) {
        const int64_t t = recs[i].tag;
        if (t < 0 || t >= n_total)
            VS_FATAL("particle tag %lld outside 0..%lld", (long long)t, (long long)n_total - 1);
        dest[i] = t < split ? (int)(t / (base + 1)) : (int)(extra + (t - split) / base);
    }
    /* tag order by direct placement: this rank's slab is the tag range [lo, hi) */
    int64_t lo, hi;
    vs_tag_slab(n_total, par->size, par->rank, &lo, &hi);
    vs_particle_rec *out = exchange(par, recs, ext, n, dest, 1, lo, hi, n_out, ext_out);
    free(dest);
    return out;
}

/* Brick index along one dimension, with exactly the faces halo.c uses (lo <= x < hi). */
static int brick_of(double x, double len, int n)
{
    int c = (int)floor(x / len * (double)n);
    c = c < 0 ? 0 : (c >= n ? n - 1 : c);
    while (c > 0 && x < vs_decomp_face(len, c, n))
        --c;
    while (c < n - 1 && x >= vs_decomp_face(len, c + 1, n))
        ++c;
    return c;
}

vs_particle_rec *vs_redistribute_by_brick(const vs_decomp *dc, vs_particle_rec *recs, int64_t n,
                                          int64_t *n_out)
{
    return vs_redistribute_by_brick_ext(dc, recs, NULL, n, n_out, NULL);
}

vs_particle_rec *vs_redistribute_by_brick_ext(const vs_decomp *dc, vs_particle_rec *recs,
                                              const vs_particle_ext *ext, int64_t n,
                                              int64_t *n_out, vs_particle_ext *ext_out)
{
    const int nb = dc->dims[0] * dc->dims[1] * dc->dims[2];
    int *rank_of = VS_MALLOC(sizeof(int) * (size_t)nb);
    for (int k = 0; k < nb; ++k) {
        const int c[3] = {k % dc->dims[0], (k / dc->dims[0]) % dc->dims[1],
                          k / (dc->dims[0] * dc->dims[1])};
        rank_of[k] = vs_par_cart_rank(&dc->cart, c);
    }
    int *dest = VS_MALLOC(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; ++i) {
        int c[3];
        for (int d = 0; d < 3; ++d)
            if (!isfinite(recs[i].x[d]))
                VS_FATAL("particle %lld: non-finite position", (long long)recs[i].tag);
        vs_particle_rec_wrap(&recs[i], dc->box); /* the same wrap as halo.c's migration */
        for (int d = 0; d < 3; ++d)
            c[d] = brick_of(recs[i].x[d], dc->box[d], dc->dims[d]);
        dest[i] = rank_of[(c[2] * dc->dims[1] + c[1]) * dc->dims[0] + c[0]];
    }
    vs_particle_rec *out = exchange(&dc->cart, recs, ext, n, dest, 0, 0, 0, n_out, ext_out);
    free(dest);
    free(rank_of);
    return out;
}
