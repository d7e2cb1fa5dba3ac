/* Particle state as structures of arrays, owned particles first, ghosts after.
 *
 * Indices [0, n_owned) are the particles this rank integrates; [n_owned, n_owned + n_ghost) are
 * ghosts: copies of particles within the ghost width of this brick, owned by a neighbour rank
 * or (for a dimension with one rank) periodic images of this rank's own particles, shifted by
 * the box. Ghosts carry only what the pair force reads (position, predicted velocity, tag,
 * species); the per-owned arrays (v, f, image, x_build) are allocated to the same capacity so
 * one index space serves both.
 *
 * Velocities (Groot & Warren 1997 velocity Verlet):
 *   v  : v(t) between steps; v(t) + dt/2 f(t)/m after the first half-step
 *   vp : the predicted velocity v(t) + lambda dt f(t)/m that the dissipative force sees
 */
#ifndef VESICA_PARTICLES_H
#define VESICA_PARTICLES_H

#include <stdint.h>

#include "special.h"
#include "topology.h"

/* The orientation of an oriented particle (species with a moment of inertia; the soft
 * anisotropic model, pair_aniso.h): the unit vector n, its rate u = dn/dt (perpendicular to
 * n) and the orientation gradient g = -dU/dn of the last force evaluation (owned slots; a
 * ghost slot holds n alone). A point bead's record is n = u = g = 0 and never changes. */
typedef struct {
    double n[3], u[3], g[3];
} vs_orient;

typedef struct {
    int64_t n_owned, n_ghost, capacity;
    double *x[3];       /* position (length units) */
    double *vp[3];      /* predicted velocity for the pair force (owned and ghosts) */
    int64_t *tag;       /* global id, never changes, 0 .. N-1 */
    int32_t *species;   /* index into vs_params.species */
    double *v[3];       /* velocity (owned) */
    double *f[3];       /* total force (owned) */
    int32_t *image[3];  /* periodic image counts: unwrapped x = x + image * box (owned) */
    double *x_build[3]; /* position at the last neighbour-list build (owned) */
    uint64_t *signature; /* pair-RNG signature at the step of the last force evaluation
                          * (tea_rng.h), owned and ghosts; scratch of the force loop */
    vs_topo *topo;       /* NULL without molecules; else one per slot (topology.h): owned
                          * slots hold the bead's bonds and angles, ghosts only n_bond */
    vs_dihedrals *dih;   /* NULL unless the run has dihedrals (vs_params_dihedrals); else one
                          * per slot, owned slots only */
    vs_special *special; /* NULL unless some pair style scales special neighbours
                          * (vs_special_depth); else one per slot, owned slots only */
    vs_orient *orient;   /* NULL unless some species is oriented (vs_params_oriented); else
                          * one per slot, owned and ghosts */
} vs_particles;

void vs_particles_init(vs_particles *p, int64_t capacity);
void vs_particles_free(vs_particles *p);
/* Grow (never shrink) so that at least `needed` particles fit; contents are kept. */
void vs_particles_reserve(vs_particles *p, int64_t needed);
/* Reorder the owned particles: new slot k takes old slot order[k]. `scratch` must hold
 * n_owned * 8 bytes. Ghosts are not kept (call before the ghosts are built). */
void vs_particles_permute_owned(vs_particles *p, const int64_t *order, void *scratch);
/* Give the particles topology records (all zero: free beads); a no-op when they have them. */
void vs_particles_enable_topology(vs_particles *p);
/* Give the particles special-neighbour lists (all empty); a no-op when they have them. */
void vs_particles_enable_special(vs_particles *p);
/* Give the particles dihedral records (all empty); a no-op when they have them. */
void vs_particles_enable_dihedrals(vs_particles *p);
/* Give the particles orientation records (all zero); a no-op when they have them. */
void vs_particles_enable_orient(vs_particles *p);
/* Bytes of particle state per allocated slot (owned or ghost), topology excluded. */
unsigned long vs_particles_bytes_per_slot(void);
/* Copy every owned field of particle `from` to slot `to` (for hole filling). */
void vs_particles_copy_owned(vs_particles *p, int64_t to, int64_t from);

/* One particle with everything the integrator needs, as one record: the unit of the
 * all-to-all redistributions (by tag range for output, by brick for restarts) and of
 * checkpoints. x_build is not carried: a neighbour-list build follows every unpack. */
typedef struct {
    double x[3], v[3], vp[3], f[3];
    int64_t tag;
    int32_t species;
    int32_t image[3];
} vs_particle_rec;

/* Records as they travel between ranks in the staged exchanges (host and device alike): a
 * migrating particle carries what the integrator needs (forces are recomputed after every
 * migration), a new ghost what the pair force reads, a ghost update only what changes. */
typedef struct {
    double x[3], v[3], vp[3];
    int64_t tag;
    int32_t species;
    int32_t image[3];
} vs_migrant_rec;

typedef struct {
    double x[3], vp[3];
    int64_t tag;
    int32_t species;
    int32_t pad;
} vs_ghost_rec;

typedef struct {
    double x[3], vp[3];
} vs_ghost_update_rec;

/* The optional per-particle records of n particles beside their records, in the same order
 * (each NULL where the run has none): they travel with the particle records through the
 * redistributions and checkpoints. */
typedef struct {
    vs_topo *topo;       /* molecules */
    vs_special *special; /* special-neighbour lists (vs_special_depth > 0) */
    vs_dihedrals *dih;   /* dihedrals (vs_params_dihedrals) */
    vs_orient *orient;   /* orientations (vs_params_oriented) */
} vs_particle_ext;

/* Free the records of e (not e itself) and set them NULL. */
void vs_particle_ext_free(vs_particle_ext *e);

/* The owned particles as records (out holds n_owned). */
void vs_particles_pack(const vs_particles *p, vs_particle_rec *out);
/* Replace the owned particles by `n` records; no ghosts afterwards. */
void vs_particles_unpack(vs_particles *p, const vs_particle_rec *in, int64_t n);
/* The owned particles' topology records (out holds n_owned), and their replacement after
 * vs_particles_unpack (in: one per unpacked record, in the same order). */
void vs_particles_pack_topo(const vs_particles *p, vs_topo *out);
void vs_particles_unpack_topo(vs_particles *p, const vs_topo *in, int64_t n);
/* The owned particles' optional records (malloc'd, NULL where absent), and their
 * replacement after vs_particles_unpack (records present in `in` are enabled in p). */
void vs_particles_pack_ext(const vs_particles *p, vs_particle_ext *out);
void vs_particles_unpack_ext(vs_particles *p, const vs_particle_ext *in, int64_t n);
/* Sort records by tag (>= 0; a radix sort, stable, so even repeated tags, which the callers
 * report as lost or duplicated particles, come out in one determined order); `ext`, when not
 * NULL, holds one record of each kind present per particle record, put in the same order. */
void vs_particle_recs_sort_by_tag(vs_particle_rec *r, int64_t n);
void vs_particle_recs_sort_by_tag_ext(vs_particle_rec *r, vs_particle_ext *ext, int64_t n);
/* Wrap a record's (finite) position into [0, box) and count the images, as migration does:
 * x + L may round onto L itself, so it stays just below. */
void vs_particle_rec_wrap(vs_particle_rec *r, const double box[3]);

#endif
