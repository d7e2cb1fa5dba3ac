/* Logging: see log.h. Output goes to stderr for warnings and errors, stdout for INFO. */
#include "log.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

static void log_prefixed(const char *level, const char *fmt, va_list ap)
{
    fprintf(stderr, "vesica: %s (rank %d): ", level, log_rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
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

void vs_log_fatal(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vesica: fatal (rank %d, %s:%d): ", log_rank, file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    va_end(ap);
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

void *vs_malloc_checked(unsigned long bytes, const char *file, int line)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        vs_log_fatal(file, line, "out of memory allocating %lu bytes", bytes);
    return p;
}

void *vs_realloc_checked(void *p, unsigned long bytes, const char *file, int line)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q)
        vs_log_fatal(file, line, "out of memory reallocating to %lu bytes", bytes);
    return q;
}
