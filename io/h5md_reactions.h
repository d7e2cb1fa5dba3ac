/* The topology of a trajectory whose topology changes (runs with reactions): H5MD 1.1
 * time-dependent elements instead of the fixed datasets of other runs. Internal to io/h5md.c;
 * the layout is in docs/file-formats.md:
 *   /particles/all/species       step, time (position's), value int32 [frames][N]
 *   /particles/all/molecule      step, time, value int64 [frames][N]
 *   /connectivity/bonds          step, time, value int64 [frames][M][2], rows past the frame's
 *                                bonds -1 (the dataset's fill value); M grows as needed
 *   /connectivity/angles         ... [frames][M][3]
 *   /connectivity/dihedrals      ... [frames][M][4]
 *   /parameters/vesica/bond_type, angle_type, dihedral_type   step, time, value int32
 *                                [frames][M], 1-based, 0 past the frame's tuples
 * Every frame lists each bond once (at its lower tag), each angle at its vertex, each dihedral
 * at its second bead, in tag order, as the fixed datasets do. */
#ifndef VESICA_H5MD_REACTIONS_H
#define VESICA_H5MD_REACTIONS_H

#include <hdf5.h>
#include <stdint.h>

#include "parallel.h"
#include "params.h"
#include "particles.h"

/* The groups and empty value datasets, after the fixed layout (position's step and time
 * exist). Returns 0 or -1. Collective. */
int vs_h5md_rx_layout(hid_t f, const vs_params *prm);
/* Frame `frame` of them from this rank's tag slab [lo, lo + n) (records, topology and, where
 * the run has them, dihedral records). The frame count is set already. Returns 0 or -1.
 * Collective. */
int vs_h5md_rx_frame(hid_t f, hid_t dxpl, const vs_par *par, hsize_t frame,
                     const vs_particle_rec *slab, const vs_topo *topo, const vs_dihedrals *dih,
                     int64_t n, int64_t lo);
/* Set their frame count (a new frame, or a restart's trim); files without them are left as
 * they are. Returns 0 or -1. Collective. */
int vs_h5md_rx_set_frames(hid_t f, hsize_t frames);

/* h5md.c's tuples of a slab (each bond at its lower tag, angle at its vertex, dihedral at its
 * second bead) as rows of ids and their 1-based types; returns the count (malloc'd). */
int64_t vs_h5md_local_tuples(const vs_particle_rec *slab, const vs_topo *topo,
                             const vs_dihedrals *dih, int64_t n, int arity, int64_t **ids,
                             int32_t **types);

#endif
