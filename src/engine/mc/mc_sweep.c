/* The checkerboard displacement sweep (mc.sweep = "checkerboard"): the plan, the CPU
 * reference, the GPU backend's boxes (the sweep and the other moves' energies and changes
 * there) and the cycle of this mode (mc_engine.h). The physics of a trial is
 * src/core/mc_sweep.h's, the same source the kernel runs (gpu/gpu_mc.cu). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_domain.h"
#include "mc_engine.h"
#include "mc_ranks.h"
#include "mc_sweep.h"
#ifdef VESICA_HAVE_CUDA
#include "gpu_mc.h"
#endif

int vs_mc_sweep_init(vs_mc_state *s)
{
    const vs_params *prm = s->prm;
    vs_mc_sweep_pairs *sp = &s->sweep_pairs;
    memset(sp, 0, sizeof *sp);
    sp->n_styles = s->pairs.n_styles;
    sp->ns = prm->species.n;
    sp->reach2 = s->pairs.reach * s->pairs.reach;
    memcpy(sp->style, s->pairs.style, sizeof sp->style);
    const int ns = sp->ns;
    s->sweep_coeff = calloc((size_t)(sp->n_styles * ns * ns) + 1, sizeof(vs_pair_coeff));
    if (!s->sweep_coeff)
        return -1;
    for (int k = 0; k < sp->n_styles; ++k)
        for (int i = 0; i < ns; ++i)
            for (int j = 0; j < ns; ++j)
                s->sweep_coeff[(k * ns + i) * ns + j] =
                    prm->pair.set->style[sp->style[k]].c[i][j];
    return 0;
}

int vs_mc_gpu_open(vs_mc_state *s, int device, char *err, size_t len)
{
#ifdef VESICA_HAVE_CUDA
    for (int b = 0; b < s->n_boxes; ++b) {
        s->gpu[b] = vs_gpu_mc_create(&s->sweep_pairs, s->sweep_coeff, device, err, len);
        if (!s->gpu[b])
            return -1;
        s->host_ahead[b] = 1;
    }
    const char *ex = getenv("VESICA_MC_GPU_EXCHANGE");
    s->exchange_on_host = !(ex && strcmp(ex, "device") == 0);
    return 0;
#else
    (void)s;
    (void)device;
    snprintf(err, len, "backend: \"gpu\" requested but this build has no CUDA support "
                       "(configure with -DVESICA_CUDA=ON on a machine with nvcc)");
    return -1;
#endif
}

int vs_mc_sync_host(vs_mc_state *s, char *err, size_t len)
{
#ifdef VESICA_HAVE_CUDA
    for (int b = 0; b < s->n_boxes; ++b) {
        if (!s->gpu[b] || !s->dev_ahead[b])
            continue;
        vs_mc_box *box = &s->box[b];
        if (vs_gpu_mc_download(s->gpu[b], box->x, err, len) ||
            vs_mc_box_set_edges(box, box->L, &s->pairs))
            return -1;
        s->dev_ahead[b] = 0;
        s->gpu_downloads++;
    }
#else
    (void)s;
    (void)err;
    (void)len;
#endif
    return 0;
}

void vs_mc_sweep_free(vs_mc_state *s)
{
#ifdef VESICA_HAVE_CUDA
    for (int b = 0; b < VS_MC_MAX_BOXES; ++b)
        vs_gpu_mc_free(s->gpu[b]);
#endif
    memset(s->gpu, 0, sizeof s->gpu);
    free(s->sweep_coeff);
    free(s->cb.cell);
    free(s->cb.start);
    free(s->cb.order);
    free(s->cb.xs);
    free(s->cb.ss);
    memset(&s->cb, 0, sizeof s->cb);
    s->sweep_coeff = NULL;
}

/* The plan of box bi's sweep in the current cycle. */
static void plan_of(const vs_mc_state *s, int bi, vs_mc_sweep_plan *p)
{
    memset(p, 0, sizeof *p);
    p->key = vs_mc_sweep_key(s->prm->system.seed, bi, (uint64_t)s->pr.cycle);
    p->max_disp = s->pr.max_disp[bi];
    p->kT = s->prm->mc.kT;
    vs_mc_sweep_plan_make(p, s->box[bi].L, s->pairs.reach);
}

static int grow(void **q, int64_t n, size_t size)
{
    void *r = realloc(*q, (size_t)(n > 0 ? n : 1) * size);
    if (!r)
        return -1;
    *q = r;
    return 0;
}

/* The CPU's work arrays for n particles in ncell cells. */
static int reserve(vs_mc_sweep_work *w, int64_t n, int64_t ncell)
{
    if (n > w->cap) {
        if (grow((void **)&w->cell, n, 4) || grow((void **)&w->order, n, 8) ||
            grow((void **)&w->xs, 3 * n, sizeof(double)) || grow((void **)&w->ss, n, 4))
            return -1;
        w->cap = n;
    }
    if (ncell + 1 > w->start_cap) {
        if (grow((void **)&w->start, ncell + 1, 8))
            return -1;
        w->start_cap = ncell + 1;
    }
    return 0;
}

void vs_mc_cell_trials(const vs_mc_state *s, const vs_mc_sweep_plan *p, vs_mc_sweep_work *w,
                       int64_t n_all, const int c[3], uint32_t step, vs_wide *dU, int64_t *acc)
{
    const uint32_t cell = (uint32_t)(c[0] + p->nc[0] * (c[1] + p->nc[1] * c[2]));
    const int64_t beg = w->start[cell];
    const int n = (int)(w->start[cell + 1] - beg);
    int q[3][3], nq[3];
    for (int d = 0; d < 3; ++d)
        nq[d] = vs_mc_sweep_near(p, d, c[d], q[d]);
    double *X = w->xs, *Y = w->xs + n_all, *Z = w->xs + 2 * n_all;
    const double reach2 = s->sweep_pairs.reach2;
    for (int t = 0; t < n; ++t) {
        double r[6];
        for (uint32_t part = 0; part < 3; ++part)
            vs_mc_sweep_trial_draw(p, cell, step, (uint32_t)t, part, &r[2 * part]);
        const int64_t k = beg + vs_mc_sweep_pick(r[0], n);
        const double x[3] = {X[k], Y[k], Z[k]};
        double y[3];
        vs_mc_sweep_propose(p, r, x, y);
        if (vs_mc_sweep_cell(p, y) != cell)
            continue; /* leaves the cell: rejected */
        vs_wide d = 0;
        for (int a = 0; a < nq[2]; ++a)
            for (int b = 0; b < nq[1]; ++b)
                for (int e = 0; e < nq[0]; ++e) {
                    const int64_t nb = q[0][e] + p->nc[0] * (q[1][b] + (int64_t)p->nc[1] * q[2][a]);
                    for (int64_t j = w->start[nb]; j < w->start[nb + 1]; ++j) {
                        if (j == k)
                            continue;
                        const double r2o = vs_mc_sweep_dist2(p->L, x, X[j], Y[j], Z[j]);
                        const double r2n = vs_mc_sweep_dist2(p->L, y, X[j], Y[j], Z[j]);
                        if (r2o < reach2)
                            d -= vs_mc_sweep_pair(&s->sweep_pairs, s->sweep_coeff, w->ss[k],
                                                  w->ss[j], r2o);
                        if (r2n < reach2)
                            d += vs_mc_sweep_pair(&s->sweep_pairs, s->sweep_coeff, w->ss[k],
                                                  w->ss[j], r2n);
                    }
                }
        if (vs_mc_sweep_accept(p, d, r[4])) {
            X[k] = y[0];
            Y[k] = y[1];
            Z[k] = y[2];
            *dU += d;
            ++*acc;
        }
    }
}

/* The colour steps over several ranks (mc_ranks.h): this rank's cells of each colour, the
 * same trials as one rank's, then every rank's moved cells to every rank. */
static void ranks_colours(const vs_mc_state *s, const vs_mc_sweep_plan *p,
                          vs_mc_sweep_work *w, int64_t n, vs_wide *dU, int64_t *acc)
{
    vs_mc_ranks *r = s->ranks;
    for (uint32_t step = 0; step < 8; ++step) {
        const int64_t m = vs_mc_ranks_cells(r, r->par.rank, p, p->order[step]);
        for (int64_t i = 0; i < m; ++i) {
            const uint32_t cell = r->cells[i];
            const int c[3] = {(int)(cell % (uint32_t)p->nc[0]),
                              (int)(cell / (uint32_t)p->nc[0] % (uint32_t)p->nc[1]),
                              (int)(cell / (uint32_t)(p->nc[0] * p->nc[1]))};
            vs_mc_cell_trials(s, p, w, n, c, step, dU, acc);
        }
        vs_mc_ranks_share(r, p, p->order[step], w->start, w->xs, n);
    }
}

/* The sweep of box bi on the CPU: the particles sorted by cell (stably: in index order
 * within a cell, as the GPU's radix sort leaves them), the colours, the positions back. */
static int cpu_sweep(vs_mc_state *s, int bi, const vs_mc_sweep_plan *p, vs_wide *dU,
                     int64_t *acc)
{
    vs_mc_box *b = &s->box[bi];
    vs_mc_sweep_work *w = &s->cb;
    const int64_t n = b->n, ncell = (int64_t)p->nc[0] * p->nc[1] * p->nc[2];
    const int bad = reserve(w, n, ncell) != 0; /* every rank learns of any rank's failure */
    if (s->ranks ? vs_mc_ranks_reserve(s->ranks, n, ncell, bad) != 0 : bad)
        return -1;
    memset(w->start, 0, (size_t)(ncell + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; ++i) {
        w->cell[i] = vs_mc_sweep_cell(p, &b->x[3 * i]);
        w->start[w->cell[i] + 1]++;
    }
    for (int64_t c = 0; c < ncell; ++c)
        w->start[c + 1] += w->start[c];
    for (int64_t i = 0; i < n; ++i) { /* start[c] runs through cell c, then is restored */
        const int64_t k = w->start[w->cell[i]]++;
        w->order[k] = i;
        for (int d = 0; d < 3; ++d)
            w->xs[d * n + k] = b->x[3 * i + d];
        w->ss[k] = b->species[i];
    }
    for (int64_t c = ncell; c > 0; --c)
        w->start[c] = w->start[c - 1];
    w->start[0] = 0;
    if (s->ranks)
        ranks_colours(s, p, w, n, dU, acc);
    else
        for (uint32_t step = 0; step < 8; ++step) {
            const int colour = p->order[step];
            int c[3];
            for (c[2] = (colour >> 2) & 1; c[2] < p->nc[2]; c[2] += 2)
                for (c[1] = (colour >> 1) & 1; c[1] < p->nc[1]; c[1] += 2)
                    for (c[0] = colour & 1; c[0] < p->nc[0]; c[0] += 2)
                        vs_mc_cell_trials(s, p, w, n, c, step, dU, acc);
        }
    for (int64_t k = 0; k < n; ++k)
        for (int d = 0; d < 3; ++d)
            b->x[3 * w->order[k] + d] = w->xs[d * n + k];
    int failed = vs_mc_box_set_edges(b, b->L, &s->pairs) != 0;
    if (s->ranks) /* the sums exact; a failure on any rank fails every rank */
        vs_mc_ranks_sum(s->ranks, dU, acc, &failed);
    return failed ? -1 : 0;
}

#ifdef VESICA_HAVE_CUDA
/* A GPU sweep over several ranks (gpu_mc.h's split): this rank's cells of a colour, the
 * exchange of every rank's after each colour step, as ranks_colours does on the CPU. */
typedef struct {
    vs_mc_ranks *r;
    const vs_mc_sweep_plan *p;
} split_ctx;

static int64_t split_cells(void *ctx, int colour, const uint32_t **list)
{
    const split_ctx *c = ctx;
    const int64_t m = vs_mc_ranks_cells(c->r, c->r->par.rank, c->p, colour);
    *list = c->r->cells;
    return m;
}

static void split_share(void *ctx, int colour, const int64_t *start, double *xs, int64_t n)
{
    const split_ctx *c = ctx;
    vs_mc_ranks_share(c->r, c->p, colour, start, xs, n);
}

/* The sweep of box bi on its device: on one rank all of it, on several this rank's cells with
 * their sums added over the ranks. */
static int gpu_sweep(vs_mc_state *s, int bi, const vs_mc_sweep_plan *p, vs_wide *dU,
                     int64_t *acc, char *err, size_t len)
{
    if (!s->ranks)
        return vs_gpu_mc_sweep(s->gpu[bi], p, NULL, dU, acc, err, len);
    const int64_t ncell = (int64_t)p->nc[0] * p->nc[1] * p->nc[2];
    if (vs_mc_ranks_reserve(s->ranks, s->box[bi].n, ncell, 0)) {
        snprintf(err, len, "out of memory for the checkerboard sweep's ranks");
        return -1;
    }
    split_ctx c = {s->ranks, p};
    const vs_gpu_mc_split split = {split_cells, split_share, &c};
    const int mine = vs_gpu_mc_sweep(s->gpu[bi], p, &split, dU, acc, err, len) != 0;
    int failed = mine;
    vs_mc_ranks_sum(s->ranks, dU, acc, &failed);
    if (failed && !mine)
        snprintf(err, len, "the checkerboard sweep failed on another rank's GPU");
    return failed ? -1 : 0;
}
#endif

/* One sweep of box bi, on the CPU or the GPU. Returns 0, or -1 with err. */
static int sweep_box(vs_mc_state *s, int bi, char *err, size_t len)
{
    vs_mc_box *b = &s->box[bi];
    vs_mc_sweep_plan p;
    plan_of(s, bi, &p);
    vs_wide dU = 0;
    int64_t acc = 0;
    if (s->gpu[bi]) {
#ifdef VESICA_HAVE_CUDA
        if (s->host_ahead[bi]) {
            if (vs_gpu_mc_upload(s->gpu[bi], b->n, b->x, b->species, err, len))
                return -1;
            s->gpu_uploads++;
        }
        s->host_ahead[bi] = 0;
        if (gpu_sweep(s, bi, &p, &dU, &acc, err, len))
            return -1;
        s->dev_ahead[bi] = 1;
#endif
    } else if (s->dom) {
        if (vs_mc_domain_sweep(s, bi, &p, &dU, &acc, err, len))
            return -1;
    } else if (cpu_sweep(s, bi, &p, &dU, &acc)) {
        snprintf(err, len, "out of memory for the checkerboard sweep");
        return -1;
    }
    b->pair_energy += dU;
    s->pr.total.attempted[VS_MC_DISPLACE][bi] += vs_mc_n(s, bi);
    s->pr.total.accepted[VS_MC_DISPLACE][bi] += acc;
    return 0;
}

int vs_mc_checkerboard_moves(vs_mc_state *s, char *err, size_t len)
{
    for (int bi = 0; bi < s->n_boxes; ++bi)
        if (sweep_box(s, bi, err, len))
            return -1;
    const double p_other = 1.0 - s->prm->mc.p_move[VS_MC_DISPLACE];
    const int64_t others = p_other > 0.0 ? llround(p_other * (double)s->pr.moves_per_cycle) : 0;
    /* the host's copy of the positions for the exchange energies (exchange_on_host) */
    if (s->exchange_on_host && s->prm->mc.p_move[VS_MC_EXCHANGE] > 0.0 &&
        vs_mc_sync_host(s, err, len))
        return -1;
    for (int64_t m = 0; m < others; ++m) /* on the device where the boxes are there */
        if (vs_mc_attempt_other(s, m)) {
            if (!s->err[0])
                snprintf(err, len, "out of memory growing a box");
            return -1;
        }
    return 0;
}

/* ---- the other moves on a box that lives on the device ----------------------------------
 * Their energies are computed there and their accepted changes made there (gpu/gpu_mc.h). The
 * host keeps each box's count, species, tags, edges and kept energy up to date and decides
 * every move, as on the CPU, from the same integers (src/core/mc_energy.h). With the exchange
 * energies on the device too (VESICA_MC_GPU_EXCHANGE=device) its positions go stale until
 * vs_mc_sync_host brings them back for an output, so a cycle moves no box between host and
 * device; by default a cycle with exchange moves brings the positions back once after its
 * sweeps and the host computes the exchange energies from them, which is faster: a transfer
 * is a few microseconds on the host against a launch and a wait on the device, and a cycle
 * has many (docs/performance.md). Without CUDA no box is on the device (vs_mc_gpu_open
 * refuses), and these report so. */

#ifdef VESICA_HAVE_CUDA

int vs_mc_dev_energy_at(vs_mc_state *s, int bi, const double *y, int32_t species, int64_t skip)
{
    s->gpu_particle_energies++;
    return vs_gpu_mc_energy_at(s->gpu[bi], s->box[bi].L, y, species, skip, s->err,
                               sizeof s->err);
}

int vs_mc_dev_energy_scaled(vs_mc_state *s, int bi, double f, const double L[3])
{
    s->gpu_box_energies++;
    return vs_gpu_mc_energy_scaled(s->gpu[bi], L, f, s->pairs.reach, s->err, sizeof s->err);
}

int vs_mc_dev_energy_result(vs_mc_state *s, int bi, vs_wide *e)
{
    return vs_gpu_mc_energy_result(s->gpu[bi], e, s->err, sizeof s->err);
}

/* The host makes the same append and removal, so these leave dev_ahead as it was. */
int vs_mc_dev_append(vs_mc_state *s, int bi)
{
    const vs_mc_box *b = &s->box[bi];
    return vs_gpu_mc_append(s->gpu[bi], &b->x[3 * (b->n - 1)], b->species[b->n - 1], s->err,
                            sizeof s->err);
}

int vs_mc_dev_remove(vs_mc_state *s, int bi, int64_t i)
{
    return vs_gpu_mc_remove(s->gpu[bi], i, s->err, sizeof s->err);
}

int vs_mc_dev_scale(vs_mc_state *s, int bi, double f, const double L[3])
{
    vs_mc_box *b = &s->box[bi];
    if (!s->dev_ahead[bi]) { /* a current host copy stays current: scaled as volume_try would */
        for (int64_t k = 0; k < 3 * b->n; ++k)
            b->x[k] *= f;
        if (vs_mc_box_set_edges(b, L, &s->pairs)) {
            snprintf(s->err, sizeof s->err, "out of memory for a box's cells");
            return -1;
        }
    } else {
        memcpy(b->L, L, sizeof b->L);
        s->dev_ahead[bi] = 1;
    }
    return vs_gpu_mc_scale(s->gpu[bi], f, s->err, sizeof s->err);
}

#else /* a box is on the device only where vs_mc_gpu_open succeeded, which needs CUDA */

static int no_device(vs_mc_state *s)
{
    snprintf(s->err, sizeof s->err, "a Monte Carlo box on the GPU in a build without CUDA");
    return -1;
}

int vs_mc_dev_energy_at(vs_mc_state *s, int bi, const double *y, int32_t species, int64_t skip)
{
    (void)bi, (void)y, (void)species, (void)skip;
    return no_device(s);
}

int vs_mc_dev_energy_scaled(vs_mc_state *s, int bi, double f, const double L[3])
{
    (void)bi, (void)f, (void)L;
    return no_device(s);
}

int vs_mc_dev_energy_result(vs_mc_state *s, int bi, vs_wide *e)
{
    (void)bi, (void)e;
    return no_device(s);
}

int vs_mc_dev_append(vs_mc_state *s, int bi)
{
    (void)bi;
    return no_device(s);
}

int vs_mc_dev_remove(vs_mc_state *s, int bi, int64_t i)
{
    (void)bi, (void)i;
    return no_device(s);
}

int vs_mc_dev_scale(vs_mc_state *s, int bi, double f, const double L[3])
{
    (void)bi, (void)f, (void)L;
    return no_device(s);
}

#endif
