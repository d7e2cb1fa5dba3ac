/* Periodic wrapping of one coordinate, written once for the host and the device.
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

#endif
