/* Initial state: uniform random positions at the configured density and species fractions,
 * Maxwell-Boltzmann velocities at k_B T with zero total momentum.
 *
 * Every particle's position, velocity and species is a function of (seed, tag) alone, drawn
 * from the same TEA generator as the pair forces under keys that no time step uses, so the
 * initial state is identical whatever the rank count. Each rank scans all N tags and keeps
 * those in its brick: O(N) per rank at start-up, negligible next to a run below ~1e9
 * particles; a tag-range scheme with migration would replace it beyond that.
 */
#ifndef VESICA_INIT_H
#define VESICA_INIT_H

#include "decomp.h"
#include "params.h"
#include "particles.h"

/* Create this rank's particles, remove the centre-of-mass velocity and scale the velocities
 * to k_B T exactly (3N - 3 degrees of freedom). Collective over dc->cart. */
void vs_init_particles(vs_particles *p, const vs_params *prm, const vs_decomp *dc);

/* Maxwell-Boltzmann velocities for the owned particles (a function of seed and tag), zero
 * total momentum, k_B T exactly: for a system read from a file without velocities.
 * Collective over dc->cart. */
void vs_init_velocities(vs_particles *p, const vs_params *prm, const vs_decomp *dc);

/* Species of a tag: tags are assigned to species in contiguous blocks whose sizes follow the
 * fractions (cumulative rounding, so the counts sum to N exactly). */
/* The orientation records of the owned particles (enabled here): for each particle of an
 * oriented species, with draw_n a direction n uniform on the sphere and with draw_u a rate u
 * perpendicular to n from the Maxwell-Boltzmann distribution at dpd.kT (kT / I per
 * rotational degree of freedom), each a function of the seed and the tag alone, so the
 * same on any rank count; a point bead's record is zero. */
void vs_init_orientations(vs_particles *p, const vs_params *prm, int draw_n, int draw_u);
int vs_init_species_of_tag(const vs_params *prm, int64_t tag);

#endif
