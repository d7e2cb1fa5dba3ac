/* File-system helpers: directory creation, atomic whole-file writes, whole-file reads.
 *
 * An atomic write goes to a temporary name in the same directory, is fsync'd, renamed over the
 * target and the directory fsync'd, so a reader (or a crash) sees the old file or the new one,
 * never half of one. */
#ifndef VESICA_FSUTIL_H
#define VESICA_FSUTIL_H

#include <stddef.h>

/* mkdir -p. Returns 0, or -1 with one line in err. */
int vs_mkdir_p(const char *path, char *err, size_t err_len);
/* Check that `dir` exists (or can be created) and accepts a new file. */
int vs_check_writable_dir(const char *dir, char *err, size_t err_len);
int vs_write_file_atomic(const char *path, const void *data, size_t len, char *err,
                         size_t err_len);
/* Rename a finished temporary file into place and sync its directory (the last step of an
 * atomic write done elsewhere). Returns 0, or -1 with one line in err (tmp removed). */
int vs_rename_into_place(const char *tmp, const char *path, char *err, size_t err_len);
/* Read a whole file into a malloc'd NUL-terminated string. Returns NULL and writes one line to
 * err when the file cannot be read. */
char *vs_read_text_file(const char *path, char *err, size_t err_len);

/* Bytes free to this user on the file system that holds `path`, or that will hold it: the
 * nearest existing ancestor is asked, so nothing has to be created first. -1 when unknown,
 * and on a read-only file system or one without blocks (/proc), which no write could use. */
double vs_free_bytes(const char *path);

/* Reserve the first `bytes` of the existing file `path` on disk without changing its size
 * (fallocate with FALLOC_FL_KEEP_SIZE), so that writes within them cannot fail for a full
 * disk. Returns 0 (reserved, or the file system reserves nothing: no promise then), or the
 * errno of a refusal (ENOSPC, EDQUOT, ...). */
int vs_reserve_space(const char *path, double bytes);
/* Flush a file or directory to the disk (fsync); 0, or -1 with errno. */
int vs_fsync_path(const char *path);
/* Give back what such a reservation holds past the end of the file. */
void vs_release_reserve(const char *path, double bytes);

#endif
