/* How the GPU backend's halo, migration and field bytes travel between ranks
 * (comm.transport).
 *
 * The halo protocol (gpu_halo.cu) and the field's exchange (gpu_field.cu) pack each stage's
 * records for both directions into one device buffer and hand them to
 * vs_gpu_exchange_transport; this file moves them, by one of three transports chosen per
 * dimension at start-up, the same on every rank:
 * - host: device -> pinned host buffer, MPI_Sendrecv, -> device. Works everywhere.
 * - peer: CUDA IPC within a node. Each rank exports its send buffer once (again after it
 *   grows) and two events; a small MPI message carries the handles, offset and size, and
 *   the receiver copies device to device straight out of the sender's buffer (NVLink where
 *   the GPUs have it). Everything is ordered in the streams, not by the host: the receiver's
 *   copy waits on the sender's `packed` event, and the sender's next packing into its
 *   buffer waits on the receiver's `read` event, announced by an acknowledgement. No stream
 *   synchronisation, so the host goes on launching while the records travel.
 *   The slab path (gpu_slab.cu) orders its exchanges by signal words instead: each rank
 *   exports a few words, the kernel that finishes a packing stores the exchange's number
 *   into its neighbours' words, and their streams wait until the number is there (a stream
 *   memory operation). Such a wait holds whatever order the ranks launch in, so that path's
 *   step can go to the device as one graph per rank.
 * - mpi-device: device pointers handed to a CUDA-aware MPI (MPIX_Query_cuda_support).
 * `auto` takes peer for a dimension whose links all stay within a node, else mpi-device when
 * MPI is CUDA-aware, else host. MPI itself is only called through comm/parallel.h.
 */
#include <stdio.h>
#include <string.h>

#include <cuda.h>

#include "gpu_internal.cuh"

enum {
    VS_TAG_COUNTS = 300,
    VS_TAG_BYTES = 310,
    VS_TAG_CTL = 320,
    VS_TAG_ACK = 330,
    VS_TAG_SLAB = 340, /* + 6 buffer + 3 dir + d */
    VS_INBOX_BYTES = 4096 /* the signal words (4 used), an allocation of their own */
};

static const char *link_name(int link)
{
    switch (link) {
    case VS_LINK_SELF: return "self";
    case VS_TRANSPORT_HOST: return "host";
    case VS_TRANSPORT_PEER: return "peer";
    case VS_TRANSPORT_MPI_DEVICE: return "mpi-device";
    default: return "?";
    }
}

extern "C" int vs_gpu_set_comm(vs_gpu_state *g, const vs_decomp *dc, vs_transport_kind kind,
                               char *describe, size_t describe_len, char *err, size_t err_len)
{
    g->tr.dc = dc;
    const vs_par *par = &dc->cart;
    int *node_of = (int *)VS_MALLOC(sizeof(int) * (size_t)par->size);
    int local_rank = 0, local_size = 1;
    vs_par_node_layout(par, &local_rank, &local_size, node_of);
    const int cuda_aware = vs_par_cuda_aware();
    int rc = 0;
    if (kind == VS_TRANSPORT_MPI_DEVICE && !cuda_aware) {
        snprintf(err, err_len,
                 "comm.transport: \"mpi-device\" requested but this MPI library is not "
                 "CUDA-aware (MPIX_Query_cuda_support() = 0); use \"host\" or \"peer\"");
        rc = 1;
    }
    describe[0] = '\0';
    for (int d = 0; d < 3 && rc == 0; ++d) {
        if (dc->dims[d] == 1) {
            g->tr.link[d] = VS_LINK_SELF;
        } else {
            /* peer only when every rank's links in this dimension stay on its node, so both
             * ends of each link agree on the transport */
            const int local = node_of[dc->lower[d]] == node_of[par->rank] &&
                              node_of[dc->upper[d]] == node_of[par->rank];
            const int all_local = !vs_par_any(par, !local);
            if (kind == VS_TRANSPORT_PEER && !all_local) {
                snprintf(err, err_len,
                         "comm.transport: \"peer\" requested but the %c neighbours of some "
                         "rank are on another node; use \"auto\" or \"host\"", "xyz"[d]);
                rc = 1;
                break;
            }
            if (kind == VS_TRANSPORT_AUTO)
                g->tr.link[d] = all_local
                                    ? VS_TRANSPORT_PEER
                                    : (cuda_aware ? VS_TRANSPORT_MPI_DEVICE : VS_TRANSPORT_HOST);
            else
                g->tr.link[d] = kind;
        }
        const size_t used = strlen(describe);
        snprintf(describe + used, describe_len - used, "%s%c %s", d ? ", " : "", "xyz"[d],
                 link_name(g->tr.link[d]));
    }
    free(node_of);
    /* the peer transport's events, exported once */
    if (rc == 0 &&
        (g->tr.link[0] == VS_TRANSPORT_PEER || g->tr.link[1] == VS_TRANSPORT_PEER ||
         g->tr.link[2] == VS_TRANSPORT_PEER) &&
        !g->tr.peer_events) {
        const unsigned flags = cudaEventInterprocess | cudaEventDisableTiming;
        VS_CUDA_CHECK(cudaEventCreateWithFlags(&g->tr.ev_packed, flags));
        VS_CUDA_CHECK(cudaEventCreateWithFlags(&g->tr.ev_read, flags));
        VS_CUDA_CHECK(cudaIpcGetEventHandle(&g->tr.packed_handle, g->tr.ev_packed));
        VS_CUDA_CHECK(cudaIpcGetEventHandle(&g->tr.read_handle, g->tr.ev_read));
        g->tr.d_inbox = (uint32_t *)vs_gpu_alloc(g, VS_INBOX_BYTES);
        VS_CUDA_CHECK(cudaMemset(g->tr.d_inbox, 0, VS_INBOX_BYTES));
        VS_CUDA_CHECK(cudaIpcGetMemHandle(&g->tr.inbox_handle, g->tr.d_inbox));
        g->tr.peer_events = 1;
    }
    /* the overlap mode and the first half-step's wrap depend on the rank grid */
    vs_gpu_plan_set_comm(&g->plan, g->prm, g->tr.link, rc == 0);
    if (rc == 0)
        vs_gpu_slab_decide(g);
    if (g->slab.on) {
        const size_t used = strlen(describe);
        snprintf(describe + used, describe_len - used, "; slab exchange, no read-back in the step");
    }
    return rc;
}

static void grow_device(vs_gpu_state *g, char **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return;
    vs_gpu_drain(g);
    vs_gpu_free(g, *p, *cap);
    *cap = need + need / 4 + 4096;
    *p = (char *)vs_gpu_alloc(g, *cap);
}

static void grow_pinned(char **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return;
    if (*p)
        VS_CUDA_CHECK(cudaFreeHost(*p));
    *cap = need + need / 4 + 4096;
    VS_CUDA_CHECK(cudaMallocHost((void **)p, *cap));
}

/* Peers copying out of d_send: make the stream wait until they have (before it is packed
 * again or freed). */
static void wait_for_readers(vs_gpu_state *g)
{
    for (int k = 0; k < g->tr.n_peer_map; ++k)
        if (g->tr.peer_map[k].read_pending) {
            VS_CUDA_CHECK(cudaStreamWaitEvent(g->stream, g->tr.peer_map[k].read, 0));
            g->tr.peer_map[k].read_pending = 0;
        }
}

void vs_gpu_comm_reserve(vs_gpu_state *g, size_t send, size_t recv)
{
    wait_for_readers(g); /* every packing into d_send comes after this call */
    const size_t old = g->tr.d_send_cap;
    grow_device(g, &g->tr.d_send, &g->tr.d_send_cap, send);
    grow_device(g, &g->tr.d_recv, &g->tr.d_recv_cap, recv);
    const int peer = g->tr.link[0] == VS_TRANSPORT_PEER || g->tr.link[1] == VS_TRANSPORT_PEER ||
                     g->tr.link[2] == VS_TRANSPORT_PEER;
    if (peer && g->tr.d_send_cap != old && g->tr.d_send) {
        VS_CUDA_CHECK(cudaIpcGetMemHandle(&g->tr.send_handle, g->tr.d_send));
        g->tr.send_generation++;
    }
}

void vs_gpu_comm_free(vs_gpu_state *g)
{
    /* no wait on the peers' events here: a peer may have destroyed them already (using an
     * imported event after that is undefined). Its copies out of d_send are complete: every
     * run ends with a read-back (a stream synchronisation) on each rank before a collective
     * every rank passes, and the last exchange comes before both. */
    cudaStreamSynchronize(g->stream);
    for (int k = 0; k < g->tr.n_peer_map; ++k) {
        if (g->tr.peer_map[k].ptr)
            cudaIpcCloseMemHandle(g->tr.peer_map[k].ptr);
        if (g->tr.peer_map[k].ghost_ptr)
            cudaIpcCloseMemHandle(g->tr.peer_map[k].ghost_ptr);
        if (g->tr.peer_map[k].inbox)
            cudaIpcCloseMemHandle(g->tr.peer_map[k].inbox);
        cudaEventDestroy(g->tr.peer_map[k].packed);
        cudaEventDestroy(g->tr.peer_map[k].read);
    }
    g->tr.n_peer_map = 0;
    if (g->tr.peer_events) {
        cudaEventDestroy(g->tr.ev_packed);
        cudaEventDestroy(g->tr.ev_read);
        cudaFree(g->tr.d_inbox);
    }
    if (g->tr.d_send)
        cudaFree(g->tr.d_send);
    if (g->tr.d_ghost_send)
        cudaFree(g->tr.d_ghost_send);
    if (g->tr.d_recv)
        cudaFree(g->tr.d_recv);
    if (g->tr.h_send)
        cudaFreeHost(g->tr.h_send);
    if (g->tr.h_recv)
        cudaFreeHost(g->tr.h_recv);
}

static void peers(const vs_gpu_state *g, int d, int dir, int *dest, int *source)
{
    *dest = dir == 0 ? g->tr.dc->lower[d] : g->tr.dc->upper[d];
    *source = dir == 0 ? g->tr.dc->upper[d] : g->tr.dc->lower[d];
}

void vs_gpu_exchange_counts(vs_gpu_state *g, int d, const int64_t n_send[2],
                            int64_t n_recv[2])
{
    for (int dir = 0; dir < 2; ++dir) {
        int dest, source;
        peers(g, d, dir, &dest, &source);
        n_recv[dir] = 0;
        vs_par_sendrecv(&g->tr.dc->cart, &n_send[dir], sizeof(int64_t), dest, &n_recv[dir],
                        sizeof(int64_t), source, VS_TAG_COUNTS + 3 * dir + d);
    }
}

static void expect_bytes(int d, int dir, size_t want, size_t got)
{
    if (want != got)
        VS_FATAL("halo stage %c dir %d: expected %zu bytes, received %zu", "xyz"[d], dir, want,
                 got);
}

/* A peer transport's control message: the sender's buffer `buffer` (0: d_send, 1:
 * d_ghost_send) with its generation, its two events and signal words, and where the records
 * are. */
typedef struct {
    cudaIpcMemHandle_t handle, inbox;
    cudaIpcEventHandle_t packed, read;
    uint64_t offset, bytes;
    int32_t generation, buffer;
} vs_peer_ctl;

static void open_event(cudaEvent_t *ev, const cudaIpcEventHandle_t *h, int rank)
{
    const cudaError_t rc = cudaIpcOpenEventHandle(ev, *h);
    if (rc != cudaSuccess)
        VS_FATAL("peer transport: cannot open rank %d's events (%s); set comm.transport "
                 "= \"host\"", rank, cudaGetErrorString(rc));
}

/* A peer's exported device buffer, mapped here. */
static void *open_buffer(const cudaIpcMemHandle_t *handle, int rank)
{
    void *ptr = NULL;
    cudaError_t rc = cudaIpcOpenMemHandle(&ptr, *handle, cudaIpcMemLazyEnablePeerAccess);
    if (rc != cudaSuccess)
        VS_FATAL("peer transport: cannot map rank %d's device buffer (%s); set comm.transport "
                 "= \"host\"", rank, cudaGetErrorString(rc));
    return ptr;
}

/* Rank `rank`'s entry: its events and signal words (opened at the first message) and its
 * send buffers, each mapped into this process when it sends from it (again after it grew). */
static int peer_entry(vs_gpu_state *g, int rank, const vs_peer_ctl *in)
{
    int k = 0;
    while (k < g->tr.n_peer_map && g->tr.peer_map[k].rank != rank)
        ++k;
    if (k == g->tr.n_peer_map) {
        if (g->tr.n_peer_map == 6)
            VS_FATAL("peer transport: more than 6 distinct peers");
        memset(&g->tr.peer_map[k], 0, sizeof g->tr.peer_map[k]);
        open_event(&g->tr.peer_map[k].packed, &in->packed, rank);
        open_event(&g->tr.peer_map[k].read, &in->read, rank);
        g->tr.peer_map[k].inbox = (uint32_t *)open_buffer(&in->inbox, rank);
        g->tr.peer_map[k].rank = rank;
        g->tr.peer_map[k].generation = -1;
        g->tr.peer_map[k].ghost_generation = -1;
        g->tr.n_peer_map++;
    }
    int *generation = in->buffer ? &g->tr.peer_map[k].ghost_generation
                                 : &g->tr.peer_map[k].generation;
    char **mapped = in->buffer ? &g->tr.peer_map[k].ghost_ptr : &g->tr.peer_map[k].ptr;
    if (in->bytes == 0 || *generation == in->generation)
        return k;
    if (*mapped && g->graph.capturing) /* the captured work, launched later, may read it */
        vs_gpu_graph_retire(g, *mapped, 0, 1);
    else if (*mapped)
        VS_CUDA_CHECK(cudaIpcCloseMemHandle(*mapped));
    *generation = in->generation;
    *mapped = (char *)open_buffer(&in->handle, rank);
    return k;
}

static int peer_index(const vs_gpu_state *g, int rank)
{
    for (int k = 0; k < g->tr.n_peer_map; ++k)
        if (g->tr.peer_map[k].rank == rank)
            return k;
    VS_FATAL("peer transport: rank %d is not a peer of this rank", rank);
}

static void exchange_peer(vs_gpu_state *g, int d, const size_t send[2], const size_t recv[2])
{
    const vs_par *par = &g->tr.dc->cart;
    const size_t soff[2] = {0, send[0]}, roff[2] = {0, recv[0]};
    VS_CUDA_CHECK(cudaEventRecord(g->tr.ev_packed, g->stream)); /* the records are in d_send */
    for (int dir = 0; dir < 2; ++dir) {
        int dest, source;
        peers(g, d, dir, &dest, &source);
        vs_peer_ctl out, in;
        memset(&out, 0, sizeof out);
        out.handle = g->tr.send_handle;
        out.packed = g->tr.packed_handle;
        out.inbox = g->tr.inbox_handle;
        out.read = g->tr.read_handle;
        out.offset = soff[dir];
        out.bytes = send[dir];
        out.generation = g->tr.send_generation;
        vs_par_sendrecv(par, &out, sizeof out, dest, &in, sizeof in, source,
                        VS_TAG_CTL + 3 * dir + d);
        expect_bytes(d, dir, recv[dir], (size_t)in.bytes);
        const int k = peer_entry(g, source, &in); /* every neighbour is a source */
        if (in.bytes == 0)
            continue;
        VS_CUDA_CHECK(cudaStreamWaitEvent(g->stream, g->tr.peer_map[k].packed, 0));
        VS_CUDA_CHECK(cudaMemcpyAsync(g->tr.d_recv + roff[dir], g->tr.peer_map[k].ptr + in.offset,
                                      in.bytes, cudaMemcpyDeviceToDevice, g->stream));
    }
    VS_CUDA_CHECK(cudaEventRecord(g->tr.ev_read, g->stream));
    /* tell each sender that the copy out of its buffer is queued behind `read`: it waits on
     * that event before packing into the buffer again */
    for (int dir = 0; dir < 2; ++dir) {
        int dest, source;
        peers(g, d, dir, &dest, &source);
        const char done = recv[dir] > 0;
        char got = 0;
        vs_par_sendrecv(par, &done, 1, source, &got, 1, dest, VS_TAG_ACK + 3 * dir + d);
        if (got)
            g->tr.peer_map[peer_index(g, dest)].read_pending = 1;
    }
}

static void exchange_host(vs_gpu_state *g, int d, const size_t send[2], const size_t recv[2],
                          int device_pointers)
{
    const vs_par *par = &g->tr.dc->cart;
    const size_t soff[2] = {0, send[0]}, roff[2] = {0, recv[0]};
    const size_t send_total = send[0] + send[1], recv_total = recv[0] + recv[1];
    char *s = g->tr.d_send, *r = g->tr.d_recv;
    /* the packed records are complete, and so is any earlier upload out of h_recv */
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    if (!device_pointers) {
        grow_pinned(&g->tr.h_send, &g->tr.h_send_cap, send_total);
        grow_pinned(&g->tr.h_recv, &g->tr.h_recv_cap, recv_total);
        if (send_total) {
            VS_CUDA_CHECK(cudaMemcpyAsync(g->tr.h_send, g->tr.d_send, send_total,
                                          cudaMemcpyDeviceToHost, g->stream));
            VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        }
        s = g->tr.h_send;
        r = g->tr.h_recv;
    }
    for (int dir = 0; dir < 2; ++dir) {
        int dest, source;
        peers(g, d, dir, &dest, &source);
        const size_t got = vs_par_sendrecv(par, s + soff[dir], send[dir], dest, r + roff[dir],
                                           recv[dir], source, VS_TAG_BYTES + 3 * dir + d);
        expect_bytes(d, dir, recv[dir], got);
    }
    if (!device_pointers && recv_total)
        VS_CUDA_CHECK(cudaMemcpyAsync(g->tr.d_recv, g->tr.h_recv, recv_total,
                                      cudaMemcpyHostToDevice, g->stream));
}

void vs_gpu_stage_exchange(vs_gpu_state *g, int d, const size_t send[2],
                           const size_t recv[2])
{
    switch (g->tr.link[d]) {
    case VS_TRANSPORT_PEER: exchange_peer(g, d, send, recv); break;
    case VS_TRANSPORT_MPI_DEVICE: exchange_host(g, d, send, recv, 1); break;
    default: exchange_host(g, d, send, recv, 0); break;
    }
}

void vs_gpu_exchange_transport(vs_gpu_state *g, const vs_decomp *dc, const vs_exchange_msg msg[2],
                               size_t got[2])
{
    if (msg[0].host) {
        vs_exchange_host_mpi(dc, msg, got);
        return;
    }
    const size_t send[2] = {msg[0].send_bytes, msg[1].send_bytes};
    const size_t recv[2] = {msg[0].recv_bytes, msg[1].recv_bytes};
    vs_gpu_stage_exchange(g, msg[0].d, send, recv);
    got[0] = recv[0];
    got[1] = recv[1];
}

void vs_gpu_ghost_send_reserve(vs_gpu_state *g, size_t bytes)
{
    wait_for_readers(g); /* every packing into d_ghost_send comes after this call */
    const size_t old = g->tr.d_ghost_send_cap;
    grow_device(g, &g->tr.d_ghost_send, &g->tr.d_ghost_send_cap, bytes);
    if (g->tr.d_ghost_send_cap != old) {
        VS_CUDA_CHECK(cudaIpcGetMemHandle(&g->tr.ghost_handle, g->tr.d_ghost_send));
        g->tr.ghost_generation++;
    }
}

static vs_peer_ctl slab_ctl(const vs_gpu_state *g, int buffer, int64_t n, uint64_t offset)
{
    vs_peer_ctl out;
    memset(&out, 0, sizeof out);
    out.handle = buffer ? g->tr.ghost_handle : g->tr.send_handle;
    out.generation = buffer ? g->tr.ghost_generation : g->tr.send_generation;
    out.buffer = buffer;
    out.packed = g->tr.packed_handle;
    out.inbox = g->tr.inbox_handle;
    out.read = g->tr.read_handle;
    out.offset = offset;
    out.bytes = (uint64_t)n;
    return out;
}

/* The wait on a signal word as a stream memory operation (a driver entry point, so that
 * nothing links the driver library itself), which a captured graph holds as a node. */
typedef CUresult (*vs_value32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
static vs_value32_fn wait_value32;

static void load_value_ops(void)
{
    if (wait_value32)
        return;
    cudaDriverEntryPointQueryResult q;
#if CUDART_VERSION >= 12050
    VS_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", (void **)&wait_value32,
                                                   12000, cudaEnableDefault, &q));
#else /* the toolkits before 12.5 have only the unversioned query */
    VS_CUDA_CHECK(cudaGetDriverEntryPoint("cuStreamWaitValue32", (void **)&wait_value32,
                                          cudaEnableDefault, &q));
#endif
    if (q != cudaDriverEntryPointSuccess)
        VS_FATAL("slab exchange: the driver has no stream memory operations; set "
                 "VESICA_GPU_SLAB_ABOVE=0");
}

static void value_op(CUresult rc, const char *what)
{
    if (rc != CUDA_SUCCESS)
        VS_FATAL("slab exchange: %s failed (CUresult %d)", what, (int)rc);
}

void vs_gpu_slab_message(vs_gpu_state *g, int d, int buffer, const int64_t out_n[2],
                         const uint64_t out_offset[2], int64_t in_n[2], const char *in_base[2],
                         const char *in_records[2])
{
    const vs_par *par = &g->tr.dc->cart;
    int dest[2] = {0, 0}, source[2] = {0, 0};
    vs_peer_ctl out[2], in[2];
    for (int dir = 0; dir < 2; ++dir) {
        peers(g, d, dir, &dest[dir], &source[dir]);
        out[dir] = slab_ctl(g, buffer, out_n[dir], out_offset[dir]);
    }
    const int tag = VS_TAG_SLAB + 6 * buffer + d;
    if (dest[0] == dest[1]) { /* two ranks along d: both directions in one message */
        vs_par_sendrecv(par, out, sizeof out, dest[0], in, sizeof in, source[0], tag);
    } else {
        for (int dir = 0; dir < 2; ++dir)
            vs_par_sendrecv(par, &out[dir], sizeof out[dir], dest[dir], &in[dir], sizeof in[dir],
                            source[dir], tag + 3 * dir);
    }
    for (int dir = 0; dir < 2; ++dir) {
        if (in[dir].buffer != buffer)
            VS_FATAL("slab exchange %c dir %d: expected buffer %d, rank %d sent %d", "xyz"[d],
                     dir, buffer, source[dir], in[dir].buffer);
        in_n[dir] = (int64_t)in[dir].bytes;
        if (buffer)
            in[dir].bytes = 1; /* mapped even where no record follows: its header holds the counts */
        const int k = peer_entry(g, source[dir], &in[dir]);
        const char *base = buffer ? g->tr.peer_map[k].ghost_ptr : g->tr.peer_map[k].ptr;
        in_base[dir] = base;
        in_records[dir] = base ? base + in[dir].offset : NULL;
    }
}

static int known_peer(const vs_gpu_state *g, int rank)
{
    for (int k = 0; k < g->tr.n_peer_map; ++k)
        if (g->tr.peer_map[k].rank == rank)
            return 1;
    return 0;
}

vs_slab_signal vs_gpu_slab_signal(vs_gpu_state *g, int d, int buffer)
{
    int dest[2] = {0, 0}, source[2] = {0, 0};
    for (int dir = 0; dir < 2; ++dir)
        peers(g, d, dir, &dest[dir], &source[dir]);
    if (!known_peer(g, dest[0]) || !known_peer(g, dest[1])) {
        /* the first exchange: each neighbour's events and words, no buffer yet (every rank
         * comes here at its first, the same, exchange) */
        for (int dir = 0; dir < 2; ++dir) {
            vs_peer_ctl out = slab_ctl(g, buffer, 0, 0), in;
            vs_par_sendrecv(&g->tr.dc->cart, &out, sizeof out, dest[dir], &in, sizeof in,
                            source[dir], VS_TAG_SLAB + 12 + 3 * dir + d);
            (void)peer_entry(g, source[dir], &in);
        }
    }
    vs_slab_signal s;
    for (int dir = 0; dir < 2; ++dir)
        s.word[dir] = g->tr.peer_map[peer_index(g, dest[dir])].inbox + 2 * buffer + dir;
    s.seq = ++g->tr.signal_seq[buffer];
    return s;
}

void vs_gpu_slab_wait(vs_gpu_state *g, int d, int buffer, const int64_t in_n[2])
{
    /* until the senders' numbers of this exchange are in this rank's words (compared
     * cyclically). No `read` to wait for: the slab path's next writes to these buffers come
     * after waits on what the source signals after its reads (gpu_slab.cu) */
    load_value_ops();
    int dest = 0, source[2] = {0, 0};
    for (int dir = 0; dir < 2; ++dir)
        peers(g, d, dir, &dest, &source[dir]);
    for (int dir = 0; dir < 2; ++dir) {
        const int waited = dir == 1 && source[1] == source[0] && (in_n[0] > 0 || buffer);
        if ((in_n[dir] > 0 || buffer) && !waited)
            value_op(wait_value32((CUstream)g->stream,
                                  (CUdeviceptr)(g->tr.d_inbox + 2 * buffer + dir),
                                  g->tr.signal_seq[buffer], CU_STREAM_WAIT_VALUE_GEQ),
                     "wait");
    }
}
