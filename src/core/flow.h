/* The driving fields of the flow term, written once for the host and the device.
 *
 * Double (reverse) Poiseuille flow (Backer et al., J. Chem. Phys. 122, 154503, 2005): a
 * force +g along one axis on particles whose coordinate across the flow lies in the lower
 * half of the periodic box, -g in the upper half. The two opposite Poiseuille flows meet
 * at the planes across = 0 and across = L/2, where the force changes sign, so no walls are
 * needed and the box stays periodic. Positions may sit up to a skin outside [0, L) between
 * migrations, so the half is decided on the wrapped coordinate.
 */
#ifndef VESICA_FLOW_H
#define VESICA_FLOW_H

#include <math.h>

#include "hostdevice.h"

/* +1 when x (any periodic image) lies in [0, len/2) modulo len, else -1. */
VS_HOST_DEVICE double vs_double_poiseuille_sign(double x, double len)
{
    const double u = x / len;
    return u - floor(u) < 0.5 ? 1.0 : -1.0;
}

/* The force along the flow axis on a particle of species `species` at coordinate `across`:
 * g times the sign of its half, on the driven species (driven = -1: all), else 0. */
VS_HOST_DEVICE double vs_double_poiseuille_force(double across, double len, int species,
                                                 int driven, double g)
{
    if (driven >= 0 && species != driven)
        return 0.0;
    return g * vs_double_poiseuille_sign(across, len);
}

#endif
