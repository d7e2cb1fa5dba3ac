/* Error lines of the configuration module, and the wording they share.
 *
 * Every configuration error becomes one line, FILE:LINE: KEY: expected WHAT (got WHAT), or
 * "--set ARG: KEY: ..." when the value came from an override (the copied setting carries the
 * argument's index + 1 in its libconfig hook; a report walks up to the nearest hook). The
 * "expected" half is worded from the key's schema entry alone, the "got" half from the value
 * as the user wrote it. The first error wins: a report fills the caller's buffer and returns
 * VS_EXIT_BAD_INPUT, which the checks pass straight up. Internal to config.c.
 */
#ifndef VESICA_CONFIG_REPORT_H
#define VESICA_CONFIG_REPORT_H

#include <libconfig.h>
#include <stddef.h>

#include "param_schema.h"

#define PATH_LEN 256     /* display paths and patterns; longer names are cut, harmlessly */
#define SHOW_LEN 160     /* how much of a value an error line shows */

/* Where the text came from and where its error goes. */
typedef struct {
    const char *file;        /* for messages; NULL: "<config>" */
    const char *const *sets; /* the --set arguments, for messages */
    char *err;
    size_t err_len;
} cfg_ctx;

/* Where an error is reported: a --set argument (set >= 0), else a line of the file (0: none). */
typedef struct {
    int set;
    unsigned line;
} cfg_where;

/* Report at an explicit place. Returns VS_EXIT_BAD_INPUT. */
int cfg_fail_at(const cfg_ctx *c, cfg_where w, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Report at a setting: its --set argument, else its line. Returns VS_EXIT_BAD_INPUT. */
int cfg_fail(const cfg_ctx *c, const config_setting_t *site, const char *key, const char *fmt,
             ...) __attribute__((format(printf, 4, 5)));
/* "KEY: expected <schema wording> (got <found>)". Returns VS_EXIT_BAD_INPUT. */
int cfg_fail_type(const cfg_ctx *c, const config_setting_t *s, const key_spec *k,
                  const char *disp);
/* Of several settings an error involves (n >= 1), the one to report at: the most recent --set
 * among them (the override the user just typed is the likely culprit), else the first. */
const config_setting_t *cfg_pick_site(const config_setting_t *const *s, int n);

/* A double as short as round-trips, always recognisable as a float (4.0, not 4). */
void cfg_fmt_double(char *b, size_t n, double v);
/* Append to the string in a bounded buffer; silently cut at the end. */
void cfg_put(char *b, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Append a string as a quoted, escaped, shortened literal. */
void cfg_put_quoted(char *b, size_t n, const char *s);
/* Append a setting's value as the user would recognise it: 4, 4.0, "x", [1.0, 2.0], true. */
void cfg_put_value(char *b, size_t n, const config_setting_t *s);
/* Append the bounds of a K_FLOAT or K_VEC3 key: " > 0", " in [0, 1]". */
void cfg_put_bounds(char *b, size_t n, const key_spec *k);
/* Append the "expected ..." wording of a key, from its schema entry alone. */
void cfg_put_expected(char *b, size_t n, const key_spec *k);

/* Edit distance (with adjacent transpositions), case-insensitive; INT_MAX for long names. */
int cfg_edit_distance(const char *a, const char *b);
/* The candidate closest to `name`, if close enough to be a plausible typo (first in order on
 * ties); NULL otherwise. */
const char *cfg_closest(const char *name, const char *const *cand, int n);

#endif
