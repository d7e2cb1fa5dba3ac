/* The physics keys of a run: what a restart must match bit for bit.
 *
 * One list (visit_physics in physics_keys.c) names them, in a fixed order, and serves the
 * comparison with a checkpoint and the hash stored in it. Run length, output, skin,
 * decomposition, backend, precision and walltime change how a run is carried out, not what it
 * simulates, so they are not physics keys.
 */
#ifndef VESICA_PHYSICS_KEYS_H
#define VESICA_PHYSICS_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"

/* Compare the physics keys of a configuration with those stored in a checkpoint. Returns 0
 * when they agree bit for bit; otherwise 1 with the first differing key (and both values) in
 * `what`. */
int vs_params_physics_diff(const vs_params *config, const vs_params *stored, char *what,
                           size_t len);
/* 64-bit FNV-1a hash of the physics keys (stored in checkpoints). */
uint64_t vs_params_physics_hash(const vs_params *p);

#endif
