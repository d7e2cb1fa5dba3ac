/* DPD forces on the device (the thermo and integrity reductions are in gpu_reduce.cu).
 *
 * Two kernels, neither with float atomics, both bit-reproducible:
 * - dpd_force_kernel (Verlet lists, and the cell list in double precision): one thread per
 *   owned particle walks its partners and accumulates the force in registers; every pair is
 *   evaluated from both sides, so no thread writes another particle's force. In double the
 *   sum runs in the list's (deterministic) order; in mixed it is fixed point, as below.
 * - dpd_force_newton_kernel (the cell list in mixed precision): each pair once, the
 *   partner's share added to fixed-point integer sums, whose value does not depend on the
 *   order of the adds (see there), the pairs spread evenly over a warp's lanes: half the
 *   pair evaluations of the other kernel, and faster (docs/performance.md has the
 *   measurements). With the overlap on a slab, the ghosts from other ranks are not
 *   in the cell list and dpd_force_remote_kernel adds their pairs to the same sums once they
 *   have arrived.
 *
 * Precision (config `precision`):
 *   double - positions, velocities and pair arithmetic in fp64, the CPU reference's formulas;
 *   mixed  - positions relative to the brick centre staged as 32-bit fixed point (int4 with
 *            the species; see vs_fixed_frame) and predicted velocities as fp32 (float4),
 *            16-byte loads; separations exact, then pair arithmetic in fp32 (vs_dpd_pair_f, the same source
 *            as the double version), accumulation in fixed point (see docs/performance.md).
 * The pair random number is computed from the same 64 TEA bits as on the CPU, from the two
 * particles' signatures (computed once per particle and step); the uniform variant is exact
 * in fp64 and rounded once to fp32 in mixed mode.
 */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpu_internal.cuh"
#include "gpu_partners.cuh"

extern "C" {
#include "tea_rng.h"
#include "timer.h"
}

/* Stage the mixed kernel's inputs: fixed-point position + species, fp32 predicted velocity. */
__global__ void stage_mixed_kernel(int first, int n, vs_fixed_frame frame, const double *x,
                                   const double *y, const double *z, const double *vx,
                                   const double *vy, const double *vz, const int32_t *species,
                                   int4 *pos, float4 *vel)
{
    const int i = first + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= first + n)
        return;
    vs_stage_particle(frame, i, x, y, z, vx, vy, vz, species, pos, vel);
}

void vs_gpu_stage_range(vs_gpu_state *g, int64_t first, int64_t count)
{
    if (g->plan.pos_q_only) /* pos_q holds the positions and vel_f the predicted velocities */
        return;
    VS_LAUNCH(stage_mixed_kernel, count, VS_BLOCK, g->stream, (int)first, (int)count, g->fs.frame,
              g->pt.x[0], g->pt.x[1], g->pt.x[2], g->pt.vp[0], g->pt.vp[1], g->pt.vp[2],
              g->pt.species_id, g->fs.pos_q, g->fs.vel_f);
}

void vs_gpu_stage_positions(vs_gpu_state *g)
{
    vs_gpu_settle_ghosts(g);
    g->stamp.staged = vs_gpu_now(g);
    const int64_t first = vs_gpu_owned_staged(g) ? g->pt.n_owned : 0; /* the first half-step's */
    vs_gpu_stage_range(g, first, g->pt.n_owned + g->pt.n_ghost - first);
}

/* The Newton kernel's sums, cleared by the signature pass that precedes it: the owned
 * particles' three fixed-point force sums, and the marked particle (none: 0x7f7f7f7f, above
 * every index). In that pass the clearing needs no launches of its own: a small system's
 * step is bound by the host's launches, not by bytes. */
struct vs_sum_clear {
    double *f[3]; /* NULL: nothing to clear */
    int32_t *bad;
    int n_owned;
};

/* Each particle's pair-RNG signature at this step (tea_rng.h), for particles [first, first +
 * n); with `clear`, the sums of the owned particles among them too, and the marked particle
 * (the range then starts at 0 and covers every owned particle). */
__global__ void signature_kernel(int first, vs_count count, vs_tea_key key,
                                 const int64_t *tag, uint64_t *sig, vs_sum_clear clear)
{
    const int n = vs_count_get(count);
    VS_FOR_EACH(k, n)
    {
        const int i = first + k;
        sig[i] = vs_signature_pack(vs_tag_signature(key, (uint64_t)tag[i]));
        if (clear.f[0] && i < clear.n_owned) {
            clear.f[0][i] = 0.0;
            clear.f[1][i] = 0.0;
            clear.f[2][i] = 0.0;
        }
        if (clear.f[0] && i == 0)
            *clear.bad = 0x7f7f7f7f;
    }
}

/* Signatures of particles [first, first + count) (`estimate`: the host's idea of count, the
 * grid's size); `clear_sums`: the Newton kernel's sums start at zero too (the range then
 * covers every owned particle). */
static void compute_signatures_of(vs_gpu_state *g, int64_t first, vs_count count,
                                  int64_t estimate, int64_t step, int clear_sums)
{
    vs_sum_clear clear = {{NULL, NULL, NULL}, g->fs.d_bad_force, (int)g->pt.n_owned};
    if (clear_sums) {
        if (first != 0 || count.base < g->pt.n_owned)
            vs_log_fatal(__FILE__, __LINE__, "signatures of [%lld, %lld) cannot clear the sums "
                         "of %lld owned particles", (long long)first,
                         (long long)(first + count.base), (long long)g->pt.n_owned);
        for (int d = 0; d < 3; ++d)
            clear.f[d] = g->pt.f[d];
        if (estimate == 0) /* no launch: the mark alone */
            VS_CUDA_CHECK(cudaMemsetAsync(g->fs.d_bad_force, 0x7f, sizeof(int32_t), g->stream));
    }
    VS_LAUNCH(signature_kernel, estimate, VS_BLOCK, g->stream, (int)first, count,
              vs_tea_make_key(g->prm->system.seed, (uint64_t)step), g->pt.tag, g->fs.sig, clear);
}

static void compute_signatures(vs_gpu_state *g, int64_t first, int64_t count, int64_t step,
                               int clear_sums)
{
    compute_signatures_of(g, first, vs_count_known(count), count, step, clear_sums);
}

/* The mixed-precision pair of particle i (position pi with its species, velocity ui,
 * signature sig_i) with partner j: the separation and the force (dpd_pair.h), the random
 * number from the pair's TEA bits. Both force kernels evaluate pairs here. */
struct vs_mixed_pair {
    float dx, dy, dz;
    vs_pair_result_f r;
};

__device__ __forceinline__ vs_mixed_pair vs_evaluate_mixed_pair(
    const vs_fixed_frame &frame, const vs_dpd_consts_f &cf, vs_tea_key key, int gaussian,
    const int4 &pi, const float4 &ui, uint64_t sig_i, const double *a_row, const int4 *pos_q,
    const float4 *vel_f, const uint64_t *sig, int j)
{
    const int4 pj = pos_q[j];
    const float4 uj = vel_f[j];
    vs_mixed_pair p;
    p.dx = vs_separation(frame, pi.x, pj.x);
    p.dy = vs_separation(frame, pi.y, pj.y);
    p.dz = vs_separation(frame, pi.z, pj.z);
    const float r2 = vs_norm2(p.dx, p.dy, p.dz);
    /* vs_dpd_pair_random_f in two calls: the random number first, then the amplitude's
     * load, in this order (the one call loads the amplitude first, which changes the
     * instruction schedule of every force kernel) */
    const float xi = (float)vs_dpd_xi(key, sig_i, sig[j], gaussian);
    p.r = vs_dpd_pair_f(&cf, r2, p.dx, p.dy, p.dz, ui.x - uj.x, ui.y - uj.y, ui.z - uj.z,
                        (float)a_row[pj.w], xi);
    return p;
}

__device__ __forceinline__ long long vs_force_to_fixed(float v)
{
    return __float2ll_rn(v * (float)VS_FIXED_PER_FORCE);
}

/* The share of a pair's energy or virial v that goes to particle `mine` (signature sig_mine)
 * of a pair with `other`: v rounded to fixed point once, all of it when the pair is counted
 * once (both particles owned by one kernel thread's rank, Newton), otherwise an integer half,
 * the larger to the smaller signature (signatures of distinct tags differ: TEA is a
 * permutation). The two halves, wherever they are added, sum to the pair's one rounded
 * value, so a total does not depend on the decomposition (rn(v/2) + rn(v/2) need not be
 * rn(v)). */
__device__ __forceinline__ long long vs_fixed_share(float v, bool whole, uint64_t sig_mine,
                                                    uint64_t sig_other)
{
    const long long q = __double2ll_rn((double)v * VS_FIXED_PER_FORCE);
    if (whole)
        return q;
    const long long low = q >> 1; /* floor(q / 2) */
    return sig_mine < sig_other ? q - low : low;
}

/* Pairs within r_c are queued per thread (shared memory, one column per thread) before the
 * random number and the force are computed. Evaluated inside the candidate loop, the TEA hash
 * ran whenever any lane of the warp had a hit: with ~45% of list entries (and ~15% of
 * cell-list candidates) within r_c, the warp paid it on almost every candidate. Queued, it
 * runs about as many times as the busiest lane has partners. The sum runs in candidate
 * order, as before, so the forces are bit-identical to evaluating in the loop. */
#define VS_PAIR_QUEUE 32
#define VS_FORCE_BLOCK 128

/* FRESH (CELLS only): the cell list was built this step (no skin), so the cell-order copy
 * holds the current positions and a candidate's position is not loaded again. */
template <bool MIXED, bool ENERGY, bool CELLS, bool FRESH>
__global__ void __launch_bounds__(VS_FORCE_BLOCK)
    dpd_force_kernel(int n, vs_tea_key key, int gaussian, vs_dpd_consts c, vs_dpd_consts_f cf,
                     float rc2_quanta,
                     vs_gpu_species sp, const double *x, const double *y, const double *z,
                     const double *vx, const double *vy, const double *vz, vs_fixed_frame frame,
                     const int4 *pos_q,
                     const float4 *vel_f, const uint64_t *sig, const int32_t *species,
                     vs_partner_source src, const int32_t *subset, double *fx, double *fy,
                     double *fz, double *energy, double *virial)
{
    __shared__ double a_shared[VS_MAX_SPECIES * VS_MAX_SPECIES];
    __shared__ int32_t queue[VS_PAIR_QUEUE][VS_FORCE_BLOCK];
    for (int k = threadIdx.x; k < sp.n * VS_MAX_SPECIES; k += blockDim.x)
        a_shared[k] = sp.a[k / VS_MAX_SPECIES][k % VS_MAX_SPECIES];
    __syncthreads();
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = subset ? subset[k] : k; /* all owned particles, or the listed ones */
    const uint64_t sig_i = sig[i];
    const int si = species[i];
    const double *a_row = a_shared + si * VS_MAX_SPECIES;
    int32_t *my_queue = &queue[0][threadIdx.x];
    double ax = 0.0, ay = 0.0, az = 0.0, e = 0.0, w = 0.0;
    int queued = 0;
    if (MIXED) {
        const int4 pi = pos_q[i];
        const float4 ui = vel_f[i];
        /* fixed point, as the Newton kernel's sums: the same force and energy bits whatever
         * the list's order and whichever rank holds the partner */
        long long qx = 0, qy = 0, qz = 0, qe = 0, qw = 0;
        auto evaluate = [&]() {
            for (int q = 0; q < queued; ++q) {
                const int j = my_queue[VS_FORCE_BLOCK * q];
                const vs_mixed_pair p = vs_evaluate_mixed_pair(
                    frame, cf, key, gaussian, pi, ui, sig_i, a_row, pos_q, vel_f, sig, j);
                const vs_pair_result_f &r = p.r;
                qx += vs_force_to_fixed(r.f_over_r * p.dx);
                qy += vs_force_to_fixed(r.f_over_r * p.dy);
                qz += vs_force_to_fixed(r.f_over_r * p.dz);
                if (ENERGY) {
                    qe += vs_fixed_share(r.energy, false, sig_i, sig[j]);
                    qw += vs_fixed_share(r.virial, false, sig_i, sig[j]);
                }
            }
            queued = 0;
        };
        /* queue the candidates within r_c, tested in quanta (the decisions of the test in
         * lengths, 3 fewer multiplications per candidate); r = 0 is the particle itself */
        vs_for_each_candidate<CELLS>(src, i, [&](int j, const int4 &entry) {
            const int4 pj = FRESH ? entry : pos_q[j];
            const float qx = vs_separation_quanta(pi.x, pj.x),
                        qy = vs_separation_quanta(pi.y, pj.y),
                        qz = vs_separation_quanta(pi.z, pj.z);
            const float r2q = vs_norm2(qx, qy, qz);
            if (r2q < rc2_quanta && r2q != 0.0f) {
                my_queue[VS_FORCE_BLOCK * queued++] = j;
                if (queued == VS_PAIR_QUEUE) /* rare: a full queue */
                    evaluate();
            }
        });
        evaluate();
        const double unit = 1.0 / VS_FIXED_PER_FORCE;
        fx[i] = (double)(qx + __double2ll_rn(sp.body_force[si][0] * VS_FIXED_PER_FORCE)) * unit;
        fy[i] = (double)(qy + __double2ll_rn(sp.body_force[si][1] * VS_FIXED_PER_FORCE)) * unit;
        fz[i] = (double)(qz + __double2ll_rn(sp.body_force[si][2] * VS_FIXED_PER_FORCE)) * unit;
        if (ENERGY) {
            energy[i] = (double)qe * unit;
            virial[i] = (double)qw * unit;
        }
        return;
    } else {
        const double xi_ = x[i], yi = y[i], zi = z[i], ux = vx[i], uy = vy[i], uz = vz[i];
        auto evaluate = [&]() {
            for (int q = 0; q < queued; ++q) {
                const int j = my_queue[VS_FORCE_BLOCK * q];
                const double dx = xi_ - x[j], dy = yi - y[j], dz = zi - z[j];
                const double r2 = vs_norm2(dx, dy, dz);
                /* vs_dpd_pair_random in two calls, as above (one call: 2 registers fewer
                 * here, a different schedule) */
                const double xi = vs_dpd_xi(key, sig_i, sig[j], gaussian);
                const vs_pair_result r = vs_dpd_pair(&c, r2, dx, dy, dz, ux - vx[j],
                                                     uy - vy[j], uz - vz[j],
                                                     a_row[species[j]], xi);
                ax += r.f_over_r * dx;
                ay += r.f_over_r * dy;
                az += r.f_over_r * dz;
                if (ENERGY) {
                    e += 0.5 * r.energy;
                    w += 0.5 * r.virial;
                }
            }
            queued = 0;
        };
        vs_for_each_candidate<CELLS>(src, i, [&](int j, const int4 &) {
            const double dx = xi_ - x[j], dy = yi - y[j], dz = zi - z[j];
            const double r2 = vs_norm2(dx, dy, dz);
            if (r2 < c.rc2 && r2 != 0.0) {
                my_queue[VS_FORCE_BLOCK * queued++] = j;
                if (queued == VS_PAIR_QUEUE)
                    evaluate();
            }
        });
        evaluate();
    }
    fx[i] = sp.body_force[si][0] + ax;
    fy[i] = sp.body_force[si][1] + ay;
    fz[i] = sp.body_force[si][2] + az;
    if (ENERGY) {
        energy[i] = e;
        virial[i] = w;
    }
}

/* ---- Newton's third law: every pair once (mixed precision, cell-list forces) ----
 *
 * The thread of particle i, the k-th entry of the cell list, walks half of its stencil: the
 * rest of its own row after entry k, and the four rows above it (dz = 1, or dz = 0 and
 * dy = 1). A pair's two particles see each other in opposite rows, and in the own row only
 * the earlier entry walks on to the later, so each pair within r_c is found exactly once;
 * both particles receive it. Ghosts have threads too (a ghost in the lower half of an owned
 * particle's stencil finds that pair), but only owned particles receive forces.
 *
 * The sums are fixed point, 2^32 quanta per force unit in 64-bit integers: integer addition
 * is associative, so the order in which threads add does not change a bit (bit-identical
 * runs without a fixed order), and a pair enters its two particles as exactly +q and -q.
 * A pair force computed from j's side is the exact negative of i's (dpd_pair.h), so a
 * particle's force does not depend on which of the two threads evaluated the pair either.
 * The rounding to 2^-32 (2.3e-10) is far below the fp32 pair arithmetic's. Threads run in
 * particle order, which the periodic Morton reordering makes compact in space: a block's
 * particles are a small cluster, and about 70% of the partners (256 threads, rho = 3,
 * computed) are the block's own particles, whose sums are kept in shared memory; the
 * others', and the block's sums at the end, are added to the global sums with 64-bit
 * integer atomics (global atomics alone kept the L2 70% busy, and 64-bit shared atomics
 * compile to compare-and-swap loops; docs/performance.md has the measurements). A pair
 * component that is not finite or beyond 2^24 (a run that has blown up) marks its particle,
 * whose force is then NaN for the integrity check to report. */
#define VS_PAIR_COMPONENT_LIMIT 16777216.0f /* 2^24 */
#define VS_NEWTON_BLOCK 256
#define VS_NEWTON_MIN_BLOCKS 4 /* 64 registers */

/* q added to a 64-bit sum in shared memory kept as two 32-bit words: shared-memory atomics
 * are native for 32 bits (a 64-bit one is a compare-and-swap loop). The add that wraps the
 * low word sees it (the old value it gets back plus its own exceeds 2^32) and carries one
 * into the high word, so the pair of words holds the exact sum modulo 2^64. */
__device__ __forceinline__ void vs_shared_add64(unsigned *lo_word, unsigned *hi_word,
                                                long long q)
{
    const unsigned lo = (unsigned)q, hi = (unsigned)((unsigned long long)q >> 32);
    const unsigned old = atomicAdd(lo_word, lo);
    atomicAdd(hi_word, hi + (old + lo < old ? 1u : 0u));
}

/* Pairs are found and evaluated apart. A lane queues the pairs within r_c that it finds
 * (its column of a shared queue); then the whole warp evaluates the warp's queued pairs in
 * rounds of 32, whichever lane found them (vs_newton_rounds: lane l of round r takes the
 * (32 r + l)-th in depth-first order). Each lane evaluating its own queue, the warp paid for
 * as many rounds as its busiest lane had pairs, about twice the rounds the warp's pairs need
 * at rho = 3 (docs/performance.md has the counts and the times). The fixed-point sums make the
 * evaluating lane irrelevant to the result (the trajectories are bit-identical to the
 * lane's own evaluation), so the particle's own share goes to its shared sums too, and with
 * ENERGY so do its energy and virial, in fixed point as well, so that their sums are
 * order-free. */
#define VS_NEWTON_QUEUE 24 /* pairs per lane (mean 6.3 at rho = 3); fits 48 kB of shared */
#define VS_NEWTON_UNROLL 3 /* candidates per iteration of the walk (docs/performance.md) */
/* One stencil row of the Newton kernel's walk, cell-list entries [m, end): the candidates
 * within r_c go to this lane's column of the shared queue (my_queue, `queued` of them), a
 * full queue is emptied at once through evaluate(slot, j) (rare). */
template <bool FRESH, typename Evaluate>
__device__ __forceinline__ void vs_newton_scan_row(uint32_t m, uint32_t end, const int4 &pi,
                                                   bool owned_i, int n_owned, float rc2_quanta,
                                                   const int4 *pos_q, const int4 *cell_pos,
                                                   int32_t *my_queue, int &queued,
                                                   Evaluate &evaluate)
{
    constexpr int queue_stride = VS_NEWTON_BLOCK;
    /* a candidate: queued when within r_c (a predicated store, no branch) */
    auto consider = [&](const int4 &entry) {
        const int j = entry.w;
        const int4 pj = FRESH ? entry : pos_q[j];
        const float qx = vs_separation_quanta(pi.x, pj.x), qy = vs_separation_quanta(pi.y, pj.y),
                    qz = vs_separation_quanta(pi.z, pj.z);
        const float r2q = vs_norm2(qx, qy, qz);
        const bool hit = r2q < rc2_quanta && r2q != 0.0f && (owned_i || j < n_owned);
        if (hit)
            my_queue[queue_stride * queued] = j;
        queued += hit;
    };
    /* VS_NEWTON_UNROLL candidates per iteration, all loads in flight before any is used; the
     * queue keeps room for as many more, or the lane empties it at once (rare) */
    for (; m < end; m += VS_NEWTON_UNROLL) {
        int4 entry[VS_NEWTON_UNROLL];
#pragma unroll
        for (int u = 0; u < VS_NEWTON_UNROLL; ++u)
            entry[u] = u == 0 || m + u < end ? cell_pos[m + u] : entry[0];
#pragma unroll
        for (int u = 0; u < VS_NEWTON_UNROLL; ++u)
            if (u == 0 || m + u < end)
                consider(entry[u]);
        if (queued > VS_NEWTON_QUEUE - VS_NEWTON_UNROLL) {
            for (int q = 0; q < queued; ++q)
                evaluate(threadIdx.x, my_queue[queue_stride * q]);
            queued = 0;
        }
    }
}

/* The position of the n-th (from 0) set bit of mask, which has more than n set. */
__device__ __forceinline__ int vs_nth_set_bit(unsigned mask, int n)
{
    int position = 0;
#pragma unroll
    for (int width = 16; width >= 1; width >>= 1) {
        const int below = __popc(mask & ((1u << width) - 1u));
        if (n >= below) {
            n -= below;
            mask >>= width;
            position += width;
        }
    }
    return position;
}

/* The warp's queued pairs in rounds of 32, taken depth first: all lanes' first queued pairs,
 * then all second ones, and so on. Lane l of round r takes pair t = 32 r + l: the depth d
 * whose range holds t (a binary search over the depths' inclusive prefix sums, depth d's
 * count kept by lane d), then the finder, the (t - start of d)-th lane of those queuing more
 * than d. The lanes of one round thus evaluate pairs of different finders, so the adds to
 * the finders' shared sums go to distinct words (finder-major rounds gave the ~6 lanes of one
 * finder the same addresses, and shared atomics on one address serialise). */
template <typename Evaluate>
__device__ __forceinline__ void vs_newton_rounds(int lane, int warp_first, int queued,
                                                 int32_t (*queue)[VS_NEWTON_BLOCK],
                                                 Evaluate &evaluate)
{
    unsigned depth_lanes = 0u; /* lane d: the lanes queuing more than d pairs */
    for (int d = 0; d < VS_NEWTON_QUEUE; ++d) {
        const unsigned deeper = __ballot_sync(0xffffffffu, queued > d);
        if (deeper == 0u)
            break;
        if (lane == d)
            depth_lanes = deeper;
    }
    const int count = __popc(depth_lanes);
    const int inclusive = vs_warp_inclusive_sum(count, lane);
    const int total = __shfl_sync(0xffffffffu, inclusive, 31);
    for (int round = 0; round < total; round += 32) {
        const int t = round + lane;
        int depth = 0;
        for (int step = 16; step >= 1; step >>= 1) {
            const int v = __shfl_sync(0xffffffffu, inclusive, depth + step - 1);
            if (v <= t)
                depth += step;
        }
        depth &= 31;
        const int before = __shfl_sync(0xffffffffu, inclusive - count, depth);
        const unsigned lanes = __shfl_sync(0xffffffffu, depth_lanes, depth);
        if (t < total) {
            const int slot = warp_first + vs_nth_set_bit(lanes, t - before);
            evaluate(slot, queue[depth][slot]);
        }
    }
}

/* The block's sums of this thread's particle i out: its force (with the body force) added
 * to the global fixed-point sums (other blocks add to them too), its energy and virial
 * (ENERGY) stored. */
template <bool ENERGY, int N_SUMS>
__device__ __forceinline__ void vs_newton_store(int i, int n_owned, bool active,
                                                const vs_gpu_species &sp,
                                                const int4 *block_pos,
                                                unsigned (*block_lo)[VS_NEWTON_BLOCK],
                                                unsigned (*block_hi)[VS_NEWTON_BLOCK],
                                                unsigned long long *fx, unsigned long long *fy,
                                                unsigned long long *fz, double *energy,
                                                double *virial)
{
    /* this thread's particle's sum d, as the 64-bit integer of its two words */
    auto block_sum = [&](int d) {
        return (unsigned long long)block_hi[d][threadIdx.x] << 32 | block_lo[d][threadIdx.x];
    };
    if (i < n_owned) {
        const int si = block_pos[threadIdx.x].w;
        unsigned long long *f[3] = {fx, fy, fz};
#pragma unroll
        for (int d = 0; d < 3; ++d) {
            const long long body = __double2ll_rn(sp.body_force[si][d] * VS_FIXED_PER_FORCE);
            atomicAdd(f[d] + i, block_sum(d) + (unsigned long long)body);
        }
    }
    if (ENERGY && active) {
        energy[i] = (double)(long long)block_sum(N_SUMS - 2) * (1.0 / VS_FIXED_PER_FORCE);
        virial[i] = (double)(long long)block_sum(N_SUMS - 1) * (1.0 / VS_FIXED_PER_FORCE);
    }
}

/* The Newton kernel's candidates from particle i's half list (LIST: the pairs the half
 * stencil held within the list radius at the build, vs_gpu_build_neighbors), queued as
 * vs_newton_scan_row queues them: within r_c now. */
template <typename Evaluate>
__device__ __forceinline__ void vs_newton_scan_list(int i, const int32_t *nlist,
                                                    const int32_t *ncount, int64_t stride,
                                                    const int4 &pi, float rc2_quanta,
                                                    const int4 *pos_q, int32_t *my_queue,
                                                    int &queued, Evaluate &evaluate)
{
    constexpr int queue_stride = VS_NEWTON_BLOCK;
    auto consider = [&](int j) {
        const int4 pj = pos_q[j];
        const float r2q = vs_norm2(vs_separation_quanta(pi.x, pj.x),
                                   vs_separation_quanta(pi.y, pj.y),
                                   vs_separation_quanta(pi.z, pj.z));
        const bool hit = r2q < rc2_quanta && r2q != 0.0f;
        if (hit)
            my_queue[queue_stride * queued] = j;
        queued += hit;
    };
    const int count = ncount[i];
    const int4 *list4 = (const int4 *)nlist;
    for (int m = 0; m < count; m += 4) {
        const int4 group = list4[vs_list_group(stride, i, m >> 2)];
        consider(group.x);
        if (m + 1 < count)
            consider(group.y);
        if (m + 2 < count)
            consider(group.z);
        if (m + 3 < count)
            consider(group.w);
        if (queued > VS_NEWTON_QUEUE - 4) { /* rare: room for a group no more */
            for (int q = 0; q < queued; ++q)
                evaluate(threadIdx.x, my_queue[queue_stride * q]);
            queued = 0;
        }
    }
}

template <bool ENERGY, bool FRESH, bool LIST, bool TILED>
__global__ void __launch_bounds__(VS_NEWTON_BLOCK, VS_NEWTON_MIN_BLOCKS)
    dpd_force_newton_kernel(vs_count listed, int n_owned, vs_tea_key key, int gaussian,
                            vs_dpd_consts_f cf, float rc2_quanta, vs_gpu_species sp,
                            vs_fixed_frame frame, const int4 *pos_q, const float4 *vel_f,
                            const uint64_t *sig, vs_gpu_grid grid, const uint32_t *cell_start,
                            const int4 *cell_pos, const int32_t *cell_rank, float row_cut2,
                            const int32_t *nlist, const int32_t *ncount, int64_t stride,
                            unsigned long long *fx, unsigned long long *fy,
                            unsigned long long *fz, double *energy, double *virial,
                            int32_t *bad)
{
    constexpr int n_sums = ENERGY ? 5 : 3; /* fx, fy, fz[, energy, virial] */
    __shared__ double a_shared[VS_MAX_SPECIES * VS_MAX_SPECIES];
    /* one column per lane, unpadded: a lane's queue writes and a depth-first round's reads
     * (one depth, distinct finders) each fall in distinct banks */
    __shared__ int32_t queue[VS_NEWTON_QUEUE][VS_NEWTON_BLOCK];
    /* the block's own particles, read by whichever lane evaluates their pairs */
    __shared__ int4 block_pos[VS_NEWTON_BLOCK];
    __shared__ float4 block_vel[VS_NEWTON_BLOCK];
    __shared__ uint64_t block_sig[VS_NEWTON_BLOCK];
    /* the block's particles' sums: low and high words (vs_shared_add64) */
    __shared__ unsigned block_lo[n_sums][VS_NEWTON_BLOCK], block_hi[n_sums][VS_NEWTON_BLOCK];
    for (int k = threadIdx.x; k < sp.n * VS_MAX_SPECIES; k += blockDim.x)
        a_shared[k] = sp.a[k / VS_MAX_SPECIES][k % VS_MAX_SPECIES];
    const int n_all = TILED ? vs_count_get(listed) : listed.base;
    const int lane = threadIdx.x % 32, warp_first = threadIdx.x - lane;
    /* a tile of VS_NEWTON_BLOCK particles per block; TILED: more than one where the grid is
     * smaller than the count (the host's estimate of a count on the device), else the grid
     * covers the count and the loop runs once (its registers stay free) */
    for (int first = blockIdx.x * VS_NEWTON_BLOCK; first < n_all;
         first += gridDim.x * VS_NEWTON_BLOCK) {
        for (int d = 0; d < n_sums; ++d)
            block_lo[d][threadIdx.x] = block_hi[d][threadIdx.x] = 0u;
        const int i = first + threadIdx.x;
        const bool active = i < n_all;
        int4 pi = make_int4(0, 0, 0, 0);
        if (active) {
            pi = pos_q[i];
            block_pos[threadIdx.x] = pi;
            block_vel[threadIdx.x] = vel_f[i];
            block_sig[threadIdx.x] = sig[i];
        }
        __syncthreads();

        /* the pair of the block's particle in `slot` with particle j */
        auto evaluate = [&](int slot, int j) {
            const int4 ps = block_pos[slot];
            const vs_mixed_pair p =
                vs_evaluate_mixed_pair(frame, cf, key, gaussian, ps, block_vel[slot],
                                       block_sig[slot], a_shared + ps.w * VS_MAX_SPECIES, pos_q,
                                       vel_f, sig, j);
            const vs_pair_result_f &r = p.r;
            const float gx = r.f_over_r * p.dx, gy = r.f_over_r * p.dy, gz = r.f_over_r * p.dz;
            const bool owned_s = first + slot < n_owned, owned_j = j < n_owned;
            if (!(fabsf(gx) < VS_PAIR_COMPONENT_LIMIT && fabsf(gy) < VS_PAIR_COMPONENT_LIMIT &&
                  fabsf(gz) < VS_PAIR_COMPONENT_LIMIT))
                atomicMin(bad, owned_s ? first + slot : j); /* rare: a blown-up run */
            const long long qx = vs_force_to_fixed(gx), qy = vs_force_to_fixed(gy),
                            qz = vs_force_to_fixed(gz);
            if (owned_s) {
                vs_shared_add64(&block_lo[0][slot], &block_hi[0][slot], qx);
                vs_shared_add64(&block_lo[1][slot], &block_hi[1][slot], qy);
                vs_shared_add64(&block_lo[2][slot], &block_hi[2][slot], qz);
            }
            const unsigned slot_j = (unsigned)(j - first);
            if (slot_j < VS_NEWTON_BLOCK) {
                vs_shared_add64(&block_lo[0][slot_j], &block_hi[0][slot_j], -qx);
                vs_shared_add64(&block_lo[1][slot_j], &block_hi[1][slot_j], -qy);
                vs_shared_add64(&block_lo[2][slot_j], &block_hi[2][slot_j], -qz);
            } else if (owned_j) {
                atomicAdd(fx + j, (unsigned long long)-qx);
                atomicAdd(fy + j, (unsigned long long)-qy);
                atomicAdd(fz + j, (unsigned long long)-qz);
            }
            if (ENERGY) { /* to the slot's particle: the pair, or the owned particle's half */
                const bool whole = owned_s && owned_j;
                const uint64_t sig_s = block_sig[slot], sig_j = sig[j];
                const uint64_t mine = owned_s ? sig_s : sig_j, other = owned_s ? sig_j : sig_s;
                vs_shared_add64(&block_lo[n_sums - 2][slot], &block_hi[n_sums - 2][slot],
                                vs_fixed_share(r.energy, whole, mine, other));
                vs_shared_add64(&block_lo[n_sums - 1][slot], &block_hi[n_sums - 1][slot],
                                vs_fixed_share(r.virial, whole, mine, other));
            }
        };

        int32_t *my_queue = &queue[0][threadIdx.x];
        int queued = 0;
        if (active && LIST) {
            vs_newton_scan_list(i, nlist, ncount, stride, pi, rc2_quanta, pos_q, my_queue, queued,
                                evaluate);
        } else if (active) {
            const bool owned_i = i < n_owned;
            const uint32_t k = (uint32_t)cell_rank[i];
            /* the half stencil around the cell the cell list holds it in */
            vs_newton_half_rows(grid, cell_start, cell_pos[k], k, row_cut2,
                                [&](uint32_t first, uint32_t end) {
                                    vs_newton_scan_row<FRESH>(first, end, pi, owned_i, n_owned,
                                                              rc2_quanta, pos_q, cell_pos,
                                                              my_queue, queued, evaluate);
                                });
        }
        __syncwarp();
        vs_newton_rounds(lane, warp_first, queued, queue, evaluate);
        __syncthreads();
        vs_newton_store<ENERGY, n_sums>(i, n_owned, active, sp, block_pos, block_lo, block_hi, fx,
                                        fy, fz, energy, virial);
        if (!TILED)
            break;
        __syncthreads(); /* the next tile reuses the shared arrays */
    }
}

/* The pairs of the remote ghosts (those that came from another rank: particles
 * [first, first + n)) with owned particles, when the cell list holds only the owned
 * particles and their local images (VS_GPU_OVERLAP_REMOTE_APART): the
 * ghosts arrive while the Newton kernel runs over the listed particles, then each walks the
 * full 3 x 3-row stencil around its own cell for owned partners. Each such pair is found
 * here once (the listed particles never see a remote ghost), evaluated with the ghost as
 * particle i (exactly the negated pair of the owned side: dpd_pair.h), and added to the
 * owned particle's fixed-point sums, so the forces are bit-identical to the Newton kernel's
 * over everything. The ghost keeps the owned particle's half of each pair's energy and
 * virial, as there (vs_fixed_share). */
template <bool ENERGY, bool FRESH>
__global__ void __launch_bounds__(VS_BLOCK)
    dpd_force_remote_kernel(int first, int n, int n_owned, vs_tea_key key, int gaussian,
                            vs_dpd_consts_f cf, float rc2_quanta, vs_gpu_species sp,
                            vs_fixed_frame frame, const int4 *pos_q, const float4 *vel_f,
                            const uint64_t *sig, vs_gpu_grid grid, const uint32_t *cell_start,
                            const int4 *cell_pos, float row_cut2, unsigned long long *fx,
                            unsigned long long *fy, unsigned long long *fz, double *energy,
                            double *virial, int32_t *bad)
{
    __shared__ double a_shared[VS_MAX_SPECIES * VS_MAX_SPECIES];
    for (int k = threadIdx.x; k < sp.n * VS_MAX_SPECIES; k += blockDim.x)
        a_shared[k] = sp.a[k / VS_MAX_SPECIES][k % VS_MAX_SPECIES];
    __syncthreads();
    const int i = first + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= first + n)
        return;
    const int4 pi = pos_q[i];
    const float4 ui = vel_f[i];
    const uint64_t sig_i = sig[i];
    /* the cell of its current position: at skin 0 the listed particles are where the list
     * put them; with a skin, rows trimmed to the list radius around the ghost now still
     * reach every partner's cell at the build (each moved less than half the skin) */
    int c[3];
    float frac[3];
    vs_cell_of_q(grid, pi, c, frac);
    long long energy_sum = 0, virial_sum = 0;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy) {
            int first_cell, last_cell;
            if (!vs_stencil_row(grid, c, frac, row_cut2, dy, dz, &first_cell, &last_cell))
                continue;
            const uint32_t end = cell_start[last_cell + 1];
            for (uint32_t m = cell_start[first_cell]; m < end; ++m) {
                const int4 entry = cell_pos[m];
                const int j = entry.w;
                if (j >= n_owned) /* a local image: a pair of two ghosts */
                    continue;
                const int4 pj = FRESH ? entry : pos_q[j];
                const float r2q = vs_norm2(vs_separation_quanta(pi.x, pj.x),
                                           vs_separation_quanta(pi.y, pj.y),
                                           vs_separation_quanta(pi.z, pj.z));
                if (!(r2q < rc2_quanta && r2q != 0.0f))
                    continue;
                const vs_mixed_pair p =
                    vs_evaluate_mixed_pair(frame, cf, key, gaussian, pi, ui, sig_i,
                                           a_shared + pi.w * VS_MAX_SPECIES, pos_q, vel_f, sig, j);
                const float gx = p.r.f_over_r * p.dx, gy = p.r.f_over_r * p.dy,
                            gz = p.r.f_over_r * p.dz;
                if (!(fabsf(gx) < VS_PAIR_COMPONENT_LIMIT && fabsf(gy) < VS_PAIR_COMPONENT_LIMIT &&
                      fabsf(gz) < VS_PAIR_COMPONENT_LIMIT))
                    atomicMin(bad, j);
                atomicAdd(fx + j, (unsigned long long)-vs_force_to_fixed(gx));
                atomicAdd(fy + j, (unsigned long long)-vs_force_to_fixed(gy));
                atomicAdd(fz + j, (unsigned long long)-vs_force_to_fixed(gz));
                if (ENERGY) { /* the owned particle's half */
                    energy_sum += vs_fixed_share(p.r.energy, false, sig[j], sig_i);
                    virial_sum += vs_fixed_share(p.r.virial, false, sig[j], sig_i);
                }
            }
        }
    if (ENERGY) {
        energy[i] = (double)energy_sum * (1.0 / VS_FIXED_PER_FORCE);
        virial[i] = (double)virial_sum * (1.0 / VS_FIXED_PER_FORCE);
    }
}

/* The fixed-point sums become doubles, in place (before the forces leave the device). */
__global__ void forces_from_fixed_kernel(int n, const int32_t *bad, double *fx, double *fy,
                                         double *fz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double *f[3] = {fx, fy, fz};
    for (int d = 0; d < 3; ++d)
        f[d][i] = vs_force_at(f[d], i, bad);
}

void vs_gpu_forces_to_double(vs_gpu_state *g)
{
    if (!g->fs.forces_fixed)
        return;
    VS_LAUNCH(forces_from_fixed_kernel, g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned,
              g->fs.d_bad_force, g->pt.f[0], g->pt.f[1], g->pt.f[2]);
    g->fs.forces_fixed = 0;
}

/* The pairs among the particles in the cell list, each once (dpd_force_newton_kernel), on
 * `stream`; with `remote`, instead those of the ghosts beyond it (dpd_force_remote_kernel). */
static void launch_newton_part(vs_gpu_state *g, cudaStream_t stream, int remote, int64_t step,
                               int want_energy)
{
    const int n = (int)g->pt.n_owned, n_listed = (int)g->cells.n_listed;
    const int n_remote = (int)(g->pt.n_owned + g->pt.n_ghost - g->cells.n_listed);
    const vs_count listed = vs_gpu_listed(g);
    const int64_t listed_estimate = vs_gpu_listed_estimate(g);
    const vs_tea_key key = vs_tea_make_key(g->prm->system.seed, (uint64_t)step);
    const int gaussian = g->prm->dpd.random == VS_RANDOM_GAUSSIAN;
    const float rc2_quanta =
        (float)((double)g->dpd_f.rc2 * g->fs.frame.inv_quantum * g->fs.frame.inv_quantum);
    unsigned long long *f[3];
    for (int d = 0; d < 3; ++d)
        f[d] = (unsigned long long *)g->pt.f[d];
#define VS_NEWTON_LAUNCH(E, F, L, T)                                                               \
    do {                                                                                           \
        if (remote)                                                                                \
            VS_LAUNCH((dpd_force_remote_kernel<E, F>), n_remote, VS_BLOCK, stream, n_listed,       \
                      n_remote, n, key, gaussian, g->dpd_f, rc2_quanta, g->species, g->fs.frame,   \
                      g->fs.pos_q, g->fs.vel_f, g->fs.sig, g->cells.grid, g->cells.cell_start,     \
                      g->cells.cell_pos, vs_row_cut2(g->list_cutoff), f[0], f[1], f[2],            \
                      vs_gpu_energy_buf(g), vs_gpu_virial_buf(g), g->fs.d_bad_force);              \
        else                                                                                       \
            VS_LAUNCH((dpd_force_newton_kernel<E, F, L, T>), listed_estimate, VS_NEWTON_BLOCK,     \
                      stream, listed, n, key, gaussian, g->dpd_f, rc2_quanta, g->species,          \
                      g->fs.frame, g->fs.pos_q, g->fs.vel_f, g->fs.sig, g->cells.grid,             \
                      g->cells.cell_start,                                                         \
                      g->cells.cell_pos, g->cells.cell_rank, vs_row_cut2(g->list_cutoff),          \
                      g->cells.nlist, g->cells.ncount, g->cells.nl_stride, f[0], f[1], f[2],       \
                      vs_gpu_energy_buf(g), vs_gpu_virial_buf(g), g->fs.d_bad_force);              \
    } while (0)
    /* the half list, or the cell list (holding the current positions without a skin) */
    const int list = g->plan.half_list, fresh = !g->plan.reuse_list && !list;
    if (listed.more && (want_energy || !fresh || remote))
        vs_log_fatal(__FILE__, __LINE__, "the ghosts' number is on the device, but the forces "
                     "want energies or a kept list");
    if (want_energy && list)
        VS_NEWTON_LAUNCH(true, false, true, false);
    else if (want_energy && fresh)
        VS_NEWTON_LAUNCH(true, true, false, false);
    else if (want_energy)
        VS_NEWTON_LAUNCH(true, false, false, false);
    else if (list)
        VS_NEWTON_LAUNCH(false, false, true, false);
    else if (fresh && listed.more)
        VS_NEWTON_LAUNCH(false, true, false, true);
    else if (fresh)
        VS_NEWTON_LAUNCH(false, true, false, false);
    else
        VS_NEWTON_LAUNCH(false, false, false, false);
#undef VS_NEWTON_LAUNCH
    /* the integrator reads the sums as they are (vs_force_at); a download converts them */
    g->fs.forces_fixed = 1;
    /* ghosts' threads hold shares of the owned particles' energy */
    g->fs.energy_count = g->pt.n_owned + g->pt.n_ghost;
}

/* Forces on every owned particle, each pair once: the listed particles' pairs, then the
 * remote ghosts' where the list leaves them out (the signature pass cleared the sums). */
static void launch_newton_forces(vs_gpu_state *g, int64_t step, int want_energy)
{
    launch_newton_part(g, g->stream, 0, step, want_energy);
    if (g->cells.n_listed < g->pt.n_owned + g->pt.n_ghost)
        launch_newton_part(g, g->stream, 1, step, want_energy);
}

/* Forces on `n` owned particles (all of them, or those listed in `subset`) on `stream`. */
static void launch_forces(vs_gpu_state *g, cudaStream_t stream, int n, const int32_t *subset,
                          int64_t step, int want_energy)
{
    const int mixed = g->plan.mixed;
    const vs_tea_key key = vs_tea_make_key(g->prm->system.seed, (uint64_t)step);
    const int gaussian = g->prm->dpd.random == VS_RANDOM_GAUSSIAN;
    const vs_partner_source src = vs_gpu_partner_source(g);
    const int skin = g->plan.reuse_list;
    const int cells = g->plan.forces != VS_GPU_FORCES_VERLET; /* partners from the cell list */
    const float rc2_quanta =
        (float)((double)g->dpd_f.rc2 * g->fs.frame.inv_quantum * g->fs.frame.inv_quantum);
#define VS_FORCE_ARGS                                                                              \
    n, key, gaussian, g->dpd, g->dpd_f, rc2_quanta, g->species, g->pt.x[0], g->pt.x[1],            \
        g->pt.x[2], g->pt.vp[0], g->pt.vp[1], g->pt.vp[2], g->fs.frame, g->fs.pos_q, g->fs.vel_f,  \
        g->fs.sig, g->pt.species_id, src, subset, g->pt.f[0], g->pt.f[1], g->pt.f[2],              \
        vs_gpu_energy_buf(g), vs_gpu_virial_buf(g)
#define VS_FORCE_LAUNCH(M, E, C, F)                                                            \
    VS_LAUNCH((dpd_force_kernel<M, E, C, F>), n, VS_FORCE_BLOCK, stream, VS_FORCE_ARGS)
#define VS_FORCE_LAUNCH_ME(C, F)                                                               \
    do {                                                                                       \
        if (mixed && want_energy)                                                              \
            VS_FORCE_LAUNCH(true, true, C, F);                                                 \
        else if (mixed)                                                                        \
            VS_FORCE_LAUNCH(true, false, C, F);                                                \
        else if (want_energy)                                                                  \
            VS_FORCE_LAUNCH(false, true, C, F);                                                \
        else                                                                                   \
            VS_FORCE_LAUNCH(false, false, C, F);                                               \
    } while (0)
    if (cells && !skin)
        VS_FORCE_LAUNCH_ME(true, true);
    else if (cells)
        VS_FORCE_LAUNCH_ME(true, false);
    else
        VS_FORCE_LAUNCH_ME(false, false);
#undef VS_FORCE_LAUNCH_ME
#undef VS_FORCE_LAUNCH
#undef VS_FORCE_ARGS
}

extern "C" void vs_gpu_forces(vs_gpu_state *g, int64_t step, int want_energy)
{
    /* a rebuild staged this step's inputs already (vs_gpu_build_neighbors) */
    if (g->plan.mixed && !vs_gpu_all_staged(g))
        vs_gpu_stage_positions(g);
    const int newton = g->plan.forces == VS_GPU_FORCES_NEWTON;
    if (want_energy) /* the energies' count: read the ghosts' number where it stayed */
        vs_gpu_settle_ghosts(g);
    if (g->halo.ghosts_on_device) /* the cell list holds every owned particle and ghost */
        compute_signatures_of(g, 0, vs_gpu_listed(g), vs_gpu_listed_estimate(g), step, newton);
    else
        compute_signatures(g, 0, g->pt.n_owned + g->pt.n_ghost, step, newton);
    if (newton) {
        launch_newton_forces(g, step, want_energy);
    } else {
        launch_forces(g, g->stream, (int)g->pt.n_owned, NULL, step, want_energy);
        g->fs.energy_count = g->pt.n_owned;
        g->fs.forces_fixed = 0;
    }
    vs_gpu_forces_done(g, want_energy);
}

extern "C" int vs_gpu_can_overlap(const vs_gpu_state *g)
{
    return g->plan.overlap != VS_GPU_OVERLAP_NONE;
}

/* The overlap of the cell list (VS_GPU_OVERLAP_REMOTE_APART): the local images are refreshed,
 * then
 * the pairs among the listed particles (owned and local images) run on the bulk stream
 * while the remote ghosts travel in the step's stream, which then adds their pairs. Comm is
 * the local images' refresh and the exchange; hidden, the part of the exchange that ran
 * under the listed pairs. */
static void update_remote_and_forces(vs_gpu_state *g, int64_t step, int want_energy,
                                     double *comm_s, double *hidden_s)
{
    const int64_t n_listed = g->cells.n_listed, n_all = g->pt.n_owned + g->pt.n_ghost;
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_start, g->stream));
    vs_gpu_update_local_images(g);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_local, g->stream));
    const int64_t first = vs_gpu_owned_staged(g) ? g->pt.n_owned : 0; /* the first half-step's */
    vs_gpu_stage_range(g, first, n_listed - first);
    compute_signatures(g, 0, n_listed, step, 1);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_go, g->stream));
    VS_CUDA_CHECK(cudaStreamWaitEvent(g->ovl.bulk, g->ovl.ev_go, 0));
    launch_newton_part(g, g->ovl.bulk, 0, step, want_energy);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_interior, g->ovl.bulk));
    vs_gpu_update_remote_images(g);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_comm, g->stream));
    vs_gpu_stage_range(g, n_listed, n_all - n_listed);
    compute_signatures(g, n_listed, n_all - n_listed, step, 0);
    launch_newton_part(g, g->stream, 1, step, want_energy);
    VS_CUDA_CHECK(cudaStreamWaitEvent(g->stream, g->ovl.ev_interior, 0));
    vs_gpu_forces_done(g, want_energy);
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    float local_ms = 0.0f, exchange_ms = 0.0f, listed_ms = 0.0f;
    VS_CUDA_CHECK(cudaEventElapsedTime(&local_ms, g->ovl.ev_start, g->ovl.ev_local));
    VS_CUDA_CHECK(cudaEventElapsedTime(&exchange_ms, g->ovl.ev_go, g->ovl.ev_comm));
    VS_CUDA_CHECK(cudaEventElapsedTime(&listed_ms, g->ovl.ev_go, g->ovl.ev_interior));
    *comm_s = 1e-3 * ((double)local_ms + (double)exchange_ms);
    *hidden_s = 1e-3 * (double)(listed_ms < exchange_ms ? listed_ms : exchange_ms);
}

extern "C" void vs_gpu_update_ghosts_and_forces(vs_gpu_state *g, int64_t step,
                                                int want_energy, double *comm_s,
                                                double *hidden_s)
{
    if (g->plan.overlap == VS_GPU_OVERLAP_REMOTE_APART) {
        update_remote_and_forces(g, step, want_energy, comm_s, hidden_s);
        return;
    }
    const int mixed = g->plan.mixed;
    if (g->stamp.split != g->ver.list) /* once per list, and only for lists that are reused */
        vs_gpu_split_interior(g);
    /* interior particles need only owned inputs, staged before the ghosts move (by the
     * first half-step, unless something moved them since) */
    if (mixed && !vs_gpu_owned_staged(g))
        vs_gpu_stage_range(g, 0, g->pt.n_owned);
    compute_signatures(g, 0, g->pt.n_owned, step, 0);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_start, g->stream));
    VS_CUDA_CHECK(cudaStreamWaitEvent(g->ovl.bulk, g->ovl.ev_start, 0));
    launch_forces(g, g->ovl.bulk, (int)g->ovl.n_interior, g->ovl.split_idx, step, want_energy);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_interior, g->ovl.bulk));
    /* the ghost exchange runs in this stream while the interior forces run in the other;
     * its time is the device's, from the start to the ghosts unpacked */
    vs_gpu_update_ghosts(g);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_comm, g->stream));
    if (mixed)
        vs_gpu_stage_range(g, g->pt.n_owned, g->pt.n_ghost);
    compute_signatures(g, g->pt.n_owned, g->pt.n_ghost, step, 0);
    launch_forces(g, g->stream, (int)g->ovl.n_border, g->ovl.split_idx + g->ovl.n_interior, step,
                  want_energy);
    vs_gpu_forces_done(g, want_energy);
    g->fs.energy_count = g->pt.n_owned;
    g->fs.forces_fixed = 0;
    VS_CUDA_CHECK(cudaStreamWaitEvent(g->stream, g->ovl.ev_interior, 0));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    float interior_ms = 0.0f, comm_ms = 0.0f;
    VS_CUDA_CHECK(cudaEventElapsedTime(&interior_ms, g->ovl.ev_start, g->ovl.ev_interior));
    VS_CUDA_CHECK(cudaEventElapsedTime(&comm_ms, g->ovl.ev_start, g->ovl.ev_comm));
    *comm_s = 1e-3 * (double)comm_ms;
    /* communication is hidden while the interior forces were still running */
    const double interior_s = 1e-3 * (double)interior_ms;
    *hidden_s = interior_s < *comm_s ? interior_s : *comm_s;
}

__global__ void interior_flag_kernel(int n, const int32_t *nlist, const int32_t *ncount,
                                     int64_t stride, uint8_t *interior)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int has_ghost = 0;
    const int count = ncount[i];
    for (int m = 0; m < count && !has_ghost; ++m)
        has_ghost = nlist[vs_list_slot(stride, i, m)] >= n; /* ghosts sit after the owned */
    interior[i] = (uint8_t)!has_ghost;
}

void vs_gpu_split_interior(vs_gpu_state *g)
{
    const int n = (int)g->pt.n_owned;
    g->stamp.split = g->ver.list;
    g->ovl.n_interior = g->ovl.n_border = 0;
    if (n == 0)
        return;
    /* the thread builder flags interior particles as it writes the list */
    if (g->plan.builder != VS_GPU_BUILDER_THREAD)
        VS_LAUNCH(interior_flag_kernel, n, VS_BLOCK, g->stream, n, g->cells.nlist, g->cells.ncount,
                  g->cells.nl_stride, g->ovl.interior_flag);
    /* one pass: interior particles in order at the front, border particles behind them */
    VS_CUDA_CHECK(cub::DevicePartition::Flagged(
        g->sort.cub_temp, g->sort.cub_temp_bytes, thrust::counting_iterator<int32_t>(0),
        g->ovl.interior_flag, g->ovl.split_idx, g->halo.d_select_count, n, g->stream));
    int32_t *h = (int32_t *)g->red.h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, g->halo.d_select_count, sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    g->ovl.n_interior = h[0];
    g->ovl.n_border = n - h[0];
}
