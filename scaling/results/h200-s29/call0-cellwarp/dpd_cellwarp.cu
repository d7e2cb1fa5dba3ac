/* Cell-warp v2: a DPD pair stage with nothing staged, against a both-sides reference
 * (a benchmark study, not part of the simulation or its build: kept here as it ran).
 *
 * Usage: vesica_dpd_cellwarp N REPEATS
 *
 * Compile (repository root; only src/core headers are used, nothing needs linking):
 *   nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -I src/core -I src -I gpu \
 *        -Xptxas -v -Xcompiler -Wall,-Wextra \
 *        scaling/results/h200-s29/call0-cellwarp/dpd_cellwarp.cu -o vesica_dpd_cellwarp
 *
 * The system: N particles uniformly random (splitmix64, fixed seed) in a periodic cube of
 * side L ~ (N / 3)^(1/3) (rho = 3), one species, DPD with r_c = 1, a = 25, gamma = 4.5,
 * kT = 1, s = 1, dt = 0.04, uniform xi. Positions are int4 quanta as in the simulation
 * (gpu/gpu_internal.cuh): quantum 2^-k with the largest k for which L 2^k < 2^30, the box
 * length Lq a whole number of quanta (L is rounded to it), q = u - Lq/2 for u in [0, Lq).
 * The separation is the integer difference wrapped to the minimum image
 * (d > Lq/2: d - Lq; d < -Lq/2: d + Lq; antisymmetric to the bit), then (float)d * quantum.
 * The pair test is the simulation's: r2q = vs_norm2 of the three float quanta differences,
 * a pair iff 0 < r2q < (1/quantum)^2, the same in every kernel here, so all see one pair set.
 * The pair force is the project's own vs_dpd_xi + vs_dpd_pair_f (src/core/dpd_pair.h) with
 * r2 = vs_norm2(dx, dy, dz) in lengths, as vs_evaluate_mixed_pair; each component goes to
 * fixed point as q = __float2ll_rn(g * 2^32) (vs_force_to_fixed), +q to i and -q to j, summed
 * as 64-bit integers (order-free, so every correct pair stage gives bit-identical sums).
 *
 * Layout: cells of side Lq / ncell >= r_c, ncell = floor(L) per axis (>= 3 required, so the
 * 13 forward neighbours and their mirrors are 26 distinct cells). Cells are grouped into
 * bricks of B x B x B cells (partial bricks at the high edge when B does not divide ncell).
 * The particles are ordered (host counting sort, not timed) by brick, then cell within the
 * brick, then original index: a cell's particles are [cell_start[c], cell_start[c + 1]) in
 * "sorted cell" numbering, and a brick's cells (and particles) are contiguous. pos, vel, sig
 * are stored in that order; sig = vs_signature_pack(vs_tag_signature(key, tag)) with tag the
 * original index.
 *
 * Cell-warp v2 kernel (template B, W warps per block), one block per brick:
 *  - shared memory: the brick's particles' fixed-point sums (3 components x lo/hi 32-bit
 *    words, vs_shared_add64; sized by the largest brick, found on the host) and one ring queue
 *    of 64 (i, j) pairs per warp; nothing else (no positions are staged).
 *  - warp w takes the brick's cells w, w + W, ...; for cell c with n_i particles, lane k < 14
 *    fetches stencil range k: k = 0 the cell itself, k = 1..13 the forward half stencil
 *    (dz = +1: 9; dz = 0, dy = +1: 3; dz = dy = 0, dx = +1: 1), periodic. The n_i x M
 *    combinations (M = the 14 ranges' total length) are enumerated 32 per round, lane l taking
 *    t = base + l: i-th = t / M (float reciprocal, corrected), candidate jj = t mod M, its
 *    range by a 4-step shuffle binary search over the ranges' exclusive prefix sums; in the
 *    own range only jj > i-th counts, so each unordered pair within r_c is found exactly once.
 *    Positions of i and j are read from global memory (L1), tested, and the hits ballot-
 *    compacted into the warp's queue. Whenever the queue holds >= 32 pairs the warp
 *    evaluates 32 of them, one per lane (loads pos/vel/sig of both, again from L1/L2), adds
 *    +q to i (always in this brick) in shared memory, -q to j in shared memory when j is in
 *    the brick, else by a 64-bit global atomic. The remainder (< 32) is evaluated at the end;
 *    after __syncthreads the brick's sums go out with one 64-bit atomicAdd per component per
 *    particle (other bricks add to the same particles).
 *  - pairs are counted per warp (popc of the ballots), summed per block in shared memory and
 *    stored per block (no same-address global atomics).
 *
 * Reference ("both-sides"): one thread per particle i walks all 27 neighbour cells, takes
 * every j != i passing the same test, evaluates the same pair function with i as the first
 * particle, and stores its own int64 sums with plain stores (no atomics). The force on j of
 * a pair is the exact negative of i's (dpd_pair.h's contract), so these sums must equal the
 * Newton stages' sums bit for bit. It also stores per-particle pair counts (total / 2 =
 * pairs).
 *
 * Checks (the program exits 1 on any failure):
 *  - every cell-warp variant's three int64 sum arrays against the reference of its layout,
 *    entry by entry ("differing: 0"), and its pair count against the reference's;
 *  - the two layouts' (B = 4 and B = 6) reference sums and counts mapped back by tag;
 *  - a host brute-force check (all N partners, minimum image, the same float test with
 *    fmaf) of the pair count of sample particles (exact) and of their force (host float
 *    arithmetic, tolerance 1e-2 absolute; a wrong sign or a missing pair is >> 1).
 * Timing: cudaEvents around each launch only (the sums are cleared by cudaMemsetAsync before
 * each repeat, outside the events), one untimed warm-up launch, REPEATS timed; median and min.
 *
 * Occupancy: launch bounds ask for 64 registers (W = 8: 4 blocks of 256; W = 16: 2 blocks of
 * 512), the shared memory is ~(6 x 4 x max_per_brick + W x 512) bytes per block (~11 kB for
 * B = 4, W = 8; ~27 kB for B = 6, W = 16), so registers limit residency to 32 warps per SM;
 * the program prints what cudaOccupancyMaxActiveBlocksPerMultiprocessor reports.
 * ptxas (CUDA 13.0, sm_90): every cellwarp variant 61 registers, no spills; the reference 48
 * registers with a 16 B stack frame (20 B spill stores).
 *
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "dpd_pair.h"
#include "tea_rng.h"
}

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t rc_ = (call);                                                               \
        if (rc_ != cudaSuccess) {                                                               \
            fprintf(stderr, "dpd_cellwarp: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
                    cudaGetErrorString(rc_));                                                   \
            exit(2);                                                                            \
        }                                                                                       \
    } while (0)

#define FULL_MASK 0xffffffffu
#define VS_FIXED_PER_FORCE 4294967296.0 /* as gpu/gpu_internal.cuh */
#define QUEUE_CAP 64                    /* per-warp ring queue of (i, j); a power of two */
#define REF_BLOCK 256

/* ---- copied from the simulation (gpu/gpu_internal.cuh, gpu/gpu_newton.cuh) ---- */
__device__ __forceinline__ float vs_norm2(float x, float y, float z)
{
    return __fmaf_rn(x, x, __fmaf_rn(y, y, __fmul_rn(z, z)));
}

__device__ __forceinline__ void vs_shared_add64(unsigned *lo_word, unsigned *hi_word,
                                                long long q)
{
    const unsigned lo = (unsigned)q, hi = (unsigned)((unsigned long long)q >> 32);
    const unsigned old = atomicAdd(lo_word, lo);
    atomicAdd(hi_word, hi + (old + lo < old ? 1u : 0u));
}

__device__ __forceinline__ long long vs_force_to_fixed(float v)
{
    return __float2ll_rn(v * (float)VS_FIXED_PER_FORCE);
}

/* ---- the system, passed to kernels by value ---- */
struct Frame {
    int Lq;        /* box length in quanta */
    int half;      /* Lq / 2: q = u - half, u in [0, Lq) */
    float quantum; /* 2^-k */
    float rc2q;    /* (r_c / quantum)^2 = 2^2k, exact */
};

struct Phys {
    vs_tea_key key;
    vs_dpd_consts_f cf;
    float a;
};

struct Particles {
    const int4 *pos;
    const float4 *vel;
    const uint64_t *sig;
};

struct Grid {
    int n;                       /* cells per axis */
    const uint32_t *cell_start;  /* [n^3 + 1], by sorted cell */
    const int *cell_rank;        /* linear cell (x + n (y + n z)) -> sorted cell */
    const int *cell_lin;         /* sorted cell -> linear cell */
};

/* Minimum-image difference in quanta: exactly antisymmetric (wrap(a, b) == -wrap(b, a)). */
__host__ __device__ __forceinline__ int wrap_quanta(int qi, int qj, const Frame &fr)
{
    int d = qi - qj; /* |d| < Lq < 2^30 */
    d = d > fr.half ? d - fr.Lq : d;
    d = d < -fr.half ? d + fr.Lq : d;
    return d;
}

/* The pair test in quanta, the same in every kernel. */
__device__ __forceinline__ bool is_pair(const int4 &pi, const int4 &pj, const Frame &fr)
{
    const float r2q = vs_norm2((float)wrap_quanta(pi.x, pj.x, fr),
                               (float)wrap_quanta(pi.y, pj.y, fr),
                               (float)wrap_quanta(pi.z, pj.z, fr));
    return (r2q < fr.rc2q) & (r2q > 0.0f);
}

/* The pair (i, j) in fixed point: the force on i; j's is the exact negative. */
__device__ __forceinline__ void pair_fixed(const Phys &ph, const Frame &fr, const int4 &pi,
                                           const float4 &vi, uint64_t sig_i, const int4 &pj,
                                           const float4 &vj, uint64_t sig_j, long long &qx,
                                           long long &qy, long long &qz)
{
    const float dx = (float)wrap_quanta(pi.x, pj.x, fr) * fr.quantum;
    const float dy = (float)wrap_quanta(pi.y, pj.y, fr) * fr.quantum;
    const float dz = (float)wrap_quanta(pi.z, pj.z, fr) * fr.quantum;
    const float r2 = vs_norm2(dx, dy, dz);
    const float xi = (float)vs_dpd_xi(ph.key, sig_i, sig_j, 0);
    const vs_pair_result_f r =
        vs_dpd_pair_f(&ph.cf, r2, dx, dy, dz, vi.x - vj.x, vi.y - vj.y, vi.z - vj.z, ph.a, xi);
    qx = vs_force_to_fixed(r.f_over_r * dx);
    qy = vs_force_to_fixed(r.f_over_r * dy);
    qz = vs_force_to_fixed(r.f_over_r * dz);
}

__device__ __forceinline__ int wrap_cell(int c, int n)
{
    return c < 0 ? c + n : (c >= n ? c - n : c);
}

/* ---- the both-sides reference: one thread per particle, 27 cells, own sums only ---- */
__global__ void __launch_bounds__(REF_BLOCK)
    reference_kernel(Frame fr, Phys ph, Particles p, Grid g, int n_particles,
                     unsigned long long *fx, unsigned long long *fy, unsigned long long *fz,
                     int *count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_particles)
        return;
    const int4 pi = p.pos[i];
    const float4 vi = p.vel[i];
    const uint64_t sig_i = p.sig[i];
    /* its cell, by the host's formula: u = q + Lq / 2, c = u n / Lq */
    const int cx = (int)((long long)(pi.x + fr.half) * g.n / fr.Lq);
    const int cy = (int)((long long)(pi.y + fr.half) * g.n / fr.Lq);
    const int cz = (int)((long long)(pi.z + fr.half) * g.n / fr.Lq);
    long long sx = 0, sy = 0, sz = 0;
    int pairs = 0;
    for (int oz = -1; oz <= 1; ++oz)
        for (int oy = -1; oy <= 1; ++oy)
            for (int ox = -1; ox <= 1; ++ox) {
                const int nx = wrap_cell(cx + ox, g.n), ny = wrap_cell(cy + oy, g.n),
                          nz = wrap_cell(cz + oz, g.n);
                const int sc = g.cell_rank[nx + g.n * (ny + g.n * nz)];
                const int end = (int)g.cell_start[sc + 1];
                for (int j = (int)g.cell_start[sc]; j < end; ++j) {
                    if (j == i)
                        continue;
                    const int4 pj = p.pos[j];
                    if (!is_pair(pi, pj, fr))
                        continue;
                    long long qx, qy, qz;
                    pair_fixed(ph, fr, pi, vi, sig_i, pj, p.vel[j], p.sig[j], qx, qy, qz);
                    sx += qx;
                    sy += qy;
                    sz += qz;
                    ++pairs;
                }
            }
    fx[i] = (unsigned long long)sx;
    fy[i] = (unsigned long long)sy;
    fz[i] = (unsigned long long)sz;
    count[i] = pairs;
}

/* ---- cell-warp v2 ---- */
template <int W>
struct CellwarpBounds {
    static constexpr int threads = W * 32;
    static constexpr int min_blocks = 2048 / threads / 2; /* 64 registers: 32 warps per SM */
};

template <int B, int W>
__global__ void __launch_bounds__(CellwarpBounds<W>::threads, CellwarpBounds<W>::min_blocks)
    cellwarp_kernel(Frame fr, Phys ph, Particles p, Grid g, const int *brick_cell_first,
                    int maxp, unsigned long long *fx, unsigned long long *fy,
                    unsigned long long *fz, unsigned *block_pairs)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ unsigned s_pairs;
    int2 *queues = (int2 *)smem;                              /* [W][QUEUE_CAP] */
    unsigned *sums = (unsigned *)(queues + W * QUEUE_CAP);    /* [6][maxp]: lo, hi per comp */
    unsigned *lo0 = sums, *hi0 = sums + maxp, *lo1 = sums + 2 * maxp, *hi1 = sums + 3 * maxp,
             *lo2 = sums + 4 * maxp, *hi2 = sums + 5 * maxp;

    const int b = blockIdx.x;
    const int c_first = brick_cell_first[b], c_end = brick_cell_first[b + 1];
    const int p0 = (int)g.cell_start[c_first];
    const int nloc = (int)g.cell_start[c_end] - p0; /* <= maxp (host-checked) */
    for (int k = threadIdx.x; k < 6 * maxp; k += blockDim.x)
        sums[k] = 0u;
    if (threadIdx.x == 0)
        s_pairs = 0u;
    __syncthreads(); /* sums zeroed before any add */

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int2 *queue = queues + warp * QUEUE_CAP;
    int head = 0, queued = 0; /* warp-uniform */
    unsigned hits = 0;        /* warp-uniform */

    /* the pair (i, j), i in this brick */
    auto evaluate = [&](int i, int j) {
        const int4 pi = p.pos[i], pj = p.pos[j];
        const float4 vi = p.vel[i], vj = p.vel[j];
        const uint64_t sig_i = p.sig[i], sig_j = p.sig[j];
        long long qx, qy, qz;
        pair_fixed(ph, fr, pi, vi, sig_i, pj, vj, sig_j, qx, qy, qz);
        const int li = i - p0;
        vs_shared_add64(lo0 + li, hi0 + li, qx);
        vs_shared_add64(lo1 + li, hi1 + li, qy);
        vs_shared_add64(lo2 + li, hi2 + li, qz);
        const unsigned lj = (unsigned)(j - p0);
        if (lj < (unsigned)nloc) {
            vs_shared_add64(lo0 + lj, hi0 + lj, -qx);
            vs_shared_add64(lo1 + lj, hi1 + lj, -qy);
            vs_shared_add64(lo2 + lj, hi2 + lj, -qz);
        } else {
            atomicAdd(fx + j, (unsigned long long)-qx);
            atomicAdd(fy + j, (unsigned long long)-qy);
            atomicAdd(fz + j, (unsigned long long)-qz);
        }
    };

    const int n = g.n;
    for (int c = c_first + warp; c < c_end; c += W) { /* warp-uniform */
        const int s = (int)g.cell_start[c];
        const int ni = (int)g.cell_start[c + 1] - s;
        if (ni == 0)
            continue;
        const int lin = g.cell_lin[c];
        const int cx = lin % n, cy = (lin / n) % n, cz = lin / (n * n);
        /* lane k < 14: stencil range k (0: the cell itself; 1..13: the forward half) */
        int start = 0, len = 0;
        if (lane < 14) {
            int ox = 0, oy = 0, oz = 0;
            if (lane >= 1 && lane <= 9) {
                oz = 1;
                oy = (lane - 1) / 3 - 1;
                ox = (lane - 1) % 3 - 1;
            } else if (lane >= 10 && lane <= 12) {
                oy = 1;
                ox = lane - 11;
            } else if (lane == 13) {
                ox = 1;
            }
            const int nx = wrap_cell(cx + ox, n), ny = wrap_cell(cy + oy, n),
                      nz = wrap_cell(cz + oz, n);
            const int sc = lane == 0 ? c : g.cell_rank[nx + n * (ny + n * nz)];
            start = (int)g.cell_start[sc];
            len = (int)g.cell_start[sc + 1] - start;
        }
        /* exclusive prefix P of the ranges' lengths; lanes >= 14 hold P = M */
        int incl = len;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const int v = __shfl_up_sync(FULL_MASK, incl, o);
            if (lane >= o)
                incl += v;
        }
        const int P = incl - len;
        const int M = __shfl_sync(FULL_MASK, incl, 31); /* >= ni >= 1 */
        const int D = start - P;                         /* j = D_r + jj in range r */
        const int T = ni * M;
        const float invM = 1.0f / (float)M;
        for (int base = 0; base < T; base += 32) { /* warp-uniform */
            const int t = base + lane;
            int ii = (int)((float)t * invM); /* t / M, off by at most one: corrected */
            int jj = t - ii * M;
            if (jj >= M) {
                ++ii;
                jj -= M;
            }
            if (jj < 0) {
                --ii;
                jj += M;
            }
            /* the range r holding jj: the largest r in [0, 16) with P_r <= jj */
            int r = 0;
#pragma unroll
            for (int step = 8; step >= 1; step >>= 1) {
                const int pr = __shfl_sync(FULL_MASK, P, r + step);
                if (pr <= jj)
                    r += step;
            }
            const int j = __shfl_sync(FULL_MASK, D, r) + jj;
            const int i = s + ii;
            /* own cell (r = 0, P_0 = 0, so jj is j's place in it): only later entries */
            const bool valid = (t < T) & ((r != 0) | (jj > ii));
            bool hit = false;
            if (valid)
                hit = is_pair(p.pos[i], p.pos[j], fr);
            const unsigned ballot = __ballot_sync(FULL_MASK, hit);
            if (hit) {
                const int rank = __popc(ballot & ((1u << lane) - 1u));
                queue[(head + queued + rank) & (QUEUE_CAP - 1)] = make_int2(i, j);
            }
            const int found = __popc(ballot);
            queued += found; /* <= 31 + 32 < QUEUE_CAP: no unread entry is overwritten */
            hits += (unsigned)found;
            if (queued >= 32) {                                  /* warp-uniform */
                __syncwarp();                                    /* the appends visible */
                const int2 e = queue[(head + lane) & (QUEUE_CAP - 1)];
                __syncwarp();                                    /* read before reuse */
                head = (head + 32) & (QUEUE_CAP - 1);
                queued -= 32;
                evaluate(e.x, e.y);
            }
        }
    }
    /* the remainder, fewer than 32 */
    if (queued > 0) {
        __syncwarp();
        if (lane < queued) {
            const int2 e = queue[(head + lane) & (QUEUE_CAP - 1)];
            evaluate(e.x, e.y);
        }
    }
    if (lane == 0)
        atomicAdd(&s_pairs, hits);
    __syncthreads(); /* every add to the brick's sums done */
    for (int k = threadIdx.x; k < nloc; k += blockDim.x) {
        atomicAdd(fx + p0 + k, (unsigned long long)hi0[k] << 32 | lo0[k]);
        atomicAdd(fy + p0 + k, (unsigned long long)hi1[k] << 32 | lo1[k]);
        atomicAdd(fz + p0 + k, (unsigned long long)hi2[k] << 32 | lo2[k]);
    }
    if (threadIdx.x == 0)
        block_pairs[b] = s_pairs;
}

/* ---- host side ---- */
static uint64_t splitmix64(uint64_t &s)
{
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct System {
    int n_particles;
    Frame fr;
    Phys ph;
    int ncell;
    int k; /* quantum = 2^-k */
    std::vector<int> u[3];        /* position in quanta from the box corner, [0, Lq) */
    std::vector<float4> vel;      /* by tag */
    std::vector<uint64_t> sig;    /* by tag */
    std::vector<int> cell_lin;    /* by tag: linear cell */
};

struct Layout {
    int B, nb1, nbricks, maxp;
    double mean_per_brick;
    std::vector<int> cell_rank, cell_lin, brick_cell_first;
    std::vector<uint32_t> cell_start;
    std::vector<int4> pos;
    std::vector<float4> vel;
    std::vector<uint64_t> sig;
    std::vector<int> tag;
};

static void build_layout(const System &sys, int B, Layout &lay)
{
    const int n = sys.ncell;
    const long long ncells = (long long)n * n * n;
    lay.B = B;
    lay.nb1 = (n + B - 1) / B;
    lay.nbricks = lay.nb1 * lay.nb1 * lay.nb1;
    lay.cell_rank.assign(ncells, -1);
    lay.cell_lin.assign(ncells, -1);
    lay.brick_cell_first.assign(lay.nbricks + 1, 0);
    int sc = 0;
    for (int bz = 0; bz < lay.nb1; ++bz)
        for (int by = 0; by < lay.nb1; ++by)
            for (int bx = 0; bx < lay.nb1; ++bx) {
                lay.brick_cell_first[bx + lay.nb1 * (by + lay.nb1 * bz)] = sc;
                const int wx = std::min(B, n - bx * B), wy = std::min(B, n - by * B),
                          wz = std::min(B, n - bz * B);
                for (int lz = 0; lz < wz; ++lz)
                    for (int ly = 0; ly < wy; ++ly)
                        for (int lx = 0; lx < wx; ++lx) {
                            const int lin =
                                (bx * B + lx) + n * ((by * B + ly) + n * (bz * B + lz));
                            lay.cell_rank[lin] = sc;
                            lay.cell_lin[sc] = lin;
                            ++sc;
                        }
            }
    lay.brick_cell_first[lay.nbricks] = sc;
    if (sc != ncells) {
        fprintf(stderr, "dpd_cellwarp: layout B=%d numbers %d cells of %lld\n", B, sc, ncells);
        exit(2);
    }
    /* counting sort by sorted cell, stable (original index within a cell) */
    const int np = sys.n_particles;
    std::vector<uint32_t> count(ncells + 1, 0u);
    for (int t = 0; t < np; ++t)
        ++count[lay.cell_rank[sys.cell_lin[t]] + 1];
    for (long long c = 0; c < ncells; ++c)
        count[c + 1] += count[c];
    lay.cell_start = count; /* [ncells + 1] */
    lay.pos.resize(np);
    lay.vel.resize(np);
    lay.sig.resize(np);
    lay.tag.resize(np);
    std::vector<uint32_t> fill(count.begin(), count.end() - 1);
    for (int t = 0; t < np; ++t) {
        const uint32_t at = fill[lay.cell_rank[sys.cell_lin[t]]]++;
        lay.pos[at] = make_int4(sys.u[0][t] - sys.fr.half, sys.u[1][t] - sys.fr.half,
                                sys.u[2][t] - sys.fr.half, 0);
        lay.vel[at] = sys.vel[t];
        lay.sig[at] = sys.sig[t];
        lay.tag[at] = t;
    }
    lay.maxp = 0;
    for (int b = 0; b < lay.nbricks; ++b) {
        const int cnt = (int)(lay.cell_start[lay.brick_cell_first[b + 1]] -
                              lay.cell_start[lay.brick_cell_first[b]]);
        lay.maxp = std::max(lay.maxp, cnt);
    }
    lay.mean_per_brick = (double)np / lay.nbricks;
}

/* The host's pair test (the device's, with fmaf) and pair force, for the sample check. */
static bool host_is_pair(const int4 &pi, const int4 &pj, const Frame &fr, float &r2q)
{
    const float x = (float)wrap_quanta(pi.x, pj.x, fr), y = (float)wrap_quanta(pi.y, pj.y, fr),
                z = (float)wrap_quanta(pi.z, pj.z, fr);
    r2q = std::fmaf(x, x, std::fmaf(y, y, z * z));
    return r2q < fr.rc2q && r2q > 0.0f;
}

struct DeviceLayout {
    int4 *pos;
    float4 *vel;
    uint64_t *sig;
    uint32_t *cell_start;
    int *cell_rank, *cell_lin, *brick_cell_first;
    unsigned long long *ref[3], *f[3];
    int *count;
    unsigned *block_pairs;
};

template <typename T>
static T *upload(const std::vector<T> &v)
{
    T *d = nullptr;
    CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

struct Stats {
    double median, min;
};

static Stats stats_of(std::vector<float> t)
{
    std::sort(t.begin(), t.end());
    const size_t m = t.size();
    const double med = m % 2 ? t[m / 2] : 0.5 * ((double)t[m / 2 - 1] + t[m / 2]);
    return {med, (double)t[0]};
}

struct Result {
    char name[96];
    Stats st;
    long long differing; /* -1: the reference itself */
    long long pairs;
    bool ok;
};

static std::vector<Result> results;
static bool all_ok = true;

/* Time `launch` REPEATS times, the sums cleared before each repeat outside the events. */
template <typename Launch, typename Clear>
static Stats time_repeats(int repeats, Launch launch, Clear clear)
{
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    clear();
    launch(); /* warm-up, untimed */
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> t(repeats);
    for (int r = 0; r < repeats; ++r) {
        clear();
        CHECK(cudaEventRecord(e0));
        launch();
        CHECK(cudaEventRecord(e1));
        CHECK(cudaGetLastError());
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaEventElapsedTime(&t[r], e0, e1));
    }
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    return stats_of(t);
}

template <int B, int W>
static void run_cellwarp(const System &sys, const Layout &lay, const DeviceLayout &d,
                         const std::vector<unsigned long long> (&ref)[3], long long ref_pairs,
                         int repeats)
{
    const int np = sys.n_particles;
    const int threads = W * 32;
    const int maxp = (lay.maxp + 31) / 32 * 32;
    const size_t smem = (size_t)W * QUEUE_CAP * sizeof(int2) + (size_t)6 * maxp * sizeof(unsigned);
    auto kernel = cellwarp_kernel<B, W>;
    if (smem > 48 * 1024)
        CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)smem));
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, kernel));
    int blocks_per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, threads, smem));
    printf("  cellwarp B=%d warps=%d: %d bricks (%d per axis), %d threads per block, "
           "%zu B dynamic + %zu B static shared, %d registers, %zu B local (spills), "
           "%d blocks = %d warps per SM\n",
           B, W, lay.nbricks, lay.nb1, threads, smem, attr.sharedSizeBytes, attr.numRegs,
           attr.localSizeBytes, blocks_per_sm, blocks_per_sm * W);
    Grid g = {sys.ncell, d.cell_start, d.cell_rank, d.cell_lin};
    Particles p = {d.pos, d.vel, d.sig};
    auto clear = [&]() {
        for (int c = 0; c < 3; ++c)
            CHECK(cudaMemsetAsync(d.f[c], 0, (size_t)np * sizeof(unsigned long long)));
        CHECK(cudaMemsetAsync(d.block_pairs, 0xff, (size_t)lay.nbricks * sizeof(unsigned)));
    };
    auto launch = [&]() {
        kernel<<<lay.nbricks, threads, smem>>>(sys.fr, sys.ph, p, g, d.brick_cell_first, maxp,
                                                d.f[0], d.f[1], d.f[2], d.block_pairs);
    };
    const Stats st = time_repeats(repeats, launch, clear);
    CHECK(cudaDeviceSynchronize());
    /* the last repeat's sums against the reference */
    std::vector<unsigned long long> f(np);
    long long differing = 0;
    long long first_bad = -1;
    double max_abs = 0.0;
    for (int c = 0; c < 3; ++c) {
        CHECK(cudaMemcpy(f.data(), d.f[c], (size_t)np * sizeof(unsigned long long),
                         cudaMemcpyDeviceToHost));
        for (int i = 0; i < np; ++i)
            if (f[i] != ref[c][i]) {
                ++differing;
                if (first_bad < 0)
                    first_bad = i;
                const double diff = std::fabs((double)(long long)(f[i] - ref[c][i]));
                max_abs = std::max(max_abs, diff);
            }
    }
    std::vector<unsigned> bp(lay.nbricks);
    CHECK(cudaMemcpy(bp.data(), d.block_pairs, bp.size() * sizeof(unsigned),
                     cudaMemcpyDeviceToHost));
    long long pairs = 0;
    for (unsigned v : bp)
        pairs += v; /* 0xffffffff would show a block that never stored: caught by the total */
    const bool ok = differing == 0 && pairs == ref_pairs;
    printf("  cellwarp B=%d warps=%d: median %.4f ms, min %.4f ms, pairs %lld (reference "
           "%lld, %s), pairs/particle %.4f, differing: %lld",
           B, W, st.median, st.min, pairs, ref_pairs, pairs == ref_pairs ? "equal" : "DIFFER",
           (double)pairs / np, differing);
    if (differing)
        printf(" (first at sorted index %lld, largest difference %.0f fixed-point units = "
               "%.3g force)",
               first_bad, max_abs, max_abs / VS_FIXED_PER_FORCE);
    printf("\n");
    Result r;
    snprintf(r.name, sizeof r.name, "variant B=%d warps=%d", B, W);
    r.st = st;
    r.differing = differing;
    r.pairs = pairs;
    r.ok = ok;
    results.push_back(r);
    all_ok = all_ok && ok;
}

/* Reference and study kernels on one layout; returns the reference sums by tag. */
static void run_layout(const System &sys, int B, int repeats,
                       std::vector<unsigned long long> (&ref_by_tag)[3],
                       std::vector<int> &count_by_tag)
{
    const int np = sys.n_particles;
    auto t0 = std::chrono::steady_clock::now();
    Layout lay;
    build_layout(sys, B, lay);
    printf("layout B=%d: %d bricks (%d per axis, %s), particles per brick mean %.1f max %d, "
           "host sort %.2f s\n",
           B, lay.nbricks, lay.nb1, sys.ncell % B ? "partial bricks at the high edge" : "whole",
           lay.mean_per_brick, lay.maxp, seconds_since(t0));

    DeviceLayout d;
    d.pos = upload(lay.pos);
    d.vel = upload(lay.vel);
    d.sig = upload(lay.sig);
    d.cell_start = upload(lay.cell_start);
    d.cell_rank = upload(lay.cell_rank);
    d.cell_lin = upload(lay.cell_lin);
    d.brick_cell_first = upload(lay.brick_cell_first);
    for (int c = 0; c < 3; ++c) {
        CHECK(cudaMalloc(&d.ref[c], (size_t)np * sizeof(unsigned long long)));
        CHECK(cudaMalloc(&d.f[c], (size_t)np * sizeof(unsigned long long)));
    }
    CHECK(cudaMalloc(&d.count, (size_t)np * sizeof(int)));
    CHECK(cudaMalloc(&d.block_pairs, (size_t)lay.nbricks * sizeof(unsigned)));

    /* the reference */
    Grid g = {sys.ncell, d.cell_start, d.cell_rank, d.cell_lin};
    Particles p = {d.pos, d.vel, d.sig};
    auto clear_ref = [&]() {
        for (int c = 0; c < 3; ++c)
            CHECK(cudaMemsetAsync(d.ref[c], 0xff, (size_t)np * sizeof(unsigned long long)));
        CHECK(cudaMemsetAsync(d.count, 0xff, (size_t)np * sizeof(int)));
    };
    auto launch_ref = [&]() {
        reference_kernel<<<(np + REF_BLOCK - 1) / REF_BLOCK, REF_BLOCK>>>(
            sys.fr, sys.ph, p, g, np, d.ref[0], d.ref[1], d.ref[2], d.count);
    };
    const Stats st = time_repeats(repeats, launch_ref, clear_ref);
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned long long> ref[3];
    for (int c = 0; c < 3; ++c) {
        ref[c].resize(np);
        CHECK(cudaMemcpy(ref[c].data(), d.ref[c], (size_t)np * sizeof(unsigned long long),
                         cudaMemcpyDeviceToHost));
    }
    std::vector<int> count(np);
    CHECK(cudaMemcpy(count.data(), d.count, (size_t)np * sizeof(int), cudaMemcpyDeviceToHost));
    long long twice = 0;
    for (int i = 0; i < np; ++i)
        twice += count[i];
    const long long ref_pairs = twice / 2;
    bool ref_ok = twice % 2 == 0;
    {
        cudaFuncAttributes attr;
        CHECK(cudaFuncGetAttributes(&attr, reference_kernel));
        printf("  reference (both sides) B=%d layout: median %.4f ms, min %.4f ms, pairs %lld "
               "(%s), pairs/particle %.4f; %d registers, %zu B local\n",
               B, st.median, st.min, ref_pairs, twice % 2 ? "ODD TWICE-COUNT" : "count even",
               (double)ref_pairs / np, attr.numRegs, attr.localSizeBytes);
    }

    /* host brute force on sample particles: exact pair counts, forces within 1e-2 */
    {
        const int samples = (int)std::max(8.0, std::min(256.0, 2e8 / np));
        auto h0 = std::chrono::steady_clock::now();
        long long count_bad = 0;
        double max_err = 0.0;
        for (int s = 0; s < samples; ++s) {
            const int i = (int)((long long)s * np / samples);
            const int4 pi = lay.pos[i];
            const float4 vi = lay.vel[i];
            int cnt = 0;
            double fsum[3] = {0.0, 0.0, 0.0};
            for (int j = 0; j < np; ++j) {
                float r2q;
                if (j == i || !host_is_pair(pi, lay.pos[j], sys.fr, r2q))
                    continue;
                ++cnt;
                const int4 pj = lay.pos[j];
                const float4 vj = lay.vel[j];
                const float dx = (float)wrap_quanta(pi.x, pj.x, sys.fr) * sys.fr.quantum;
                const float dy = (float)wrap_quanta(pi.y, pj.y, sys.fr) * sys.fr.quantum;
                const float dz = (float)wrap_quanta(pi.z, pj.z, sys.fr) * sys.fr.quantum;
                const float r2 = dx * dx + dy * dy + dz * dz;
                const float xi = (float)vs_dpd_xi(sys.ph.key, lay.sig[i], lay.sig[j], 0);
                const vs_pair_result_f r =
                    vs_dpd_pair_f(&sys.ph.cf, r2, dx, dy, dz, vi.x - vj.x, vi.y - vj.y,
                                  vi.z - vj.z, sys.ph.a, xi);
                fsum[0] += (double)r.f_over_r * dx;
                fsum[1] += (double)r.f_over_r * dy;
                fsum[2] += (double)r.f_over_r * dz;
            }
            if (cnt != count[i])
                ++count_bad;
            for (int c = 0; c < 3; ++c)
                max_err = std::max(max_err, std::fabs(fsum[c] - (double)(long long)ref[c][i] /
                                                                    VS_FIXED_PER_FORCE));
        }
        const bool ok = count_bad == 0 && max_err < 1e-2;
        ref_ok = ref_ok && ok;
        printf("  host brute force, %d sample particles (all N partners): pair counts %s "
               "(%lld differ), largest force difference %.3g (tolerance 1e-2) %s, %.2f s\n",
               samples, count_bad ? "DIFFER" : "equal", count_bad, max_err,
               max_err < 1e-2 ? "ok" : "FAIL", seconds_since(h0));
    }
    Result r;
    snprintf(r.name, sizeof r.name, "reference (both sides) B=%d layout", B);
    r.st = st;
    r.differing = -1;
    r.pairs = ref_pairs;
    r.ok = ref_ok;
    results.push_back(r);
    all_ok = all_ok && ref_ok;

    if (B == 4) {
        run_cellwarp<4, 8>(sys, lay, d, ref, ref_pairs, repeats);
        run_cellwarp<4, 16>(sys, lay, d, ref, ref_pairs, repeats);
    } else {
        run_cellwarp<6, 8>(sys, lay, d, ref, ref_pairs, repeats);
        run_cellwarp<6, 16>(sys, lay, d, ref, ref_pairs, repeats);
    }

    for (int c = 0; c < 3; ++c) {
        ref_by_tag[c].assign(np, 0ull);
        for (int i = 0; i < np; ++i)
            ref_by_tag[c][lay.tag[i]] = ref[c][i];
    }
    count_by_tag.assign(np, 0);
    for (int i = 0; i < np; ++i)
        count_by_tag[lay.tag[i]] = count[i];

    CHECK(cudaFree(d.pos));
    CHECK(cudaFree(d.vel));
    CHECK(cudaFree(d.sig));
    CHECK(cudaFree(d.cell_start));
    CHECK(cudaFree(d.cell_rank));
    CHECK(cudaFree(d.cell_lin));
    CHECK(cudaFree(d.brick_cell_first));
    for (int c = 0; c < 3; ++c) {
        CHECK(cudaFree(d.ref[c]));
        CHECK(cudaFree(d.f[c]));
    }
    CHECK(cudaFree(d.count));
    CHECK(cudaFree(d.block_pairs));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s N REPEATS\n", argv[0]);
        return 2;
    }
    const long long n_arg = atoll(argv[1]);
    const int repeats = atoi(argv[2]);
    if (n_arg < 100 || n_arg > 500000000 || repeats < 1) {
        fprintf(stderr, "dpd_cellwarp: N in [100, 5e8] and REPEATS >= 1\n");
        return 2;
    }
    auto t0 = std::chrono::steady_clock::now();
    System sys;
    sys.n_particles = (int)n_arg;
    const int np = sys.n_particles;
    const double L0 = std::cbrt((double)np / 3.0);
    int k = 0;
    while (L0 * std::ldexp(1.0, k + 1) < 1073741824.0) /* L 2^k < 2^30 */
        ++k;
    long long Lq = std::llround(L0 * std::ldexp(1.0, k));
    if (Lq >= (1ll << 30))
        Lq = (1ll << 30) - 1;
    sys.k = k;
    sys.fr.Lq = (int)Lq;
    sys.fr.half = (int)(Lq / 2);
    sys.fr.quantum = (float)std::ldexp(1.0, -k);
    sys.fr.rc2q = (float)std::ldexp(1.0, 2 * k);
    const double L = (double)Lq * std::ldexp(1.0, -k);
    sys.ncell = (int)std::floor(L);
    const int n = sys.ncell;
    if (n < 3) {
        fprintf(stderr, "dpd_cellwarp: %d cells per axis; the half stencil needs 3 (N >= 81)\n",
                n);
        return 2;
    }
    const vs_dpd_consts c = vs_dpd_make_consts(1.0, 4.5, 1.0, 1.0, 0.04);
    sys.ph.cf = vs_dpd_consts_to_float(&c);
    sys.ph.a = 25.0f;
    sys.ph.key = vs_tea_make_key(20240529ull, 1000ull);

    /* positions (quanta from the corner), velocities, signatures, cells: by tag */
    uint64_t state = 0x5eed5eed12345678ull;
    for (int d = 0; d < 3; ++d)
        sys.u[d].resize(np);
    sys.vel.resize(np);
    sys.sig.resize(np);
    sys.cell_lin.resize(np);
    for (int t = 0; t < np; ++t) {
        int cc[3];
        for (int d = 0; d < 3; ++d) {
            const uint64_t r = splitmix64(state);
            const int u = (int)(((r >> 32) * (uint64_t)Lq) >> 32); /* [0, Lq) */
            sys.u[d][t] = u;
            cc[d] = (int)((long long)u * n / Lq);
        }
        sys.cell_lin[t] = cc[0] + n * (cc[1] + n * cc[2]);
        float v[3];
        for (int d = 0; d < 3; ++d)
            v[d] = (float)((double)(splitmix64(state) >> 40) * (2.0 / 16777216.0) - 1.0);
        sys.vel[t] = make_float4(v[0], v[1], v[2], 0.0f);
        sys.sig[t] = vs_signature_pack(vs_tag_signature(sys.ph.key, (uint64_t)t));
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("dpd_cellwarp: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    printf("N %d, L %.6f (%lld quanta of 2^-%d), rho %.5f, %d cells per axis (side %.5f), "
           "%.3f particles per cell, REPEATS %d, host setup %.2f s\n",
           np, L, Lq, k, np / (L * L * L), n, L / n, np / ((double)n * n * n), repeats,
           seconds_since(t0));

    std::vector<unsigned long long> ref4[3], ref6[3];
    std::vector<int> count4, count6;
    run_layout(sys, 4, repeats, ref4, count4);
    run_layout(sys, 6, repeats, ref6, count6);

    /* the two layouts' references, by tag */
    long long cross = 0;
    for (int c = 0; c < 3; ++c)
        for (int t = 0; t < np; ++t)
            cross += ref4[c][t] != ref6[c][t];
    long long cross_count = 0;
    for (int t = 0; t < np; ++t)
        cross_count += count4[t] != count6[t];
    printf("references of the B=4 and B=6 layouts by tag: differing sums %lld, differing "
           "counts %lld\n",
           cross, cross_count);
    all_ok = all_ok && cross == 0 && cross_count == 0;

    printf("\nsummary, N %d, REPEATS %d (kernel time only, cudaEvents):\n", np, repeats);
    for (const Result &r : results) {
        if (r.differing < 0)
            printf("%s: median %.4f ms, min %.4f ms, pairs %lld, %s\n", r.name, r.st.median,
                   r.st.min, r.pairs, r.ok ? "checks ok" : "CHECK FAILED");
        else
            printf("%s: median %.4f ms, min %.4f ms, differing %lld%s\n", r.name, r.st.median,
                   r.st.min, r.differing, r.ok ? "" : " FAILED");
    }
    printf("%s\n", all_ok ? "PASS" : "FAIL");
    return all_ok ? 0 : 1;
}
