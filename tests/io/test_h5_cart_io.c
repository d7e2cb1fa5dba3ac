/* Collective HDF5 writes over the engine's Cartesian communicator keep every row.
 *
 * Open MPI's default MPI-IO (ompio with fcoll vulcan, Open MPI 4.1 and 5.0) groups its
 * aggregators by the process topology when a file is opened on a Cartesian communicator, and
 * then loses rows of collective writes now and then (zeros, or the previous write's data):
 * open-mpi/ompi#12718. So the I/O layer opens files on vs_par.io_comm, the ranks of the
 * decomposition without its topology (comm/parallel.h; docs/file-formats.md has the
 * failure as it was traced).
 *
 * Run under mpiexec -n P (P >= 2; 4 in CTest). For each brick layout of P ranks (for 4:
 * 2x1x2, 4x1x1 and 2x2x1, each of which loses rows on a Cartesian communicator; else
 * MPI_Dims_create's) and REPS files,
 * through the same helpers as io/h5md.c (vs_h5_fapl, vs_h5_create, vs_h5_write_rows):
 *   id    int64, N rows in one chunk, each rank its contiguous slab (as particles/all/id);
 *   image int32, N x 3 in one chunk, each rank its slab (as a trajectory frame);
 *   bonds int64, M x 2 in one chunk, all rows on rank 0, the others with none (as the
 *         connectivity when every chain sits in rank 0's tag slab);
 *   mol   int64, N rows, slabs of uneven size and rank 1 with none.
 * Rank 0 then reads each file back with HDF5's serial driver (no MPI-IO) and checks every
 * value. The io communicator, and the one vs_h5_fapl gives HDF5, must have no topology and
 * the same ranks in the same order (a check that does not depend on timing): the loss itself
 * depends on which aggregator writes last, so the read-back alone fails only in some runs.
 * Exit 0 on success, 1 on failure (the verdict agreed over ranks).
 * Argument: a directory for the files (created; the files are removed when all is well).
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "h5util.h"
#include "parallel.h"

enum { N = 844, M = 128, REPS = 40, N_SETS = 4 };

static const char *const NAMES[N_SETS] = {"id", "image", "bonds", "mol"};
static const int COLS[N_SETS] = {1, 3, 2, 1};

/* Rows of dataset k: total and this rank's [lo, lo + n). */
static void rows_of(int k, int rank, int size, int64_t *total, int64_t *lo, int64_t *n)
{
    if (k == 2) {
        *total = M;
        *lo = 0;
        *n = rank == 0 ? M : 0;
        return;
    }
    *total = N;
    if (k == 3) { /* uneven: weights 1, 0, 2, 1, 2, 0, ... (rank 1 none) */
        int64_t w_before = 0, w_all = 0;
        for (int r = 0; r < size; ++r) {
            const int w = r == 1 ? 0 : 1 + r % 2;
            if (r < rank)
                w_before += w;
            w_all += w;
        }
        const int w_me = rank == 1 ? 0 : 1 + rank % 2;
        *lo = N * w_before / w_all;
        *n = N * (w_before + w_me) / w_all - *lo;
        return;
    }
    *lo = (int64_t)N * rank / size;
    *n = (int64_t)N * (rank + 1) / size - *lo;
}

/* The value of element (row, col) of dataset k in file `file`. */
static int64_t expected(int k, int file, int64_t row, int col)
{
    return ((int64_t)file * 10 + k) * 1000000 + row * 4 + col + 1;
}

static int write_file(const vs_par *cart, const char *path, int file)
{
    hid_t fapl = vs_h5_fapl(cart);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0)
        return -1;
    hid_t d[N_SETS];
    int rc = 0;
    for (int k = 0; k < N_SETS; ++k) { /* every dataset first, as h5md.c does */
        int64_t total, lo, n;
        rows_of(k, cart->rank, cart->size, &total, &lo, &n);
        const hsize_t dims[2] = {(hsize_t)total, (hsize_t)COLS[k]};
        const int64_t maxd[2] = {total, COLS[k]};
        d[k] = vs_h5_create(f, NAMES[k], k == 1 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64,
                            COLS[k] == 1 ? 1 : 2, dims, maxd, dims, 0);
        rc |= d[k] < 0;
    }
    hid_t dxpl = vs_h5_dxpl(1);
    for (int k = 0; k < N_SETS; ++k) {
        int64_t total, lo, n;
        rows_of(k, cart->rank, cart->size, &total, &lo, &n);
        int64_t *v64 = malloc(sizeof(int64_t) * (size_t)(n * COLS[k] + 1));
        int32_t *v32 = malloc(sizeof(int32_t) * (size_t)(n * COLS[k] + 1));
        for (int64_t i = 0; i < n; ++i)
            for (int c = 0; c < COLS[k]; ++c) {
                v64[i * COLS[k] + c] = expected(k, file, lo + i, c);
                v32[i * COLS[k] + c] = (int32_t)expected(k, file, lo + i, c);
            }
        if (d[k] >= 0)
            rc |= vs_h5_write_rows(d[k], k == 1 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64, dxpl, 0,
                                   0, (hsize_t)lo, (hsize_t)n, (hsize_t)COLS[k],
                                   k == 1 ? (const void *)v32 : (const void *)v64) != 0;
        free(v64);
        free(v32);
        if (d[k] >= 0)
            H5Dclose(d[k]);
    }
    H5Pclose(dxpl);
    rc |= vs_h5_close_file(f) != 0;
    return rc ? -1 : 0;
}

/* Rank 0: read the file with the serial driver; returns the number of datasets with a wrong
 * row (each reported once). */
static int check_file(const char *path, int file, const char *layout, int size)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        printf("FAIL: %s: cannot open %s\n", layout, path);
        return N_SETS;
    }
    int bad = 0;
    int64_t *buf = malloc(sizeof(int64_t) * (N * 3 > M * 2 ? N * 3 : M * 2));
    for (int k = 0; k < N_SETS; ++k) {
        int64_t total, lo, n;
        rows_of(k, 0, size, &total, &lo, &n);
        hid_t d = H5Dopen2(f, NAMES[k], H5P_DEFAULT);
        if (d < 0 || H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
            printf("FAIL: %s file %d: cannot read %s\n", layout, file, NAMES[k]);
            ++bad;
        } else {
            int64_t first = -1, last = -1, wrong = 0;
            for (int64_t i = 0; i < total; ++i)
                for (int c = 0; c < COLS[k]; ++c)
                    if (buf[i * COLS[k] + c] != expected(k, file, i, c)) {
                        first = first < 0 ? i : first;
                        last = i;
                        ++wrong;
                        break;
                    }
            if (wrong) {
                printf("FAIL: %s file %d: %s has %lld of %lld rows wrong (rows %lld..%lld; "
                       "row %lld holds %lld)\n",
                       layout, file, NAMES[k], (long long)wrong, (long long)total,
                       (long long)first, (long long)last, (long long)first,
                       (long long)buf[first * COLS[k]]);
                ++bad;
            }
        }
        if (d >= 0)
            H5Dclose(d);
    }
    free(buf);
    H5Fclose(f);
    return bad;
}

/* The io communicator has no topology and the same ranks in the same order as the Cartesian
 * one, and it is the communicator HDF5 gets for files (this part does not depend on luck). */
static int check_io_comm(const vs_par *cart, const char *layout)
{
    int topo = 0, cmp = 0, io_rank = -1, fapl_topo = 0;
    MPI_Topo_test(cart->io_comm, &topo);
    MPI_Comm_compare(cart->comm, cart->io_comm, &cmp);
    MPI_Comm_rank(cart->io_comm, &io_rank);
    hid_t fapl = vs_h5_fapl(cart);
    MPI_Comm h5_comm = MPI_COMM_NULL;
    MPI_Info h5_info = MPI_INFO_NULL;
    if (H5Pget_fapl_mpio(fapl, &h5_comm, &h5_info) >= 0) {
        MPI_Topo_test(h5_comm, &fapl_topo);
        MPI_Comm_free(&h5_comm);
        if (h5_info != MPI_INFO_NULL)
            MPI_Info_free(&h5_info);
    }
    H5Pclose(fapl);
    if (topo == MPI_UNDEFINED && cmp == MPI_CONGRUENT && io_rank == cart->rank &&
        fapl_topo == MPI_UNDEFINED)
        return 0;
    printf("FAIL: %s: rank %d: io_comm has topology %d, compares %d, rank %d; the file "
           "access list's communicator has topology %d (MPI_UNDEFINED is %d)\n",
           layout, cart->rank, topo, cmp, io_rank, fapl_topo, MPI_UNDEFINED);
    return 1;
}

int main(int argc, char **argv)
{
    vs_par_init(&argc, &argv);
    vs_h5_quiet();
    vs_par world;
    vs_par_from_comm(&world, MPI_COMM_WORLD);
    const char *dir = argc > 1 ? argv[1] : ".";
    mkdir(dir, 0755);
    int layouts[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, n_layouts = 1;
    if (world.size == 4) {
        const int four[3][3] = {{2, 1, 2}, {4, 1, 1}, {2, 2, 1}};
        memcpy(layouts, four, sizeof four);
        n_layouts = 3;
    } else {
        MPI_Dims_create(world.size, 3, layouts[0]);
    }
    int failures = 0, bad_files = 0, files = 0;
    for (int L = 0; L < n_layouts; ++L) {
        vs_par cart;
        vs_par_cart_create(&cart, &world, layouts[L]);
        char layout[32];
        snprintf(layout, sizeof layout, "%dx%dx%d", layouts[L][0], layouts[L][1],
                 layouts[L][2]);
        failures += check_io_comm(&cart, layout);
        for (int r = 0; r < REPS; ++r) {
            char path[1024];
            snprintf(path, sizeof path, "%s/cart_%s_%d.h5", dir, layout, r);
            const int file = L * REPS + r;
            const int wrote = write_file(&cart, path, file) == 0;
            vs_par_barrier(&cart);
            int bad = 0;
            if (!wrote) {
                printf("FAIL: %s file %d: rank %d: the write failed\n", layout, file,
                       cart.rank);
                bad = 1;
            }
            if (cart.rank == 0)
                bad += check_file(path, file, layout, cart.size);
            ++files;
            bad_files += vs_par_any(&cart, bad != 0);
            failures += bad;
            if (cart.rank == 0 && !bad)
                remove(path);
        }
        vs_par_free(&cart);
    }
    const int any = vs_par_any(&world, failures != 0);
    if (world.rank == 0)
        printf("%s: %d of %d files written collectively on %d ranks (Cartesian layouts) had "
               "wrong rows\n",
               any ? "FAIL" : "ok", bad_files, files, world.size);
    vs_par_finalize();
    return any ? 1 : 0;
}
