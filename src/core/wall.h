/* The wall force (boundary.*.force), written once for the host and the device: a force along
 * the wall's normal, pointing away from the wall, on a particle within the range d of a wall
 * face (h < d, h the distance to the face). Two forms: USER-MESO's f erfc(sqrt(3) (h - d/2) / d),
 * smooth and about 2 f at the face, and DPD's conservative weight f (1 - h / d). Particles of a
 * frozen species feel it too, but never move. The wall is an external field: its work is not
 * in the thermo's potential energy, nor its force in the virial.
 */
#ifndef VESICA_WALL_H
#define VESICA_WALL_H

#include <math.h>

#include "hostdevice.h"

/* The magnitude at distance h from a face (0 beyond d); kind: vs_wall_force_kind. */
VS_HOST_DEVICE double vs_wall_force_at(double h, int kind, double f, double d)
{
    if (!(h < d))
        return 0.0;
    if (kind == 1)
        return f * erfc(1.7320508075688772 * (h - 0.5 * d) / d);
    return f * (1.0 - h / d);
}

/* The force along axis d on a particle at coordinate x of an axis [0, len) with walls: the
 * push from the lower wall (+) and from the upper one (-). */
VS_HOST_DEVICE double vs_wall_force(double x, double len, int kind, double f, double d)
{
    return vs_wall_force_at(x, kind, f, d) - vs_wall_force_at(len - x, kind, f, d);
}

#endif
