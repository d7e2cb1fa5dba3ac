/* Sorting, cell list and neighbour list on the device (Tang & Karniadakis 2014, section 3).
 *
 * - Owned particles are reordered every few rebuilds by the Morton code of their cell (CUB
 *   radix sort of (cell key, index), then one gather per array), so particles that interact
 *   sit close in memory and threads of a warp read the same cells.
 * - The cell list over owned + ghost particles is ordered by the linear cell index (x
 *   fastest), so each row of three cells of the 27-cell stencil is one contiguous range. The
 *   mixed Newton path (each pair once, fixed-point sums) bins the particles by cell with a
 *   counting sort (an atomic count per cell, a scan, a scatter): its results do not depend on
 *   the order within a cell, which the atomics leave open. Every other path sorts (cell key,
 *   index) with a second radix sort, whose order is fixed, and takes the offsets of every
 *   cell from comparing neighbours in the sorted keys.
 * - Two neighbour-list builders, both ordered, deterministic and atomics-free, chosen by
 *   `neighbor.gpu_builder`. "thread" (the default in double precision, where the cell walk
 *   evaluates each pair from both sides and loses to a list; in mixed precision the default
 *   is no list, "cells"): one thread per owned particle walks the 5 x 5 rows of cells
 *   around it (cells half the list radius wide across the rows) in a fixed order, reading
 *   the candidates' positions from a copy in cell-list order, and writes its own entries
 *   four at a time (a group held in registers, one 16-byte store).
 *   "warp": one warp per cell (the paper's builder): the
 *   lanes load 32 candidate j particles of the 27-cell stencil at a time (coalesced), each
 *   owned i of the cell is checked against all of them at once, and a warp ballot gives every
 *   hit its insertion slot, so the list is ordered and deterministic with no atomics. Rows are
 *   staged in shared memory and written out in groups of four (vs_list_group: group q of
 *   particle i is the int4 at q * stride + i): the force kernel's loads are coalesced across
 *   a warp, and so are these stores, since the owned particles of a cell are consecutive
 *   after the Morton sort. On
 *   overflow the builder reports the largest count; the host grows the table and builds
 *   again. Both builders produce the same list, in the same order.
 */
#include <cub/cub.cuh>

#include "gpu_internal.cuh"

/* Sort keys: the cell's Morton code or linear index. STAGE: the same pass stages the mixed
 * force inputs (vs_stage_particle), reading the positions once for both, and the cell is
 * that of the staged fixed-point position (vs_cell_of_q), which the cell-list force kernel
 * can find again from the cell list's copy alone. Particles below `staged_below` were staged
 * already (by the first half-step, vs_gpu_owned_staged): their 16-byte position is read instead
 * of 52 bytes of state. */
template <bool STAGE>
__global__ void cell_key_kernel(int n, vs_gpu_grid grid, int morton, vs_positions at,
                                uint32_t *key, uint32_t *idx, vs_fixed_frame frame,
                                const double *vx, const double *vy, const double *vz,
                                const int32_t *species, int4 *pos, float4 *vel,
                                vs_count staged)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int staged_below = vs_count_get(staged);
    int c[3];
    uint32_t cell;
    if (STAGE) {
        const int4 p = i < staged_below ? pos[i]
                                        : vs_stage_particle(frame, i, at.x[0], at.x[1],
                                                            at.x[2], vx, vy, vz, species, pos,
                                                            vel);
        cell = vs_cell_of_q(grid, p, c);
    } else {
        double r[3];
        vs_pos_load(at, i, r);
        cell = vs_cell_of(grid, r[0], r[1], r[2], c);
    }
    key[i] = morton ? vs_morton_code(grid, c) : cell;
    idx[i] = (uint32_t)i;
}

template <typename T>
__global__ void gather_kernel(int n, const uint32_t *order, const T *in, T *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        out[k] = in[order[k]];
}

/* The sort keys' block as the reorder's scratch (its keys are spent once the permutation is
 * in idx_out), with its halves found again wherever it now lies. */
static void set_key_halves(vs_gpu_state *g)
{
    g->sort.key_in = (uint32_t *)g->sort.sort_keys;
    g->sort.key_out = g->sort.key_in + g->pt.capacity;
}

/* Out-of-place gather into the scratch (the sort keys' block). An 8-byte array of the
 * particles' capacity then trades places with it, saving a copy; a smaller one is copied
 * back (the owned particles' 8-byte arrays: permute_rotation). */
template <typename T>
static void permute(vs_gpu_state *g, T *&field, int n)
{
    T *tmp = (T *)g->sort.sort_keys;
    VS_LAUNCH(gather_kernel<T>, n, VS_BLOCK, g->stream, n, g->sort.idx_out, field, tmp);
    if (sizeof(T) == sizeof(double)) {
        g->sort.sort_keys = field;
        set_key_halves(g);
        field = tmp;
    } else {
        VS_CUDA_CHECK(cudaMemcpyAsync(field, tmp, sizeof(T) * (size_t)n,
                                      cudaMemcpyDeviceToDevice, g->stream));
    }
}

/* Arrays of the owned particles' capacity (smaller than the scratch's), permuted in a
 * rotation: each gathers into the buffer the one before it left free, the first into the
 * scratch, which is copied into the buffer the last one left free. One copy for them all. */
static void permute_rotation(vs_gpu_state *g, double **fields, int count, int n)
{
    double *first = (double *)g->sort.sort_keys;
    VS_LAUNCH(gather_kernel<double>, n, VS_BLOCK, g->stream, n, g->sort.idx_out, fields[0], first);
    double *spare = fields[0];
    for (int k = 1; k < count; ++k) {
        VS_LAUNCH(gather_kernel<double>, n, VS_BLOCK, g->stream, n, g->sort.idx_out, fields[k],
                  spare);
        double *left = fields[k];
        fields[k] = spare;
        spare = left;
    }
    VS_CUDA_CHECK(cudaMemcpyAsync(spare, first, sizeof(double) * (size_t)n,
                                  cudaMemcpyDeviceToDevice, g->stream));
    fields[0] = spare;
}

/* Particles below this index hold their force inputs already (pos_q, vel_f): all of them
 * where pos_q is the only store of the positions, else the owned ones where the first
 * half-step staged them. */
static vs_count staged_below(const vs_gpu_state *g)
{
    if (g->plan.pos_q_only) /* every particle, however many the device counts */
        return vs_count_known(INT32_MAX);
    return vs_gpu_owned_staged(g) ? vs_gpu_owned(g) : vs_count_known(0);
}

/* Sort particles [0, n) by cell into key_out / idx_out; `stage`: also stage all n particles'
 * mixed force inputs on the way. */
static void sort_by_cell(vs_gpu_state *g, int n, int morton, int stage)
{
#define VS_KEY_ARGS                                                                                \
    n, g->cells.grid, morton, vs_gpu_positions(g), g->sort.key_in, g->sort.idx_in, g->fs.frame,    \
        g->pt.vp[0], g->pt.vp[1], g->pt.vp[2], g->pt.species_id, g->fs.pos_q, g->fs.vel_f,         \
        stage ? staged_below(g) : vs_count_known(0)
    if (stage)
        VS_LAUNCH(cell_key_kernel<true>, n, VS_BLOCK, g->stream, VS_KEY_ARGS);
    else
        VS_LAUNCH(cell_key_kernel<false>, n, VS_BLOCK, g->stream, VS_KEY_ARGS);
#undef VS_KEY_ARGS
    if (n == 0)
        return;
    /* in place (the double-buffer form needs no temporary copy of keys and values); the
     * sorted pairs end up in key_out and idx_out whichever buffers CUB left them in */
    cub::DoubleBuffer<uint32_t> keys(g->sort.key_in, g->sort.key_out),
        values(g->sort.idx_in, g->sort.idx_out);
    VS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        g->sort.cub_temp, g->sort.cub_temp_bytes, keys, values, n, 0,
        morton ? g->cells.morton_bits : g->sort.key_bits, g->stream));
    g->sort.key_out = keys.Current();
    g->sort.key_in = keys.Alternate();
    g->sort.idx_out = values.Current();
    g->sort.idx_in = values.Alternate();
}

/* Word w of records of `stride` 8-byte words, gathered by the sort's order / scattered back. */
__global__ void word_gather_kernel(int n, const uint32_t *order, const uint64_t *words,
                                   int stride, int w, uint64_t *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        out[k] = words[(size_t)order[k] * stride + w];
}

__global__ void word_scatter_kernel(int n, const uint64_t *in, int stride, int w,
                                    uint64_t *words)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        words[(size_t)k * stride + w] = in[k];
}

void vs_gpu_permute_words(vs_gpu_state *g, int n, void *recs, size_t bytes)
{
    uint64_t *words = (uint64_t *)recs, *tmp = (uint64_t *)g->sort.sort_keys;
    const int stride = (int)(bytes / sizeof(uint64_t));
    for (int w = 0; w < stride; ++w) {
        VS_LAUNCH(word_gather_kernel, n, VS_BLOCK, g->stream, n, g->sort.idx_out, words,
                  stride, w, tmp);
        VS_LAUNCH(word_scatter_kernel, n, VS_BLOCK, g->stream, n, tmp, stride, w, words);
    }
}

/* The Morton reordering costs a sort and two passes over every array; particles drift only a
 * fraction of a cell between rebuilds, so the order is refreshed every few rebuilds
 * (docs/history/performance-2026-11.md compares 1 and 8). A brick of fewer owned particles than
 * VS_GPU_REORDER_SMALL_BELOW refreshes it less often: its step is bound by the host's
 * launches, about two dozen of them for one reordering, more than by the locality the order
 * buys its forces (docs/history/performance-2026-11.md compares 8 and 32 from 4000 to 16M particles). */
#define VS_GPU_REORDER_EVERY 8
#define VS_GPU_REORDER_EVERY_SMALL 32
#define VS_GPU_REORDER_SMALL_BELOW 524288
/* One small rank with topology records less often still: its reorder also gathers the records
 * into slot order (a count read back, so that step runs call by call) and remakes the tag
 * map and the resolved bonds (docs/performance.md: GALAMOST's R = 5 ball, 48k beads, ran 13 %
 * faster at 1024 than at 32). Only at one rank: with several, the records that leave hold
 * their holes until the next reorder. */
#define VS_GPU_REORDER_EVERY_SMALL_BONDED 1024

/* VESICA_GPU_REORDER_EVERY=N in the environment sets it for a measurement. */
static int reorder_every(const vs_gpu_state *g)
{
    if (g->sort.every > 0)
        return g->sort.every;
    if (g->pt.n_owned >= VS_GPU_REORDER_SMALL_BELOW)
        return VS_GPU_REORDER_EVERY;
    const int one_rank = g->tr.dc == NULL || g->tr.dc->cart.size == 1;
    return g->bd.on && one_rank ? VS_GPU_REORDER_EVERY_SMALL_BONDED : VS_GPU_REORDER_EVERY_SMALL;
}

int vs_gpu_reorder_due(const vs_gpu_state *g)
{
    return g->sort.n_rebuilds % reorder_every(g) == 0;
}

void vs_gpu_reorder(vs_gpu_state *g)
{
    const int n = (int)g->pt.n_owned;
    if (g->sort.n_rebuilds++ % reorder_every(g) != 0)
        return;
    sort_by_cell(g, n, 1, 0);
    ++g->ver.owned; /* the staging pass of the cell list restages them */
    ++g->ver.slots;
    if (g->plan.pos_q_only) {
        /* positions and predicted velocities (16 bytes each, more than the scratch holds)
         * gather into the cell-order copy's buffer, which the cell list rewrites next */
        int4 *tmp = g->cells.cell_pos;
        VS_LAUNCH(gather_kernel<int4>, n, VS_BLOCK, g->stream, n, g->sort.idx_out, g->fs.pos_q,
                  tmp);
        g->cells.cell_pos = g->fs.pos_q;
        g->fs.pos_q = tmp;
        float4 *vel = (float4 *)g->cells.cell_pos;
        VS_LAUNCH(gather_kernel<float4>, n, VS_BLOCK, g->stream, n, g->sort.idx_out, g->fs.vel_f,
                  vel);
        g->cells.cell_pos = (int4 *)g->fs.vel_f;
        g->fs.vel_f = vel;
    } else if (g->plan.vp_in_vel_f) {
        /* the predicted velocities (16 bytes each, more than the scratch holds) gather into
         * pos_q's buffer, free now: the owned positions are restaged (ver.owned above) */
        float4 *tmp = (float4 *)g->fs.pos_q;
        VS_LAUNCH(gather_kernel<float4>, n, VS_BLOCK, g->stream, n, g->sort.idx_out, g->fs.vel_f,
                  tmp);
        g->fs.pos_q = (int4 *)g->fs.vel_f;
        g->fs.vel_f = tmp;
    }
    for (int d = 0; d < 3; ++d) {
        if (!g->plan.pos_q_only)
            permute(g, g->pt.x[d], n);
        if (!g->plan.vp_in_vel_f)
            permute(g, g->pt.vp[d], n);
        permute(g, g->pt.image[d], n);
    }
    /* forces too: after a checkpoint's canonical re-start the step continues from the
     * stored forces, without a force evaluation between this reorder and their use */
    double *owned[6] = {g->pt.v[0], g->pt.v[1], g->pt.v[2], g->pt.f[0], g->pt.f[1], g->pt.f[2]};
    permute_rotation(g, owned, 6, n);
    for (int d = 0; d < 3; ++d) {
        g->pt.v[d] = owned[d];
        g->pt.f[d] = owned[3 + d];
    }
    permute(g, g->pt.tag, n);
    permute(g, g->pt.species_id, n);
    if (g->bd.on) { /* molecules: the slots' record indices, then the records into slot order */
        permute(g, g->bd.slot_rec, n);
        vs_gpu_topo_compact(g, n);
    }
    vs_gpu_special_permute(g, n); /* special lists: the same */
    vs_gpu_aniso_permute(g, n);   /* orientations: the same */
}

/* Offsets of every cell, empty ones included, from the sorted keys without atomics: entry k
 * starts the cells after the previous entry's cell up to its own, and the last entry also
 * closes the cells after it, so every one of the n_cells + 1 offsets is written once. */
__global__ void cell_offsets_kernel(int n, int64_t n_cells, const uint32_t *key,
                                    uint32_t *start)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int64_t c = key[k], prev = k == 0 ? -1 : (int64_t)key[k - 1];
    for (int64_t q = prev + 1; q <= c; ++q)
        start[q] = (uint32_t)k;
    if (k == n - 1)
        for (int64_t q = c + 1; q <= n_cells; ++q)
            start[q] = (uint32_t)n;
}

/* The candidates' fixed-point positions (as staged for the mixed force kernel) in cell-list
 * order, each with its particle index in the fourth word: a walk over the cell list reads one
 * int4 per candidate, contiguously, and a hit needs no second, dependent load for its
 * index. */
__global__ void cell_pos_kernel(int n, const uint32_t *cell_particles, const double *x,
                                const double *y, const double *z, vs_fixed_frame frame,
                                int4 *cell_pos)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int j = (int)cell_particles[k];
    cell_pos[k] = make_int4(vs_quantize(frame, 0, x[j]), vs_quantize(frame, 1, y[j]),
                            vs_quantize(frame, 2, z[j]), j);
}

/* The same from the staged fixed-point positions (one 16-byte gather instead of three
 * 8-byte ones and the conversions). */
__global__ void cell_pos_staged_kernel(int n, const uint32_t *cell_particles, const int4 *pos_q,
                                       int4 *cell_pos)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int j = (int)cell_particles[k];
    const int4 p = pos_q[j];
    cell_pos[k] = make_int4(p.x, p.y, p.z, j);
}

/* The Newton path's cell list (vs_gpu_build_neighbors), pass 1 over particles [first,
 * listed): each particle's cell (of its staged fixed-point position, staging it where the
 * first half-step has not) and its place in that cell, from an atomic count per cell (count:
 * zeroed, n_cells + 1 entries). */
__global__ void cell_bin_kernel(vs_count first, vs_count listed, vs_gpu_grid grid,
                                vs_positions at, vs_fixed_frame frame, const double *vx,
                                const double *vy, const double *vz, const int32_t *species,
                                int4 *pos, float4 *vel, vs_count staged, uint32_t *count,
                                uint32_t *cell_of, uint32_t *place)
{
    const int from = vs_count_get(first), n = vs_count_get(listed),
              staged_below = vs_count_get(staged);
    for (int i = from + (int)(blockIdx.x * blockDim.x + threadIdx.x); i < n;
         i += (int)(gridDim.x * blockDim.x)) {
        const int4 p = i < staged_below ? pos[i]
                                        : vs_stage_particle(frame, i, at.x[0], at.x[1], at.x[2],
                                                            vx, vy, vz, species, pos, vel);
        int c[3];
        const uint32_t cell = vs_cell_of_q(grid, p, c);
        cell_of[i] = cell;
        place[i] = atomicAdd(&count[cell], 1u);
    }
}

/* Pass 3 (pass 2 scans the counts into cell_start): each particle's entry of the cell list:
 * its cell-order copy, with its index in the fourth word, and its rank (the entry). */
__global__ void cell_scatter_kernel(vs_count listed, const uint32_t *cell_of,
                                    const uint32_t *place, const uint32_t *cell_start,
                                    const int4 *pos_q, int4 *cell_pos, int32_t *cell_rank)
{
    const int n = vs_count_get(listed);
    VS_FOR_EACH(i, n)
    {
        const uint32_t k = cell_start[cell_of[i]] + place[i];
        const int4 p = pos_q[i];
        cell_pos[k] = make_int4(p.x, p.y, p.z, i);
        cell_rank[i] = (int32_t)k;
    }
}

/* Every candidate partner in the rows of the stencil (yz_reach cells about) around a
 * particle in cell c at `frac` within it, each row trimmed to radius sqrt(row_cut2)
 * (vs_stencil_row), in the order z, y, then cell-list order along the row: visit(entry) with
 * entry the candidate's cell-order copy (position, index).
 *
 * The rows are walked as one flat sequence: a thread's non-empty rows' bounds are put in
 * `rows` first (its column of a shared array, rows[r * stride]), and the walk moves to the
 * next row when one ends. Row by row, a warp made as many trips per row as its longest lane
 * had candidates in it (about twice the candidates on average, fewer than half the lanes
 * active); flat, it makes as many as its longest lane has in all (docs/history/performance-2026-11.md has
 * the build times). The cell-list force kernel keeps the row-by-row walk (gpu_forces.cu):
 * there, flat was slower at the same occupancy: lanes of one cell no longer read the same
 * entries together, and the row table costs shared memory next to the pair queue. */
#define VS_STENCIL_ROWS 25 /* the rows of a reach of 2 cells along y and z */
#define VS_BUILD_UNROLL 4 /* candidates per iteration of the flat walk */

template <typename Visit>
__device__ __forceinline__ void vs_for_each_cell_candidate(const vs_gpu_grid &grid,
                                                           const uint32_t *cell_start,
                                                           const int4 *cell_pos, const int c[3],
                                                           const float frac[3],
                                                           float row_cut2, uint2 *rows,
                                                           int stride, Visit visit)
{
    int n_rows = 0;
    const int reach = grid.yz_reach;
    for (int dz = -reach; dz <= reach; ++dz) {
        for (int dy = -reach; dy <= reach; ++dy) {
            int first, last;
            if (vs_stencil_row(grid, c, frac, row_cut2, dy, dz, &first, &last)) {
                const uint2 bounds = make_uint2(cell_start[first], cell_start[last + 1]);
                if (bounds.x < bounds.y)
                    rows[stride * n_rows++] = bounds;
            }
        }
    }
    if (n_rows == 0)
        return;
    uint2 row = rows[0];
    int next_row = 1;
    bool more = true;
    for (uint32_t k = row.x; more;) {
        /* VS_BUILD_UNROLL candidates' places first (past the last: the first's again, not
         * visited), then their loads, all in flight before the first is tested */
        uint32_t at[VS_BUILD_UNROLL];
        bool valid[VS_BUILD_UNROLL];
#pragma unroll
        for (int u = 0; u < VS_BUILD_UNROLL; ++u) {
            valid[u] = more;
            at[u] = more ? k : at[0];
            if (more && ++k == row.y) {
                if (next_row == n_rows) {
                    more = false;
                } else {
                    row = rows[stride * next_row++];
                    k = row.x;
                }
            }
        }
        int4 entry[VS_BUILD_UNROLL];
#pragma unroll
        for (int u = 0; u < VS_BUILD_UNROLL; ++u)
            entry[u] = cell_pos[at[u]];
#pragma unroll
        for (int u = 0; u < VS_BUILD_UNROLL; ++u)
            if (valid[u])
                visit(entry[u]);
    }
}

#define VS_THREAD_BUILD_BLOCK 128

/* One thread's column of a Verlet list being written: partners in groups of four, each
 * group one 16-byte store (vs_list_group), up to the list's width; the count goes on past
 * it, so that an overflow is seen and the list grown. */
struct vs_list_writer {
    int4 *list4;
    int64_t stride;
    int i, width, count;
    int4 pending; /* the last four partners found, newest in w */

    __device__ vs_list_writer(int32_t *nlist, int64_t stride_, int i_, int width_)
        : list4((int4 *)nlist), stride(stride_), i(i_), width(width_), count(0),
          pending(make_int4(-1, -1, -1, -1))
    {
    }
    /* branch-free but for the store: with ~15% of candidates hits, some lane of a warp
     * takes this path on almost every candidate */
    __device__ __forceinline__ void push(int j)
    {
        pending = make_int4(pending.y, pending.z, pending.w, j);
        if ((count & 3) == 3 && count < width)
            list4[vs_list_group(stride, i, count >> 2)] = pending;
        ++count;
    }
    /* the last, partial group: its entries are the newest in `pending` (slots past the
     * count are never read); the count to ncount, an overflow to max_count */
    __device__ __forceinline__ void finish(int32_t *ncount, int32_t *max_count)
    {
        const int kept = count < width ? count : width;
        if (kept & 3) {
            const int4 p = pending;
            const int4 tail = (kept & 3) == 1   ? make_int4(p.w, -1, -1, -1)
                              : (kept & 3) == 2 ? make_int4(p.z, p.w, -1, -1)
                                                : make_int4(p.y, p.z, p.w, -1);
            list4[vs_list_group(stride, i, kept >> 2)] = tail;
        }
        ncount[i] = count;
        if (count > width)
            atomicMax(max_count, count);
    }
};

__global__ void __launch_bounds__(VS_THREAD_BUILD_BLOCK)
    neighbor_thread_kernel(int n_owned, vs_gpu_grid grid, float cut2_quanta, float row_cut2,
                           vs_positions at, vs_fixed_frame frame, const int4 *cell_pos,
                           const uint32_t *cell_start, int max_neighbors, int64_t stride,
                           int32_t *nlist, int32_t *ncount, int32_t *max_count,
                           uint8_t *interior)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_owned)
        return;
    int has_ghost = 0; /* for the overlap's interior / border split */
    double r[3];
    vs_pos_load(at, i, r);
    const int qx = vs_quantize(frame, 0, r[0]), qy = vs_quantize(frame, 1, r[1]),
              qz = vs_quantize(frame, 2, r[2]);
    int c[3]; /* the particle's cell (or, by a rounding, the next one: rows are trimmed by
                 geometry, with a margin, so they cover its sphere either way) */
    float frac[3];
    vs_cell_of(grid, r[0], r[1], r[2], c, frac);
    /* the rows around the cell, each trimmed to the cells the sphere reaches and one
     * contiguous range of the list, in the order z, y, x: the list comes out in cell order */
    vs_list_writer out(nlist, stride, i, max_neighbors);
    __shared__ uint2 rows[VS_STENCIL_ROWS][VS_THREAD_BUILD_BLOCK];
    vs_for_each_cell_candidate(grid, cell_start, cell_pos, c, frac, row_cut2,
                               &rows[0][threadIdx.x], VS_THREAD_BUILD_BLOCK,
                               [&](const int4 &pj) {
        const float ddx = vs_separation_quanta(qx, pj.x), ddy = vs_separation_quanta(qy, pj.y),
                    ddz = vs_separation_quanta(qz, pj.z);
        const int j = pj.w;
        if (vs_norm2(ddx, ddy, ddz) < cut2_quanta && j != i) {
            out.push(j);
            has_ghost |= j >= n_owned;
        }
    });
    out.finish(ncount, max_count);
    if (interior)
        interior[i] = (uint8_t)!has_ghost;
}

/* The Newton kernel's half list (plan.half_list), one column per listed particle, owned or
 * ghost: the partners its half stencil holds within the list radius (vs_newton_half_rows;
 * a ghost's owned ones only, as the cell walk takes them), in cell-list order. Pairs at zero
 * separation stay in (they may part before the next build); the force kernel skips them
 * while they coincide, as the cell walk does. */
__global__ void __launch_bounds__(VS_THREAD_BUILD_BLOCK)
    newton_half_list_kernel(int n_listed, int n_owned, vs_gpu_grid grid, float cut2_quanta,
                            float row_cut2, const int4 *cell_pos, const uint32_t *cell_start,
                            const int32_t *cell_rank, int max_neighbors, int64_t stride,
                            int32_t *nlist, int32_t *ncount, int32_t *max_count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_listed)
        return;
    const bool owned_i = i < n_owned;
    const uint32_t k = (uint32_t)cell_rank[i];
    const int4 pi = cell_pos[k];
    vs_list_writer out(nlist, stride, i, max_neighbors);
    vs_newton_half_rows(grid, cell_start, pi, k, row_cut2, [&](uint32_t first, uint32_t end) {
        for (uint32_t m = first; m < end; ++m) {
            const int4 pj = cell_pos[m];
            const float r2q = vs_norm2(vs_separation_quanta(pi.x, pj.x),
                                       vs_separation_quanta(pi.y, pj.y),
                                       vs_separation_quanta(pi.z, pj.z));
            if (r2q < cut2_quanta && (owned_i || pj.w < n_owned))
                out.push(pj.w);
        }
    });
    out.finish(ncount, max_count);
}

#define VS_NL_WARPS 4 /* warps per block of the warp builder */

/* Per-warp shared data: the batch of i particles and the 27-cell stencil, flattened. */
struct vs_nl_warp_shared {
    int4 ipos[32];
    int iidx[32];
    uint32_t cell_first[27]; /* first entry of stencil cell c in cell_particles */
    int prefix[28];          /* candidates before stencil cell c (exclusive scan) */
};

__global__ void __launch_bounds__(32 * VS_NL_WARPS)
    neighbor_warp_cell_kernel(int n_owned, int64_t n_cells, vs_gpu_grid grid, float cut2,
                              vs_fixed_frame frame, const int4 *pos, const uint32_t *cell_start,
                              const uint32_t *cell_particles, int max_neighbors, int64_t stride,
                              int32_t *nlist, int32_t *ncount, int32_t *max_count)
{
    __shared__ vs_nl_warp_shared sh_all[VS_NL_WARPS];
    extern __shared__ int32_t staging[]; /* per warp: 32 rows of (max_neighbors | 1) slots */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t cell = (int64_t)blockIdx.x * VS_NL_WARPS + warp;
    if (cell >= n_cells)
        return;
    const uint32_t s = cell_start[cell], e = cell_start[cell + 1];
    /* owned particles precede ghosts within a cell (stable sort of ascending indices) */
    if (s == e || cell_particles[s] >= (uint32_t)n_owned)
        return;
    vs_nl_warp_shared &sh = sh_all[warp];
    const int row = max_neighbors | 1; /* odd stride: conflict-free column reads */
    int32_t *rows = staging + (size_t)warp * 32 * row;

    /* the fine-grained stencil: lane c < 27 takes stencil cell c, a warp scan its offsets, so
     * candidates are read 32 at a time across cell boundaries (full lanes, coalesced) */
    const uint32_t lin = (uint32_t)cell;
    const int slot = (int)(lin / ((uint32_t)grid.ncell[0] * grid.ncell[1]));
    const int cx = (int)(lin % grid.ncell[0]), cy = (int)((lin / grid.ncell[0]) % grid.ncell[1]),
              cz = (slot + grid.z_first) % grid.ncell[2];
    int n_c = 0;
    if (lane < 27) {
        const int nx = cx + lane % 3 - 1, ny = cy + (lane / 3) % 3 - 1, nz = cz + lane / 9 - 1;
        if (nx >= 0 && nx < grid.ncell[0] && ny >= 0 && ny < grid.ncell[1] && nz >= 0 &&
            nz < grid.ncell[2]) {
            const uint32_t nc =
                (uint32_t)((vs_layer_slot(grid, nz) * grid.ncell[1] + ny) * grid.ncell[0] + nx);
            sh.cell_first[lane] = cell_start[nc];
            n_c = (int)(cell_start[nc + 1] - cell_start[nc]);
        } else {
            sh.cell_first[lane] = 0;
        }
    }
    int incl = n_c;
    for (int off = 1; off < 32; off <<= 1) {
        const int v = __shfl_up_sync(0xffffffffu, incl, off);
        if (lane >= off)
            incl += v;
    }
    if (lane < 27)
        sh.prefix[lane] = incl - n_c;
    const int total = __shfl_sync(0xffffffffu, incl, 26);
    if (lane == 0)
        sh.prefix[27] = total;
    __syncwarp();

    for (uint32_t batch = s; batch < e; batch += 32) {
        const uint32_t k_i = batch + lane;
        const int i = k_i < e ? (int)cell_particles[k_i] : -1;
        const bool owned_i = i >= 0 && i < n_owned;
        const unsigned owned_mask = __ballot_sync(0xffffffffu, owned_i);
        if (owned_mask == 0)
            break; /* only ghosts remain in this cell */
        const int n_batch = 32 - __clz(owned_mask); /* owned lanes are a prefix */
        sh.ipos[lane] = owned_i ? pos[i] : make_int4(0, 0, 0, 0);
        sh.iidx[lane] = i;
        __syncwarp();
        int count = 0; /* neighbours found so far for this lane's i */
        for (int base = 0; base < total; base += 32) {
            const int f = base + lane;
            const bool has_j = f < total;
            int j = -1;
            int4 pj = make_int4(0, 0, 0, 0);
            if (has_j) {
                int c = 0; /* stencil cell holding flat candidate f (binary search) */
                for (int step = 16; step > 0; step >>= 1)
                    if (c + step < 27 && sh.prefix[c + step] <= f)
                        c += step;
                j = (int)cell_particles[sh.cell_first[c] + (uint32_t)(f - sh.prefix[c])];
                pj = pos[j];
            }
            for (int t = 0; t < n_batch; ++t) {
                const int4 pt = sh.ipos[t];
                const float ddx = vs_separation(frame, pt.x, pj.x),
                            ddy = vs_separation(frame, pt.y, pj.y),
                            ddz = vs_separation(frame, pt.z, pj.z);
                const bool hit =
                    has_j && j != sh.iidx[t] && vs_norm2(ddx, ddy, ddz) < cut2;
                const unsigned hits = __ballot_sync(0xffffffffu, hit);
                const int start = __shfl_sync(0xffffffffu, count, t);
                const int slot = start + __popc(hits & ((1u << lane) - 1u));
                if (hit && slot < max_neighbors)
                    rows[t * row + slot] = j;
                if (lane == t)
                    count += __popc(hits);
            }
        }
        __syncwarp();
        /* write the rows out a group of four at a time: lanes hold consecutive owned
         * indices, so a warp stores 512 contiguous bytes (slots past a row's count are
         * never read) */
        const int max_in_batch = __reduce_max_sync(0xffffffffu, owned_i ? count : 0);
        const int stored = max_in_batch < max_neighbors ? max_in_batch : max_neighbors;
        int4 *list4 = (int4 *)nlist;
        for (int m = 0; m < stored; m += 4)
            if (owned_i && m < count) {
                const int32_t *r = rows + lane * row + m;
                list4[vs_list_group(stride, i, m >> 2)] = make_int4(r[0], r[1], r[2], r[3]);
            }
        if (owned_i) {
            ncount[i] = count;
            if (count > max_neighbors)
                atomicMax(max_count, count);
        }
        __syncwarp();
    }
}

__global__ void mark_built_kernel(int n, vs_positions at, double *bx, double *by, double *bz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double r[3];
    vs_pos_load(at, i, r);
    bx[i] = r[0];
    by[i] = r[1];
    bz[i] = r[2];
}

/* Pass 1 over particles [first, listed), `threads` of them at once. */
static void bin_range(vs_gpu_state *g, vs_count first, vs_count listed, int64_t threads)
{
    VS_LAUNCH(cell_bin_kernel, threads, VS_BLOCK, g->stream, first, listed, g->cells.grid,
              vs_gpu_positions(g), g->fs.frame, g->pt.vp[0], g->pt.vp[1], g->pt.vp[2],
              g->pt.species_id, g->fs.pos_q, g->fs.vel_f, staged_below(g), g->cells.cell_start,
              g->sort.key_in, g->sort.idx_in); /* each particle's cell and place in it */
}

void vs_gpu_bin_owned(vs_gpu_state *g)
{
    g->cells.owned_binned = g->plan.forces == VS_GPU_FORCES_NEWTON &&
                            g->cells.zeroed == g->cells.cell_start &&
                            g->cells.n_zeroed == g->cells.n_cells + 1;
    if (g->cells.owned_binned)
        bin_range(g, vs_count_known(0), vs_gpu_owned(g), g->pt.n_owned);
}

/* The Newton path's cell list over the listed particles (vs_gpu_listed), staging their force
 * inputs on the way: bin (cell_bin_kernel), scan the counts in place into cell_start,
 * scatter. Three passes and no sort; the order within a cell is whatever the atomics gave.
 * Where the owned particles were binned already, while the ghosts travelled (the slab path,
 * vs_gpu_bin_owned), the first pass takes the ghosts only. */
static void bin_by_cell(vs_gpu_state *g)
{
    const vs_count listed = vs_gpu_listed(g);
    const int64_t n = vs_gpu_listed_estimate(g);
    const int64_t n_cells = g->cells.n_cells;
    size_t scan_bytes = 0;
    VS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, g->cells.cell_start,
                                                g->cells.cell_start, (int)(n_cells + 1),
                                                g->stream));
    if (scan_bytes > g->sort.cub_temp_bytes) { /* a grid with more cells than particles */
        vs_gpu_drain(g);
        vs_gpu_free(g, g->sort.cub_temp, g->sort.cub_temp_bytes);
        g->sort.cub_temp_bytes = scan_bytes + scan_bytes / 4;
        g->sort.cub_temp = vs_gpu_alloc(g, g->sort.cub_temp_bytes);
    }
    const int ghosts_only = g->cells.owned_binned; /* vs_gpu_bin_owned came first */
    g->cells.owned_binned = 0;
    if (!ghosts_only &&
        (g->cells.zeroed != g->cells.cell_start || g->cells.n_zeroed != n_cells + 1))
        VS_CUDA_CHECK(cudaMemsetAsync(g->cells.cell_start, 0,
                                      sizeof(uint32_t) * (size_t)(n_cells + 1), g->stream));
    g->cells.zeroed = NULL; /* used once */
    if (ghosts_only) {
        const int64_t ghosts = n - g->cells.n_listed; /* n_listed: the owned bound here */
        bin_range(g, vs_gpu_owned(g), listed, ghosts > VS_BLOCK ? ghosts : VS_BLOCK);
    } else {
        bin_range(g, vs_count_known(0), listed, n);
    }
    VS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(g->sort.cub_temp, g->sort.cub_temp_bytes,
                                                g->cells.cell_start, g->cells.cell_start,
                                                (int)(n_cells + 1), g->stream));
    VS_LAUNCH(cell_scatter_kernel, n, VS_BLOCK, g->stream, listed, g->sort.key_in,
              g->sort.idx_in, g->cells.cell_start, g->fs.pos_q, g->cells.cell_pos,
              g->cells.cell_rank);
}

extern "C" void vs_gpu_build_neighbors(vs_gpu_state *g)
{
    /* cell list over owned + ghosts (with the cell list's overlap, only the local ones: the
     * remote ghosts come after them), in linear cell order */
    const int remote_apart = g->plan.overlap == VS_GPU_OVERLAP_REMOTE_APART;
    g->cells.n_listed = g->pt.n_owned + (remote_apart ? g->halo.n_img_local : g->pt.n_ghost);
    const int n_list = (int)g->cells.n_listed, n = (int)g->pt.n_owned;
    if (n_list == 0)
        VS_CUDA_CHECK(cudaMemsetAsync(
            g->cells.cell_start, 0, sizeof(uint32_t) * (size_t)(g->cells.n_cells + 1), g->stream));
    /* the mixed force kernel's inputs are staged once per step: on a rebuild step with the
     * cell keys, so that the cell-order copy below gathers the fixed-point positions */
    const int mixed = g->plan.mixed;
    const int stage = g->plan.stage_at_build;
    const int binned = g->plan.forces == VS_GPU_FORCES_NEWTON; /* stage_at_build holds */
    if (binned)
        bin_by_cell(g);
    else
        sort_by_cell(g, n_list, 0, stage);
    if (stage && g->cells.n_listed < g->pt.n_owned + g->pt.n_ghost)
        vs_gpu_stage_range(g, g->cells.n_listed, g->pt.n_owned + g->pt.n_ghost - g->cells.n_listed);
    g->stamp.staged = stage ? vs_gpu_now(g) : vs_gpu_never();
    if (!binned) {
        VS_LAUNCH(cell_offsets_kernel, n_list, VS_BLOCK, g->stream, n_list, g->cells.n_cells,
                  g->sort.key_out, g->cells.cell_start);
        /* the sorted indices become the cell list; the next sort writes into the old list's
         * buffer (both have the per-particle capacity) */
        uint32_t *sorted = g->sort.idx_out;
        g->sort.idx_out = g->cells.cell_particles;
        g->cells.cell_particles = sorted;
    }
    /* the cell-order copy, which the walks of the thread builder and of the cell-list force
     * kernels read (the binning wrote it already) */
    if (!binned && g->plan.builder != VS_GPU_BUILDER_WARP) {
        if (mixed)
            VS_LAUNCH(cell_pos_staged_kernel, n_list, VS_BLOCK, g->stream, n_list,
                      g->cells.cell_particles, g->fs.pos_q, g->cells.cell_pos);
        else
            VS_LAUNCH(cell_pos_kernel, n_list, VS_BLOCK, g->stream, n_list, g->cells.cell_particles,
                      g->pt.x[0], g->pt.x[1], g->pt.x[2], g->fs.frame, g->cells.cell_pos);
    }
    if (g->plan.forces != VS_GPU_FORCES_VERLET && !g->plan.half_list) {
        /* no Verlet list: the force kernel reads the cell list built above */
        if (g->plan.reuse_list)
            VS_LAUNCH(mark_built_kernel, n, VS_BLOCK, g->stream, n, vs_gpu_positions(g),
                      g->pt.x_build[0], g->pt.x_build[1], g->pt.x_build[2]);
        return;
    }
    const int split = g->plan.overlap == VS_GPU_OVERLAP_SPLIT;
    if (split && g->pt.n_owned > g->ovl.cap_split) {
        const int64_t cap = g->pt.n_owned + g->pt.n_owned / 20 + 256;
        vs_gpu_free(g, g->ovl.interior_flag, (size_t)g->ovl.cap_split);
        vs_gpu_free(g, g->ovl.split_idx, sizeof(int32_t) * (size_t)g->ovl.cap_split);
        g->ovl.interior_flag = (uint8_t *)vs_gpu_alloc(g, (size_t)cap);
        g->ovl.split_idx = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t) * (size_t)cap);
        g->ovl.cap_split = cap;
    }
    /* the list has one column per owned particle (ghosts have no list); the half list one
     * per listed particle */
    const int64_t columns = g->plan.half_list ? g->cells.n_listed : g->pt.n_owned;
    if (columns > g->cells.nl_stride || !g->cells.nlist) {
        vs_gpu_free(g, g->cells.nlist,
                    sizeof(int32_t) * (size_t)g->cells.max_neighbors * (size_t)g->cells.nl_stride);
        g->cells.nl_stride = columns + columns / 20 + 256;
        g->cells.nlist = (int32_t *)vs_gpu_alloc(
            g, sizeof(int32_t) * (size_t)g->cells.max_neighbors * (size_t)g->cells.nl_stride);
    }
    /* candidates are compared in fp32 relative positions; the list radius is widened by a
     * relative 1e-5 so rounding can only add pairs beyond r_c + skin, never drop one */
    const float cut2_f = (float)(g->list_cutoff * g->list_cutoff * (1.0 + 2e-5));
    /* the radius in quanta squared (a power of two apart: the same comparisons) */
    const float cut2_quanta =
        (float)((double)cut2_f * g->fs.frame.inv_quantum * g->fs.frame.inv_quantum);
    for (;;) {
        VS_CUDA_CHECK(cudaMemsetAsync(g->cells.d_max_count, 0, sizeof(int32_t), g->stream));
        if (g->plan.half_list) {
            VS_LAUNCH(newton_half_list_kernel, n_list, VS_THREAD_BUILD_BLOCK, g->stream, n_list,
                      n, g->cells.grid, cut2_quanta, vs_row_cut2(g->list_cutoff),
                      g->cells.cell_pos, g->cells.cell_start, g->cells.cell_rank,
                      g->cells.max_neighbors, g->cells.nl_stride, g->cells.nlist,
                      g->cells.ncount, g->cells.d_max_count);
        }
        if (g->plan.builder == VS_GPU_BUILDER_THREAD) {
            VS_LAUNCH(neighbor_thread_kernel, n, VS_THREAD_BUILD_BLOCK, g->stream, n, g->cells.grid,
                      cut2_quanta, vs_row_cut2(g->list_cutoff), vs_gpu_positions(g),
                      g->fs.frame, g->cells.cell_pos, g->cells.cell_start, g->cells.max_neighbors,
                      g->cells.nl_stride, g->cells.nlist, g->cells.ncount, g->cells.d_max_count,
                      split ? g->ovl.interior_flag : (uint8_t *)NULL);
        }
        const size_t smem =
            sizeof(int32_t) * 32 * VS_NL_WARPS * (size_t)(g->cells.max_neighbors | 1);
        if (g->plan.builder == VS_GPU_BUILDER_WARP && smem > 48 * 1024)
            VS_CUDA_CHECK(cudaFuncSetAttribute(neighbor_warp_cell_kernel,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)smem));
        const int64_t blocks = (g->cells.n_cells + VS_NL_WARPS - 1) / VS_NL_WARPS;
        if (g->plan.builder == VS_GPU_BUILDER_WARP && n > 0) {
            neighbor_warp_cell_kernel<<<(unsigned)blocks, 32 * VS_NL_WARPS, smem, g->stream>>>(
                n, g->cells.n_cells, g->cells.grid, cut2_f, g->fs.frame, g->fs.pos_q,
                g->cells.cell_start, g->cells.cell_particles, g->cells.max_neighbors,
                g->cells.nl_stride, g->cells.nlist, g->cells.ncount, g->cells.d_max_count);
            VS_CUDA_CHECK(cudaGetLastError());
        }
        int32_t *h = (int32_t *)g->red.h_pinned;
        VS_CUDA_CHECK(cudaMemcpyAsync(h, g->cells.d_max_count, sizeof(int32_t),
                                      cudaMemcpyDeviceToHost, g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (*h <= g->cells.max_neighbors)
            break;
        /* overflow: grow the table to the largest count seen plus a margin, and rebuild */
        vs_gpu_free(g, g->cells.nlist,
                    sizeof(int32_t) * (size_t)g->cells.max_neighbors * (size_t)g->cells.nl_stride);
        g->cells.max_neighbors = vs_list_width(*h + *h / 8 + 4);
        g->cells.nlist = (int32_t *)vs_gpu_alloc(
            g, sizeof(int32_t) * (size_t)g->cells.max_neighbors * (size_t)g->cells.nl_stride);
    }
    if (g->plan.reuse_list) /* positions at this build, for the displacement check */
        VS_LAUNCH(mark_built_kernel, n, VS_BLOCK, g->stream, n, vs_gpu_positions(g),
                  g->pt.x_build[0], g->pt.x_build[1], g->pt.x_build[2]);
    ++g->ver.list; /* split again when (if) this list is reused */
}
