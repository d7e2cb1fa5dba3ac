/* Ghost exchange and migration in three stages (x, then y, then z), two messages per stage.
 *
 * A particle within the ghost width w of a brick face is copied to the neighbour across that
 * face. Stage y sends the ghosts received in stage x along with owned particles, and stage z
 * those of x and y, so edge and corner neighbours are reached through 6 messages instead of
 * 26 (the CoMD scheme). Crossing the periodic boundary shifts the copy by the box, so a
 * dimension with a single rank exchanges with itself (no MPI: the packed records are unpacked
 * directly) and its ghosts are the periodic images: one code path for 1 and for P ranks. The
 * stages, shifts, peers and counts are the driver's (exchange.h); halo.c supplies the host
 * operations.
 *
 * Send lists (indices into the particle arrays) are built on neighbour-list rebuild steps and
 * reused on the other steps, when only positions and predicted velocities travel, into the
 * same ghost slots. Migration (rebuild steps only, before the ghosts are rebuilt) moves owned
 * particles that left the brick to their new owner with everything they carry, in the same
 * staged pattern; a particle can move at most one brick per dimension between rebuilds, which
 * the rebuild trigger (half the skin) guarantees and the code checks.
 *
 * DPD needs no reverse communication: forces are computed for owned particles only and the
 * pair random numbers agree on both sides of a rank boundary.
 *
 * Molecules (particles with topology, topology.h): a migrant carries its bead's vs_topo after
 * its record (the record size of the exchange grows only then), a ghost record's pad word
 * carries the bead's bond count, and a bonded bead is sent as a ghost out to `bonded_width`
 * when that is wider than the list radius (the reach of its bonded partners plus the skin),
 * while free beads stay within the list radius. With dihedrals a migrant carries its
 * vs_dihedrals after the vs_topo, with special-neighbour lists (special.h) its vs_special
 * after that; ghosts need none (a pair takes its factor from
 * the owned bead's list).
 */
#ifndef VESICA_HALO_H
#define VESICA_HALO_H

#include <stddef.h>
#include <stdint.h>

#include "decomp.h"
#include "particles.h"

typedef struct {
    int64_t *send_idx[3][2];   /* particles sent in stage d towards lower (0) / upper (1) */
    int64_t n_send[3][2], cap_send[3][2];
    int64_t recv_start[3][2];  /* first ghost slot filled from the upper (0) / lower (1) peer */
    int64_t n_recv[3][2];
    double shift[3][2];        /* added to coordinate d of what is sent (periodic image) */
    void *send_buf, *recv_buf; /* staging buffers, grown on demand, reused every step */
    size_t send_cap, recv_cap;
    double bonded_width;       /* ghost width of bonded beads (molecules), when wider */
    int64_t bytes_last_exchange; /* bytes this rank sent to other ranks in the last ghost
                                   exchange: a build's records or an update's positions */
} vs_halo;

void vs_halo_init(vs_halo *h);
void vs_halo_free(vs_halo *h);

/* Move owned particles outside this brick to their owners and wrap periodic coordinates
 * (updating image flags). Discards ghosts. Returns the number of particles that left. */
int64_t vs_halo_migrate(vs_halo *h, const vs_decomp *dc, vs_particles *p, int64_t step);

/* Build send lists and receive fresh ghosts (tag, species, x, vp) within `width` of the
 * brick. Call after vs_halo_migrate. */
void vs_halo_build_ghosts(vs_halo *h, const vs_decomp *dc, vs_particles *p, double width);

/* Refresh ghost positions and predicted velocities through the stored send lists. */
void vs_halo_update_ghosts(vs_halo *h, const vs_decomp *dc, vs_particles *p);

#endif
