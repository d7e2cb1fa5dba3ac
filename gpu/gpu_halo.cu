/* Ghosts and migration on the device: border detection, send lists, packing and unpacking.
 *
 * Two ways to the same ghost set (the CPU's, comm/halo.h: every particle within the ghost
 * width of a face, shifted by the box across its ends, edges and corners included; with
 * molecules a bonded bead within the bonded width, its mark (vs_gpu_bonded) travelling
 * with its ghosts in the record's pad word, so a forwarded ghost keeps its width):
 * - The image path (gpu_images.cu), when at most one dimension is split over ranks (one GPU,
 *   or slabs): every image of a particle near faces in one pass, one exchange.
 * - The staged protocol, when several dimensions are split: the exchange kinds of this file
 *   over the staged driver (comm/exchange.h), the same driver as the CPU's. In each stage,
 *   particles within the ghost width of the lower or upper face (owned, or ghosts of earlier
 *   stages, so edges and corners are forwarded) are selected into a send list with CUB, in
 *   index order, and either copied on the device (a dimension with one rank) or packed,
 *   moved through the transport (gpu_transport.cu, both directions in one batch) and
 *   unpacked; one read-back of the counts per stage.
 * Send lists are built on rebuild steps and reused on the other steps, when only positions
 * and predicted velocities travel. All orders are fixed, so runs are reproducible.
 *
 * Migration (rebuild steps, before the ghosts), a third kind over the driver: per dimension
 * split over ranks, one select finds the owned particles that left the brick, one block
 * splits them by face; they are packed with everything they carry, their slots are filled by
 * the stayers beyond the new end (O(leavers) moves), and the arrivals appended. One hop per
 * dimension is enough (the rebuild trigger guarantees it): the unpacking checks each
 * arrival, and the ghost build's read-back brings the verdict; a particle outside its brick
 * is a fatal error naming it.
 */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpu_halo.cuh"

extern "C" {
#include "exchange.h"
}

/* Records travel as defined in src/core/particles.h (vs_migrant_rec, vs_ghost_rec,
 * vs_ghost_update_rec), the same on the host path (comm/halo.c); in mixed precision on the
 * position grid the ghosts' as vs_ghost_rec_grid and vs_ghost_update_rec_grid
 * (gpu_halo.cuh). */

/* Ghost copy within this rank (periodic image): position shifted along d and the predicted
 * velocity; on rebuild steps also tag, species and, with molecules, the bonded mark
 * (with_ids). */
__global__ void ghost_copy_kernel(int n, const int32_t *send, int64_t start, int d,
                                  double shift, vs_soa a, int with_ids)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = send[k];
    const int64_t j = start + k;
    double p[3];
    vs_pos_load(a.pos, i, p);
    p[d] += shift;
    vs_pos_store(a.pos, j, p, a.species[i]);
    vs_soa_copy_vp(a, j, i);
    vs_copy_ghost_n(a, j, i);
    if (with_ids) {
        a.tag[j] = a.tag[i];
        a.species[j] = a.species[i];
        if (a.mark)
            a.mark[j] = a.mark[i];
    }
}

__global__ void pack_ghost_kernel(int n, const int32_t *send, int d, double shift, vs_soa a,
                                  void *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = send[k];
    double p[3], vp[3];
    vs_pos_load(a.pos, i, p);
    p[d] += shift;
    vs_soa_vp(a, i, vp);
    /* the mark tells bonded ghosts, as the host path's bond count does */
    vs_put_ghost(a, out, k, p, vp, a.tag[i], a.species[i], a.mark ? a.mark[i] : 0, i);
}

__global__ void unpack_ghost_kernel(int n, const void *in, int64_t start, vs_soa a)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    vs_take_ghost(a, in, k, start + k);
}

__global__ void pack_update_kernel(int n, const int32_t *send, int d, double shift, vs_soa a,
                                   void *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = send[k];
    double p[3], vp[3];
    vs_pos_load(a.pos, i, p);
    p[d] += shift;
    vs_soa_vp(a, i, vp);
    vs_put_ghost_update(a, out, k, p, vp, i);
}

__global__ void unpack_update_kernel(int n, const void *in, int64_t start, vs_soa a)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    vs_take_ghost_update(a, in, k, start + k);
}

/* Migration along the dimensions with one rank (bit d of `self`), in one pass: wrap into
 * [0, L) and count the image. */
__global__ void wrap_kernel(int n, int self, double lx, double ly, double lz, vs_soa a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double len[3] = {lx, ly, lz};
    double p[3];
    vs_pos_load(a.pos, i, p);
    for (int d = 0; d < 3; ++d)
        if (self >> d & 1)
            vs_wrap_periodic(&p[d], &a.image[d][i], len[d]);
    vs_pos_store(a.pos, i, p, a.species[i]);
}

__global__ void pack_migrant_kernel(int n, const int32_t *send, int d, int wrap, double len,
                                    vs_soa a, char *out, size_t rec)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        const int i = send[k];
        vs_pack_migrant(i, k, d, wrap, len, a, out, rec, vs_carried_load(a, i));
    }
}

__global__ void unpack_migrant_kernel(int n, const char *in, size_t rec, int64_t start,
                                      vs_soa a, int d, double lo, double hi,
                                      unsigned long long *outside)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        vs_unpack_migrant(in, k, rec, start, a, d, lo, hi, outside);
}

/* The leavers (holes, in index order; *count of them) split by face, each list in index
 * order: below the lower face, else the upper one (a position that is not finite goes up,
 * where the arrival check names it). One block: leavers are few, and the block's scans keep
 * the order without atomics. */
enum { VS_SPLIT_THREADS = 1024 };
__global__ void __launch_bounds__(VS_SPLIT_THREADS)
    split_leavers_kernel(const int32_t *count, const int32_t *holes, vs_positions pos, int d,
                         double lo, int32_t *lower, int32_t *upper, int32_t *counts)
{
    typedef cub::BlockScan<int, VS_SPLIT_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    const int n = *count;
    int n_lower = 0; /* lower leavers before this chunk */
    for (int start = 0; start < n; start += VS_SPLIT_THREADS) {
        const int k = start + (int)threadIdx.x;
        const int i = k < n ? holes[k] : 0;
        const int below = k < n && vs_pos_get(pos, d, i) < lo;
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
    const int from = movers[k];
    vs_fill_hole(a, holes[k], from, vs_carried_load(a, from));
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
    vs_positions pos;
    int d;
    double edge;
    int upper;
    __device__ __forceinline__ bool operator()(int32_t i) const
    {
        const double u = vs_pos_get(pos, d, i);
        return upper ? u >= edge : u < edge;
    }
};

/* The same with molecules: a bonded bead (mark) within the bonded width, as the CPU's
 * bonded_select (comm/halo.c); the plain fluid keeps the test above. */
struct vs_border_pred_bonded {
    vs_positions pos;
    int d;
    const uint8_t *mark;
    double edge, edge_bonded;
    int upper;
    __device__ __forceinline__ bool operator()(int32_t i) const
    {
        const double e = mark[i] ? edge_bonded : edge;
        const double u = vs_pos_get(pos, d, i);
        return upper ? u >= e : u < e;
    }
};

/* Stage d's send list of direction dir: the n_items owned particles (stage x) or
 * candidates (y and z) that `pred` selects, in index order. */
template <typename Pred>
static void select_border(vs_gpu_state *g, int d, int dir, int n_items, const Pred &pred)
{
    if (d == 0)
        VS_CUDA_CHECK(cub::DeviceSelect::If(g->sort.cub_temp, g->sort.cub_temp_bytes,
                                            thrust::counting_iterator<int32_t>(0),
                                            g->halo.send_idx[d][dir],
                                            g->halo.d_select_count + dir, n_items, pred,
                                            g->stream));
    else
        VS_CUDA_CHECK(cub::DeviceSelect::If(g->sort.cub_temp, g->sort.cub_temp_bytes,
                                            g->halo.ghost_cand, g->halo.send_idx[d][dir],
                                            g->halo.d_select_count + dir, n_items, pred,
                                            g->stream));
}

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
void vs_gpu_check_outside(vs_gpu_state *g)
{
    if (!g->halo.outside_pending)
        return;
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    vs_gpu_outside_verdict(g);
}

void vs_gpu_outside_verdict(vs_gpu_state *g)
{
    if (!g->halo.outside_pending)
        return;
    g->halo.outside_pending = 0;
    if (*g->halo.h_outside != ~0ull)
        VS_FATAL("step %lld: particle %llu is outside its brick after migration: it moved "
                 "more than one brick since the last neighbour-list build (or its position is "
                 "not finite)",
                 (long long)g->halo.outside_step, *g->halo.h_outside);
}

/* ---- The device's exchange kinds over the staged driver (comm/exchange.h) ---- */

/* What the device's exchange kinds work on: the driver's context. */
typedef struct {
    vs_gpu_state *g;
    size_t rec;                   /* bytes per record of this kind */
    int64_t n_send[2], n_recv[2]; /* the stage's counts: direction 1's records follow
                                   * direction 0's in the transport's buffers */
    int64_t n_cand;               /* ghost build: candidates of the later stages */
    int64_t n_left;               /* migration: leavers of this stage (holes to close) */
} vs_gpu_xctx;

static int self_link(const vs_gpu_state *g, int d) { return g->tr.link[d] == VS_LINK_SELF; }

/* Both counts known: the transport's buffers sized for the stage (a dimension with one rank
 * copies on the device and needs none). */
static void reserve_stage(void *ctx, int d, const int64_t n_send[2], const int64_t n_recv[2])
{
    vs_gpu_xctx *c = (vs_gpu_xctx *)ctx;
    for (int dir = 0; dir < 2; ++dir) {
        c->n_send[dir] = n_send[dir];
        c->n_recv[dir] = n_recv[dir];
    }
    if (!self_link(c->g, d))
        vs_gpu_comm_reserve(c->g, c->rec * (size_t)(n_send[0] + n_send[1]),
                            c->rec * (size_t)(n_recv[0] + n_recv[1]));
}

static void *send_part(const vs_gpu_xctx *c, int dir)
{
    return c->g->tr.d_send + c->rec * (size_t)(dir == 0 ? 0 : c->n_send[0]);
}

static void *recv_part(void *ctx, int d, int dir, int64_t n)
{
    const vs_gpu_xctx *c = (const vs_gpu_xctx *)ctx;
    (void)d;
    (void)n;
    return c->g->tr.d_recv + c->rec * (size_t)(dir == 0 ? 0 : c->n_recv[0]);
}

/* A stage's messages through the dimension's transport (vs_gpu_exchange_transport), which
 * checks the sizes before it copies anything. */
static void transport(void *ctx, const vs_decomp *dc, const vs_exchange_msg msg[2],
                      size_t got[2])
{
    vs_gpu_exchange_transport(((vs_gpu_xctx *)ctx)->g, dc, msg, got);
}

/* Migration. select: the leavers through each face, in index order; pack: with everything
 * they carry, wrapped where they cross the periodic boundary; the first unpack closes the
 * holes with the stayers beyond the new end, then each appends its arrivals. A dimension with
 * one rank has no leavers (vs_gpu_migrate wrapped it). */
static void migrate_select(void *ctx, int d, int64_t n_send[2], int64_t n_recv[2])
{
    vs_gpu_xctx *c = (vs_gpu_xctx *)ctx;
    vs_gpu_state *g = c->g;
    const int n = (int)g->pt.n_owned;
    (void)n_recv;
    int64_t counts[3] = {0, 0, 0};
    if (!self_link(g, d) && n > 0) {
        vs_gpu_select_leavers(g, d, 1);
        read_counts(g, 3, counts);
    }
    n_send[0] = counts[0];
    n_send[1] = counts[1];
    c->n_left = counts[2];
}

void vs_gpu_select_leavers(vs_gpu_state *g, int d, int split)
{
    const int n = (int)g->pt.n_owned;
    reserve_send(g, d, 0, n);
    reserve_send(g, d, 1, n);
    {
        /* one pass over the owned particles finds the leavers (over their flags where the
         * first half-step made them); splitting them by face reads only them */
        int32_t *holes = (int32_t *)g->sort.idx_in;
        const vs_face_marks faces = vs_gpu_face_marks(g);
        if (faces.leaver && d == faces.leaver_dim && vs_gpu_faces_current(g)) {
            /* the first half-step flagged them (vs_face_marks): a byte per particle */
            VS_CUDA_CHECK(cub::DeviceSelect::Flagged(
                g->sort.cub_temp, g->sort.cub_temp_bytes, thrust::counting_iterator<int32_t>(0),
                faces.leaver, holes, g->halo.d_select_count + 2, n, g->stream));
        } else {
            const vs_leaver_pred pred = {vs_gpu_positions(g), d, g->lo[d], g->hi[d]};
            VS_CUDA_CHECK(cub::DeviceSelect::If(g->sort.cub_temp, g->sort.cub_temp_bytes,
                                                thrust::counting_iterator<int32_t>(0), holes,
                                                g->halo.d_select_count + 2, n, pred,
                                                g->stream));
        }
        if (split)
            split_leavers_kernel<<<1, VS_SPLIT_THREADS, 0, g->stream>>>(
                g->halo.d_select_count + 2, holes, vs_gpu_positions(g), d, g->lo[d],
                g->halo.send_idx[d][0], g->halo.send_idx[d][1], g->halo.d_select_count);
        VS_CUDA_CHECK(cudaGetLastError());
    }
}

/* Stayers among the indices it is given (the tail [n_stay, n) after migration). */
struct vs_stayer_pred {
    vs_positions pos;
    int d;
    double lo, hi;
    __device__ __forceinline__ bool operator()(int32_t i) const
    {
        return vs_in_brick(vs_pos_get(pos, d, i), lo, hi);
    }
};

static const void *migrate_pack(void *ctx, int d, int dir, double shift, int64_t n)
{
    vs_gpu_xctx *c = (vs_gpu_xctx *)ctx;
    vs_gpu_state *g = c->g;
    if (self_link(g, d))
        return NULL;
    const int wrap = shift == 0.0 ? 0 : (dir == 0 ? -1 : 1);
    char *out = (char *)send_part(c, dir);
    VS_LAUNCH(pack_migrant_kernel, n, VS_BLOCK, g->stream, (int)n, g->halo.send_idx[d][dir], d,
              wrap, g->prm->system.box[d], soa(g), out, c->rec);
    return out;
}

static void migrate_unpack(void *ctx, int d, int dir, const void *recs, int64_t n)
{
    vs_gpu_xctx *c = (vs_gpu_xctx *)ctx;
    vs_gpu_state *g = c->g;
    if (dir == 0 && c->n_left > 0) {
        /* close the holes below the new end with the stayers above it */
        const int n_left = (int)c->n_left, n_stay = (int)g->pt.n_owned - n_left;
        int32_t *holes = (int32_t *)g->sort.idx_in, *movers = (int32_t *)g->sort.idx_out;
        const vs_stayer_pred pred = {vs_gpu_positions(g), d, g->lo[d], g->hi[d]};
        VS_CUDA_CHECK(cub::DeviceSelect::If(g->sort.cub_temp, g->sort.cub_temp_bytes,
                                            thrust::counting_iterator<int32_t>(n_stay), movers,
                                            g->halo.d_select_count + 3, n_left, pred, g->stream));
        VS_LAUNCH(fill_holes_kernel, n_left, VS_BLOCK, g->stream, n_left,
                  g->halo.d_select_count + 3, holes, movers, soa(g));
        g->pt.n_owned = n_stay;
        c->n_left = 0;
    }
    if (dir == 0)
        vs_gpu_reserve_owned(g, g->pt.n_owned + c->n_recv[0] + c->n_recv[1]);
    vs_gpu_topo_reserve(g, g->bd.n_rec + n); /* molecules: a record index per arrival */
    VS_LAUNCH(unpack_migrant_kernel, n, VS_BLOCK, g->stream, (int)n, (const char *)recs,
              c->rec, g->pt.n_owned, soa(g), d, g->lo[d], g->hi[d], g->halo.d_outside);
    g->pt.n_owned += n;
    if (g->bd.on)
        g->bd.n_rec += n;
}

/* name, record, counts known, select, reserve, pack, receive buffer, unpack, transport */
static const vs_exchange_ops gpu_migrate_ops = {
    "migration", sizeof(vs_migrant_rec), 0,           migrate_select, reserve_stage,
    migrate_pack, recv_part,              migrate_unpack, transport};

extern "C" int64_t vs_gpu_migrate(vs_gpu_state *g, int64_t step)
{
    /* a rebuild step: where the displacement check is skipped (no skin), the bonded kernels'
     * verdict is read here, before anything else can report the damage a failure did. A
     * captured step (one rank, gpu_graph.cu) reads nothing back and reports nothing: the
     * verdict waits for the next step that reads (a thermo row, a reaction step, the end) */
    if (!g->graph.capturing)
        vs_gpu_bonded_check(g, -1);
    vs_gpu_settle_owned(g); /* the slab path's last number (gpu_slab.cu) */
    vs_gpu_walls_check(g); /* nothing may cross a wall: the driver would drop it */
    g->pt.n_ghost = 0;
    g->halo.ghosts_on_device = 0;
    const int64_t before = g->pt.n_owned;
    /* the dimensions with one rank first, all in one pass: the particles a neighbour sends
     * along another dimension arrive wrapped */
    int self = 0;
    for (int d = 0; d < 3; ++d)
        self |= (g->tr.link[d] == VS_LINK_SELF && !g->tr.dc->wall[d]) << d; /* walls: none */
    if (self && g->stamp.wrapped != g->ver.step) { /* not wrapped by the first half-step */
        ++g->ver.owned; /* positions change here */
        VS_LAUNCH(wrap_kernel, g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned, self,
                  g->prm->system.box[0], g->prm->system.box[1], g->prm->system.box[2], soa(g));
    }
    ++g->ver.step; /* the rebuild reuses the energy buffers; a wrap is due again */
    int crosses = 0;
    for (int d = 0; d < 3; ++d)
        crosses |= g->tr.link[d] != VS_LINK_SELF;
    const int slab = crosses && g->slab.on;
    if (crosses) {
        ++g->ver.slots; /* leavers and arrivals */
        if (!slab) /* the slab path's pack kernel resets it */
            VS_CUDA_CHECK(cudaMemsetAsync(g->halo.d_outside, 0xff, sizeof(unsigned long long),
                                          g->stream));
    }
    if (slab) {
        /* the reorder first: after the migration the owned number is on the device */
        vs_gpu_reorder(g);
        vs_gpu_slab_migrate(g, vs_gpu_image_remote(g));
    } else if (crosses) {
        /* with molecules a record carries the topology too (the host path's layout) */
        const size_t rec = vs_gpu_migrant_bytes(g);
        vs_exchange_ops ops = gpu_migrate_ops;
        ops.rec_bytes = rec;
        vs_gpu_xctx c = {g, rec, {0, 0}, {0, 0}, 0, 0};
        vs_exchange_run(&ops, &c, g->tr.dc);
    }
    if (slab) {
        /* the verdict comes back in the step's slot (gpu_slab.cu) */
        g->slab.outside_pending = 1;
        g->slab.outside_step = step;
    } else if (crosses) {
        /* the arrival check's verdict comes back with the next read-back (check_outside) */
        VS_CUDA_CHECK(cudaMemcpyAsync(g->halo.h_outside, g->halo.d_outside,
                                      sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                      g->stream));
        g->halo.outside_pending = 1;
        g->halo.outside_step = step;
    }
    if (!slab)
        vs_gpu_reorder(g);
    return before - g->pt.n_owned > 0 ? before - g->pt.n_owned : 0;
}

/* Ghost build (the staged protocol). select: both directions from what is present before
 * the stage's ghosts arrive, in index order: the x stage from all owned particles (and the
 * near-face candidates for the later stages, in the same pass), the y and z stages from the
 * candidates; one read-back of the counts per stage. A dimension with one rank copies on the
 * device from the send lists (no packing); the last unpack of a stage makes its ghosts
 * candidates of the next stages. */
static void build_select(void *ctx, int d, int64_t n_send[2], int64_t n_recv[2])
{
    vs_gpu_xctx *c = (vs_gpu_xctx *)ctx;
    vs_gpu_state *g = c->g;
    (void)n_recv;
    int64_t counts[3] = {0, 0, 0};
    const int n_items = d == 0 ? (int)g->pt.n_owned : (int)c->n_cand;
    for (int dir = 0; dir < 2; ++dir)
        reserve_send(g, d, dir, n_items);
    if (d == 0)
        reserve_cand(g, n_items, 0);
    if (n_items > 0) {
        for (int dir = 0; dir < 2; ++dir) {
            const double edge =
                dir == 0 ? g->lo[d] + g->ghost_width : g->hi[d] - g->ghost_width;
            const double edge_bonded =
                dir == 0 ? g->lo[d] + g->bonded_width : g->hi[d] - g->bonded_width;
            if (g->bd.on) {
                const vs_border_pred_bonded pred = {vs_gpu_positions(g), d, g->bd.mark, edge,
                                                    edge_bonded, dir};
                select_border(g, d, dir, n_items, pred);
            } else {
                const vs_border_pred pred = {vs_gpu_positions(g), d, edge, dir};
                select_border(g, d, dir, n_items, pred);
            }
        }
        if (d == 0)
            vs_gpu_select_near_face(g, g->halo.ghost_cand, g->halo.d_select_count + 2);
        read_counts(g, d == 0 ? 3 : 2, counts);
    }
    if (d == 0)
        c->n_cand = counts[2];
    n_send[0] = counts[0];
    n_send[1] = counts[1];
}

/* The build's reserve: the transport's buffers, the ghost slots, and the lists and slots the
 * updates reuse. */
static void build_reserve(void *ctx, int d, const int64_t n_send[2], const int64_t n_recv[2])
{
    vs_gpu_xctx *c = (vs_gpu_xctx *)ctx;
    vs_gpu_state *g = c->g;
    reserve_stage(ctx, d, n_send, n_recv);
    const int64_t base = g->pt.n_owned + g->pt.n_ghost;
    vs_gpu_reserve(g, base + n_recv[0] + n_recv[1]);
    for (int dir = 0; dir < 2; ++dir) {
        g->halo.n_send[d][dir] = n_send[dir];
        g->halo.n_recv[d][dir] = n_recv[dir];
    }
    g->halo.recv_start[d][0] = base;
    g->halo.recv_start[d][1] = base + n_recv[0];
}

static const void *build_pack(void *ctx, int d, int dir, double shift, int64_t n)
{
    vs_gpu_xctx *c = (vs_gpu_xctx *)ctx;
    vs_gpu_state *g = c->g;
    if (self_link(g, d))
        return NULL;
    void *out = send_part(c, dir);
    VS_LAUNCH(pack_ghost_kernel, n, VS_BLOCK, g->stream, (int)n, g->halo.send_idx[d][dir], d,
              shift, soa(g), out);
    return out;
}

static void build_unpack(void *ctx, int d, int dir, const void *recs, int64_t n)
{
    vs_gpu_xctx *c = (vs_gpu_xctx *)ctx;
    vs_gpu_state *g = c->g;
    const int64_t start = g->halo.recv_start[d][dir];
    if (self_link(g, d))
        VS_LAUNCH(ghost_copy_kernel, n, VS_BLOCK, g->stream, (int)n, g->halo.send_idx[d][dir],
                  start, d, g->halo.shift[d][dir], soa(g), 1);
    else
        VS_LAUNCH(unpack_ghost_kernel, n, VS_BLOCK, g->stream, (int)n, recs, start, soa(g));
    if (dir == 0)
        return;
    const int64_t n_new = c->n_recv[0] + c->n_recv[1];
    const int base = (int)(g->pt.n_owned + g->pt.n_ghost);
    g->pt.n_ghost += n_new;
    if (d < 2 && n_new > 0) {
        reserve_cand(g, c->n_cand + n_new, c->n_cand);
        VS_LAUNCH(iota_kernel, n_new, VS_BLOCK, g->stream, (int)n_new, base,
                  g->halo.ghost_cand + c->n_cand);
        c->n_cand += n_new;
    }
}

/* rec_bytes: fp64 records here; vs_gpu_build_ghosts and vs_gpu_update_ghosts set the run's
 * (vs_gpu_ghost_rec_bytes, vs_gpu_ghost_update_rec_bytes) */
static const vs_exchange_ops gpu_build_ops = {
    "halo",     sizeof(vs_ghost_rec), 0,           build_select, build_reserve,
    build_pack, recv_part,            build_unpack, transport};

/* Ghost update (the staged protocol): the build's lists, counts and slots; x and vp travel. */
static void update_select(void *ctx, int d, int64_t n_send[2], int64_t n_recv[2])
{
    const vs_gpu_xctx *c = (const vs_gpu_xctx *)ctx;
    for (int dir = 0; dir < 2; ++dir) {
        n_send[dir] = c->g->halo.n_send[d][dir];
        n_recv[dir] = c->g->halo.n_recv[d][dir];
    }
}

static const void *update_pack(void *ctx, int d, int dir, double shift, int64_t n)
{
    vs_gpu_xctx *c = (vs_gpu_xctx *)ctx;
    vs_gpu_state *g = c->g;
    if (self_link(g, d))
        return NULL;
    void *out = send_part(c, dir);
    VS_LAUNCH(pack_update_kernel, n, VS_BLOCK, g->stream, (int)n, g->halo.send_idx[d][dir], d,
              shift, soa(g), out);
    return out;
}

static void update_unpack(void *ctx, int d, int dir, const void *recs, int64_t n)
{
    vs_gpu_xctx *c = (vs_gpu_xctx *)ctx;
    vs_gpu_state *g = c->g;
    const int64_t start = g->halo.recv_start[d][dir];
    if (self_link(g, d))
        VS_LAUNCH(ghost_copy_kernel, n, VS_BLOCK, g->stream, (int)n, g->halo.send_idx[d][dir],
                  start, d, g->halo.shift[d][dir], soa(g), 0);
    else
        VS_LAUNCH(unpack_update_kernel, n, VS_BLOCK, g->stream, (int)n, recs, start, soa(g));
}

static const vs_exchange_ops gpu_update_ops = {
    "halo",      sizeof(vs_ghost_update_rec), 1,            update_select, reserve_stage,
    update_pack, recv_part,                   update_unpack, transport};

extern "C" void vs_gpu_build_ghosts(vs_gpu_state *g)
{
    g->pt.n_ghost = 0;
    g->halo.ghosts_on_device = 0;
    g->cells.zeroed = NULL; /* only this build's image pass may clear the cell counts */
    g->cells.owned_binned = 0;
    vs_gpu_bonded_marks(g); /* molecules: which owned beads go out to the bonded width */
    if (g->plan.no_ghosts) {
        g->halo.n_img_local = 0;
        g->tr.halo_bytes_last = 0;
        vs_gpu_check_outside(g); /* the migration's verdict, as the exchanges take it */
        vs_gpu_bonded_index(g);  /* the owned beads' */
        return;
    }
    const int remote = vs_gpu_image_remote(g);
    if (remote >= 0 && g->slab.on) {
        vs_gpu_slab_build_ghosts(g, remote);
        return;
    }
    if (remote >= -1) {
        vs_gpu_build_images(g, remote);
        vs_gpu_bonded_index(g);
        return;
    }
    /* lower face -> image above the upper face, and the reverse, at the box's ends: the
     * driver's shifts, kept for the copies within this rank */
    vs_exchange_shifts(g->tr.dc, g->halo.shift);
    vs_exchange_ops ops = gpu_build_ops;
    ops.rec_bytes = vs_gpu_ghost_rec_bytes(g);
    vs_gpu_xctx c = {g, ops.rec_bytes, {0, 0}, {0, 0}, 0, 0};
    g->tr.halo_bytes_last = vs_exchange_run(&ops, &c, g->tr.dc);
    vs_gpu_check_outside(g);
    vs_gpu_bonded_index(g);
}


extern "C" void vs_gpu_update_ghosts(vs_gpu_state *g)
{
    if (g->plan.no_ghosts)
        return;
    const int remote = vs_gpu_image_remote(g);
    if (remote >= -1) {
        vs_gpu_update_local_images_of(g, remote);
        vs_gpu_update_remote_images_of(g, remote);
        return;
    }
    vs_exchange_ops ops = gpu_update_ops;
    ops.rec_bytes = vs_gpu_ghost_update_rec_bytes(g);
    vs_gpu_xctx c = {g, ops.rec_bytes, {0, 0}, {0, 0}, 0, 0};
    g->tr.halo_bytes_last = vs_exchange_run(&ops, &c, g->tr.dc);
    vs_gpu_check_outside(g);
}
