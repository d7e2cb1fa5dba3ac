/* The staged exchange driver: see exchange.h for the protocol and the operations.
 *
 * Message tags: counts VS_TAG_COUNT + 3 dir + d, records VS_TAG_DATA + 3 dir + d, so the two
 * directions of a stage never match each other's messages even when both neighbours are the
 * same rank (a dimension with two ranks). Sends are blocking pairs (MPI_Sendrecv), in the
 * same order on every rank (direction 0, then 1), so no message waits on another.
 */
#include "exchange.h"

#include "log.h"
#include "parallel.h"

enum { VS_TAG_COUNT = 100, VS_TAG_DATA = 200 };

void vs_exchange_shifts(const vs_decomp *dc, double shift[3][2])
{
    for (int d = 0; d < 3; ++d) {
        const double len = dc->box[d];
        shift[d][0] = dc->coords[d] == 0 && !dc->wall[d] ? len : 0.0;
        shift[d][1] = dc->coords[d] == dc->dims[d] - 1 && !dc->wall[d] ? -len : 0.0;
    }
}

void vs_exchange_host_mpi(const vs_decomp *dc, const vs_exchange_msg msg[2], size_t got[2])
{
    for (int dir = 0; dir < 2; ++dir)
        got[dir] = vs_par_sendrecv(&dc->cart, msg[dir].send, msg[dir].send_bytes, msg[dir].dest,
                                   msg[dir].recv, msg[dir].recv_bytes, msg[dir].source,
                                   msg[dir].tag);
}

/* Stage d's two message pairs (direction 0 sends down and receives from above, direction 1
 * the reverse), through the kind's transport or host MPI; checks what arrived. */
static void transfer(const vs_exchange_ops *ops, void *ctx, const vs_decomp *dc, int d,
                     int tag, int host, const void *const send[2], const size_t send_bytes[2],
                     void *const recv[2], const size_t recv_bytes[2])
{
    vs_exchange_msg m[2];
    for (int dir = 0; dir < 2; ++dir) {
        m[dir].d = d;
        m[dir].dir = dir;
        m[dir].dest = dir == 0 ? dc->lower[d] : dc->upper[d];
        m[dir].source = dir == 0 ? dc->upper[d] : dc->lower[d];
        m[dir].tag = tag + 3 * dir + d;
        m[dir].host = host;
        m[dir].send = send[dir];
        m[dir].send_bytes = send_bytes[dir];
        m[dir].recv = recv[dir];
        m[dir].recv_bytes = recv_bytes[dir];
    }
    size_t got[2] = {0, 0};
    if (ops->exchange)
        ops->exchange(ctx, dc, m, got);
    else
        vs_exchange_host_mpi(dc, m, got);
    for (int dir = 0; dir < 2; ++dir)
        if (got[dir] != recv_bytes[dir])
            VS_FATAL("%s stage %c dir %d: expected %zu bytes, received %zu", ops->name,
                     "xyz"[d], dir, recv_bytes[dir], got[dir]);
}

/* The counts of stage d after select: a self-exchange gets back what it sends; else the
 * neighbours announce theirs (unless the kind knows them). */
static void stage_counts(const vs_exchange_ops *ops, void *ctx, const vs_decomp *dc, int d,
                         const int64_t n_send[2], int64_t n_recv[2])
{
    if (dc->dims[d] == 1) {
        /* a stale send list would unpack the wrong slots */
        for (int dir = 0; ops->counts_known && dir < 2; ++dir)
            if (n_recv[dir] != n_send[dir])
                VS_FATAL("%s stage %c dir %d: expected %lld records, sending %lld to itself",
                         ops->name, "xyz"[d], dir, (long long)n_recv[dir],
                         (long long)n_send[dir]);
        n_recv[0] = n_send[0];
        n_recv[1] = n_send[1];
        return;
    }
    if (ops->counts_known)
        return;
    const void *send[2] = {&n_send[0], &n_send[1]};
    void *recv[2] = {&n_recv[0], &n_recv[1]};
    const size_t bytes[2] = {sizeof(int64_t), sizeof(int64_t)};
    transfer(ops, ctx, dc, d, VS_TAG_COUNT, 1, send, bytes, recv, bytes);
}

/* Stage d: select, counts, reserve, pack both directions, move them, unpack both. Returns
 * the record bytes sent to another rank. */
static int64_t run_stage(const vs_exchange_ops *ops, void *ctx, const vs_decomp *dc, int d,
                         const double shift[2])
{
    int64_t n_send[2] = {0, 0}, n_recv[2] = {0, 0};
    ops->select(ctx, d, n_send, n_recv);
    /* nothing crosses a wall: a brick at one sends nothing through it, and the brick on the
     * far side of the box (its neighbour on the rank ring) expects nothing from it */
    for (int dir = 0; dc->wall[d] && dir < 2; ++dir) {
        if (vs_decomp_at_wall(dc, d, dir))
            n_send[dir] = 0;
        if (vs_decomp_at_wall(dc, d, 1 - dir))
            n_recv[dir] = 0;
    }
    stage_counts(ops, ctx, dc, d, n_send, n_recv);
    if (ops->reserve)
        ops->reserve(ctx, d, n_send, n_recv);
    const void *out[2];
    for (int dir = 0; dir < 2; ++dir)
        out[dir] = ops->pack(ctx, d, dir, shift[dir], n_send[dir]);
    if (dc->dims[d] == 1) { /* both neighbours are this rank */
        for (int dir = 0; dir < 2; ++dir)
            ops->unpack(ctx, d, dir, out[dir], n_recv[dir]);
        return 0;
    }
    size_t send_bytes[2], recv_bytes[2];
    void *in[2];
    for (int dir = 0; dir < 2; ++dir) {
        send_bytes[dir] = ops->rec_bytes * (size_t)n_send[dir];
        recv_bytes[dir] = ops->rec_bytes * (size_t)n_recv[dir];
        in[dir] = ops->recv_buffer(ctx, d, dir, n_recv[dir]);
    }
    transfer(ops, ctx, dc, d, VS_TAG_DATA, 0, out, send_bytes, in, recv_bytes);
    for (int dir = 0; dir < 2; ++dir)
        ops->unpack(ctx, d, dir, in[dir], n_recv[dir]);
    return (int64_t)(send_bytes[0] + send_bytes[1]);
}

int64_t vs_exchange_run(const vs_exchange_ops *ops, void *ctx, const vs_decomp *dc)
{
    double shift[3][2];
    vs_exchange_shifts(dc, shift);
    int64_t bytes = 0;
    for (int d = 0; d < 3; ++d)
        bytes += run_stage(ops, ctx, dc, d, shift[d]);
    return bytes;
}
