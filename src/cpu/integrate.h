/* The CPU backend's integrator: the Verlet steps of src/core/integrator.h (Groot & Warren's
 * velocity Verlet, written once for host and device) over the owned particles. */
#ifndef VESICA_INTEGRATE_H
#define VESICA_INTEGRATE_H

#include "params.h"
#include "particles.h"

/* x to t+dt, v to the half step, vp to the prediction. */
void vs_integrate_first_half(vs_particles *p, const vs_params *prm);
/* v to t+dt with the new forces. */
void vs_integrate_second_half(vs_particles *p, const vs_params *prm);

#endif
