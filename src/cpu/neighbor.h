/* Cell list and Verlet neighbour list with a skin (CPU backend).
 *
 * Cells tile the brick extended by the ghost width on every side, each at least r_c + skin
 * wide, so the 27 cells around a particle hold every partner within r_c + skin. The list is a
 * half list over owned particles: an owned-owned pair is stored once (j > i) and its force
 * applied to both; an owned-ghost pair is stored with the owned particle only, and the rank
 * that owns the ghost stores the mirror pair. Rebuilt when any particle has moved more than
 * half the skin since the last build, which guarantees no pair inside r_c is missing.
 */
#ifndef VESICA_NEIGHBOR_H
#define VESICA_NEIGHBOR_H

#include <stdint.h>

#include "particles.h"

typedef struct {
    /* cell list over owned + ghost particles */
    int ncell[3];
    double origin[3], inv_cell[3];
    int64_t *cell_start; /* ncell + 1 offsets into cell_particles */
    int64_t *cell_particles;
    int64_t *particle_cell;
    int64_t cap_cells, cap_particles;
    /* CSR half list for owned particles */
    int64_t *start;     /* n_owned + 1 */
    int64_t *partners;
    int64_t cap_start, cap_partners;
    int64_t n_pairs;
    /* scratch for the spatial sort */
    int64_t *order;
    void *scratch;
    int64_t cap_sort;
} vs_neighbor;

void vs_neighbor_init(vs_neighbor *nl);
void vs_neighbor_free(vs_neighbor *nl);

/* Build the list for the particles of a brick [lo, hi) with ghosts out to `ghost_width`,
 * keeping pairs closer than `list_cutoff` (r_c + skin). */
void vs_neighbor_build(vs_neighbor *nl, const vs_particles *p, const double lo[3],
                       const double hi[3], double ghost_width, double list_cutoff);

/* The cell list alone (no pairs): what a search of the 27 cells around a particle needs. */
void vs_neighbor_build_cells(vs_neighbor *nl, const vs_particles *p, const double lo[3],
                             const double hi[3], double ghost_width, double list_cutoff);
/* The cells of vs_neighbor_build and an empty list (no pairs): for a run whose pair terms
 * walk nothing (an inert DPD term, vs_dpd_inert), whose cells the reactions' search still
 * reads. */
void vs_neighbor_build_no_pairs(vs_neighbor *nl, const vs_particles *p, const double lo[3],
                                const double hi[3], double ghost_width, double list_cutoff);

/* Sort the owned particles by cell of the brick (cells of at least `cell_size`), so
 * particles that interact sit close in memory: fewer cache misses in the list build and the
 * force loop. Call after migration, before the ghosts are built. */
void vs_neighbor_sort_owned(vs_neighbor *nl, vs_particles *p, const double lo[3],
                            const double hi[3], double cell_size);

/* Squared largest displacement of an owned particle since the last build (x_build). */
double vs_neighbor_max_displacement2(const vs_particles *p);
/* Record the current positions as the build positions. */
void vs_neighbor_mark_built(vs_particles *p);

#endif
