/* The reaction step on the GPU backend's own state (gpu_reaction.cu): every rule (chain
 * growth, creation, breaking) and the special-neighbour lists; src/engine/reactions.c sends a
 * run through the host mirror instead only where VESICA_GPU_REACTIONS=mirror says so.
 *
 * The engine's step (src/engine/reactions.h) is unchanged in what it decides: this rank's
 * claims, every claim to every rank, the same events resolved everywhere, each applied to
 * the beads a rank owns. Here the claims are found on the device, with the tests and draws
 * of src/core/reaction.h on the same doubles as the CPU: one thread per owned bead that
 * searches (an active end, a bead of a creation rule) over a cell list of its partners (owned
 * and ghost) made for the search, one per owned record for breaking; only the claims come
 * back. The events are applied on the host to copies of the few records they touch (the
 * engine's own code), fetched from the device and stored back: species, bonds, angles,
 * dihedrals and molecule ids of those beads, a new topology record for a bead that had none,
 * and the special lists of the beads near a changed bond. Nothing else of the state leaves
 * the device, and no reload follows. This header includes no CUDA header. */
#ifndef VESICA_GPU_REACTION_H
#define VESICA_GPU_REACTION_H

#include <stdint.h>

#include "gpu_backend.h"
#include "particles.h"
#include "reaction.h"

/* Device scratch of the reaction step (search cells, claims, fetched records), grown as
 * needed; NULL before the first step. */
typedef struct vs_gpu_rx vs_gpu_rx;

/* This rank's claims at `step` into out (out->n set; its storage grown on the host), from
 * the ghosts and positions of the rebuild before it, as the CPU's vs_cpu_reaction_claims
 * lists them: breaking (each bond of an owned bead to a higher tag), creation (each owned
 * bead of a rule with room for a bond names its nearest partner), chain growth (each owned
 * active end names the free monomer of the lowest draw, kept if its draw passes Pr). A bond
 * whose partner is neither owned nor a ghost stops the run (vs_bonded_fail). */
void vs_gpu_reaction_claims(vs_gpu_state *g, vs_gpu_rx **rx, int64_t step, vs_claim_list *out);
/* The owned beads among `tags` (n, sorted ascending, distinct) into `beads`: n_owned of
 * them, in the order of their tags, with tag, species, topo (a record each, zero for a bead
 * without one) and, where the run has them, dih and special (the arrays are malloc'd here,
 * at least n long, and freed by vs_gpu_reaction_release). */
void vs_gpu_reaction_fetch(vs_gpu_state *g, vs_gpu_rx **rx, const int64_t *tags, int64_t n,
                           vs_particles *beads);
/* The beads of the latest fetch back to their slots: species, topo and dih (a bead that had
 * no record gets one); the ghosts and lists are stale until the next rebuild. */
void vs_gpu_reaction_store(vs_gpu_state *g, vs_gpu_rx *rx, const vs_particles *beads);
/* The special lists of `beads` (fetched, tags ascending) back to their owned slots. */
void vs_gpu_reaction_store_special(vs_gpu_state *g, vs_gpu_rx **rx, const vs_particles *beads);
/* The owned beads with an angle or dihedral along one of the bonds `pairs` (n pairs of tags,
 * lower first, in ascending order): their tags, ascending (malloc'd; *n_out of them). */
int64_t *vs_gpu_reaction_near_broken(vs_gpu_state *g, vs_gpu_rx **rx, const int64_t *pairs,
                                     int64_t n, int64_t *n_out);
/* The owned beads that are one of `ends` (n, ascending) or whose special list names one:
 * their tags, ascending (malloc'd; *n_out of them; none without special lists). */
int64_t *vs_gpu_reaction_affected(vs_gpu_state *g, vs_gpu_rx **rx, const int64_t *ends,
                                  int64_t n, int64_t *n_out);
void vs_gpu_reaction_release(vs_particles *beads);
void vs_gpu_reaction_free(vs_gpu_rx *rx);

#endif
