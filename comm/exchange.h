/* The staged exchange: one driver for every ghost and migration exchange, host and device.
 *
 * Stage d (x, then y, then z) sends towards the lower neighbour (direction 0) and the upper
 * one (direction 1). A message that crosses the periodic boundary carries coordinate d
 * shifted by the box, so the receiver sees a periodic image; a dimension with one rank
 * exchanges with itself (no MPI) and its ghosts are its own periodic images. Because stage y
 * forwards what stage x delivered, and stage z what x and y delivered, 6 messages (plus 6
 * counts on rebuild steps) reach all 26 neighbours; the price is that the stages run one
 * after the other, and an edge or corner particle travels two or three hops.
 *
 * The driver (vs_exchange_run) owns everything the exchange kinds share: the stage order, the
 * shift of each stage and direction, which neighbour each direction talks to, the count
 * messages, the message tags, the byte accounting and the self-exchange of a dimension with
 * one rank. What depends on where the data lives and what travels is an operations table
 * (vs_exchange_ops) over an opaque context: select, pack, receive buffer, unpack, and
 * optionally the transport. The CPU backend's three exchanges (comm/halo.c: migration, ghost
 * build, ghost update) are three such tables over host arrays; a device backend supplies
 * tables whose operations launch kernels on device buffers and whose transport is its own
 * (peer copies, CUDA-aware or staged MPI). The driver touches records only as bytes.
 *
 * Walls (vs_decomp.wall): nothing crosses the face of the box along a wall axis. After select
 * the driver zeroes the count a brick at a wall sends through it and the count the brick at
 * the far end (its neighbour on the rank ring) expects from beyond it, and gives no periodic
 * shift there; both still exchange (empty) messages, so a kind and its transport need no
 * change of their own. A migrant can never be selected through a wall: the integrators
 * reflect every particle back inside first (src/core/wrap.h).
 *
 * Order of one stage d:
 *   select     both directions, before anything of this stage arrives
 *   counts     dir 0 and 1 (unless counts are known or the dimension has one rank)
 *   reserve    both counts known: room for what goes and what comes (optional)
 *   pack       dir 0, then dir 1 (each into its own part of the send buffer)
 *   records    dir 0 and 1 moved as one stage (or self: unpack the packed records directly)
 *   unpack     dir 0, then dir 1
 * Direction 0 sends to the lower neighbour and receives from the upper one; direction 1 the
 * reverse, so what a rank receives in direction dir left its neighbour in direction dir.
 * Both directions are packed before either travels, so a device backend moves a stage's
 * records in one batch (one synchronisation, or peer copies queued together).
 */
#ifndef VESICA_EXCHANGE_H
#define VESICA_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "decomp.h"

/* shift[d][dir]: what stage d adds to coordinate d of the records it sends in direction dir
 * (0: towards the lower neighbour, +L from the bottom brick; 1: towards the upper one, -L
 * from the top brick; 0 elsewhere). */
void vs_exchange_shifts(const vs_decomp *dc, double shift[3][2]);

/* One message pair, as the driver hands it to a transport: send `send_bytes` to `dest` and
 * receive exactly `recv_bytes` from `source` (ranks of dc->cart), under `tag`. A stage's
 * transport gets two of them, directions 0 and 1. */
typedef struct {
    int d, dir;            /* stage and direction */
    int dest, source;      /* the lower / upper neighbour, as the direction says */
    int tag;
    int host;              /* 1: both buffers are host memory (the counts); 0: the buffers
                            * that pack and recv_buffer returned (the records) */
    const void *send;
    size_t send_bytes;
    void *recv;
    size_t recv_bytes;     /* the size the receiver expects */
} vs_exchange_msg;

/* What an exchange kind supplies. `ctx` is passed unchanged to every operation. Pointers to
 * records (pack's result, recv_buffer's, unpack's input) are the kind's own memory: host or
 * device, the driver never dereferences them. */
typedef struct {
    const char *name;   /* first word of the driver's error messages ("halo") */
    size_t rec_bytes;   /* bytes per record */
    int counts_known;   /* 1: select also gives n_recv (send lists reused): no count messages */
    /* Stage d begins: choose what goes in each direction (n_send[dir] records; may build and
     * keep send lists, or take the records out of the particle arrays). When counts_known,
     * also give n_recv[dir]; else n_recv is filled by the driver. */
    void (*select)(void *ctx, int d, int64_t n_send[2], int64_t n_recv[2]);
    /* Optional (NULL: none). Both counts of stage d are known (on a self-exchange n_recv is
     * n_send): make room for them before anything is packed or received. */
    void (*reserve)(void *ctx, int d, const int64_t n_send[2], const int64_t n_recv[2]);
    /* Pack the n records of direction dir, adding `shift` to coordinate d (the periodic
     * image; migration wraps instead). Returns the packed records (n * rec_bytes bytes),
     * valid until the stage's unpacks have returned; direction 1's must not overwrite
     * direction 0's. On a self-exchange a kind may pack nothing and return NULL when its
     * unpack reads the particles directly (its own send lists). */
    const void *(*pack)(void *ctx, int d, int dir, double shift, int64_t n);
    /* A buffer for n incoming records of direction dir (not called on a self-exchange);
     * both directions' buffers are asked for before either is filled. */
    void *(*recv_buffer)(void *ctx, int d, int dir, int64_t n);
    /* Store the n records received in direction dir (ghost slots, or appended owned
     * particles). On a self-exchange `recs` is pack's result. */
    void (*unpack)(void *ctx, int d, int dir, const void *recs, int64_t n);
    /* Move the stage's two message pairs msg[0] (direction 0) and msg[1], both counts
     * (host = 1) or both records, and store the bytes received of each in got[dir]; NULL:
     * host MPI through vs_par_sendrecv on dc->cart, one pair after the other. Never called
     * on a self-exchange. */
    void (*exchange)(void *ctx, const vs_decomp *dc, const vs_exchange_msg msg[2],
                     size_t got[2]);
} vs_exchange_ops;

/* The default transport: a stage's two message pairs by host MPI (vs_par_sendrecv on
 * dc->cart), direction 0 first; for a kind's own transport to fall back on (the counts). */
void vs_exchange_host_mpi(const vs_decomp *dc, const vs_exchange_msg msg[2], size_t got[2]);

/* Run the three stages of one exchange. Returns the record bytes this rank sent to other
 * ranks (self-exchanges are copies, not traffic; counts are not included). Exits with a
 * fatal error naming the stage when a neighbour's records are not the size it announced. */
int64_t vs_exchange_run(const vs_exchange_ops *ops, void *ctx, const vs_decomp *dc);

#endif
