/* The ensembles in the step: which backend operations make the two half-steps of the
 * configured integrator.kind, and the global thermostat arithmetic between them (the same on
 * every rank: it starts from exact sums over all ranks).
 *
 *   kind         first half                         second half
 *   dpd, nve     velocity Verlet (Groot-Warren)     kick
 *   nose_hoover  chain dt/2 (2K carried), v *= s,   kick, exact 2K, chain dt/2, v *= s
 *                velocity Verlet
 *   berendsen    velocity Verlet                    kick, exact 2K, v *= lambda
 *   langevin     O(dt/2), velocity Verlet           kick, O(dt/2)
 *   andersen     velocity Verlet                    kick, collisions
 *   brownian     the Brownian step                  nothing
 *   npt          barostat chain, particle chain,    v dt/2, exact 2K and virial, v_eps,
 *                v_eps, v dt/2, x and box dt        particle chain, barostat chain
 *                (ensemble.h; the box change rebuilds the ghosts and lists every step)
 * and, after the second half of every integrator.remove_com_every-th step, the centre-of-mass
 * velocity P / M (exact sums) is taken from every velocity. The dpd kind without the removal
 * runs exactly the backend's Verlet steps, as before the ensembles existed.
 */
#ifndef VESICA_ENSEMBLE_STEP_H
#define VESICA_ENSEMBLE_STEP_H

#include "simulation.h"
#include "thermo.h"

/* Set up the constants and the zero state (vs_sim_create). */
void vs_ensemble_setup(vs_sim *sim);
/* The first half of step sim->step + 1. Collective. */
void vs_ensemble_first_half(vs_sim *sim);
/* The second half of step sim->step. Collective. */
void vs_ensemble_second_half(vs_sim *sim);
/* Whether the second half of step sim->step and the next first half may run fused
 * (backend->integrate_finish_and_first_half): plain Verlet on both sides, nothing between. */
int vs_ensemble_fusable(const vs_sim *sim);
/* The row's ensemble columns: the conserved energy (nve: K + U; nose_hoover: K + U + E_chain)
 * and the chain's energy. */
void vs_ensemble_thermo(const vs_sim *sim, vs_thermo *t);
/* The kind's configuration name ("dpd", "nose_hoover", ...). */
const char *vs_ensemble_name(vs_integrator_kind kind);
/* Which columns a run of p has: 0 none, 1 conserved_energy, 2 thermostat_energy and
 * conserved_energy, 3 (npt) those and volume. */
int vs_ensemble_columns(const vs_params *p);

#endif
