/* Topology file beside the trajectory (output.dir/topology.psf), for analysis tools:
 * MDAnalysis.Universe("topology.psf", "traj.h5md") and VMD read it as it is.
 *
 * Format: PSF with the flags "EXT NAMD" (whitespace-separated atom records, so long names and
 * large molecule ids fit; MDAnalysis and VMD read NAMD-flagged files that way). Atoms in tag
 * order, the order of traj.h5md's rows: atom id = tag + 1; segid and resname MOL for a bead of
 * a molecule, FREE for a free bead; resid = the molecule id (0 for free beads); atom name and
 * type = the species name; charge 0; mass = the species mass. Bonds and angles follow (four
 * pairs, three triples a line), each once. No dihedrals or impropers.
 *
 * Written collectively: each rank formats its tag slab and writes it at its byte offset
 * through MPI-IO into a temporary file, which rank 0 renames into place (a reader never sees
 * half a file). Memory per rank grows with its slab only.
 */
#ifndef VESICA_PSF_H
#define VESICA_PSF_H

#include <stddef.h>
#include <stdint.h>

#include "parallel.h"
#include "params.h"
#include "particles.h"

/* Write `path` from this rank's tag slab [lo, lo + n) (records in tag order, topology records
 * or NULL for a plain fluid, their dihedral records or NULL without dihedrals). Returns 0, or -1 with one line in err (same on every rank).
 * Collective. */
int vs_psf_write(const vs_par *par, const char *path, const vs_params *prm,
                 const vs_particle_rec *slab, const vs_topo *topo, const vs_dihedrals *dih,
                 int64_t n, int64_t lo, char *err, size_t err_len);

#endif
