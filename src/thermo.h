/* Thermodynamic observables and the particle-integrity check, reduced over all ranks.
 *
 *   temperature  T = 2 K / (3N - 3)   (the centre-of-mass momentum is conserved)
 *   pressure     p = (N T + W / 3) / V,  W = sum over pairs of r_ij . F^C_ij
 * Only the conservative force enters the virial, as in Groot & Warren (1997): the dissipative
 * and random virials average to zero in equilibrium and only add noise. */
#ifndef VESICA_THERMO_H
#define VESICA_THERMO_H

#include <stdint.h>

#include "forces_cpu.h"
#include "parallel.h"
#include "params.h"
#include "particles.h"

typedef struct {
    int64_t step;
    double time;
    double temperature, pressure;
    double kinetic, potential;
    double momentum[3];
} vs_thermo;

void vs_thermo_compute(const vs_par *par, const vs_particles *p, const vs_params *prm,
                       const vs_force_sums *sums, int64_t step, vs_thermo *out);

/* Verify the global particle count, a checksum of tags (every tag 0..N-1 exactly once) and
 * finite positions and velocities, like LAMMPS's 'Lost atoms'. Collective. Returns 0 when
 * all is well; otherwise every rank returns non-zero and the ranks that can name the
 * offending step, rank and tag have logged it. */
int vs_check_integrity(const vs_par *par, const vs_particles *p, int64_t n_total,
                       int64_t step);

#endif
