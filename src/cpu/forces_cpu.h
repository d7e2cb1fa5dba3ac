/* DPD forces on the CPU backend (the reference): pair forces from the Verlet list plus the
 * per-species body force. */
#ifndef VESICA_FORCES_CPU_H
#define VESICA_FORCES_CPU_H

#include <stdint.h>

#include "dpd_pair.h"
#include "neighbor.h"
#include "observables.h"
#include "params.h"
#include "particles.h"

/* Overwrite p->f for owned particles with the forces at `step` (the step number keys the
 * pair random stream). Owned-ghost pairs count half towards the sums, since the rank that
 * owns the ghost counts the other half. */
void vs_forces_cpu(const vs_neighbor *nl, vs_particles *p, const vs_params *prm,
                   const vs_dpd_consts *c, int64_t step, vs_force_sums *sums);

#endif
