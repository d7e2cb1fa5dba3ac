/* Log lines of several processes that share stderr must not interleave: each line is one
 * write (log.c). Four processes write many long warnings to one file at once; every line of
 * the file must be one whole line of one process. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

enum { WRITERS = 4, LINES = 3000 };
#define FILLER "................................................................................"

static void test_lines_of_processes_do_not_interleave(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    fflush(stderr);
    for (int w = 0; w < WRITERS; ++w) {
        const pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            dup2(fileno(f), STDERR_FILENO);
            vs_log_set_rank(w);
            for (int i = 0; i < LINES; ++i)
                vs_log_warn("writer %d line %d %s", w, i, FILLER);
            _exit(0);
        }
    }
    for (int w = 0; w < WRITERS; ++w) {
        int status = 0;
        wait(&status);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    rewind(f);
    char line[512];
    int count[WRITERS] = {0}, bad = 0;
    while (fgets(line, sizeof line, f)) {
        int rank = -1, writer = -2, i = -1, n = 0;
        if (sscanf(line, "vesica: warning (rank %d): writer %d line %d " FILLER "\n%n", &rank,
                   &writer, &i, &n) == 3 && rank == writer && rank >= 0 && rank < WRITERS &&
            n == (int)strlen(line))
            ++count[rank];
        else if (bad++ < 3)
            print_message("mixed line: %s", line);
    }
    fclose(f);
    assert_int_equal(bad, 0);
    for (int w = 0; w < WRITERS; ++w)
        assert_int_equal(count[w], LINES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_of_processes_do_not_interleave),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
