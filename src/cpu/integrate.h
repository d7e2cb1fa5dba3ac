/* The CPU backend's integrator: the Verlet steps of src/core/integrator.h (Groot & Warren's
 * velocity Verlet, written once for host and device) over the owned particles. */
#ifndef VESICA_INTEGRATE_H
#define VESICA_INTEGRATE_H

#include "ensemble.h"
#include "fixed_sum.h"
#include "params.h"
#include "particles.h"

/* x to t+dt, v to the half step, vp to the prediction. */
void vs_integrate_first_half(vs_particles *p, const vs_params *prm);
/* v to t+dt with the new forces. */
void vs_integrate_second_half(vs_particles *p, const vs_params *prm);

/* An npt half-step (integrator.h, vs_npt_*): v <- cv v + cf f / m, and in the first half
 * x <- cx x + cxv v and vp <- v. */
void vs_integrate_npt(vs_particles *p, const vs_params *prm, const vs_npt_coefs *c, int first);

/* The ensembles' per-particle operations (integrator.h), over the owned particles. */
void vs_integrate_ensemble_op(vs_particles *p, const vs_params *prm,
                              const vs_ensemble_consts *c, vs_ensemble_op op, int64_t step);
/* The Brownian step to `step`: x from the forces and noise, v a Maxwell-Boltzmann draw,
 * vp = v. */
void vs_integrate_brownian(vs_particles *p, const vs_params *prm, const vs_ensemble_consts *c,
                           int64_t step);
/* v *= s; v -= dv. */
void vs_scale_velocities(vs_particles *p, const vs_params *prm, double s);
void vs_shift_velocities(vs_particles *p, const vs_params *prm, const double dv[3]);
/* The walls (params.h, boundary): every owned particle that crossed a wall face since the
 * last call is reflected (wrap.h, vs_wall_reflect); one still outside is a fatal fault
 * naming its tag. Called by the first half-step and the Brownian move after they move. */
void vs_integrate_walls(vs_particles *p, const vs_params *prm);
/* Exact local sums (fixed_sum.h) of m vx, m vy, m vz, m v^2 / 2 and m; returns 0, or 1 when a
 * term was out of range (a blown-up run). */
int vs_momentum_sums(const vs_particles *p, const vs_params *prm, vs_wide out[5]);

/* Oriented particles (p->orient; integrator.h's rotation): the first half, kick by the last
 * gradient then the great-circle drift, or the second half, the kick by the new gradient,
 * of every owned particle of an oriented species. */
void vs_integrate_rotation(vs_particles *p, const vs_params *prm, int first);
/* The rotational Ornstein-Uhlenbeck half-step of langevin (stream: the translation's, bits
 * 2 and 3 of the particle's key). */
void vs_integrate_rotation_ou(vs_particles *p, const vs_params *prm,
                              const vs_ensemble_consts *c, int stream, int64_t step);
/* Every oriented particle's u scaled by s (berendsen's rotational factor). */
void vs_scale_rotation(vs_particles *p, double s);
/* Exact local sums of I |u|^2 / 2 and of the number of oriented particles; 1 when a term
 * was out of range. */
int vs_rotation_sums(const vs_particles *p, const vs_params *prm, vs_wide out[2]);

#endif
