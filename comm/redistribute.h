/* Whole-particle redistribution by all-to-all: to the rank that owns a tag range (for output
 * in global tag order) or to the rank whose brick holds the position (for restarts and the
 * canonical re-start after a checkpoint).
 *
 * The staged halo migration (halo.c) moves a particle at most one brick per dimension, which
 * is all a time step needs; a checkpoint read on a different rank count (each rank reads a
 * contiguous tag range, so its particles lie anywhere in the box) needs arbitrary
 * destinations, hence one all-to-all. Both functions return records sorted by tag, so the
 * result does not depend on the order of the input or on the path a particle took.
 */
#ifndef VESICA_REDISTRIBUTE_H
#define VESICA_REDISTRIBUTE_H

#include <stdint.h>

#include "decomp.h"
#include "particles.h"

/* Tag slab of `rank` among `size` ranks for n_total particles: [lo, hi), contiguous, sizes
 * differing by at most one. */
void vs_tag_slab(int64_t n_total, int size, int rank, int64_t *lo, int64_t *hi);

/* Send each of the n records to the rank owning its tag slab. Returns a malloc'd array of
 * this rank's slab sorted by tag, its length in *n_out. Collective. */
vs_particle_rec *vs_redistribute_by_tag(const vs_par *par, const vs_particle_rec *recs,
                                        int64_t n, int64_t n_total, int64_t *n_out);

/* Wrap each record into the box [0, L) (updating its image counts), send it to the rank
 * whose brick holds it. Returns a malloc'd array sorted by tag, its length in *n_out.
 * Collective over dc->cart. */
vs_particle_rec *vs_redistribute_by_brick(const vs_decomp *dc, vs_particle_rec *recs, int64_t n,
                                          int64_t *n_out);

/* The same with the particles' optional records (molecules' topology, special-neighbour
 * lists): each kind present in *ext (ext NULL: none) belongs to recs[i] and travels with it;
 * *ext_out (when not NULL) receives the malloc'd records of the same kinds, one per output
 * record, in the same order, NULL for the kinds absent. Collective. */
vs_particle_rec *vs_redistribute_by_tag_ext(const vs_par *par, const vs_particle_rec *recs,
                                            const vs_particle_ext *ext, int64_t n,
                                            int64_t n_total, int64_t *n_out,
                                            vs_particle_ext *ext_out);
vs_particle_rec *vs_redistribute_by_brick_ext(const vs_decomp *dc, vs_particle_rec *recs,
                                              const vs_particle_ext *ext, int64_t n,
                                              int64_t *n_out, vs_particle_ext *ext_out);

#endif
