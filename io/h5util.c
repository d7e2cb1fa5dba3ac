/* Parallel HDF5 helpers: see h5util.h. */
#include "h5util.h"

#include "fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vs_h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

typedef struct {
    char text[256];
    int checksum;
    int sys_errno; /* errno when the error was noted: HDF5's stack drops the system's reason */
    int driver;    /* text is a file driver's */
} err_walk;

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    err_walk *w = data;
    /* walking upward from the innermost frame: keep the first description, unless a frame of
     * the file driver (the failed read or write itself) comes later: that is the cause */
    const int driver = e->func_name && strncmp(e->func_name, "H5FD", 4) == 0;
    if (e->desc && (n == 0 || (driver && !w->driver))) {
        snprintf(w->text, sizeof w->text, "%s", e->desc);
        w->driver = driver;
    }
    if (e->desc && (strstr(e->desc, "Fletcher32") || strstr(e->desc, "checksum")))
        w->checksum = 1;
    return 0;
}

/* Every HDF5 API call clears the error stack, the clean-up calls after a failure included,
 * so the helpers below note the stack at the failing call; readers get the last note. */
static err_walk last_error = {"", 0, 0, 0};

void vs_h5_note_error(void)
{
    err_walk w = {"", 0, errno, 0};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &w);
    if (w.text[0])
        last_error = w;
    else
        last_error.sys_errno = w.sys_errno;
}

int vs_h5_error_errno(void) { return last_error.sys_errno; }

void vs_h5_system_reason(const char *path, char *buf, size_t len)
{
    const int e = last_error.sys_errno;
    const double free_bytes = vs_free_bytes(path);
    /* a file system with less than 1 MiB left after a failed write is full, whatever errno
     * says by then */
    if (e == ENOSPC || (free_bytes >= 0.0 && free_bytes < 1048576.0))
        snprintf(buf, len, "; disk full: %.1f MiB free", free_bytes / 1048576.0);
    else if (e == EDQUOT)
        snprintf(buf, len, "; disk quota exceeded");
    else if (e == EFBIG || e == EIO || e == EROFS)
        snprintf(buf, len, "; %s", strerror(e));
    else
        snprintf(buf, len, "%s", "");
}

static int close_failed = 0;

int vs_h5_close_file(hid_t f)
{
    if (H5Fclose(f) >= 0)
        return 0;
    vs_h5_note_error();
    close_failed = 1;
    return -1;
}

int vs_h5_close_failed(void) { return close_failed; }
void vs_h5_error_text(char *buf, size_t len)
{
    snprintf(buf, len, "%s", last_error.text[0] ? last_error.text : "unknown HDF5 error");
    last_error.text[0] = '\0';
}

int vs_h5_error_is_checksum(void) { return last_error.checksum; }

hid_t vs_h5_fapl(const vs_par *par)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* never the Cartesian communicator itself (parallel.h: io_comm) */
    H5Pset_fapl_mpio(fapl, par->io_comm, MPI_INFO_NULL);
    return fapl;
}

hid_t vs_h5_dxpl(int collective)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    return dxpl;
}

hid_t vs_h5_create(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                   const int64_t *maxdims, const hsize_t *chunk, int checksum)
{
    hsize_t maxd[3];
    for (int k = 0; k < rank; ++k)
        maxd[k] = maxdims[k] < 0 ? H5S_UNLIMITED : (hsize_t)maxdims[k];
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    if (checksum)
        H5Pset_fletcher32(dcpl);
    /* chunks are allocated as they are written, never filled with zeros first */
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    hid_t d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

/* Select the slab of rows in the file space and a matching memory space. */
static int select_rows(hid_t dset, int has_frame, hsize_t frame, hsize_t row0, hsize_t nrows,
                       hsize_t cols, hid_t *file_space, hid_t *mem_space)
{
    *mem_space = H5I_INVALID_HID;
    *file_space = H5Dget_space(dset);
    if (*file_space < 0)
        return -1;
    const int rank = H5Sget_simple_extent_ndims(*file_space);
    hsize_t start[3] = {0, 0, 0}, count[3] = {1, 1, 1};
    int k = 0;
    if (has_frame) {
        start[k] = frame;
        count[k++] = 1;
    }
    start[k] = row0;
    count[k++] = nrows;
    if (k < rank) {
        start[k] = 0;
        count[k++] = cols;
    }
    /* the memory space has the shape of the selection, which lets HDF5 map whole rows of a
     * chunk at once instead of iterating element by element */
    *mem_space = nrows > 0 ? H5Screate_simple(k, count, NULL) : H5Screate(H5S_NULL);
    if (nrows == 0) {
        H5Sselect_none(*file_space);
        return 0;
    }
    return H5Sselect_hyperslab(*file_space, H5S_SELECT_SET, start, NULL, count, NULL) < 0
               ? -1
               : 0;
}

int vs_h5_write_rows(hid_t dset, hid_t mem_type, hid_t dxpl, int has_frame, hsize_t frame,
                     hsize_t row0, hsize_t nrows, hsize_t cols, const void *buf)
{
    hid_t fs, ms;
    int rc = select_rows(dset, has_frame, frame, row0, nrows, cols, &fs, &ms);
    if (rc == 0)
        rc = H5Dwrite(dset, mem_type, ms, fs, dxpl, buf) < 0 ? -1 : 0;
    if (rc != 0)
        vs_h5_note_error();
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    return rc;
}

int vs_h5_read_rows(hid_t dset, hid_t mem_type, hid_t dxpl, int has_frame, hsize_t frame,
                    hsize_t row0, hsize_t nrows, hsize_t cols, void *buf)
{
    hid_t fs, ms;
    int rc = select_rows(dset, has_frame, frame, row0, nrows, cols, &fs, &ms);
    if (rc == 0)
        rc = H5Dread(dset, mem_type, ms, fs, dxpl, buf) < 0 ? -1 : 0;
    if (rc != 0)
        vs_h5_note_error();
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    return rc;
}

int vs_h5_write_element(hid_t dset, hid_t mem_type, hid_t dxpl, int is_root, hsize_t index,
                        hsize_t cols, const void *buf)
{
    return vs_h5_write_rows(dset, mem_type, dxpl, 0, 0, index, is_root ? 1 : 0, cols, buf);
}

int vs_h5_write_vector(hid_t loc, const char *name, hid_t type, hid_t dxpl, int is_root,
                       hsize_t n, const void *v, hid_t *dset)
{
    const int64_t max_n = (int64_t)n;
    hid_t d = vs_h5_create(loc, name, type, 1, &n, &max_n, &n, 1);
    if (d < 0)
        vs_h5_note_error();
    const int rc = d < 0 || vs_h5_write_rows(d, type, dxpl, 0, 0, 0, is_root ? n : 0, 1, v) != 0;
    if (dset)
        *dset = d;
    else if (d >= 0)
        H5Dclose(d);
    return rc;
}

static int attr_write(hid_t loc, const char *name, hid_t type, hid_t space, const void *v)
{
    if (H5Aexists(loc, name) > 0)
        H5Adelete(loc, name);
    hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, type, v) < 0 ? -1 : 0;
    if (rc)
        vs_h5_note_error();
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return rc;
}

int vs_h5_attr_int64(hid_t loc, const char *name, const int64_t *v, hsize_t n)
{
    return attr_write(loc, name, H5T_NATIVE_INT64, n == 1 ? H5Screate(H5S_SCALAR)
                                                          : H5Screate_simple(1, &n, NULL), v);
}

int vs_h5_attr_double(hid_t loc, const char *name, const double *v, hsize_t n)
{
    return attr_write(loc, name, H5T_NATIVE_DOUBLE, n == 1 ? H5Screate(H5S_SCALAR)
                                                           : H5Screate_simple(1, &n, NULL), v);
}

int vs_h5_attr_string(hid_t loc, const char *name, const char *v)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, strlen(v) + 1);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    int rc = attr_write(loc, name, type, H5Screate(H5S_SCALAR), v);
    H5Tclose(type);
    return rc;
}

int vs_h5_attr_strings(hid_t loc, const char *name, const char *const *v, int n)
{
    size_t width = 1;
    for (int i = 0; i < n; ++i)
        width = strlen(v[i]) + 1 > width ? strlen(v[i]) + 1 : width;
    char *buf = calloc((size_t)n, width);
    if (!buf)
        return -1;
    for (int i = 0; i < n; ++i)
        memcpy(buf + (size_t)i * width, v[i], strlen(v[i]));
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, width);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    hsize_t dim = (hsize_t)n;
    int rc = attr_write(loc, name, type, H5Screate_simple(1, &dim, NULL), buf);
    H5Tclose(type);
    free(buf);
    return rc;
}

static int attr_read(hid_t loc, const char *name, hid_t type, void *v, hsize_t n)
{
    if (H5Aexists(loc, name) <= 0)
        return -1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0)
        return -1;
    hid_t space = H5Aget_space(a);
    const hssize_t count = H5Sget_simple_extent_npoints(space);
    int rc = count == (hssize_t)n && H5Aread(a, type, v) >= 0 ? 0 : -1;
    H5Sclose(space);
    H5Aclose(a);
    return rc;
}

int vs_h5_read_attr_int64(hid_t loc, const char *name, int64_t *v, hsize_t n)
{
    return attr_read(loc, name, H5T_NATIVE_INT64, v, n);
}

int vs_h5_read_attr_double(hid_t loc, const char *name, double *v, hsize_t n)
{
    return attr_read(loc, name, H5T_NATIVE_DOUBLE, v, n);
}

char *vs_h5_read_attr_string(hid_t loc, const char *name)
{
    if (H5Aexists(loc, name) <= 0)
        return NULL;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0)
        return NULL;
    hid_t ftype = H5Aget_type(a);
    char *out = NULL;
    if (H5Tget_class(ftype) == H5T_STRING && !H5Tis_variable_str(ftype)) {
        const size_t size = H5Tget_size(ftype);
        hid_t mtype = H5Tcopy(H5T_C_S1);
        H5Tset_size(mtype, size + 1);
        H5Tset_strpad(mtype, H5T_STR_NULLTERM);
        out = calloc(1, size + 2);
        if (out && H5Aread(a, mtype, out) < 0) {
            free(out);
            out = NULL;
        }
        H5Tclose(mtype);
    }
    H5Tclose(ftype);
    H5Aclose(a);
    return out;
}

int vs_h5_write_text(hid_t loc, const char *name, const char *text, int is_root)
{
    const size_t len = strlen(text);
    const hsize_t dim = (hsize_t)len;
    const hsize_t chunk = len == 0 ? 1 : (len < 65536 ? (hsize_t)len : 65536);
    const int64_t unlimited = -1; /* a chunk may not exceed a fixed extent, even an empty one */
    hid_t d = vs_h5_create(loc, name, H5T_NATIVE_UCHAR, 1, &dim, &unlimited, &chunk, 1);
    if (d < 0) {
        vs_h5_note_error();
        return -1;
    }
    hid_t dxpl = vs_h5_dxpl(1);
    const int rc = vs_h5_write_rows(d, H5T_NATIVE_UCHAR, dxpl, 0, 0, 0, is_root ? dim : 0, 1,
                                    text);
    H5Pclose(dxpl);
    H5Dclose(d);
    return rc;
}

char *vs_h5_read_text(hid_t loc, const char *name)
{
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0)
        return NULL;
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0)
        return NULL;
    const int64_t len = vs_h5_extent0(d);
    char *out = len >= 0 ? malloc((size_t)len + 1) : NULL;
    hid_t dxpl = vs_h5_dxpl(0);
    if (out && vs_h5_read_rows(d, H5T_NATIVE_UCHAR, dxpl, 0, 0, 0, (hsize_t)len, 1, out) != 0) {
        free(out);
        out = NULL;
    }
    if (out)
        out[len] = '\0';
    H5Pclose(dxpl);
    H5Dclose(d);
    return out;
}

int64_t vs_h5_extent0(hid_t dset)
{
    hid_t space = H5Dget_space(dset);
    if (space < 0)
        return -1;
    hsize_t dims[3] = {0, 0, 0};
    int rank = H5Sget_simple_extent_ndims(space);
    int64_t n = rank >= 1 && rank <= 3 && H5Sget_simple_extent_dims(space, dims, NULL) >= 0
                    ? (int64_t)dims[0]
                    : -1;
    H5Sclose(space);
    return n;
}

int64_t vs_h5_extend(hid_t loc, const char *path, hsize_t frames, hsize_t rows)
{
    hid_t d = H5Dopen2(loc, path, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t s = H5Dget_space(d);
    hsize_t dims[3] = {0, 0, 0};
    const int rank = H5Sget_simple_extent_dims(s, dims, NULL);
    H5Sclose(s);
    dims[0] = frames;
    if (rank > 1 && rows > dims[1])
        dims[1] = rows;
    const int rc = rank < 1 || H5Dset_extent(d, dims) < 0;
    H5Dclose(d);
    return rc ? -1 : rank > 1 ? (int64_t)dims[1] : 0;
}
