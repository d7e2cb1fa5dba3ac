/* Logging with levels. Rank 0 prints INFO; warnings and errors print on any rank with the rank
 * number so a failure on one rank of many can be found. vs_log_fatal aborts the whole job
 * (MPI_Abort) with a non-zero status: use it for faults that leave no consistent state, never
 * for bad input (that is a collective exit with status 2, see exit_codes.h). */
#ifndef VESICA_LOG_H
#define VESICA_LOG_H

void vs_log_set_rank(int rank);
void vs_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vs_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vs_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#ifdef __cplusplus
[[noreturn]]
#else
_Noreturn
#endif
void vs_log_fatal(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define VS_FATAL(...) vs_log_fatal(__FILE__, __LINE__, __VA_ARGS__)

/* The same, for a fault every rank of MPI_COMM_WORLD reaches at the same point with the same
 * verdict (a test on replicated values such as the box): rank 0 alone prints the line, after
 * a barrier every rank aborts, so the job ends with one line instead of one per rank. */
#ifdef __cplusplus
[[noreturn]]
#else
_Noreturn
#endif
void vs_log_fatal_all(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define VS_FATAL_ALL(...) vs_log_fatal_all(__FILE__, __LINE__, __VA_ARGS__)

/* Checked allocation: a failed malloc is a fatal fault with the size and the place. */
void *vs_malloc_checked(unsigned long bytes, const char *file, int line);
void *vs_realloc_checked(void *p, unsigned long bytes, const char *file, int line);
#define VS_MALLOC(bytes) vs_malloc_checked((unsigned long)(bytes), __FILE__, __LINE__)
#define VS_REALLOC(p, bytes) vs_realloc_checked((p), (unsigned long)(bytes), __FILE__, __LINE__)

#endif
