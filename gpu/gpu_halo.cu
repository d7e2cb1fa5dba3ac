/* Ghosts and migration on the device: border detection, send lists, packing and unpacking.
 *
 * Two ways to the same ghost set (the CPU's, comm/halo.h: every particle within the ghost
 * width of a face, shifted by the box across its ends, edges and corners included):
 * - The image path, when at most one dimension is split over ranks (one GPU, or slabs). One
 *   flag pass and select find the owned particles near any face; one count and scan give
 *   each its images (one per combination of per-dimension face digits); one read-back of the
 *   totals; one pass writes the local images into the ghost slots and packs the images that
 *   belong to the neighbours along the split dimension, which one exchange delivers. Each
 *   image remembers its source and digits, so the steps between rebuilds only refresh them.
 * - The staged protocol, when several dimensions are split: three stages (x, y, z), two
 *   directions each; in each stage, particles within the ghost width of the lower or upper
 *   face (owned, or ghosts of earlier stages, so edges and corners are forwarded) are
 *   selected into a send list with CUB, in index order, and either copied on the device
 *   (a dimension with one rank) or packed, exchanged through the transport
 *   (gpu_transport.cu) and unpacked; one read-back of the counts per stage.
 * Send lists are built on rebuild steps and reused on the other steps, when only positions
 * and predicted velocities travel. All orders are fixed, so runs are reproducible.
 *
 * Migration (rebuild steps, before the ghosts): per dimension split over ranks, one select
 * finds the owned particles that left the brick, one block splits them by face; they are
 * packed with everything they carry, their slots are filled by the stayers beyond the new
 * end (O(leavers) moves), and the arrivals appended. One hop per dimension is enough (the
 * rebuild trigger guarantees it): the unpacking checks each arrival, and the ghost build's
 * read-back brings the verdict; a particle outside its brick is a fatal error naming it.
 */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpu_internal.cuh"

extern "C" {
#include "exchange.h"
}

/* Records travel as defined in src/core/particles.h (vs_migrant_rec, vs_ghost_rec,
 * vs_ghost_update_rec), the same on the host path (comm/halo.c). */

/* The arrays a kernel touches, passed by value. */
struct vs_soa {
    double *x[3], *vp[3], *v[3];
    int32_t *image[3];
    int64_t *tag;
    int32_t *species;
    /* the owned particles' mixed force inputs, when they are kept current (vs_gpu_owned_staged;
     * else NULL): moved with the particles, staged for arrivals */
    int4 *pos_q;
    float4 *vel_f;
    vs_fixed_frame frame;
};

static vs_soa soa(vs_gpu_state *g)
{
    vs_soa a;
    for (int d = 0; d < 3; ++d) {
        a.x[d] = g->pt.x[d];
        a.vp[d] = g->pt.vp[d];
        a.v[d] = g->pt.v[d];
        a.image[d] = g->pt.image[d];
    }
    a.tag = g->pt.tag;
    a.species = g->pt.species_id;
    a.pos_q = vs_gpu_owned_staged(g) ? g->fs.pos_q : NULL;
    a.vel_f = g->fs.vel_f;
    a.frame = g->fs.frame;
    return a;
}

/* Ghost copy within this rank (periodic image): position shifted along d and the predicted
 * velocity; on rebuild steps also tag and species (with_ids). */
__global__ void ghost_copy_kernel(int n, const int32_t *send, int64_t start, int d,
                                  double shift, vs_soa a, int with_ids)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = send[k];
    const int64_t j = start + k;
    for (int c = 0; c < 3; ++c) {
        a.x[c][j] = a.x[c][i] + (c == d ? shift : 0.0);
        a.vp[c][j] = a.vp[c][i];
    }
    if (with_ids) {
        a.tag[j] = a.tag[i];
        a.species[j] = a.species[i];
    }
}

__global__ void pack_ghost_kernel(int n, const int32_t *send, int d, double shift, vs_soa a,
                                  vs_ghost_rec *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = send[k];
    vs_ghost_rec r;
    for (int c = 0; c < 3; ++c) {
        r.x[c] = a.x[c][i] + (c == d ? shift : 0.0);
        r.vp[c] = a.vp[c][i];
    }
    r.tag = a.tag[i];
    r.species = a.species[i];
    r.pad = 0;
    out[k] = r;
}

__global__ void unpack_ghost_kernel(int n, const vs_ghost_rec *in, int64_t start, vs_soa a)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const vs_ghost_rec r = in[k];
    const int64_t j = start + k;
    for (int c = 0; c < 3; ++c) {
        a.x[c][j] = r.x[c];
        a.vp[c][j] = r.vp[c];
    }
    a.tag[j] = r.tag;
    a.species[j] = r.species;
}

__global__ void pack_update_kernel(int n, const int32_t *send, int d, double shift, vs_soa a,
                                   vs_ghost_update_rec *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = send[k];
    vs_ghost_update_rec r;
    for (int c = 0; c < 3; ++c) {
        r.x[c] = a.x[c][i] + (c == d ? shift : 0.0);
        r.vp[c] = a.vp[c][i];
    }
    out[k] = r;
}

__global__ void unpack_update_kernel(int n, const vs_ghost_update_rec *in, int64_t start, vs_soa a)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const vs_ghost_update_rec r = in[k];
    for (int c = 0; c < 3; ++c) {
        a.x[c][start + k] = r.x[c];
        a.vp[c][start + k] = r.vp[c];
    }
}

/* Migration along the dimensions with one rank (bit d of `self`), in one pass: wrap into
 * [0, L) and count the image. */
__global__ void wrap_kernel(int n, int self, double lx, double ly, double lz, vs_soa a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double len[3] = {lx, ly, lz};
    for (int d = 0; d < 3; ++d)
        if (self >> d & 1)
            vs_wrap_periodic(&a.x[d][i], &a.image[d][i], len[d]);
}

/* Leavers with everything they carry; crossing the periodic boundary (wrap != 0) shifts the
 * coordinate by the box and counts the image, as the CPU migration does. */
__global__ void pack_migrant_kernel(int n, const int32_t *send, int d, int wrap, double len,
                                    vs_soa a, vs_migrant_rec *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = send[k];
    vs_migrant_rec r;
    for (int c = 0; c < 3; ++c) {
        r.x[c] = a.x[c][i];
        r.v[c] = a.v[c][i];
        r.vp[c] = a.vp[c][i];
        r.image[c] = a.image[c][i];
    }
    if (wrap < 0)
        vs_wrap_down(&r.x[d], &r.image[d], len);
    else if (wrap > 0)
        vs_wrap_up(&r.x[d], &r.image[d], len);
    r.tag = a.tag[i];
    r.species = a.species[i];
    out[k] = r;
}

/* Arrivals along d, each checked against the brick along d: one hop per dimension must have
 * been enough (the rebuild trigger guarantees it), and a position that is not finite is not
 * inside either. The smallest offending tag goes to *outside. */
__global__ void unpack_migrant_kernel(int n, const vs_migrant_rec *in, int64_t start, vs_soa a,
                                      int d, double lo, double hi, unsigned long long *outside)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const vs_migrant_rec r = in[k];
    const int64_t j = start + k;
    for (int c = 0; c < 3; ++c) {
        a.x[c][j] = r.x[c];
        a.v[c][j] = r.v[c];
        a.vp[c][j] = r.vp[c];
        a.image[c][j] = r.image[c];
    }
    a.tag[j] = r.tag;
    a.species[j] = r.species;
    if (a.pos_q)
        vs_stage_values(a.frame, j, r.x[0], r.x[1], r.x[2], r.species, r.vp[0], r.vp[1],
                        r.vp[2], a.pos_q, a.vel_f);
    if (!(r.x[d] >= lo && r.x[d] < hi))
        atomicMin(outside, (unsigned long long)r.tag);
}

/* The leavers (holes, in index order; *count of them) split by face, each list in index
 * order: below the lower face, else the upper one (a position that is not finite goes up,
 * where the arrival check names it). One block: leavers are few, and the block's scans keep
 * the order without atomics. */
enum { VS_SPLIT_THREADS = 1024 };
__global__ void __launch_bounds__(VS_SPLIT_THREADS)
    split_leavers_kernel(const int32_t *count, const int32_t *holes, const double *x, double lo,
                         int32_t *lower, int32_t *upper, int32_t *counts)
{
    typedef cub::BlockScan<int, VS_SPLIT_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    const int n = *count;
    int n_lower = 0; /* lower leavers before this chunk */
    for (int start = 0; start < n; start += VS_SPLIT_THREADS) {
        const int k = start + (int)threadIdx.x;
        const int i = k < n ? holes[k] : 0;
        const int below = k < n && x[i] < lo;
        int rank = 0, total = 0;
        scan_t(tmp).ExclusiveSum(below, rank, total);
        if (k < n) {
            if (below)
                lower[n_lower + rank] = i;
            else
                upper[k - n_lower - rank] = i;
        }
        n_lower += total;
        __syncthreads(); /* tmp is reused */
    }
    if (threadIdx.x == 0) {
        counts[0] = n_lower;
        counts[1] = n - n_lower;
    }
}

/* Close the holes the leavers left: the k-th stayer beyond the new end (movers[k]) moves into
 * the k-th leaver slot below it (holes[k]); there are as many of one as of the other, *count.
 * Only O(leavers) particles move, and the stayers below the end keep their order. */
__global__ void fill_holes_kernel(int max_n, const int32_t *count, const int32_t *holes,
                                  const int32_t *movers, vs_soa a)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= max_n || k >= *count)
        return;
    const int to = holes[k], from = movers[k];
    for (int c = 0; c < 3; ++c) {
        a.x[c][to] = a.x[c][from];
        a.v[c][to] = a.v[c][from];
        a.vp[c][to] = a.vp[c][from];
        a.image[c][to] = a.image[c][from];
    }
    a.tag[to] = a.tag[from];
    a.species[to] = a.species[from];
    if (a.pos_q) {
        a.pos_q[to] = a.pos_q[from];
        a.vel_f[to] = a.vel_f[from];
    }
}

/* The image path: at most one dimension (`remote`) is split over ranks, the others are
 * periodic within the rank. A particle within the ghost width of faces has one image per
 * combination of per-dimension digits (0 itself, 1 near the lower face, 2 near the upper
 * one), less the particle itself. Images whose remote digit is 0 stay here (periodic images,
 * shifted by the box); those with remote digit 1 (2) go to the lower (upper) neighbour,
 * shifted by the box where the brick touches the box's end. This is the staged protocol's
 * ghost set: a ghost the staged protocol forwards along a later dimension is the image the
 * sender makes here with both digits set, with the same coordinates. */
struct vs_image_faces {
    double lo_edge[3], hi_edge[3];
    double shift[3][3]; /* [dimension][digit] */
    int remote;         /* the dimension split over ranks, -1 for none */
};

__device__ __forceinline__ int vs_image_digits(const vs_image_faces &f, double u, int d,
                                               int digits[3])
{
    int n = 0;
    digits[n++] = 0;
    if (u < f.lo_edge[d])
        digits[n++] = 1;
    if (u >= f.hi_edge[d])
        digits[n++] = 2;
    return n;
}

/* Images of particle p: local, to the lower and to the upper neighbour. */
__device__ __forceinline__ int4 vs_image_counts(const vs_image_faces &f, const double p[3])
{
    int per_dim[3], lower = 0, upper = 0;
    for (int d = 0; d < 3; ++d)
        per_dim[d] = 1 + (p[d] < f.lo_edge[d]) + (p[d] >= f.hi_edge[d]);
    if (f.remote >= 0) {
        const int r = f.remote;
        lower = p[r] < f.lo_edge[r];
        upper = p[r] >= f.hi_edge[r];
        per_dim[r] = 1;
    }
    const int others = per_dim[0] * per_dim[1] * per_dim[2];
    return make_int4(others - 1, lower * others, upper * others, 0);
}

/* Counts of the candidates (the first *n_cand of `cand`; without a list, the first `bound`
 * owned particles), zero from there to `bound` inclusive, so that the exclusive scan's entry
 * `bound` holds the totals. */
__global__ void image_count_kernel(int bound, const int32_t *n_cand, const int32_t *cand,
                                   vs_image_faces f, const double *x, const double *y,
                                   const double *z, int4 *counts)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k > bound)
        return;
    int4 c = make_int4(0, 0, 0, 0);
    if (k < (n_cand ? *n_cand : bound)) {
        const int i = cand ? cand[k] : k;
        const double p[3] = {x[i], y[i], z[i]};
        c = vs_image_counts(f, p);
    }
    counts[k] = c;
}

/* Every image of candidate k, in a fixed order (x digit slowest): local ones into the ghost
 * slots after the owned particles, sent ones as records into the send buffer (lower ones
 * first, then from upper_base); each remembers its source and digit code for the updates. */
__global__ void image_write_kernel(int n_cand, const int32_t *cand, vs_image_faces f,
                                   const int4 *offsets, vs_soa a, int64_t n_owned,
                                   int32_t *src, uint8_t *code, vs_ghost_rec *send,
                                   int64_t upper_base, int32_t *send_src, uint8_t *send_code)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n_cand)
        return;
    const int i = cand ? cand[k] : k;
    const double p[3] = {a.x[0][i], a.x[1][i], a.x[2][i]};
    const double v[3] = {a.vp[0][i], a.vp[1][i], a.vp[2][i]};
    const int64_t tag = a.tag[i];
    const int32_t species = a.species[i];
    int dig[3][3], nd[3];
    for (int d = 0; d < 3; ++d)
        nd[d] = vs_image_digits(f, p[d], d, dig[d]);
    const int4 o = offsets[k];
    int64_t next[3] = {o.x, o.y, upper_base + o.z}; /* local, lower, upper */
    for (int ax = 0; ax < nd[0]; ++ax)
        for (int ay = 0; ay < nd[1]; ++ay)
            for (int az = 0; az < nd[2]; ++az) {
                if (ax + ay + az == 0)
                    continue; /* the particle itself */
                const int digit[3] = {dig[0][ax], dig[1][ay], dig[2][az]};
                const uint8_t c = (uint8_t)(digit[0] + 3 * digit[1] + 9 * digit[2]);
                double q[3];
                for (int d = 0; d < 3; ++d)
                    q[d] = p[d] + f.shift[d][digit[d]];
                const int where = f.remote >= 0 ? digit[f.remote] : 0;
                const int64_t s = next[where]++;
                if (where == 0) {
                    const int64_t j = n_owned + s;
                    for (int d = 0; d < 3; ++d) {
                        a.x[d][j] = q[d];
                        a.vp[d][j] = v[d];
                    }
                    a.tag[j] = tag;
                    a.species[j] = species;
                    src[s] = i;
                    code[s] = c;
                } else {
                    vs_ghost_rec r;
                    for (int d = 0; d < 3; ++d) {
                        r.x[d] = q[d];
                        r.vp[d] = v[d];
                    }
                    r.tag = tag;
                    r.species = species;
                    r.pad = 0;
                    send[s] = r;
                    send_src[s] = i;
                    send_code[s] = c;
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
    for (int d = 0; d < 3; ++d) {
        a.x[d][j] = a.x[d][i] + f.shift[d][digit[d]];
        a.vp[d][j] = a.vp[d][i];
    }
}

/* The same for the sent images, packed as update records in the rebuild's order. */
__global__ void image_pack_update_kernel(int n, vs_image_faces f, const int32_t *src,
                                         const uint8_t *code, vs_soa a, vs_ghost_update_rec *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = src[k], c = code[k];
    const int digit[3] = {c % 3, c / 3 % 3, c / 9};
    vs_ghost_update_rec r;
    for (int d = 0; d < 3; ++d) {
        r.x[d] = a.x[d][i] + f.shift[d][digit[d]];
        r.vp[d] = a.vp[d][i];
    }
    out[k] = r;
}

static void reserve_send(vs_gpu_state *g, int d, int dir, int64_t n)
{
    if (n <= g->halo.cap_send[d][dir])
        return;
    const int64_t cap = n + n / 2 + 1024;
    vs_gpu_free(g, g->halo.send_idx[d][dir], sizeof(int32_t) * (size_t)g->halo.cap_send[d][dir]);
    g->halo.send_idx[d][dir] = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t) * (size_t)cap);
    g->halo.cap_send[d][dir] = cap;
}

/* Within the ghost width of the lower (upper = 0) or upper face of dimension d: the send
 * lists' test, the same comparison as the CPU's. */
struct vs_border_pred {
    const double *x;
    double edge;
    int upper;
    __device__ __forceinline__ bool operator()(int32_t i) const
    {
        return upper ? x[i] >= edge : x[i] < edge;
    }
};

/* Within the ghost width of any face: an owned particle that is not can be in no send list
 * of any stage, so the y and z stages select among these and the ghosts, not all owned. */
struct vs_near_face_pred {
    const double *x, *y, *z;
    double lo_edge[3], hi_edge[3];
    __device__ __forceinline__ bool operator()(int32_t i) const
    {
        const double p[3] = {x[i], y[i], z[i]};
        bool near = false;
        for (int d = 0; d < 3; ++d)
            near |= p[d] < lo_edge[d] || p[d] >= hi_edge[d];
        return near;
    }
};

__global__ void iota_kernel(int n, int32_t first, int32_t *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        out[k] = first + k;
}

/* Room for n ghost candidates, keeping the first `keep`. */
static void reserve_cand(vs_gpu_state *g, int64_t n, int64_t keep)
{
    if (n <= g->halo.cap_cand)
        return;
    const int64_t cap = n + n / 16 + 1024;
    int32_t *q = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t) * (size_t)cap);
    if (keep > 0)
        VS_CUDA_CHECK(cudaMemcpyAsync(q, g->halo.ghost_cand, sizeof(int32_t) * (size_t)keep,
                                      cudaMemcpyDeviceToDevice, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    vs_gpu_free(g, g->halo.ghost_cand, sizeof(int32_t) * (size_t)g->halo.cap_cand);
    g->halo.ghost_cand = q;
    g->halo.cap_cand = cap;
}

/* Bring `n` select counters to the host (one synchronisation). */
static void read_counts(vs_gpu_state *g, int n, int64_t *out)
{
    int32_t *h = (int32_t *)g->red.h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, g->halo.d_select_count, (size_t)n * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    for (int k = 0; k < n; ++k)
        out[k] = h[k];
}

/* The migration's arrival check, read back with the ghost counts (the synchronisation here
 * finds the stream idle): a particle outside its brick after one hop per dimension moved
 * more than a brick since the last build, or its position is not finite. */
static void check_outside(vs_gpu_state *g)
{
    if (!g->halo.outside_pending)
        return;
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    g->halo.outside_pending = 0;
    if (*g->halo.h_outside != ~0ull)
        VS_FATAL("step %lld: particle %llu is outside its brick after migration: it moved "
                 "more than one brick since the last neighbour-list build (or its position is "
                 "not finite)",
                 (long long)g->halo.outside_step, *g->halo.h_outside);
}

static void migrate_dimension(vs_gpu_state *g, int d)
{
    const vs_decomp *dc = g->tr.dc;
    const int n = (int)g->pt.n_owned;
    const double len = g->prm.box[d];
    if (g->tr.link[d] == VS_LINK_SELF)
        return; /* wrapped by vs_gpu_migrate */
    /* leavers through each face, and all leavers in index order (the holes) */
    reserve_send(g, d, 0, n);
    reserve_send(g, d, 1, n);
    int32_t *holes = (int32_t *)g->sort.idx_in, *movers = (int32_t *)g->sort.idx_out;
    int32_t *lists[2] = {g->halo.send_idx[d][0], g->halo.send_idx[d][1]};
    int64_t counts[3] = {0, 0, 0};
    if (n > 0) {
        /* one pass over the owned particles finds the leavers; splitting them by face reads
         * only them */
        const vs_leaver_pred pred = {g->pt.x[d], g->lo[d], g->hi[d]};
        VS_CUDA_CHECK(cub::DeviceSelect::If(g->sort.cub_temp, g->sort.cub_temp_bytes,
                                            thrust::counting_iterator<int32_t>(0), holes,
                                            g->halo.d_select_count + 2, n, pred, g->stream));
        split_leavers_kernel<<<1, VS_SPLIT_THREADS, 0, g->stream>>>(
            g->halo.d_select_count + 2, holes, g->pt.x[d], g->lo[d], lists[0], lists[1],
            g->halo.d_select_count);
        VS_CUDA_CHECK(cudaGetLastError());
        read_counts(g, 3, counts);
    }
    const int64_t n_out[2] = {counts[0], counts[1]};
    int64_t n_in[2];
    vs_gpu_exchange_counts(g, d, n_out, n_in);
    const size_t rec = sizeof(vs_migrant_rec);
    vs_gpu_comm_reserve(g, rec * (size_t)(n_out[0] + n_out[1]),
                        rec * (size_t)(n_in[0] + n_in[1]));
    const int wrap[2] = {dc->coords[d] == 0 ? -1 : 0, dc->coords[d] == dc->dims[d] - 1 ? 1 : 0};
    vs_migrant_rec *out = (vs_migrant_rec *)g->tr.d_send;
    VS_LAUNCH(pack_migrant_kernel, n_out[0], VS_BLOCK, g->stream, (int)n_out[0], lists[0], d,
              wrap[0], len, soa(g), out);
    VS_LAUNCH(pack_migrant_kernel, n_out[1], VS_BLOCK, g->stream, (int)n_out[1], lists[1], d,
              wrap[1], len, soa(g), out + n_out[0]);
    /* close the holes below the new end with the stayers above it */
    const int n_left = (int)counts[2], n_stay = n - n_left;
    if (n_left > 0) {
        const vs_stayer_pred pred = {g->pt.x[d], g->lo[d], g->hi[d]};
        VS_CUDA_CHECK(cub::DeviceSelect::If(g->sort.cub_temp, g->sort.cub_temp_bytes,
                                            thrust::counting_iterator<int32_t>(n_stay), movers,
                                            g->halo.d_select_count + 3, n_left, pred, g->stream));
        VS_LAUNCH(fill_holes_kernel, n_left, VS_BLOCK, g->stream, n_left,
                  g->halo.d_select_count + 3, holes, movers, soa(g));
    }
    g->pt.n_owned = n_stay;
    const size_t send[2] = {rec * (size_t)n_out[0], rec * (size_t)n_out[1]};
    const size_t recv[2] = {rec * (size_t)n_in[0], rec * (size_t)n_in[1]};
    vs_gpu_stage_exchange(g, d, send, recv);
    vs_gpu_reserve(g, g->pt.n_owned + n_in[0] + n_in[1]);
    const vs_migrant_rec *in = (const vs_migrant_rec *)g->tr.d_recv;
    VS_LAUNCH(unpack_migrant_kernel, n_in[0] + n_in[1], VS_BLOCK, g->stream,
              (int)(n_in[0] + n_in[1]), in, g->pt.n_owned, soa(g), d, g->lo[d], g->hi[d],
              g->halo.d_outside);
    g->pt.n_owned += n_in[0] + n_in[1];
}

extern "C" int64_t vs_gpu_migrate(vs_gpu_state *g, int64_t step)
{
    g->pt.n_ghost = 0;
    const int64_t before = g->pt.n_owned;
    /* the dimensions with one rank first, all in one pass: the particles a neighbour sends
     * along another dimension arrive wrapped */
    int self = 0;
    for (int d = 0; d < 3; ++d)
        self |= (g->tr.link[d] == VS_LINK_SELF) << d;
    if (self && g->stamp.wrapped != g->ver.step) { /* not wrapped by the first half-step */
        ++g->ver.owned; /* positions change here */
        VS_LAUNCH(wrap_kernel, g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned, self,
                  g->prm.box[0], g->prm.box[1], g->prm.box[2], soa(g));
    }
    ++g->ver.step; /* the rebuild reuses the energy buffers; a wrap is due again */
    int crosses = 0;
    for (int d = 0; d < 3; ++d)
        crosses |= g->tr.link[d] != VS_LINK_SELF;
    if (crosses)
        VS_CUDA_CHECK(
            cudaMemsetAsync(g->halo.d_outside, 0xff, sizeof(unsigned long long), g->stream));
    for (int d = 0; d < 3; ++d)
        migrate_dimension(g, d);
    if (crosses) {
        /* the arrival check's verdict comes back with the next read-back (check_outside) */
        VS_CUDA_CHECK(cudaMemcpyAsync(g->halo.h_outside, g->halo.d_outside,
                                      sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                      g->stream));
        g->halo.outside_pending = 1;
        g->halo.outside_step = step;
    }
    vs_gpu_reorder(g);
    return before - g->pt.n_owned > 0 ? before - g->pt.n_owned : 0;
}

/* The dimension split over ranks when at most one is (-1: none, the brick is the box), or -2
 * when several are (the staged protocol). */
static int image_remote(const vs_gpu_state *g)
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
        const double len = g->prm.box[d];
        f.lo_edge[d] = g->lo[d] + g->ghost_width;
        f.hi_edge[d] = g->hi[d] - g->ghost_width;
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

__global__ void near_face_flag_kernel(int n, vs_near_face_pred near, uint8_t *flag)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        flag[i] = near(i);
}

/* The owned particles within the ghost width of any face, in index order, into `out` and
 * their number into *count. Flags first, in one coalesced pass: a select-if whose predicate
 * reads three coordinates per index moves the same bytes at half the speed (the CUB select
 * loads each thread's consecutive indices, so a warp's reads are strided). The flags live
 * in the permutation scratch, which is free between the migration and the cell list. */
static void select_near_face(vs_gpu_state *g, int32_t *out, int32_t *count)
{
    const int n = (int)g->pt.n_owned;
    if (n == 0) {
        VS_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(int32_t), g->stream));
        return;
    }
    vs_near_face_pred near;
    near.x = g->pt.x[0];
    near.y = g->pt.x[1];
    near.z = g->pt.x[2];
    for (int e = 0; e < 3; ++e) {
        near.lo_edge[e] = g->lo[e] + g->ghost_width;
        near.hi_edge[e] = g->hi[e] - g->ghost_width;
    }
    uint8_t *flag = (uint8_t *)g->sort.scratch;
    VS_LAUNCH(near_face_flag_kernel, n, VS_BLOCK, g->stream, n, near, flag);
    VS_CUDA_CHECK(cub::DeviceSelect::Flagged(g->sort.cub_temp, g->sort.cub_temp_bytes,
                                             thrust::counting_iterator<int32_t>(0), flag, out,
                                             count, n, g->stream));
}

/* Candidates a build expects: the owned particles in the shell of the ghost width inside
 * the brick's faces, at a uniform density, with a quarter more room. */
static int64_t expected_candidates(const vs_gpu_state *g)
{
    double inner = 1.0;
    for (int d = 0; d < 3; ++d) {
        const double len = g->hi[d] - g->lo[d];
        inner *= len > 2.0 * g->ghost_width ? (len - 2.0 * g->ghost_width) / len : 0.0;
    }
    return (int64_t)(1.25 * (1.0 - inner) * (double)g->pt.n_owned) + 4096;
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
    reserve_pair(g, (void **)&g->halo.img_counts, sizeof(int4), (void **)&g->halo.img_offsets,
                 sizeof(int4), &g->halo.cap_img_counts, bound + 1);
    VS_LAUNCH(image_count_kernel, bound + 1, VS_BLOCK, g->stream, (int)bound, d_count, cand, f,
              g->pt.x[0], g->pt.x[1], g->pt.x[2], g->halo.img_counts);
    VS_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(
        g->sort.cub_temp, g->sort.cub_temp_bytes, g->halo.img_counts, g->halo.img_offsets,
        vs_int4_sum(), make_int4(0, 0, 0, 0), (int)bound + 1, g->stream));
    int32_t *h = (int32_t *)g->red.h_pinned;
    h[0] = (int32_t)bound;
    if (d_count)
        VS_CUDA_CHECK(cudaMemcpyAsync(h, d_count, sizeof(int32_t), cudaMemcpyDeviceToHost,
                                      g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(h + 4, g->halo.img_offsets + bound, sizeof(int4),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    check_outside(g);
    *n_cand = h[0];
    return make_int4(h[4], h[5], h[6], 0);
}

/* All ghosts of a brick with at most one dimension split over ranks: the candidates (one
 * select), their image counts (one read-back), the local images written and the sent ones
 * packed in one pass, then one exchange with the neighbours along the split dimension. */
static void build_images(vs_gpu_state *g, int remote)
{
    const vs_image_faces f = image_faces(g, remote);
    const int n = (int)g->pt.n_owned;
    /* the candidates go to the sort's index buffer, free from the migration's end to the
     * cell list (the staged protocol's list would cost 4 bytes per particle more). A small
     * brick takes every owned particle as a candidate: the select saves bandwidth only
     * where there is some to save, and costs three launches */
    const int all = n <= g->halo.image_select_above;
    int32_t *cand = all ? NULL : (int32_t *)g->sort.idx_in;
    int32_t *d_count = all ? NULL : g->halo.d_select_count;
    if (!all)
        select_near_face(g, cand, d_count);
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
    if (g->pt.capacity != capacity && !all) { /* growing replaced the index buffer: again */
        cand = (int32_t *)g->sort.idx_in;
        select_near_face(g, cand, g->halo.d_select_count);
    }
    const size_t rec = sizeof(vs_ghost_rec);
    if (remote >= 0)
        vs_gpu_comm_reserve(g, rec * (size_t)(n_out[0] + n_out[1]),
                            rec * (size_t)(n_in[0] + n_in[1]));
    VS_LAUNCH(image_write_kernel, n_cand, VS_BLOCK, g->stream, (int)n_cand, cand, f,
              g->halo.img_offsets, soa(g), n, g->halo.img_src, g->halo.img_code,
              (vs_ghost_rec *)g->tr.d_send, n_out[0], g->halo.img_send_src, g->halo.img_send_code);
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
              (const vs_ghost_rec *)g->tr.d_recv, n + n_local, soa(g));
    g->pt.n_ghost += n_in[0] + n_in[1];
    g->tr.halo_bytes_last = (int64_t)(send[0] + send[1]);
}

/* Positions and predicted velocities of the image path's ghosts again: the local images,
 * then the ones from the neighbours. */
static void update_local_images(vs_gpu_state *g, int remote)
{
    const vs_image_faces f = image_faces(g, remote);
    VS_LAUNCH(image_update_kernel, g->halo.n_img_local, VS_BLOCK, g->stream,
              (int)g->halo.n_img_local, g->pt.n_owned, f, g->halo.img_src, g->halo.img_code,
              soa(g));
    g->tr.halo_bytes_last = 0;
}

static void update_remote_images(vs_gpu_state *g, int remote)
{
    const vs_image_faces f = image_faces(g, remote);
    g->tr.halo_bytes_last = 0;
    if (remote < 0)
        return;
    const int64_t *n_out = g->halo.n_send[remote], *n_in = g->halo.n_recv[remote];
    const size_t rec = sizeof(vs_ghost_update_rec);
    vs_gpu_comm_reserve(g, rec * (size_t)(n_out[0] + n_out[1]),
                        rec * (size_t)(n_in[0] + n_in[1]));
    VS_LAUNCH(image_pack_update_kernel, n_out[0] + n_out[1], VS_BLOCK, g->stream,
              (int)(n_out[0] + n_out[1]), f, g->halo.img_send_src, g->halo.img_send_code, soa(g),
              (vs_ghost_update_rec *)g->tr.d_send);
    const size_t send[2] = {rec * (size_t)n_out[0], rec * (size_t)n_out[1]};
    const size_t recv[2] = {rec * (size_t)n_in[0], rec * (size_t)n_in[1]};
    vs_gpu_stage_exchange(g, remote, send, recv);
    VS_LAUNCH(unpack_update_kernel, n_in[0] + n_in[1], VS_BLOCK, g->stream,
              (int)(n_in[0] + n_in[1]), (const vs_ghost_update_rec *)g->tr.d_recv,
              g->halo.recv_start[remote][0], soa(g));
    g->tr.halo_bytes_last = (int64_t)(send[0] + send[1]);
}

extern "C" void vs_gpu_build_ghosts(vs_gpu_state *g)
{
    const vs_decomp *dc = g->tr.dc;
    g->pt.n_ghost = 0;
    const int remote = image_remote(g);
    if (remote >= -1) {
        build_images(g, remote);
        return;
    }
    /* the staged protocol: several dimensions split over ranks */
    const int n_owned = (int)g->pt.n_owned;
    int64_t n_cand = 0, bytes = 0;
    /* lower face -> image above the upper face, and the reverse, at the box's ends */
    vs_exchange_shifts(dc, g->halo.shift);
    for (int d = 0; d < 3; ++d) {
        const int base = (int)(g->pt.n_owned + g->pt.n_ghost);
        /* both directions select from what is present before this stage's ghosts arrive, in
         * index order: the x stage from all owned particles (and the near-face candidates
         * for the later stages, in the same pass), the y and z stages from the candidates;
         * one synchronisation per stage brings the counts to the host */
        int64_t counts[3] = {0, 0, 0};
        const int n_items = d == 0 ? n_owned : (int)n_cand;
        for (int dir = 0; dir < 2; ++dir)
            reserve_send(g, d, dir, n_items);
        if (d == 0)
            reserve_cand(g, n_owned, 0);
        if (n_items > 0) {
            for (int dir = 0; dir < 2; ++dir) {
                const vs_border_pred pred = {
                    g->pt.x[d], dir == 0 ? g->lo[d] + g->ghost_width : g->hi[d] - g->ghost_width,
                    dir};
                if (d == 0)
                    VS_CUDA_CHECK(cub::DeviceSelect::If(
                        g->sort.cub_temp, g->sort.cub_temp_bytes,
                        thrust::counting_iterator<int32_t>(0), g->halo.send_idx[d][dir],
                        g->halo.d_select_count + dir, n_items, pred, g->stream));
                else
                    VS_CUDA_CHECK(cub::DeviceSelect::If(
                        g->sort.cub_temp, g->sort.cub_temp_bytes, g->halo.ghost_cand,
                        g->halo.send_idx[d][dir], g->halo.d_select_count + dir, n_items, pred,
                        g->stream));
            }
            if (d == 0)
                select_near_face(g, g->halo.ghost_cand, g->halo.d_select_count + 2);
            read_counts(g, d == 0 ? 3 : 2, counts);
        }
        if (d == 0)
            n_cand = counts[2];
        int64_t n_out[2] = {counts[0], counts[1]};
        int64_t n_in[2] = {n_out[0], n_out[1]};
        if (g->tr.link[d] != VS_LINK_SELF)
            vs_gpu_exchange_counts(g, d, n_out, n_in);
        for (int dir = 0; dir < 2; ++dir) {
            g->halo.n_send[d][dir] = n_out[dir];
            g->halo.n_recv[d][dir] = n_in[dir];
        }
        vs_gpu_reserve(g, base + n_in[0] + n_in[1]);
        g->halo.recv_start[d][0] = base;
        g->halo.recv_start[d][1] = base + n_in[0];
        if (g->tr.link[d] == VS_LINK_SELF) {
            for (int dir = 0; dir < 2; ++dir)
                VS_LAUNCH(ghost_copy_kernel, n_out[dir], VS_BLOCK, g->stream, (int)n_out[dir],
                          g->halo.send_idx[d][dir], g->halo.recv_start[d][dir], d,
                          g->halo.shift[d][dir], soa(g), 1);
        } else {
            const size_t rec = sizeof(vs_ghost_rec);
            vs_gpu_comm_reserve(g, rec * (size_t)(n_out[0] + n_out[1]),
                                rec * (size_t)(n_in[0] + n_in[1]));
            vs_ghost_rec *out = (vs_ghost_rec *)g->tr.d_send;
            for (int dir = 0; dir < 2; ++dir)
                VS_LAUNCH(pack_ghost_kernel, n_out[dir], VS_BLOCK, g->stream, (int)n_out[dir],
                          g->halo.send_idx[d][dir], d, g->halo.shift[d][dir], soa(g),
                          out + (dir ? n_out[0] : 0));
            const size_t send[2] = {rec * (size_t)n_out[0], rec * (size_t)n_out[1]};
            const size_t recv[2] = {rec * (size_t)n_in[0], rec * (size_t)n_in[1]};
            vs_gpu_stage_exchange(g, d, send, recv);
            bytes += (int64_t)(send[0] + send[1]);
            const vs_ghost_rec *in = (const vs_ghost_rec *)g->tr.d_recv;
            for (int dir = 0; dir < 2; ++dir)
                VS_LAUNCH(unpack_ghost_kernel, n_in[dir], VS_BLOCK, g->stream, (int)n_in[dir],
                          in + (dir ? n_in[0] : 0), g->halo.recv_start[d][dir], soa(g));
        }
        g->pt.n_ghost += n_in[0] + n_in[1];
        /* this stage's ghosts are candidates of the next stages */
        const int64_t n_new = n_in[0] + n_in[1];
        if (d < 2 && n_new > 0) {
            reserve_cand(g, n_cand + n_new, n_cand);
            VS_LAUNCH(iota_kernel, n_new, VS_BLOCK, g->stream, (int)n_new, base,
                      g->halo.ghost_cand + n_cand);
            n_cand += n_new;
        }
    }
    check_outside(g);
    g->tr.halo_bytes_last = bytes;
}

void vs_gpu_update_local_images(vs_gpu_state *g) { update_local_images(g, image_remote(g)); }
void vs_gpu_update_remote_images(vs_gpu_state *g) { update_remote_images(g, image_remote(g)); }

extern "C" void vs_gpu_update_ghosts(vs_gpu_state *g)
{
    int64_t bytes = 0;
    const int remote = image_remote(g);
    if (remote >= -1) {
        update_local_images(g, remote);
        update_remote_images(g, remote);
        return;
    }
    for (int d = 0; d < 3; ++d) {
        const int64_t *n_out = g->halo.n_send[d], *n_in = g->halo.n_recv[d];
        if (g->tr.link[d] == VS_LINK_SELF) {
            for (int dir = 0; dir < 2; ++dir)
                VS_LAUNCH(ghost_copy_kernel, n_out[dir], VS_BLOCK, g->stream, (int)n_out[dir],
                          g->halo.send_idx[d][dir], g->halo.recv_start[d][dir], d,
                          g->halo.shift[d][dir], soa(g), 0);
            continue;
        }
        const size_t rec = sizeof(vs_ghost_update_rec);
        vs_gpu_comm_reserve(g, rec * (size_t)(n_out[0] + n_out[1]),
                            rec * (size_t)(n_in[0] + n_in[1]));
        vs_ghost_update_rec *out = (vs_ghost_update_rec *)g->tr.d_send;
        for (int dir = 0; dir < 2; ++dir)
            VS_LAUNCH(pack_update_kernel, n_out[dir], VS_BLOCK, g->stream, (int)n_out[dir],
                      g->halo.send_idx[d][dir], d, g->halo.shift[d][dir], soa(g),
                      out + (dir ? n_out[0] : 0));
        const size_t send[2] = {rec * (size_t)n_out[0], rec * (size_t)n_out[1]};
        const size_t recv[2] = {rec * (size_t)n_in[0], rec * (size_t)n_in[1]};
        vs_gpu_stage_exchange(g, d, send, recv);
        const vs_ghost_update_rec *in = (const vs_ghost_update_rec *)g->tr.d_recv;
        for (int dir = 0; dir < 2; ++dir)
            VS_LAUNCH(unpack_update_kernel, n_in[dir], VS_BLOCK, g->stream, (int)n_in[dir],
                      in + (dir ? n_in[0] : 0), g->halo.recv_start[d][dir], soa(g));
        bytes += (int64_t)(send[0] + send[1]);
    }
    check_outside(g);
    g->tr.halo_bytes_last = bytes;
}
