/* Checkpoints: output.dir/checkpoints/ckpt_<step>.h5, the complete state of a run in global
 * tag order, written collectively through parallel HDF5. Layout: docs/file-formats.md.
 *
 * Crash safety: the file is written under a temporary name in the same directory
 * (ckpt_<step>.h5.tmp), closed, fsync'd, renamed, and the directory fsync'd, so a reader never
 * sees half a checkpoint under the final name. The room for the file is reserved before the
 * first dataset, so that a full disk cannot fail the collective write on some ranks only
 * (checkpoint_space.h). Every dataset carries a Fletcher32 checksum per chunk and a digest
 * in /content_hash (checkpoint_verify.h: a zeroed chunk passes its checksum, not the
 * digest), and a completion record (/complete: step, particle count, physics hash) is the
 * last thing written; a file without a matching one is invalid. Reading a checkpoint reads
 * every dataset, so HDF5 verifies every checksum and the reader every digest and the
 * topology's ranges and symmetry: validation and reading are one operation.
 *
 * Each rank reads the contiguous tag slab [lo, hi) of its rank number; the caller sends the
 * particles to their owners by position (vs_sim_start_from_records), so a checkpoint restarts
 * on any rank count.
 */
#ifndef VESICA_CHECKPOINT_H
#define VESICA_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "ensemble.h"
#include "parallel.h"
#include "params.h"
#include "particles.h"
#include "reaction.h"

typedef struct {
    int64_t step;
    double time;
    vs_params physics;      /* the physics keys of the run that wrote it (others are zero) */
    vs_ensemble_state ensemble; /* the thermostat's state (zero in files without one) */
    int has_reactions;      /* the file has the reactions' state (/reaction_state) */
    vs_reaction_state reactions;
    uint64_t physics_hash;  /* vs_params_physics_hash of `physics` */
    char version[128];      /* code version and git commit of the writer */
} vs_checkpoint_info;

/* The run's global state a checkpoint holds beside the particles: the ensemble's
 * (/integrator_state) and the reactions' (/reaction_state; NULL in runs without them). */
typedef struct {
    const vs_ensemble_state *ens;
    const vs_reaction_state *rx;
} vs_ckpt_global;

/* Write the checkpoint of `step` from this rank's tag slab [slab_lo, slab_lo + n) (records in
 * tag order, with their optional records: ext->topo when the run has molecules,
 * ext->special with special-neighbour lists, else NULL) and the run's global state `ens`,
 * then delete all but the newest `keep` checkpoints. `config_text` is stored verbatim. On success `path_out` holds the file name and *bytes its size. Returns 0, or -1
 * with one line in err, the same on every rank (the previous checkpoints are untouched).
 * Collective. */
int vs_checkpoint_write(const vs_par *par, const char *output_dir, int64_t step,
                        const vs_params *prm, const vs_ckpt_global *ens,
                        const char *config_text,
                        const vs_particle_rec *slab, const vs_particle_ext *ext, int64_t n,
                        int64_t slab_lo, int64_t keep, char *path_out, size_t path_len,
                        double *bytes, char *err, size_t err_len);

/* Read and validate a checkpoint: completion record, every dataset's checksums, the tag
 * sequence of this rank's slab. On success *slab (malloc'd, tag order) holds this rank's
 * slab of *n records, *ext their optional records (malloc'd; topo NULL when the file has
 * none: a plain fluid; special NULL when it has no special-neighbour lists) and `info` the metadata. Returns 0, or -1 with one line in err naming
 * the file and the problem, the same on every rank. Collective. */
int vs_checkpoint_read(const vs_par *par, const char *path, vs_checkpoint_info *info,
                       vs_particle_rec **slab, vs_particle_ext *ext, int64_t *n, char *err,
                       size_t err_len);

/* Steps of the checkpoints in output_dir/checkpoints, newest first (malloc'd, may be NULL
 * when there are none). Rank 0 lists the directory; every rank gets the list. */
int vs_checkpoint_list(const vs_par *par, const char *output_dir, int64_t **steps);
/* File name of the checkpoint of `step`. */
void vs_checkpoint_path(const char *output_dir, int64_t step, char *buf, size_t len);
/* Rank 0: remove leftovers of interrupted writes (*.tmp) and, when `all`, every checkpoint
 * (a run that starts afresh). Returns the number of checkpoints removed. */
int vs_checkpoint_clean(const char *output_dir, int all);

#endif
