/* The walk that evaluates every pair from both sides, written once for every pair term: one
 * thread per owned particle (all of them, or those listed in a subset) walks its partners
 * (the Verlet list or the cell list's stencil, vs_for_each_candidate) in a fixed order and
 * adds each pair's share to its own sum, so no thread writes another particle's force and
 * the sum runs in list order: runs are bit-reproducible without atomics.
 *
 * The walk is a kernel template over a side T, which wraps a pair term's formulas (DPD's in
 * mixed precision through the Newton walk's evaluator, vs_eval_dpd) and says how this
 * particle's sum is kept and stored:
 *   - T::shared_t &T::load_shared(sp): the block's table in shared memory, filled (the
 *     kernel synchronises after it);
 *   - T::self_t self(shared, i): what the thread keeps of its own particle; T::sum_t its sum;
 *   - T::subsets: whether the walk may cover a subset of the particles (the overlap's
 *     interior and border);
 *   - T::queue: 0 to evaluate each candidate in the walk, visit<ENERGY, PRELOADED>(shared,
 *     self, j, entry, sum) testing the cut-off itself (PRELOADED: entry is the candidate's
 *     position from T::list_positions(), where T::preload_list asks for it); or the length
 *     of a per-thread queue of the candidates for which near<FRESH>(self, j, entry) holds,
 *     evaluated by add(shared, self, j, sum) in candidate order when the queue fills and at
 *     the end (the same sum, in the same order, as evaluating in the walk: only the
 *     schedule differs);
 *   - store<ENERGY, MODE>(sp, self, i, sum, out): the particle's force, energy and virial out.
 * The sides: DPD (gpu_forces.cu, the dissipative fluid in either precision) and each
 * conservative style (gpu_pair.cu, with its special factors); each translation unit keeps its
 * own floating-point flags (gpu_pair.cu is compiled without fused multiply-adds). */
#ifndef VESICA_GPU_BOTH_SIDES_CUH
#define VESICA_GPU_BOTH_SIDES_CUH

#include "gpu_internal.cuh"
#include "gpu_partners.cuh"

#define VS_BOTH_SIDES_BLOCK 128

/* Where a particle's sum goes. */
struct vs_both_sides_out {
    double *f[3];
    double *energy, *virial;
    int accumulate_energy; /* add to the energy buffers instead of writing them */
    int32_t *bad;          /* the marked particle (a sum beyond the fixed-point range) */
};

/* A sum kept as doubles stored: MODE 0 starts the forces (body force plus the sum), 1 adds
 * to doubles, 2 adds to the Newton walk's fixed-point sums (gpu_newton.cuh) rounded once. */
template <bool ENERGY, int MODE>
__device__ __forceinline__ void vs_both_sides_store(const vs_gpu_species &sp, int i, int si,
                                                    double ax, double ay, double az, double e,
                                                    double w, const vs_both_sides_out &out)
{
    if (MODE == 0) {
        out.f[0][i] = sp.body_force[si][0] + ax;
        out.f[1][i] = sp.body_force[si][1] + ay;
        out.f[2][i] = sp.body_force[si][2] + az;
    } else if (MODE == 1) {
        out.f[0][i] += ax;
        out.f[1][i] += ay;
        out.f[2][i] += az;
    } else {
        const double a[3] = {ax, ay, az};
        for (int d = 0; d < 3; ++d) {
            if (!(fabs(a[d]) < 16777216.0)) /* beyond the sums' range or not finite */
                atomicMin(out.bad, i);
            unsigned long long *q = (unsigned long long *)out.f[d];
            q[i] += (unsigned long long)__double2ll_rn(a[d] * VS_FIXED_PER_FORCE);
        }
    }
    if (ENERGY) {
        out.energy[i] = out.accumulate_energy ? out.energy[i] + e : e;
        out.virial[i] = out.accumulate_energy ? out.virial[i] + w : w;
    }
}

/* The queue of side T's candidates: one column per thread. */
template <int QUEUE>
__device__ __forceinline__ int32_t *vs_both_sides_queue()
{
    __shared__ int32_t queue[QUEUE][VS_BOTH_SIDES_BLOCK];
    return &queue[0][threadIdx.x];
}

/* FRESH (CELLS only): the cell list was built this step (no skin), so the cell-order copy
 * holds the current positions (a side may take a candidate's position from it). */
template <class T, bool ENERGY, bool CELLS, bool FRESH, int MODE>
__global__ void __launch_bounds__(VS_BOTH_SIDES_BLOCK)
    vs_both_sides_kernel(T side_param, int n, const int32_t *subset, vs_partner_source src,
                         vs_gpu_species sp, vs_both_sides_out out_param)
{
    /* local copies: their fields are read once at the start, as separate parameters would
     * be, not through the parameters' address at each use */
    const T side = side_param;
    const vs_both_sides_out out = out_param;
    typename T::shared_t &shared = side.load_shared(sp);
    __syncthreads();
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    /* all owned particles, or (a side that takes subsets) those listed */
    int i = k;
    if constexpr (T::subsets)
        i = subset ? subset[k] : k;
    const typename T::self_t self = side.self(shared, i);
    typename T::sum_t sum = {};
    if constexpr (T::queue == 0) {
        /* from the list, a side that asks for them gets the candidates' positions (its
         * list_positions(), NULL where it has none) loaded four at a time */
        constexpr bool preload = !CELLS && T::preload_list;
        const int4 *positions = nullptr;
        if constexpr (preload)
            positions = side.list_positions();
        if (preload && positions) {
            vs_for_each_candidate<CELLS, preload>(
                src, i,
                [&](int j, const int4 &entry) {
                    side.template visit<ENERGY, true>(shared, self, j, entry, sum);
                },
                positions);
        } else {
            vs_for_each_candidate<CELLS>(src, i, [&](int j, const int4 &entry) {
                side.template visit<ENERGY, false>(shared, self, j, entry, sum);
            });
        }
    } else {
        int32_t *my_queue = vs_both_sides_queue<T::queue>();
        int queued = 0;
        auto evaluate = [&]() {
            for (int q = 0; q < queued; ++q)
                side.template add<ENERGY>(shared, self, my_queue[VS_BOTH_SIDES_BLOCK * q], sum);
            queued = 0;
        };
        vs_for_each_candidate<CELLS>(src, i, [&](int j, const int4 &entry) {
            if (side.template near<FRESH>(self, j, entry)) {
                my_queue[VS_BOTH_SIDES_BLOCK * queued++] = j;
                if (queued == T::queue) /* rare: a full queue */
                    evaluate();
            }
        });
        evaluate();
    }
    side.template store<ENERGY, MODE>(sp, self, i, sum, out);
}

/* Side T's walk over n particles (subset: their indices, or NULL for [0, n)) on `stream`. */
template <class T, bool ENERGY, bool CELLS, bool FRESH, int MODE>
void vs_both_sides_launch(const T &side, cudaStream_t stream, int n, const int32_t *subset,
                          const vs_partner_source &src, const vs_gpu_species &sp,
                          const vs_both_sides_out &out, size_t dynamic_shared = 0)
{
    if (n <= 0)
        return;
    vs_both_sides_kernel<T, ENERGY, CELLS, FRESH, MODE>
        <<<(n + VS_BOTH_SIDES_BLOCK - 1) / VS_BOTH_SIDES_BLOCK, VS_BOTH_SIDES_BLOCK,
           dynamic_shared, stream>>>(side, n, subset, src, sp, out);
    VS_CUDA_CHECK(cudaGetLastError());
}

#endif
