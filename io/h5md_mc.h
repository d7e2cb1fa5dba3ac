/* The Monte Carlo engine's H5MD 1.1 trajectory (output.dir/traj.h5md), one HDF5 file written
 * by rank 0 where it holds the boxes, or by every rank through MPI-IO where they are split:
 * a particles group per box (box0, box1), each frame its box edges and its particles in tag
 * order, and per box the thermo observables of the frame's cycle. A box's particle count
 * may change from frame to frame (insertions, deletions, transfers): the per-particle series
 * are as wide as the most particles the box has held, the rows beyond a frame's count
 * filled (position NaN, species and id -1). Opened, extended by one frame and closed for
 * every frame, as the MD trajectory. Layout: docs/file-formats.md, "traj.h5md of a Monte
 * Carlo run".
 */
#ifndef VESICA_H5MD_MC_H
#define VESICA_H5MD_MC_H

#include <stddef.h>
#include <stdint.h>

#include "mc_state.h"
#include "parallel.h"
#include "params.h"

/* One box at a frame: its particles (the engine's arrays and order) and its observables. */
typedef struct {
    vs_mc_box_data box;
    double volume, density, energy, pressure;
} vs_h5md_mc_box;

/* Append the frame of `cycle` (n_boxes boxes); with `create` a new file replaces any old
 * one first. Returns 0, or -1 with one line in err. */
int vs_h5md_mc_append(const char *path, int create, int n_boxes, int64_t cycle,
                      const vs_h5md_mc_box *boxes, char *err, size_t err_len);

/* The same frame written by every rank of par (MPI-IO), each its rows of each box b: the
 * particles in boxes[b].box (any order; sorted by tag here) are rows [row0[b], row0[b] +
 * their number) of the box's n_all[b] in tag order; boxes[b]'s observables the same on every
 * rank. Collective; the same return and err on every rank. */
int vs_h5md_mc_append_rows(const vs_par *par, const char *path, int create, int n_boxes,
                           int64_t cycle, const vs_h5md_mc_box *boxes, const int64_t *n_all,
                           const int64_t *row0, char *err, size_t err_len);

/* Whether every rank may append to the trajectory at path through MPI-IO: its series were
 * made with their chunks allocated early, as a file made through MPI-IO has them (a file one
 * rank made allocates them as written, and Open MPI's MPI-IO then fails to write to it). */
int vs_h5md_mc_parallel_ok(const char *path);

/* Drop every frame whose cycle is above max_cycle (a restart from a checkpoint there).
 * Returns the frames kept, or -1 with one line in err. */
int64_t vs_h5md_mc_trim(const char *path, int64_t max_cycle, char *err, size_t err_len);

#endif
