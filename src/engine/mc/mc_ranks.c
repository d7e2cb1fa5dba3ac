/* The checkerboard sweep over several ranks: the grid of ranks, each brick's cells of a
 * colour, the all-gather of their positions and the exact sums (mc_ranks.h). */
#include "mc_ranks.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp.h"
#include "exit_codes.h"

/* The sweep grid of box b as it is now (the grid does not depend on the sweep's draws). */
static void grid_of(const vs_mc_state *s, int b, int nc[3])
{
    vs_mc_sweep_plan p;
    memset(&p, 0, sizeof p);
    vs_mc_sweep_plan_make(&p, s->box[b].L, s->pairs.reach);
    memcpy(nc, p.nc, sizeof p.nc);
}

int vs_mc_ranks_open(vs_mc_ranks *r, MPI_Comm comm, const vs_mc_state *s, int fresh,
                     char *err, size_t len)
{
    memset(r, 0, sizeof *r);
    vs_par_from_comm(&r->par, comm);
    int nc[3], nb[3];
    grid_of(s, 0, nc);
    for (int b = 1; b < s->n_boxes; ++b) {
        grid_of(s, b, nb);
        for (int d = 0; d < 3; ++d)
            nc[d] = nb[d] < nc[d] ? nb[d] : nc[d];
    }
    const double cells[3] = {nc[0], nc[1], nc[2]};
    const int automatic[3] = {0, 0, 0};
    char why[256];
    const int p2 = vs_decomp_choose(cells, r->par.size, automatic, 2.0, r->dims, why, sizeof why);
    if (p2 && (fresh || vs_decomp_choose(cells, r->par.size, automatic, 0.0, r->dims, why,
                                         sizeof why))) {
        snprintf(err, len, "mc: %d ranks are too many for the checkerboard grid of %d x %d x %d "
                 "cells (cells at least the largest cut-off, %g, wide%s): a rank needs at "
                 "least 2 cells along each axis; use fewer ranks or a larger box",
                 r->par.size, nc[0], nc[1], nc[2], s->pairs.reach,
                 s->n_boxes > 1 ? "; the smaller of the two boxes along each axis" : "");
        return VS_EXIT_BAD_INPUT;
    }
    const size_t p = (size_t)r->par.size;
    r->counts = malloc(2 * p * sizeof(int));
    r->parts = malloc(p * sizeof(vs_mc_part));
    if (vs_par_any(&r->par, !r->counts || !r->parts)) {
        snprintf(err, len, "out of memory for the ranks of the checkerboard sweep");
        return VS_EXIT_FAULT;
    }
    r->displs = r->counts + p;
    return 0;
}

void vs_mc_ranks_close(vs_mc_ranks *r)
{
    free(r->cells);
    free(r->send);
    free(r->recv);
    free(r->counts);
    free(r->parts);
    memset(r, 0, sizeof *r);
}

int vs_mc_ranks_reserve(vs_mc_ranks *r, int64_t n, int64_t ncell, int failed)
{
    int bad = failed || 3 * n > INT_MAX / (int64_t)sizeof(double); /* MPI counts: int bytes */
    if (!bad && ncell > r->cells_cap) {
        uint32_t *c = realloc(r->cells, (size_t)ncell * sizeof *c);
        bad = !c;
        if (c) {
            r->cells = c;
            r->cells_cap = ncell;
        }
    }
    if (!bad && 3 * n > r->xyz_cap) {
        double *a = realloc(r->send, (size_t)(3 * n) * sizeof *a);
        if (a)
            r->send = a;
        double *b = a ? realloc(r->recv, (size_t)(3 * n) * sizeof *b) : NULL;
        if (b)
            r->recv = b;
        bad = !b;
        if (b)
            r->xyz_cap = 3 * n;
    }
    return vs_par_any(&r->par, bad) ? -1 : 0;
}

/* The cells [lo, hi) along an axis of nc cells of the brick at coordinate c of n. */
static void span(int nc, int n, int c, int *lo, int *hi)
{
    *lo = (int)((int64_t)c * nc / n);
    *hi = (int)((int64_t)(c + 1) * nc / n);
}

void vs_mc_ranks_brick(const vs_mc_ranks *r, int k, const int nc[3], int lo[3], int hi[3])
{
    const int co[3] = {k % r->dims[0], (k / r->dims[0]) % r->dims[1],
                       k / (r->dims[0] * r->dims[1])};
    for (int d = 0; d < 3; ++d)
        span(nc[d], r->dims[d], co[d], &lo[d], &hi[d]);
}

int vs_mc_ranks_owner(const vs_mc_ranks *r, const int nc[3], const int c[3])
{
    int co[3];
    for (int d = 0; d < 3; ++d) {
        /* b = floor(c n / nc) has span's lo at or below c; the brick is b or one after it
         * (several after where bricks are empty) */
        const int n = r->dims[d];
        int b = (int)(((int64_t)c[d] * n) / nc[d]), lo, hi;
        span(nc[d], n, b, &lo, &hi);
        while (c[d] >= hi)
            span(nc[d], n, ++b, &lo, &hi);
        co[d] = b;
    }
    return co[0] + r->dims[0] * (co[1] + r->dims[1] * co[2]);
}

int64_t vs_mc_ranks_cells(vs_mc_ranks *r, int k, const vs_mc_sweep_plan *p, int colour)
{
    const int co[3] = {k % r->dims[0], (k / r->dims[0]) % r->dims[1],
                       k / (r->dims[0] * r->dims[1])};
    int lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
        span(p->nc[d], r->dims[d], co[d], &lo[d], &hi[d]);
        lo[d] += (((colour >> d) & 1) - lo[d]) & 1; /* the first of the colour's parity */
    }
    int64_t m = 0;
    for (int c2 = lo[2]; c2 < hi[2]; c2 += 2)
        for (int c1 = lo[1]; c1 < hi[1]; c1 += 2)
            for (int c0 = lo[0]; c0 < hi[0]; c0 += 2)
                r->cells[m++] = (uint32_t)(c0 + p->nc[0] * (c1 + p->nc[1] * c2));
    return m;
}

/* Copy the positions of the cells r->cells[0..m) between xs and buf (out: xs into buf). */
static void copy_cells(const vs_mc_ranks *r, int64_t m, const int64_t *start, double *xs,
                       int64_t n, double *buf, int out)
{
    int64_t q = 0;
    for (int64_t i = 0; i < m; ++i)
        for (int64_t k = start[r->cells[i]]; k < start[r->cells[i] + 1]; ++k, q += 3)
            for (int d = 0; d < 3; ++d) {
                if (out)
                    buf[q + d] = xs[d * n + k];
                else
                    xs[d * n + k] = buf[q + d];
            }
}

/* The particles in the cells r->cells[0..m). */
static int64_t particles_in(const vs_mc_ranks *r, int64_t m, const int64_t *start)
{
    int64_t q = 0;
    for (int64_t i = 0; i < m; ++i)
        q += start[r->cells[i] + 1] - start[r->cells[i]];
    return q;
}

void vs_mc_ranks_share(vs_mc_ranks *r, const vs_mc_sweep_plan *p, int colour,
                       const int64_t *start, double *xs, int64_t n)
{
    const int me = r->par.rank;
    int off = 0;
    for (int k = 0; k < r->par.size; ++k) {
        const int64_t m = vs_mc_ranks_cells(r, k, p, colour);
        if (k == me)
            copy_cells(r, m, start, xs, n, r->send, 1);
        r->counts[k] = (int)(3 * sizeof(double)) * (int)particles_in(r, m, start);
        r->displs[k] = off;
        off += r->counts[k];
    }
    vs_par_allgatherv_bytes(&r->par, r->send, r->counts, r->displs, r->recv);
    for (int k = 0; k < r->par.size; ++k)
        if (k != me)
            copy_cells(r, vs_mc_ranks_cells(r, k, p, colour), start, xs, n,
                       r->recv + r->displs[k] / (int)sizeof(double), 0);
}

/* Every rank's part summed, on every rank (integers: the same sum in any order). */
static void sum_parts(const vs_mc_ranks *r, vs_mc_part *p)
{
    const vs_mc_part mine = *p;
    vs_par_allgather_bytes(&r->par, &mine, sizeof mine, r->parts);
    memset(p, 0, sizeof *p);
    for (int k = 0; k < r->par.size; ++k) {
        p->w[0] += r->parts[k].w[0];
        p->w[1] += r->parts[k].w[1];
        p->count += r->parts[k].count;
        p->failed += r->parts[k].failed;
    }
}

void vs_mc_ranks_sum(const vs_mc_ranks *r, vs_wide *dU, int64_t *acc, int *failed)
{
    vs_mc_part p = {{*dU, 0}, *acc, *failed != 0};
    sum_parts(r, &p);
    *dU = p.w[0];
    *acc = p.count;
    *failed = p.failed > 0;
}

void vs_mc_ranks_split(const vs_mc_ranks *r, int64_t n, int64_t *i0, int64_t *i1)
{
    *i0 = n * r->par.rank / r->par.size;
    *i1 = n * (r->par.rank + 1) / r->par.size;
}

void vs_mc_ranks_sum_wide(const vs_mc_ranks *r, vs_wide w[2])
{
    vs_mc_part p = {{w[0], w[1]}, 0, 0};
    sum_parts(r, &p);
    w[0] = p.w[0];
    w[1] = p.w[1];
}
