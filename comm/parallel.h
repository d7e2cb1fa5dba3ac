/* The MPI layer: the only place Vesica calls MPI.
 *
 * Every other module talks to its communicator through these wrappers, so the engine can run
 * on MPI_COMM_WORLD, on a sub-communicator, or on MPI_COMM_SELF (the multi-rank tests compare
 * a decomposed run with a one-rank run inside the same program). Reductions used for thermo
 * are deterministic for a fixed rank count (MPI_Allreduce on a fixed tree), not across rank
 * counts: thermo agrees across rank counts to round-off, not bit for bit.
 */
#ifndef VESICA_PARALLEL_H
#define VESICA_PARALLEL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    MPI_Comm comm; /* the communicator the engine runs on (a Cartesian one after decomposition) */
    /* The same ranks in the same order without a process topology, for every file opened
     * through MPI-IO: Open MPI's default MPI-IO (ompio, fcoll vulcan) groups its aggregators
     * by the Cartesian topology and then loses rows of collective writes (open-mpi/ompi#12718;
     * docs/file-formats.md). Equal to comm when comm has no topology. */
    MPI_Comm io_comm;
    int rank, size;
} vs_par;

void vs_par_init(int *argc, char ***argv);
void vs_par_finalize(void);
void vs_par_from_comm(vs_par *par, MPI_Comm comm);
int vs_par_world_rank(void);

void vs_par_sum_double(const vs_par *par, double *values, int n);
void vs_par_sum_int64(const vs_par *par, int64_t *values, int n);
void vs_par_sum_uint64(const vs_par *par, uint64_t *values, int n);
double vs_par_max_double(const vs_par *par, double value);
int64_t vs_par_max_int64(const vs_par *par, int64_t value);
double vs_par_min_double(const vs_par *par, double value);
/* Maximum over ranks and the lowest rank that holds it. */
double vs_par_maxloc_double(const vs_par *par, double value, int *rank);
/* Logical OR of a flag over ranks: every rank gets the same verdict. */
int vs_par_any(const vs_par *par, int flag);
void vs_par_bcast_bytes(const vs_par *par, void *buf, size_t bytes, int root);
void vs_par_barrier(const vs_par *par);
double vs_par_wtime(void);

/* Exchange with two peers at once: send `send_bytes` to `dest`, receive up to `recv_cap`
 * bytes from `source`; returns the bytes received. A peer equal to this rank is a memcpy. */
size_t vs_par_sendrecv(const vs_par *par, const void *send, size_t send_bytes, int dest,
                       void *recv, size_t recv_cap, int source, int tag);

/* Gather variable-length int64 arrays to `root` (recv is only read on root; counts and
 * displacements are filled there). */
void vs_par_gather_int64(const vs_par *par, const int64_t *send, int send_count,
                         int64_t *recv, int *counts, int *displs, int root);
void vs_par_gather_double(const vs_par *par, const double *send, int send_count, double *recv,
                          const int *counts, const int *displs, int root);
void vs_par_gather_int(const vs_par *par, int value, int *recv, int root);

/* All-to-all of fixed-size records: send_counts[r] records of `rec_bytes` bytes go to rank r
 * (send is grouped by destination, rank 0 first). Returns a malloc'd array of the records
 * received, grouped by source rank, and their number in *n_recv. Collective. */
void *vs_par_alltoallv_records(const vs_par *par, const void *send, const int64_t *send_counts,
                               size_t rec_bytes, int64_t *n_recv);
/* Exchange with a set of peers whose message sizes both sides know: send_bytes[k] bytes from
 * send[k] to peers[k], recv_bytes[k] bytes from peers[k] into recv[k], all at once (a rank
 * that is its own peer is refused: the caller copies). The peers pair up: each lists the
 * other. Collective over the peers only. */
void vs_par_peer_exchange(const vs_par *par, int n_peers, const int *peers,
                          const void *const *send, const size_t *send_bytes,
                          void *const *recv, const size_t *recv_bytes, int tag);
/* Exclusive prefix sum of `value` over ranks (0 on rank 0). */
int64_t vs_par_exscan_int64(const vs_par *par, int64_t value);
/* Write a new file `path` (created or truncated) through MPI-IO: each rank writes its n_chunks
 * pieces, piece k of lens[k] bytes at byte offsets[k] (every rank the same n_chunks; lens may
 * be 0), then the file is synced and closed. Returns 0, or -1 with one line in err (the same
 * on every rank). Collective. */
int vs_par_write_file_at(const vs_par *par, const char *path, int n_chunks,
                         const char *const *bufs, const int64_t *lens, const int64_t *offsets,
                         char *err, size_t err_len);
/* Collective error agreement: returns non-zero on every rank when any rank has `failed`;
 * then `err` on every rank holds the message of the lowest failing rank. */
int vs_par_agree_error(const vs_par *par, int failed, char *err, size_t err_len);

/* Cartesian topology: periodic in all three dimensions. */
void vs_par_cart_create(vs_par *cart, const vs_par *par, const int dims[3]);
void vs_par_cart_coords(const vs_par *cart, int coords[3]);
/* Rank of the brick with coordinates `coords`. */
int vs_par_cart_rank(const vs_par *cart, const int coords[3]);
void vs_par_cart_shift(const vs_par *cart, int dim, int *lower, int *upper);
void vs_par_free(vs_par *par);

/* Node layout: this rank's index among the ranks of its node (processes that share memory,
 * MPI_COMM_TYPE_SHARED; SLURM_LOCALID or OMPI_COMM_WORLD_LOCAL_RANK when the split is not
 * available), the node's rank count, and for every rank of `par` an id of its node (the
 * lowest world rank there), so callers can tell which peers share a node. node_of may be
 * NULL. Collective. */
void vs_par_node_layout(const vs_par *par, int *local_rank, int *local_size, int *node_of);
/* Every rank's `bytes` bytes, in rank order, on every rank. */
void vs_par_allgather_bytes(const vs_par *par, const void *send, size_t bytes, void *recv);
/* Every rank's n records of `rec_bytes` bytes, in rank order, on every rank: a malloc'd array
 * and its length in *n_total. Collective. */
void *vs_par_allgatherv_records(const vs_par *par, const void *send, int64_t n,
                                size_t rec_bytes, int64_t *n_total);
/* Every rank's counts[r] bytes at displs[r] of recv, on every rank (this rank sends
 * counts[rank] bytes from send): the sizes known beforehand, so nothing is allocated. */
void vs_par_allgatherv_bytes(const vs_par *par, const void *send, const int *counts,
                             const int *displs, void *recv);
/* 1 when the MPI library says it takes device pointers (MPIX_Query_cuda_support), else 0. */
int vs_par_cuda_aware(void);

/* MPI library identification for `vesica info`. */
void vs_par_library_version(char *buf, size_t len);

#endif
