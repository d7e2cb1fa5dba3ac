/* Tabulated bonded energies (the `table` styles of bonds, angles and dihedrals): a cubic
 * spline of E(x) on a uniform grid (vs_table, params.h). The force comes from the spline's own
 * derivative, so it is exactly minus the derivative of the energy that is reported, and both
 * are continuous (C2 spline). Bonds and angles use the natural spline (E'' = 0 at both ends),
 * dihedrals the periodic one (E, E' and E'' the same at -180 and 180 degrees).
 *
 * vs_table_eval is written once for host and device; vs_table_build (table.c) makes the
 * coefficients on the host from the grid values.
 */
#ifndef VESICA_TABLE_H
#define VESICA_TABLE_H

#include <math.h>

#include "hostdevice.h"
#include "params.h"

/* E(x) and dE/dx in *dEdx. Returns 0, or 1 when x lies outside [lo, lo + (n - 1) dx] (the
 * energy and derivative are then those of the nearest end's cubic, for a message only). */
VS_HOST_DEVICE int vs_table_eval(const vs_table *t, double x, double *e, double *dEdx)
{
    const double u = (x - t->lo) / t->dx;
    int out = !(u >= 0.0 && u <= (double)(t->n - 1));
    int k = out ? (u < 0.0 ? 0 : t->n - 2) : (int)u;
    if (k > t->n - 2)
        k = t->n - 2; /* x at the last grid point */
    const double s = x - (t->lo + (double)k * t->dx);
    const double *c = t->coef + 4 * k;
    *dEdx = c[1] + s * (2.0 * c[2] + 3.0 * s * c[3]);
    *e = c[0] + s * (c[1] + s * (c[2] + s * c[3]));
    return out;
}

/* The spline through y[0 .. n) at x_k = lo + k dx (n >= 4): natural (periodic = 0) or
 * periodic (y[n-1] must equal y[0]). Writes 4 (n - 1) coefficients to coef. */
void vs_table_build(int n, double dx, const double *y, int periodic, double *coef);

#endif
