/* Checkpoints of the Monte Carlo engine: output.dir/checkpoints/mc-<cycle>.h5, one serial
 * HDF5 file written by rank 0 (the engine runs on one rank) under a temporary name and
 * renamed into place, so a killed write leaves the previous checkpoints whole.
 *
 * It holds the progress (vs_mc_progress: cycle, next tag, step sizes, counters), the
 * physics hash of the run (vs_params_physics_hash folded with the mc keys' own hash) and
 * per box its edges and particles (positions, species, tags) in the engine's order. The
 * draws are keyed by (seed, cycle, move), so no generator state is stored, and the box
 * energies are exact sums recomputed on reading: a restart continues bit for bit.
 */
#ifndef VESICA_CHECKPOINT_MC_H
#define VESICA_CHECKPOINT_MC_H

#include <stddef.h>
#include <stdint.h>

#include "mc_state.h"
#include "params.h"

typedef struct {
    vs_mc_progress pr;
    int n_boxes;
    vs_mc_box_data box[VS_MC_MAX_BOXES];
    uint64_t hash;      /* physics hash the file was written with */
    int shared_log_volume_step; /* read from a file without the steps per box: both boxes
                                   took its one log-volume step */
} vs_mc_checkpoint;

/* The hash a restart must match: the physics keys and the mc keys that change what is
 * sampled (ensemble, kT, pressure, activity, the second box). */
uint64_t vs_mc_physics_hash(const vs_params *prm);

/* Write ck (the boxes' arrays as given) as the checkpoint of ck->pr.cycle, then delete all
 * but the newest `keep`. Returns 0, or -1 with one line in err. */
int vs_mc_checkpoint_write(const char *output_dir, const vs_mc_checkpoint *ck,
                           const char *config_text, int64_t keep, char *err, size_t err_len);
/* Read the checkpoint at path into ck (the boxes' arrays malloc'd: vs_mc_checkpoint_free).
 * Returns 0, or -1 with one line in err naming the file. */
int vs_mc_checkpoint_read(const char *path, vs_mc_checkpoint *ck, char *err, size_t err_len);
void vs_mc_checkpoint_free(vs_mc_checkpoint *ck);
/* The newest checkpoint in output_dir/checkpoints into path. Returns 0, or -1 (none). */
int vs_mc_checkpoint_latest(const char *output_dir, char *path, size_t len);

#endif
