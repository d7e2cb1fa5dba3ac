/* The slab path: bricks in slabs (one dimension split over ranks) over the peer
 * transport, rebuilt on every step (no skin), with no read-back in the step.
 *
 * The staged and image paths read counts back (the migration's leavers, then the ghosts'
 * images) and exchange them by MPI before any record moves; for small bricks those waits,
 * and the host's calls after them while the device idles, set the step's time
 * (docs/performance.md). Here every number of the step stays on the device:
 * - The leavers are selected and packed by one block that also closes their holes; it writes
 *   their numbers into the send buffer's header, which the neighbours' image pass reads.
 *   Direction 1's records start at a fixed place (after direction 0's bound), so one
 *   message per neighbour carries only the bounds and the buffer.
 * - The image pass unpacks the arrivals after the stayers, finds the owned particles near a
 *   face by the first half-step's flags (and the arrivals) and writes their images (local
 *   ones into the ghost slots, sent ones into a second exported buffer whose header holds
 *   their numbers); the ghost unpack reads the neighbours' records
 *   straight out of their buffers. The owned, ghost and listed numbers stay on the device,
 *   where the later kernels read them (vs_gpu_owned, vs_gpu_listed).
 * - The host sizes grids and reservations by bounds: the last step's numbers with a margin.
 *   They come back in a slot the ghost unpack writes into mapped host memory (no copy node
 *   after it, each of which idles the device for a few microseconds), read at the next
 *   step's start (vs_gpu_settle_owned), when the device is in the forces that follow that
 *   unpack, so the host runs ahead and the device does not wait for it. A number past its
 *   bound would have lost particles or ghosts: the slot says so and the run stops (a fluid's
 *   flux through a face does not double in a step). The first step, with no last one,
 *   counts and reads back.
 * - No acknowledgement and no wait for the neighbours' reads: two waits per step order
 *   everything. A neighbour reads this rank's migrants in its image pass, before it signals
 *   what this rank's ghost unpack waits for; it reads this rank's ghost records in its ghost
 *   unpack, before it packs the next step's migrants and signals what this rank's next image
 *   pass waits for. So this rank's next writes to either buffer come after the neighbours'
 *   reads of it in the streams' order. A signal is a word each rank exports: the kernel
 *   that finishes a packing stores the exchange's number into it, and the neighbour's stream
 *   waits until it is there (gpu_transport.cu). So the step, host messages and all, can be
 *   captured as one graph per rank (gpu_graph.cu): the host messages carry only bounds and
 *   buffers, and nothing on the device waits for a host. The owned particles are binned
 *   while the ghost records travel (vs_gpu_bin_owned), the ghosts after they came.
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

/* The send buffers' headers, padded so the records stay aligned. The migration's: the
 * leavers sent down and up. The ghost records': the number sent down and up (the neighbours
 * read these), this rank's local images, and the overflow flag. */
enum { VS_SLAB_HEADER = 256, VS_SLAB_SENT = 0, VS_SLAB_LOCAL = 2, VS_SLAB_OVERFLOW = 3 };

/* What the slot brings back (d_tail, written by the ghost unpack): the ghost records sent
 * down and up, the local images, the image pass's overflow, the arrival check's verdict (a
 * 64-bit tag), the owned particles' number, the leavers down and up, and whether an arrival
 * or leaver number passed its bound. */
enum {
    VS_TAIL_SENT = 0,
    VS_TAIL_LOCAL = 2,
    VS_TAIL_OVERFLOW = 3,
    VS_TAIL_OUTSIDE = 4,
    VS_TAIL_OWNED = 6,
    VS_TAIL_LEAVERS = 7,
    VS_TAIL_PAST = 9
};

/* The image pass's counters (d_ctr): local, sent down, up, overflow, its candidates, and an
 * arrival or leaver number past its bound. */
enum { VS_CTR_PAST = 5, VS_CTR_WORDS = 8 };

/* The leavers (holes, in index order, counts[2] of them) split by face and packed with
 * everything they carry (below the lower face to out0, else to out1, each in index order, as
 * split_leavers_kernel orders them; at most bound0 and bound1, else *past is raised; their
 * numbers into the header at `header` and, unbounded, into counts[0..1], which the slot
 * brings back for the next step's bounds; no molecules on this path, orientations where the
 * particles have them), the neighbours signalled, then the holes they leave below the new
 * end closed with the stayers beyond it, in one block: the fill overwrites leaver slots the
 * pack reads, and the leavers are a flux through two faces, few enough for one block, whose
 * barrier orders the two where a split, a pack and a fill of their own would cost more
 * launches; the neighbours' image pass overlaps the fill. The k-th stayer of
 * [n_stay, n_stay + n_left) in index order fills holes[k], as the other paths' select and
 * fill_holes_kernel do. The stayers' number goes to stay[0] and stay[1] (the owned number
 * until the image pass adds the arrivals). 512 threads: a thread's carried fields and record
 * fit in its registers (at 1024 the 64-register limit spills them), and one pass still
 * covers the few hundred leavers of a 1M brick. */
enum { VS_SLAB_PACK_THREADS = 512 };

/* Where a slab exchange's leavers go: across face d, below the lower face to out0 (at most
 * bound0 records, periodic wrap wrap0), else to out1 (bound1, wrap1), in a box len long
 * along d; a leaver past its bound raises *past. */
struct vs_slab_faces {
    int d, bound0, bound1, wrap0, wrap1;
    double len;
    char *out0, *out1;
    int32_t *past;
};

/* The k-th leaver (index i, carrying c; below the lower face or not) packed at its place:
 * the lower leavers before it (n_lower before the chunk, rank within it) or the upper ones. */
static __device__ __forceinline__ void place_leaver(const vs_slab_faces &f, const vs_soa &a,
                                                    size_t rec, int i, int k, int below,
                                                    int n_lower, int rank, const vs_carried &c)
{
    const int at = below ? n_lower + rank : k - n_lower - rank;
    if (at >= (below ? f.bound0 : f.bound1))
        *f.past = 1; /* the slot reports it: the run stops */
    else if (below)
        vs_pack_migrant(i, at, f.d, f.wrap0, f.len, a, f.out0, rec, c);
    else
        vs_pack_migrant(i, at, f.d, f.wrap1, f.len, a, f.out1, rec, c);
}

/* The pack's numbers out (one thread): the leavers down and up (unbounded, for the next
 * step's bounds; bounded, in the header), the stayers' number. */
static __device__ __forceinline__ void publish_numbers(const vs_slab_faces &f, int32_t *counts,
                                                       int32_t *header, int32_t *stay,
                                                       int n_lower, int n_left, int n_stay)
{
    counts[0] = n_lower;
    counts[1] = n_left - n_lower;
    header[0] = n_lower < f.bound0 ? n_lower : f.bound0;
    header[1] = n_left - n_lower < f.bound1 ? n_left - n_lower : f.bound1;
    stay[0] = n_stay;
    stay[1] = n_stay;
}
__global__ void __launch_bounds__(VS_SLAB_PACK_THREADS)
    slab_pack_fill_kernel(int32_t *counts, int n, vs_slab_faces f, vs_soa a, int32_t *header,
                          const int32_t *holes, double lo, double hi, int32_t *stay,
                          unsigned long long *outside, vs_slab_signal signal)
{
    if (threadIdx.x == 0) /* the arrival check's verdict: none yet (the image pass checks) */
        *outside = ~0ull;
    typedef cub::BlockScan<int, VS_SLAB_PACK_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    const size_t rec = vs_migrant_bytes(a);
    const int n_left = counts[2], n_stay = n - n_left;
    int n_lower = 0; /* lower leavers before this chunk */
    for (int start = 0; start < n_left; start += VS_SLAB_PACK_THREADS) {
        const int k = start + (int)threadIdx.x;
        const int i = k < n_left ? holes[k] : 0;
        /* everything the leaver carries is read before the scan, in one go */
        vs_carried c = {};
        if (k < n_left)
            c = vs_carried_load(a, i);
        const double u = f.d == 0 ? c.p[0] : f.d == 1 ? c.p[1] : c.p[2];
        /* a position that is not finite goes up, where the arrival check names it */
        const int below = k < n_left && u < lo;
        int rank = 0, total = 0;
        scan_t(tmp).ExclusiveSum(below, rank, total);
        if (k < n_left)
            place_leaver(f, a, rec, i, k, below, n_lower, rank, c);
        n_lower += total;
        __syncthreads(); /* tmp is reused; and every leaver is read before a hole is written */
    }
    if (threadIdx.x == 0)
        publish_numbers(f, counts, header, stay, n_lower, n_left, n_stay);
    vs_slab_raise(signal); /* the records and header are out: the neighbours may read them */
    int filled = 0;
    for (int start = 0; start < n_left; start += VS_SLAB_PACK_THREADS) {
        const int k = start + (int)threadIdx.x, i = n_stay + k;
        /* everything the stayer carries is read before the scan, in one go */
        vs_carried c = {};
        if (k < n_left)
            c = vs_carried_load(a, i);
        const double u = f.d == 0 ? c.p[0] : f.d == 1 ? c.p[1] : c.p[2];
        const int stays = k < n_left && vs_in_brick(u, lo, hi);
        int rank = 0, total = 0;
        scan_t(tmp).ExclusiveSum(stays, rank, total);
        if (stays)
            vs_fill_hole(a, holes[filled + rank], i, c);
        filled += total;
        __syncthreads(); /* tmp is reused */
    }
}

/* More leavers than one round of that block (the last step's number above VS_SLAB_PACK_THREADS,
 * as at 16M per rank): the same pack and fill spread over blocks, in two kernels, since the
 * fill overwrites leaver slots that any block's pack reads. The leavers (and the fill's tail)
 * go in chunks of VS_SLAB_PACK_THREADS, chunk c to block c mod the grid. A chunk publishes its
 * number (leavers below the face; stayers) in chunks[c], the exchange's number `seq` in the
 * high word so that nothing needs clearing, and adds those of the chunks before it, waiting for
 * each: every block is resident at once (the grid is at most the multiprocessors, one block of
 * 512 fits each), and a block waits only for chunks before its own, so all make progress. The
 * order and the records are slab_pack_fill_kernel's. The pack's last block to finish (a ticket,
 * after every block's system-scope fence) writes the numbers and raises the signal. */
enum { VS_SLAB_CHUNKS = 4096 };

/* Warp 0: the sum of chunks[0 .. c)'s numbers once each carries seq; lane 0 has it. */
static __device__ int chunks_before(const unsigned long long *chunks, int c, uint32_t seq)
{
    int sum = 0;
    for (int j = (int)threadIdx.x; j < c; j += 32) {
        unsigned long long v;
        do
            v = *(volatile const unsigned long long *)&chunks[j];
        while ((uint32_t)(v >> 32) != seq);
        sum += (int)(uint32_t)v;
    }
    for (int o = 16; o > 0; o >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, o);
    return sum;
}

/* Chunk c's number published, then the numbers of the chunks before it: every thread of the
 * block calls it, and it returns the sum to all. */
static __device__ int publish_and_sum(unsigned long long *chunks, int c, int mine, uint32_t seq)
{
    __shared__ int before;
    if (threadIdx.x == 0)
        *(volatile unsigned long long *)&chunks[c] = (unsigned long long)seq << 32 | (uint32_t)mine;
    if (threadIdx.x < 32) {
        const int sum = chunks_before(chunks, c, seq);
        if (threadIdx.x == 0)
            before = sum;
    }
    __syncthreads();
    const int b = before;
    __syncthreads(); /* before is reused by the next chunk */
    return b;
}

__global__ void __launch_bounds__(VS_SLAB_PACK_THREADS)
    slab_pack_blocks_kernel(int32_t *counts, int n, vs_slab_faces f, vs_soa a, int32_t *header,
                            const int32_t *holes, double lo, int32_t *stay,
                            unsigned long long *outside, unsigned long long *chunks,
                            unsigned *ticket, vs_slab_signal signal)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) /* the arrival check's verdict: none yet */
        *outside = ~0ull;
    typedef cub::BlockScan<int, VS_SLAB_PACK_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ int last;
    const size_t rec = vs_migrant_bytes(a);
    const int n_left = counts[2];
    const int n_chunks = (n_left + VS_SLAB_PACK_THREADS - 1) / VS_SLAB_PACK_THREADS;
    if (n_chunks > VS_SLAB_CHUNKS && blockIdx.x == 0 && threadIdx.x == 0)
        *f.past = 1; /* a flux is never that large: the slot reports it, the run stops */
    for (int c = (int)blockIdx.x; c < n_chunks && c < VS_SLAB_CHUNKS; c += (int)gridDim.x) {
        const int k = c * VS_SLAB_PACK_THREADS + (int)threadIdx.x;
        const int i = k < n_left ? holes[k] : 0;
        vs_carried cr = {};
        if (k < n_left)
            cr = vs_carried_load(a, i);
        const double u = f.d == 0 ? cr.p[0] : f.d == 1 ? cr.p[1] : cr.p[2];
        const int below = k < n_left && u < lo; /* not finite: up, as the one block */
        int rank = 0, total = 0;
        scan_t(tmp).ExclusiveSum(below, rank, total);
        const int n_lower = publish_and_sum(chunks, c, total, signal.seq);
        if (k < n_left)
            place_leaver(f, a, rec, i, k, below, n_lower, rank, cr);
    }
    __threadfence_system(); /* this block's records, before its ticket */
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last)
        return;
    const int n_chunked = n_chunks < VS_SLAB_CHUNKS ? n_chunks : VS_SLAB_CHUNKS;
    const int n_lower = threadIdx.x < 32 ? chunks_before(chunks, n_chunked, signal.seq) : 0;
    if (threadIdx.x == 0) {
        publish_numbers(f, counts, header, stay, n_lower, n_left, n - n_left);
        *ticket = 0; /* the next launch's, after this kernel in the stream */
    }
    vs_slab_raise(signal); /* every block's records are out: the neighbours may read them */
}

/* The fill of slab_pack_fill_kernel over blocks, after slab_pack_blocks_kernel: the k-th
 * stayer of [n - n_left, n) in index order fills holes[k]. Its chunks' numbers go to
 * chunks[VS_SLAB_CHUNKS ..], under the same exchange number. */
__global__ void __launch_bounds__(VS_SLAB_PACK_THREADS)
    slab_fill_blocks_kernel(const int32_t *counts, int n, int d, vs_soa a, const int32_t *holes,
                            double lo, double hi, unsigned long long *chunks, uint32_t seq)
{
    typedef cub::BlockScan<int, VS_SLAB_PACK_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    const int n_left = counts[2], n_stay = n - n_left;
    const int n_chunks = (n_left + VS_SLAB_PACK_THREADS - 1) / VS_SLAB_PACK_THREADS;
    for (int c = (int)blockIdx.x; c < n_chunks && c < VS_SLAB_CHUNKS; c += (int)gridDim.x) {
        const int k = c * VS_SLAB_PACK_THREADS + (int)threadIdx.x, i = n_stay + k;
        vs_carried cr = {};
        if (k < n_left)
            cr = vs_carried_load(a, i);
        const double u = d == 0 ? cr.p[0] : d == 1 ? cr.p[1] : cr.p[2];
        const int stays = k < n_left && vs_in_brick(u, lo, hi);
        int rank = 0, total = 0;
        scan_t(tmp).ExclusiveSum(stays, rank, total);
        const int filled = publish_and_sum(chunks + VS_SLAB_CHUNKS, c, total, seq);
        if (stays)
            vs_fill_hole(a, holes[filled + rank], i, cr);
    }
}

void vs_gpu_slab_init(vs_gpu_state *g)
{
    g->slab.d_ctr = (int32_t *)vs_gpu_alloc(g, VS_CTR_WORDS * sizeof(int32_t));
    VS_CUDA_CHECK(cudaMemsetAsync(g->slab.d_ctr, 0, VS_CTR_WORDS * sizeof(int32_t), g->stream));
    g->slab.d_stay = (int32_t *)vs_gpu_alloc(g, 4 * sizeof(int32_t));
    const size_t chunk_bytes = 2 * VS_SLAB_CHUNKS * sizeof(unsigned long long);
    g->slab.d_chunks = (unsigned long long *)vs_gpu_alloc(g, chunk_bytes);
    VS_CUDA_CHECK(cudaMemsetAsync(g->slab.d_chunks, 0, chunk_bytes, g->stream)); /* seq >= 1 */
    g->slab.d_ticket = (unsigned *)vs_gpu_alloc(g, sizeof(unsigned));
    VS_CUDA_CHECK(cudaMemsetAsync(g->slab.d_ticket, 0, sizeof(unsigned), g->stream));
    int device = 0;
    VS_CUDA_CHECK(cudaGetDevice(&device));
    VS_CUDA_CHECK(cudaDeviceGetAttribute(&g->slab.sms, cudaDevAttrMultiProcessorCount, device));
    g->slab.d_listed = g->slab.d_stay + 2;
    g->pt.d_owned = g->slab.d_stay + 1;
    /* mapped: the ghost unpack writes the slot straight into it (no copy after the kernel) */
    VS_CUDA_CHECK(cudaHostAlloc((void **)&g->slab.h_slot, VS_SLAB_TAIL_WORDS * sizeof(int32_t),
                                cudaHostAllocMapped));
    VS_CUDA_CHECK(cudaHostGetDevicePointer((void **)&g->slab.d_tail, g->slab.h_slot, 0));
    VS_CUDA_CHECK(cudaEventCreateWithFlags(&g->slab.ev_slot, cudaEventDisableTiming));
    const char *times = getenv("VESICA_GPU_SLAB_TIMES");
    g->slab.timed = times && strcmp(times, "1") == 0;
    for (int k = 0; g->slab.timed && k < VS_SLAB_DEVICE_MARKS; ++k)
        VS_CUDA_CHECK(cudaEventCreate(&g->slab.dev_ev[k]));
    const char *above = getenv("VESICA_GPU_SLAB_ABOVE");
    g->slab.most_above = above ? atoll(above) : INT64_MAX;
    const char *blocks = getenv("VESICA_GPU_SLAB_PACK_BLOCKS_ABOVE");
    g->slab.pack_blocks_above = blocks ? atoll(blocks) : (int64_t)VS_SLAB_PACK_THREADS;
    const char *margin = getenv("VESICA_GPU_SLAB_MARGIN");
    g->slab.margin = margin ? atoll(margin) : -1;
}

/* VESICA_GPU_SLAB_TIMES=1: the host's time in each part of the slab path, per step. */
static const char *const slab_part_names[VS_SLAB_PARTS] = {
    "slot wait", "select", "first counts", "pack+fill", "message A", "reserve+image pass",
    "message B", "ghost unpack"};

static void mark(vs_gpu_state *g, int part, double *t)
{
    if (!g->slab.timed)
        return;
    const double now = vs_wall_seconds();
    if (part >= 0)
        g->slab.host_s[part] += now - *t;
    *t = now;
}

/* The device's parts (select, pack+fill, message A's wait, image pass, message B's wait,
 * ghost unpack): an event at each boundary, read once the slot's event has passed them. */
static const char *const slab_device_names[VS_SLAB_DEVICE_MARKS - 1] = {
    "select", "pack+fill", "wait A", "image pass", "owned binned + wait B", "ghost unpack"};

static void device_mark(vs_gpu_state *g, int k)
{
    if (g->slab.timed)
        VS_CUDA_CHECK(cudaEventRecord(g->slab.dev_ev[k], g->stream));
}

static void device_parts(vs_gpu_state *g)
{
    if (!g->slab.timed || !g->slab.dev_marked)
        return;
    g->slab.dev_marked = 0;
    for (int k = 0; k + 1 < VS_SLAB_DEVICE_MARKS; ++k) {
        float ms = 0.0f;
        VS_CUDA_CHECK(cudaEventElapsedTime(&ms, g->slab.dev_ev[k], g->slab.dev_ev[k + 1]));
        g->slab.device_s[k] += 1e-3 * (double)ms;
    }
    ++g->slab.device_steps;
}

void vs_gpu_slab_free(vs_gpu_state *g)
{
    void *device[] = {g->slab.d_ctr, g->slab.d_stay, g->slab.d_chunks, g->slab.d_ticket};
    for (size_t k = 0; k < sizeof device / sizeof device[0]; ++k)
        if (device[k])
            cudaFree(device[k]);
    if (g->slab.h_slot) {
        cudaFreeHost(g->slab.h_slot);
        cudaEventDestroy(g->slab.ev_slot);
    }
    for (int k = 0; g->slab.timed && k < VS_SLAB_DEVICE_MARKS; ++k)
        cudaEventDestroy(g->slab.dev_ev[k]);
    if (g->slab.timed && g->slab.steps > 0) {
        char line[768];
        size_t used = 0;
        for (int k = 0; k < VS_SLAB_PARTS; ++k)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s %.1f", k ? ", " : "",
                                     slab_part_names[k],
                                     1e6 * g->slab.host_s[k] / (double)g->slab.steps);
        used += (size_t)snprintf(line + used, sizeof line - used, "; device us per step:");
        for (int k = 0; k + 1 < VS_SLAB_DEVICE_MARKS && g->slab.device_steps > 0; ++k)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s %s %.1f", k ? "," : "",
                                     slab_device_names[k],
                                     1e6 * g->slab.device_s[k] / (double)g->slab.device_steps);
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
    g->slab.lag_valid = 0;
    g->slab.rank = g->tr.dc->cart.rank;
}

/* The slot of the last build, read: its verdicts, the bounds' base and the owned number. */
static void take_slot(vs_gpu_state *g)
{
    const int32_t *t = g->slab.h_slot;
    g->slab.slot_queued = 0;
    if (t[VS_TAIL_OVERFLOW] || t[VS_TAIL_PAST])
        VS_FATAL("slab exchange: a number passed its bound (%s; bounds: leavers %lld and %lld, "
                 "arrivals %lld and %lld, local images %lld, sent %lld and %lld); set "
                 "VESICA_GPU_SLAB_ABOVE=0 and report this",
                 t[VS_TAIL_PAST] ? "leavers or arrivals" : "images",
                 (long long)g->slab.send_bound[0], (long long)g->slab.send_bound[1],
                 (long long)g->slab.arrive_bound[0], (long long)g->slab.arrive_bound[1],
                 (long long)g->slab.local_bound, (long long)g->slab.out_bound[0],
                 (long long)g->slab.out_bound[1]);
    g->pt.n_owned = t[VS_TAIL_OWNED];
    g->slab.lag_valid = 1;
    g->slab.lag_leavers[0] = t[VS_TAIL_LEAVERS];
    g->slab.lag_leavers[1] = t[VS_TAIL_LEAVERS + 1];
    g->slab.lag_local = t[VS_TAIL_LOCAL];
    g->slab.lag_sent[0] = t[VS_TAIL_SENT];
    g->slab.lag_sent[1] = t[VS_TAIL_SENT + 1];
    g->tr.halo_bytes_last = (int64_t)vs_gpu_ghost_rec_bytes(g) *
                            (int64_t)(t[VS_TAIL_SENT] + t[VS_TAIL_SENT + 1]);
    if (g->slab.outside_pending) {
        g->slab.outside_pending = 0;
        memcpy(g->halo.h_outside, t + VS_TAIL_OUTSIDE, sizeof(unsigned long long));
        g->halo.outside_pending = 1;
        g->halo.outside_step = g->slab.outside_step;
        vs_gpu_outside_verdict(g);
    }
}

extern "C" void vs_gpu_settle_owned(vs_gpu_state *g)
{
    if (!g->pt.owned_on_device)
        return;
    if (g->slab.slot_queued) { /* after the ghost unpack: no wait for the forces */
        double t = 0.0;
        mark(g, -1, &t);
        VS_CUDA_CHECK(cudaEventSynchronize(g->slab.ev_slot));
        mark(g, 0, &t);
        device_parts(g);
        take_slot(g);
    } else { /* within the exchange itself: whatever the stream has reached */
        int32_t *h = (int32_t *)g->red.h_pinned;
        VS_CUDA_CHECK(cudaMemcpyAsync(h, g->pt.d_owned, sizeof(int32_t), cudaMemcpyDeviceToHost,
                                      g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        g->pt.n_owned = h[0];
    }
    g->pt.owned_on_device = 0;
    if (g->halo.ghosts_on_device) /* the listed ones: these and the ghosts at d_ghosts */
        g->cells.n_listed = g->pt.n_owned;
}

/* Where no last step bounds this one (the first, or after new particles came from the
 * host): its leavers and the images of its owned particles, counted and read back. */
static void first_counts(vs_gpu_state *g, int d)
{
    vs_gpu_slab_count_images(g, d);
    int32_t *h = (int32_t *)g->red.h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, g->halo.d_select_count, 7 * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    g->slab.lag_leavers[0] = h[0];
    g->slab.lag_leavers[1] = h[1];
    g->slab.lag_local = h[4];
    g->slab.lag_sent[0] = h[5];
    g->slab.lag_sent[1] = h[6];
    g->slab.lag_valid = 1;
}

/* A bound on a number that was `last` a step ago, with n owned particles. */
static int64_t bound_of(const vs_gpu_state *g, int64_t last, int64_t n)
{
    const int64_t margin = g->slab.margin >= 0 ? g->slab.margin : 1024 + n / 128;
    return last + last / 2 + margin;
}

/* This step's images at most: the last step's, and the most each of `in` arrivals can have. */
static void image_bounds(vs_gpu_state *g, int d, int64_t n, int64_t in)
{
    int64_t most_local = 0, most_sent = 0;
    vs_gpu_slab_most_images(g, d, &most_local, &most_sent);
    g->slab.local_bound = bound_of(g, g->slab.lag_local, n) + most_local * in;
    for (int k = 0; k < 2; ++k)
        g->slab.out_bound[k] = bound_of(g, g->slab.lag_sent[k], n) + most_sent * in;
}

void vs_gpu_slab_migrate(vs_gpu_state *g, int d)
{
    /* vs_gpu_migrate settled the owned number: exact from here */
    double t = 0.0;
    mark(g, -1, &t);
    ++g->slab.steps;
    const int n = (int)g->pt.n_owned;
    int32_t *counts = g->halo.d_select_count;
    device_mark(g, 0);
    if (n > 0) /* split by the pack below, or here where the host reads the split's numbers */
        vs_gpu_select_leavers(g, d, !g->slab.lag_valid);
    else
        VS_CUDA_CHECK(cudaMemsetAsync(counts, 0, 3 * sizeof(int32_t), g->stream));
    device_mark(g, 1);
    mark(g, 1, &t);
    if (!g->slab.lag_valid)
        first_counts(g, d);
    mark(g, 2, &t);

    /* the leavers, packed with everything they carry, wrapped where they cross the box, and
     * the holes they leave closed */
    for (int k = 0; k < 2; ++k)
        g->slab.send_bound[k] = bound_of(g, g->slab.lag_leavers[k], n);
    const size_t rec = vs_gpu_migrant_bytes(g);
    const uint64_t offset[2] = {VS_SLAB_HEADER,
                                VS_SLAB_HEADER + rec * (uint64_t)g->slab.send_bound[0]};
    vs_gpu_comm_reserve(g, offset[1] + rec * (size_t)g->slab.send_bound[1], 0);
    double shift[3][2];
    vs_exchange_shifts(g->tr.dc, shift);
    const vs_slab_signal signal = vs_gpu_slab_signal(g, d, 0);
    const vs_slab_faces faces = {d,
                                 (int)g->slab.send_bound[0],
                                 (int)g->slab.send_bound[1],
                                 shift[d][0] == 0.0 ? 0 : -1,
                                 shift[d][1] == 0.0 ? 0 : 1,
                                 g->prm->system.box[d],
                                 g->tr.d_send + offset[0],
                                 g->tr.d_send + offset[1],
                                 g->slab.d_ctr + VS_CTR_PAST};
    const int64_t last_leavers = g->slab.lag_leavers[0] + g->slab.lag_leavers[1];
    if (last_leavers <= g->slab.pack_blocks_above) {
        slab_pack_fill_kernel<<<1, VS_SLAB_PACK_THREADS, 0, g->stream>>>(
            counts, n, faces, soa(g), (int32_t *)g->tr.d_send, (const int32_t *)g->sort.idx_in,
            g->lo[d], g->hi[d], g->slab.d_stay, g->halo.d_outside, signal);
    } else { /* the blocks one round per chunk would take, at most one per multiprocessor */
        const int64_t want = (last_leavers + last_leavers / 2 + VS_SLAB_PACK_THREADS - 1) /
                             VS_SLAB_PACK_THREADS;
        const unsigned blocks = (unsigned)(want < 1 ? 1 : want < g->slab.sms ? want : g->slab.sms);
        slab_pack_blocks_kernel<<<blocks, VS_SLAB_PACK_THREADS, 0, g->stream>>>(
            counts, n, faces, soa(g), (int32_t *)g->tr.d_send, (const int32_t *)g->sort.idx_in,
            g->lo[d], g->slab.d_stay, g->halo.d_outside, g->slab.d_chunks, g->slab.d_ticket,
            signal);
        VS_CUDA_CHECK(cudaGetLastError());
        slab_fill_blocks_kernel<<<blocks, VS_SLAB_PACK_THREADS, 0, g->stream>>>(
            counts, n, d, soa(g), (const int32_t *)g->sort.idx_in, g->lo[d], g->hi[d],
            g->slab.d_chunks, signal.seq);
    }
    VS_CUDA_CHECK(cudaGetLastError());
    device_mark(g, 2);
    mark(g, 3, &t);
    const char *base[2];
    vs_gpu_slab_message(g, d, 0, g->slab.send_bound, offset, g->slab.arrive_bound, base,
                        g->slab.in);
    vs_gpu_slab_wait(g, d, 0, g->slab.arrive_bound);
    device_mark(g, 3);
    /* no header where no arrival can come: the message waited on no signal for it, and the
     * neighbour may not have mapped or written its buffer yet */
    for (int k = 0; k < 2; ++k)
        g->slab.in_header[k] = g->slab.arrive_bound[k] > 0 ? base[k] : NULL;
    mark(g, 4, &t);

    /* from here the owned number is on the device; the host keeps a bound */
    const int64_t in = g->slab.arrive_bound[0] + g->slab.arrive_bound[1];
    vs_gpu_reserve_owned(g, n + in);
    g->pt.n_owned = n + in;
    g->pt.owned_on_device = 1;
    image_bounds(g, d, n, in);
    g->slab.migrated = 1;
}

/* The neighbours' ghost records, straight out of their buffers: direction y's from
 * records[y], their number in the sender's header (counts[y]), after the owned particles
 * (*owned), this rank's local images and direction 0's. The ghosts' number goes to *ghosts,
 * the listed particles' to *listed, and what the slot brings back to tail. */
__global__ void slab_unpack_kernel(const int32_t *owned, int32_t *header, const char *hdr0,
                                   const char *hdr1, const char *rec0, const char *rec1,
                                   int64_t bound0, int64_t bound1, vs_soa a, int32_t *ghosts,
                                   int32_t *listed, const unsigned long long *outside,
                                   const int32_t *leavers, int32_t *tail, int32_t *ctr)
{
    const int y = blockIdx.y;
    const int32_t n_owned = *owned, local = header[VS_SLAB_LOCAL];
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
        *listed = n_owned + local + r0 + r1;
        /* the slot (every block finds the same overflow; the arrivals' unpack came before) */
        tail[VS_TAIL_SENT] = header[VS_SLAB_SENT];
        tail[VS_TAIL_SENT + 1] = header[VS_SLAB_SENT + 1];
        tail[VS_TAIL_LOCAL] = local;
        tail[VS_TAIL_OVERFLOW] = *overflow | (int32_t)(r0 != ((const int32_t *)hdr0)[VS_SLAB_SENT] ||
                                                      r1 != ((const int32_t *)hdr1)[VS_SLAB_SENT + 1]);
        *(unsigned long long *)(tail + VS_TAIL_OUTSIDE) = *outside;
        tail[VS_TAIL_OWNED] = n_owned;
        tail[VS_TAIL_LEAVERS] = leavers[0];
        tail[VS_TAIL_LEAVERS + 1] = leavers[1];
        tail[VS_TAIL_PAST] = ctr[VS_CTR_PAST];
        for (int k = 0; k < VS_CTR_WORDS; ++k) /* the image pass is done: its counters */
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
    /* the migration made this step's bounds and left its arrivals for the image pass; a
     * build without one (a reaction's in-place step) has no slab path: reactions have bonds */
    if (!g->slab.migrated)
        VS_FATAL("slab exchange: a ghost build with no migration before it");
    g->slab.migrated = 0;
    const int64_t n = g->pt.n_owned; /* a bound (vs_gpu_slab_migrate) */
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
    vs_gpu_slab_write_images(g, d, VS_SLAB_HEADER, vs_gpu_slab_signal(g, d, 1));
    device_mark(g, 4);
    mark(g, 5, &t);
    const uint64_t offset[2] = {VS_SLAB_HEADER,
                                VS_SLAB_HEADER + rec * (uint64_t)g->slab.out_bound[0]};
    const char *base[2], *records[2];
    vs_gpu_slab_message(g, d, 1, g->slab.out_bound, offset, g->slab.in_bound, base, records);
    const int64_t in = g->slab.in_bound[0] + g->slab.in_bound[1];
    g->slab.in_last = in;
    if (n + g->slab.local_bound + in > g->pt.capacity) {
        /* the guess was short: grow, keeping every slot the local images may have taken */
        g->pt.n_ghost = g->slab.local_bound;
        vs_gpu_reserve(g, n + g->slab.local_bound + in + in / 8);
        g->pt.n_ghost = 0;
    }
    /* while the neighbours' records travel; after the growth, which keeps the particles but
     * not the binning's per-particle cells and places */
    vs_gpu_bin_owned(g);
    vs_gpu_slab_wait(g, d, 1, g->slab.in_bound);
    device_mark(g, 5);
    mark(g, 6, &t);
    const int64_t most = g->slab.in_bound[0] > g->slab.in_bound[1] ? g->slab.in_bound[0]
                                                                    : g->slab.in_bound[1];
    const dim3 grid((unsigned)((most + VS_BLOCK - 1) / VS_BLOCK > 0
                                   ? (most + VS_BLOCK - 1) / VS_BLOCK
                                   : 1),
                    2);
    g->halo.other_clear = 0; /* the unpack writes d_ghosts: the image pass's turns start anew */
    slab_unpack_kernel<<<grid, VS_BLOCK, 0, g->stream>>>(
        g->pt.d_owned, (int32_t *)g->tr.d_ghost_send, base[0], base[1], records[0], records[1],
        g->slab.in_bound[0], g->slab.in_bound[1], soa(g), g->halo.d_ghosts, g->slab.d_listed,
        g->halo.d_outside, g->halo.d_select_count, g->slab.d_tail, g->slab.d_ctr);
    VS_CUDA_CHECK(cudaGetLastError());
    device_mark(g, 6);
    g->slab.dev_marked = 1; /* the migration's marks came before */
    /* the slot (written by the unpack into mapped host memory): read at the next step's
     * start, or wherever the host asks first; in a captured step, from the launched graph */
    VS_CUDA_CHECK(cudaEventRecordWithFlags(g->slab.ev_slot, g->stream,
                                           g->graph.capturing ? cudaEventRecordExternal : 0));
    g->slab.slot_queued = 1;
    mark(g, 7, &t);
    g->halo.ghosts_on_device = 1;
    g->cells.n_listed = n;
    if (g->halo.ghost_estimate < 0) /* the first such build: the grids' size from here on */
        vs_gpu_settle_ghosts(g);
}
