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

#include <math.h>
#include <stdint.h>

#include "hostdevice.h"
#include "tea_rng.h"

/* The drift x(t+dt) - x(t) from v(t) and a = f(t)/m, products unfused (the CPU's rounding on
 * every device kernel variant: a position rounded onto the grid must not depend on which
 * variant ran, src/core/position_grid.h). */
VS_HOST_DEVICE double vs_vv_displacement(double v, double a, double dt, double half_dt)
{
    return vs_mul_rn(dt, v + vs_mul_rn(half_dt, a));
}

/* x(t+dt) from x(t), v(t) and a = f(t)/m. */
VS_HOST_DEVICE double vs_vv_drift(double x, double v, double a, double dt, double half_dt)
{
    return x + vs_vv_displacement(v, a, dt, half_dt);
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

/* Berendsen's velocity factor sqrt(1 + dt / tau (kT / T - 1)) at T = ke2 / dof (2K over the
 * degrees of freedom); 1 where ke2 or dof is not positive. The product is rounded on its own,
 * so host and device give the same bits. */
VS_HOST_DEVICE double vs_berendsen_scale(double dt, double tau, double kT, double ke2, double dof)
{
    if (!(ke2 > 0.0) || !(dof > 0.0))
        return 1.0;
    const double t = ke2 / dof;
    const double f2 = 1.0 + vs_mul_rn(dt / tau, kT / t - 1.0);
    return f2 > 0.0 ? sqrt(f2) : 0.0;
}

/* The npt half-steps (src/core/ensemble.h: the exact solutions of the barostat-coupled
 * equations over dt/2 and dt, with factors from v_eps): a velocity component
 * v <- cv v + cf a, a position x <- cx x + cxv v (the new v). */
VS_HOST_DEVICE double vs_npt_kick(double v, double a, double cv, double cf)
{
    return cv * v + cf * a;
}

VS_HOST_DEVICE double vs_npt_drift(double x, double v, double cx, double cxv)
{
    return cx * x + cxv * v;
}

/* ---- The molecular-dynamics ensembles (integrator.kind other than dpd) --------------------
 *
 * They wrap the velocity Verlet steps above (lambda as configured; lambda = 0.5 is plain
 * velocity Verlet) with per-particle operations written here once for both backends, and
 * with global ones (velocity scaling by a factor the engine computes from the exact kinetic
 * energy: src/engine/ensemble.c):
 *   langevin   Bussi & Parrinello's splitting (Phys. Rev. E 75, 056707, 2007): an exact
 *              Ornstein-Uhlenbeck half-step O(dt/2) before the first half-kick and after the
 *              second, v <- c v + sqrt((1 - c^2) kT / m) G with c = exp(-gamma dt / 2);
 *   andersen   after the second half-kick, each particle with probability
 *              1 - exp(-nu dt) gets a new velocity from the Maxwell-Boltzmann distribution;
 *   brownian   overdamped: x <- x + dt f / (m gamma) + sqrt(2 kT dt / (m gamma)) G, and the
 *              velocity a Maxwell-Boltzmann draw (for the thermo row; it moves nothing).
 * Random numbers: TEA keyed by (seed, step, tag) and a stream number, so that they depend on
 * neither the rank count nor the order of the particles; the stream occupies the top byte of
 * the step word of the key (the pair stream's is 0: steps stay below 2^56), so no stream
 * repeats another's or the DPD pairs'. G are Gaussian by Box-Muller. */

enum {
    VS_STREAM_LANGEVIN_FIRST = 1,  /* O(dt/2) before the first half-kick */
    VS_STREAM_LANGEVIN_SECOND = 2, /* O(dt/2) after the second half-kick */
    VS_STREAM_ANDERSEN = 3,
    VS_STREAM_BROWNIAN = 4
};

/* 64 random bits number k (0..3) of stream `stream` for the particle `tag` at `step`. */
VS_HOST_DEVICE vs_tea_block vs_particle_bits(uint64_t seed, uint64_t step, int stream, int k,
                                             uint64_t tag)
{
    const uint64_t word = step ^ ((uint64_t)(4 * stream + k) << 56);
    return vs_tea_encrypt(vs_tea_make_key(seed, word), (uint32_t)tag, (uint32_t)(tag >> 32));
}

/* Two independent standard Gaussians from 64 random bits (Box-Muller, both branches). */
VS_HOST_DEVICE void vs_gauss2(vs_tea_block b, double *g0, double *g1)
{
    const double r = sqrt(-2.0 * log(vs_u32_to_open_unit(b.v0)));
    const double phi = 6.283185307179586 * vs_u32_to_open_unit(b.v1);
    *g0 = r * cos(phi);
    *g1 = r * sin(phi);
}

/* Three standard Gaussians of the particle: bits k and k + 1 of the stream. */
VS_HOST_DEVICE void vs_particle_gauss3(uint64_t seed, uint64_t step, int stream, int k,
                                       uint64_t tag, double g[3])
{
    double unused;
    vs_gauss2(vs_particle_bits(seed, step, stream, k, tag), &g[0], &g[1]);
    vs_gauss2(vs_particle_bits(seed, step, stream, k + 1, tag), &g[2], &unused);
}

/* The Ornstein-Uhlenbeck step of one component: c = exp(-gamma h), sigma = sqrt((1 - c^2)
 * kT / m) for a step h. Exact for the friction and noise alone: it keeps the
 * Maxwell-Boltzmann distribution of v at any h. Both products round on their own (the
 * CPU's rounding): the device compiler would fuse one of them into the sum, and which one
 * depends on the kernel around it, so the fused Langevin step (gpu_integrate.cu) and the
 * separate passes would part. */
VS_HOST_DEVICE double vs_ou_step(double v, double c, double sigma, double g)
{
    return vs_mul_rn(c, v) + vs_mul_rn(sigma, g);
}

/* Andersen: whether the particle collides at this step (probability p), from bits 0 of its
 * stream; the new velocity then uses bits 1 and 2. */
VS_HOST_DEVICE int vs_andersen_collides(uint64_t seed, uint64_t step, uint64_t tag, double p)
{
    return vs_u32_to_open_unit(vs_particle_bits(seed, step, VS_STREAM_ANDERSEN, 0, tag).v0) < p;
}

/* Brownian (Euler-Maruyama) displacement of one component: dt f / (m gamma) + noise g with
 * mobility_dt = dt / (m gamma) and noise = sqrt(2 kT dt / (m gamma)). */
VS_HOST_DEVICE double vs_brownian_displacement(double f, double mobility_dt, double noise,
                                               double g)
{
    return vs_mul_rn(mobility_dt, f) + vs_mul_rn(noise, g);
}

VS_HOST_DEVICE double vs_brownian_move(double x, double f, double mobility_dt, double noise,
                                       double g)
{
    return x + vs_brownian_displacement(f, mobility_dt, noise, g);
}

/* ---- Rotation of an oriented particle (the soft anisotropic model, pair_aniso.h) ----------
 *
 * A unit vector n with rate u = dn/dt (u perpendicular to n) and moment of inertia I obeys
 *   dn/dt = u,   du/dt = g_perp / I + lambda n      (GALAMOST's eqs. 19-20)
 * with g = -dU/dn, g_perp = g - (g . n) n and lambda the multiplier that keeps |n| = 1
 * (lambda = -|u|^2). The step is velocity Verlet split into exact flows:
 *   kick    u <- u + dt/2 g_perp(t) / I                  (the potential's flow at fixed n)
 *   drift   n, u rotated by the angle |u| dt along the great circle through n in the
 *           direction of u (the free flow on the sphere: n(t) = n cos(w t) + (u / w)
 *           sin(w t), w = |u|; lambda = -w^2 there)
 *   kick    u <- u + dt/2 g_perp(t + dt) / I
 * Each part is the exact flow of one part of the Hamiltonian, so the composition is
 * symplectic and time-reversible: the energy error stays bounded and is O(dt^2) where the
 * forces are smooth. |n| = 1 and u . n = 0 hold exactly in each part; the drift renormalises
 * n and projects u once more against rounding. The rotational kinetic energy is I |u|^2 / 2
 * (two degrees of freedom). */

/* The kick: u + h (g - (g . n) n), h = dt/2 / I. */
VS_HOST_DEVICE void vs_rot_kick(double u[3], const double n[3], const double g[3], double h)
{
    const double gn = g[0] * n[0] + g[1] * n[1] + g[2] * n[2];
    for (int q = 0; q < 3; ++q)
        u[q] += h * (g[q] - gn * n[q]);
}

/* The drift over dt: the great-circle rotation of n and u by the angle |u| dt. */
VS_HOST_DEVICE void vs_rot_drift(double n[3], double u[3], double dt)
{
    const double w2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    const double w = sqrt(w2), a = w * dt;
    const double c = cos(a);
    /* sin(a) / w, and w sin(a) = w^2 sin(a) / w, without dividing by a small w */
    const double sw = a > 1e-6 ? sin(a) / w : dt * (1.0 - a * a / 6.0);
    double m[3], v[3];
    for (int q = 0; q < 3; ++q) {
        m[q] = c * n[q] + sw * u[q];
        v[q] = c * u[q] - w2 * sw * n[q];
    }
    const double inv = 1.0 / sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    for (int q = 0; q < 3; ++q)
        m[q] *= inv;
    const double vm = v[0] * m[0] + v[1] * m[1] + v[2] * m[2];
    for (int q = 0; q < 3; ++q) {
        n[q] = m[q];
        u[q] = v[q] - vm * m[q];
    }
}

/* The Ornstein-Uhlenbeck step of the rotation (langevin, the same friction rate as the
 * translation): u <- c u + sigma (G - (G . n) n), sigma = sqrt((1 - c^2) kT / I), G three
 * standard Gaussians; the projection makes it an isotropic Gaussian in the plane
 * perpendicular to n (two degrees of freedom), so the step keeps the Maxwell-Boltzmann
 * distribution of u at any step size. */
VS_HOST_DEVICE void vs_rot_ou_step(double u[3], const double n[3], double c, double sigma,
                                   const double g[3])
{
    const double gn = g[0] * n[0] + g[1] * n[1] + g[2] * n[2];
    for (int q = 0; q < 3; ++q)
        u[q] = c * u[q] + sigma * (g[q] - gn * n[q]);
}

#endif
