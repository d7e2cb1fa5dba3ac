/* Staged ghost exchange and migration on the host: three operation sets over the staged
 * exchange driver (exchange.h), which owns the stages, shifts, neighbours, counts and the
 * self-exchange of a dimension with one rank. See halo.h for the protocol.
 *
 * - Migration: select takes the owned particles that left the brick through the lower or
 *   upper face of dimension d out of the arrays (the last owned particle fills each hole) and
 *   stages them as records, [dir 0 ... | dir 1 ...], sizing the buffer once; pack wraps the
 *   coordinate of those crossing the periodic boundary (wrap.h) in place; unpack appends the
 *   arrivals to the owned particles.
 * - Ghost build: select makes the send lists of both directions from everything present
 *   before the stage receives (owned and earlier ghosts, so edges and corners are forwarded);
 *   pack copies x, vp, tag and species with the stage's shift; unpack appends ghosts and
 *   records their first slot.
 * - Ghost update: the build's lists and counts (no count messages); only x and vp travel,
 *   into the build's slots.
 * With orientations (vs_orient), a ghost record and a ghost update carry n after their
 * struct (the anisotropic pair force reads the partner's), and a migrant its whole record.
 * Records are the plain structs of particles.h (no integers smuggled into floating-point
 * lanes). One pair of staging buffers, grown on demand, serves all three; a stage's direction 1
 * records follow its direction 0 records in both.
 */
#include "halo.h"

#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "log.h"
#include "wrap.h"

void vs_halo_init(vs_halo *h) { memset(h, 0, sizeof(*h)); }

void vs_halo_free(vs_halo *h)
{
    for (int d = 0; d < 3; ++d)
        for (int s = 0; s < 2; ++s)
            free(h->send_idx[d][s]);
    free(h->send_buf);
    free(h->recv_buf);
    memset(h, 0, sizeof(*h));
}

static void ensure_buffers(vs_halo *h, size_t send_bytes, size_t recv_bytes)
{
    if (send_bytes > h->send_cap) {
        h->send_cap = send_bytes + send_bytes / 2 + 4096;
        h->send_buf = VS_REALLOC(h->send_buf, h->send_cap);
    }
    if (recv_bytes > h->recv_cap) {
        h->recv_cap = recv_bytes + recv_bytes / 2 + 4096;
        h->recv_buf = VS_REALLOC(h->recv_buf, h->recv_cap);
    }
}


/* What the three operation sets work on. */
typedef struct {
    vs_halo *h;
    const vs_decomp *dc;
    vs_particles *p;
    size_t rec_bytes;    /* the record of this exchange */
    double width;        /* ghost build: the ghost width */
    int64_t n_send[2], n_recv[2]; /* the stage's counts: direction 1's records follow
                                   * direction 0's in the send and receive buffers */
    int64_t n_left;      /* migration: particles that left, all stages */
} halo_ctx;

static void reserve(void *ctx, int d, const int64_t n_send[2], const int64_t n_recv[2])
{
    halo_ctx *c = ctx;
    (void)d;
    for (int dir = 0; dir < 2; ++dir) {
        c->n_send[dir] = n_send[dir];
        c->n_recv[dir] = n_recv[dir];
    }
    ensure_buffers(c->h, c->rec_bytes * (size_t)(n_send[0] + n_send[1]),
                   c->rec_bytes * (size_t)(n_recv[0] + n_recv[1]));
}

/* Where direction dir's records start in a buffer of the stage's records. */
static void *dir_part(const halo_ctx *c, void *buf, const int64_t n[2], int dir)
{
    return (char *)buf + c->rec_bytes * (size_t)(dir == 0 ? 0 : n[0]);
}

static void *recv_buffer(void *ctx, int d, int dir, int64_t n)
{
    halo_ctx *c = ctx;
    (void)d;
    (void)n;
    return dir_part(c, c->h->recv_buf, c->n_recv, dir);
}

/* ---- Migration ---- */

/* A migrant is a vs_migrant_rec followed, when the particles have topology, by its vs_topo,
 * then, when they have dihedrals, by its vs_dihedrals, then, when they have special-neighbour
 * lists, by its vs_special, then, when they have orientations, by its vs_orient: the bonds,
 * angles, dihedrals, special neighbours and orientation travel with their particle
 * (rec_bytes is the stride). */
static size_t dih_offset(const vs_particles *p)
{
    return sizeof(vs_migrant_rec) + (p->topo ? sizeof(vs_topo) : 0);
}

static size_t special_offset(const vs_particles *p)
{
    return dih_offset(p) + (p->dih ? sizeof(vs_dihedrals) : 0);
}

static size_t orient_offset(const vs_particles *p)
{
    return special_offset(p) + (p->special ? sizeof(vs_special) : 0);
}

static vs_migrant_rec *migrant_at(void *base, size_t stride, int64_t k)
{
    return (vs_migrant_rec *)((char *)base + stride * (size_t)k);
}

static void migrant_pack_one(const vs_particles *p, int64_t i, vs_migrant_rec *r)
{
    for (int k = 0; k < 3; ++k) {
        r->x[k] = p->x[k][i];
        r->v[k] = p->v[k][i];
        r->vp[k] = p->vp[k][i];
        r->image[k] = p->image[k][i];
    }
    r->tag = p->tag[i];
    r->species = p->species[i];
    if (p->topo)
        memcpy(r + 1, &p->topo[i], sizeof(vs_topo));
    if (p->dih)
        memcpy((char *)r + dih_offset(p), &p->dih[i], sizeof(vs_dihedrals));
    if (p->special)
        memcpy((char *)r + special_offset(p), &p->special[i], sizeof(vs_special));
    if (p->orient)
        memcpy((char *)r + orient_offset(p), &p->orient[i], sizeof(vs_orient));
}

/* Take the leavers of dimension d out of the owned particles, staged in the send buffer. */
static void migrate_select(void *ctx, int d, int64_t n_send[2], int64_t n_recv[2])
{
    halo_ctx *c = ctx;
    vs_particles *p = c->p;
    const double lo = c->dc->lo[d], hi = c->dc->hi[d];
    (void)n_recv;
    /* count first, so the buffer is sized once */
    n_send[0] = n_send[1] = 0;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const double x = p->x[d][i];
        if (x < lo)
            n_send[0]++;
        else if (x >= hi)
            n_send[1]++;
    }
    ensure_buffers(c->h, c->rec_bytes * (size_t)(n_send[0] + n_send[1]), 0);
    void *out = c->h->send_buf;
    int64_t fill[2] = {0, n_send[0]};
    int64_t i = 0;
    while (i < p->n_owned) {
        const double x = p->x[d][i];
        const int dir = x < lo ? 0 : (x >= hi ? 1 : -1);
        if (dir < 0) {
            ++i;
            continue;
        }
        migrant_pack_one(p, i, migrant_at(out, c->rec_bytes, fill[dir]++));
        /* fill the hole with the last owned particle */
        p->n_owned--;
        if (i != p->n_owned)
            vs_particles_copy_owned(p, i, p->n_owned);
    }
    c->n_left += n_send[0] + n_send[1];
}

/* The staged records of direction dir, wrapped where they cross the periodic boundary. */
static const void *migrate_pack(void *ctx, int d, int dir, double shift, int64_t n)
{
    halo_ctx *c = ctx;
    void *r = dir_part(c, c->h->send_buf, c->n_send, dir);
    const double len = c->dc->box[d];
    if (shift != 0.0)
        for (int64_t k = 0; k < n; ++k) {
            vs_migrant_rec *m = migrant_at(r, c->rec_bytes, k);
            if (dir == 0)
                vs_wrap_down(&m->x[d], &m->image[d], len);
            else
                vs_wrap_up(&m->x[d], &m->image[d], len);
        }
    return r;
}

static void migrate_unpack(void *ctx, int d, int dir, const void *recs, int64_t n)
{
    halo_ctx *c = ctx;
    vs_particles *p = c->p;
    (void)d;
    (void)dir;
    vs_particles_reserve(p, p->n_owned + n);
    for (int64_t k = 0; k < n; ++k) {
        const vs_migrant_rec *in = migrant_at((void *)recs, c->rec_bytes, k);
        const int64_t j = p->n_owned++;
        for (int q = 0; q < 3; ++q) {
            p->x[q][j] = in->x[q];
            p->v[q][j] = in->v[q];
            p->vp[q][j] = in->vp[q];
            p->image[q][j] = in->image[q];
        }
        p->tag[j] = in->tag;
        p->species[j] = in->species;
        if (p->topo)
            memcpy(&p->topo[j], in + 1, sizeof(vs_topo));
        if (p->dih)
            memcpy(&p->dih[j], (const char *)in + dih_offset(p), sizeof(vs_dihedrals));
        if (p->special)
            memcpy(&p->special[j], (const char *)in + special_offset(p), sizeof(vs_special));
        if (p->orient)
            memcpy(&p->orient[j], (const char *)in + orient_offset(p), sizeof(vs_orient));
    }
}

static const vs_exchange_ops migrate_ops = {
    .name = "halo",
    .rec_bytes = sizeof(vs_migrant_rec),
    .counts_known = 0,
    .select = migrate_select,
    .reserve = reserve,
    .pack = migrate_pack,
    .recv_buffer = recv_buffer,
    .unpack = migrate_unpack,
    .exchange = NULL,
};

int64_t vs_halo_migrate(vs_halo *h, const vs_decomp *dc, vs_particles *p, int64_t step)
{
    p->n_ghost = 0;
    const size_t bytes = orient_offset(p) + (p->orient ? sizeof(vs_orient) : 0);
    halo_ctx c = {.h = h, .dc = dc, .p = p, .rec_bytes = bytes};
    vs_exchange_ops ops = migrate_ops;
    ops.rec_bytes = bytes;
    vs_exchange_run(&ops, &c, dc);
    /* One hop per dimension must have been enough. */
    for (int64_t i = 0; i < p->n_owned; ++i)
        for (int d = 0; d < 3; ++d)
            if (!(p->x[d][i] >= dc->lo[d] && p->x[d][i] < dc->hi[d]))
                VS_FATAL("step %lld: particle %lld at %c = %.17g is outside brick [%.17g, "
                         "%.17g) after migration: it moved more than one brick since the last "
                         "neighbour-list build (or its position is not finite)",
                         (long long)step, (long long)p->tag[i], "xyz"[d], p->x[d][i],
                         dc->lo[d], dc->hi[d]);
    return c.n_left;
}

/* ---- Ghost build ---- */

static void reserve_send_list(vs_halo *h, int d, int dir, int64_t n)
{
    if (n <= h->cap_send[d][dir])
        return;
    h->cap_send[d][dir] = n + n / 2 + 64;
    h->send_idx[d][dir] =
        VS_REALLOC(h->send_idx[d][dir], sizeof(int64_t) * (size_t)h->cap_send[d][dir]);
}

/* As build_select, where bonded beads (n_bond > 0, owned or ghost) go out to the wider
 * bonded width: their partners must be present wherever one of their beads is owned. */
static void bonded_select(halo_ctx *c, int d, int64_t n_send[2])
{
    const vs_particles *p = c->p;
    const int64_t base = p->n_owned + p->n_ghost;
    const double lo = c->dc->lo[d], hi = c->dc->hi[d];
    for (int dir = 0; dir < 2; ++dir) {
        int64_t n = 0;
        for (int pass = 0; pass < 2; ++pass) { /* count, then fill */
            int64_t *idx = pass ? c->h->send_idx[d][dir] : NULL;
            n = 0;
            for (int64_t i = 0; i < base; ++i) {
                const double w = p->topo[i].n_bond > 0 ? c->h->bonded_width : c->width;
                const double x = p->x[d][i];
                if (dir == 0 ? (x < lo + w) : (x >= hi - w)) {
                    if (idx)
                        idx[n] = i;
                    n++;
                }
            }
            if (!pass)
                reserve_send_list(c->h, d, dir, n);
        }
        c->h->n_send[d][dir] = n_send[dir] = n;
    }
}

/* Send lists of both directions, from everything present before this stage receives. */
static void build_select(void *ctx, int d, int64_t n_send[2], int64_t n_recv[2])
{
    halo_ctx *c = ctx;
    const vs_particles *p = c->p;
    const int64_t base = p->n_owned + p->n_ghost;
    const double lo_edge = c->dc->lo[d] + c->width, hi_edge = c->dc->hi[d] - c->width;
    (void)n_recv;
    if (p->topo && c->h->bonded_width > c->width) {
        bonded_select(c, d, n_send);
        return;
    }
    for (int dir = 0; dir < 2; ++dir) {
        int64_t n = 0;
        for (int64_t i = 0; i < base; ++i) {
            const double x = p->x[d][i];
            n += dir == 0 ? (x < lo_edge) : (x >= hi_edge);
        }
        reserve_send_list(c->h, d, dir, n);
        int64_t *idx = c->h->send_idx[d][dir];
        n = 0;
        for (int64_t i = 0; i < base; ++i) {
            const double x = p->x[d][i];
            if (dir == 0 ? (x < lo_edge) : (x >= hi_edge))
                idx[n++] = i;
        }
        c->h->n_send[d][dir] = n_send[dir] = n;
    }
}

static const void *build_pack(void *ctx, int d, int dir, double shift, int64_t n)
{
    halo_ctx *c = ctx;
    const vs_particles *p = c->p;
    char *base = dir_part(c, c->h->send_buf, c->n_send, dir);
    const int64_t *idx = c->h->send_idx[d][dir];
    for (int64_t k = 0; k < n; ++k) {
        const int64_t i = idx[k];
        vs_ghost_rec *out = (vs_ghost_rec *)(base + c->rec_bytes * (size_t)k);
        for (int q = 0; q < 3; ++q) {
            out->x[q] = p->x[q][i];
            out->vp[q] = p->vp[q][i];
        }
        out->x[d] += shift;
        out->tag = p->tag[i];
        out->species = p->species[i];
        out->pad = p->topo ? p->topo[i].n_bond : 0; /* marks bonded ghosts */
        if (p->orient)
            memcpy(out + 1, p->orient[i].n, sizeof(double) * 3);
    }
    return base;
}

static void build_unpack(void *ctx, int d, int dir, const void *recs, int64_t n)
{
    halo_ctx *c = ctx;
    vs_particles *p = c->p;
    const int64_t start = p->n_owned + p->n_ghost;
    vs_particles_reserve(p, start + n);
    for (int64_t k = 0; k < n; ++k) {
        const vs_ghost_rec *in = (const vs_ghost_rec *)((const char *)recs +
                                                        c->rec_bytes * (size_t)k);
        const int64_t j = start + k;
        for (int q = 0; q < 3; ++q) {
            p->x[q][j] = in->x[q];
            p->vp[q][j] = in->vp[q];
        }
        p->tag[j] = in->tag;
        p->species[j] = in->species;
        if (p->topo) {
            p->topo[j].n_bond = in->pad;
            p->topo[j].n_angle = 0;
        }
        if (p->orient)
            memcpy(p->orient[j].n, in + 1, sizeof(double) * 3);
    }
    c->h->recv_start[d][dir] = start;
    c->h->n_recv[d][dir] = n;
    p->n_ghost += n;
}

static const vs_exchange_ops build_ops = {
    .name = "halo",
    .rec_bytes = sizeof(vs_ghost_rec),
    .counts_known = 0,
    .select = build_select,
    .reserve = reserve,
    .pack = build_pack,
    .recv_buffer = recv_buffer,
    .unpack = build_unpack,
    .exchange = NULL,
};

void vs_halo_build_ghosts(vs_halo *h, const vs_decomp *dc, vs_particles *p, double width)
{
    p->n_ghost = 0;
    vs_exchange_shifts(dc, h->shift); /* for inspection: the driver applies its own copy */
    const size_t bytes = sizeof(vs_ghost_rec) + (p->orient ? 3 * sizeof(double) : 0);
    halo_ctx c = {.h = h, .dc = dc, .p = p, .rec_bytes = bytes, .width = width};
    vs_exchange_ops ops = build_ops;
    ops.rec_bytes = bytes;
    h->bytes_last_exchange = vs_exchange_run(&ops, &c, dc);
}

/* ---- Ghost update ---- */

static void update_select(void *ctx, int d, int64_t n_send[2], int64_t n_recv[2])
{
    const halo_ctx *c = ctx;
    for (int dir = 0; dir < 2; ++dir) {
        n_send[dir] = c->h->n_send[d][dir];
        n_recv[dir] = c->h->n_recv[d][dir];
    }
}

static const void *update_pack(void *ctx, int d, int dir, double shift, int64_t n)
{
    halo_ctx *c = ctx;
    const vs_particles *p = c->p;
    char *base = dir_part(c, c->h->send_buf, c->n_send, dir);
    const int64_t *idx = c->h->send_idx[d][dir];
    for (int64_t k = 0; k < n; ++k) {
        const int64_t i = idx[k];
        vs_ghost_update_rec *out = (vs_ghost_update_rec *)(base + c->rec_bytes * (size_t)k);
        for (int q = 0; q < 3; ++q) {
            out->x[q] = p->x[q][i];
            out->vp[q] = p->vp[q][i];
        }
        out->x[d] += shift;
        if (p->orient)
            memcpy(out + 1, p->orient[i].n, sizeof(double) * 3);
    }
    return base;
}

static void update_unpack(void *ctx, int d, int dir, const void *recs, int64_t n)
{
    halo_ctx *c = ctx;
    vs_particles *p = c->p;
    const int64_t start = c->h->recv_start[d][dir];
    for (int64_t k = 0; k < n; ++k) {
        const vs_ghost_update_rec *in =
            (const vs_ghost_update_rec *)((const char *)recs + c->rec_bytes * (size_t)k);
        for (int q = 0; q < 3; ++q) {
            p->x[q][start + k] = in->x[q];
            p->vp[q][start + k] = in->vp[q];
        }
        if (p->orient)
            memcpy(p->orient[start + k].n, in + 1, sizeof(double) * 3);
    }
}

static const vs_exchange_ops update_ops = {
    .name = "halo",
    .rec_bytes = sizeof(vs_ghost_update_rec),
    .counts_known = 1,
    .select = update_select,
    .reserve = reserve,
    .pack = update_pack,
    .recv_buffer = recv_buffer,
    .unpack = update_unpack,
    .exchange = NULL,
};

void vs_halo_update_ghosts(vs_halo *h, const vs_decomp *dc, vs_particles *p)
{
    const size_t bytes = sizeof(vs_ghost_update_rec) + (p->orient ? 3 * sizeof(double) : 0);
    halo_ctx c = {.h = h, .dc = dc, .p = p, .rec_bytes = bytes};
    vs_exchange_ops ops = update_ops;
    ops.rec_bytes = bytes;
    h->bytes_last_exchange = vs_exchange_run(&ops, &c, dc);
}
