/* The slab exchange (gpu_slab.cu): its part of the GPU state and what the rest of the backend
 * calls. */
#ifndef VESICA_GPU_SLAB_CUH
#define VESICA_GPU_SLAB_CUH

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "gpu_backend.h"

/* The slab path (gpu_slab.cu): slabs of bricks over the peer transport, rebuilt on every
 * step, with no read-back in the step. The numbers of the step (leavers, arrivals, owned
 * particles, images, ghosts) stay on the device, where the kernels read them; the host sizes
 * grids and reservations by bounds made from the last step's numbers, which come back in a
 * slot the ghost unpack writes into mapped host memory, read at the next step's start (by
 * then long done), so the host runs ahead of the device. A count past its bound is found
 * there and is fatal. */
enum { VS_SLAB_PARTS = 8, VS_SLAB_TAIL_WORDS = 16, VS_SLAB_DEVICE_MARKS = 7 };
struct vs_gpu_slab {
    int on;                      /* decided once, the same on every rank (vs_gpu_slab_decide) */
    int64_t most_above;          /* particles per rank above which it is off
                                    (VESICA_GPU_SLAB_ABOVE, no limit by default; 0 turns it
                                    off, as the tests do to compare) */
    int64_t margin;              /* VESICA_GPU_SLAB_MARGIN (-1: unset): the bounds' margin over
                                    1.5 times the last step's numbers (else 1024 plus 1/128 of
                                    the owned particles); the tests' 0 makes one overflow */
    int64_t send_bound[2];       /* leavers sent down (0) and up (1), at most */
    int64_t arrive_bound[2];     /* arrivals from above (0) and below (1), at most */
    int64_t local_bound;         /* this step's local images, at most */
    int64_t out_bound[2];        /* ghost records sent down (0) and up (1), at most */
    int64_t in_bound[2];         /* ghost records received from above (0) and below (1) */
    int64_t in_last;             /* the last build's in_bound sum: the next reservation's guess */
    /* the last step's numbers, the bounds' base (lag_valid: read from a slot, or counted) */
    int lag_valid;
    int64_t lag_leavers[2], lag_local, lag_sent[2];
    int outside_pending;         /* the next slot brings the arrival check of the migration of
                                    outside_step */
    int64_t outside_step;
    unsigned long long *d_chunks; /* the pack's and the fill's chunks spread over blocks
                                    (VS_SLAB_CHUNKS each): a chunk's number, below the
                                    exchange's in the high word (gpu_slab.cu) */
    unsigned *d_ticket;          /* the spread pack's blocks done (the last one resets it) */
    int sms;                     /* the device's multiprocessors: the spread pack's most blocks */
    int64_t pack_blocks_above;   /* the last step's leavers above which the pack is spread
                                    (one block's round; VESICA_GPU_SLAB_PACK_BLOCKS_ABOVE, the
                                    tests' -1: always) */
    int32_t *d_ctr;              /* the image pass's counters (local, sent down, up, overflow,
                                    (unused), an arrival or leaver past its bound), cleared
                                    by the ghost unpack */
    int32_t *d_stay;             /* the stayers' number (the pack's), then the owned
                                    particles' (the image pass's; pt.d_owned) and the listed
                                    ones' (the ghost unpack's; d_listed) */
    int32_t *d_listed;
    int32_t *d_tail;             /* h_slot's device address, where the ghost unpack writes */
    int32_t *h_slot;             /* mapped pinned: what the slot brings back (VS_TAIL_*) */
    cudaEvent_t ev_slot;         /* after the ghost unpack that writes it */
    int slot_queued;             /* a slot written (or to be) and not read yet */
    /* the arrivals, unpacked by the image pass: records at in[y], the sender's header (its
     * numbers) at in_header[y] */
    const char *in[2], *in_header[2];
    int migrated;                /* a migration came before the next build */
    int timed;                   /* VESICA_GPU_SLAB_TIMES=1: host and device time per part
                                    (gpu_slab.cu), printed by every rank */
    int rank;
    int64_t steps, device_steps;
    double host_s[VS_SLAB_PARTS];
    cudaEvent_t dev_ev[VS_SLAB_DEVICE_MARKS]; /* the device's marks of the step's parts */
    int dev_marked;              /* the marks of the last build are recorded */
    double device_s[VS_SLAB_DEVICE_MARKS - 1];
};

/* The slab path (gpu_slab.cu): its buffers (at create, destroy); whether this run takes it
 * (at vs_gpu_set_comm, the same answer on every rank); its migration along the split
 * dimension and its ghost build. */
void vs_gpu_slab_init(vs_gpu_state *g);
void vs_gpu_slab_free(vs_gpu_state *g);
void vs_gpu_slab_decide(vs_gpu_state *g);
void vs_gpu_slab_migrate(vs_gpu_state *g, int d);
void vs_gpu_slab_build_ghosts(vs_gpu_state *g, int d);
/* The leavers of dimension d in index order (the holes) into the sort's index buffer, their
 * number into d_select_count[2]; with `split`, also split by face into the send lists, their
 * numbers into d_select_count[0..1] (gpu_halo.cu). */
void vs_gpu_select_leavers(vs_gpu_state *g, int d, int split);
/* Room for the slab path's ghost records (a header and `bytes`), exported to the peers
 * (gpu_transport.cu); waits for the peers' reads first. */
void vs_gpu_ghost_send_reserve(vs_gpu_state *g, size_t bytes);
/* The slab path's signal that this rank packed `buffer` (0: d_send, 1: d_ghost_send) along d
 * (gpu_transport.cu): the exchange's number, to be stored into each receiving neighbour's
 * word (word[dir], mapped here) by the kernel that finishes the packing, after a system-scope
 * fence (vs_slab_raise). The numbers go up by one per exchange on every rank alike. The
 * first call maps the neighbours' words (a message with each). */
struct vs_slab_signal {
    uint32_t *word[2];
    uint32_t seq;
};
vs_slab_signal vs_gpu_slab_signal(vs_gpu_state *g, int d, int buffer);
/* In the packing kernel, once its records are written: every thread fences its writes, then
 * one thread raises the signal. All of the block's threads call it. */
static __device__ __forceinline__ void vs_slab_raise(const vs_slab_signal &s)
{
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) {
        *(volatile uint32_t *)s.word[0] = s.seq;
        *(volatile uint32_t *)s.word[1] = s.seq;
    }
}
/* The slab path's message with each neighbour along d (gpu_transport.cu), sent after this
 * rank queued the packing of `buffer`: per direction a number and the byte offset of its
 * records; returns the neighbours' numbers and where their records are, mapped here
 * (in_base: their buffer's start). vs_gpu_slab_wait then makes the stream wait for the
 * neighbours' signals (in_n: the numbers the message returned); work queued between the
 * two fills that wait. */
void vs_gpu_slab_message(vs_gpu_state *g, int d, int buffer, const int64_t out_n[2],
                         const uint64_t out_offset[2], int64_t in_n[2], const char *in_base[2],
                         const char *in_records[2]);
void vs_gpu_slab_wait(vs_gpu_state *g, int d, int buffer, const int64_t in_n[2]);
/* The image path's faces and the slab path's image kernels (gpu_images.cu): the image counts
 * of the owned particles before the migration into d_select_count[4..6] (the bounds' base
 * where no last step gives one); the arrivals unpacked after the stayers (their numbers in
 * the senders' headers, slab.in_header, at most slab.arrive_bound) and the images of every
 * owned particle counted on the device (local ones into the ghost slots, sent ones into the
 * ghost send buffer's regions), the owned particles' number to slab.d_stay[1], then the
 * header and the signal raised. */
void vs_gpu_slab_count_images(vs_gpu_state *g, int remote);
void vs_gpu_slab_write_images(vs_gpu_state *g, int remote, size_t header,
                              const vs_slab_signal &signal);
/* The owned particles binned into the cell list's counts, where the image pass cleared them
 * (gpu_cells.cu): queued before the wait for the neighbours' ghost records, it fills that
 * wait, and the binning then takes the ghosts only. */
void vs_gpu_bin_owned(vs_gpu_state *g);
/* Per-particle most images: local ones, and sent ones in one direction. */
void vs_gpu_slab_most_images(const vs_gpu_state *g, int remote, int64_t *local, int64_t *sent);

#endif
