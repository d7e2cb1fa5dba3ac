/* The lexer pass that runs over configuration text before libconfig parses it
 * (config_lex.c says why). Internal to config.c.
 */
#ifndef VESICA_CONFIG_LEX_H
#define VESICA_CONFIG_LEX_H

#include <stddef.h>

/* Copies `text` (malloc'd; the caller frees it), adding L to integer literals too wide for 32
 * bits; refuses @include and literals beyond 64 bits (returns NULL with the line in *bad_line
 * and the reason in why). Strings and comments are skipped the way libconfig's scanner skips
 * them; anything odd is left to libconfig. */
char *cfg_prescan(const char *text, unsigned *bad_line, char *why, size_t why_len);

#endif
