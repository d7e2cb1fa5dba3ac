/* The slab path: small bricks in slabs (one dimension split over ranks) over the peer
 * transport, rebuilt on every step (no skin), with one read-back per step.
 *
 * The staged and image paths read counts back twice per step (the migration's leavers, then
 * the ghosts' images) and exchange them by MPI before any record moves; for small bricks
 * those waits, not the records, set the step's time (docs/performance.md). Here:
 * - The migration reads its leaver counts back together with the image counts of every
 *   owned particle before it, the last build's flags and the last arrival check (one
 *   synchronisation, one copy). Its records travel as the peer transport's always do, and one
 *   message per neighbour and direction carries the count, the buffer and the events. What
 *   the host queues after the read-back idles the device until the forces start, so it is
 *   kept to few launches: one block packs the leavers and closes their holes, and the
 *   arrivals are unpacked by the ghost build's image pass.
 * - The ghost build then knows bounds without a read-back: this step's images are at most
 *   those counted, plus the most one arrival can have per arrival (vs_gpu_slab_most_images).
 *   Room for the bounds is reserved, the image pass counts its images on the device (local
 *   ones into the ghost slots, sent ones into a second exported buffer whose header holds
 *   their counts), a message per neighbour carries the bound, and the neighbours' records
 *   are unpacked straight out of their buffers by a kernel that reads the counts there. The
 *   ghosts' number stays on the device (d_ghosts), as on one rank (gpu_images.cu).
 * - No acknowledgement message: every message tells its receiver that the sender's reads of
 *   the receiver's buffers are behind the sender's `read` event, and each buffer is packed
 *   again only after the message that follows its last read (vs_gpu_slab_message).
 * Runs are the same bits as on the other paths: the same ghost set, in another order, which
 * the Newton kernel's fixed-point sums do not see (tests/gpu/ranks_bitwise.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpu_halo.cuh"

extern "C" {
#include "exchange.h"
#include "pair_setup.h"
#include "timer.h"
}

/* The ghost send buffer's header, padded so the records stay aligned: the count sent down and
 * up (the neighbours read these), this rank's local images, and the overflow flag. */
enum { VS_SLAB_HEADER = 256, VS_SLAB_SENT = 0, VS_SLAB_LOCAL = 2, VS_SLAB_OVERFLOW = 3 };

/* The migration's read-back: the select counters (d_select_count[0..6]), then from
 * VS_SLAB_TAIL the last build's header (its four words) and the last migration's arrival
 * verdict (a 64-bit tag), which the ghost unpack copies there so that they come back with the
 * next step's counts instead of by copies of their own. */
enum { VS_SLAB_TAIL = 8, VS_SLAB_OUTSIDE = VS_SLAB_TAIL + 4, VS_SLAB_READ = VS_SLAB_OUTSIDE + 2 };

/* The leavers of both directions (lower ones, n0 from idx0, first; records one after another
 * from `out`; no molecules on this path, orientations where the particles have them), then
 * the holes they leave below the new end n_stay closed with the stayers beyond it, in one
 * block: the fill overwrites leaver slots the pack reads, and the leavers are a flux through
 * two faces, few enough for one block, whose barrier orders the two where a select and a
 * fill of their own would cost two more launches. The k-th stayer of [n_stay, n_stay +
 * n_left) in index order fills holes[k] (the leavers in index order), as the other paths'
 * select and fill_holes_kernel do. */
enum { VS_SLAB_PACK_THREADS = 1024 };
__global__ void __launch_bounds__(VS_SLAB_PACK_THREADS)
    slab_pack_fill_kernel(int n0, int n1, const int32_t *idx0, const int32_t *idx1, int d,
                          int wrap0, int wrap1, double len, vs_soa a, char *out, int n_stay,
                          int n_left, const int32_t *holes, double lo, double hi)
{
    typedef cub::BlockScan<int, VS_SLAB_PACK_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    const size_t rec = vs_migrant_bytes(a);
    for (int k = (int)threadIdx.x; k < n0 + n1; k += VS_SLAB_PACK_THREADS) {
        if (k < n0)
            vs_pack_migrant(idx0[k], k, d, wrap0, len, a, out, rec);
        else
            vs_pack_migrant(idx1[k - n0], k, d, wrap1, len, a, out, rec);
    }
    __syncthreads(); /* every leaver is read before a hole is written */
    int filled = 0;
    for (int start = 0; start < n_left; start += VS_SLAB_PACK_THREADS) {
        const int k = start + (int)threadIdx.x, i = n_stay + k;
        const int stays = k < n_left && vs_in_brick(vs_pos_get(a.pos, d, i), lo, hi);
        int rank = 0, total = 0;
        scan_t(tmp).ExclusiveSum(stays, rank, total);
        if (stays)
            vs_fill_hole(a, holes[filled + rank], i);
        filled += total;
        __syncthreads(); /* tmp is reused */
    }
}

/* The arrivals from above (n0, in0) then from below, appended from `start`. */
__global__ void slab_unpack_migrants_kernel(int n0, int n1, const char *in0, const char *in1,
                                            int64_t start, vs_soa a, int d, double lo,
                                            double hi, unsigned long long *outside)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t rec = vs_migrant_bytes(a);
    if (k < n0)
        vs_unpack_migrant(in0, k, rec, start, a, d, lo, hi, outside);
    else if (k < n0 + n1)
        vs_unpack_migrant(in1, k - n0, rec, start + n0, a, d, lo, hi, outside);
}

void vs_gpu_slab_init(vs_gpu_state *g)
{
    memset(g->slab.h_flags, 0, sizeof g->slab.h_flags);
    g->slab.d_ctr = (int32_t *)vs_gpu_alloc(g, 8 * sizeof(int32_t));
    VS_CUDA_CHECK(cudaMemsetAsync(g->slab.d_ctr, 0, 8 * sizeof(int32_t), g->stream));
    const char *times = getenv("VESICA_GPU_SLAB_TIMES");
    g->slab.timed = times && strcmp(times, "1") == 0;
    const char *above = getenv("VESICA_GPU_SLAB_ABOVE");
    g->slab.most_above = above ? atoll(above) : (int64_t)1 << 21;
}

/* VESICA_GPU_SLAB_TIMES=1: the host's time in each part of the slab path, per step. */
static const char *const slab_part_names[VS_SLAB_PARTS] = {
    "select+count", "read-back wait", "pack+fill", "message A", "arrivals", "ghost reserve",
    "arrivals+image pass", "message B", "ghost unpack"};

static void mark(vs_gpu_state *g, int part, double *t)
{
    if (!g->slab.timed)
        return;
    const double now = vs_wall_seconds();
    if (part >= 0)
        g->slab.host_s[part] += now - *t;
    *t = now;
}

void vs_gpu_slab_free(vs_gpu_state *g)
{
    if (g->slab.d_ctr)
        cudaFree(g->slab.d_ctr);
    if (g->slab.timed && g->slab.steps > 0) {
        char line[512];
        size_t used = 0;
        for (int k = 0; k < VS_SLAB_PARTS; ++k)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s %.1f", k ? ", " : "",
                                     slab_part_names[k],
                                     1e6 * g->slab.host_s[k] / (double)g->slab.steps);
        /* every rank's: the step waits for the slowest, whose parts rank 0's do not show */
        if (g->slab.rank == 0)
            vs_log_info("slab exchange, host us per step: %s", line);
        else
            fprintf(stderr, "slab exchange (rank %d), host us per step: %s\n", g->slab.rank,
                    line);
    }
}

/* Every input here is the same on every rank (the parameters, the transport per dimension,
 * the plan), so all ranks take the path together. */
void vs_gpu_slab_decide(vs_gpu_state *g)
{
    const int remote = vs_gpu_image_remote(g);
    const vs_gpu_plan *p = &g->plan;
    const int64_t ranks = g->tr.dc->cart.size;
    /* a neighbour on both sides (a wall would leave one side without) */
    g->slab.on = remote >= 0 && g->tr.link[remote] == VS_TRANSPORT_PEER &&
                 g->tr.dc->lower[remote] >= 0 && g->tr.dc->upper[remote] >= 0 &&
                 g->halo.on_device_allowed && !g->bd.on && !g->ps.special_on &&
                 !vs_pair_styles_active(g->prm) && p->forces == VS_GPU_FORCES_NEWTON &&
                 !p->reuse_list && !p->half_list && p->overlap == VS_GPU_OVERLAP_NONE &&
                 g->prm->system.n_particles / ranks <= g->slab.most_above;
    g->slab.in_last = 0;
    g->slab.rank = g->tr.dc->cart.rank;
}

/* The last build's verdicts, read where the stream has been waited for: a count past its
 * bound would have lost ghosts. */
static void check_flags(vs_gpu_state *g)
{
    if (!g->slab.flags_pending)
        return;
    g->slab.flags_pending = 0;
    if (g->slab.h_flags[VS_SLAB_OVERFLOW])
        VS_FATAL("slab exchange: an image count passed its bound (local %lld, sent %lld and "
                 "%lld at most); set VESICA_GPU_SLAB_ABOVE=0 and report this",
                 (long long)g->slab.local_bound, (long long)g->slab.out_bound[0],
                 (long long)g->slab.out_bound[1]);
    g->tr.halo_bytes_last = (int64_t)vs_gpu_ghost_rec_bytes(g) *
                            (int64_t)(g->slab.h_flags[VS_SLAB_SENT] +
                                      g->slab.h_flags[VS_SLAB_SENT + 1]);
}

/* The verdicts that came back with this step's counts (h): the last build's flags, and the
 * last migration's arrival check. */
static void last_verdicts(vs_gpu_state *g, const int32_t *h)
{
    if (g->slab.flags_pending)
        memcpy(g->slab.h_flags, h + VS_SLAB_TAIL, sizeof g->slab.h_flags);
    check_flags(g);
    if (g->slab.outside_pending) {
        g->slab.outside_pending = 0;
        memcpy(g->halo.h_outside, h + VS_SLAB_OUTSIDE, sizeof(unsigned long long));
        g->halo.outside_pending = 1;
        g->halo.outside_step = g->slab.outside_step;
        vs_gpu_outside_verdict(g);
    }
}

void vs_gpu_slab_migrate(vs_gpu_state *g, int d)
{
    /* the leavers through each face and the images of every owned particle, one read-back */
    const int n = (int)g->pt.n_owned;
    int32_t *counts = g->halo.d_select_count;
    double t = 0.0;
    mark(g, -1, &t);
    ++g->slab.steps;
    if (n > 0) {
        vs_gpu_select_leavers(g, d);
    } else {
        VS_CUDA_CHECK(cudaMemsetAsync(counts, 0, 3 * sizeof(int32_t), g->stream));
    }
    vs_gpu_slab_count_images(g, d);
    int32_t *h = (int32_t *)g->red.h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, counts, VS_SLAB_READ * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, g->stream));
    mark(g, 0, &t);
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    mark(g, 1, &t);
    const int64_t n_send[2] = {h[0], h[1]}, n_left = h[2];
    const int64_t images[3] = {h[4], h[5], h[6]};
    last_verdicts(g, h);

    /* the leavers, packed with everything they carry, wrapped where they cross the box, and
     * the holes they leave closed */
    const size_t rec = vs_gpu_migrant_bytes(g);
    vs_gpu_comm_reserve(g, rec * (size_t)(n_send[0] + n_send[1]), 0);
    double shift[3][2];
    vs_exchange_shifts(g->tr.dc, shift);
    const uint64_t offset[2] = {0, rec * (uint64_t)n_send[0]};
    const int n_stay = n - (int)n_left;
    if (n_left > 0) {
        slab_pack_fill_kernel<<<1, VS_SLAB_PACK_THREADS, 0, g->stream>>>(
            (int)n_send[0], (int)n_send[1], g->halo.send_idx[d][0], g->halo.send_idx[d][1], d,
            shift[d][0] == 0.0 ? 0 : -1, shift[d][1] == 0.0 ? 0 : 1, g->prm->system.box[d],
            soa(g), g->tr.d_send, n_stay, (int)n_left, (const int32_t *)g->sort.idx_in,
            g->lo[d], g->hi[d]);
        VS_CUDA_CHECK(cudaGetLastError());
        g->pt.n_owned = n_stay;
    }
    int64_t n_recv[2];
    const char *base[2], *arrivals[2];
    mark(g, 2, &t);
    vs_gpu_slab_message(g, d, 0, n_send, offset, n_recv, base, arrivals);
    mark(g, 3, &t);

    /* the arrivals after the stayers: unpacked by the ghost build's image pass, or here where
     * a reorder of the owned particles follows */
    const int64_t in = n_recv[0] + n_recv[1], stay = g->pt.n_owned;
    vs_gpu_reserve_owned(g, stay + in);
    g->pt.n_owned = stay + in; /* the reorder's test reads the new number */
    g->slab.arrivals = vs_gpu_reorder_due(g) ? 0 : in;
    if (g->slab.arrivals == 0) {
        VS_LAUNCH(slab_unpack_migrants_kernel, in, VS_BLOCK, g->stream, (int)n_recv[0],
                  (int)n_recv[1], arrivals[0], arrivals[1], stay, soa(g), d, g->lo[d], g->hi[d],
                  g->halo.d_outside);
        vs_gpu_slab_read_done(g);
    }
    for (int k = 0; k < 2; ++k) {
        g->slab.n_in[k] = g->slab.arrivals ? n_recv[k] : 0;
        g->slab.in[k] = arrivals[k];
    }
    mark(g, 4, &t);

    /* this step's images at most: those counted, and the most each arrival can have */
    int64_t most_local = 0, most_sent = 0;
    vs_gpu_slab_most_images(g, d, &most_local, &most_sent);
    g->slab.local_bound = images[0] + most_local * in;
    g->slab.out_bound[0] = images[1] + most_sent * in;
    g->slab.out_bound[1] = images[2] + most_sent * in;
}

/* The neighbours' ghost records, straight out of their buffers: direction y's from
 * records[y], their number in the sender's header (counts[y]), after this rank's local
 * images (*n_local) and direction 0's. The ghosts' number goes to *ghosts. */
__global__ void slab_unpack_kernel(int64_t n_owned, int32_t *header, const char *hdr0,
                                   const char *hdr1, const char *rec0, const char *rec1,
                                   int64_t bound0, int64_t bound1, vs_soa a, int32_t *ghosts,
                                   const unsigned long long *outside, int32_t *tail,
                                   int32_t *ctr)
{
    const int y = blockIdx.y;
    const int32_t local = header[VS_SLAB_LOCAL];
    int32_t *overflow = header + VS_SLAB_OVERFLOW;
    int32_t r0 = ((const int32_t *)hdr0)[VS_SLAB_SENT],
            r1 = ((const int32_t *)hdr1)[VS_SLAB_SENT + 1];
    if (r0 > bound0 || r1 > bound1) { /* cannot happen: the sender stops at its bound */
        atomicExch(overflow, 1);
        r0 = r0 > bound0 ? (int32_t)bound0 : r0;
        r1 = r1 > bound1 ? (int32_t)bound1 : r1;
    }
    if (y == 0 && blockIdx.x == 0 && threadIdx.x == 0) {
        *ghosts = local + r0 + r1;
        /* what the next read-back brings: the header (every block finds the same overflow),
         * and the arrival verdict (the arrivals' unpack came before) */
        tail[0] = header[VS_SLAB_SENT];
        tail[1] = header[VS_SLAB_SENT + 1];
        tail[2] = local;
        tail[3] = *overflow | (int32_t)(r0 != ((const int32_t *)hdr0)[VS_SLAB_SENT] ||
                                        r1 != ((const int32_t *)hdr1)[VS_SLAB_SENT + 1]);
        *(unsigned long long *)(tail + 4) = *outside;
        for (int k = 0; k < 5; ++k) /* the image pass is done: its counters for the next */
            ctr[k] = 0;
    }
    const int n = y ? r1 : r0;
    const char *in = y ? rec1 : rec0;
    const int64_t start = n_owned + local + (y ? r0 : 0);
    VS_FOR_EACH(k, n)
        vs_take_ghost(a, in, k, start + k);
}

void vs_gpu_slab_build_ghosts(vs_gpu_state *g, int d)
{
    const int64_t n = g->pt.n_owned;
    double t = 0.0;
    mark(g, -1, &t);
    g->pt.n_ghost = 0;
    g->halo.ghosts_on_device = 0;
    g->halo.n_img_local = 0; /* no refresh follows: every step rebuilds */
    /* room for the local images and a guess at the neighbours' (their bound comes below) */
    const int64_t guess = g->slab.in_last + g->slab.in_last / 8;
    vs_gpu_reserve(g, n + g->slab.local_bound + guess);
    const size_t rec = vs_gpu_ghost_rec_bytes(g);
    vs_gpu_ghost_send_reserve(g, VS_SLAB_HEADER +
                                     rec * (size_t)(g->slab.out_bound[0] + g->slab.out_bound[1]));
    mark(g, 5, &t);
    vs_gpu_slab_write_images(g, d, VS_SLAB_HEADER, n - g->slab.arrivals, g->slab.n_in,
                             g->slab.in);
    if (g->slab.arrivals) /* the arrivals' copy out of the neighbours' buffers is queued */
        vs_gpu_slab_read_done(g);
    g->slab.arrivals = 0;
    g->slab.n_in[0] = g->slab.n_in[1] = 0;
    mark(g, 6, &t);
    const uint64_t offset[2] = {VS_SLAB_HEADER,
                                VS_SLAB_HEADER + rec * (uint64_t)g->slab.out_bound[0]};
    const char *base[2], *records[2];
    vs_gpu_slab_message(g, d, 1, g->slab.out_bound, offset, g->slab.in_bound, base, records);
    mark(g, 7, &t);
    const int64_t in = g->slab.in_bound[0] + g->slab.in_bound[1];
    g->slab.in_last = in;
    if (n + g->slab.local_bound + in > g->pt.capacity) {
        /* the guess was short: grow, keeping the local images written above */
        int32_t *h = (int32_t *)g->red.h_pinned;
        VS_CUDA_CHECK(cudaMemcpyAsync(h, (int32_t *)g->tr.d_ghost_send + VS_SLAB_LOCAL,
                                      sizeof(int32_t), cudaMemcpyDeviceToHost, g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        g->pt.n_ghost = h[0];
        vs_gpu_reserve(g, n + g->slab.local_bound + in + in / 8);
        g->pt.n_ghost = 0;
    }
    const int64_t most = g->slab.in_bound[0] > g->slab.in_bound[1] ? g->slab.in_bound[0]
                                                                    : g->slab.in_bound[1];
    const dim3 grid((unsigned)((most + VS_BLOCK - 1) / VS_BLOCK > 0
                                   ? (most + VS_BLOCK - 1) / VS_BLOCK
                                   : 1),
                    2);
    slab_unpack_kernel<<<grid, VS_BLOCK, 0, g->stream>>>(
        n, (int32_t *)g->tr.d_ghost_send, base[0], base[1], records[0], records[1],
        g->slab.in_bound[0], g->slab.in_bound[1], soa(g), g->halo.d_ghosts, g->halo.d_outside,
        g->halo.d_select_count + VS_SLAB_TAIL, g->slab.d_ctr);
    VS_CUDA_CHECK(cudaGetLastError());
    vs_gpu_slab_read_done(g);
    /* the sent counts (the halo's bytes) and the overflow flag come back with the next
     * read-back (last_verdicts) */
    g->slab.flags_pending = 1;
    mark(g, 8, &t);
    g->halo.ghosts_on_device = 1;
    if (g->halo.ghost_estimate < 0) /* the first such build: the grids' size from here on */
        vs_gpu_settle_ghosts(g);
}
