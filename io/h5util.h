/* Small helpers over parallel HDF5, shared by the trajectory (h5md.c) and the checkpoints
 * (checkpoint.c): file access through MPI-IO, chunked datasets, row-slab reads and writes,
 * attributes, and the HDF5 error stack turned into one line.
 *
 * HDF5's automatic error printing is switched off (it prints a stack of a dozen lines per
 * failure, on every rank); a failing call returns a negative value and the caller asks
 * vs_h5_error_text for the most specific message on the stack. Every call that creates,
 * extends or closes an object is collective in parallel HDF5: all ranks make the same calls
 * with the same arguments, ranks with no rows included.
 */
#ifndef VESICA_H5UTIL_H
#define VESICA_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "parallel.h"

/* Length of the error buffers the I/O modules agree on across ranks. */
#define VS_H5_ERR_LEN 1024

/* Switch off HDF5's automatic error printing (once per process). */
void vs_h5_quiet(void);
/* Note the current HDF5 error stack; call right after a failing HDF5 call (the next call
 * clears the stack). The row helpers below note their own failures. */
void vs_h5_note_error(void);
/* The innermost message of the last noted error, e.g. "data error detected by Fletcher32
 * checksum"; "unknown HDF5 error" when none was noted. Clears the note. */
void vs_h5_error_text(char *buf, size_t len);
/* Whether the last noted error reports a checksum (Fletcher32) failure. */
int vs_h5_error_is_checksum(void);
/* errno at the time of the last noted error (0 if none): a hint only, as HDF5 and MPI-IO do
 * not promise to keep it; ENOSPC there is the only sign of a full disk the stack carries. */
int vs_h5_error_errno(void);

/* What the system says about the last noted error of a write to `path`, to append to a
 * message: "; disk full: 0.3 MiB free" (ENOSPC, or under 1 MiB left), "; disk quota
 * exceeded", "; File too large" (EFBIG, EIO, EROFS), or "" when nothing blames the disk. */
void vs_h5_system_reason(const char *path, char *buf, size_t len);

/* H5Fclose, noting a failure. HDF5 1.10 frees the file of a close that fails (its flush hit
 * a full disk, say) but keeps its id, and H5close later crashes on that id; after a failed
 * close vs_h5_close_failed() is 1 and the process must leave without H5close or
 * MPI_Finalize (whose clean-up hook calls it). Writers flush first and make the close's
 * writes succeed (checkpoint.c), so this is the last resort. Collective. */
int vs_h5_close_file(hid_t f);
int vs_h5_close_failed(void);

/* File access property list for MPI-IO over par's communicator. */
hid_t vs_h5_fapl(const vs_par *par);
/* Transfer property list: collective (1) or independent (0) MPI-IO. */
hid_t vs_h5_dxpl(int collective);

/* Chunked dataset of `rank` dimensions (1 to 3). maxdims[k] < 0 means unlimited. Fletcher32
 * checksums when `checksum`. Returns the dataset or a negative id. */
hid_t vs_h5_create(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                   const int64_t *maxdims, const hsize_t *chunk, int checksum);

/* Write/read rows [row0, row0 + nrows) of a dataset whose first dimension indexes rows, at
 * index `frame` of a leading time dimension when has_frame (then the dataset is
 * frames x rows x cols, else rows x cols or rows). `cols` values of `mem_type` per row,
 * packed in buf. nrows may be 0 (the rank still takes part). Returns 0 or -1. */
int vs_h5_write_rows(hid_t dset, hid_t mem_type, hid_t dxpl, int has_frame, hsize_t frame,
                     hsize_t row0, hsize_t nrows, hsize_t cols, const void *buf);
int vs_h5_read_rows(hid_t dset, hid_t mem_type, hid_t dxpl, int has_frame, hsize_t frame,
                    hsize_t row0, hsize_t nrows, hsize_t cols, void *buf);
/* Element `index` of a 1-D dataset (or row `index` of a 2-D one with `cols` values), written
 * by rank 0 only; the other ranks select nothing. */
int vs_h5_write_element(hid_t dset, hid_t mem_type, hid_t dxpl, int is_root, hsize_t index,
                        hsize_t cols, const void *buf);
/* A fixed 1-D dataset `name` of n values of `type` (Fletcher32 checksums) written by rank 0
 * alone; every rank takes part. Returns 0, or 1 when this rank failed (the HDF5 error noted
 * where the dataset could not be made). *dset (if not NULL) gets the dataset, still open
 * for its attributes even after a failed write (the caller closes it), or a negative id;
 * with NULL it is closed here. */
int vs_h5_write_vector(hid_t loc, const char *name, hid_t type, hid_t dxpl, int is_root,
                       hsize_t n, const void *v, hid_t *dset);

/* Attributes (collective when written: every rank passes the same value). */
int vs_h5_attr_int64(hid_t loc, const char *name, const int64_t *v, hsize_t n);
int vs_h5_attr_double(hid_t loc, const char *name, const double *v, hsize_t n);
int vs_h5_attr_string(hid_t loc, const char *name, const char *v);
/* Fixed-length string array attribute of n strings. */
int vs_h5_attr_strings(hid_t loc, const char *name, const char *const *v, int n);
/* Readers return 0, or -1 when the attribute is missing or of another shape. */
int vs_h5_read_attr_int64(hid_t loc, const char *name, int64_t *v, hsize_t n);
int vs_h5_read_attr_double(hid_t loc, const char *name, double *v, hsize_t n);
/* malloc'd string or NULL. */
char *vs_h5_read_attr_string(hid_t loc, const char *name);

/* Text of any length as a 1-D dataset of bytes (no terminating NUL) with a checksum:
 * attributes are limited to 64 KiB. Collective; rank `is_root` writes. Returns 0 or -1. */
int vs_h5_write_text(hid_t loc, const char *name, const char *text, int is_root);
/* The text of such a dataset, malloc'd and NUL-terminated, or NULL (missing, unreadable,
 * checksum). Independent. */
char *vs_h5_read_text(hid_t loc, const char *name);

/* Dataset `path` under loc to `frames` along its first dimension and, where it has a second,
 * that one to at least `rows` (0: as it is). Returns the second dimension (0 for a 1-D
 * dataset), or -1. */
int64_t vs_h5_extend(hid_t loc, const char *path, hsize_t frames, hsize_t rows);
/* Number of elements along the first dimension of a dataset (-1 on error). */
int64_t vs_h5_extent0(hid_t dset);

#endif
