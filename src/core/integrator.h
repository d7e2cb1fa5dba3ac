/* Velocity Verlet with Groot & Warren's velocity prediction (J. Chem. Phys. 107, 4423, 1997),
 * one component of one particle, written once for the host and the device:
 *   x(t+dt)  = x + dt (v + dt/2 a)           a = f(t) / m
 *   v~(t+dt) = v + lambda dt a               (what the dissipative force sees)
 *   v(t+dt/2) = v + dt/2 a
 *   f(t+dt)  = F(x(t+dt), v~(t+dt))
 *   v(t+dt)  = v(t+dt/2) + dt/2 f(t+dt) / m
 * lambda = 0.5 is plain velocity Verlet for the conservative part.
 *
 * The second half-step is one formula with two groupings of its product: the CPU backend
 * scales the force by dt/2 first (vs_vv_kick_force), the GPU backend folds dt/2 and 1/m into
 * one factor per particle (vs_vv_kick_scaled). Both are kept because each backend's reference
 * trajectories are bit-identical to their grouping.
 */
#ifndef VESICA_INTEGRATOR_H
#define VESICA_INTEGRATOR_H

#include "hostdevice.h"

/* x(t+dt) from x(t), v(t) and a = f(t)/m. */
VS_HOST_DEVICE double vs_vv_drift(double x, double v, double a, double dt, double half_dt)
{
    return x + dt * (v + half_dt * a);
}

/* The predicted velocity v~(t+dt) that the dissipative force sees. */
VS_HOST_DEVICE double vs_vv_predict(double v, double a, double lambda_dt)
{
    return v + lambda_dt * a;
}

/* A half kick by the acceleration a: v + dt/2 a. */
VS_HOST_DEVICE double vs_vv_kick(double v, double a, double half_dt)
{
    return v + half_dt * a;
}

/* The second half kick from the new force f: v + (dt/2 f) / m, grouped as the CPU backend. */
VS_HOST_DEVICE double vs_vv_kick_force(double v, double f, double inv_mass, double half_dt)
{
    return v + half_dt * f * inv_mass;
}

/* The second half kick from the new force f with the factor s = dt/2 / m of the particle
 * (the GPU backend, which computes s once per particle for three components). */
VS_HOST_DEVICE double vs_vv_kick_scaled(double v, double s, double f)
{
    return v + s * f;
}

#endif
