/* The reaction step on the GPU backend's own state (gpu_reaction.cu), for the runs whose
 * rules it covers: chain growth alone (no creation or breaking rules) and no special-neighbour
 * lists (src/engine/reactions.c decides; the others go through the host mirror).
 *
 * The engine's step (src/engine/reactions.h) is unchanged in what it decides: this rank's
 * claims, every claim to every rank, the same events resolved everywhere, each applied to
 * the beads a rank owns. Here the claims are found on the device, one thread per owned
 * active end over a cell list of the free monomers (owned and ghost) made for the search, with
 * the tests and draws of src/core/reaction.h on the same doubles as the CPU; only the claims
 * come back (one per end whose draw passed). The events are applied on the host to copies of
 * the few records they touch (the engine's own code), fetched from the device and stored
 * back: species, bonds, angles and molecule ids of those beads, a new topology record for a
 * bead that had none. Nothing else of the state leaves the device, and no reload follows.
 * This header includes no CUDA header. */
#ifndef VESICA_GPU_REACTION_H
#define VESICA_GPU_REACTION_H

#include <stdint.h>

#include "gpu_backend.h"
#include "particles.h"
#include "reaction.h"

/* Device scratch of the reaction step (search cells, claims, fetched records), grown as
 * needed; NULL before the first step. */
typedef struct vs_gpu_rx vs_gpu_rx;

/* This rank's chain-growth claims at `step` into out (out->n set; its storage grown on the
 * host), from the ghosts and positions of the rebuild before it: every owned active end
 * with fewer than VS_MAX_BONDS bonds names the free monomer (of g->prm's chain rule, no
 * bond) of the lowest draw within the radius and claims it if its draw passes Pr. */
void vs_gpu_reaction_claims(vs_gpu_state *g, vs_gpu_rx **rx, int64_t step, vs_claim_list *out);
/* The owned beads among `tags` (n, sorted ascending, distinct) into `beads`: n_owned of
 * them, with tag, species and topo (topo: a record each, zero for a bead without one; the
 * arrays are malloc'd here, at least n long, and freed by vs_gpu_reaction_release). */
void vs_gpu_reaction_fetch(vs_gpu_state *g, vs_gpu_rx **rx, const int64_t *tags, int64_t n,
                           vs_particles *beads);
/* The fetched beads' species and records back to their slots (a bead that had no record gets
 * one); the ghosts and lists are stale until the next rebuild. */
void vs_gpu_reaction_store(vs_gpu_state *g, vs_gpu_rx *rx, const vs_particles *beads);
void vs_gpu_reaction_release(vs_particles *beads);
void vs_gpu_reaction_free(vs_gpu_rx *rx);

#endif
