/* Shared fixture of the configuration tests (test_config.c: bad input; test_config_accept.c:
 * what is accepted): a known-good configuration, edits of it, and parse helpers. */
#ifndef VESICA_TEST_CONFIG_FIXTURE_H
#define VESICA_TEST_CONFIG_FIXTURE_H

#include "config.h"

extern const char BASE[];
extern const char MINIMAL[];

/* `text` with the one occurrence of `from` replaced by `to` (malloc'd). */
char *edit(const char *text, const char *from, const char *to);
/* vs_config_parse on "test.cfg" with err poisoned first. */
int parse(const char *text, const char *const *sets, int n_sets, vs_params *p, char *err);
/* Parse and fail the test unless it succeeds. */
void parse_ok(const char *text, const char *const *sets, int n_sets, vs_params *p);

#define EXPECT_ERROR(text, sets, n_sets, msg)                                                 \
    do {                                                                                     \
        vs_params p_;                                                                        \
        char err_[VS_ERR_LEN];                                                               \
        assert_int_equal(parse((text), (sets), (n_sets), &p_, err_), VS_EXIT_BAD_INPUT);     \
        assert_string_equal(err_, (msg));                                                    \
    } while (0)

/* Edit BASE, parse, expect exactly `msg`. */
#define EXPECT_EDIT_ERROR(from, to, msg)                                                      \
    do {                                                                                     \
        char *t_ = edit(BASE, (from), (to));                                                 \
        EXPECT_ERROR(t_, NULL, 0, (msg));                                                    \
        free(t_);                                                                            \
    } while (0)

#define EXPECT_SET_ERROR(set, msg)                                                            \
    do {                                                                                     \
        const char *s_[] = {(set)};                                                          \
        EXPECT_ERROR(BASE, s_, 1, (msg));                                                    \
    } while (0)

#endif
