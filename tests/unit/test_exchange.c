/* Unit tests of the staged-exchange driver (comm/exchange.h) with an operation set of the
 * test's own: a trace of every call. Checked against values written down here: the order
 * of the operations (select, counts, reserve, both packs, both transfers, both unpacks), the
 * shift each pack gets (from the box and the brick's place), the
 * self-exchange of a dimension with one rank (no transport, the packed records unpacked as
 * they are, no bytes counted), and, for a dimension split over ranks (a hand-made brick whose
 * neighbours a fake transport plays), the peers, tags, counts and byte total.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "decomp.h"
#include "exchange.h"
#include "parallel.h"

typedef struct {
    double x;   /* coordinate d of the record */
    int64_t id; /* 1000 d + 100 dir + k on the sending side; 5000 + ... from a fake peer */
} rec;

enum { MAX_EVENTS = 64, MAX_RECS = 16 };

typedef struct {
    char kind; /* 's' select, 'r' reserve, 'p' pack, 'b' recv_buffer, 'u' unpack, 'x' transport
                  (one event per message) */
    int d, dir;
    double shift;
    int64_t n;
    int host, dest, source, tag;
    size_t send_bytes, recv_bytes;
    rec first; /* unpack: the first record received */
} event;

typedef struct {
    event ev[MAX_EVENTS];
    int n_ev;
    int64_t n_send[3][2]; /* what select reports */
    int64_t n_peer[3][2]; /* what the fake peer sends (split dimensions) */
    rec out[2][MAX_RECS], in[2][MAX_RECS]; /* per direction */
    int64_t reserved_send[3][2], reserved_recv[3][2]; /* what reserve was told */
    int counts_known;
} trace;

static event *add(trace *t, char kind, int d, int dir)
{
    assert_true(t->n_ev < MAX_EVENTS);
    event *e = &t->ev[t->n_ev++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->d = d;
    e->dir = dir;
    return e;
}

static void op_select(void *ctx, int d, int64_t n_send[2], int64_t n_recv[2])
{
    trace *t = ctx;
    add(t, 's', d, -1);
    for (int dir = 0; dir < 2; ++dir) {
        n_send[dir] = t->n_send[d][dir];
        if (t->counts_known)
            n_recv[dir] = t->n_peer[d][dir];
    }
}

static void op_reserve(void *ctx, int d, const int64_t n_send[2], const int64_t n_recv[2])
{
    trace *t = ctx;
    add(t, 'r', d, -1);
    for (int dir = 0; dir < 2; ++dir) {
        t->reserved_send[d][dir] = n_send[dir];
        t->reserved_recv[d][dir] = n_recv[dir];
    }
}

static const void *op_pack(void *ctx, int d, int dir, double shift, int64_t n)
{
    trace *t = ctx;
    event *e = add(t, 'p', d, dir);
    e->shift = shift;
    e->n = n;
    assert_true(n <= MAX_RECS);
    for (int64_t k = 0; k < n; ++k) {
        t->out[dir][k].x = 0.25 + (double)k + shift;
        t->out[dir][k].id = 1000 * d + 100 * dir + k;
    }
    return t->out[dir];
}

static void *op_recv_buffer(void *ctx, int d, int dir, int64_t n)
{
    trace *t = ctx;
    add(t, 'b', d, dir)->n = n;
    assert_true(n <= MAX_RECS);
    memset(t->in[dir], 0xff, sizeof t->in[dir]);
    return t->in[dir];
}

static void op_unpack(void *ctx, int d, int dir, const void *recs, int64_t n)
{
    trace *t = ctx;
    event *e = add(t, 'u', d, dir);
    e->n = n;
    if (n > 0)
        memcpy(&e->first, recs, sizeof(rec));
}

/* The neighbours of a split dimension: count messages get n_peer, record messages get
 * n_peer records with ids 5000 + 1000 d + 100 dir + k. */
static size_t fake_peer(trace *t, const vs_exchange_msg *m)
{
    event *e = add(t, 'x', m->d, m->dir);
    e->host = m->host;
    e->dest = m->dest;
    e->source = m->source;
    e->tag = m->tag;
    e->send_bytes = m->send_bytes;
    e->recv_bytes = m->recv_bytes;
    const int64_t n = t->n_peer[m->d][m->dir];
    if (m->host) {
        assert_int_equal(m->recv_bytes, sizeof(int64_t));
        memcpy(m->recv, &n, sizeof n);
        return sizeof n;
    }
    rec *r = m->recv;
    for (int64_t k = 0; k < n; ++k) {
        r[k].x = -1.0 - (double)k;
        r[k].id = 5000 + 1000 * m->d + 100 * m->dir + k;
    }
    return sizeof(rec) * (size_t)n;
}

/* A stage's transport: the two message pairs, direction 0 first, both of one kind. */
static void op_exchange(void *ctx, const vs_decomp *dc, const vs_exchange_msg msg[2],
                        size_t got[2])
{
    (void)dc;
    assert_int_equal(msg[0].dir, 0);
    assert_int_equal(msg[1].dir, 1);
    assert_int_equal(msg[0].d, msg[1].d);
    assert_int_equal(msg[0].host, msg[1].host);
    for (int dir = 0; dir < 2; ++dir)
        got[dir] = fake_peer(ctx, &msg[dir]);
}

static void no_exchange(void *ctx, const vs_decomp *dc, const vs_exchange_msg msg[2],
                        size_t got[2])
{
    (void)ctx;
    (void)dc;
    (void)msg;
    (void)got;
    fail_msg("a dimension with one rank must not reach the transport");
}

static vs_exchange_ops trace_ops(int counts_known, int with_transport)
{
    vs_exchange_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.name = "test";
    ops.rec_bytes = sizeof(rec);
    ops.counts_known = counts_known;
    ops.select = op_select;
    ops.reserve = op_reserve;
    ops.pack = op_pack;
    ops.recv_buffer = op_recv_buffer;
    ops.unpack = op_unpack;
    ops.exchange = with_transport ? op_exchange : no_exchange;
    return ops;
}

static void expect(const event *e, char kind, int d, int dir)
{
    assert_int_equal(e->kind, kind);
    assert_int_equal(e->d, d);
    assert_int_equal(e->dir, dir);
}

/* One rank, box 10 x 12 x 14: every stage is a self-exchange, shifts +L down and -L up. */
static void run_one_rank(int counts_known)
{
    vs_par self;
    vs_par_from_comm(&self, MPI_COMM_SELF);
    const double box[3] = {10.0, 12.0, 14.0};
    const int dims[3] = {1, 1, 1};
    vs_decomp dc;
    vs_decomp_create(&dc, &self, box, dims);

    static trace t;
    memset(&t, 0, sizeof t);
    t.counts_known = counts_known;
    const int64_t n_send[3][2] = {{1, 2}, {3, 0}, {2, 4}};
    memcpy(t.n_send, n_send, sizeof n_send);
    memcpy(t.n_peer, n_send, sizeof n_send); /* a self-exchange gets back what it sent */
    const vs_exchange_ops ops = trace_ops(counts_known, 0);
    assert_int_equal(vs_exchange_run(&ops, &t, &dc), 0); /* copies are not traffic */

    const double shift[3][2] = {{10.0, -10.0}, {12.0, -12.0}, {14.0, -14.0}};
    assert_int_equal(t.n_ev, 3 * 6); /* per stage: select, reserve, 2 packs, 2 unpacks */
    const event *e = t.ev;
    for (int d = 0; d < 3; ++d) {
        expect(e++, 's', d, -1);
        expect(e++, 'r', d, -1);
        for (int dir = 0; dir < 2; ++dir) { /* a self-exchange gets back what it sends */
            assert_int_equal(t.reserved_send[d][dir], n_send[d][dir]);
            assert_int_equal(t.reserved_recv[d][dir], n_send[d][dir]);
        }
        for (int dir = 0; dir < 2; ++dir) {
            expect(e, 'p', d, dir);
            assert_true(e->shift == shift[d][dir]);
            assert_int_equal(e->n, n_send[d][dir]);
            ++e;
        }
        for (int dir = 0; dir < 2; ++dir) {
            expect(e, 'u', d, dir);
            assert_int_equal(e->n, n_send[d][dir]);
            if (n_send[d][dir] > 0) { /* the packed record itself, shifted */
                assert_true(e->first.x == 0.25 + shift[d][dir]);
                assert_int_equal(e->first.id, 1000 * d + 100 * dir);
            }
            ++e;
        }
    }
    vs_decomp_destroy(&dc);
}

static void test_one_rank_self_exchange(void **state)
{
    (void)state;
    run_one_rank(0);
}

static void test_one_rank_counts_known(void **state)
{
    (void)state;
    run_one_rank(1);
}

/* A hand-made brick: x split in 2 (this brick at the bottom), y split in 3 (the middle), z
 * one rank (rank 0, itself). Neighbours: x lower 11 upper 12, y lower 21 upper 22. */
static void run_split(int counts_known)
{
    vs_decomp dc;
    memset(&dc, 0, sizeof dc);
    vs_par_from_comm(&dc.cart, MPI_COMM_SELF);
    const int dims[3] = {2, 3, 1}, coords[3] = {0, 1, 0};
    const int lower[3] = {11, 21, 0}, upper[3] = {12, 22, 0};
    const double box[3] = {8.0, 9.0, 10.0};
    for (int d = 0; d < 3; ++d) {
        dc.dims[d] = dims[d];
        dc.coords[d] = coords[d];
        dc.lower[d] = lower[d];
        dc.upper[d] = upper[d];
        dc.box[d] = box[d];
    }
    static trace t;
    memset(&t, 0, sizeof t);
    t.counts_known = counts_known;
    const int64_t n_send[3][2] = {{1, 2}, {3, 4}, {2, 1}};
    const int64_t n_peer[3][2] = {{5, 0}, {2, 6}, {2, 1}};
    memcpy(t.n_send, n_send, sizeof n_send);
    memcpy(t.n_peer, n_peer, sizeof n_peer);
    const vs_exchange_ops ops = trace_ops(counts_known, 1);
    /* records sent to other ranks: x and y only, (1 + 2 + 3 + 4) records of 16 bytes */
    assert_int_equal(sizeof(rec), 16);
    assert_int_equal(vs_exchange_run(&ops, &t, &dc), 10 * 16);

    /* bottom of x: +8 down, nothing up; middle of y: no shift; z alone: +-10 */
    const double shift[3][2] = {{8.0, 0.0}, {0.0, 0.0}, {10.0, -10.0}};
    const int dest[2][2] = {{11, 12}, {21, 22}}, source[2][2] = {{12, 11}, {22, 21}};
    const int tag_count[2][2] = {{100, 103}, {101, 104}}, tag_data[2][2] = {{200, 203},
                                                                           {201, 204}};
    const event *e = t.ev;
    for (int d = 0; d < 3; ++d) {
        expect(e++, 's', d, -1);
        for (int dir = 0; d < 2 && !counts_known && dir < 2; ++dir) {
            expect(e, 'x', d, dir);
            assert_int_equal(e->host, 1);
            assert_int_equal(e->dest, dest[d][dir]);
            assert_int_equal(e->source, source[d][dir]);
            assert_int_equal(e->tag, tag_count[d][dir]);
            assert_int_equal(e->send_bytes, 8);
            ++e;
        }
        expect(e++, 'r', d, -1);
        for (int dir = 0; dir < 2; ++dir) {
            assert_int_equal(t.reserved_send[d][dir], n_send[d][dir]);
            assert_int_equal(t.reserved_recv[d][dir], d < 2 ? n_peer[d][dir] : n_send[d][dir]);
        }
        for (int dir = 0; dir < 2; ++dir) {
            expect(e, 'p', d, dir);
            assert_true(e->shift == shift[d][dir]);
            assert_int_equal(e->n, n_send[d][dir]);
            ++e;
        }
        for (int dir = 0; d < 2 && dir < 2; ++dir) {
            expect(e, 'b', d, dir);
            assert_int_equal(e->n, n_peer[d][dir]);
            ++e;
        }
        for (int dir = 0; d < 2 && dir < 2; ++dir) {
            expect(e, 'x', d, dir);
            assert_int_equal(e->host, 0);
            assert_int_equal(e->dest, dest[d][dir]);
            assert_int_equal(e->source, source[d][dir]);
            assert_int_equal(e->tag, tag_data[d][dir]);
            assert_int_equal(e->send_bytes, 16 * n_send[d][dir]);
            assert_int_equal(e->recv_bytes, 16 * n_peer[d][dir]);
            ++e;
        }
        for (int dir = 0; dir < 2; ++dir) {
            expect(e, 'u', d, dir);
            assert_int_equal(e->n, d < 2 ? n_peer[d][dir] : n_send[d][dir]);
            if (d < 2 && n_peer[d][dir] > 0) { /* what the peer sent */
                assert_true(e->first.x == -1.0);
                assert_int_equal(e->first.id, 5000 + 1000 * d + 100 * dir);
            } else if (d == 2) { /* self: the packed record */
                assert_true(e->first.x == 0.25 + shift[d][dir]);
                assert_int_equal(e->first.id, 2000 + 100 * dir);
            }
            ++e;
        }
    }
    assert_int_equal(e - t.ev, t.n_ev);
    /* split stages: s, r, 2 p, 2 b, 2 x, 2 u (+ 2 count x); the self stage: s, r, 2 p, 2 u */
    assert_int_equal(t.n_ev, counts_known ? 2 * 10 + 6 : 2 * 12 + 6);
}

static void test_split_dimensions(void **state)
{
    (void)state;
    run_split(0);
}

static void test_split_counts_known(void **state)
{
    (void)state;
    run_split(1);
}

/* The default transport (host MPI through vs_par_sendrecv): x split in 2 with this rank as
 * both neighbours (MPI_COMM_SELF), the top brick; the records come back through the receive
 * buffer and count as traffic, since the dimension has two bricks. */
static void test_default_transport(void **state)
{
    (void)state;
    vs_decomp dc;
    memset(&dc, 0, sizeof dc);
    vs_par_from_comm(&dc.cart, MPI_COMM_SELF);
    const int dims[3] = {2, 1, 1}, coords[3] = {1, 0, 0};
    const double box[3] = {8.0, 9.0, 10.0};
    for (int d = 0; d < 3; ++d) {
        dc.dims[d] = dims[d];
        dc.coords[d] = coords[d];
        dc.lower[d] = dc.upper[d] = dc.cart.rank;
        dc.box[d] = box[d];
    }
    static trace t;
    memset(&t, 0, sizeof t);
    const int64_t n_send[3][2] = {{2, 3}, {1, 1}, {0, 2}};
    memcpy(t.n_send, n_send, sizeof n_send);
    vs_exchange_ops ops = trace_ops(0, 0);
    ops.exchange = NULL;
    assert_int_equal(vs_exchange_run(&ops, &t, &dc), (2 + 3) * 16);

    /* top of x: nothing down, -8 up */
    const double shift[3][2] = {{0.0, -8.0}, {9.0, -9.0}, {10.0, -10.0}};
    const event *e = t.ev;
    for (int d = 0; d < 3; ++d) {
        expect(e++, 's', d, -1);
        expect(e++, 'r', d, -1);
        for (int dir = 0; dir < 2; ++dir) {
            expect(e, 'p', d, dir);
            assert_true(e->shift == shift[d][dir]);
            ++e;
        }
        for (int dir = 0; d == 0 && dir < 2; ++dir) {
            expect(e, 'b', d, dir);
            assert_int_equal(e->n, n_send[d][dir]);
            ++e;
        }
        for (int dir = 0; dir < 2; ++dir) {
            expect(e, 'u', d, dir);
            assert_int_equal(e->n, n_send[d][dir]);
            if (n_send[d][dir] > 0) { /* sent to itself through MPI: the packed records */
                assert_true(e->first.x == 0.25 + shift[d][dir]);
                assert_int_equal(e->first.id, 1000 * d + 100 * dir);
            }
            ++e;
        }
    }
    assert_int_equal(e - t.ev, t.n_ev);
}

int main(int argc, char **argv)
{
    vs_par_init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_rank_self_exchange),
        cmocka_unit_test(test_one_rank_counts_known),
        cmocka_unit_test(test_split_dimensions),
        cmocka_unit_test(test_split_counts_known),
        cmocka_unit_test(test_default_transport),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    vs_par_finalize();
    return failed;
}
