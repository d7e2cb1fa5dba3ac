/* Configuration: libconfig text -> validated vs_params.
 *
 * Rank 0 reads the file and broadcasts its text; every rank parses the same text with the same
 * overrides, so every rank reaches the same verdict and an error exits collectively. Every key
 * is checked against one schema table (param_schema.c): unknown keys (with a did-you-mean), wrong
 * types, missing required keys and physically impossible values each give one error line
 *   FILE:LINE: KEY: what was expected (what was found)
 * Overrides come from `--set key=value` and pass the same checks as the file.
 */
#ifndef VESICA_CONFIG_H
#define VESICA_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "exit_codes.h"
#include "params.h"

#define VS_ERR_LEN 512

/* Parse and validate. `text` is the file contents, `filename` is used in messages, `sets` are
 * the n_sets "key=value" overrides. Returns 0 and fills *out, or returns VS_EXIT_BAD_INPUT
 * and writes one line (no trailing newline) to err. Creates no files. */
int vs_config_parse(const char *text, const char *filename, const char *const *sets,
                    int n_sets, vs_params *out, char *err, size_t err_len);

#endif
