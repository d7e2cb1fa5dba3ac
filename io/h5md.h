/* H5MD 1.1 trajectory (output.dir/traj.h5md), written collectively by all ranks through
 * parallel HDF5.
 *
 * Rows are in global tag order: before a frame is written the particles are redistributed so
 * that each rank holds one contiguous tag slab (redistribute.h), and every rank writes its
 * slab as one hyperslab of the frame. Readers therefore see the same order whatever the rank
 * count. The file is opened, extended by one frame, and closed for every frame, so a run that
 * is killed between frames leaves a complete file. Layout: docs/file-formats.md.
 */
#ifndef VESICA_H5MD_H
#define VESICA_H5MD_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "parallel.h"
#include "params.h"
#include "particles.h"
#include "observables.h"
#include "wrap.h"

/* A frame's particle data on this rank: its tag slab [lo, lo + n) in tag order, positions
 * wrapped into the box with their image counts, and velocities; three values per particle
 * each. The arrays hold room for `cap` particles and are kept from frame to frame. */
typedef struct {
    double *x, *v;
    int32_t *image;
    double *orient; /* oriented runs: the unit vectors n, three per particle; else NULL */
    int64_t n, lo, cap;
} vs_frame_fields;

/* Row `row` of the fields: the position wrapped into the box with its image count to match,
 * and the velocity (the state itself wraps only at rebuilds). */
static inline void vs_frame_fields_set(vs_frame_fields *ff, int64_t row, const double x[3],
                                       const double v[3], const int32_t image[3],
                                       const double box[3])
{
    for (int d = 0; d < 3; ++d) {
        double xd = x[d];
        int32_t im = image[d];
        vs_wrap_into(&xd, &im, box[d]);
        ff->x[3 * row + d] = xd;
        ff->v[3 * row + d] = v[d];
        ff->image[3 * row + d] = im;
    }
}

/* Room for n particles (contents not kept). */
void vs_frame_fields_reserve(vs_frame_fields *ff, int64_t n);
void vs_frame_fields_free(vs_frame_fields *ff);
/* The fields of a tag slab of records (n of them from tag lo), wrapped into box. */
void vs_frame_fields_from_slab(vs_frame_fields *ff, const vs_particle_rec *slab, int64_t n,
                               int64_t lo, const double box[3]);

/* The orientations of the fields' n particles (records in the same tag order). */
void vs_frame_fields_orient(vs_frame_fields *ff, const vs_orient *o);

/* Append one frame at `step`: this rank's fields `ff`, the thermo row `t` of the same step
 * (for /observables). With `create`, a new file replaces any old one first, and `slab` (the
 * records of the same tag slab), `topo` (their topology records, or NULL for a plain fluid)
 * and `dih` (their dihedral records, NULL without dihedrals) give the species, molecule ids
 * and connectivity; without `create` they are not read, except in runs with reactions, whose
 * every frame takes them (h5md_reactions.h). Returns 0, or -1 with one line in
 * err (same verdict on every rank). *bytes receives the bytes of particle data this frame
 * added (all ranks). Collective. */
int vs_h5md_append(const vs_par *par, const char *path, int create, const vs_params *prm,
                   const vs_thermo *t, const vs_frame_fields *ff, const vs_particle_rec *slab,
                   const vs_topo *topo, const vs_dihedrals *dih, double *bytes, char *err,
                   size_t err_len);

/* The /h5md group of a new file (version 1.1, author `user`, creator Vesica and its version),
 * shared with the Monte Carlo trajectory (h5md_mc.h); the author's name from $USER or
 * $LOGNAME. Returns 0 or -1. */
int vs_h5md_write_header(hid_t f, const char *user);
void vs_h5md_user(char *user, size_t len);
/* The step and time of time-series group g: hard links to those of the group `position`
 * (>= 0), or its own empty extendable datasets (position < 0). Returns 0 or -1. */
int vs_h5md_series_clock(hid_t g, hid_t position);

/* Drop every frame whose step is above max_step (a restart from a checkpoint at max_step).
 * Returns the number of frames kept, or -1 with one line in err (missing or unreadable file).
 * Collective. */
int64_t vs_h5md_trim(const vs_par *par, const char *path, int64_t max_step, char *err,
                     size_t err_len);

#endif
