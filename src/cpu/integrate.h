/* Velocity Verlet with Groot & Warren's velocity prediction (J. Chem. Phys. 107, 4423, 1997):
 *   x(t+dt)  = x + dt v + dt^2/2 f/m
 *   v~(t+dt) = v + lambda dt f/m          (what the dissipative force sees)
 *   f(t+dt)  = F(x(t+dt), v~(t+dt))
 *   v(t+dt)  = v + dt/2 (f + f(t+dt))/m
 * lambda = 0.5 is plain velocity Verlet for the conservative part. */
#ifndef VESICA_INTEGRATE_H
#define VESICA_INTEGRATE_H

#include "params.h"
#include "particles.h"

/* x to t+dt, v to the half step, vp to the prediction. */
void vs_integrate_first_half(vs_particles *p, const vs_params *prm);
/* v to t+dt with the new forces. */
void vs_integrate_second_half(vs_particles *p, const vs_params *prm);

#endif
