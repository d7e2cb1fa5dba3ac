/* Periodic wrapping of one coordinate, and the reflection at a wall, written once for the
 * host and the device.
 *
 * A coordinate that leaves [0, L) through a face re-enters through the opposite one and its
 * image count changes by one. x + L can round onto L itself for a tiny negative x, so a
 * coordinate wrapped down is kept just below L (its image still changes). Migration (host and
 * device), checkpoint records and the device's in-place wrap all go through here, so every
 * path puts a particle at the same position.
 */
#ifndef VESICA_WRAP_H
#define VESICA_WRAP_H

#include <math.h>
#include <stdint.h>

#include "hostdevice.h"

/* x if it is below len, else the largest double below len. */
VS_HOST_DEVICE double vs_keep_below(double x, double len)
{
    return x < len ? x : nextafter(len, 0.0);
}

/* Across the lower face (x < 0) into [0, len). */
VS_HOST_DEVICE void vs_wrap_down(double *x, int32_t *image, double len)
{
    *x = vs_keep_below(*x + len, len);
    *image -= 1;
}

/* Across the upper face (x >= len) into [0, len). */
VS_HOST_DEVICE void vs_wrap_up(double *x, int32_t *image, double len)
{
    *x -= len;
    *image += 1;
}

/* Into [0, len) for a coordinate any number of box lengths outside (output records). */
VS_HOST_DEVICE void vs_wrap_into(double *x, int32_t *image, double len)
{
    while (*x < 0.0)
        vs_wrap_down(x, image, len);
    while (*x >= len)
        vs_wrap_up(x, image, len);
}

/* Into [0, len) for a coordinate at most one box length outside. */
VS_HOST_DEVICE void vs_wrap_periodic(double *x, int32_t *image, double len)
{
    if (*x < 0.0)
        vs_wrap_down(x, image, len);
    else if (*x >= len)
        vs_wrap_up(x, image, len);
}

/* The walls (boundary.x, .y, .z; params.h) as the integrators need them: a kind per axis
 * (0 periodic, 1 bounce-forward, 2 bounce-back), the box edges, and each wall's velocity
 * u[axis][0 at 0, 1 at the edge][component]. */
typedef struct {
    int kind[3];
    double len[3];
    double u[3][2][3];
} vs_walls;

/* A particle that crossed wall faces in the last drift is mirrored back (x -> -x at 0, or
 * x -> 2 len - x at the edge), along every axis it crossed, and then its velocity is turned:
 * bounce-back (no slip) reverses it relative to the wall's own (v -> 2 u - v, u the wall's
 * tangential velocity; at a corner of two moving walls, the sum of theirs), bounce-forward
 * (specular, free slip) turns the normal component inward and keeps the others; the normal
 * component ends inward on every wall crossed. The same rule acts on v and on the predicted
 * velocity vp that the DPD forces read. Mirroring all axes before the velocity is turned
 * makes a corner one reflection, not two that undo each other. Returns 1 when the particle is
 * still outside (it moved more than a box edge in one step: a fault the caller reports with
 * its tag), else 0. */
VS_HOST_DEVICE int vs_walls_reflect(const vs_walls *w, double x[3], double v[3], double vp[3])
{
    int crossed[3] = {0, 0, 0}, back = 0;
    double u[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < 3; ++d) {
        if (w->kind[d] == 0)
            continue;
        if (x[d] < 0.0) {
            x[d] = -x[d];
            crossed[d] = 1;
        } else if (x[d] >= w->len[d]) {
            x[d] = vs_keep_below(2.0 * w->len[d] - x[d], w->len[d]);
            crossed[d] = -1;
        } else {
            continue;
        }
        if (w->kind[d] == 2) {
            back = 1;
            for (int q = 0; q < 3; ++q)
                u[q] += w->u[d][crossed[d] > 0 ? 0 : 1][q];
        }
    }
    if (back)
        for (int q = 0; q < 3; ++q) {
            v[q] = 2.0 * u[q] - v[q];
            vp[q] = 2.0 * u[q] - vp[q];
        }
    int outside = 0;
    for (int d = 0; d < 3; ++d) {
        if (crossed[d]) { /* inward: + at the face at 0, - at the edge */
            v[d] = crossed[d] * fabs(v[d]);
            vp[d] = crossed[d] * fabs(vp[d]);
        }
        if (w->kind[d] != 0)
            outside |= !(x[d] >= 0.0 && x[d] < w->len[d]);
    }
    return outside;
}

#endif
