/* One fixed-point grid of positions for the whole box (mixed precision on the GPU).
 *
 * The mixed force kernels see positions as 32-bit integers of a quantum q around the brick's
 * centre (gpu_internal.cuh, vs_fixed_frame). When every position, every box edge and every
 * brick centre is an integer multiple of one q, the same for every decomposition, each
 * separation, periodic image included, is the same exact integer on every rank and every
 * rank count; with the order-free fixed-point force sums, a step then does not depend on how
 * the box is split. The engine rounds the box and the starting positions onto the grid, the
 * integrators round each drift to a whole number of quanta, and nothing else moves a
 * particle; wrapping and ghost shifts add multiples of the box, so they stay on the grid.
 *
 * q is a power of two, so x / q, the rounding and the product by q are exact in double
 * (for |x| < 2^53 q): the grid arithmetic below adds no rounding of its own.
 */
#ifndef VESICA_POSITION_GRID_H
#define VESICA_POSITION_GRID_H

#include <math.h>

#include "hostdevice.h"

/* The quantum of a brick holding the whole box with its ghost shells: the smallest power of
 * two q with 2^31 q > 2 (box / 2 + reach) along the longest edge, twice what the brick's
 * fixed-point frame needs (particles that left a brick since the last rebuild stay in
 * range). reach: the widest ghost shell plus the list radius. */
static inline double vs_grid_quantum(const double box[3], double reach)
{
    double widest = 0.0;
    for (int d = 0; d < 3; ++d)
        widest = box[d] > widest ? box[d] : widest;
    int e = 0;
    frexp(2.0 * (0.5 * widest + reach), &e); /* < 2^e */
    return ldexp(1.0, e - 31);
}

/* x rounded down onto the grid (starting positions: stays inside [0, box)). */
VS_HOST_DEVICE double vs_grid_floor(double x, double q)
{
    return q * floor(x / q);
}

/* A displacement rounded to the nearest whole number of quanta (ties to even). A product by
 * 1 / q (exact for a power of two; one division per thread for three components) rather
 * than a division per call, which the device runs as a slow sequence. */
VS_HOST_DEVICE double vs_grid_step(double d, double q)
{
    return q * rint(d * (1.0 / q));
}

/* x moved by d: on the grid when q > 0 (x already on it), exactly x + d otherwise. */
VS_HOST_DEVICE double vs_grid_move(double x, double d, double q)
{
    return q > 0.0 ? x + vs_grid_step(d, q) : x + d;
}

#endif
