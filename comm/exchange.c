/* The staged exchange driver: see exchange.h for the protocol and the operations.
 *
 * Message tags: counts VS_TAG_COUNT + 3 dir + d, records VS_TAG_DATA + 3 dir + d, so the two
 * directions of a stage never match each other's messages even when both neighbours are the
 * same rank (a dimension with two ranks). Sends are blocking pairs (MPI_Sendrecv), in the
 * same order on every rank, so no message waits on another.
 */
#include "exchange.h"

#include "log.h"
#include "parallel.h"

enum { VS_TAG_COUNT = 100, VS_TAG_DATA = 200 };

void vs_exchange_shifts(const vs_decomp *dc, double shift[3][2])
{
    for (int d = 0; d < 3; ++d) {
        const double len = dc->box[d];
        shift[d][0] = dc->coords[d] == 0 ? len : 0.0;
        shift[d][1] = dc->coords[d] == dc->dims[d] - 1 ? -len : 0.0;
    }
}

/* One message pair of stage d, direction dir: send down and receive from above (dir 0) or
 * the reverse (dir 1). */
static size_t transfer(const vs_exchange_ops *ops, void *ctx, const vs_decomp *dc, int d,
                       int dir, int tag, int host, const void *send, size_t send_bytes,
                       void *recv, size_t recv_bytes)
{
    vs_exchange_msg m;
    m.d = d;
    m.dir = dir;
    m.dest = dir == 0 ? dc->lower[d] : dc->upper[d];
    m.source = dir == 0 ? dc->upper[d] : dc->lower[d];
    m.tag = tag + 3 * dir + d;
    m.host = host;
    m.send = send;
    m.send_bytes = send_bytes;
    m.recv = recv;
    m.recv_bytes = recv_bytes;
    if (ops->exchange)
        return ops->exchange(ctx, dc, &m);
    return vs_par_sendrecv(&dc->cart, m.send, m.send_bytes, m.dest, m.recv, m.recv_bytes,
                           m.source, m.tag);
}

static void expect_bytes(const vs_exchange_ops *ops, int d, int dir, size_t want, size_t got)
{
    if (got != want)
        VS_FATAL("%s stage %c dir %d: expected %zu bytes, received %zu", ops->name, "xyz"[d],
                 dir, want, got);
}

/* Direction dir of stage d, after select: counts, pack, records, unpack. Returns the record
 * bytes sent to another rank. */
static int64_t run_direction(const vs_exchange_ops *ops, void *ctx, const vs_decomp *dc, int d,
                             int dir, double shift, int64_t n_send, int64_t n_recv)
{
    const int self = dc->dims[d] == 1; /* both neighbours are this rank */
    if (self && ops->counts_known) /* a stale send list would unpack the wrong slots */
        expect_bytes(ops, d, dir, ops->rec_bytes * (size_t)n_recv,
                     ops->rec_bytes * (size_t)n_send);
    if (self)
        n_recv = n_send;
    else if (!ops->counts_known) {
        int64_t n = 0;
        const size_t got = transfer(ops, ctx, dc, d, dir, VS_TAG_COUNT, 1, &n_send,
                                    sizeof n_send, &n, sizeof n);
        expect_bytes(ops, d, dir, sizeof n, got);
        n_recv = n;
    }
    const void *out = ops->pack(ctx, d, dir, shift, n_send);
    if (self) {
        ops->unpack(ctx, d, dir, out, n_recv);
        return 0;
    }
    const size_t send_bytes = ops->rec_bytes * (size_t)n_send;
    const size_t recv_bytes = ops->rec_bytes * (size_t)n_recv;
    void *in = ops->recv_buffer(ctx, d, dir, n_recv);
    expect_bytes(ops, d, dir, recv_bytes,
                 transfer(ops, ctx, dc, d, dir, VS_TAG_DATA, 0, out, send_bytes, in,
                          recv_bytes));
    ops->unpack(ctx, d, dir, in, n_recv);
    return (int64_t)send_bytes;
}

int64_t vs_exchange_run(const vs_exchange_ops *ops, void *ctx, const vs_decomp *dc)
{
    double shift[3][2];
    vs_exchange_shifts(dc, shift);
    int64_t bytes = 0;
    for (int d = 0; d < 3; ++d) {
        int64_t n_send[2] = {0, 0}, n_recv[2] = {0, 0};
        ops->select(ctx, d, n_send, n_recv);
        for (int dir = 0; dir < 2; ++dir)
            bytes += run_direction(ops, ctx, dc, d, dir, shift[d][dir], n_send[dir],
                                   n_recv[dir]);
    }
    return bytes;
}
