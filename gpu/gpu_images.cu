/* The image path of the ghost build (gpu_halo.cu has the staged protocol): when at most one
 * dimension is split over ranks (one GPU, or slabs). One flag pass and select find the owned
 * particles near any face; one count and scan give each its images (one per combination of
 * per-dimension face digits); one read-back of the totals; one pass writes the local images
 * into the ghost slots and packs the images that belong to the neighbours along the split
 * dimension, which one exchange delivers. Each image remembers its source and digits, so the
 * steps between rebuilds only refresh them. One rank with a small brick rebuilt on every step
 * writes its images in one pass that counts them on the device, and never reads the count
 * back on such a step (build_images_on_device).
 */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpu_halo.cuh"

extern "C" {
#include "exchange.h"
}

/* The image path: at most one dimension (`remote`) is split over ranks, the others are
 * periodic within the rank. A particle within the ghost width of faces (a bonded bead, with
 * molecules: the bonded width, the same width along every dimension) has one image per
 * combination of per-dimension digits (0 itself, 1 near the lower face, 2 near the upper
 * one), less the particle itself. Images whose remote digit is 0 stay here (periodic images,
 * shifted by the box); those with remote digit 1 (2) go to the lower (upper) neighbour,
 * shifted by the box where the brick touches the box's end. This is the staged protocol's
 * ghost set: a ghost the staged protocol forwards along a later dimension is the image the
 * sender makes here with both digits set, with the same coordinates. */
struct vs_image_faces {
    double lo_edge[3], hi_edge[3];
    double lo_bonded[3], hi_bonded[3]; /* the same for bonded beads (molecules) */
    double shift[3][3]; /* [dimension][digit] */
    int remote;         /* the dimension split over ranks, -1 for none */
};

/* The faces' edges for a particle: `bonded` picks the bonded width's (it is a constant
 * false in the plain fluid's kernels, which then read the pair width's only). */
__host__ __device__ __forceinline__ double vs_lo_edge(const vs_image_faces &f, int d, bool bonded)
{
    return bonded ? f.lo_bonded[d] : f.lo_edge[d];
}

__host__ __device__ __forceinline__ double vs_hi_edge(const vs_image_faces &f, int d, bool bonded)
{
    return bonded ? f.hi_bonded[d] : f.hi_edge[d];
}

/* Images of particle p: local, to the lower and to the upper neighbour. The dimensions are
 * unrolled and the split one is found by comparison: arrays indexed by f.remote would live
 * in local memory, a store and a dependent load on every particle's path. */
__device__ __forceinline__ int4 vs_image_counts(const vs_image_faces &f, const double p[3],
                                                bool bonded)
{
    int others = 1, lower = 0, upper = 0;
#pragma unroll
    for (int d = 0; d < 3; ++d) {
        const int lo = p[d] < vs_lo_edge(f, d, bonded), hi = p[d] >= vs_hi_edge(f, d, bonded);
        if (d == f.remote) {
            lower = lo;
            upper = hi;
        } else {
            others *= 1 + lo + hi;
        }
    }
    return make_int4(others - 1, lower * others, upper * others, 0);
}

/* Counts of the candidates (the first *n_cand of `cand`; without a list, the first `bound`
 * owned particles), zero from there to `bound` inclusive, so that the exclusive scan's entry
 * `bound` holds the totals. MOL: molecules, bonded beads (mark) to the bonded width. */
template <int MOL>
__global__ void image_count_kernel(int bound, const int32_t *n_cand, const int32_t *cand,
                                   vs_image_faces f, vs_positions pos, const uint8_t *mark,
                                   int4 *counts)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k > bound)
        return;
    int4 c = make_int4(0, 0, 0, 0);
    if (k < (n_cand ? *n_cand : bound)) {
        const int i = cand ? cand[k] : k;
        double p[3];
        vs_pos_load(pos, i, p);
        c = vs_image_counts(f, p, MOL && mark[i]);
    }
    counts[k] = c;
}

/* Each thread's first slots for its counts c of up to three kinds, taken for the whole block
 * with one atomic add per kind on ctr[0..2] (a NULL counter: that kind is never counted).
 * The slots' order is the atomics', which the Newton kernel's fixed-point sums do not see.
 * Every thread of the block calls it. */
__device__ __forceinline__ int3 vs_block_slots(int3 c, int32_t *ctr_x, int32_t *ctr_y,
                                               int32_t *ctr_z)
{
    __shared__ int3 warp_first[VS_BLOCK / 32];
    __shared__ int3 block_first;
    const int lane = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;
    const int3 in = make_int3(vs_warp_inclusive_sum(c.x, lane), vs_warp_inclusive_sum(c.y, lane),
                              vs_warp_inclusive_sum(c.z, lane));
    if (lane == 31)
        warp_first[warp] = in;
    __syncthreads();
    if (threadIdx.x == 0) {
        int3 sum = make_int3(0, 0, 0);
        for (int w = 0; w < (int)blockDim.x / 32; ++w) {
            const int3 t = warp_first[w];
            warp_first[w] = sum;
            sum = make_int3(sum.x + t.x, sum.y + t.y, sum.z + t.z);
        }
        block_first = make_int3(sum.x ? atomicAdd(ctr_x, sum.x) : 0,
                                sum.y ? atomicAdd(ctr_y, sum.y) : 0,
                                sum.z ? atomicAdd(ctr_z, sum.z) : 0);
    }
    __syncthreads();
    const int3 w = warp_first[warp], b = block_first;
    return make_int3(b.x + w.x + in.x - c.x, b.y + w.y + in.y - c.y, b.z + w.z + in.z - c.z);
}

/* Particles of one thread of a candidate pass: their near-face flags come in one 16-byte
 * load. One rank finds its candidates from 2^19 owned particles (halo.candidates_from):
 * below, the second launch costs more than the pass over every particle saves
 * (docs/performance.md, session 24). */
enum { VS_FLAGS_PER_THREAD = 16 };

/* The candidates of an image build among particles [0, n): those whose near-face flag is set
 * (the first half-step's, where it is current: vs_face_marks; the same comparisons with the
 * same edges as vs_image_counts, so a particle it clears has no image), or all of them
 * (near NULL), appended to cand with their number added to *n_cand. Thread t takes particles
 * [16 t, 16 t + 16), with one load of their flags and one atomic add a block
 * (vs_block_slots). A pass whose every thread read its own particle spent its time in waves
 * of blocks with nothing to do; this one is light, and the image work goes to the
 * candidates alone. Every thread of the block calls it. */
__device__ __forceinline__ void vs_flagged_candidates(int64_t t, int n, const uint8_t *near,
                                                      int32_t *cand, int32_t *n_cand)
{
    const int64_t first = t * VS_FLAGS_PER_THREAD;
    uint4 w = make_uint4(~0u, ~0u, ~0u, ~0u);
    if (near && first < n) /* within the flags' block: it has room for every slot */
        w = *(const uint4 *)(near + first);
    unsigned mask = 0; /* bit k: particle first + k is a candidate */
#pragma unroll
    for (int k = 0; k < VS_FLAGS_PER_THREAD; ++k) {
        const uint32_t word = k < 4 ? w.x : k < 8 ? w.y : k < 12 ? w.z : w.w;
        if ((word >> (8 * (k % 4)) & 0xffu) && first + k < n)
            mask |= 1u << k;
    }
    int slot = vs_block_slots(make_int3(__popc(mask), 0, 0), n_cand, NULL, NULL).x;
    for (; mask; mask &= mask - 1)
        cand[slot++] = (int32_t)(first + __ffs(mask) - 1);
}

/* Every image of particle i, in a fixed order (x digit slowest), into the slots next[]
 * counts from (local, lower, upper): local ones into the ghost slots after the owned
 * particles, sent ones as records into the send buffer; each remembers its source and digit
 * code for the updates (src, code: NULL where none follow, the ghosts' number on the device).
 * MOL: molecules, the images of a bonded bead to the bonded width, each marked bonded (a sent
 * one in its record: vs_put_ghost). */
template <int MOL>
__device__ __forceinline__ void vs_write_images(int i, const vs_image_faces &f, const vs_soa &a,
                                                int64_t n_owned, int64_t next[3], int32_t *src,
                                                uint8_t *code, void *send, int32_t *send_src,
                                                uint8_t *send_code)
{
    double p[3], v[3];
    vs_pos_load(a.pos, i, p);
    vs_soa_vp(a, i, v);
    const int64_t tag = a.tag[i];
    const int32_t species = a.species[i];
    const uint8_t bonded = MOL ? a.mark[i] : 0;
    /* each dimension's digits as bits (digit 0, the particle's own place, always), and the
     * loops over digit values, not over arrays of them: arrays indexed by a runtime digit or
     * f.remote would live in local memory */
    unsigned has[3];
#pragma unroll
    for (int d = 0; d < 3; ++d)
        has[d] = 1u | (p[d] < vs_lo_edge(f, d, bonded) ? 2u : 0u) |
                 (p[d] >= vs_hi_edge(f, d, bonded) ? 4u : 0u);
#pragma unroll 1
    for (int dx = 0; dx < 3; ++dx)
        for (int dy = 0; dy < 3; ++dy)
            for (int dz = 0; dz < 3; ++dz) {
                if (!(has[0] >> dx & has[1] >> dy & has[2] >> dz & 1u) || dx + dy + dz == 0)
                    continue; /* a digit the particle lacks, or the particle itself */
                const uint8_t c = (uint8_t)(dx + 3 * dy + 9 * dz);
                const double q[3] = {p[0] + f.shift[0][dx], p[1] + f.shift[1][dy],
                                     p[2] + f.shift[2][dz]};
                const int where = f.remote == 0 ? dx : f.remote == 1 ? dy : f.remote == 2 ? dz : 0;
                const int64_t s = where == 0 ? next[0]++ : where == 1 ? next[1]++ : next[2]++;
                if (where == 0) {
                    const int64_t j = n_owned + s;
                    vs_pos_store(a.pos, j, q, species);
                    vs_soa_set_vp(a, j, v);
                    vs_copy_ghost_n(a, j, i);
                    a.tag[j] = tag;
                    a.species[j] = species;
                    if (MOL)
                        a.mark[j] = bonded;
                    if (src) {
                        src[s] = i;
                        code[s] = c;
                    }
                } else {
                    vs_put_ghost(a, send, s, q, v, tag, species, bonded, i);
                    if (send_src) {
                        send_src[s] = i;
                        send_code[s] = c;
                    }
                }
            }
}

/* Every image of candidate k at the slots of the counts' scan (offsets), lower sent ones
 * first, then upper ones from upper_base. */
template <int MOL>
__global__ void image_write_kernel(int n_cand, const int32_t *cand, vs_image_faces f,
                                   const int4 *offsets, vs_soa a, int64_t n_owned,
                                   int32_t *src, uint8_t *code, void *send,
                                   int64_t upper_base, int32_t *send_src, uint8_t *send_code)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n_cand)
        return;
    const int4 o = offsets[k];
    int64_t next[3] = {o.x, o.y, upper_base + o.z}; /* local, lower, upper */
    vs_write_images<MOL>(cand ? cand[k] : k, f, a, n_owned, next, src, code, send, send_src,
                         send_code);
}

/* The local images of the owned particles where no dimension is split (one rank) with their
 * number left on the device, in two passes: image_candidates_kernel finds the candidates
 * (vs_flagged_candidates), image_write_unordered_kernel writes their images. Each block of the
 * second takes its images' slots with one atomic add to *n_local (zeroed before;
 * vs_block_slots), in place of a count, its scan and a write in index order (four
 * launches). The ghosts then come in the atomics' order, which changes no bit of a step: the
 * Newton kernel's sums are fixed point, exact in any order, as with the cell list's order.
 * The first pass also clears the n_zero words at zero, the cell list's counts, which the
 * binning that follows would otherwise clear with a memset, and the second *next_local and
 * *next_cand, where the next build counts: in a graph a memset node costs a microsecond or
 * more, here a store a word. */
__global__ void image_candidates_kernel(int n, const uint8_t *near, int32_t *cand,
                                        int32_t *n_cand, uint32_t *zero, int64_t n_zero)
{
    const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    for (int64_t k = t; k < n_zero; k += (int64_t)gridDim.x * blockDim.x)
        zero[k] = 0;
    vs_flagged_candidates(t, n, near, cand, n_cand);
}

/* The images of cand[0 .. *n_cand) (cand NULL: of every owned particle, n of them, and the
 * n_zero words at zero cleared here). The grid strides over them a block at a time. */
template <int MOL>
__global__ void image_write_unordered_kernel(int n, const int32_t *cand, const int32_t *n_cand,
                                             vs_image_faces f, vs_soa a, int32_t *n_local,
                                             int32_t *next_local, int32_t *next_cand,
                                             uint32_t *zero, int64_t n_zero)
{
    const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (t == 0) {
        *next_local = 0;
        *next_cand = 0;
    }
    for (int64_t k = t; k < n_zero; k += (int64_t)gridDim.x * blockDim.x)
        zero[k] = 0;
    const int64_t total = cand ? *n_cand : n;
    for (int64_t from = blockIdx.x * (int64_t)blockDim.x; from < total;
         from += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = from + threadIdx.x;
        const int i = k < total ? (cand ? cand[k] : (int)k) : 0;
        int count = 0;
        if (k < total) {
            double p[3];
            vs_pos_load(a.pos, i, p);
            count = vs_image_counts(f, p, MOL && a.mark[i]).x;
        }
        const int3 first = vs_block_slots(make_int3(count, 0, 0), n_local, NULL, NULL);
        if (count > 0) {
            int64_t next[3] = {first.x, 0, 0};
            vs_write_images<MOL>(i, f, a, n, next, NULL, NULL, NULL, NULL, NULL);
        }
    }
}

/* Positions and predicted velocities of the local images again (steps between rebuilds). */
__global__ void image_update_kernel(int n_local, int64_t first, vs_image_faces f,
                                    const int32_t *src, const uint8_t *code, vs_soa a)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n_local)
        return;
    const int i = src[k], c = code[k];
    const int digit[3] = {c % 3, c / 3 % 3, c / 9};
    const int64_t j = first + k;
    double p[3];
    vs_pos_load(a.pos, i, p);
    for (int d = 0; d < 3; ++d)
        p[d] += f.shift[d][digit[d]];
    vs_pos_store(a.pos, j, p, a.species[i]);
    vs_soa_copy_vp(a, j, i);
    vs_copy_ghost_n(a, j, i);
}

/* The same for the sent images, packed as update records in the rebuild's order. */
__global__ void image_pack_update_kernel(int n, vs_image_faces f, const int32_t *src,
                                         const uint8_t *code, vs_soa a, void *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = src[k], c = code[k];
    const int digit[3] = {c % 3, c / 3 % 3, c / 9};
    double p[3], vp[3];
    vs_pos_load(a.pos, i, p);
    for (int d = 0; d < 3; ++d)
        p[d] += f.shift[d][digit[d]];
    vs_soa_vp(a, i, vp);
    vs_put_ghost_update(a, out, k, p, vp, i);
}


/* Within the ghost width of any face (a bonded bead: the bonded width): an owned particle
 * that is not can be in no send list of any stage, so the y and z stages select among these
 * and the ghosts, not all owned. */
struct vs_near_face_pred {
    vs_positions pos;
    const uint8_t *mark; /* molecules (the kernel's MOL) */
    vs_face_marks faces; /* the ghost width's edges */
    double lo_bonded[3], hi_bonded[3];
    template <int MOL> __device__ __forceinline__ bool near(int32_t i) const
    {
        double p[3];
        vs_pos_load(pos, i, p);
        if (!(MOL && mark[i]))
            return vs_near_faces(faces, p);
        bool is_near = false;
        for (int d = 0; d < 3; ++d)
            is_near |= p[d] < lo_bonded[d] || p[d] >= hi_bonded[d];
        return is_near;
    }
};

/* A face of the brick on a wall has no ghosts beyond it: its edge moves out of reach (no
 * particle is nearer to it than -inf or +inf), so no image and nothing sent crosses it. */
static void wall_edges(const vs_gpu_state *g, int d, double *lo_edge, double *hi_edge)
{
    if (vs_decomp_at_wall(g->tr.dc, d, 0))
        *lo_edge = -INFINITY;
    if (vs_decomp_at_wall(g->tr.dc, d, 1))
        *hi_edge = INFINITY;
}

vs_face_marks vs_gpu_face_marks(const vs_gpu_state *g)
{
    vs_face_marks m;
    uint8_t *block = (uint8_t *)g->sort.sort_keys; /* 8 bytes per slot of capacity */
    const int d = g->plan.leaver_dim >= 0 ? g->plan.leaver_dim : 0;
    m.near = block;
    m.leaver = g->plan.leaver_dim >= 0 ? block + g->pt.capacity : NULL;
    m.leaver_dim = d;
    m.lo = g->lo[d];
    m.hi = g->hi[d];
    for (int e = 0; e < 3; ++e) {
        m.lo_edge[e] = g->lo[e] + g->ghost_width;
        m.hi_edge[e] = g->hi[e] - g->ghost_width;
        wall_edges(g, e, &m.lo_edge[e], &m.hi_edge[e]);
    }
    return m;
}

/* The dimension split over ranks when at most one is (-1: none, the brick is the box), or -2
 * when several are (the staged protocol). */
int vs_gpu_image_remote(const vs_gpu_state *g)
{
    int remote = -1;
    for (int d = 0; d < 3; ++d)
        if (g->tr.link[d] != VS_LINK_SELF) {
            if (remote != -1)
                return -2;
            remote = d;
        }
    return remote;
}

static vs_image_faces image_faces(const vs_gpu_state *g, int remote)
{
    vs_image_faces f;
    f.remote = remote;
    for (int d = 0; d < 3; ++d) {
        const double len = g->prm->system.box[d];
        f.lo_edge[d] = g->lo[d] + g->ghost_width;
        f.hi_edge[d] = g->hi[d] - g->ghost_width;
        f.lo_bonded[d] = g->lo[d] + g->bonded_width;
        f.hi_bonded[d] = g->hi[d] - g->bonded_width;
        wall_edges(g, d, &f.lo_edge[d], &f.hi_edge[d]);
        wall_edges(g, d, &f.lo_bonded[d], &f.hi_bonded[d]);
        f.shift[d][0] = 0.0;
        f.shift[d][1] = len; /* the image of a particle near the lower face sits above */
        f.shift[d][2] = -len;
        if (d == remote) { /* only at the box's ends */
            double ends[3][2];
            vs_exchange_shifts(g->tr.dc, ends);
            f.shift[d][1] = ends[d][0];
            f.shift[d][2] = ends[d][1];
        }
    }
    return f;
}

template <int MOL>
__global__ void near_face_flag_kernel(int n, vs_near_face_pred pred, uint8_t *flag)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        flag[i] = pred.near<MOL>(i);
}

/* The owned particles within the ghost width of any face, in index order, into `out` and
 * their number into *count. Flags first: the first half-step's where they are current
 * (vs_face_marks), else from one coalesced pass (a select-if whose predicate reads three
 * coordinates per index moves the same bytes at half the speed: the CUB select loads each
 * thread's consecutive indices, so a warp's reads are strided). */
void vs_gpu_select_near_face(vs_gpu_state *g, int32_t *out, int32_t *count)
{
    const int n = (int)g->pt.n_owned;
    if (n == 0) {
        VS_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(int32_t), g->stream));
        return;
    }
    vs_near_face_pred near;
    near.pos = vs_gpu_positions(g);
    near.mark = g->bd.mark;
    near.faces = vs_gpu_face_marks(g);
    for (int e = 0; e < 3; ++e) {
        near.lo_bonded[e] = g->lo[e] + g->bonded_width;
        near.hi_bonded[e] = g->hi[e] - g->bonded_width;
        wall_edges(g, e, &near.lo_bonded[e], &near.hi_bonded[e]);
    }
    uint8_t *flag = near.faces.near; /* free until the cell list */
    if (!vs_gpu_faces_current(g)) {
        if (g->bd.on)
            VS_LAUNCH(near_face_flag_kernel<1>, n, VS_BLOCK, g->stream, n, near, flag);
        else
            VS_LAUNCH(near_face_flag_kernel<0>, n, VS_BLOCK, g->stream, n, near, flag);
    }
    VS_CUDA_CHECK(cub::DeviceSelect::Flagged(g->sort.cub_temp, g->sort.cub_temp_bytes,
                                             thrust::counting_iterator<int32_t>(0), flag, out,
                                             count, n, g->stream));
}

/* The share of a brick's volume within `width` of its faces. */
static double shell_share(const vs_gpu_state *g, double width)
{
    double inner = 1.0;
    for (int d = 0; d < 3; ++d) {
        const double len = g->hi[d] - g->lo[d];
        inner *= len > 2.0 * width ? (len - 2.0 * width) / len : 0.0;
    }
    return 1.0 - inner;
}

/* Candidates a build expects: the owned particles in the shell of the ghost width inside
 * the brick's faces (the molecules' beads: of the bonded width), at a uniform density, with
 * a quarter more room. */
static int64_t expected_candidates(const vs_gpu_state *g)
{
    double share = shell_share(g, g->ghost_width);
    if (g->bonded_width > g->ghost_width && g->prm->system.n_particles > 0)
        share += (double)g->prm->molecules.n_molecule_beads / (double)g->prm->system.n_particles *
                 (shell_share(g, g->bonded_width) - share);
    return (int64_t)(1.25 * share * (double)g->pt.n_owned) + 4096;
}

/* Two device arrays of one capacity, grown together to n elements at least (contents not
 * kept). */
static void reserve_pair(vs_gpu_state *g, void **a, size_t elem_a, void **b, size_t elem_b,
                         int64_t *cap, int64_t n)
{
    if (n <= *cap)
        return;
    vs_gpu_free(g, *a, elem_a * (size_t)*cap);
    vs_gpu_free(g, *b, elem_b * (size_t)*cap);
    *cap = n + n / 16 + 1024;
    *a = vs_gpu_alloc(g, elem_a * (size_t)*cap);
    *b = vs_gpu_alloc(g, elem_b * (size_t)*cap);
}

/* Image counts of the candidates and their scan, over `bound` entries (more than the
 * candidates, which the host does not know yet: the kernels read their number on the
 * device) and a closing one that receives the totals; the candidates' number and the totals
 * come back in one synchronisation, with the migration's arrival check. */
static int4 count_images(vs_gpu_state *g, const vs_image_faces &f, const int32_t *cand,
                         const int32_t *d_count, int64_t bound, int64_t *n_cand)
{
    /* both in the cell-order copy's buffer where they fit (it is free from the migration to
     * the cell list, and as large as the particle arrays), else in buffers of their own */
    int4 *counts = g->cells.cell_pos, *offsets = counts + bound + 1;
    if (2 * (bound + 1) > g->pt.capacity) {
        reserve_pair(g, (void **)&g->halo.img_counts, sizeof(int4),
                     (void **)&g->halo.img_offsets, sizeof(int4), &g->halo.cap_img_counts,
                     bound + 1);
        counts = g->halo.img_counts;
        offsets = g->halo.img_offsets;
    }
    g->halo.img_offsets_now = offsets;
    if (g->bd.on)
        VS_LAUNCH(image_count_kernel<1>, bound + 1, VS_BLOCK, g->stream, (int)bound, d_count,
                  cand, f, vs_gpu_positions(g), g->bd.mark, counts);
    else
        VS_LAUNCH(image_count_kernel<0>, bound + 1, VS_BLOCK, g->stream, (int)bound, d_count,
                  cand, f, vs_gpu_positions(g), g->bd.mark, counts);
    VS_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(g->sort.cub_temp, g->sort.cub_temp_bytes,
                                                 counts, offsets, vs_int4_sum(),
                                                 make_int4(0, 0, 0, 0), (int)bound + 1,
                                                 g->stream));
    int32_t *h = (int32_t *)g->red.h_pinned;
    h[0] = (int32_t)bound;
    if (d_count)
        VS_CUDA_CHECK(cudaMemcpyAsync(h, d_count, sizeof(int32_t), cudaMemcpyDeviceToHost,
                                      g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(h + 4, offsets + bound, sizeof(int4),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    vs_gpu_check_outside(g);
    *n_cand = h[0];
    return make_int4(h[4], h[5], h[6], 0);
}

/* The most images one particle can have: one per combination of face digits, less itself
 * (a brick thinner than twice the ghost width along a dimension has particles near both of
 * its faces there). */
static int64_t most_images_each(const vs_image_faces &f, bool bonded)
{
    int64_t combos = 1;
    for (int d = 0; d < 3; ++d)
        combos *= vs_hi_edge(f, d, bonded) <= vs_lo_edge(f, d, bonded) ? 3 : 2;
    return combos - 1;
}

/* The ghosts' number stays on the device: one rank (no dimension split), every owned
 * particle a candidate (a small brick, or any up to VS_IMAGES_ON_DEVICE_UP_TO: without the
 * near-face select and the count's read-back the step runs as a graph, which outweighs the
 * extra image pass up to there; the cost is room for every image an owned particle can have),
 * the Newton path's cell list rebuilt on every step (no skin: the refreshes between builds
 * read it on the host too). With molecules the bonded beads' images reach the bonded width as
 * on the other paths, and their index holds the owned beads only (vs_gpu_bonded_index: at one
 * rank every partner is owned). VESICA_GPU_GHOSTS_ON_DEVICE=0 turns it off (the tests compare
 * both). */
enum { VS_IMAGES_ON_DEVICE_UP_TO = 1 << 22 };
static int ghosts_stay_on_device(const vs_gpu_state *g, int remote, int all)
{
    return g->halo.on_device_allowed && remote == -1 &&
           (all || g->pt.n_owned <= VS_IMAGES_ON_DEVICE_UP_TO) && g->pt.n_owned > 0 &&
           g->plan.forces == VS_GPU_FORCES_NEWTON && !g->plan.reuse_list &&
           !g->plan.half_list && g->plan.overlap == VS_GPU_OVERLAP_NONE;
}

/* The cell list's counts for an image pass to clear, where they are allocated for the grid of
 * now (NULL: none; the binning checks that nothing changed them since, else it clears them). */
static uint32_t *cell_counts_to_clear(vs_gpu_state *g)
{
    const int64_t n_zero = g->cells.n_cells + 1;
    uint32_t *zero =
        g->cells.cell_start && g->cells.cell_start_cap >= n_zero ? g->cells.cell_start : NULL;
    g->cells.zeroed = zero;
    g->cells.n_zeroed = zero ? n_zero : 0;
    return zero;
}

/* The local images of every owned particle with their number left on the device: room for
 * the most there can be is reserved first, so no count can overflow and nothing waits for
 * the host (the step's later kernels read the number from d_ghosts). */
static void build_images_on_device(vs_gpu_state *g, const vs_image_faces &f)
{
    const int64_t n = g->pt.n_owned;
    const bool mol = g->bd.on;
    const int64_t most = most_images_each(f, false), most_bonded = most_images_each(f, mol);
    vs_gpu_reserve(g, n + (most > most_bonded ? most : most_bonded) * n);
    /* the ghosts' number goes to the word the last such pass cleared (every reader of that
     * pass's number, all queued before this, is done by then); the other is cleared here */
    int32_t *count = g->halo.d_ghosts == g->halo.d_ghost_words ? g->halo.d_ghost_words + 1
                                                                : g->halo.d_ghost_words;
    int32_t *next = count == g->halo.d_ghost_words ? count + 1 : g->halo.d_ghost_words;
    /* the candidates' number likewise, in the words after them */
    int32_t *n_cand = count + 2, *next_cand = next + 2;
    if (!g->halo.other_clear) {
        VS_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(int32_t), g->stream));
        VS_CUDA_CHECK(cudaMemsetAsync(n_cand, 0, sizeof(int32_t), g->stream));
    }
    g->halo.d_ghosts = count;
    g->halo.other_clear = 1;
    uint32_t *zero = cell_counts_to_clear(g);
    const vs_soa a = soa(g); /* after the reservation: the face flags are current or NULL */
    /* bonded beads reach further than the flags: with molecules every particle is a
     * candidate, and so without current flags; and below halo.candidates_from */
    int32_t *cand = NULL;
    int64_t most_cand = n;
    if (!mol && a.faces.near && n >= g->halo.candidates_from) {
        cand = (int32_t *)g->sort.idx_in; /* free from the migration's end to the cell list */
        const int64_t threads = (n + VS_FLAGS_PER_THREAD - 1) / VS_FLAGS_PER_THREAD;
        VS_LAUNCH(image_candidates_kernel, threads > 0 ? threads : 1, VS_BLOCK, g->stream,
                  (int)n, a.faces.near, cand, n_cand, zero, g->cells.n_zeroed);
        zero = NULL;
        most_cand = expected_candidates(g); /* the grid; it strides over any more */
    }
    if (mol)
        VS_LAUNCH(image_write_unordered_kernel<1>, most_cand, VS_BLOCK, g->stream, (int)n, cand,
                  n_cand, f, a, count, next, next_cand, zero, zero ? g->cells.n_zeroed : 0);
    else
        VS_LAUNCH(image_write_unordered_kernel<0>, most_cand, VS_BLOCK, g->stream, (int)n, cand,
                  n_cand, f, a, count, next, next_cand, zero, zero ? g->cells.n_zeroed : 0);
    g->pt.n_ghost = 0;
    g->halo.n_img_local = 0; /* no refresh follows: every step rebuilds */
    g->tr.halo_bytes_last = 0;
    g->halo.ghosts_on_device = 1;
    if (g->halo.ghost_estimate < 0) /* the first such build: the grids' size from here on */
        vs_gpu_settle_ghosts(g);
}

void vs_gpu_settle_ghosts(vs_gpu_state *g)
{
    vs_gpu_check_outside(g); /* the slab path's migration verdict, where one is due */
    if (!g->halo.ghosts_on_device)
        return;
    vs_gpu_settle_owned(g); /* the listed ones are these and the ghosts */
    int32_t *h = (int32_t *)g->red.h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, g->halo.d_ghosts, sizeof(int32_t), cudaMemcpyDeviceToHost,
                                  g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    const int64_t ghosts = h[0];
    g->halo.ghosts_on_device = 0;
    g->halo.ghost_estimate =
        g->halo.fixed_estimate >= 0 ? g->halo.fixed_estimate : ghosts + ghosts / 16 + 256;
    g->pt.n_ghost = ghosts;
    g->cells.n_listed = g->pt.n_owned + ghosts;
}

/* All ghosts of a brick with at most one dimension split over ranks: the candidates (one
 * select), their image counts (one read-back), the local images written and the sent ones
 * packed in one pass, then one exchange with the neighbours along the split dimension. */
void vs_gpu_build_images(vs_gpu_state *g, int remote)
{
    const vs_image_faces f = image_faces(g, remote);
    const int n = (int)g->pt.n_owned;
    /* the candidates go to the sort's index buffer, free from the migration's end to the
     * cell list (the staged protocol's list would cost 4 bytes per particle more). A small
     * brick takes every owned particle as a candidate: the select saves bandwidth only
     * where there is some to save, and costs three launches */
    const int all = n <= g->halo.image_select_above;
    g->halo.ghosts_on_device = 0;
    if (ghosts_stay_on_device(g, remote, all)) {
        build_images_on_device(g, f);
        return;
    }
    int32_t *cand = all ? NULL : (int32_t *)g->sort.idx_in;
    int32_t *d_count = all ? NULL : g->halo.d_select_count;
    if (!all)
        vs_gpu_select_near_face(g, cand, d_count);
    /* the bound: the last build's candidates and some room (at first, the expected number);
     * too small, and the counts run again */
    int64_t bound = g->halo.img_bound > 0 ? g->halo.img_bound : expected_candidates(g), n_cand = 0;
    bound = bound < n && !all ? bound : n;
    int4 total = count_images(g, f, cand, d_count, bound, &n_cand);
    if (n_cand > bound) {
        bound = n_cand;
        total = count_images(g, f, cand, d_count, bound, &n_cand);
    }
    g->halo.img_bound = n_cand + n_cand / 8 + 1024;
    const int64_t n_local = total.x, n_out[2] = {total.y, total.z};
    int64_t n_in[2] = {0, 0};
    if (remote >= 0)
        vs_gpu_exchange_counts(g, remote, n_out, n_in);
    reserve_pair(g, (void **)&g->halo.img_src, sizeof(int32_t), (void **)&g->halo.img_code, 1,
                 &g->halo.cap_img, n_local);
    reserve_pair(g, (void **)&g->halo.img_send_src, sizeof(int32_t),
                 (void **)&g->halo.img_send_code, 1, &g->halo.cap_img_send, n_out[0] + n_out[1]);
    const int64_t capacity = g->pt.capacity;
    vs_gpu_reserve(g, n + n_local + n_in[0] + n_in[1]);
    if (g->pt.capacity != capacity) { /* growing replaced the index buffer and the
                                          cell-order copy's: again */
        if (!all) {
            cand = (int32_t *)g->sort.idx_in;
            vs_gpu_select_near_face(g, cand, g->halo.d_select_count);
        }
        if (g->halo.img_offsets_now != g->halo.img_offsets)
            count_images(g, f, cand, d_count, bound, &n_cand);
    }
    const size_t rec = vs_gpu_ghost_rec_bytes(g);
    if (remote >= 0)
        vs_gpu_comm_reserve(g, rec * (size_t)(n_out[0] + n_out[1]),
                            rec * (size_t)(n_in[0] + n_in[1]));
    if (g->bd.on)
        VS_LAUNCH(image_write_kernel<1>, n_cand, VS_BLOCK, g->stream, (int)n_cand, cand, f,
                  g->halo.img_offsets_now, soa(g), n, g->halo.img_src, g->halo.img_code,
                  g->tr.d_send, n_out[0], g->halo.img_send_src,
                  g->halo.img_send_code);
    else
        VS_LAUNCH(image_write_kernel<0>, n_cand, VS_BLOCK, g->stream, (int)n_cand, cand, f,
                  g->halo.img_offsets_now, soa(g), n, g->halo.img_src, g->halo.img_code,
                  g->tr.d_send, n_out[0], g->halo.img_send_src,
                  g->halo.img_send_code);
    g->halo.n_img_local = n_local;
    g->pt.n_ghost = n_local;
    g->tr.halo_bytes_last = 0;
    if (remote < 0)
        return;
    for (int dir = 0; dir < 2; ++dir) {
        g->halo.n_send[remote][dir] = n_out[dir];
        g->halo.n_recv[remote][dir] = n_in[dir];
    }
    g->halo.recv_start[remote][0] = n + n_local;
    g->halo.recv_start[remote][1] = n + n_local + n_in[0];
    const size_t send[2] = {rec * (size_t)n_out[0], rec * (size_t)n_out[1]};
    const size_t recv[2] = {rec * (size_t)n_in[0], rec * (size_t)n_in[1]};
    vs_gpu_stage_exchange(g, remote, send, recv);
    VS_LAUNCH(unpack_ghost_kernel, n_in[0] + n_in[1], VS_BLOCK, g->stream, (int)(n_in[0] + n_in[1]),
              g->tr.d_recv, n + n_local, soa(g));
    g->pt.n_ghost += n_in[0] + n_in[1];
    g->tr.halo_bytes_last = (int64_t)(send[0] + send[1]);
}

/* Positions and predicted velocities of the image path's ghosts again: the local images,
 * then the ones from the neighbours. */
void vs_gpu_update_local_images_of(vs_gpu_state *g, int remote)
{
    const vs_image_faces f = image_faces(g, remote);
    VS_LAUNCH(image_update_kernel, g->halo.n_img_local, VS_BLOCK, g->stream,
              (int)g->halo.n_img_local, g->pt.n_owned, f, g->halo.img_src, g->halo.img_code,
              soa(g));
    g->tr.halo_bytes_last = 0;
}

void vs_gpu_update_remote_images_of(vs_gpu_state *g, int remote)
{
    const vs_image_faces f = image_faces(g, remote);
    g->tr.halo_bytes_last = 0;
    if (remote < 0)
        return;
    const int64_t *n_out = g->halo.n_send[remote], *n_in = g->halo.n_recv[remote];
    const size_t rec = vs_gpu_ghost_update_rec_bytes(g);
    vs_gpu_comm_reserve(g, rec * (size_t)(n_out[0] + n_out[1]),
                        rec * (size_t)(n_in[0] + n_in[1]));
    VS_LAUNCH(image_pack_update_kernel, n_out[0] + n_out[1], VS_BLOCK, g->stream,
              (int)(n_out[0] + n_out[1]), f, g->halo.img_send_src, g->halo.img_send_code, soa(g),
              g->tr.d_send);
    const size_t send[2] = {rec * (size_t)n_out[0], rec * (size_t)n_out[1]};
    const size_t recv[2] = {rec * (size_t)n_in[0], rec * (size_t)n_in[1]};
    vs_gpu_stage_exchange(g, remote, send, recv);
    VS_LAUNCH(unpack_update_kernel, n_in[0] + n_in[1], VS_BLOCK, g->stream,
              (int)(n_in[0] + n_in[1]), g->tr.d_recv,
              g->halo.recv_start[remote][0], soa(g));
    g->tr.halo_bytes_last = (int64_t)(send[0] + send[1]);
}

void vs_gpu_update_local_images(vs_gpu_state *g) { vs_gpu_update_local_images_of(g, vs_gpu_image_remote(g)); }
void vs_gpu_update_remote_images(vs_gpu_state *g) { vs_gpu_update_remote_images_of(g, vs_gpu_image_remote(g)); }

/* ---- The slab path's image kernels (gpu_slab.cu drives them) ---- */

/* The image counts (local, lower, upper) of the first n owned particles summed into
 * sums[0..2] (zeroed before): the bounds' base, taken before the migration. */
__global__ void slab_count_kernel(int n, vs_image_faces f, vs_positions pos, int32_t *sums)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int4 c = make_int4(0, 0, 0, 0);
    if (i < n) {
        double p[3];
        vs_pos_load(pos, i, p);
        c = vs_image_counts(f, p, false);
    }
    const int x = __reduce_add_sync(0xffffffffu, c.x), y = __reduce_add_sync(0xffffffffu, c.y),
              z = __reduce_add_sync(0xffffffffu, c.z);
    if (threadIdx.x % 32 == 0 && (x | y | z)) {
        atomicAdd(&sums[0], x);
        atomicAdd(&sums[1], y);
        atomicAdd(&sums[2], z);
    }
}

/* The slab path's image pass, in two kernels like one rank's. First, slab_candidates_kernel:
 * the arrivals unpacked after the stayers (stay[0] of them): n0 records from in0 (their
 * number in the sender's header hdr0, word 0: its leavers down), then n1 from in1 (hdr1,
 * word 1: its leavers up), each at most its bound (past it, ctr[5] is raised); the owned
 * particles' number to stay[1]. The first stayer_blocks blocks append the stayers that are
 * candidates (vs_flagged_candidates, flags kept current by the pack's fill), the others
 * unpack an arrival a thread and append each (its flag is the unpack's, just written), all to
 * cand with their number in ctr[4]. The kernel also clears the n_zero words at zero, the
 * cell list's counts, as the one-rank pass does. A null header: no arrivals from that side. */
__global__ void slab_candidates_kernel(int32_t *stay, const int32_t *hdr0, const int32_t *hdr1,
                                       int bound0, int bound1, const char *in0, const char *in1,
                                       double lo, double hi, unsigned long long *outside,
                                       int remote, vs_soa a, unsigned stayer_blocks,
                                       int32_t *cand, int32_t *ctr, uint32_t *zero,
                                       int64_t n_zero)
{
    const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    for (int64_t k = t; k < n_zero; k += (int64_t)gridDim.x * blockDim.x)
        zero[k] = 0;
    const int n_stay = stay[0];
    if (blockIdx.x < stayer_blocks) {
        vs_flagged_candidates(t, n_stay, a.faces.near, cand, &ctr[4]);
        return;
    }
    int n0 = hdr0 ? hdr0[0] : 0, n1 = hdr1 ? hdr1[1] : 0;
    if (n0 > bound0 || n1 > bound1) { /* cannot happen: the sender stops at its bound */
        ctr[5] = 1;
        n0 = n0 > bound0 ? bound0 : n0;
        n1 = n1 > bound1 ? bound1 : n1;
    }
    const int n = n_stay + n0 + n1;
    const int64_t k = t - (int64_t)stayer_blocks * blockDim.x; /* arrival k */
    if (k == 0)
        stay[1] = n;
    const int j = n_stay + (int)k;
    const bool arrives = j < n;
    if (arrives) {
        const size_t rec = vs_migrant_bytes(a);
        if (k < n0)
            vs_unpack_migrant(in0, k, rec, n_stay, a, remote, lo, hi, outside);
        else
            vs_unpack_migrant(in1, k - n0, rec, n_stay + n0, a, remote, lo, hi, outside);
    }
    const int slot = vs_block_slots(make_int3(arrives, 0, 0), &ctr[4], NULL, NULL).x;
    if (arrives)
        cand[slot] = j;
}

/* Then slab_image_kernel: every image of the candidates (cand[0 .. ctr[4])), counted on the
 * device: each block takes its slots with one atomic add per kind on the counters ctr
 * (vs_block_slots: local images into the ghost slots, sent ones into the send buffer's
 * records, lower ones from 0, upper ones from lower_cap). The order is the atomics' (the
 * Newton kernel's fixed-point sums do not depend on it). A count past its bound writes
 * nothing and raises the overflow counter (ctr[3]). slab_header_kernel then copies the
 * counters into the header the neighbours read, so that the header needs no clearing while
 * a neighbour may still read it: the ghost unpack clears ctr. The grid strides over the
 * candidates a block at a time. */
__global__ void slab_image_kernel(const int32_t *stay, const int32_t *cand, vs_image_faces f,
                                  vs_soa a, int64_t local_cap, void *send, int64_t lower_cap,
                                  int64_t upper_cap, int32_t *ctr)
{
    const int n = stay[1];
    const int64_t total = ctr[4];
    for (int64_t from = blockIdx.x * (int64_t)blockDim.x; from < total;
         from += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = from + threadIdx.x;
        const int i = k < total ? cand[k] : 0;
        int4 c = make_int4(0, 0, 0, 0);
        if (k < total) {
            double p[3];
            vs_pos_load(a.pos, i, p);
            c = vs_image_counts(f, p, false);
        }
        const int3 first = vs_block_slots(make_int3(c.x, c.y, c.z), &ctr[0], &ctr[1], &ctr[2]);
        if (c.x + c.y + c.z > 0) {
            int64_t next[3] = {first.x, first.y, lower_cap + first.z};
            if (next[0] + c.x > local_cap || next[1] + c.y > lower_cap ||
                next[2] - lower_cap + c.z > upper_cap)
                atomicExch(&ctr[3], 1);
            else
                vs_write_images<0>(i, f, a, n, next, NULL, NULL, send, NULL, NULL);
        }
    }
}

/* The image pass's counters into the header the neighbours read (sent down, sent up, local,
 * overflow), after the pass, and the neighbours signalled: one thread, so that no block of
 * the pass waits on a fence and a ticket to find the last one. The pass's records are in
 * this GPU's memory, where the neighbours read them, since the pass ended. */
__global__ void slab_header_kernel(const int32_t *ctr, int32_t *header, vs_slab_signal signal)
{
    header[0] = ctr[1];
    header[1] = ctr[2];
    header[2] = ctr[0];
    header[3] = ctr[3];
    vs_slab_raise(signal);
}

void vs_gpu_slab_most_images(const vs_gpu_state *g, int remote, int64_t *local, int64_t *sent)
{
    const vs_image_faces f = image_faces(g, remote);
    *local = most_images_each(f, false);
    *sent = 1;
    for (int d = 0; d < 3; ++d)
        if (d != remote)
            *sent *= f.hi_edge[d] <= f.lo_edge[d] ? 3 : 2;
}

void vs_gpu_slab_count_images(vs_gpu_state *g, int remote)
{
    int32_t *sums = g->halo.d_select_count + 4;
    VS_CUDA_CHECK(cudaMemsetAsync(sums, 0, 3 * sizeof(int32_t), g->stream));
    VS_LAUNCH(slab_count_kernel, g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned,
              image_faces(g, remote), vs_gpu_positions(g), sums);
}

void vs_gpu_slab_write_images(vs_gpu_state *g, int remote, size_t header,
                              const vs_slab_signal &signal)
{
    /* the header: counts sent down and up, local images, overflow flag (slab_image_kernel) */
    const int64_t n = g->pt.n_owned; /* the bound: stayers and arrivals */
    const int64_t arrivals = g->slab.arrive_bound[0] + g->slab.arrive_bound[1];
    const unsigned stayer_blocks = (unsigned)((n + VS_FLAGS_PER_THREAD * VS_BLOCK - 1) /
                                              (VS_FLAGS_PER_THREAD * VS_BLOCK));
    const unsigned arrival_blocks = (unsigned)((arrivals + VS_BLOCK - 1) / VS_BLOCK) + 1;
    uint32_t *zero = cell_counts_to_clear(g);
    const vs_soa a = soa(g);
    int32_t *cand = (int32_t *)g->sort.idx_in; /* free once the pack's fill read the holes */
    slab_candidates_kernel<<<stayer_blocks + arrival_blocks, VS_BLOCK, 0, g->stream>>>(
        g->slab.d_stay, (const int32_t *)g->slab.in_header[0],
        (const int32_t *)g->slab.in_header[1], (int)g->slab.arrive_bound[0],
        (int)g->slab.arrive_bound[1], g->slab.in[0], g->slab.in[1], g->lo[remote],
        g->hi[remote], g->halo.d_outside, remote, a, stayer_blocks, cand, g->slab.d_ctr, zero,
        g->cells.n_zeroed);
    VS_CUDA_CHECK(cudaGetLastError());
    const int64_t most = expected_candidates(g) + arrivals; /* the grid; it strides over more */
    slab_image_kernel<<<(unsigned)((most + VS_BLOCK - 1) / VS_BLOCK), VS_BLOCK, 0, g->stream>>>(
        g->slab.d_stay, cand, image_faces(g, remote), a, g->slab.local_bound,
        g->tr.d_ghost_send + header, g->slab.out_bound[0], g->slab.out_bound[1], g->slab.d_ctr);
    VS_CUDA_CHECK(cudaGetLastError());
    slab_header_kernel<<<1, 1, 0, g->stream>>>(g->slab.d_ctr, (int32_t *)g->tr.d_ghost_send,
                                               signal);
    VS_CUDA_CHECK(cudaGetLastError());
}
