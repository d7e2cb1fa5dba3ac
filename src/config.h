/* Configuration: libconfig text -> validated vs_params.
 *
 * Rank 0 reads the file and broadcasts its text; every rank parses the same text with the same
 * overrides, so every rank reaches the same verdict and an error exits collectively. Every key
 * is checked against one schema table (config.c): unknown keys (with a did-you-mean), wrong
 * types, missing required keys and physically impossible values each give one error line
 *   FILE:LINE: KEY: what was expected (what was found)
 * Overrides come from `--set key=value` and pass the same checks as the file.
 */
#ifndef VESICA_CONFIG_H
#define VESICA_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"

#define VS_ERR_LEN 512

/* Exit status: 0 finished (integrator.steps reached), 1 runtime fault, 2 bad input
 * (configuration, command line, unusable checkpoint or output directory), 3 stopped for
 * restart (a signal or run.walltime: a checkpoint was written and the run must be continued
 * with --restart latest). */
#define VS_EXIT_BAD_INPUT 2
#define VS_EXIT_CONTINUE 3

/* Parse and validate. `text` is the file contents, `filename` is used in messages, `sets` are
 * the n_sets "key=value" overrides. Returns 0 and fills *out, or returns VS_EXIT_BAD_INPUT
 * and writes one line (no trailing newline) to err. Creates no files. */
int vs_config_parse(const char *text, const char *filename, const char *const *sets,
                    int n_sets, vs_params *out, char *err, size_t err_len);

/* Compare the physics keys of a configuration with those stored in a checkpoint. Returns 0
 * when they agree bit for bit; otherwise 1 with the first differing key (and both values) in
 * `what`. Run length, output, skin, decomposition, backend and precision are not physics. */
int vs_params_physics_diff(const vs_params *config, const vs_params *stored, char *what,
                           size_t len);
/* 64-bit FNV-1a hash of the physics keys (stored in checkpoints). */
uint64_t vs_params_physics_hash(const vs_params *p);

/* Read a whole file into a malloc'd NUL-terminated string. Returns NULL and writes one line to
 * err when the file cannot be read. */
char *vs_read_text_file(const char *path, char *err, size_t err_len);

#endif
