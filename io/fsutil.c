/* File-system helpers: see fsutil.h. */
#define _GNU_SOURCE /* fallocate */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "log.h"
#include "params.h"

int vs_mkdir_p(const char *path, char *err, size_t err_len)
{
    char buf[VS_PATH_LEN];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        snprintf(err, err_len, "%s: path too long", path);
        return -1;
    }
    for (char *s = buf + 1;; ++s) {
        const int end = *s == '\0';
        if (*s == '/' || end) {
            *s = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                snprintf(err, err_len, "%s: cannot create directory: %s", buf, strerror(errno));
                return -1;
            }
            if (end)
                break;
            *s = '/';
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "%s: exists and is not a directory", path);
        return -1;
    }
    return 0;
}

static int fsync_dir_of(const char *path)
{
    char dir[VS_PATH_LEN];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int vs_rename_into_place(const char *tmp, const char *path, char *err, size_t err_len)
{
    if (rename(tmp, path) != 0) {
        snprintf(err, err_len, "%s: cannot rename into place: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    fsync_dir_of(path);
    return 0;
}

int vs_write_file_atomic(const char *path, const void *data, size_t len, char *err,
                         size_t err_len)
{
    char tmp[VS_PATH_LEN + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot create: %s", tmp, strerror(errno));
        return -1;
    }
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, err_len, "%s: write failed: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        snprintf(err, err_len, "%s: cannot flush to disk: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, err_len, "%s: cannot rename into place: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    fsync_dir_of(path);
    return 0;
}

int vs_check_writable_dir(const char *dir, char *err, size_t err_len)
{
    if (vs_mkdir_p(dir, err, err_len) != 0)
        return -1;
    char probe[VS_PATH_LEN + 32];
    snprintf(probe, sizeof probe, "%s/.vesica-write-test.%ld", dir, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        snprintf(err, err_len, "%s: output directory is not writable: %s", dir,
                 strerror(errno));
        return -1;
    }
    const char byte = 0;
    const int ok = write(fd, &byte, 1) == 1;
    const int saved = errno;
    close(fd);
    unlink(probe);
    if (!ok) {
        snprintf(err, err_len, "%s: cannot write to output directory: %s", dir,
                 strerror(saved));
        return -1;
    }
    return 0;
}

char *vs_read_text_file(const char *path, char *err, size_t err_len)
{
    enum { MAX_BYTES = 64 << 20 }; /* far beyond any configuration; guards the broadcast */
    if (!path) {
        snprintf(err, err_len, "(no file): cannot read: no file name");
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = VS_MALLOC(cap);
    for (;;) {
        if (len + 1 == cap) {
            if (cap >= MAX_BYTES) {
                snprintf(err, err_len, "%s: cannot read: larger than %d MiB, not a "
                         "configuration file", path, MAX_BYTES >> 20);
                free(buf);
                fclose(f);
                return NULL;
            }
            cap *= 2;
            buf = VS_REALLOC(buf, cap);
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int failed = ferror(f), e = errno;
    fclose(f);
    if (failed) {
        snprintf(err, err_len, "%s: cannot read: %s", path, strerror(e));
        free(buf);
        return NULL;
    }
    if (memchr(buf, '\0', len)) {
        snprintf(err, err_len, "%s: cannot read: contains a NUL byte, not a text file", path);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

double vs_free_bytes(const char *path)
{
    char buf[VS_PATH_LEN];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1.0;
    struct stat st;
    /* the nearest existing ancestor: a directory not created yet lives on its file system */
    while (stat(buf, &st) != 0) {
        char *slash = strrchr(buf, '/');
        if (!slash) {
            snprintf(buf, sizeof buf, ".");
            break;
        }
        if (slash == buf)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
    struct statvfs fs;
    if (statvfs(buf, &fs) != 0)
        return -1.0;
    /* a read-only file system, or one without blocks (/proc, /sys), reports no free space
     * that a write could use: unknown here, so that creating the directory names the cause */
    if ((fs.f_flag & ST_RDONLY) || fs.f_blocks == 0)
        return -1.0;
    return (double)fs.f_bavail * (double)fs.f_frsize;
}

int vs_reserve_space(const char *path, double bytes)
{
#ifdef FALLOC_FL_KEEP_SIZE
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return errno;
    int rc = 0;
    if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes) != 0)
        rc = errno == EOPNOTSUPP || errno == ENOSYS ? 0 : errno;
    close(fd);
    return rc;
#else
    (void)path;
    (void)bytes;
    return 0;
#endif
}

void vs_release_reserve(const char *path, double bytes)
{
#if defined(FALLOC_FL_KEEP_SIZE) && defined(FALLOC_FL_PUNCH_HOLE)
    struct stat st;
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && (double)st.st_size < bytes &&
        fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, st.st_size,
                  (off_t)bytes - st.st_size) != 0) {
        /* nothing lost: the blocks go with the file when it is replaced or deleted */
    }
    close(fd);
#else
    (void)path;
    (void)bytes;
#endif
}

int vs_fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}
