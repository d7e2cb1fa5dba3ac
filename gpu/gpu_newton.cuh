/* The Newton walk of the mixed-precision forces, written once over a pair evaluator
 * (gpu_pair_eval.cuh): each pair within the walk's cut-off found once, evaluated once, and
 * added to both particles' fixed-point sums (gpu_forces.cu launches it for DPD alone,
 * gpu_pair_newton.cu for the conservative styles with or without DPD). */
#ifndef VESICA_GPU_NEWTON_CUH
#define VESICA_GPU_NEWTON_CUH

#include "gpu_dispatch.cuh"
#include "gpu_internal.cuh"
#include "gpu_pair_eval.cuh"

/* The pair of particle i (position pi in quanta with its species, velocity ui, signature
 * sig_i) with partner j: the separation, exact in quanta and then rounded to fp32 lengths,
 * and the evaluator's force, energy and virial. Every mixed-precision walk evaluates its
 * pairs here. */
struct vs_mixed_pair {
    float dx, dy, dz;
    vs_pair_result_f r;
};

template <class EV>
__device__ __forceinline__ vs_mixed_pair vs_evaluate_mixed_pair(
    const EV &ev, const typename EV::shared_t &shared, const vs_fixed_frame &frame,
    const vs_mixed_inputs &in, const int4 &pi, const float4 &ui, uint64_t sig_i, int j)
{
    const int4 pj = in.pos_q[j];
    const typename EV::partner_t uj = ev.load_partner(in, j);
    vs_mixed_pair p;
    p.dx = vs_separation(frame, pi.x, pj.x);
    p.dy = vs_separation(frame, pi.y, pj.y);
    p.dz = vs_separation(frame, pi.z, pj.z);
    const float r2 = vs_norm2(p.dx, p.dy, p.dz);
    p.r = ev(shared, in, pi, ui, sig_i, j, pj, uj, p.dx, p.dy, p.dz, r2);
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
 * A pair force computed from j's side is the exact negative of i's (every evaluator's
 * contract, gpu_pair_eval.cuh), so a particle's force does not depend on which of the two
 * threads evaluated the pair either. The rounding to 2^-32 (2.3e-10) is far below the fp32
 * pair arithmetic's. Threads run in particle order, which the periodic Morton reordering
 * makes compact in space: a block's particles are a small cluster, and most of their
 * partners are the block's own particles, whose sums are kept in shared memory (fewer global
 * atomics, the L2's bottleneck otherwise); the others', and the block's sums at the end, are
 * added to the global sums with 64-bit integer atomics (64-bit shared atomics compile to
 * compare-and-swap loops, hence vs_shared_add64). A pair
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
 * (32 r + l)-th in depth-first order), where each lane evaluating its own queue would pay for
 * as many rounds as its busiest lane has pairs. The fixed-point sums make the evaluating
 * lane irrelevant to the result, so the particle's own share goes to its shared sums too, and with
 * ENERGY so do its energy and virial, in fixed point as well, so that their sums are
 * order-free. */
#define VS_NEWTON_QUEUE 24 /* pairs per lane: a few times the mean at rho = 3, r_c = 1; the
                              kernel's shared arrays stay within 48 kB */
#define VS_NEWTON_UNROLL 3 /* candidates per iteration of the walk */

/* A lane's column of the shared queue, entry k at base + k * VS_NEWTON_BLOCK words: its
 * address in the shared window, made once and kept in a register (through the generic
 * pointer the compiler rebuilt it, two special-register reads and five more instructions,
 * at every candidate of the walk). */
struct vs_queue_column {
    int32_t *column;
    uint32_t base;
    __device__ explicit vs_queue_column(int32_t *c)
        : column(c), base((uint32_t)__cvta_generic_to_shared(c))
    {
        asm volatile("mov.b32 %0, %0;" : "+r"(base)); /* opaque: kept, not rebuilt */
    }
    __device__ __forceinline__ void put(int k, int32_t j) const
    {
        asm volatile("st.shared.b32 [%0], %1;" ::"r"(base + 4u * VS_NEWTON_BLOCK * (uint32_t)k),
                     "r"(j)
                     : "memory");
    }
    __device__ __forceinline__ int32_t operator[](int k) const
    {
        return column[VS_NEWTON_BLOCK * k];
    }
};
/* One stencil row of the Newton kernel's walk, cell-list entries [m, end): the candidates
 * within r_c go to this lane's column of the shared queue (my_queue, `queued` of them), a
 * full queue is emptied at once through evaluate(slot, j) (rare). */
template <bool FRESH, typename Evaluate>
__device__ __forceinline__ void vs_newton_scan_row(uint32_t m, uint32_t end, const int4 &pi,
                                                   bool owned_i, int n_owned, float rc2_quanta,
                                                   const int4 *pos_q, const int4 *cell_pos,
                                                   const vs_queue_column &my_queue, int &queued,
                                                   Evaluate &evaluate)
{
    /* a partner's index below j_end: any for an owned particle, an owned one for a ghost */
    const int j_end = owned_i ? INT_MAX : n_owned;
    /* a candidate: queued when within r_c (predicated, no branch); r2q >= 0, and 0 only for
     * two particles at one place, which exert no force */
    auto consider = [&](const int4 &entry, bool in_row) {
        const int j = entry.w;
        const int4 pj = FRESH ? entry : pos_q[j];
        const float qx = vs_separation_quanta(pi.x, pj.x), qy = vs_separation_quanta(pi.y, pj.y),
                    qz = vs_separation_quanta(pi.z, pj.z);
        const float r2q = vs_norm2(qx, qy, qz);
        if ((r2q < rc2_quanta) & (r2q > 0.0f) & (j < j_end) & in_row) {
            my_queue.put(queued, j);
            ++queued;
        }
    };
    /* VS_NEWTON_UNROLL candidates per iteration, all loads in flight before any is used; the
     * queue keeps room for as many more, or the lane empties it at once (rare) */
    for (; m < end; m += VS_NEWTON_UNROLL) {
        int4 entry[VS_NEWTON_UNROLL]; /* past the row's end: its last entry again, unused */
#pragma unroll
        for (int u = 0; u < VS_NEWTON_UNROLL; ++u)
            entry[u] = cell_pos[min(m + u, end - 1)];
#pragma unroll
        for (int u = 0; u < VS_NEWTON_UNROLL; ++u)
            consider(entry[u], u == 0 || m + u < end); /* no branch: the loads stay ahead */
        if (queued > VS_NEWTON_QUEUE - VS_NEWTON_UNROLL) {
            for (int q = 0; q < queued; ++q)
                evaluate(threadIdx.x, my_queue[q]);
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
 * the finders' shared sums go to distinct words (shared atomics on one address serialise,
 * and finder-major rounds would give the lanes of one finder the same addresses). */
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
                                                    const int4 *pos_q,
                                                    const vs_queue_column &my_queue, int &queued,
                                                    Evaluate &evaluate)
{
    /* a candidate j at pj: queued when within r_c and listed (predicated, no branch) */
    auto consider = [&](int j, const int4 &pj, bool listed) {
        const float r2q = vs_norm2(vs_separation_quanta(pi.x, pj.x),
                                   vs_separation_quanta(pi.y, pj.y),
                                   vs_separation_quanta(pi.z, pj.z));
        if ((r2q < rc2_quanta) & (r2q > 0.0f) & listed) {
            my_queue.put(queued, j);
            ++queued;
        }
    };
    const int count = ncount[i];
    const int4 *list4 = (const int4 *)nlist;
    for (int m = 0; m < count; m += 4) {
        const int4 group = list4[vs_list_group(stride, i, m >> 2)];
        /* the group's four positions loaded before any is tested (tested under branches, the
         * loads went one after another); past the count, the first entry again, unused */
        const int j[4] = {group.x, m + 1 < count ? group.y : group.x,
                          m + 2 < count ? group.z : group.x, m + 3 < count ? group.w : group.x};
        int4 pj[4];
#pragma unroll
        for (int u = 0; u < 4; ++u)
            pj[u] = pos_q[j[u]];
#pragma unroll
        for (int u = 0; u < 4; ++u)
            consider(j[u], pj[u], u == 0 || m + u < count);
        if (queued > VS_NEWTON_QUEUE - 4) { /* rare: room for a group no more */
            for (int q = 0; q < queued; ++q)
                evaluate(threadIdx.x, my_queue[q]);
            queued = 0;
        }
    }
}

/* TENSOR (with ENERGY: output.pressure_tensor's evaluations): each pair's tensor half to
 * each of its owned particles' sums (gpu_tensor.cuh), by global atomics. */
template <class EV, bool ENERGY, bool FRESH, bool LIST, bool TILED, bool TENSOR = false>
__global__ void __launch_bounds__(VS_NEWTON_BLOCK, VS_NEWTON_MIN_BLOCKS)
    vs_newton_kernel(EV ev, vs_count listed, vs_count owned, float rc2_quanta, vs_gpu_species sp,
                            vs_fixed_frame frame, const int4 *pos_q, const float4 *vel_f,
                            const uint64_t *sig, vs_gpu_grid grid, const uint32_t *cell_start,
                            const int4 *cell_pos, const int32_t *cell_rank, float row_cut2,
                            const int32_t *nlist, const int32_t *ncount, int64_t stride,
                            unsigned long long *fx, unsigned long long *fy,
                            unsigned long long *fz, double *energy, double *virial,
                            int32_t *bad, vs_tensor_out tensor)
{
    static_assert(ENERGY || !TENSOR, "the tensor comes with the energies");
    constexpr int n_sums = ENERGY ? 5 : 3; /* fx, fy, fz[, energy, virial] */
    __shared__ typename EV::shared_t ev_shared;
    /* one column per lane, unpadded: a lane's queue writes and a depth-first round's reads
     * (one depth, distinct finders) each fall in distinct banks */
    __shared__ int32_t queue[VS_NEWTON_QUEUE][VS_NEWTON_BLOCK];
    /* the block's own particles, read by whichever lane evaluates their pairs */
    __shared__ int4 block_pos[VS_NEWTON_BLOCK];
    __shared__ float4 block_vel[VS_NEWTON_BLOCK];
    __shared__ uint64_t block_sig[VS_NEWTON_BLOCK];
    /* the block's particles' sums: low and high words (vs_shared_add64) */
    __shared__ unsigned block_lo[n_sums][VS_NEWTON_BLOCK], block_hi[n_sums][VS_NEWTON_BLOCK];
    ev.load_shared(ev_shared, sp);
    const vs_mixed_inputs in = {pos_q, vel_f, sig};
    const int n_all = TILED ? vs_count_get(listed) : listed.base;
    const int n_owned = vs_count_get(owned);
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
            const vs_mixed_pair p = vs_evaluate_mixed_pair(ev, ev_shared, frame, in, ps,
                                                           block_vel[slot], block_sig[slot], j);
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
            if constexpr (TENSOR) { /* the same half to each owned particle of the pair */
                long long q[VS_TENSOR];
                vs_tensor_pair_shares_f(gx, gy, gz, p.dx, p.dy, p.dz, q, tensor.bad);
                if (owned_s)
                    vs_tensor_add_atomic(tensor, first + slot, q);
                if (owned_j)
                    vs_tensor_add_atomic(tensor, j, q);
            }
        };

        const vs_queue_column my_queue(&queue[0][threadIdx.x]);
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
 * particles and their local images (VS_GPU_OVERLAP_REMOTE_APART): the ghosts arrive while
 * the Newton kernel runs over the listed particles, then each walks the full stencil of rows
 * (the grid's reach) around its own cell for owned partners. Each such pair is found here
 * once (the listed particles never see a remote ghost), evaluated with the ghost as
 * particle i (exactly the negated pair of the owned side: dpd_pair.h), and added to the
 * owned particle's fixed-point sums, so the forces are bit-identical to the Newton kernel's
 * over everything. The ghost keeps the owned particle's half of each pair's energy and
 * virial, as there (vs_fixed_share). */
template <class EV, bool ENERGY, bool FRESH, bool TENSOR>
__global__ void __launch_bounds__(VS_BLOCK)
    vs_newton_remote_kernel(EV ev, int first, int n, int n_owned, float rc2_quanta,
                            vs_gpu_species sp,
                            vs_fixed_frame frame, const int4 *pos_q, const float4 *vel_f,
                            const uint64_t *sig, vs_gpu_grid grid, const uint32_t *cell_start,
                            const int4 *cell_pos, float row_cut2, unsigned long long *fx,
                            unsigned long long *fy, unsigned long long *fz, double *energy,
                            double *virial, int32_t *bad, vs_tensor_out tensor)
{
    __shared__ typename EV::shared_t ev_shared;
    ev.load_shared(ev_shared, sp);
    __syncthreads();
    const vs_mixed_inputs in = {pos_q, vel_f, sig};
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
    const int reach = grid.yz_reach;
    for (int dz = -reach; dz <= reach; ++dz)
        for (int dy = -reach; dy <= reach; ++dy) {
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
                    vs_evaluate_mixed_pair(ev, ev_shared, frame, in, pi, ui, sig_i, j);
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
                if constexpr (TENSOR) { /* the owned particle's half of the tensor */
                    long long q[VS_TENSOR];
                    vs_tensor_pair_shares_f(gx, gy, gz, p.dx, p.dy, p.dz, q, tensor.bad);
                    vs_tensor_add_atomic(tensor, j, q);
                }
            }
        }
    if (ENERGY) {
        energy[i] = (double)energy_sum * (1.0 / VS_FIXED_PER_FORCE);
        virial[i] = (double)virial_sum * (1.0 / VS_FIXED_PER_FORCE);
    }
}

/* The kernel's variants that occur, (ENERGY, FRESH, LIST, TILED, TENSOR): energies from
 * the half list, the fresh cell list or the kept one; forces alone from the same three, the
 * fresh cell list also with a count on the device (TILED); energies with the pressure
 * tensor from the same three as energies. */
struct vs_newton_variant {
    bool energy, fresh, list, tiled, tensor;
};
constexpr vs_newton_variant vs_newton_variants[] = {
    {true, false, true, false, false},  {true, true, false, false, false},
    {true, false, false, false, false}, {false, false, true, false, false},
    {false, true, false, true, false},  {false, true, false, false, false},
    {false, false, false, false, false}, {true, false, true, false, true},
    {true, true, false, false, true},   {true, false, false, false, true}};

static inline int vs_newton_variant_of(bool energy, bool fresh, bool list, bool tiled,
                                       bool tensor)
{
    if (energy)
        return (tensor ? 7 : 0) + (list ? 0 : (fresh ? 1 : 2));
    if (list)
        return 3;
    return fresh ? (tiled ? 4 : 5) : 6;
}

/* The pairs among the particles in the cell list, each once (vs_newton_kernel), on `stream`;
 * with `remote`, instead those of the ghosts beyond it (vs_newton_remote_kernel). The sums
 * are the force arrays, cleared by the signature pass before the first part. */
template <class EV>
void vs_newton_launch(vs_gpu_state *g, cudaStream_t stream, int remote, const EV &ev,
                      float rc2_quanta, int want_energy)
{
    const int n = (int)g->pt.n_owned, n_listed = (int)g->cells.n_listed;
    const int n_remote = (int)(g->pt.n_owned + g->pt.n_ghost - g->cells.n_listed);
    const vs_count listed = vs_gpu_listed(g);
    const int64_t listed_estimate = vs_gpu_listed_estimate(g);
    unsigned long long *f[3];
    for (int d = 0; d < 3; ++d)
        f[d] = (unsigned long long *)g->pt.f[d];
    /* the half list, or the cell list (holding the current positions without a skin) */
    const int list = g->plan.half_list, fresh = !g->plan.reuse_list && !list;
    const vs_tensor_out tensor = vs_gpu_tensor_out(g, want_energy);
    const int energy_kind = want_energy ? (tensor.w[0] ? 2 : 1) : 0; /* none, energy, tensor */
    if (listed.more && (want_energy || !fresh || remote))
        vs_log_fatal(__FILE__, __LINE__, "the ghosts' number is on the device, but the forces "
                     "want energies or a kept list");
    if (remote) {
        vs_dispatch<3, 2>(
            [&](auto energy, auto fresh_c) {
                VS_LAUNCH((vs_newton_remote_kernel<EV, VS_ON(energy), VS_ON(fresh_c),
                                                   VS_VAL(energy) == 2>),
                          n_remote, VS_BLOCK, stream, ev, n_listed, n_remote, n, rc2_quanta,
                          g->species, g->fs.frame, g->fs.pos_q, g->fs.vel_f, g->fs.sig,
                          g->cells.grid, g->cells.cell_start, g->cells.cell_pos,
                          vs_row_cut2(g->list_cutoff), f[0], f[1], f[2], vs_gpu_energy_buf(g),
                          vs_gpu_virial_buf(g), g->fs.d_bad_force, tensor);
            },
            energy_kind, fresh != 0);
        return;
    }
    const int variant = vs_newton_variant_of(want_energy, fresh, list, listed.more != NULL,
                                             energy_kind == 2);
    vs_dispatch<10>(
        [&](auto c) {
            constexpr vs_newton_variant v = vs_newton_variants[VS_VAL(c)];
            VS_LAUNCH((vs_newton_kernel<EV, v.energy, v.fresh, v.list, v.tiled, v.tensor>),
                      listed_estimate, VS_NEWTON_BLOCK, stream, ev, listed, vs_gpu_owned(g),
                      rc2_quanta,
                      g->species, g->fs.frame, g->fs.pos_q, g->fs.vel_f, g->fs.sig,
                      g->cells.grid, g->cells.cell_start, g->cells.cell_pos, g->cells.cell_rank,
                      vs_row_cut2(g->list_cutoff), g->cells.nlist, g->cells.ncount,
                      g->cells.nl_stride, f[0], f[1], f[2], vs_gpu_energy_buf(g),
                      vs_gpu_virial_buf(g), g->fs.d_bad_force, tensor);
        },
        variant);
}

#endif
