/* Ghosts and migration on the device: border detection, send lists, packing and unpacking.
 *
 * The protocol is the CPU one (comm/halo.h): three stages (x, y, z), two directions each; in
 * each stage, particles within the ghost width of the lower or upper face (owned, or ghosts of
 * earlier stages, so edges and corners are forwarded) are selected into a send list with CUB
 * DeviceSelect::If, in index order. The x stage scans every owned particle and, in the same
 * synchronisation, keeps those near any face; the y and z stages scan only these and the
 * ghosts so far. A dimension with one rank copies its ghosts on the device, shifted by the
 * box (the periodic images); a dimension split over ranks packs records into a contiguous
 * device buffer, hands it to the transport (gpu_transport.cu) and unpacks what arrives into
 * the ghost slots. Send lists are built on rebuild steps and reused on the other steps, when
 * only positions and predicted velocities travel.
 *
 * A brick that is the whole box (one rank) takes a shortcut with the same result: its ghosts
 * are the periodic images of the particles near the faces, Π_d (1 + faces near in d) - 1 of
 * each, made in one pass (count, scan, write) with one synchronisation for the total instead
 * of three stages of selects, copies and count read-backs. The image set and each image's
 * coordinates are those of the staged protocol; only the order of the ghost slots differs.
 *
 * Migration (rebuild steps, before the ghosts): per dimension, owned particles that left the
 * brick are packed with everything they carry, their slots are filled by the stayers beyond
 * the new end (O(leavers) moves), and the arrivals appended. One hop per dimension is enough
 * (the rebuild trigger guarantees it); a kernel checks, and a particle found outside its
 * brick afterwards is a fatal error naming it.
 */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpu_internal.cuh"

/* Records as they travel: plain structs, the same on every rank. */
struct vs_ghost_rec {
    double x[3], vp[3];
    int64_t tag;
    int32_t species, pad;
};
struct vs_update_rec {
    double x[3], vp[3];
};
struct vs_migrant_rec {
    double x[3], v[3], vp[3];
    int64_t tag;
    int32_t species;
    int32_t image[3];
};

/* The arrays a kernel touches, passed by value. */
struct vs_soa {
    double *x[3], *vp[3], *v[3];
    int32_t *image[3];
    int64_t *tag;
    int32_t *species;
};

static vs_soa soa(vs_gpu_state *g)
{
    vs_soa a;
    for (int d = 0; d < 3; ++d) {
        a.x[d] = g->x[d];
        a.vp[d] = g->vp[d];
        a.v[d] = g->v[d];
        a.image[d] = g->image[d];
    }
    a.tag = g->tag;
    a.species = g->species_id;
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
                                   vs_update_rec *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = send[k];
    vs_update_rec r;
    for (int c = 0; c < 3; ++c) {
        r.x[c] = a.x[c][i] + (c == d ? shift : 0.0);
        r.vp[c] = a.vp[c][i];
    }
    out[k] = r;
}

__global__ void unpack_update_kernel(int n, const vs_update_rec *in, int64_t start, vs_soa a)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const vs_update_rec r = in[k];
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
    if (wrap < 0) {
        r.x[d] = vs_keep_below(r.x[d] + len, len);
        r.image[d] -= 1;
    } else if (wrap > 0) {
        r.x[d] -= len;
        r.image[d] += 1;
    }
    r.tag = a.tag[i];
    r.species = a.species[i];
    out[k] = r;
}

__global__ void unpack_migrant_kernel(int n, const vs_migrant_rec *in, int64_t start, vs_soa a)
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
}

/* Smallest tag of an owned particle outside [lo, hi) (or not finite), ULLONG_MAX if none. */
__global__ void outside_kernel(int n, vs_soa a, double lx, double hx, double ly, double hy,
                               double lz, double hz, unsigned long long *bad)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double x = a.x[0][i], y = a.x[1][i], z = a.x[2][i];
    if (!(x >= lx && x < hx && y >= ly && y < hy && z >= lz && z < hz))
        atomicMin(bad, (unsigned long long)a.tag[i]);
}

/* Periodic images of one owned particle. Per dimension it takes shift digit 0 (none), 1 (+L:
 * within the ghost width of the lower face, so that its image sits above the upper one) and
 * 2 (-L: near the upper face), by the same comparisons as the staged send lists. */
struct vs_periodic_faces {
    double lo_edge[3], hi_edge[3], len[3];
};

__device__ __forceinline__ int vs_image_digits(const vs_periodic_faces &f, double u, int d,
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

__device__ __forceinline__ double vs_image_shift(const vs_periodic_faces &f, int digit, int d)
{
    return digit == 0 ? 0.0 : (digit == 1 ? f.len[d] : -f.len[d]);
}

/* Images per owned particle; counts[n] = 0, so the exclusive scan's last entry is the total. */
__global__ void periodic_count_kernel(int n, vs_periodic_faces f, const double *x,
                                      const double *y, const double *z, int32_t *counts)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n)
        return;
    if (i == n) {
        counts[n] = 0;
        return;
    }
    const double p[3] = {x[i], y[i], z[i]};
    int images = 1;
    for (int d = 0; d < 3; ++d)
        images *= (p[d] < f.lo_edge[d]) + (p[d] >= f.hi_edge[d]) + 1;
    counts[i] = images - 1;
}

/* The images of particle i at ghost slots n_owned + offsets[i] + k, in a fixed order (x
 * digit slowest); each slot remembers its source and shift code for the updates. */
__global__ void periodic_write_kernel(int n, vs_periodic_faces f, const int32_t *offsets,
                                      vs_soa a, int32_t *src, uint8_t *code)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || offsets[i + 1] == offsets[i])
        return;
    const double p[3] = {a.x[0][i], a.x[1][i], a.x[2][i]};
    const double v[3] = {a.vp[0][i], a.vp[1][i], a.vp[2][i]};
    int dx[3], dy[3], dz[3];
    const int nx = vs_image_digits(f, p[0], 0, dx), ny = vs_image_digits(f, p[1], 1, dy),
              nz = vs_image_digits(f, p[2], 2, dz);
    int k = offsets[i];
    for (int ax = 0; ax < nx; ++ax)
        for (int ay = 0; ay < ny; ++ay)
            for (int az = 0; az < nz; ++az) {
                if (ax + ay + az == 0)
                    continue; /* the particle itself */
                const int64_t j = (int64_t)n + k;
                a.x[0][j] = p[0] + vs_image_shift(f, dx[ax], 0);
                a.x[1][j] = p[1] + vs_image_shift(f, dy[ay], 1);
                a.x[2][j] = p[2] + vs_image_shift(f, dz[az], 2);
                for (int c = 0; c < 3; ++c)
                    a.vp[c][j] = v[c];
                a.tag[j] = a.tag[i];
                a.species[j] = a.species[i];
                src[k] = i;
                code[k] = (uint8_t)(dx[ax] + 3 * dy[ay] + 9 * dz[az]);
                ++k;
            }
}

/* Positions and predicted velocities of the images again (steps between rebuilds). */
__global__ void periodic_update_kernel(int n_ghost, int64_t first, vs_periodic_faces f,
                                       const int32_t *src, const uint8_t *code, vs_soa a)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n_ghost)
        return;
    const int i = src[k], c = code[k];
    const int digit[3] = {c % 3, c / 3 % 3, c / 9};
    const int64_t j = first + k;
    for (int d = 0; d < 3; ++d) {
        a.x[d][j] = a.x[d][i] + vs_image_shift(f, digit[d], d);
        a.vp[d][j] = a.vp[d][i];
    }
}

static void reserve_send(vs_gpu_state *g, int d, int dir, int64_t n)
{
    if (n <= g->cap_send[d][dir])
        return;
    const int64_t cap = n + n / 2 + 1024;
    vs_gpu_free(g, g->send_idx[d][dir], sizeof(int32_t) * (size_t)g->cap_send[d][dir]);
    g->send_idx[d][dir] = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t) * (size_t)cap);
    g->cap_send[d][dir] = cap;
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
    if (n <= g->cap_cand)
        return;
    const int64_t cap = n + n / 16 + 1024;
    int32_t *q = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t) * (size_t)cap);
    if (keep > 0)
        VS_CUDA_CHECK(cudaMemcpyAsync(q, g->ghost_cand, sizeof(int32_t) * (size_t)keep,
                                      cudaMemcpyDeviceToDevice, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    vs_gpu_free(g, g->ghost_cand, sizeof(int32_t) * (size_t)g->cap_cand);
    g->ghost_cand = q;
    g->cap_cand = cap;
}

/* Bring `n` select counters to the host (one synchronisation). */
static void read_counts(vs_gpu_state *g, int n, int64_t *out)
{
    int32_t *h = (int32_t *)g->h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, g->d_select_count, (size_t)n * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    for (int k = 0; k < n; ++k)
        out[k] = h[k];
}

static void migrate_dimension(vs_gpu_state *g, int d)
{
    const vs_decomp *dc = g->dc;
    const int n = (int)g->n_owned;
    const double len = g->prm.box[d];
    if (g->link[d] == VS_LINK_SELF)
        return; /* wrapped by vs_gpu_migrate */
    /* leavers through each face, and all leavers in index order (the holes) */
    reserve_send(g, d, 0, n);
    reserve_send(g, d, 1, n);
    int32_t *holes = (int32_t *)g->idx_in, *movers = (int32_t *)g->idx_out;
    int32_t *lists[3] = {g->send_idx[d][0], g->send_idx[d][1], holes};
    int64_t counts[3] = {0, 0, 0};
    if (n > 0) {
        for (int which = 0; which < 3; ++which) {
            const vs_leaver_pred pred = {g->x[d], g->lo[d], g->hi[d], which};
            VS_CUDA_CHECK(cub::DeviceSelect::If(g->cub_temp, g->cub_temp_bytes,
                                                thrust::counting_iterator<int32_t>(0),
                                                lists[which], g->d_select_count + which, n,
                                                pred, g->stream));
        }
        read_counts(g, 3, counts);
    }
    const int64_t n_out[2] = {counts[0], counts[1]};
    int64_t n_in[2];
    vs_gpu_exchange_counts(g, d, n_out, n_in);
    const size_t rec = sizeof(vs_migrant_rec);
    vs_gpu_comm_reserve(g, rec * (size_t)(n_out[0] + n_out[1]),
                        rec * (size_t)(n_in[0] + n_in[1]));
    const int wrap[2] = {dc->coords[d] == 0 ? -1 : 0, dc->coords[d] == dc->dims[d] - 1 ? 1 : 0};
    vs_migrant_rec *out = (vs_migrant_rec *)g->d_send;
    VS_LAUNCH(pack_migrant_kernel, n_out[0], VS_BLOCK, g->stream, (int)n_out[0], lists[0], d,
              wrap[0], len, soa(g), out);
    VS_LAUNCH(pack_migrant_kernel, n_out[1], VS_BLOCK, g->stream, (int)n_out[1], lists[1], d,
              wrap[1], len, soa(g), out + n_out[0]);
    /* close the holes below the new end with the stayers above it */
    const int n_left = (int)counts[2], n_stay = n - n_left;
    if (n_left > 0) {
        const vs_stayer_pred pred = {g->x[d], g->lo[d], g->hi[d]};
        VS_CUDA_CHECK(cub::DeviceSelect::If(g->cub_temp, g->cub_temp_bytes,
                                            thrust::counting_iterator<int32_t>(n_stay), movers,
                                            g->d_select_count + 3, n_left, pred, g->stream));
        VS_LAUNCH(fill_holes_kernel, n_left, VS_BLOCK, g->stream, n_left,
                  g->d_select_count + 3, holes, movers, soa(g));
    }
    g->n_owned = n_stay;
    const size_t send[2] = {rec * (size_t)n_out[0], rec * (size_t)n_out[1]};
    const size_t recv[2] = {rec * (size_t)n_in[0], rec * (size_t)n_in[1]};
    vs_gpu_stage_exchange(g, d, send, recv);
    vs_gpu_reserve(g, g->n_owned + n_in[0] + n_in[1]);
    const vs_migrant_rec *in = (const vs_migrant_rec *)g->d_recv;
    VS_LAUNCH(unpack_migrant_kernel, n_in[0], VS_BLOCK, g->stream, (int)n_in[0], in,
              g->n_owned, soa(g));
    VS_LAUNCH(unpack_migrant_kernel, n_in[1], VS_BLOCK, g->stream, (int)n_in[1], in + n_in[0],
              g->n_owned + n_in[0], soa(g));
    g->n_owned += n_in[0] + n_in[1];
}

extern "C" int64_t vs_gpu_migrate(vs_gpu_state *g, int64_t step)
{
    g->n_ghost = 0;
    g->energies_current = 0; /* the rebuild reuses their buffers */
    const int64_t before = g->n_owned;
    /* the dimensions with one rank first, all in one pass: the particles a neighbour sends
     * along another dimension arrive wrapped */
    int self = 0;
    for (int d = 0; d < 3; ++d)
        self |= (g->link[d] == VS_LINK_SELF) << d;
    if (self && !g->wrapped)
        VS_LAUNCH(wrap_kernel, g->n_owned, VS_BLOCK, g->stream, (int)g->n_owned, self,
                  g->prm.box[0], g->prm.box[1], g->prm.box[2], soa(g));
    g->wrapped = 0;
    int crosses = 0;
    for (int d = 0; d < 3; ++d) {
        migrate_dimension(g, d);
        crosses |= g->link[d] != VS_LINK_SELF;
    }
    if (crosses) {
        /* one hop per dimension must have been enough */
        unsigned long long *h = (unsigned long long *)g->h_pinned;
        h[0] = ~0ull;
        VS_CUDA_CHECK(cudaMemcpyAsync(g->d_int_sums, h, sizeof(unsigned long long),
                                      cudaMemcpyHostToDevice, g->stream));
        VS_LAUNCH(outside_kernel, g->n_owned, VS_BLOCK, g->stream, (int)g->n_owned, soa(g),
                  g->lo[0], g->hi[0], g->lo[1], g->hi[1], g->lo[2], g->hi[2], g->d_int_sums);
        VS_CUDA_CHECK(cudaMemcpyAsync(h, g->d_int_sums, sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (h[0] != ~0ull)
            VS_FATAL("step %lld: particle %llu is outside its brick after migration: it moved "
                     "more than one brick since the last neighbour-list build (or its "
                     "position is not finite)", (long long)step, h[0]);
    }
    vs_gpu_reorder(g);
    return before - g->n_owned > 0 ? before - g->n_owned : 0;
}

/* The brick is the whole box: every dimension is periodic within this rank. */
static int whole_box(const vs_gpu_state *g)
{
    return g->link[0] == VS_LINK_SELF && g->link[1] == VS_LINK_SELF &&
           g->link[2] == VS_LINK_SELF;
}

static vs_periodic_faces periodic_faces(const vs_gpu_state *g)
{
    vs_periodic_faces f;
    for (int d = 0; d < 3; ++d) {
        f.lo_edge[d] = g->lo[d] + g->ghost_width;
        f.hi_edge[d] = g->hi[d] - g->ghost_width;
        f.len[d] = g->prm.box[d];
    }
    return f;
}

/* Images per owned particle and their exclusive scan, in the sort buffers (free between the
 * migration and the cell list): offsets of n_owned + 1 entries, the last the total. */
static int32_t *periodic_offsets(vs_gpu_state *g, const vs_periodic_faces &f)
{
    const int n = (int)g->n_owned;
    int32_t *counts = (int32_t *)g->key_in, *offsets = (int32_t *)g->key_out;
    VS_LAUNCH(periodic_count_kernel, n + 1, VS_BLOCK, g->stream, n, f, g->x[0], g->x[1],
              g->x[2], counts);
    VS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(g->cub_temp, g->cub_temp_bytes, counts, offsets,
                                                n + 1, g->stream));
    return offsets;
}

/* All ghosts of a one-rank brick in one pass: count, scan, one read-back of the total, write. */
static void build_periodic_images(vs_gpu_state *g)
{
    const vs_periodic_faces f = periodic_faces(g);
    const int n = (int)g->n_owned;
    vs_gpu_reserve(g, n + 1);
    int32_t *offsets = periodic_offsets(g, f);
    int32_t *h = (int32_t *)g->h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, offsets + n, sizeof(int32_t), cudaMemcpyDeviceToHost,
                                  g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    const int64_t total = h[0];
    const int64_t capacity = g->capacity;
    vs_gpu_reserve(g, n + total);
    if (g->capacity != capacity) /* growing replaced the sort buffers, offsets included */
        offsets = periodic_offsets(g, f);
    if (total > g->cap_periodic) {
        vs_gpu_free(g, g->periodic_src, sizeof(int32_t) * (size_t)g->cap_periodic);
        vs_gpu_free(g, g->periodic_code, (size_t)g->cap_periodic);
        g->cap_periodic = total + total / 16 + 1024;
        g->periodic_src = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t) * (size_t)g->cap_periodic);
        g->periodic_code = (uint8_t *)vs_gpu_alloc(g, (size_t)g->cap_periodic);
    }
    VS_LAUNCH(periodic_write_kernel, n, VS_BLOCK, g->stream, n, f, offsets, soa(g),
              g->periodic_src, g->periodic_code);
    g->n_ghost = total;
    g->halo_bytes_last = 0;
}

extern "C" void vs_gpu_build_ghosts(vs_gpu_state *g)
{
    const vs_decomp *dc = g->dc;
    g->n_ghost = 0;
    if (whole_box(g)) {
        build_periodic_images(g);
        return;
    }
    const int n_owned = (int)g->n_owned;
    int64_t n_cand = 0;
    for (int d = 0; d < 3; ++d) {
        const double len = g->prm.box[d];
        /* lower face -> image above the upper face, and the reverse, at the box's ends */
        g->shift[d][0] = dc->coords[d] == 0 ? len : 0.0;
        g->shift[d][1] = dc->coords[d] == dc->dims[d] - 1 ? -len : 0.0;
        const int base = (int)(g->n_owned + g->n_ghost);
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
                    g->x[d], dir == 0 ? g->lo[d] + g->ghost_width : g->hi[d] - g->ghost_width,
                    dir};
                if (d == 0)
                    VS_CUDA_CHECK(cub::DeviceSelect::If(
                        g->cub_temp, g->cub_temp_bytes, thrust::counting_iterator<int32_t>(0),
                        g->send_idx[d][dir], g->d_select_count + dir, n_items, pred, g->stream));
                else
                    VS_CUDA_CHECK(cub::DeviceSelect::If(
                        g->cub_temp, g->cub_temp_bytes, g->ghost_cand, g->send_idx[d][dir],
                        g->d_select_count + dir, n_items, pred, g->stream));
            }
            if (d == 0) {
                vs_near_face_pred near;
                near.x = g->x[0];
                near.y = g->x[1];
                near.z = g->x[2];
                for (int e = 0; e < 3; ++e) {
                    near.lo_edge[e] = g->lo[e] + g->ghost_width;
                    near.hi_edge[e] = g->hi[e] - g->ghost_width;
                }
                VS_CUDA_CHECK(cub::DeviceSelect::If(
                    g->cub_temp, g->cub_temp_bytes, thrust::counting_iterator<int32_t>(0),
                    g->ghost_cand, g->d_select_count + 2, n_items, near, g->stream));
            }
            read_counts(g, d == 0 ? 3 : 2, counts);
        }
        if (d == 0)
            n_cand = counts[2];
        int64_t n_out[2] = {counts[0], counts[1]};
        int64_t n_in[2] = {n_out[0], n_out[1]};
        if (g->link[d] != VS_LINK_SELF)
            vs_gpu_exchange_counts(g, d, n_out, n_in);
        for (int dir = 0; dir < 2; ++dir) {
            g->n_send[d][dir] = n_out[dir];
            g->n_recv[d][dir] = n_in[dir];
        }
        vs_gpu_reserve(g, base + n_in[0] + n_in[1]);
        g->recv_start[d][0] = base;
        g->recv_start[d][1] = base + n_in[0];
        if (g->link[d] == VS_LINK_SELF) {
            for (int dir = 0; dir < 2; ++dir)
                VS_LAUNCH(ghost_copy_kernel, n_out[dir], VS_BLOCK, g->stream, (int)n_out[dir],
                          g->send_idx[d][dir], g->recv_start[d][dir], d, g->shift[d][dir],
                          soa(g), 1);
        } else {
            const size_t rec = sizeof(vs_ghost_rec);
            vs_gpu_comm_reserve(g, rec * (size_t)(n_out[0] + n_out[1]),
                                rec * (size_t)(n_in[0] + n_in[1]));
            vs_ghost_rec *out = (vs_ghost_rec *)g->d_send;
            for (int dir = 0; dir < 2; ++dir)
                VS_LAUNCH(pack_ghost_kernel, n_out[dir], VS_BLOCK, g->stream, (int)n_out[dir],
                          g->send_idx[d][dir], d, g->shift[d][dir], soa(g),
                          out + (dir ? n_out[0] : 0));
            const size_t send[2] = {rec * (size_t)n_out[0], rec * (size_t)n_out[1]};
            const size_t recv[2] = {rec * (size_t)n_in[0], rec * (size_t)n_in[1]};
            vs_gpu_stage_exchange(g, d, send, recv);
            const vs_ghost_rec *in = (const vs_ghost_rec *)g->d_recv;
            for (int dir = 0; dir < 2; ++dir)
                VS_LAUNCH(unpack_ghost_kernel, n_in[dir], VS_BLOCK, g->stream, (int)n_in[dir],
                          in + (dir ? n_in[0] : 0), g->recv_start[d][dir], soa(g));
        }
        g->n_ghost += n_in[0] + n_in[1];
        /* this stage's ghosts are candidates of the next stages */
        const int64_t n_new = n_in[0] + n_in[1];
        if (d < 2 && n_new > 0) {
            reserve_cand(g, n_cand + n_new, n_cand);
            VS_LAUNCH(iota_kernel, n_new, VS_BLOCK, g->stream, (int)n_new, base,
                      g->ghost_cand + n_cand);
            n_cand += n_new;
        }
    }
}

extern "C" void vs_gpu_update_ghosts(vs_gpu_state *g)
{
    int64_t bytes = 0;
    if (whole_box(g)) {
        VS_LAUNCH(periodic_update_kernel, g->n_ghost, VS_BLOCK, g->stream, (int)g->n_ghost,
                  g->n_owned, periodic_faces(g), g->periodic_src, g->periodic_code, soa(g));
        g->halo_bytes_last = 0;
        return;
    }
    for (int d = 0; d < 3; ++d) {
        const int64_t *n_out = g->n_send[d], *n_in = g->n_recv[d];
        if (g->link[d] == VS_LINK_SELF) {
            for (int dir = 0; dir < 2; ++dir)
                VS_LAUNCH(ghost_copy_kernel, n_out[dir], VS_BLOCK, g->stream, (int)n_out[dir],
                          g->send_idx[d][dir], g->recv_start[d][dir], d, g->shift[d][dir],
                          soa(g), 0);
            continue;
        }
        const size_t rec = sizeof(vs_update_rec);
        vs_gpu_comm_reserve(g, rec * (size_t)(n_out[0] + n_out[1]),
                            rec * (size_t)(n_in[0] + n_in[1]));
        vs_update_rec *out = (vs_update_rec *)g->d_send;
        for (int dir = 0; dir < 2; ++dir)
            VS_LAUNCH(pack_update_kernel, n_out[dir], VS_BLOCK, g->stream, (int)n_out[dir],
                      g->send_idx[d][dir], d, g->shift[d][dir], soa(g),
                      out + (dir ? n_out[0] : 0));
        const size_t send[2] = {rec * (size_t)n_out[0], rec * (size_t)n_out[1]};
        const size_t recv[2] = {rec * (size_t)n_in[0], rec * (size_t)n_in[1]};
        vs_gpu_stage_exchange(g, d, send, recv);
        const vs_update_rec *in = (const vs_update_rec *)g->d_recv;
        for (int dir = 0; dir < 2; ++dir)
            VS_LAUNCH(unpack_update_kernel, n_in[dir], VS_BLOCK, g->stream, (int)n_in[dir],
                      in + (dir ? n_in[0] : 0), g->recv_start[d][dir], soa(g));
        bytes += (int64_t)(send[0] + send[1]);
    }
    g->halo_bytes_last = bytes;
}
