/* The slab exchange (gpu_slab.cu): its part of the GPU state and what the rest of the backend
 * calls. */
#ifndef VESICA_GPU_SLAB_CUH
#define VESICA_GPU_SLAB_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpu_backend.h"

/* The slab path (gpu_slab.cu): slabs of small bricks over the peer transport, rebuilt on every
 * step, with one read-back per step. The migration's read-back brings bounds on this step's
 * images (every image the owned particles have before the migration, plus the most an
 * arrival can bring), so that the ghost build reserves room without reading its counts:
 * the image pass counts them on the device, the neighbours read the counts and records out
 * of this rank's buffer, and the ghosts' number stays on the device (d_ghosts). */
enum { VS_SLAB_PARTS = 9 };
struct vs_gpu_slab {
    int on;                      /* decided once, the same on every rank (vs_gpu_slab_decide) */
    int64_t most_above;          /* particles per rank above which it is off: its image pass over
                                    every owned particle and the bounds' count cost more than they
                                    save there (VESICA_GPU_SLAB_ABOVE, 2^21) */
    int64_t local_bound;         /* this step's local images, at most */
    int64_t out_bound[2];        /* records sent down (0) and up (1), at most */
    int64_t in_bound[2];         /* records received from above (0) and below (1), at most */
    int64_t in_last;             /* the last build's in_bound sum: the next reservation's guess */
    int32_t h_flags[4];          /* the last build's header (sent counts, local images,
                                    overflow flag: a count passed its bound) */
    int flags_pending;           /* the next read-back brings h_flags */
    int outside_pending;         /* the next read-back brings the arrival check of the
                                    migration of outside_step */
    int64_t outside_step;
    int32_t *d_ctr;              /* the image pass's counters (local, sent down, up, overflow,
                                    blocks done), cleared by the ghost unpack */
    int64_t arrivals;            /* arrivals the image pass unpacks (the migration leaves them
                                    where no reorder follows): n_in[2] records at in[2] */
    int64_t n_in[2];
    const char *in[2];
    int timed;                   /* VESICA_GPU_SLAB_TIMES=1: host time per part (gpu_slab.cu),
                                    printed by every rank */
    int rank;
    int64_t steps;
    double host_s[VS_SLAB_PARTS];
};

/* The slab path (gpu_slab.cu): its buffers (at create, destroy); whether this run takes it
 * (at vs_gpu_set_comm, the same answer on every rank); its migration along the split
 * dimension and its ghost build. */
void vs_gpu_slab_init(vs_gpu_state *g);
void vs_gpu_slab_free(vs_gpu_state *g);
void vs_gpu_slab_decide(vs_gpu_state *g);
void vs_gpu_slab_migrate(vs_gpu_state *g, int d);
void vs_gpu_slab_build_ghosts(vs_gpu_state *g, int d);
/* The leavers of dimension d in index order (the holes) into the sort's index buffer, split
 * by face into the send lists; counts into d_select_count[0..2] (gpu_halo.cu). */
void vs_gpu_select_leavers(vs_gpu_state *g, int d);
/* Room for the slab path's ghost records (a header and `bytes`), exported to the peers
 * (gpu_transport.cu); waits for the peers' reads first. */
void vs_gpu_ghost_send_reserve(vs_gpu_state *g, size_t bytes);
/* The slab path's message with each neighbour along d (gpu_transport.cu), sent after this
 * rank packed `buffer` (0: d_send, 1: d_ghost_send): per direction a number and the byte
 * offset of its records; returns the neighbours' numbers and where their records are,
 * mapped here (in_base: their buffer's start), with the stream waiting for their packing.
 * Each message also tells the receiver that every read of its buffers this rank queued so
 * far is behind this rank's `read` event. */
void vs_gpu_slab_message(vs_gpu_state *g, int d, int buffer, const int64_t out_n[2],
                         const uint64_t out_offset[2], int64_t in_n[2], const char *in_base[2],
                         const char *in_records[2]);
/* This rank's reads of its peers' buffers queued so far are behind its `read` event. */
void vs_gpu_slab_read_done(vs_gpu_state *g);
/* The image path's faces and the slab path's image kernels (gpu_images.cu): the bounds'
 * counts of the owned particles before the migration into d_select_count[4..6]; the images
 * of every owned particle counted on the device (local ones into the ghost slots, sent ones
 * into the ghost send buffer's regions), the arrivals from n_stay on unpacked in the same
 * pass (n_in[2] records at in[2]). */
void vs_gpu_slab_count_images(vs_gpu_state *g, int remote);
void vs_gpu_slab_write_images(vs_gpu_state *g, int remote, size_t header, int64_t n_stay,
                              const int64_t n_in[2], const char *const in[2]);
/* Per-particle most images: local ones, and sent ones in one direction. */
void vs_gpu_slab_most_images(const vs_gpu_state *g, int remote, int64_t *local, int64_t *sent);

#endif
