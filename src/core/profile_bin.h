/* One particle's share of a binned profile sample, written once for the host and the device.
 *
 * A sample sums, per bin (and per set of particles: all, then each species when asked), six
 * integers: the count, and the mass, momentum (three components) and twice the kinetic energy
 * in fixed point, 2^32 quanta per unit. Integer sums do not depend on the order of the adds,
 * so a sample is the same on any rank count and on both backends (the GPU adds with
 * atomics), and the rounding of each particle's share is the same on host and device
 * (round to nearest even, both). A bin of 10^6 particles of |m v^2| up to 10^3 stays below
 * 2^63.
 *
 * With output.pressure_tensor twelve more follow: sum m v_a v_b and the particles' shares of
 * the virial tensor W_ab (their fixed-point sums, observables.h: the same quantum), each in
 * the order xx, yy, zz, xy, xz, yz.
 *
 * Frozen wall particles (species.frozen) are not part of the fluid: in the set of all
 * particles they add their virial shares only (the stress the wall transmits stays in the
 * bins it acts in), not their count, mass, momentum or kinetic terms, so the density,
 * velocity, temperature and kinetic tensor profiles are the moving particles'. Their own
 * species' set (per_species) counts them as any other.
 */
#ifndef VESICA_PROFILE_BIN_H
#define VESICA_PROFILE_BIN_H

#include <math.h>
#include <stdint.h>

#include "hostdevice.h"

#define VS_PROFILE_FIELDS 6 /* count, m, m vx, m vy, m vz, m v^2 */
#define VS_PROFILE_QUANTUM 4294967296.0
#define VS_PROFILE_TENSOR_FIELDS 12 /* m v_a v_b (6), W_ab (6) */

/* The integers per bin and set: with the pressure tensor's or without. */
VS_HOST_DEVICE int vs_profile_fields(int tensor)
{
    return VS_PROFILE_FIELDS + (tensor ? VS_PROFILE_TENSOR_FIELDS : 0);
}

/* The first of a particle's integers that its bin's set of all particles takes: all of them,
 * or for a frozen particle the virial shares only (none without the tensor's fields). */
VS_HOST_DEVICE int vs_profile_all_first(int frozen)
{
    return frozen ? VS_PROFILE_FIELDS + VS_PROFILE_TENSOR_FIELDS / 2 : 0;
}

/* The bin of coordinate x (any periodic image) among `bins` equal bins of [0, len). */
VS_HOST_DEVICE int vs_profile_bin(double x, double len, int bins)
{
    const double u = x / len;
    const int b = (int)((u - floor(u)) * (double)bins);
    return b < 0 ? 0 : (b >= bins ? bins - 1 : b);
}

VS_HOST_DEVICE int64_t vs_profile_fixed(double v)
{
#ifdef __CUDA_ARCH__
    return (int64_t)__double2ll_rn(v * VS_PROFILE_QUANTUM);
#else
    return (int64_t)llrint(v * VS_PROFILE_QUANTUM);
#endif
}

/* The six integers of a particle of mass m and velocity v. */
VS_HOST_DEVICE void vs_profile_share(double m, double vx, double vy, double vz, int64_t out[6])
{
    out[0] = 1;
    out[1] = vs_profile_fixed(m);
    out[2] = vs_profile_fixed(m * vx);
    out[3] = vs_profile_fixed(m * vy);
    out[4] = vs_profile_fixed(m * vz);
    out[5] = vs_profile_fixed(m * (vx * vx + vy * vy + vz * vz));
}

/* The six integers m v_a v_b of a particle (xx, yy, zz, xy, xz, yz). */
VS_HOST_DEVICE void vs_profile_kinetic_tensor(double m, double vx, double vy, double vz,
                                              int64_t out[6])
{
    out[0] = vs_profile_fixed(m * vx * vx);
    out[1] = vs_profile_fixed(m * vy * vy);
    out[2] = vs_profile_fixed(m * vz * vz);
    out[3] = vs_profile_fixed(m * vx * vy);
    out[4] = vs_profile_fixed(m * vx * vz);
    out[5] = vs_profile_fixed(m * vy * vz);
}

#endif
