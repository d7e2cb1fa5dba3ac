/* The lexer pass that runs over configuration text before libconfig parses it
 * (config_lex.c says why). Internal to config.c.
 */
#ifndef VESICA_CONFIG_LEX_H
#define VESICA_CONFIG_LEX_H

#include <stddef.h>

/* Copies `text` (malloc'd; the caller frees it), adding L to integer literals too wide for 32
 * bits; refuses @include, literals beyond 64 bits and nesting deeper than VS_CFG_MAX_DEPTH (returns NULL with the line in *bad_line
 * and the reason in why). Strings and comments are skipped the way libconfig's scanner skips
 * them; anything odd is left to libconfig. */
char *cfg_prescan(const char *text, unsigned *bad_line, char *why, size_t why_len);

/* Deepest nesting of groups, lists and arrays the prescan accepts. */
#define VS_CFG_MAX_DEPTH 64

/* The name of the setting that libconfig reported as a "duplicate setting name" on `line`:
 * the last name on that line that already appeared as a setting name before it (libconfig
 * gives no name). Returns 0, or -1 when none is found. */
int cfg_duplicate_name(const char *text, unsigned line, char *name, size_t name_len);

/* libconfig's error `msg` on `line` of `text`, with its likely cause, into why: a bare word
 * where a value belongs (`backend = cpu;`, which libconfig calls only "syntax error") says
 * that a string needs double quotes; a mixed array how to write it. */
void cfg_explain_error(const char *text, unsigned line, const char *msg, char *why,
                       size_t why_len);

#endif
