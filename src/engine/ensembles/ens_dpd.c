/* integrator.kind = "dpd": Groot and Warren's velocity Verlet, the backend's own half-steps
 * (src/core/integrator.h); no thermostat beyond the pair forces' own. */
#include "ensemble_step.h"

const vs_ensemble_kind vs_ens_dpd = {
    .kind = VS_INTEGRATOR_DPD,
    .name = "dpd",
    .columns = 0,
    .fusable = 1,
    .momentum = VS_MOMENTUM_KEPT,
    .thermostat = 1,
    .first_half = vs_ens_verlet_first,
    .second_half = vs_ens_verlet_second,
    .thermostat_energy = vs_ens_chain_energy,
};
