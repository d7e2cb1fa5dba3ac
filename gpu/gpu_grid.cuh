/* The cell grid of the GPU backend: its geometry, a point's cell, the stencil rows that a
 * walk or a list builder visits around it, and the Morton code of the periodic reorder
 * (included by gpu_internal.cuh). */
#ifndef VESICA_GPU_GRID_CUH
#define VESICA_GPU_GRID_CUH

#include <cuda_runtime.h>
#include <stdint.h>

/* The cell grid over the brick extended by the ghost width. Cells are at least 1 / yz_reach
 * of the list radius wide in y and z and at least 1 / x_reach of it along x, so a particle's
 * partners lie in the (2 yz_reach + 1)^2 rows along x around its cell, each row x_reach cells
 * to either side. The
 * cell list is ordered by the linear cell index (x fastest), so a row is one contiguous
 * range, trimmed per particle to the cells its sphere reaches (vs_stencil_row). The periodic
 * reordering of the owned particles sorts by the Morton (Z-curve) code of their cell, so
 * that particles close in space sit close in memory. */
struct vs_gpu_grid {
    int ncell[3];
    int x_reach;      /* cells per list radius along x (vs_gpu_plan) */
    int yz_reach;     /* and along y and z */
    int morton_shift; /* the Morton code interleaves the cell coordinates >> morton_shift */
    int z_first;      /* the z layer stored first in the linear cell index, the layers below
                         it last (vs_layer_slot): 0, or the lower ghost layers' number, so
                         that the owned layers of slabs along z come first */
    double origin[3];
    double inv_cell[3];
    float cell[3];    /* cell widths */
    /* a fixed-point coordinate q (vs_fixed_frame) in cell widths from the origin is
     * q * q_scale + q_offset (vs_cell_of_q) */
    double q_scale[3], q_offset[3];
};

/* The place of z layer cz in the linear cell index: layers from z_first on come first, in
 * order, and those below it after them. Rows along x stay contiguous. */
__host__ __device__ __forceinline__ int vs_layer_slot(const vs_gpu_grid &g, int cz)
{
    const int slot = cz - g.z_first;
    return slot < 0 ? slot + g.ncell[2] : slot;
}

/* Interleave the low 10 bits of v with two zero bits each. */
__host__ __device__ __forceinline__ uint32_t vs_spread_bits10(uint32_t v)
{
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

/* Morton code of a cell, over cubes of the list radius (coordinates divided by the reach). */
__device__ __forceinline__ uint32_t vs_morton_code(const vs_gpu_grid &g, const int c[3])
{
    const int s = g.morton_shift;
    return vs_spread_bits10((uint32_t)(c[0] / g.x_reach) >> s) |
           (vs_spread_bits10((uint32_t)(c[1] / g.yz_reach) >> s) << 1) |
           (vs_spread_bits10((uint32_t)(c[2] / g.yz_reach) >> s) << 2);
}

/* The cell of the point at u (in cell widths from the grid origin, per axis; linear index,
 * c its coordinates) and, in frac, where the point lies within it (0..1 along each axis).
 * Points are inside the grid (owned particles in the brick, ghosts within the ghost width);
 * one outside is clamped into the edge cell (and frac to 0 or 1, which only widens the
 * trimmed rows). */
__device__ __forceinline__ uint32_t vs_cell_at(const vs_gpu_grid &g, const double u[3],
                                               int c[3], float *frac)
{
    for (int d = 0; d < 3; ++d) {
        int k = u[d] >= 0.0 ? (int)u[d] : 0; /* NaN lands in cell 0, found later by integrity */
        c[d] = k < g.ncell[d] ? k : g.ncell[d] - 1;
        if (frac) {
            const double f = u[d] - c[d];
            frac[d] = f > 0.0 ? (f < 1.0 ? (float)f : 1.0f) : 0.0f;
        }
    }
    return ((uint32_t)vs_layer_slot(g, c[2]) * (uint32_t)g.ncell[1] + (uint32_t)c[1]) *
               (uint32_t)g.ncell[0] +
           (uint32_t)c[0];
}

/* The cell of position (x, y, z) (see vs_cell_at). */
__device__ __forceinline__ uint32_t vs_cell_of(const vs_gpu_grid &g, double x, double y,
                                               double z, int c[3], float *frac = NULL)
{
    const double u[3] = {(x - g.origin[0]) * g.inv_cell[0], (y - g.origin[1]) * g.inv_cell[1],
                         (z - g.origin[2]) * g.inv_cell[2]};
    return vs_cell_at(g, u, c, frac);
}

/* The cell of a fixed-point position (vs_fixed_frame; see vs_cell_at). In mixed precision the
 * cell list sorts by this cell, and the cell-list force kernel finds its particle's cell
 * again from the same int4 with the same rounded operations (no contraction can differ). */
__device__ __forceinline__ uint32_t vs_cell_of_q(const vs_gpu_grid &g, const int4 &p, int c[3],
                                                 float *frac = NULL)
{
    const double u[3] = {__fma_rn((double)p.x, g.q_scale[0], g.q_offset[0]),
                         __fma_rn((double)p.y, g.q_scale[1], g.q_offset[1]),
                         __fma_rn((double)p.z, g.q_scale[2], g.q_offset[2])};
    return vs_cell_at(g, u, c, frac);
}

/* The distance along one axis from a point at `frac` within its cell to the near face of
 * the cell d away (cells `cell` wide). */
__device__ __forceinline__ float vs_row_gap(float frac, int d, float cell)
{
    if (d > 0)
        return ((float)d - frac) * cell;
    if (d == -1)
        return frac * cell;
    if (d < 0)
        return (frac + (float)(-d - 1)) * cell;
    return 0.0f;
}

/* Row (dy, dz) of the stencil (dy, dz in -yz_reach..yz_reach) around a particle in cell c at
 * `frac` within it: false when the row lies farther than sqrt(cut2) from the particle in y
 * and z; else the first and last cell (linear indices) of the row that come within sqrt(cut2)
 * along x. cut2 carries a margin over the list radius (vs_row_cut2), so rounding never drops
 * a partner. */
__device__ __forceinline__ bool vs_stencil_row(const vs_gpu_grid &g, const int c[3],
                                               const float frac[3], float cut2, int dy,
                                               int dz, int *first, int *last)
{
    const int cy = c[1] + dy, cz = c[2] + dz;
    if (cy < 0 || cy >= g.ncell[1] || cz < 0 || cz >= g.ncell[2])
        return false;
    /* distance from the particle to the row's near faces in y and z (|d| cells away: the
     * same arithmetic as for the next cell when |d| = 1) */
    const float gy = vs_row_gap(frac[1], dy, g.cell[1]), gz = vs_row_gap(frac[2], dz, g.cell[2]);
    const float left = cut2 - gy * gy - gz * gz;
    if (left <= 0.0f)
        return false;
    /* the cells along x that the half-chord reaches, within x_reach of the particle's (a
     * fast division, within 2 ulp: cut2's margin, vs_row_cut2, is far wider) */
    const float w = __fdividef(sqrtf(left), g.cell[0]);
    int lo = c[0] + (int)floorf(frac[0] - w), hi = c[0] + (int)floorf(frac[0] + w);
    lo = max(lo, max(c[0] - g.x_reach, 0));
    hi = min(hi, min(c[0] + g.x_reach, g.ncell[0] - 1));
    const int row = (vs_layer_slot(g, cz) * g.ncell[1] + cy) * g.ncell[0];
    *first = row + lo;
    *last = row + hi;
    return true;
}

/* The half stencil of the Newton kernels around the particle at cell-list entry k (p, its
 * position as listed): row 0, its own row after entry k, and the rows (dy, dz) = (1, 0),
 * (-1, 1), (0, 1), (1, 1), each trimmed to sqrt(row_cut2); visit(first, end) takes each
 * row's range of cell-list entries. A pair's two particles see each other in opposite rows,
 * and in the own row only the earlier entry walks on to the later, so each pair is found
 * once. */
template <typename Visit>
__device__ __forceinline__ void vs_newton_half_rows(const vs_gpu_grid &grid,
                                                    const uint32_t *cell_start, const int4 &p,
                                                    uint32_t k, float row_cut2, Visit visit)
{
    int c[3];
    float frac[3];
    vs_cell_of_q(grid, p, c, frac);
    for (int row = 0; row < 5; ++row) {
        const int dy = row == 0 ? 0 : (row == 1 ? 1 : row - 3), dz = row < 2 ? 0 : 1;
        int first_cell, last_cell;
        if (!vs_stencil_row(grid, c, frac, row_cut2, dy, dz, &first_cell, &last_cell))
            continue;
        visit(row == 0 ? k + 1 : cell_start[first_cell], cell_start[last_cell + 1]);
    }
}

/* The radius (squared) to which stencil rows are trimmed for a list radius `cutoff`: wider
 * by a relative 1e-4, far above the fp32 rounding of the row geometry. */
static inline float vs_row_cut2(double cutoff)
{
    const double r = cutoff * (1.0 + 1e-4);
    return (float)(r * r);
}

#endif
