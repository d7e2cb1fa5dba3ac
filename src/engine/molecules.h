/* The molecule builder: molecules of the configuration's templates as random-walk chains.
 *
 * Tags [0, prm->molecules.n_molecule_beads) are the molecules' beads: template by template,
 * molecule by molecule, bead by bead along the chain. A chain starts at a uniform random point of
 * the box and each next bead lies one bond length (vs_mol_template.bond_length) away in a uniform
 * random direction; the walk is unwrapped and each bead then wrapped into the box with its
 * image counts, so bonds never span the box. Every number is drawn from the TEA generator
 * keyed by (seed, tag) under a stream no time step uses: the system depends on the seed only,
 * never on the rank count or the backend. Each rank walks every chain and keeps the beads in
 * its brick (O(molecule beads) work per rank at start-up, no memory beyond its own beads).
 *
 * Topology: a bead is bonded to its neighbours along the chain (the previous one first) and
 * takes part in every angle of three consecutive beads that contains it, in chain order.
 * Molecule ids count from 1 over all templates; free beads have 0.
 */
#ifndef VESICA_MOLECULES_H
#define VESICA_MOLECULES_H

#include <stdint.h>

#include "decomp.h"
#include "params.h"
#include "particles.h"

/* Where a molecule bead's tag sits: its template, the molecule's global index (over all
 * templates) and its first tag, and the bead's place along the chain. */
typedef struct {
    int template_index;
    int64_t molecule, first_tag, bead, n_beads;
} vs_mol_place;

void vs_mol_place_of_tag(const vs_params *prm, int64_t tag, vs_mol_place *out);
/* Species of a molecule bead (tag < prm->molecules.n_molecule_beads). */
int vs_mol_species_of_tag(const vs_params *prm, int64_t tag);
/* Append this rank's molecule beads (position, image, tag, species, topology, dihedrals where
 * p has dihedral records; velocities are the caller's) to p, which must have topology; with special
 * lists (p->special, made when vs_special_depth > 0) each bead's list too, from the chain (the
 * whole graph is known from the tags alone). */
void vs_mol_build(vs_particles *p, const vs_params *prm, const vs_decomp *dc);

/* The special-neighbour lists (up to `depth`) of n records with their topology records, from
 * the bonds of those records (they must hold every bead's partners: the whole system, as an
 * input file gives it on rank 0); out holds n. Returns 0, or -1 with a message in err. */
int vs_special_of_records(const vs_particle_rec *recs, const vs_topo *topo, int64_t n,
                          int depth, vs_special *out, char *err, size_t err_len);

#endif
