/* How the GPU backend's halo and migration bytes travel between ranks (comm.transport).
 *
 * The halo protocol (gpu_halo.cu) packs each stage's records for both directions into one
 * device buffer and calls vs_gpu_stage_exchange; this file moves them, by one of three
 * transports chosen per dimension at start-up, the same on every rank:
 * - host: device -> pinned host buffer, MPI_Sendrecv, -> device. Works everywhere.
 * - peer: CUDA IPC within a node. Each rank exports its send buffer once (again after it
 *   grows); a small MPI message carries the handle, offset and size, the receiver copies
 *   device to device straight out of the sender's buffer (NVLink where the GPUs have it) and
 *   acknowledges, so the sender may overwrite its buffer.
 * - mpi-device: device pointers handed to a CUDA-aware MPI (MPIX_Query_cuda_support).
 * `auto` takes peer for a dimension whose links all stay within a node, else mpi-device when
 * MPI is CUDA-aware, else host. MPI itself is only called through comm/parallel.h.
 */
#include <stdio.h>
#include <string.h>

#include "gpu_internal.cuh"

enum { VS_TAG_COUNTS = 300, VS_TAG_BYTES = 310, VS_TAG_CTL = 320, VS_TAG_ACK = 330 };

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
    g->dc = dc;
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
            g->link[d] = VS_LINK_SELF;
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
                g->link[d] = all_local ? VS_TRANSPORT_PEER
                                       : (cuda_aware ? VS_TRANSPORT_MPI_DEVICE
                                                     : VS_TRANSPORT_HOST);
            else
                g->link[d] = kind;
        }
        const size_t used = strlen(describe);
        snprintf(describe + used, describe_len - used, "%s%c %s", d ? ", " : "", "xyz"[d],
                 link_name(g->link[d]));
    }
    free(node_of);
    /* overlap pays only where bytes travel between ranks, and needs a Verlet list to tell
     * interior from border particles */
    g->overlap = rc == 0 && g->prm.overlap && g->prm.gpu_builder != VS_GPU_BUILDER_CELLS &&
                 (g->link[0] != VS_LINK_SELF || g->link[1] != VS_LINK_SELF ||
                  g->link[2] != VS_LINK_SELF);
    return rc;
}

static void grow_device(vs_gpu_state *g, char **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return;
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
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

void vs_gpu_comm_reserve(vs_gpu_state *g, size_t send, size_t recv)
{
    const size_t old = g->d_send_cap;
    grow_device(g, &g->d_send, &g->d_send_cap, send);
    grow_device(g, &g->d_recv, &g->d_recv_cap, recv);
    const int peer = g->link[0] == VS_TRANSPORT_PEER || g->link[1] == VS_TRANSPORT_PEER ||
                     g->link[2] == VS_TRANSPORT_PEER;
    if (peer && g->d_send_cap != old && g->d_send) {
        VS_CUDA_CHECK(cudaIpcGetMemHandle(&g->send_handle, g->d_send));
        g->send_generation++;
    }
}

void vs_gpu_comm_free(vs_gpu_state *g)
{
    for (int k = 0; k < g->n_peer_map; ++k)
        cudaIpcCloseMemHandle(g->peer_map[k].ptr);
    g->n_peer_map = 0;
    if (g->d_send)
        cudaFree(g->d_send);
    if (g->d_recv)
        cudaFree(g->d_recv);
    if (g->h_send)
        cudaFreeHost(g->h_send);
    if (g->h_recv)
        cudaFreeHost(g->h_recv);
}

static void peers(const vs_gpu_state *g, int d, int dir, int *dest, int *source)
{
    *dest = dir == 0 ? g->dc->lower[d] : g->dc->upper[d];
    *source = dir == 0 ? g->dc->upper[d] : g->dc->lower[d];
}

void vs_gpu_exchange_counts(vs_gpu_state *g, int d, const int64_t n_send[2],
                            int64_t n_recv[2])
{
    for (int dir = 0; dir < 2; ++dir) {
        int dest, source;
        peers(g, d, dir, &dest, &source);
        n_recv[dir] = 0;
        vs_par_sendrecv(&g->dc->cart, &n_send[dir], sizeof(int64_t), dest, &n_recv[dir],
                        sizeof(int64_t), source, VS_TAG_COUNTS + 3 * dir + d);
    }
}

static void expect_bytes(int d, int dir, size_t want, size_t got)
{
    if (want != got)
        VS_FATAL("halo stage %c dir %d: expected %zu bytes, received %zu", "xyz"[d], dir, want,
                 got);
}

/* The send buffer of rank `rank` mapped into this process (opened once per generation). */
static char *peer_buffer(vs_gpu_state *g, int rank, int generation,
                         const cudaIpcMemHandle_t *handle)
{
    int k = 0;
    while (k < g->n_peer_map && g->peer_map[k].rank != rank)
        ++k;
    if (k < g->n_peer_map && g->peer_map[k].generation == generation)
        return g->peer_map[k].ptr;
    if (k < g->n_peer_map) {
        VS_CUDA_CHECK(cudaIpcCloseMemHandle(g->peer_map[k].ptr));
    } else {
        if (g->n_peer_map == 6)
            VS_FATAL("peer transport: more than 6 distinct peers");
        g->n_peer_map++;
    }
    void *ptr = NULL;
    cudaError_t rc = cudaIpcOpenMemHandle(&ptr, *handle, cudaIpcMemLazyEnablePeerAccess);
    if (rc != cudaSuccess)
        VS_FATAL("peer transport: cannot map rank %d's device buffer (%s); set comm.transport "
                 "= \"host\"", rank, cudaGetErrorString(rc));
    g->peer_map[k].rank = rank;
    g->peer_map[k].generation = generation;
    g->peer_map[k].ptr = (char *)ptr;
    return (char *)ptr;
}

typedef struct {
    cudaIpcMemHandle_t handle;
    uint64_t offset, bytes;
    int32_t generation, pad;
} vs_peer_ctl;

static void exchange_peer(vs_gpu_state *g, int d, const size_t send[2], const size_t recv[2])
{
    const vs_par *par = &g->dc->cart;
    const size_t soff[2] = {0, send[0]}, roff[2] = {0, recv[0]};
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream)); /* packed records are in d_send */
    for (int dir = 0; dir < 2; ++dir) {
        int dest, source;
        peers(g, d, dir, &dest, &source);
        vs_peer_ctl out, in;
        memset(&out, 0, sizeof out);
        out.handle = g->send_handle;
        out.offset = soff[dir];
        out.bytes = send[dir];
        out.generation = g->send_generation;
        vs_par_sendrecv(par, &out, sizeof out, dest, &in, sizeof in, source,
                        VS_TAG_CTL + 3 * dir + d);
        expect_bytes(d, dir, recv[dir], (size_t)in.bytes);
        if (in.bytes == 0)
            continue;
        char *src = peer_buffer(g, source, in.generation, &in.handle);
        VS_CUDA_CHECK(cudaMemcpyAsync(g->d_recv + roff[dir], src + in.offset, in.bytes,
                                      cudaMemcpyDeviceToDevice, g->stream));
    }
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    /* tell each sender its buffer has been read, so it may pack the next stage into it */
    for (int dir = 0; dir < 2; ++dir) {
        int dest, source;
        peers(g, d, dir, &dest, &source);
        char done = 1, got = 0;
        vs_par_sendrecv(par, &done, 1, source, &got, 1, dest, VS_TAG_ACK + 3 * dir + d);
    }
}

static void exchange_host(vs_gpu_state *g, int d, const size_t send[2], const size_t recv[2],
                          int device_pointers)
{
    const vs_par *par = &g->dc->cart;
    const size_t soff[2] = {0, send[0]}, roff[2] = {0, recv[0]};
    const size_t send_total = send[0] + send[1], recv_total = recv[0] + recv[1];
    char *s = g->d_send, *r = g->d_recv;
    /* the packed records are complete, and so is any earlier upload out of h_recv */
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    if (!device_pointers) {
        grow_pinned(&g->h_send, &g->h_send_cap, send_total);
        grow_pinned(&g->h_recv, &g->h_recv_cap, recv_total);
        if (send_total) {
            VS_CUDA_CHECK(cudaMemcpyAsync(g->h_send, g->d_send, send_total,
                                          cudaMemcpyDeviceToHost, g->stream));
            VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        }
        s = g->h_send;
        r = g->h_recv;
    }
    for (int dir = 0; dir < 2; ++dir) {
        int dest, source;
        peers(g, d, dir, &dest, &source);
        const size_t got = vs_par_sendrecv(par, s + soff[dir], send[dir], dest, r + roff[dir],
                                           recv[dir], source, VS_TAG_BYTES + 3 * dir + d);
        expect_bytes(d, dir, recv[dir], got);
    }
    if (!device_pointers && recv_total)
        VS_CUDA_CHECK(cudaMemcpyAsync(g->d_recv, g->h_recv, recv_total, cudaMemcpyHostToDevice,
                                      g->stream));
}

void vs_gpu_stage_exchange(vs_gpu_state *g, int d, const size_t send[2],
                           const size_t recv[2])
{
    switch (g->link[d]) {
    case VS_TRANSPORT_PEER: exchange_peer(g, d, send, recv); break;
    case VS_TRANSPORT_MPI_DEVICE: exchange_host(g, d, send, recv, 1); break;
    default: exchange_host(g, d, send, recv, 0); break;
    }
}
