/* Hybrid particle-field MD-SCF (Milano and Kawakatsu; GALAMOST's particle-field term), the
 * physics written once for host and device (hostdevice.h).
 *
 * The field species K (the rows of field.chi) interact through their density fractions
 * phi_K on a periodic grid of n[0] x n[1] x n[2] cells of edge h = box / n: each particle
 * spreads its share to the 8 vertices of its cell by cloud-in-cell weights (the products of
 * 1 - t and t along each axis, t its fraction of the way across the cell). The counts are
 * summed in fixed point (2^-40 of a particle), so a vertex's count is the same integer on any
 * rank count and in any order. phi_K = count_K / (rho0 h^3), rho0 the mean number density of
 * the field species, so the phi sum to 1 on average. On the vertices
 *
 *   V_K = kT sum_K' chi_KK' phi_K' + (1/kappa) (sum_K' phi_K' - 1),
 *
 * which is dW/d count_K of the discrete field energy
 *
 *   W = (rho0 h^3 / 2) sum_vertices [ kT sum_KK' chi_KK' phi_K phi_K'
 *                                     + (1/kappa) (sum_K phi_K - 1)^2 ].
 *
 * The force on a particle of species K, two ways (field.force):
 *   gradient (GALAMOST): -sum over its cell's 8 vertices of w_v (grad V_K)_v, the gradient
 *     by central differences on the grid, interpolated with the same weights;
 *   energy: -sum_v V_K(v) grad w_v, minus the derivative of W itself with respect to the
 *     particle's position (exactly, within a cell; W is continuous, its derivative jumps where
 *     a particle crosses a cell face). It conserves the field energy where the fields are
 *     updated every step.
 * Both agree where V_K is linear across the cell; they differ by O(h^2 V''') elsewhere.
 *
 * A rank works on a block of the grid: the vertices it owns, [a, b) along each axis (a
 * consistent split of the integers, vs_field_owned), plus `halo` vertices on each side
 * (vs_field_halo) that hold the contributions of its particles near and beyond its faces and
 * the potentials its particles read. Local index of global vertex g: g - (a - halo).
 */
#ifndef VESICA_FIELD_GRID_H
#define VESICA_FIELD_GRID_H

#include <math.h>
#include <stdint.h>

#include "fixed_sum.h"
#include "hostdevice.h"

#define VS_FIELD_QUANTA 0x1p40 /* count quanta per particle */
#define VS_FIELD_MAX 16        /* field species (VS_MAX_SPECIES) */

/* One rank's block of the grid. */
typedef struct {
    int n[3];    /* cells (and vertices) of the periodic grid along each axis */
    double h[3]; /* cell edges: box / n */
    int lo[3];   /* global index of the block's first vertex (a - halo) */
    int ext[3];  /* vertices of the block along each axis (b - a + 2 halo) */
} vs_field_grid;

/* The constants of the potentials and the energy, from the parameters and the particle count. */
typedef struct {
    int nf;
    double kT, inv_kappa;
    double chi[VS_FIELD_MAX][VS_FIELD_MAX];
    double phi_per_quantum; /* 1 / (VS_FIELD_QUANTA rho0 h^3) */
    double cell_count;      /* rho0 h^3: field particles per cell on average */
} vs_field_consts;

VS_HOST_DEVICE int64_t vs_field_index(const vs_field_grid *g, int i, int j, int k)
{
    return (int64_t)i + (int64_t)g->ext[0] * ((int64_t)j + (int64_t)g->ext[1] * (int64_t)k);
}

/* The cell of position x in the block (local index of its lower vertex along each axis, c)
 * and the fractions t in [0, 1) across it. Returns 0 when the cell's 8 vertices (and, for
 * the gradient, their neighbours: margin 1) lie in the block. */
VS_HOST_DEVICE int vs_field_cell(const vs_field_grid *g, const double x[3], int margin, int c[3],
                                 double t[3])
{
    int ok = 1;
    for (int d = 0; d < 3; ++d) {
        const double u = x[d] / g->h[d];
        const double f = floor(u);
        c[d] = (int)f - g->lo[d];
        t[d] = u - f;
        ok &= c[d] >= margin && c[d] + 1 + margin < g->ext[d];
    }
    return ok ? 0 : -1;
}

/* The weight of corner (dx, dy, dz) of the cell (each 0 or 1): product of 1 - t or t. */
VS_HOST_DEVICE double vs_field_weight(const double t[3], int dx, int dy, int dz)
{
    return (dx ? t[0] : 1.0 - t[0]) * (dy ? t[1] : 1.0 - t[1]) * (dz ? t[2] : 1.0 - t[2]);
}

/* A particle's share of a vertex, in count quanta (each share rounded once). */
VS_HOST_DEVICE int64_t vs_field_share(double w) { return vs_round_to_int64(w * VS_FIELD_QUANTA); }

/* The potentials V_K at one vertex from its counts q[K] (quanta), into v[K]; returns the
 * vertex's share of W. */
VS_HOST_DEVICE double vs_field_vertex(const vs_field_consts *fc, const int64_t *q, double *v)
{
    double phi[VS_FIELD_MAX];
    double total = 0.0;
    for (int k = 0; k < fc->nf; ++k) {
        phi[k] = (double)q[k] * fc->phi_per_quantum;
        total += phi[k];
    }
    const double excess = total - 1.0;
    double mix = 0.0;
    for (int k = 0; k < fc->nf; ++k) {
        double s = 0.0;
        for (int l = 0; l < fc->nf; ++l)
            s += fc->chi[k][l] * phi[l];
        v[k] = fc->kT * s + fc->inv_kappa * excess;
        mix += phi[k] * s;
    }
    return 0.5 * fc->cell_count * (fc->kT * mix + fc->inv_kappa * excess * excess);
}

/* The force of one field species' potential pot (the block's array) on a particle in cell c
 * at fractions t, by `scheme` (0: gradient, 1: energy; field.force), into f. */
VS_HOST_DEVICE void vs_field_force(const vs_field_grid *g, int scheme, const double *pot,
                                   const int c[3], const double t[3], double f[3])
{
    f[0] = f[1] = f[2] = 0.0;
    const int64_t step[3] = {1, g->ext[0], (int64_t)g->ext[0] * g->ext[1]};
    for (int dz = 0; dz < 2; ++dz)
        for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) {
                const int64_t v = vs_field_index(g, c[0] + dx, c[1] + dy, c[2] + dz);
                const int corner[3] = {dx, dy, dz};
                if (scheme == 0) {
                    const double w = vs_field_weight(t, dx, dy, dz);
                    for (int d = 0; d < 3; ++d)
                        f[d] -= w * (pot[v + step[d]] - pot[v - step[d]]) / (2.0 * g->h[d]);
                } else {
                    for (int d = 0; d < 3; ++d) {
                        /* d/dx_d of the weight: the factor along d is -1/h or +1/h */
                        double dw = (corner[d] ? 1.0 : -1.0) / g->h[d];
                        for (int e = 0; e < 3; ++e)
                            if (e != d)
                                dw *= corner[e] ? t[e] : 1.0 - t[e];
                        f[d] -= pot[v] * dw;
                    }
                }
            }
}

/* The halo of a block: the vertices beyond its owned ones on each side. A particle may be
 * skin/2 outside its brick between list builds (its owner moves it at the next one): its
 * cell starts at most 1 + D vertices below the owned ones and its far vertex D + 2 above
 * them (D = ceil(skin / 2h): the brick's faces are within one vertex of the owned range),
 * and the gradient reads one vertex farther. */
VS_HOST_DEVICE int vs_field_halo(double skin, double h)
{
    return 3 + (int)ceil(0.5 * skin / h);
}

/* The vertices brick c of p along an axis of n vertices owns: [*a, *b), a split of 0..n-1
 * that both neighbours of a face compute alike from integers. */
VS_HOST_DEVICE void vs_field_owned(int n, int c, int p, int *a, int *b)
{
    *a = (int)(((int64_t)n * c + p - 1) / p);
    *b = (int)(((int64_t)n * (c + 1) + p - 1) / p);
}

/* The block of brick `coords` (of `dims` per axis) of the grid over `box` with cells of about
 * `spacing`: the grid g, one halo for every axis (the widest axis's) and the owned vertices
 * along each axis. Both backends lay their blocks out here, so a rank's block is the same on
 * either. Returns the block's vertex count. */
static inline int64_t vs_field_block_layout(const double box[3], double spacing, double skin,
                                            const int coords[3], const int dims[3],
                                            vs_field_grid *g, int *halo, int owned[3])
{
    int hw = 0;
    for (int d = 0; d < 3; ++d) {
        g->n[d] = (int)llround(box[d] / spacing);
        g->h[d] = box[d] / g->n[d];
        const int hd = vs_field_halo(skin, g->h[d]);
        hw = hd > hw ? hd : hw;
    }
    *halo = hw;
    int64_t nvert = 1;
    for (int d = 0; d < 3; ++d) {
        int a, b;
        vs_field_owned(g->n[d], coords[d], dims[d], &a, &b);
        owned[d] = b - a;
        g->lo[d] = a - hw;
        g->ext[d] = b - a + 2 * hw;
        nvert *= g->ext[d];
    }
    return nvert;
}

/* phi_K of a block's owned vertices (owned[d] of them past `halo` on each axis) from its
 * counts (nf blocks of nvert), species after species, x fastest: a frame of fields.h5. */
static inline void vs_field_owned_phi(const vs_field_grid *g, int nf, int64_t nvert, int halo,
                                      const int owned[3], double phi_per_quantum,
                                      const int64_t *count, double *out)
{
    int64_t r = 0;
    for (int f = 0; f < nf; ++f)
        for (int k = halo; k < halo + owned[2]; ++k)
            for (int j = halo; j < halo + owned[1]; ++j)
                for (int i = halo; i < halo + owned[0]; ++i)
                    out[r++] = (double)count[f * nvert + vs_field_index(g, i, j, k)] *
                               phi_per_quantum;
}

#endif
