/* The particle-field term (MD-SCF) on the device: the CPU term's passes (src/cpu/field_cpu.c)
 * over the same physics (src/core/field_grid.h), on a block of the grid in device memory.
 *
 * A field update (every field.interval steps, and at the first evaluation after an upload):
 *   1. spread: one thread per owned particle of a field species adds its 8 shares to the
 *      block's fixed-point counts with 64-bit integer atomics. Integer adds commute, so every
 *      count is the CPU's integer, whatever the order of the threads and the particles;
 *   2. fold: the halo's counts go to their owners through the staged driver of
 *      comm/exchange.h, as on the CPU (the same slabs, spanning the block across the other
 *      axes), packed and unpacked by kernels; the records travel through the backend's
 *      transport (gpu_transport.cu: peer copies, CUDA-aware or host-staged MPI), and a
 *      dimension with one rank packs into the term's own buffers and unpacks from them;
 *   3. the potentials of the owned vertices (vs_field_vertex), one thread per vertex;
 *   4. fill: the owners' potentials into the neighbours' halos, by the same driver.
 * Every evaluation then adds each owned field particle's force (vs_field_force, one thread
 * per particle), in the form the force arrays hold (doubles, or the Newton kernel's
 * fixed-point sums). With energies the counts of the current positions are spread and folded
 * (again, unless this is an update) and W summed over the owned vertices exactly
 * (fixed_sum.h), then read back.
 *
 * The file is compiled without fused multiply-adds (CMakeLists.txt): every product and sum
 * of the header rounds on its own, as on the CPU, so the potentials and the field forces are
 * the CPU's doubles for the same positions.
 *
 * The mean density (the global number of field particles) is counted when the fields are
 * stale (the first evaluation and after an upload: a reaction step may change species), and
 * read back then. The faults (a particle beyond the block, a count beyond the fixed-point
 * range) are device words read back with the energies and at those recounts; a faulty
 * particle adds nothing meanwhile, and the run stops at the next read-back. A step that reads
 * back cannot be captured as a CUDA graph: a run with a field takes none (gpu_state.cu).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_field.cuh"
#include "gpu_wide_sum.cuh"

extern "C" {
#include "exchange.h"
#include "field_grid.h"
#include "parallel.h"
}

#define VS_FIELD_BLOCKS 256 /* blocks of the energy's reduction */

/* The device words of faults and counts: the smallest tag of a particle beyond the block
 * (~0: none), a count beyond the fixed-point range, the field particles counted, a vertex's
 * energy beyond the exact sums' range. */
enum { ST_ESCAPED, ST_OVERFLOW, ST_COUNT, ST_ENERGY_BAD, ST_WORDS };

struct vs_gpu_field {
    vs_field_grid g;
    vs_field_consts fc;
    vs_field_of of;
    int halo;
    int owned[3];
    int64_t nvert, n_owned_vert;
    unsigned long long *count; /* fc.nf * nvert counts (two's complement int64) */
    double *pot;               /* fc.nf * nvert potentials */
    char *self[2];             /* a dimension with one rank: each direction's packed slab */
    size_t self_bytes;
    vs_wide *partials;         /* the energy's block sums, then their total */
    unsigned long long *d_status;
    unsigned long long *h_status; /* pinned: the status words, then the energy (vs_wide) */
    int stale;
    vs_wide energy; /* this rank's W at the last evaluation with energies */
    int energy_bad;
    int fold; /* the exchange in progress: 1 counts to owners, 0 potentials to halos */
    int fused; /* this evaluation's field kernel left the beads with records to the bonds */
};

/* ---- kernels ---------------------------------------------------------------------------- */

__global__ void field_spread_kernel(int n, vs_positions at, const int32_t *species,
                                    const int64_t *tag, const __grid_constant__ vs_field_of of,
                                    vs_field_grid grid,
                                    int64_t nvert, unsigned long long *count, int count_them,
                                    unsigned long long *status)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int k = of.k[species[i]];
    if (k < 0)
        return;
    double x[3], t[3];
    int c[3];
    vs_pos_load(at, i, x);
    if (vs_field_cell(&grid, x, 0, c, t) != 0) {
        atomicMin(&status[ST_ESCAPED], (unsigned long long)tag[i]);
        return;
    }
    if (count_them)
        atomicAdd(&status[ST_COUNT], 1ull);
    unsigned long long *cnt = count + (int64_t)k * nvert;
    bool over = false;
    for (int dz = 0; dz < 2; ++dz)
        for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) {
                const int64_t s = vs_field_share(vs_field_weight(t, dx, dy, dz));
                const int64_t v = vs_field_index(&grid, c[0] + dx, c[1] + dy, c[2] + dz);
                const long long old = (long long)atomicAdd(&cnt[v], (unsigned long long)s);
                over |= old > LLONG_MAX - s; /* shares and counts are not negative */
            }
    if (over)
        atomicOr(&status[ST_OVERFLOW], 1ull);
}

/* One thread per owned vertex (grid-stride): the potentials (potentials) and this block's
 * share of W into partials[blockIdx.x] (energy). */
__global__ void field_vertex_kernel(int64_t n_own, vs_field_grid grid, int halo, int o0, int o1,
                                    vs_field_consts fc, int64_t nvert,
                                    const unsigned long long *count, double *pot, int potentials,
                                    int energy, vs_wide *partials, unsigned long long *status)
{
    __shared__ vs_wide s[1][VS_BLOCK];
    vs_wide acc[1] = {0};
    bool over = false, bad = false;
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < n_own;
         r += (int64_t)gridDim.x * blockDim.x) {
        const int i = halo + (int)(r % o0), j = halo + (int)((r / o0) % o1);
        const int k = halo + (int)(r / ((int64_t)o0 * o1));
        const int64_t v = vs_field_index(&grid, i, j, k);
        int64_t q[VS_FIELD_MAX];
        double p[VS_FIELD_MAX];
        for (int f = 0; f < fc.nf; ++f) {
            q[f] = (int64_t)count[f * nvert + v];
            over |= q[f] < 0;
        }
        const double e = vs_field_vertex(&fc, q, p);
        for (int f = 0; potentials && f < fc.nf; ++f)
            pot[f * nvert + v] = p[f];
        if (!energy)
            continue;
        if (vs_wide_ok(e))
            acc[0] += vs_wide_from_double(e);
        else
            bad = true;
    }
    if (over)
        atomicOr(&status[ST_OVERFLOW], 1ull);
    if (bad)
        atomicOr(&status[ST_ENERGY_BAD], 1ull);
    if (energy) /* the same for every thread of the launch */
        vs_block_wide_sums<1>(acc, s, partials);
}

__device__ __forceinline__ void field_add(double *f, int i, double add, int fixed)
{
    if (fixed) {
        unsigned long long *q = (unsigned long long *)f;
        q[i] += (unsigned long long)__double2ll_rn(add * VS_FIXED_PER_FORCE);
    } else {
        f[i] += add;
    }
}

/* SCHEME (field.force) and FIXED (the force arrays hold fixed-point sums) as template
 * arguments: one path per kernel, so its registers are those of that path. */
template <int SCHEME, bool FIXED>
__global__ void __launch_bounds__(VS_BLOCK, 3)
field_force_kernel(int n, vs_positions at, const __grid_constant__ vs_field_bead b,
                   const int32_t *skip, double *fx, double *fy, double *fz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || (skip && skip[i] >= 0)) /* skip: the bond kernel adds that bead's */
        return;
    double x[3], f[3];
    vs_pos_load(at, i, x);
    if (!vs_field_bead_force<SCHEME>(b, i, x, f))
        return;
    field_add(fx, i, f[0], FIXED);
    field_add(fy, i, f[1], FIXED);
    field_add(fz, i, f[2], FIXED);
}

/* A slab of the block: its first vertex and its extent along each axis; vertex r of the slab
 * in the CPU's order (x fastest). */
struct vs_field_slab {
    int lo[3], n[3];
    int ext0, ext1;
};

__device__ __forceinline__ int64_t slab_vertex(const vs_field_slab &s, int64_t r)
{
    const int64_t i = s.lo[0] + r % s.n[0];
    const int64_t j = s.lo[1] + (r / s.n[0]) % s.n[1];
    const int64_t k = s.lo[2] + r / ((int64_t)s.n[0] * s.n[1]);
    return i + (int64_t)s.ext0 * (j + (int64_t)s.ext1 * k);
}

template <typename T>
__global__ void field_pack_kernel(int64_t n, vs_field_slab s, int nf, int64_t nvert,
                                  const T *src, T *out)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n)
        return;
    const int64_t v = slab_vertex(s, r);
    for (int f = 0; f < nf; ++f)
        out[r * nf + f] = src[f * nvert + v];
}

/* The fold's unpack: each received count added to its owned vertex (two's complement), a
 * sum beyond the range flagged. One thread per vertex: no two threads share one. */
__global__ void field_add_kernel(int64_t n, vs_field_slab s, int nf, int64_t nvert,
                                 const unsigned long long *in, unsigned long long *dst,
                                 unsigned long long *status)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n)
        return;
    const int64_t v = slab_vertex(s, r);
    bool over = false;
    for (int f = 0; f < nf; ++f) {
        const long long a = (long long)dst[f * nvert + v], b = (long long)in[r * nf + f];
        const long long sum = (long long)((unsigned long long)a + (unsigned long long)b);
        over |= (a >= 0) == (b >= 0) && (sum >= 0) != (a >= 0);
        dst[f * nvert + v] = (unsigned long long)sum;
    }
    if (over)
        atomicOr(&status[ST_OVERFLOW], 1ull);
}

__global__ void field_store_kernel(int64_t n, vs_field_slab s, int nf, int64_t nvert,
                                   const double *in, double *dst)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n)
        return;
    const int64_t v = slab_vertex(s, r);
    for (int f = 0; f < nf; ++f)
        dst[f * nvert + v] = in[r * nf + f];
}

/* ---- the grid's exchanges over the staged driver ----------------------------------------- */

typedef struct {
    vs_gpu_state *g;
    vs_gpu_field *F;
    size_t rec;
    int64_t n_send[2], n_recv[2];
} vs_field_xctx;

/* The slab of stage d, direction dir, as field_cpu.c's slab_start: fold sends the halo
 * beyond the face and adds what arrives to the owned layers at the other face; fill sends
 * the owned layers at the face and stores what arrives in the halo beyond the other face. */
static vs_field_slab field_slab(const vs_gpu_field *F, int d, int dir, int recv)
{
    const int h = F->halo, m = F->owned[d];
    const int toward_lower = (dir == 0) != recv;
    int start;
    if (F->fold == !recv)
        start = toward_lower ? 0 : h + m;
    else
        start = toward_lower ? h : m;
    vs_field_slab s;
    for (int e = 0; e < 3; ++e) {
        s.lo[e] = e == d ? start : 0;
        s.n[e] = e == d ? h : F->g.ext[e];
    }
    s.ext0 = F->g.ext[0];
    s.ext1 = F->g.ext[1];
    return s;
}

static int64_t slab_vertices(const vs_gpu_field *F, int d)
{
    int64_t n = F->halo;
    for (int e = 0; e < 3; ++e)
        if (e != d)
            n *= F->g.ext[e];
    return n;
}

static int one_rank(const vs_field_xctx *c, int d) { return c->g->tr.dc->dims[d] == 1; }

static void ex_select(void *ctx, int d, int64_t n_send[2], int64_t n_recv[2])
{
    const vs_field_xctx *c = (const vs_field_xctx *)ctx;
    n_send[0] = n_send[1] = n_recv[0] = n_recv[1] = slab_vertices(c->F, d);
}

static void ex_reserve(void *ctx, int d, const int64_t n_send[2], const int64_t n_recv[2])
{
    vs_field_xctx *c = (vs_field_xctx *)ctx;
    for (int dir = 0; dir < 2; ++dir) {
        c->n_send[dir] = n_send[dir];
        c->n_recv[dir] = n_recv[dir];
    }
    if (!one_rank(c, d))
        vs_gpu_comm_reserve(c->g, c->rec * (size_t)(n_send[0] + n_send[1]),
                            c->rec * (size_t)(n_recv[0] + n_recv[1]));
}

static const void *ex_pack(void *ctx, int d, int dir, double shift, int64_t n)
{
    (void)shift; /* grid records: the slabs line up by index, not by position */
    vs_field_xctx *c = (vs_field_xctx *)ctx;
    vs_gpu_state *g = c->g;
    vs_gpu_field *F = c->F;
    void *out = one_rank(c, d) ? (void *)F->self[dir]
                               : (void *)(g->tr.d_send + c->rec * (size_t)(dir ? c->n_send[0] : 0));
    const vs_field_slab s = field_slab(F, d, dir, 0);
    if (F->fold)
        VS_LAUNCH(field_pack_kernel<unsigned long long>, n, VS_BLOCK, g->stream, n, s, F->fc.nf,
                  F->nvert, F->count, (unsigned long long *)out);
    else
        VS_LAUNCH(field_pack_kernel<double>, n, VS_BLOCK, g->stream, n, s, F->fc.nf, F->nvert,
                  F->pot, (double *)out);
    return out;
}

static void *ex_recv_buffer(void *ctx, int d, int dir, int64_t n)
{
    (void)d;
    (void)n;
    const vs_field_xctx *c = (const vs_field_xctx *)ctx;
    return c->g->tr.d_recv + c->rec * (size_t)(dir ? c->n_recv[0] : 0);
}

static void ex_unpack(void *ctx, int d, int dir, const void *recs, int64_t n)
{
    vs_field_xctx *c = (vs_field_xctx *)ctx;
    vs_gpu_state *g = c->g;
    vs_gpu_field *F = c->F;
    const vs_field_slab s = field_slab(F, d, dir, 1);
    if (F->fold)
        VS_LAUNCH(field_add_kernel, n, VS_BLOCK, g->stream, n, s, F->fc.nf, F->nvert,
                  (const unsigned long long *)recs, F->count, F->d_status);
    else
        VS_LAUNCH(field_store_kernel, n, VS_BLOCK, g->stream, n, s, F->fc.nf, F->nvert,
                  (const double *)recs, F->pot);
}

/* The records of a stage, both directions in one batch, through the dimension's transport
 * (the driver never asks for counts: both sides know the slabs). */
static void ex_transport(void *ctx, const vs_decomp *dc, const vs_exchange_msg msg[2],
                         size_t got[2])
{
    vs_gpu_exchange_transport(((vs_field_xctx *)ctx)->g, dc, msg, got);
}

static void field_exchange(vs_gpu_state *g, vs_gpu_field *F, int fold)
{
    F->fold = fold;
    const size_t rec = (size_t)F->fc.nf * (fold ? sizeof(int64_t) : sizeof(double));
    const vs_exchange_ops ops = {fold ? "field fold" : "field fill", rec, 1, ex_select,
                                 ex_reserve, ex_pack, ex_recv_buffer, ex_unpack, ex_transport};
    vs_field_xctx c = {g, F, rec, {0, 0}, {0, 0}};
    vs_exchange_run(&ops, &c, g->tr.dc);
}

/* ---- the passes --------------------------------------------------------------------------- */

static vs_gpu_field *field_create(vs_gpu_state *g)
{
    const vs_params *prm = g->prm;
    const vs_decomp *dc = g->tr.dc;
    vs_gpu_field *F = (vs_gpu_field *)VS_MALLOC(sizeof *F);
    memset(F, 0, sizeof *F);
    F->nvert = vs_field_block_layout(prm->system.box, prm->field.spacing, prm->neighbor.skin,
                                     dc->coords, dc->dims, &F->g, &F->halo, F->owned);
    F->n_owned_vert = (int64_t)F->owned[0] * F->owned[1] * F->owned[2];
    const vs_field_params *fp = &prm->field;
    F->fc.nf = fp->n;
    F->fc.kT = prm->dpd.kT;
    F->fc.inv_kappa = 1.0 / fp->kappa;
    for (int k = 0; k < fp->n; ++k)
        for (int l = 0; l < fp->n; ++l)
            F->fc.chi[k][l] = fp->chi[k][l];
    for (int s = 0; s < VS_MAX_SPECIES; ++s)
        F->of.k[s] = s < prm->species.n ? fp->of[s] : -1;
    const size_t grid_bytes = sizeof(double) * (size_t)fp->n * (size_t)F->nvert;
    F->count = (unsigned long long *)vs_gpu_alloc(g, grid_bytes);
    F->pot = (double *)vs_gpu_alloc(g, grid_bytes);
    VS_CUDA_CHECK(cudaMemsetAsync(F->pot, 0, grid_bytes, g->stream));
    int64_t widest = 0;
    for (int d = 0; d < 3; ++d)
        widest = slab_vertices(F, d) > widest ? slab_vertices(F, d) : widest;
    F->self_bytes = sizeof(double) * (size_t)fp->n * (size_t)widest;
    for (int dir = 0; dir < 2; ++dir)
        F->self[dir] = (char *)vs_gpu_alloc(g, F->self_bytes);
    F->partials = (vs_wide *)vs_gpu_alloc(g, sizeof(vs_wide) * (VS_FIELD_BLOCKS + 1));
    F->d_status = (unsigned long long *)vs_gpu_alloc(g, ST_WORDS * sizeof(unsigned long long));
    VS_CUDA_CHECK(cudaMallocHost((void **)&F->h_status, ST_WORDS * sizeof(unsigned long long) +
                                                            sizeof(vs_wide)));
    F->stale = 1;
    return F;
}

static void reset_status(vs_gpu_state *g, vs_gpu_field *F)
{
    VS_CUDA_CHECK(cudaMemsetAsync(F->d_status, 0, ST_WORDS * sizeof(unsigned long long),
                                  g->stream));
    VS_CUDA_CHECK(cudaMemsetAsync(F->d_status + ST_ESCAPED, 0xff, sizeof(unsigned long long),
                                  g->stream));
}

/* Wait for the queued work and read the status words (and, with `energy`, the total of the
 * energy's partials); a fault stops the run with the CPU's message. Zeroes the words. */
static void read_status(vs_gpu_state *g, vs_gpu_field *F, int energy)
{
    unsigned long long *h = F->h_status;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, F->d_status, ST_WORDS * sizeof(unsigned long long),
                                  cudaMemcpyDeviceToHost, g->stream));
    if (energy)
        VS_CUDA_CHECK(cudaMemcpyAsync(h + ST_WORDS, F->partials + VS_FIELD_BLOCKS,
                                      sizeof(vs_wide), cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    if (h[ST_ESCAPED] != ~0ull)
        VS_FATAL("field: particle %lld lies beyond its rank's grid block (more than skin/2 "
                 "outside its brick)", (long long)h[ST_ESCAPED]);
    if (h[ST_OVERFLOW])
        VS_FATAL("field: a vertex's count left the fixed-point range");
    if (energy) {
        memcpy(&F->energy, h + ST_WORDS, sizeof(vs_wide));
        F->energy_bad = h[ST_ENERGY_BAD] != 0;
    }
    reset_status(g, F);
}

/* Passes 1 and 2: the counts of the current positions on the owned vertices; when stale, the
 * mean density from the global count of field particles (collective). */
static void spread(vs_gpu_state *g, vs_gpu_field *F)
{
    const int n = (int)g->pt.n_owned;
    VS_CUDA_CHECK(cudaMemsetAsync(F->count, 0,
                                  sizeof(int64_t) * (size_t)F->fc.nf * (size_t)F->nvert,
                                  g->stream));
    VS_LAUNCH(field_spread_kernel, n, VS_BLOCK, g->stream, n, vs_gpu_positions(g),
              g->pt.species_id, g->pt.tag, F->of, F->g, F->nvert, F->count, F->stale,
              F->d_status);
    if (F->stale) {
        read_status(g, F, 0);
        int64_t n_field = (int64_t)F->h_status[ST_COUNT];
        vs_par_sum_int64(&g->tr.dc->cart, &n_field, 1);
        const double cells = (double)F->g.n[0] * (double)F->g.n[1] * (double)F->g.n[2];
        F->fc.cell_count = n_field > 0 ? (double)n_field / cells : 1.0;
        F->fc.phi_per_quantum = 1.0 / (VS_FIELD_QUANTA * F->fc.cell_count);
    }
    field_exchange(g, F, 1);
}

/* Pass 3 (and W): the potentials of the owned vertices and this rank's share of W. */
static void vertices(vs_gpu_state *g, vs_gpu_field *F, int potentials, int energy)
{
    int64_t blocks = (F->n_owned_vert + VS_BLOCK - 1) / VS_BLOCK;
    if (blocks > VS_FIELD_BLOCKS)
        blocks = VS_FIELD_BLOCKS;
    if (blocks < 1)
        blocks = 1;
    field_vertex_kernel<<<(unsigned)blocks, VS_BLOCK, 0, g->stream>>>(
        F->n_owned_vert, F->g, F->halo, F->owned[0], F->owned[1], F->fc, F->nvert, F->count,
        F->pot, potentials, energy, F->partials, F->d_status);
    VS_CUDA_CHECK(cudaGetLastError());
    if (!energy)
        return;
    /* the total at partials[VS_FIELD_BLOCKS]: the blocks not launched add nothing */
    VS_CUDA_CHECK(cudaMemsetAsync(F->partials + blocks, 0,
                                  sizeof(vs_wide) * (size_t)(VS_FIELD_BLOCKS - blocks),
                                  g->stream));
    vs_wide_final<1>(VS_FIELD_BLOCKS, F->partials, g->stream);
}

static vs_field_bead bead_args(const vs_gpu_state *g, const vs_gpu_field *F)
{
    vs_field_bead b;
    b.species = g->pt.species_id;
    b.tag = g->pt.tag;
    b.pot = F->pot;
    b.nvert = F->nvert;
    b.escaped = F->d_status + ST_ESCAPED;
    b.grid = F->g;
    b.of = F->of;
    return b;
}

int vs_gpu_field_fused(vs_gpu_state *g, vs_field_bead *b, int *scheme)
{
    vs_gpu_field *F = g->field;
    if (!F || !F->fused)
        return 0;
    F->fused = 0;
    *b = bead_args(g, F);
    *scheme = g->prm->field.force;
    return 1;
}

extern "C" void vs_gpu_field_forces(vs_gpu_state *g, int64_t step, int want_energy)
{
    vs_gpu_settle_owned(g); /* the other terms read the owned number on the host */
    if (!g->field) {
        g->field = field_create(g);
        reset_status(g, g->field);
    }
    vs_gpu_field *F = g->field;
    const int update = F->stale || step % g->prm->field.interval == 0;
    if (update || want_energy) {
        spread(g, F);
        vertices(g, F, update, want_energy != 0);
    }
    if (update) {
        field_exchange(g, F, 0);
        F->stale = 0;
    }
    if (F->fused) /* the last evaluation's bond kernel did not take its beads */
        VS_FATAL("field: the bond kernel did not add the field forces it was left");
    F->fused = g->bd.on && g->prm->molecules.n_bond_types > 0 && !g->bd.fork_allowed &&
               g->bd.slot_rec != NULL;
    const int n = (int)g->pt.n_owned;
    const int fixed = g->fs.forces_fixed;
    void (*kernel)(int, vs_positions, const vs_field_bead, const int32_t *, double *,
                   double *, double *) =
        g->prm->field.force == VS_FIELD_FORCE_GRADIENT
            ? (fixed ? field_force_kernel<VS_FIELD_FORCE_GRADIENT, true>
                     : field_force_kernel<VS_FIELD_FORCE_GRADIENT, false>)
            : (fixed ? field_force_kernel<VS_FIELD_FORCE_ENERGY, true>
                     : field_force_kernel<VS_FIELD_FORCE_ENERGY, false>);
    VS_LAUNCH(kernel, n, VS_BLOCK, g->stream, n, vs_gpu_positions(g), bead_args(g, F),
              F->fused ? g->bd.slot_rec : NULL, g->pt.f[0], g->pt.f[1], g->pt.f[2]);
    if (want_energy)
        read_status(g, F, 1);
}

/* The CPU's vs_cpu_field_phi: a fresh spread and fold of the current positions, the owned
 * vertices' counts read back (a frame of fields.h5, not a step's work). */
extern "C" void vs_gpu_field_phi(vs_gpu_state *g, double *out)
{
    if (!g->field) {
        g->field = field_create(g);
        reset_status(g, g->field);
    }
    vs_gpu_field *F = g->field;
    spread(g, F);
    read_status(g, F, 0);
    const size_t n = (size_t)F->fc.nf * (size_t)F->nvert;
    int64_t *count = (int64_t *)VS_MALLOC(n * sizeof *count);
    VS_CUDA_CHECK(cudaMemcpy(count, F->count, n * sizeof *count, cudaMemcpyDeviceToHost));
    vs_field_owned_phi(&F->g, F->fc.nf, F->nvert, F->halo, F->owned, F->fc.phi_per_quantum,
                       count, out);
    free(count);
}

extern "C" int vs_gpu_field_energy(vs_gpu_state *g, vs_wide *w)
{
    vs_gpu_settle_owned(g); /* the other terms read the owned number on the host */
    *w = g->field ? g->field->energy : 0;
    return g->field ? g->field->energy_bad : 0;
}

void vs_gpu_field_stale(vs_gpu_state *g)
{
    if (g->field)
        g->field->stale = 1;
}

void vs_gpu_field_free(vs_gpu_state *g)
{
    vs_gpu_field *F = g->field;
    if (!F)
        return;
    const size_t grid_bytes = sizeof(double) * (size_t)F->fc.nf * (size_t)F->nvert;
    vs_gpu_free(g, F->count, grid_bytes);
    vs_gpu_free(g, F->pot, grid_bytes);
    for (int dir = 0; dir < 2; ++dir)
        vs_gpu_free(g, F->self[dir], F->self_bytes);
    vs_gpu_free(g, F->partials, sizeof(vs_wide) * (VS_FIELD_BLOCKS + 1));
    vs_gpu_free(g, F->d_status, ST_WORDS * sizeof(unsigned long long));
    cudaFreeHost(F->h_status);
    free(F);
    g->field = NULL;
}
