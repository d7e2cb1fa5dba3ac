/* integrator.kind = "nve": the Verlet half-steps of dpd, with the conserved energy K + U in
 * the thermo row. */
#include "ensemble_step.h"

const vs_ensemble_kind vs_ens_nve = {
    .kind = VS_INTEGRATOR_NVE,
    .name = "nve",
    .columns = 1,
    .fusable = 1,
    .momentum = VS_MOMENTUM_KEPT,
    .thermostat = 0,
    .first_half = vs_ens_verlet_first,
    .second_half = vs_ens_verlet_second,
    .thermostat_energy = vs_ens_chain_energy,
};
