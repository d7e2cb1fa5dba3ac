/* Logging: see log.h. Output goes to stderr for warnings and errors, stdout for INFO. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include "log.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int log_rank = 0;

void vs_log_set_rank(int rank) { log_rank = rank; }

void vs_log_info(const char *fmt, ...)
{
    if (log_rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

/* One line to stderr with a single write(): the lines of several ranks sharing a terminal or
 * a file then never interleave (a pipe keeps writes up to PIPE_BUF = 4096 bytes whole). */
static void write_line(const char *prefix, const char *fmt, va_list ap)
{
    char line[4096];
    int n = snprintf(line, sizeof line, "%s", prefix);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof line - 1) {
        const int m = vsnprintf(line + n, sizeof line - 1 - (size_t)n, fmt, ap);
        n += m < 0 ? 0 : m;
    }
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2; /* truncated: keep the newline */
    line[n++] = '\n';
    fflush(stderr);
    for (const char *p = line; n > 0;) {
        const ssize_t w = write(STDERR_FILENO, p, (size_t)n);
        if (w <= 0)
            break;
        p += w;
        n -= (int)w;
    }
}

static void log_prefixed(const char *level, const char *fmt, va_list ap)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "vesica: %s (rank %d): ", level, log_rank);
    write_line(prefix, fmt, ap);
}

void vs_log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_prefixed("warning", fmt, ap);
    va_end(ap);
}

void vs_log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_prefixed("error", fmt, ap);
    va_end(ap);
}

/* The ranks of MPI_COMM_WORLD, 1 outside MPI. */
static int world_size(void)
{
    int initialized = 0, finalized = 0, size = 1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

void vs_log_fatal(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char prefix[512];
    snprintf(prefix, sizeof prefix, "vesica: fatal (rank %d, %s:%d): ", log_rank, file, line);
    write_line(prefix, fmt, ap);
    va_end(ap);
    /* MPI_Abort ends the other ranks; alone, a plain exit spares Open MPI's abort banner */
    if (world_size() > 1)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

void vs_log_fatal_all(const char *file, int line, const char *fmt, ...)
{
    if (log_rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        char prefix[512];
        snprintf(prefix, sizeof prefix, "vesica: fatal (%s:%d): ", file, line);
        write_line(prefix, fmt, ap);
        va_end(ap);
    }
    if (world_size() > 1) {
        MPI_Barrier(MPI_COMM_WORLD); /* the line is out before any rank aborts */
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    exit(1);
}

/* Blocks this large are mapped afresh by malloc, and filled at one page fault per 4 KiB page
 * when first written; on a kernel whose transparent huge pages are on request only, asking
 * for them makes it one fault per 2 MiB (output buffers of 120 B per particle). */
#define VS_HUGE_BLOCK (32UL << 20)
#define VS_HUGE_PAGE (2UL << 20)

static void advise_huge(void *p, unsigned long bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t lo = ((uintptr_t)p + VS_HUGE_PAGE - 1) & ~(uintptr_t)(VS_HUGE_PAGE - 1);
    const uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(VS_HUGE_PAGE - 1);
    if (bytes >= VS_HUGE_BLOCK && hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice: failure is harmless */
#else
    (void)p;
    (void)bytes;
#endif
}

void *vs_malloc_checked(unsigned long bytes, const char *file, int line)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        vs_log_fatal(file, line, "out of memory allocating %lu bytes", bytes);
    advise_huge(p, bytes);
    return p;
}

void *vs_realloc_checked(void *p, unsigned long bytes, const char *file, int line)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q)
        vs_log_fatal(file, line, "out of memory reallocating to %lu bytes", bytes);
    return q;
}
