/* Cubic splines of tabulated energies: see table.h. */
#include "table.h"

#include <stdlib.h>

#include "log.h"

/* Second derivatives m[0 .. n) of the natural spline: m_0 = m_{n-1} = 0 and, inside,
 * m_{k-1} + 4 m_k + m_{k+1} = 6 (y_{k-1} - 2 y_k + y_{k+1}) / dx^2 (Thomas algorithm). */
static void natural_moments(int n, double dx, const double *y, double *m)
{
    double *cp = VS_MALLOC(sizeof(double) * (size_t)n);
    m[0] = m[n - 1] = 0.0;
    cp[0] = 0.0;
    double prev_d = 0.0;
    for (int k = 1; k < n - 1; ++k) {
        const double rhs = 6.0 * (y[k - 1] - 2.0 * y[k] + y[k + 1]) / (dx * dx);
        const double denom = 4.0 - (k > 1 ? cp[k - 1] : 0.0);
        cp[k] = 1.0 / denom;
        prev_d = (rhs - (k > 1 ? prev_d : 0.0)) / denom;
        m[k] = prev_d;
    }
    for (int k = n - 3; k >= 1; --k)
        m[k] -= cp[k] * m[k + 1];
    free(cp);
}

/* The periodic spline's moments: the same equations around the circle of the p = n - 1
 * distinct points (m_{n-1} = m_0), a cyclic tridiagonal system solved by Sherman-Morrison. */
static void periodic_moments(int n, double dx, const double *y, double *m)
{
    const int p = n - 1;
    double *b = VS_MALLOC(sizeof(double) * (size_t)p), *c = VS_MALLOC(sizeof(double) * (size_t)p);
    double *r = VS_MALLOC(sizeof(double) * (size_t)p), *u = VS_MALLOC(sizeof(double) * (size_t)p);
    double *z = VS_MALLOC(sizeof(double) * (size_t)p);
    for (int k = 0; k < p; ++k) {
        const double ym = y[(k + p - 1) % p], yp = y[(k + 1) % p];
        r[k] = 6.0 * (ym - 2.0 * y[k] + yp) / (dx * dx);
        b[k] = 4.0;
        u[k] = 0.0;
    }
    /* A = T + u v^T with T tridiagonal (1, 4, 1), corners 1: gamma = -b0, u = (gamma,
     * 0 .., 1), v = (1, 0 .., 1 / gamma) */
    const double gamma = -4.0;
    b[0] -= gamma;
    b[p - 1] -= 1.0 / gamma;
    u[0] = gamma;
    u[p - 1] = 1.0;
    for (int pass = 0; pass < 2; ++pass) { /* T x = r, then T z = u */
        double *rhs = pass == 0 ? r : u, *out = pass == 0 ? m : z;
        c[0] = 1.0 / b[0];
        out[0] = rhs[0] / b[0];
        for (int k = 1; k < p; ++k) {
            const double denom = b[k] - c[k - 1];
            c[k] = 1.0 / denom;
            out[k] = (rhs[k] - out[k - 1]) / denom;
        }
        for (int k = p - 2; k >= 0; --k)
            out[k] -= c[k] * out[k + 1];
    }
    const double vx = m[0] + m[p - 1] / gamma, vz = z[0] + z[p - 1] / gamma;
    const double f = vx / (1.0 + vz);
    for (int k = 0; k < p; ++k)
        m[k] -= f * z[k];
    m[p] = m[0];
    free(b);
    free(c);
    free(r);
    free(u);
    free(z);
}

void vs_table_build(int n, double dx, const double *y, int periodic, double *coef)
{
    double *m = VS_MALLOC(sizeof(double) * (size_t)n);
    if (periodic)
        periodic_moments(n, dx, y, m);
    else
        natural_moments(n, dx, y, m);
    for (int k = 0; k < n - 1; ++k) { /* E on [x_k, x_k+1] in s = x - x_k */
        double *c = coef + 4 * k;
        c[0] = y[k];
        c[1] = (y[k + 1] - y[k]) / dx - dx * (2.0 * m[k] + m[k + 1]) / 6.0;
        c[2] = 0.5 * m[k];
        c[3] = (m[k + 1] - m[k]) / (6.0 * dx);
    }
    free(m);
}
