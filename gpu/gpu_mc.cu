/* The Monte Carlo engine on the GPU (gpu_mc.h): the checkerboard sweep, and the energies and
 * changes of the other moves. The physics is src/core/mc_sweep.h's and mc_energy.h's, the CPU
 * reference's (src/engine/mc/mc_sweep.c, mc_box.c); this file only spreads it over the
 * device.
 *
 * A sweep: each particle's cell in the sweep's shifted grid, a stable radix sort of (cell, index)
 * pairs (so a cell holds its particles in index order, as the CPU's counting sort does), the cells'
 * starts, the positions gathered cell by cell; then one kernel per colour in the plan's order, a
 * warp per active cell doing the cell's trials one after the other, its 32 lanes sharing the
 * neighbours of each trial (gpu_mc_colour.cuh: a single-precision filter in phases, then the
 * exact terms); the positions scattered back. A trial's energy change is an exact fixed-point
 * sum, so the lanes' partial sums add to the CPU's integer whatever the split. The file compiles
 * without fused multiply-adds (CMakeLists.txt), so positions and pair energies round as on the
 * CPU; the filter, which only drops candidates with a margin, uses them explicitly.
 *
 * The other moves' energies are exact fixed-point sums too, so any split of the pairs over
 * threads gives the host's integers. One particle against the box (a trial insertion, a
 * particle to delete): every particle is a candidate, a thread each, with no cell list to keep
 * up with the insertions and deletions (one pass over the positions costs less than a launch
 * at a thousand particles, and a few microseconds at a million); up to 65,536 particles one
 * block does it and writes the sum into mapped host memory, so a trial is one launch and the
 * host's wait, the latency that bounds a cycle of many transfers. A whole box at a trial volume:
 * the scaled positions sorted into a grid of cells at least the reach wide (the sweep's sort
 * and buffers, the sweep redoes them from the positions), then a thread per particle and
 * neighbour cell, each pair once (from its lower original index). Each warp adds its sum to
 * the accumulator's three limbs; the host reads them when it decides the move. An accepted
 * move's change (a particle appended or removed, the box scaled) is made here, so the box
 * stays on the device from its upload to the end of the run.
 */
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "gpu_mc.h"
}

#define MC_WARPS 2     /* warps per block of the colour kernel */
#define MC_MIN_BLOCKS 10 /* its blocks per multiprocessor with one style (8 with several) */
#define MC_BUF 256     /* a warp's kept candidates of a chunk read from global memory */
#define MC_NB 768      /* a warp's staged neighbourhood (single precision), at most */
#define MC_FULL 0xffffffffu
#define MC_MAX_NEAR 27

struct vs_gpu_mc {
    int64_t n, cap;
    int64_t ncell_cap;
    double *x;          /* 3 cap, as the host's */
    int32_t *sp;        /* cap */
    uint32_t *key_in, *key_out;
    int32_t *idx_in, *idx_out;
    double *xs;         /* 3 cap, by cell: x of all, then y, then z */
    float *xf;          /* the same in single precision (the filter) */
    int32_t *ss;        /* species by cell */
    int32_t *count, *start; /* ncell_cap + 1 */
    void *tmp;
    size_t tmp_bytes;
    uint32_t *cells;    /* a split sweep: this rank's cells of a colour (ncell_cap) */
    double *h_xs;       /* and the positions by slot on the host (3 h_cap) */
    int64_t *h_start;   /* with the cells' first slots (ncell_cap + 1) */
    int64_t h_cap, h_ncell_cap;
    vs_pair_coeff *coeff;
    vs_mc_sweep_pairs pp;
    unsigned long long *acc; /* the three limbs of the accepted dU, and the accepted count */
    unsigned long long *eacc;   /* the three limbs of the launched energy */
    unsigned long long *h_eacc; /* their copy in pinned, mapped host memory */
    unsigned long long *d_h_eacc; /* the same seen from the device */
};

#define CK(call)                                                                               \
    do {                                                                                       \
        cudaError_t rc_ = (call);                                                              \
        if (rc_ != cudaSuccess) {                                                              \
            snprintf(err, len, "GPU Monte Carlo: %s: %s", #call, cudaGetErrorString(rc_));     \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)

/* ---- kernels ------------------------------------------------------------------------------ */

/* Each particle's cell, its coordinates scaled by f (1: as they are, exactly). */
__global__ void k_cells(int n, const double *x, double f, vs_mc_sweep_plan p, uint32_t *key,
                        int32_t *idx, int32_t *count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double y[3] = {vs_mc_scale_coord(x[3 * i], f), vs_mc_scale_coord(x[3 * i + 1], f),
                         vs_mc_scale_coord(x[3 * i + 2], f)};
    const uint32_t c = vs_mc_sweep_cell(&p, y);
    key[i] = c;
    idx[i] = i;
    atomicAdd(&count[c], 1);
}

__global__ void k_gather(int n, int cap, const int32_t *idx, const double *x, double f,
                         const int32_t *sp, double *xs, float *xf, int32_t *ss)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = idx[k];
    for (int d = 0; d < 3; ++d) {
        const double v = vs_mc_scale_coord(x[3 * i + d], f);
        xs[d * cap + k] = v;
        xf[d * cap + k] = (float)v;
    }
    ss[k] = sp[i];
}

__global__ void k_scatter(int n, int cap, const int32_t *idx, const double *xs, double *x)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = idx[k];
    for (int d = 0; d < 3; ++d)
        x[3 * i + d] = xs[d * cap + k];
}

/* The single-precision copy of the sorted positions (a split sweep's shared cells). */
__global__ void k_single(int n, int cap, const double *xs, float *xf)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < 3 * n) {
        const int k = (t / n) * cap + t % n;
        xf[k] = (float)xs[k];
    }
}

__device__ __forceinline__ vs_wide warp_sum(vs_wide v)
{
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long lo = __shfl_xor_sync(MC_FULL, (unsigned long long)v, o);
        const unsigned long long hi =
            __shfl_xor_sync(MC_FULL, (unsigned long long)((unsigned __int128)v >> 64), o);
        v += (vs_wide)(((unsigned __int128)hi << 64) | lo);
    }
    return v;
}

/* The minimum-image squared distance in single precision (the filter only). */
__device__ __forceinline__ float dist2f(const float L[3], const float a[3], float b0, float b1,
                                        float b2)
{
    const float b[3] = {b0, b1, b2};
    float r2 = 0.0f;
    for (int d = 0; d < 3; ++d) {
        float dx = a[d] - b[d];
        dx = dx > 0.5f * L[d] ? dx - L[d] : dx < -0.5f * L[d] ? dx + L[d] : dx;
        r2 += dx * dx;
    }
    return r2;
}

struct colour_args {
    vs_mc_sweep_plan p;
    vs_mc_sweep_pairs pp;
    const vs_pair_coeff *coeff;
    double *xs;
    float *xf;
    const int32_t *ss, *start;
    int cap;
    int colour, step;
    float lim;  /* the filter's squared distance: the reach and a margin */
    float limr; /* the same, not squared */
    const uint32_t *cells; /* the cells to run (ncells of them), or NULL: every cell of colour */
    int ncells;
    unsigned long long *acc;
};

#include "gpu_mc_colour.cuh"

/* A warp's sum into the accumulator's limbs (lane 0; every lane calls it). The limbs add
 * without carries: at most MC_E_BLOCKS * 8 warps add to them. */
__device__ __forceinline__ void add_limbs(unsigned long long *acc, vs_wide v)
{
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) {
        int64_t l[3];
        vs_wide_to_limbs(v, l);
        for (int e = 0; e < 3; ++e)
            atomicAdd(&acc[e], (unsigned long long)l[e]);
    }
}

#define MC_E_THREADS 256 /* threads per block of the energy kernels */
#define MC_E_BLOCKS 1024 /* their blocks at most (grid-stride loops beyond) */

struct at_args {
    vs_mc_sweep_pairs pp;
    const vs_pair_coeff *coeff;
    const double *x;
    const int32_t *sp;
    double L[3], y[3];
    int n, skip, self, si;
    unsigned long long *acc;
};

/* The trial particle's (a.y, or particle a.skip itself) energy with partners first,
 * first + stride, ... of the box. */
__device__ __forceinline__ vs_wide energy_at_part(const at_args &a, int first, int stride)
{
    double y[3] = {a.y[0], a.y[1], a.y[2]};
    int si = a.si;
    if (a.self) {
        for (int d = 0; d < 3; ++d)
            y[d] = a.x[3 * a.skip + d];
        si = a.sp[a.skip];
    }
    vs_wide sum = 0;
    for (int j = first; j < a.n; j += stride)
        if (j != a.skip)
            sum += vs_mc_energy_term(&a.pp, a.coeff, a.L, y, si, a.x[3 * j], a.x[3 * j + 1],
                                     a.x[3 * j + 2], a.sp[j]);
    return sum;
}

/* One particle against the box: a thread per candidate partner. */
__global__ void __launch_bounds__(MC_E_THREADS) k_energy_at(at_args a)
{
    add_limbs(a.acc, energy_at_part(a, blockIdx.x * blockDim.x + threadIdx.x,
                                    gridDim.x * blockDim.x));
}

/* One particle against a box of at most MC_E_ONE_BLOCK particles: one block, no atomics,
 * the sum written straight into the host's mapped memory (no clearing before, no copy after:
 * a trial's latency is one launch). */
#define MC_E_ONE_BLOCK 65536
__global__ void __launch_bounds__(1024) k_energy_at_one(at_args a, unsigned long long *out)
{
    __shared__ vs_wide part[32];
    vs_wide sum = warp_sum(energy_at_part(a, threadIdx.x, blockDim.x));
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (lane == 0)
        part[w] = sum;
    __syncthreads();
    if (w == 0) {
        sum = warp_sum(lane < (int)(blockDim.x >> 5) ? part[lane] : (vs_wide)0);
        if (lane == 0) {
            int64_t l[3];
            vs_wide_to_limbs(sum, l);
            for (int e = 0; e < 3; ++e)
                out[e] = (unsigned long long)l[e];
        }
    }
}

struct pairs_args {
    vs_mc_sweep_plan p;
    vs_mc_sweep_pairs pp;
    const vs_pair_coeff *coeff;
    vs_mc_energy_cells c;
    const uint32_t *cell; /* each slot's cell */
    int n;
    unsigned long long *acc;
};

/* The whole box: a thread per (slot, neighbour cell). */
__global__ void __launch_bounds__(MC_E_THREADS) k_energy_pairs(pairs_args a)
{
    vs_wide sum = 0;
    const long long total = (long long)a.n * MC_MAX_NEAR;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const int k = (int)(t / MC_MAX_NEAR), r = (int)(t % MC_MAX_NEAR);
        sum += vs_mc_energy_cell_pairs(&a.pp, a.coeff, &a.p, &a.c, k, a.cell[k], r);
    }
    add_limbs(a.acc, sum);
}

__global__ void k_append(double *x, int32_t *sp, int n, double y0, double y1, double y2,
                         int32_t species)
{
    x[3 * n] = y0;
    x[3 * n + 1] = y1;
    x[3 * n + 2] = y2;
    sp[n] = species;
}

__global__ void k_remove(double *x, int32_t *sp, int i, int last)
{
    for (int d = 0; d < 3; ++d)
        x[3 * i + d] = x[3 * last + d];
    sp[i] = sp[last];
}

__global__ void k_scale(double *x, int m, double f)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        x[k] = vs_mc_scale_coord(x[k], f);
}

/* ---- the C interface ---------------------------------------------------------------------- */

extern "C" vs_gpu_mc *vs_gpu_mc_create(const vs_mc_sweep_pairs *pp, const vs_pair_coeff *coeff,
                                       int device, char *err, size_t len)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1 ||
        cudaSetDevice(device % devices) != cudaSuccess) {
        snprintf(err, len, "backend: \"gpu\" requested but no GPU is usable");
        return NULL;
    }
    vs_gpu_mc *g = (vs_gpu_mc *)calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    g->pp = *pp;
    const size_t bytes = (size_t)pp->n_styles * pp->ns * pp->ns * sizeof(vs_pair_coeff);
    if (cudaMalloc(&g->coeff, bytes > 0 ? bytes : 1) != cudaSuccess ||
        cudaMemcpy(g->coeff, coeff, bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMalloc(&g->acc, 4 * sizeof(unsigned long long)) != cudaSuccess ||
        cudaMalloc(&g->eacc, 3 * sizeof(unsigned long long)) != cudaSuccess ||
        cudaHostAlloc(&g->h_eacc, 3 * sizeof(unsigned long long), cudaHostAllocMapped) !=
            cudaSuccess ||
        cudaHostGetDevicePointer(&g->d_h_eacc, g->h_eacc, 0) != cudaSuccess) {
        snprintf(err, len, "GPU Monte Carlo: out of device memory");
        vs_gpu_mc_free(g);
        return NULL;
    }
    return g;
}

extern "C" void vs_gpu_mc_free(vs_gpu_mc *g)
{
    if (!g)
        return;
    void *ptrs[] = {g->x,  g->sp,    g->key_in, g->key_out, g->idx_in, g->idx_out,
                    g->xs, g->xf,    g->ss,     g->count,   g->start,  g->tmp,
                    g->coeff, g->acc, g->eacc,  g->cells};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k)
        if (ptrs[k])
            cudaFree(ptrs[k]);
    if (g->h_eacc)
        cudaFreeHost(g->h_eacc);
    free(g->h_xs);
    free(g->h_start);
    free(g);
}

/* Room for n particles; keep: the positions and species of the g->n there now kept (the
 * other arrays are a sweep's or an energy's scratch). */
static int reserve(vs_gpu_mc *g, int64_t n, int keep, char *err, size_t len)
{
    if (n >= ((int64_t)1 << 28)) { /* 32-bit indices into the by-axis arrays */
        snprintf(err, len, "GPU Monte Carlo: %lld particles in a box: at most 2^28",
                 (long long)n);
        return -1;
    }
    if (n <= g->cap)
        return 0;
    const int64_t c = n + n / 4 + 64;
    if (keep && g->n > 0) {
        double *x = NULL;
        int32_t *sp = NULL;
        CK(cudaMalloc(&x, (size_t)c * 3 * sizeof(double)));
        CK(cudaMalloc(&sp, (size_t)c * 4));
        CK(cudaMemcpy(x, g->x, (size_t)g->n * 3 * sizeof(double), cudaMemcpyDeviceToDevice));
        CK(cudaMemcpy(sp, g->sp, (size_t)g->n * 4, cudaMemcpyDeviceToDevice));
        CK(cudaFree(g->x));
        CK(cudaFree(g->sp));
        g->x = x;
        g->sp = sp;
    }
    void **arrays[] = {(void **)&g->x, (void **)&g->sp, (void **)&g->key_in, (void **)&g->key_out,
                       (void **)&g->idx_in, (void **)&g->idx_out, (void **)&g->xs,
                       (void **)&g->xf, (void **)&g->ss};
    const size_t size[] = {3 * sizeof(double), 4, 4, 4, 4, 4, 3 * sizeof(double),
                           3 * sizeof(float), 4};
    for (int k = keep && g->n > 0 ? 2 : 0; k < 9; ++k) {
        if (*arrays[k])
            CK(cudaFree(*arrays[k]));
        *arrays[k] = NULL;
        CK(cudaMalloc(arrays[k], (size_t)c * size[k]));
    }
    g->cap = c;
    return 0;
}

extern "C" int vs_gpu_mc_upload(vs_gpu_mc *g, int64_t n, const double *x,
                                const int32_t *species, char *err, size_t len)
{
    if (reserve(g, n, 0, err, len))
        return -1;
    g->n = n;
    if (n > 0) {
        CK(cudaMemcpy(g->x, x, (size_t)n * 3 * sizeof(double), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(g->sp, species, (size_t)n * 4, cudaMemcpyHostToDevice));
    }
    return 0;
}

extern "C" int vs_gpu_mc_download(vs_gpu_mc *g, double *x, char *err, size_t len)
{
    if (g->n > 0)
        CK(cudaMemcpy(x, g->x, (size_t)g->n * 3 * sizeof(double), cudaMemcpyDeviceToHost));
    return 0;
}

/* Room for the cells' counts and starts and for the sort's and the scan's scratch. */
static int reserve_cells(vs_gpu_mc *g, int64_t ncell, int bits, char *err, size_t len)
{
    if (ncell > g->ncell_cap) {
        if (g->count)
            CK(cudaFree(g->count));
        if (g->start)
            CK(cudaFree(g->start));
        if (g->cells)
            CK(cudaFree(g->cells));
        g->count = g->start = NULL;
        g->cells = NULL;
        CK(cudaMalloc(&g->count, (size_t)(ncell + 1) * 4));
        CK(cudaMalloc(&g->start, (size_t)(ncell + 1) * 4));
        CK(cudaMalloc(&g->cells, (size_t)ncell * 4));
        g->ncell_cap = ncell;
    }
    size_t sort_bytes = 0, scan_bytes = 0;
    CK(cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, g->key_in, g->key_out, g->idx_in,
                                       g->idx_out, (int)g->n, 0, bits));
    CK(cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, g->count, g->start, (int)ncell + 1));
    const size_t need = sort_bytes > scan_bytes ? sort_bytes : scan_bytes;
    if (need > g->tmp_bytes) {
        if (g->tmp)
            CK(cudaFree(g->tmp));
        g->tmp = NULL;
        CK(cudaMalloc(&g->tmp, need));
        g->tmp_bytes = need;
    }
    return 0;
}

/* The g->n particles sorted by the cells of p's grid, their coordinates scaled by f (1: as
 * they are): by slot their cells (key_out), original indices (idx_out), positions (xs, xf)
 * and species (ss); each cell's first slot (start). Returns 0, or -1 with err. */
static int sort_cells(vs_gpu_mc *g, const vs_mc_sweep_plan *p, double f, char *err, size_t len)
{
    const int n = (int)g->n;
    const int64_t ncell = (int64_t)p->nc[0] * p->nc[1] * p->nc[2];
    if (ncell > ((int64_t)1 << 21)) { /* the limbs of dU add without carries up to 2^21 */
        snprintf(err, len, "GPU Monte Carlo: %lld cells in a box: at most 2^21",
                 (long long)ncell);
        return -1;
    }
    int bits = 1;
    while (((int64_t)1 << bits) < ncell)
        ++bits;
    if (reserve_cells(g, ncell, bits, err, len))
        return -1;
    const int blk = 256, grid = (n + blk - 1) / blk;
    CK(cudaMemsetAsync(g->count, 0, (size_t)(ncell + 1) * 4));
    k_cells<<<grid, blk>>>(n, g->x, f, *p, g->key_in, g->idx_in, g->count);
    CK(cudaGetLastError());
    size_t bytes = g->tmp_bytes;
    CK(cub::DeviceRadixSort::SortPairs(g->tmp, bytes, g->key_in, g->key_out, g->idx_in,
                                       g->idx_out, n, 0, bits));
    bytes = g->tmp_bytes;
    CK(cub::DeviceScan::ExclusiveSum(g->tmp, bytes, g->count, g->start, (int)ncell + 1));
    k_gather<<<grid, blk>>>(n, (int)g->cap, g->idx_out, g->x, f, g->sp, g->xs, g->xf, g->ss);
    CK(cudaGetLastError());
    return 0;
}

/* One colour step's kernel over a.cells (or every cell of the colour): blocks of it. */
static int launch_colour(const colour_args &a, int blocks, int img, int lj, char *err, size_t len)
{
    if (blocks == 0)
        return 0;
    if (img && lj)
        k_colour<true, VS_PAIR_LJ><<<blocks, 32 * MC_WARPS>>>(a);
    else if (img)
        k_colour<true, -1><<<blocks, 32 * MC_WARPS>>>(a);
    else if (lj)
        k_colour<false, VS_PAIR_LJ><<<blocks, 32 * MC_WARPS>>>(a);
    else
        k_colour<false, -1><<<blocks, 32 * MC_WARPS>>>(a);
    CK(cudaGetLastError());
    return 0;
}

/* A split sweep's host copies: the cells' first slots (after the sort), room for the
 * positions. */
static int split_begin(vs_gpu_mc *g, int64_t ncell, char *err, size_t len)
{
    if (g->n > g->h_cap) {
        double *x = (double *)realloc(g->h_xs, (size_t)g->cap * 3 * sizeof(double));
        if (!x) {
            snprintf(err, len, "GPU Monte Carlo: out of host memory");
            return -1;
        }
        g->h_xs = x;
        g->h_cap = g->cap;
    }
    if (ncell > g->h_ncell_cap) {
        int64_t *st = (int64_t *)realloc(g->h_start, (size_t)(ncell + 1) * sizeof(int64_t));
        if (!st) {
            snprintf(err, len, "GPU Monte Carlo: out of host memory");
            return -1;
        }
        g->h_start = st;
        g->h_ncell_cap = ncell;
    }
    /* the device's 32-bit starts, widened in place from the last (entry c of the 64-bit array
     * covers 32-bit entries 2c and 2c + 1, none of them still to be read) */
    const int32_t *st32 = (const int32_t *)g->h_start;
    CK(cudaMemcpy(g->h_start, g->start, (size_t)(ncell + 1) * 4, cudaMemcpyDeviceToHost));
    for (int64_t c = ncell; c >= 0; --c)
        g->h_start[c] = st32[c];
    return 0;
}

/* After a split sweep's colour step: the positions to the host, the other ranks' cells of the
 * colour from them (split->share), back to the device with their single-precision copy. */
static int split_share(vs_gpu_mc *g, const vs_gpu_mc_split *split, int colour, char *err,
                       size_t len)
{
    const int64_t n = g->n, cap = g->cap;
    for (int d = 0; d < 3; ++d)
        CK(cudaMemcpy(g->h_xs + d * n, g->xs + d * cap, (size_t)n * sizeof(double),
                      cudaMemcpyDeviceToHost));
    split->share(split->ctx, colour, g->h_start, g->h_xs, n);
    for (int d = 0; d < 3; ++d)
        CK(cudaMemcpy(g->xs + d * cap, g->h_xs + d * n, (size_t)n * sizeof(double),
                      cudaMemcpyHostToDevice));
    k_single<<<(int)((3 * n + 255) / 256), 256>>>((int)n, (int)cap, g->xs, g->xf);
    CK(cudaGetLastError());
    return 0;
}

extern "C" int vs_gpu_mc_sweep(vs_gpu_mc *g, const vs_mc_sweep_plan *p,
                               const vs_gpu_mc_split *split, vs_wide *dU, int64_t *accepted,
                               char *err, size_t len)
{
    *dU = 0;
    *accepted = 0;
    const int n = (int)g->n;
    if (n == 0)
        return 0;
    CK(cudaMemsetAsync(g->acc, 0, 4 * sizeof(unsigned long long)));
    const int64_t ncell = (int64_t)p->nc[0] * p->nc[1] * p->nc[2];
    if (sort_cells(g, p, 1.0, err, len) || (split && split_begin(g, ncell, err, len)))
        return -1;
    const int blk = 256, grid = (n + blk - 1) / blk, cap = (int)g->cap;
    colour_args a;
    a.p = *p;
    a.pp = g->pp;
    a.coeff = g->coeff;
    a.xs = g->xs;
    a.xf = g->xf;
    a.ss = g->ss;
    a.start = g->start;
    a.cap = cap;
    a.acc = g->acc;
    a.cells = NULL;
    a.ncells = 0;
    /* a margin far above the single-precision round-off of positions within the box */
    const double Lmax = fmax(p->L[0], fmax(p->L[1], p->L[2]));
    const double reach = sqrt(g->pp.reach2), m = reach + 1e-3 * reach + 1e-4 * Lmax;
    a.lim = (float)(m * m);
    a.limr = (float)m;
    const int active = (p->nc[0] / 2) * (p->nc[1] / 2) * (p->nc[2] / 2);
    const int img = p->nc[0] >= 4 && p->nc[1] >= 4 && p->nc[2] >= 4;
    const int lj = g->pp.n_styles == 1 && g->pp.style[0] == VS_PAIR_LJ;
    for (int step = 0; step < 8; ++step) {
        a.step = step;
        a.colour = p->order[step];
        int cells = active;
        if (split) {
            const uint32_t *list = NULL;
            cells = (int)split->cells(split->ctx, a.colour, &list);
            if (cells > 0)
                CK(cudaMemcpy(g->cells, list, (size_t)cells * 4, cudaMemcpyHostToDevice));
            a.cells = g->cells;
            a.ncells = cells;
        }
        if (launch_colour(a, (cells + MC_WARPS - 1) / MC_WARPS, img, lj, err, len) ||
            (split && split_share(g, split, a.colour, err, len)))
            return -1;
    }
    k_scatter<<<grid, blk>>>(n, cap, g->idx_out, g->xs, g->x);
    CK(cudaGetLastError());
    unsigned long long acc[4];
    CK(cudaMemcpy(acc, g->acc, sizeof acc, cudaMemcpyDeviceToHost));
    const int64_t l[3] = {(int64_t)acc[0], (int64_t)acc[1], (int64_t)acc[2]};
    *dU = vs_wide_from_limbs(l);
    *accepted = (int64_t)acc[3];
    return 0;
}

/* The launched energy's copy to the host queued (its accumulator was cleared before). */
static int queue_result(vs_gpu_mc *g, char *err, size_t len)
{
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(g->h_eacc, g->eacc, 3 * sizeof(unsigned long long),
                       cudaMemcpyDeviceToHost, 0));
    return 0;
}

static int blocks_for(long long work)
{
    const long long b = (work + MC_E_THREADS - 1) / MC_E_THREADS;
    return b < 1 ? 1 : (b > MC_E_BLOCKS ? MC_E_BLOCKS : (int)b);
}

extern "C" int vs_gpu_mc_energy_at(vs_gpu_mc *g, const double L[3], const double *y,
                                   int32_t species, int64_t skip, char *err, size_t len)
{
    at_args a;
    memset(&a, 0, sizeof a);
    a.pp = g->pp;
    a.coeff = g->coeff;
    a.x = g->x;
    a.sp = g->sp;
    for (int d = 0; d < 3; ++d) {
        a.L[d] = L[d];
        a.y[d] = y ? y[d] : 0.0;
    }
    a.n = (int)g->n;
    a.skip = (int)skip;
    a.self = y == NULL;
    a.si = species;
    a.acc = g->eacc;
    if (a.n <= MC_E_ONE_BLOCK) {
        k_energy_at_one<<<1, 1024>>>(a, g->d_h_eacc);
        CK(cudaGetLastError());
        return 0;
    }
    CK(cudaMemsetAsync(g->eacc, 0, 3 * sizeof(unsigned long long)));
    k_energy_at<<<blocks_for(a.n), MC_E_THREADS>>>(a);
    return queue_result(g, err, len);
}

extern "C" int vs_gpu_mc_energy_scaled(vs_gpu_mc *g, const double L[3], double f, double reach,
                                       char *err, size_t len)
{
    CK(cudaMemsetAsync(g->eacc, 0, 3 * sizeof(unsigned long long)));
    if (g->n > 0) {
        pairs_args a;
        memset(&a, 0, sizeof a);
        vs_mc_energy_grid(&a.p, L, reach);
        if (sort_cells(g, &a.p, f, err, len))
            return -1;
        const int cap = (int)g->cap;
        a.pp = g->pp;
        a.coeff = g->coeff;
        a.c.X = g->xs;
        a.c.Y = g->xs + cap;
        a.c.Z = g->xs + 2 * cap;
        a.c.ss = g->ss;
        a.c.id = g->idx_out;
        a.c.start = g->start;
        a.cell = g->key_out;
        a.n = (int)g->n;
        a.acc = g->eacc;
        k_energy_pairs<<<blocks_for((long long)a.n * MC_MAX_NEAR), MC_E_THREADS>>>(a);
    }
    return queue_result(g, err, len);
}

extern "C" int vs_gpu_mc_energy_result(vs_gpu_mc *g, vs_wide *e, char *err, size_t len)
{
    CK(cudaStreamSynchronize(0));
    const int64_t l[3] = {(int64_t)g->h_eacc[0], (int64_t)g->h_eacc[1], (int64_t)g->h_eacc[2]};
    *e = vs_wide_from_limbs(l);
    return 0;
}

extern "C" int vs_gpu_mc_append(vs_gpu_mc *g, const double x[3], int32_t species, char *err,
                                size_t len)
{
    if (reserve(g, g->n + 1, 1, err, len))
        return -1;
    k_append<<<1, 1>>>(g->x, g->sp, (int)g->n, x[0], x[1], x[2], species);
    CK(cudaGetLastError());
    g->n++;
    return 0;
}

extern "C" int vs_gpu_mc_remove(vs_gpu_mc *g, int64_t i, char *err, size_t len)
{
    k_remove<<<1, 1>>>(g->x, g->sp, (int)i, (int)g->n - 1);
    CK(cudaGetLastError());
    g->n--;
    return 0;
}

extern "C" int vs_gpu_mc_scale(vs_gpu_mc *g, double f, char *err, size_t len)
{
    const int m = (int)(3 * g->n);
    if (m == 0)
        return 0;
    k_scale<<<(m + 255) / 256, 256>>>(g->x, m, f);
    CK(cudaGetLastError());
    return 0;
}
