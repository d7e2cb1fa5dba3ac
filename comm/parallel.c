/* MPI wrappers: see parallel.h. Every call is checked; a failing MPI call is a fatal fault
 * (MPI's default handler would abort anyway, but without saying where). */
#include "parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

#include <stdlib.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Query_cuda_support */
#endif

#define VS_MPI_CHECK(call)                                                                     \
    do {                                                                                       \
        int vs_mpi_rc_ = (call);                                                               \
        if (vs_mpi_rc_ != MPI_SUCCESS) {                                                       \
            char vs_msg_[MPI_MAX_ERROR_STRING];                                                \
            int vs_len_ = 0;                                                                   \
            MPI_Error_string(vs_mpi_rc_, vs_msg_, &vs_len_);                                   \
            VS_FATAL("%s failed: %s", #call, vs_msg_);                                         \
        }                                                                                      \
    } while (0)

void vs_par_init(int *argc, char ***argv)
{
    VS_MPI_CHECK(MPI_Init(argc, argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    vs_log_set_rank(vs_par_world_rank());
}

void vs_par_finalize(void) { MPI_Finalize(); }

int vs_par_world_rank(void)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

void vs_par_from_comm(vs_par *par, MPI_Comm comm)
{
    par->comm = comm;
    par->io_comm = comm;
    int topo = MPI_UNDEFINED;
    VS_MPI_CHECK(MPI_Topo_test(comm, &topo));
    if (topo != MPI_UNDEFINED) { /* a split keeps the ranks and drops the topology */
        int rank = 0;
        VS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
        VS_MPI_CHECK(MPI_Comm_split(comm, 0, rank, &par->io_comm));
        MPI_Comm_set_errhandler(par->io_comm, MPI_ERRORS_RETURN);
    }
    VS_MPI_CHECK(MPI_Comm_rank(comm, &par->rank));
    VS_MPI_CHECK(MPI_Comm_size(comm, &par->size));
}

void vs_par_sum_double(const vs_par *par, double *values, int n)
{
    VS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, par->comm));
}

void vs_par_sum_int64(const vs_par *par, int64_t *values, int n)
{
    VS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_INT64_T, MPI_SUM, par->comm));
}

void vs_par_sum_uint64(const vs_par *par, uint64_t *values, int n)
{
    VS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_UINT64_T, MPI_SUM, par->comm));
}

double vs_par_max_double(const vs_par *par, double value)
{
    VS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, par->comm));
    return value;
}

int64_t vs_par_max_int64(const vs_par *par, int64_t value)
{
    VS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_MAX, par->comm));
    return value;
}

double vs_par_min_double(const vs_par *par, double value)
{
    VS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MIN, par->comm));
    return value;
}

double vs_par_maxloc_double(const vs_par *par, double value, int *rank)
{
    struct {
        double value;
        int rank;
    } in = {value, par->rank}, out;
    VS_MPI_CHECK(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, par->comm));
    *rank = out.rank;
    return out.value;
}

int vs_par_any(const vs_par *par, int flag)
{
    int v = flag ? 1 : 0;
    VS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, par->comm));
    return v;
}

void vs_par_bcast_bytes(const vs_par *par, void *buf, size_t bytes, int root)
{
    VS_MPI_CHECK(MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, par->comm));
}

void vs_par_barrier(const vs_par *par) { VS_MPI_CHECK(MPI_Barrier(par->comm)); }

double vs_par_wtime(void) { return MPI_Wtime(); }

size_t vs_par_sendrecv(const vs_par *par, const void *send, size_t send_bytes, int dest,
                       void *recv, size_t recv_cap, int source, int tag)
{
    if (dest == par->rank && source == par->rank) {
        if (send_bytes > recv_cap)
            VS_FATAL("self exchange of %zu bytes exceeds the %zu-byte receive buffer",
                     send_bytes, recv_cap);
        if (send_bytes)
            memcpy(recv, send, send_bytes);
        return send_bytes;
    }
    if (send_bytes > (size_t)INT32_MAX || recv_cap > (size_t)INT32_MAX)
        VS_FATAL("halo message over 2 GiB (%zu bytes); use more ranks", send_bytes);
    MPI_Status status;
    VS_MPI_CHECK(MPI_Sendrecv(send, (int)send_bytes, MPI_BYTE, dest, tag, recv, (int)recv_cap,
                              MPI_BYTE, source, tag, par->comm, &status));
    int count = 0;
    VS_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &count));
    return (size_t)count;
}

void vs_par_gather_int(const vs_par *par, int value, int *recv, int root)
{
    VS_MPI_CHECK(MPI_Gather(&value, 1, MPI_INT, recv, 1, MPI_INT, root, par->comm));
}

void vs_par_gather_int64(const vs_par *par, const int64_t *send, int send_count,
                         int64_t *recv, int *counts, int *displs, int root)
{
    vs_par_gather_int(par, send_count, counts, root);
    if (par->rank == root) {
        displs[0] = 0;
        for (int r = 1; r < par->size; ++r)
            displs[r] = displs[r - 1] + counts[r - 1];
    }
    VS_MPI_CHECK(MPI_Gatherv(send, send_count, MPI_INT64_T, recv, counts, displs, MPI_INT64_T,
                             root, par->comm));
}

void vs_par_gather_double(const vs_par *par, const double *send, int send_count, double *recv,
                          const int *counts, const int *displs, int root)
{
    VS_MPI_CHECK(MPI_Gatherv(send, send_count, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE,
                             root, par->comm));
}

void *vs_par_alltoallv_records(const vs_par *par, const void *send, const int64_t *send_counts,
                               size_t rec_bytes, int64_t *n_recv)
{
    const int p = par->size;
    int64_t *recv_counts = VS_MALLOC(sizeof(int64_t) * (size_t)p);
    VS_MPI_CHECK(MPI_Alltoall(send_counts, 1, MPI_INT64_T, recv_counts, 1, MPI_INT64_T,
                              par->comm));
    /* counts are in records of a contiguous type, so 2^31 records (not bytes) is the limit */
    int *sc = VS_MALLOC(sizeof(int) * (size_t)p * 4);
    int *sd = sc + p, *rc = sc + 2 * p, *rd = sc + 3 * p;
    int64_t s_off = 0, r_off = 0;
    for (int r = 0; r < p; ++r) {
        if (send_counts[r] > INT32_MAX || recv_counts[r] > INT32_MAX ||
            s_off > INT32_MAX || r_off > INT32_MAX)
            VS_FATAL("all-to-all of more than 2^31 records per rank; use more ranks");
        sc[r] = (int)send_counts[r];
        sd[r] = (int)s_off;
        rc[r] = (int)recv_counts[r];
        rd[r] = (int)r_off;
        s_off += send_counts[r];
        r_off += recv_counts[r];
    }
    void *recv = VS_MALLOC(rec_bytes * (size_t)(r_off > 0 ? r_off : 1));
    MPI_Datatype rec;
    VS_MPI_CHECK(MPI_Type_contiguous((int)rec_bytes, MPI_BYTE, &rec));
    VS_MPI_CHECK(MPI_Type_commit(&rec));
    VS_MPI_CHECK(MPI_Alltoallv(send, sc, sd, rec, recv, rc, rd, rec, par->comm));
    MPI_Type_free(&rec);
    free(sc);
    free(recv_counts);
    *n_recv = r_off;
    return recv;
}

void vs_par_peer_exchange(const vs_par *par, int n_peers, const int *peers,
                          const void *const *send, const size_t *send_bytes,
                          void *const *recv, const size_t *recv_bytes, int tag)
{
    MPI_Request *req = VS_MALLOC(sizeof(MPI_Request) * (size_t)(2 * n_peers + 1));
    for (int k = 0; k < n_peers; ++k) {
        if (peers[k] == par->rank || send_bytes[k] > INT32_MAX || recv_bytes[k] > INT32_MAX)
            VS_FATAL("peer exchange: a message to itself or of more than 2^31 bytes");
        VS_MPI_CHECK(MPI_Irecv(recv[k], (int)recv_bytes[k], MPI_BYTE, peers[k], tag,
                               par->comm, &req[k]));
    }
    for (int k = 0; k < n_peers; ++k)
        VS_MPI_CHECK(MPI_Isend(send[k], (int)send_bytes[k], MPI_BYTE, peers[k], tag, par->comm,
                               &req[n_peers + k]));
    VS_MPI_CHECK(MPI_Waitall(2 * n_peers, req, MPI_STATUSES_IGNORE));
    free(req);
}

int64_t vs_par_exscan_int64(const vs_par *par, int64_t value)
{
    int64_t out = 0;
    VS_MPI_CHECK(MPI_Exscan(&value, &out, 1, MPI_INT64_T, MPI_SUM, par->comm));
    return par->rank == 0 ? 0 : out; /* MPI leaves rank 0's result undefined */
}

int vs_par_write_file_at(const vs_par *par, const char *path, int n_chunks,
                         const char *const *bufs, const int64_t *lens, const int64_t *offsets,
                         char *err, size_t err_len)
{
    MPI_File fh;
    int rc = MPI_File_open(par->io_comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                           &fh);
    int failed = rc != MPI_SUCCESS;
    if (!failed)
        failed |= MPI_File_set_size(fh, 0) != MPI_SUCCESS;
    /* independent writes; pieces beyond an int's count go in blocks of 1 GiB */
    const int64_t block = 1 << 30;
    for (int k = 0; k < n_chunks && rc == MPI_SUCCESS; ++k)
        for (int64_t done = 0; done < lens[k];) {
            const int64_t len = lens[k] - done < block ? lens[k] - done : block;
            MPI_Status st;
            failed |= MPI_File_write_at(fh, (MPI_Offset)(offsets[k] + done), bufs[k] + done,
                                        (int)len, MPI_BYTE, &st) != MPI_SUCCESS;
            done += len;
        }
    if (rc == MPI_SUCCESS) {
        failed |= MPI_File_sync(fh) != MPI_SUCCESS;
        failed |= MPI_File_close(&fh) != MPI_SUCCESS;
    }
    if (failed)
        snprintf(err, err_len, "%s: cannot write (MPI-IO)", path);
    return vs_par_agree_error(par, failed, err, err_len) ? -1 : 0;
}

int vs_par_agree_error(const vs_par *par, int failed, char *err, size_t err_len)
{
    int first = failed ? par->rank : par->size;
    VS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, par->comm));
    if (first == par->size)
        return 0;
    VS_MPI_CHECK(MPI_Bcast(err, (int)err_len, MPI_CHAR, first, par->comm));
    return 1;
}

void vs_par_cart_create(vs_par *cart, const vs_par *par, const int dims[3])
{
    int periods[3] = {1, 1, 1};
    int d[3] = {dims[0], dims[1], dims[2]};
    MPI_Comm comm;
    /* reorder = 0: rank numbers stay those of `par`, so logs and tests can name ranks. */
    VS_MPI_CHECK(MPI_Cart_create(par->comm, 3, d, periods, 0, &comm));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    vs_par_from_comm(cart, comm);
}

void vs_par_cart_coords(const vs_par *cart, int coords[3])
{
    VS_MPI_CHECK(MPI_Cart_coords(cart->comm, cart->rank, 3, coords));
}

int vs_par_cart_rank(const vs_par *cart, const int coords[3])
{
    int rank = 0;
    VS_MPI_CHECK(MPI_Cart_rank(cart->comm, coords, &rank));
    return rank;
}

void vs_par_cart_shift(const vs_par *cart, int dim, int *lower, int *upper)
{
    VS_MPI_CHECK(MPI_Cart_shift(cart->comm, dim, 1, lower, upper));
}

void vs_par_free(vs_par *par)
{
    if (par->io_comm != par->comm && par->io_comm != MPI_COMM_NULL)
        MPI_Comm_free(&par->io_comm);
    par->io_comm = MPI_COMM_NULL;
    if (par->comm != MPI_COMM_NULL && par->comm != MPI_COMM_WORLD &&
        par->comm != MPI_COMM_SELF)
        MPI_Comm_free(&par->comm);
    par->comm = MPI_COMM_NULL;
}

void vs_par_library_version(char *buf, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(v, &n);
    /* keep the first line only */
    char *nl = strchr(v, '\n');
    if (nl)
        *nl = '\0';
    snprintf(buf, len, "%s", v);
}

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

void vs_par_node_layout(const vs_par *par, int *local_rank, int *local_size, int *node_of)
{
    int world = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm node = MPI_COMM_NULL;
    int leader = world;
    if (MPI_Comm_split_type(par->comm, MPI_COMM_TYPE_SHARED, par->rank, MPI_INFO_NULL, &node) ==
            MPI_SUCCESS &&
        node != MPI_COMM_NULL) {
        VS_MPI_CHECK(MPI_Comm_rank(node, local_rank));
        VS_MPI_CHECK(MPI_Comm_size(node, local_size));
        VS_MPI_CHECK(MPI_Allreduce(&world, &leader, 1, MPI_INT, MPI_MIN, node));
        MPI_Comm_free(&node);
    } else {
        /* the launcher's own numbering; each rank then counts as its own node for peers */
        *local_rank = env_int("SLURM_LOCALID", env_int("OMPI_COMM_WORLD_LOCAL_RANK", 0));
        *local_size = env_int("SLURM_NTASKS_PER_NODE",
                              env_int("OMPI_COMM_WORLD_LOCAL_SIZE", *local_rank + 1));
    }
    if (node_of)
        VS_MPI_CHECK(MPI_Allgather(&leader, 1, MPI_INT, node_of, 1, MPI_INT, par->comm));
}

void vs_par_allgather_bytes(const vs_par *par, const void *send, size_t bytes, void *recv)
{
    VS_MPI_CHECK(MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE,
                               par->comm));
}

void *vs_par_allgatherv_records(const vs_par *par, const void *send, int64_t n,
                                size_t rec_bytes, int64_t *n_total)
{
    const int p = par->size;
    int64_t *counts = VS_MALLOC(sizeof(int64_t) * (size_t)p);
    VS_MPI_CHECK(MPI_Allgather(&n, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, par->comm));
    /* counts are in records of a contiguous type, so 2^31 records (not bytes) is the limit */
    int *rc = VS_MALLOC(sizeof(int) * (size_t)p * 2);
    int *rd = rc + p;
    int64_t off = 0;
    for (int r = 0; r < p; ++r) {
        if (counts[r] > INT32_MAX || off > INT32_MAX)
            VS_FATAL("all-gather of more than 2^31 records");
        rc[r] = (int)counts[r];
        rd[r] = (int)off;
        off += counts[r];
    }
    void *recv = VS_MALLOC(rec_bytes * (size_t)(off > 0 ? off : 1));
    MPI_Datatype rec;
    VS_MPI_CHECK(MPI_Type_contiguous((int)rec_bytes, MPI_BYTE, &rec));
    VS_MPI_CHECK(MPI_Type_commit(&rec));
    VS_MPI_CHECK(MPI_Allgatherv(send, (int)n, rec, recv, rc, rd, rec, par->comm));
    MPI_Type_free(&rec);
    free(rc);
    free(counts);
    *n_total = off;
    return recv;
}

int vs_par_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support();
#else
    return 0;
#endif
}

void vs_par_allgatherv_bytes(const vs_par *par, const void *send, const int *counts,
                             const int *displs, void *recv)
{
    VS_MPI_CHECK(MPI_Allgatherv(send, counts[par->rank], MPI_BYTE, recv, counts, displs,
                                MPI_BYTE, par->comm));
}
