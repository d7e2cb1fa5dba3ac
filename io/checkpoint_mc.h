/* Checkpoints of the Monte Carlo engine: output.dir/checkpoints/mc-<cycle>.h5, one HDF5 file
 * written under a temporary name and renamed into place, so a killed write leaves the
 * previous checkpoints whole: by rank 0 where it holds the boxes, or by every rank through
 * MPI-IO where the boxes are split over the ranks (the same file either way).
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
#include "parallel.h"
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
/* A split state's part of a box (src/engine/mc/mc_domain.h): its rows [row0, row0 + n) of
 * the box's n_all, in index order. */
typedef struct {
    double L[3];
    int64_t n_all, row0, n;
    const double *x;        /* 3 n */
    const int32_t *species; /* n */
    const int64_t *tag;     /* n */
} vs_mc_rows;

/* As vs_mc_checkpoint_write (ck's boxes unused), every rank of par writing its rows of each
 * box through MPI-IO: the same file as one rank's, no rank holding a box. Collective; the
 * same return and err on every rank. */
int vs_mc_checkpoint_write_rows(const vs_par *par, const char *output_dir,
                                const vs_mc_checkpoint *ck, const vs_mc_rows *rows,
                                const char *config_text, int64_t keep, char *err,
                                size_t err_len);
/* As vs_mc_checkpoint_read, every rank reading only its rows [n r / P, n (r + 1) / P) of
 * each box b (n_all[b] = n, row0[b] the first; ck->box[b].n their number) through MPI-IO.
 * Collective; the same return and err on every rank. */
int vs_mc_checkpoint_read_rows(const vs_par *par, const char *path, vs_mc_checkpoint *ck,
                               int64_t *n_all, int64_t *row0, char *err, size_t err_len);
/* Read the checkpoint at path into ck (the boxes' arrays malloc'd: vs_mc_checkpoint_free).
 * Returns 0, or -1 with one line in err naming the file. */
int vs_mc_checkpoint_read(const char *path, vs_mc_checkpoint *ck, char *err, size_t err_len);
void vs_mc_checkpoint_free(vs_mc_checkpoint *ck);
/* The newest checkpoint in output_dir/checkpoints into path. Returns 0, or -1 (none). */
int vs_mc_checkpoint_latest(const char *output_dir, char *path, size_t len);

#endif
