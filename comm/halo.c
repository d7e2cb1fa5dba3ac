/* Staged ghost exchange and migration: see halo.h for the protocol.
 *
 * Messages per stage: dir 0 sends to the lower neighbour and receives from the upper one; dir
 * 1 the reverse. On rebuild steps the counts travel first, then the records. Records are plain
 * structs (no integers smuggled into floating-point lanes).
 */
#include "halo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "log.h"

enum { VS_TAG_COUNT = 100, VS_TAG_DATA = 200 };

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

/* Peer of direction `dir` in dimension d: dir 0 sends down and receives from up. */
static void peers(const vs_decomp *dc, int d, int dir, int *dest, int *source)
{
    *dest = dir == 0 ? dc->lower[d] : dc->upper[d];
    *source = dir == 0 ? dc->upper[d] : dc->lower[d];
}

/* Exchange the record counts of one direction. */
static int64_t exchange_count(const vs_decomp *dc, int d, int dir, int64_t n_send)
{
    int dest, source;
    peers(dc, d, dir, &dest, &source);
    int64_t n_recv = 0;
    vs_par_sendrecv(&dc->cart, &n_send, sizeof n_send, dest, &n_recv, sizeof n_recv, source,
                    VS_TAG_COUNT + 3 * dir + d);
    return n_recv;
}

static void exchange_data(const vs_decomp *dc, int d, int dir, const void *send,
                          size_t send_bytes, void *recv, size_t recv_bytes)
{
    int dest, source;
    peers(dc, d, dir, &dest, &source);
    size_t got = vs_par_sendrecv(&dc->cart, send, send_bytes, dest, recv, recv_bytes, source,
                                 VS_TAG_DATA + 3 * dir + d);
    if (got != recv_bytes)
        VS_FATAL("halo stage %c dir %d: expected %zu bytes, received %zu", "xyz"[d], dir,
                 recv_bytes, got);
}

/* A coordinate shifted across the periodic boundary can round onto the upper face (x + L ==
 * L for tiny negative x); keep it inside [0, L) without changing its image. */
static double keep_below(double x, double len) { return x < len ? x : nextafter(len, 0.0); }

int64_t vs_halo_migrate(vs_halo *h, const vs_decomp *dc, vs_particles *p, int64_t step)
{
    p->n_ghost = 0;
    int64_t n_left = 0;
    for (int d = 0; d < 3; ++d) {
        const double len = dc->box[d];
        const int at_bottom = dc->coords[d] == 0, at_top = dc->coords[d] == dc->dims[d] - 1;
        /* Pack leavers of both directions into one buffer: [dir 0 ... | dir 1 ...]. First
         * count, so the buffer is sized once. */
        int64_t n_dir[2] = {0, 0};
        for (int64_t i = 0; i < p->n_owned; ++i) {
            double x = p->x[d][i];
            if (x < dc->lo[d])
                n_dir[0]++;
            else if (x >= dc->hi[d])
                n_dir[1]++;
        }
        int64_t n_out = n_dir[0] + n_dir[1];
        ensure_buffers(h, sizeof(vs_migrant_rec) * (size_t)n_out, 0);
        vs_migrant_rec *out = h->send_buf;
        int64_t fill[2] = {0, n_dir[0]};
        int64_t i = 0;
        while (i < p->n_owned) {
            double x = p->x[d][i];
            int dir = x < dc->lo[d] ? 0 : (x >= dc->hi[d] ? 1 : -1);
            if (dir < 0) {
                ++i;
                continue;
            }
            vs_migrant_rec *r = &out[fill[dir]++];
            for (int k = 0; k < 3; ++k) {
                r->x[k] = p->x[k][i];
                r->v[k] = p->v[k][i];
                r->vp[k] = p->vp[k][i];
                r->image[k] = p->image[k][i];
            }
            r->tag = p->tag[i];
            r->species = p->species[i];
            if (dir == 0 && at_bottom) {
                r->x[d] = keep_below(r->x[d] + len, len);
                r->image[d] -= 1;
            } else if (dir == 1 && at_top) {
                r->x[d] -= len;
                r->image[d] += 1;
            }
            /* fill the hole with the last owned particle */
            p->n_owned--;
            if (i != p->n_owned)
                vs_particles_copy_owned(p, i, p->n_owned);
        }
        n_left += n_out;

        for (int dir = 0; dir < 2; ++dir) {
            int64_t n_in = exchange_count(dc, d, dir, n_dir[dir]);
            ensure_buffers(h, 0, sizeof(vs_migrant_rec) * (size_t)n_in);
            const vs_migrant_rec *send = (const vs_migrant_rec *)h->send_buf +
                                         (dir == 0 ? 0 : n_dir[0]);
            exchange_data(dc, d, dir, send, sizeof(vs_migrant_rec) * (size_t)n_dir[dir],
                          h->recv_buf, sizeof(vs_migrant_rec) * (size_t)n_in);
            vs_particles_reserve(p, p->n_owned + n_in);
            const vs_migrant_rec *in = h->recv_buf;
            for (int64_t k = 0; k < n_in; ++k) {
                int64_t j = p->n_owned++;
                for (int c = 0; c < 3; ++c) {
                    p->x[c][j] = in[k].x[c];
                    p->v[c][j] = in[k].v[c];
                    p->vp[c][j] = in[k].vp[c];
                    p->image[c][j] = in[k].image[c];
                }
                p->tag[j] = in[k].tag;
                p->species[j] = in[k].species;
            }
        }
    }
    /* One hop per dimension must have been enough. */
    for (int64_t i = 0; i < p->n_owned; ++i)
        for (int d = 0; d < 3; ++d)
            if (!(p->x[d][i] >= dc->lo[d] && p->x[d][i] < dc->hi[d]))
                VS_FATAL("step %lld: particle %lld at %c = %.17g is outside brick [%.17g, "
                         "%.17g) after migration: it moved more than one brick since the last "
                         "neighbour-list build (or its position is not finite)",
                         (long long)step, (long long)p->tag[i], "xyz"[d], p->x[d][i],
                         dc->lo[d], dc->hi[d]);
    return n_left;
}

static void reserve_send_list(vs_halo *h, int d, int dir, int64_t n)
{
    if (n <= h->cap_send[d][dir])
        return;
    h->cap_send[d][dir] = n + n / 2 + 64;
    h->send_idx[d][dir] =
        VS_REALLOC(h->send_idx[d][dir], sizeof(int64_t) * (size_t)h->cap_send[d][dir]);
}

void vs_halo_build_ghosts(vs_halo *h, const vs_decomp *dc, vs_particles *p, double width)
{
    int64_t bytes = 0;
    p->n_ghost = 0;
    vs_exchange_shifts(dc, h->shift);
    for (int d = 0; d < 3; ++d) {
        const int64_t base = p->n_owned + p->n_ghost;
        const double lo_edge = dc->lo[d] + width, hi_edge = dc->hi[d] - width;
        /* both directions select from what is present before this stage receives */
        for (int dir = 0; dir < 2; ++dir) {
            int64_t n = 0;
            for (int64_t i = 0; i < base; ++i) {
                double x = p->x[d][i];
                n += dir == 0 ? (x < lo_edge) : (x >= hi_edge);
            }
            reserve_send_list(h, d, dir, n);
            int64_t *idx = h->send_idx[d][dir];
            n = 0;
            for (int64_t i = 0; i < base; ++i) {
                double x = p->x[d][i];
                if (dir == 0 ? (x < lo_edge) : (x >= hi_edge))
                    idx[n++] = i;
            }
            h->n_send[d][dir] = n;
        }
        for (int dir = 0; dir < 2; ++dir) {
            const int64_t n_out = h->n_send[d][dir];
            const int64_t n_in = exchange_count(dc, d, dir, n_out);
            ensure_buffers(h, sizeof(vs_ghost_rec) * (size_t)n_out,
                           sizeof(vs_ghost_rec) * (size_t)n_in);
            vs_ghost_rec *out = h->send_buf;
            const int64_t *idx = h->send_idx[d][dir];
            for (int64_t k = 0; k < n_out; ++k) {
                int64_t i = idx[k];
                for (int c = 0; c < 3; ++c) {
                    out[k].x[c] = p->x[c][i];
                    out[k].vp[c] = p->vp[c][i];
                }
                out[k].x[d] += h->shift[d][dir];
                out[k].tag = p->tag[i];
                out[k].species = p->species[i];
                out[k].pad = 0;
            }
            exchange_data(dc, d, dir, out, sizeof(vs_ghost_rec) * (size_t)n_out, h->recv_buf,
                          sizeof(vs_ghost_rec) * (size_t)n_in);
            if (dc->dims[d] > 1)
                bytes += (int64_t)sizeof(vs_ghost_rec) * n_out;
            const int64_t start = p->n_owned + p->n_ghost;
            vs_particles_reserve(p, start + n_in);
            const vs_ghost_rec *in = h->recv_buf;
            for (int64_t k = 0; k < n_in; ++k) {
                int64_t j = start + k;
                for (int c = 0; c < 3; ++c) {
                    p->x[c][j] = in[k].x[c];
                    p->vp[c][j] = in[k].vp[c];
                }
                p->tag[j] = in[k].tag;
                p->species[j] = in[k].species;
            }
            h->recv_start[d][dir] = start;
            h->n_recv[d][dir] = n_in;
            p->n_ghost += n_in;
        }
    }
    h->bytes_last_exchange = bytes;
}

void vs_halo_update_ghosts(vs_halo *h, const vs_decomp *dc, vs_particles *p)
{
    int64_t bytes = 0;
    for (int d = 0; d < 3; ++d) {
        for (int dir = 0; dir < 2; ++dir) {
            const int64_t n_out = h->n_send[d][dir], n_in = h->n_recv[d][dir];
            ensure_buffers(h, sizeof(vs_ghost_update_rec) * (size_t)n_out,
                           sizeof(vs_ghost_update_rec) * (size_t)n_in);
            vs_ghost_update_rec *out = h->send_buf;
            const int64_t *idx = h->send_idx[d][dir];
            const double shift = h->shift[d][dir];
            for (int64_t k = 0; k < n_out; ++k) {
                int64_t i = idx[k];
                for (int c = 0; c < 3; ++c) {
                    out[k].x[c] = p->x[c][i];
                    out[k].vp[c] = p->vp[c][i];
                }
                out[k].x[d] += shift;
            }
            exchange_data(dc, d, dir, out, sizeof(vs_ghost_update_rec) * (size_t)n_out,
                          h->recv_buf, sizeof(vs_ghost_update_rec) * (size_t)n_in);
            const vs_ghost_update_rec *in = h->recv_buf;
            const int64_t start = h->recv_start[d][dir];
            for (int64_t k = 0; k < n_in; ++k)
                for (int c = 0; c < 3; ++c) {
                    p->x[c][start + k] = in[k].x[c];
                    p->vp[c][start + k] = in[k].vp[c];
                }
            if (dc->dims[d] > 1) /* self exchanges are copies, not traffic */
                bytes += (int64_t)sizeof(vs_ghost_update_rec) * n_out;
        }
    }
    h->bytes_last_exchange = bytes;
}
