/* The staged-exchange driver on P ranks, with the host transport (MPI).
 *
 * Run under mpiexec -n P with P in {1, 2, 3, 4, 6, 8} (bricks 1x1x1, 2x1x1, 3x1x1, 2x2x1,
 * 3x2x1, 2x2x2; with 3 bricks the lower and upper neighbours differ). Each rank packs,
 * in every stage and direction, 1 + (rank + d + dir) % 3 records naming itself (rank, brick
 * coordinates) at coordinate 0.5 plus the driver's shift. Every rank then checks what it
 * unpacked against what it computes on its own from the brick layout: direction 0 comes from
 * the upper neighbour in d (coordinate + 1, periodic) and direction 1 from the lower one; the
 * number of records is that sender's formula; the position is 0.5 + L where the sender sat at
 * the bottom (dir 0), 0.5 - L where it sat at the top (dir 1), else 0.5; a dimension with one
 * brick gets its own records back. The bytes the driver reports are those sent over split
 * dimensions. Exit 0 on success, 1 on failure (the verdict agreed over ranks).
 */
#include <stdio.h>
#include <string.h>

#include "decomp.h"
#include "exchange.h"
#include "parallel.h"

typedef struct {
    double x;
    int32_t rank, coords[3];
} rec;

enum { MAX_RECS = 4 };

typedef struct {
    const vs_decomp *dc;
    rec out[2][MAX_RECS], in[2][MAX_RECS]; /* per direction: both travel together */
    int failures;
} ctx_t;

static int64_t n_of(int rank, int d, int dir) { return 1 + (rank + d + dir) % 3; }

static void op_select(void *ctx, int d, int64_t n_send[2], int64_t n_recv[2])
{
    const ctx_t *c = ctx;
    (void)n_recv;
    for (int dir = 0; dir < 2; ++dir)
        n_send[dir] = n_of(c->dc->cart.rank, d, dir);
}

static const void *op_pack(void *ctx, int d, int dir, double shift, int64_t n)
{
    ctx_t *c = ctx;
    (void)d;
    for (int64_t k = 0; k < n; ++k) {
        c->out[dir][k].x = 0.5 + shift;
        c->out[dir][k].rank = c->dc->cart.rank;
        for (int q = 0; q < 3; ++q)
            c->out[dir][k].coords[q] = c->dc->coords[q];
    }
    return c->out[dir];
}

static void *op_recv_buffer(void *ctx, int d, int dir, int64_t n)
{
    ctx_t *c = ctx;
    (void)d;
    if (n > MAX_RECS) {
        printf("FAIL rank %d: %lld records announced\n", c->dc->cart.rank, (long long)n);
        c->failures++;
    }
    return c->in[dir];
}

static void op_unpack(void *ctx, int d, int dir, const void *recs, int64_t n)
{
    ctx_t *c = ctx;
    const vs_decomp *dc = c->dc;
    int from[3] = {dc->coords[0], dc->coords[1], dc->coords[2]};
    from[d] = (from[d] + (dir == 0 ? 1 : dc->dims[d] - 1)) % dc->dims[d];
    const int sender = vs_par_cart_rank(&dc->cart, from);
    double want_x = 0.5;
    if (dir == 0 && from[d] == 0)
        want_x += dc->box[d];
    if (dir == 1 && from[d] == dc->dims[d] - 1)
        want_x -= dc->box[d];
    const rec *r = recs;
    int bad = n != n_of(sender, d, dir);
    for (int64_t k = 0; k < n && !bad; ++k)
        bad = r[k].rank != sender || r[k].x != want_x || r[k].coords[0] != from[0] ||
              r[k].coords[1] != from[1] || r[k].coords[2] != from[2];
    if (bad) {
        printf("FAIL rank %d stage %c dir %d: %lld records, first from rank %d at %g; want "
               "%lld from rank %d at %g\n",
               dc->cart.rank, "xyz"[d], dir, (long long)n, n ? r[0].rank : -1,
               n ? r[0].x : 0.0, (long long)n_of(sender, d, dir), sender, want_x);
        c->failures++;
    }
}

int main(int argc, char **argv)
{
    vs_par_init(&argc, &argv);
    vs_par world;
    vs_par_from_comm(&world, MPI_COMM_WORLD);
    int dims[3] = {1, 1, 1};
    const int P = world.size;
    if (P == 2 || P == 3 || P == 4 || P == 6 || P == 8) {
        dims[0] = P % 3 == 0 ? 3 : 2; /* 3 bricks: the two neighbours are different ranks */
        dims[1] = P / dims[0] >= 2 ? 2 : 1;
        dims[2] = P / dims[0] == 4 ? 2 : 1;
    } else if (P != 1) {
        if (world.rank == 0)
            printf("run on 1, 2, 3, 4, 6 or 8 ranks\n");
        vs_par_finalize();
        return 77;
    }
    const double box[3] = {6.0, 7.0, 8.0};
    vs_decomp dc;
    vs_decomp_create(&dc, &world, box, dims);

    ctx_t c;
    memset(&c, 0, sizeof c);
    c.dc = &dc;
    vs_exchange_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.name = "test";
    ops.rec_bytes = sizeof(rec);
    ops.select = op_select;
    ops.pack = op_pack;
    ops.recv_buffer = op_recv_buffer;
    ops.unpack = op_unpack;
    const int64_t bytes = vs_exchange_run(&ops, &c, &dc);

    int64_t want_bytes = 0;
    for (int d = 0; d < 3; ++d)
        for (int dir = 0; dir < 2; ++dir)
            if (dims[d] > 1)
                want_bytes += (int64_t)sizeof(rec) * n_of(dc.cart.rank, d, dir);
    if (bytes != want_bytes) {
        printf("FAIL rank %d: %lld bytes reported, %lld sent\n", dc.cart.rank,
               (long long)bytes, (long long)want_bytes);
        c.failures++;
    }
    const int failed = vs_par_any(&world, c.failures > 0);
    if (world.rank == 0)
        printf("%s: staged exchange on %d ranks (%d x %d x %d)\n", failed ? "FAIL" : "ok",
               world.size, dims[0], dims[1], dims[2]);
    vs_decomp_destroy(&dc);
    vs_par_finalize();
    return failed ? 1 : 0;
}
