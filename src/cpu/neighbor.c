/* Cell and Verlet lists: see neighbor.h.
 *
 * Binning is a counting sort (count, prefix sum, scatter), so the list order is a function of
 * the particle order alone: deterministic, which makes force sums reproducible run to run.
 */
#include "neighbor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

void vs_neighbor_init(vs_neighbor *nl) { memset(nl, 0, sizeof(*nl)); }

void vs_neighbor_free(vs_neighbor *nl)
{
    free(nl->cell_start);
    free(nl->cell_particles);
    free(nl->particle_cell);
    free(nl->start);
    free(nl->partners);
    free(nl->order);
    free(nl->scratch);
    memset(nl, 0, sizeof(*nl));
}

static int clamp_cell(double x, double origin, double inv, int n)
{
    int c = (int)((x - origin) * inv);
    return c < 0 ? 0 : (c >= n ? n - 1 : c);
}

static void build_cells(vs_neighbor *nl, const vs_particles *p, const double lo[3],
                        const double hi[3], double ghost_width, double list_cutoff)
{
    int64_t total_cells = 1;
    for (int d = 0; d < 3; ++d) {
        double extent = hi[d] - lo[d] + 2.0 * ghost_width;
        int n = (int)(extent / list_cutoff);
        nl->ncell[d] = n < 1 ? 1 : n;
        nl->origin[d] = lo[d] - ghost_width;
        nl->inv_cell[d] = nl->ncell[d] / extent;
        total_cells *= nl->ncell[d];
    }
    const int64_t n_all = p->n_owned + p->n_ghost;
    if (total_cells + 1 > nl->cap_cells) {
        nl->cap_cells = total_cells + 1;
        nl->cell_start = VS_REALLOC(nl->cell_start, sizeof(int64_t) * (size_t)nl->cap_cells);
    }
    if (n_all > nl->cap_particles) {
        nl->cap_particles = n_all + n_all / 4 + 64;
        nl->cell_particles =
            VS_REALLOC(nl->cell_particles, sizeof(int64_t) * (size_t)nl->cap_particles);
        nl->particle_cell =
            VS_REALLOC(nl->particle_cell, sizeof(int64_t) * (size_t)nl->cap_particles);
    }
    memset(nl->cell_start, 0, sizeof(int64_t) * (size_t)(total_cells + 1));
    for (int64_t i = 0; i < n_all; ++i) {
        int cx = clamp_cell(p->x[0][i], nl->origin[0], nl->inv_cell[0], nl->ncell[0]);
        int cy = clamp_cell(p->x[1][i], nl->origin[1], nl->inv_cell[1], nl->ncell[1]);
        int cz = clamp_cell(p->x[2][i], nl->origin[2], nl->inv_cell[2], nl->ncell[2]);
        int64_t c = ((int64_t)cz * nl->ncell[1] + cy) * nl->ncell[0] + cx;
        nl->particle_cell[i] = c;
        nl->cell_start[c + 1]++;
    }
    for (int64_t c = 0; c < total_cells; ++c)
        nl->cell_start[c + 1] += nl->cell_start[c];
    /* scatter in particle order; cell_start[c] is used as the running cursor, then restored */
    for (int64_t i = 0; i < n_all; ++i)
        nl->cell_particles[nl->cell_start[nl->particle_cell[i]]++] = i;
    for (int64_t c = total_cells; c > 0; --c)
        nl->cell_start[c] = nl->cell_start[c - 1];
    nl->cell_start[0] = 0;
}

void vs_neighbor_build_cells(vs_neighbor *nl, const vs_particles *p, const double lo[3],
                             const double hi[3], double ghost_width, double list_cutoff)
{
    build_cells(nl, p, lo, hi, ghost_width, list_cutoff);
}

static void reserve_start(vs_neighbor *nl, int64_t n)
{
    if (n + 1 > nl->cap_start) {
        nl->cap_start = n + n / 4 + 64;
        nl->start = VS_REALLOC(nl->start, sizeof(int64_t) * (size_t)nl->cap_start);
    }
}

void vs_neighbor_build_no_pairs(vs_neighbor *nl, const vs_particles *p, const double lo[3],
                                const double hi[3], double ghost_width, double list_cutoff)
{
    build_cells(nl, p, lo, hi, ghost_width, list_cutoff);
    const int64_t n = p->n_owned;
    reserve_start(nl, n);
    memset(nl->start, 0, sizeof(int64_t) * (size_t)(n + 1));
    nl->n_pairs = 0;
}

void vs_neighbor_build(vs_neighbor *nl, const vs_particles *p, const double lo[3],
                       const double hi[3], double ghost_width, double list_cutoff)
{
    build_cells(nl, p, lo, hi, ghost_width, list_cutoff);
    const int64_t n = p->n_owned;
    reserve_start(nl, n);
    if (nl->cap_partners == 0) {
        nl->cap_partners = 64 * (n + 16);
        nl->partners = VS_REALLOC(nl->partners, sizeof(int64_t) * (size_t)nl->cap_partners);
    }
    const double cut2 = list_cutoff * list_cutoff;
    const int *nc = nl->ncell;
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) {
        nl->start[i] = count;
        const double xi = p->x[0][i], yi = p->x[1][i], zi = p->x[2][i];
        const int64_t ci = nl->particle_cell[i];
        const int cx = (int)(ci % nc[0]), cy = (int)((ci / nc[0]) % nc[1]),
                  cz = (int)(ci / ((int64_t)nc[0] * nc[1]));
        for (int dz = -1; dz <= 1; ++dz) {
            int z = cz + dz;
            if (z < 0 || z >= nc[2])
                continue;
            for (int dy = -1; dy <= 1; ++dy) {
                int y = cy + dy;
                if (y < 0 || y >= nc[1])
                    continue;
                for (int dx = -1; dx <= 1; ++dx) {
                    int x = cx + dx;
                    if (x < 0 || x >= nc[0])
                        continue;
                    int64_t c = ((int64_t)z * nc[1] + y) * nc[0] + x;
                    for (int64_t k = nl->cell_start[c]; k < nl->cell_start[c + 1]; ++k) {
                        int64_t j = nl->cell_particles[k];
                        if (j < n && j <= i)
                            continue; /* owned pairs once, with the lower index */
                        double ddx = xi - p->x[0][j], ddy = yi - p->x[1][j],
                               ddz = zi - p->x[2][j];
                        if (ddx * ddx + ddy * ddy + ddz * ddz >= cut2)
                            continue;
                        if (count == nl->cap_partners) {
                            nl->cap_partners += nl->cap_partners / 2;
                            nl->partners = VS_REALLOC(nl->partners,
                                                      sizeof(int64_t) * (size_t)nl->cap_partners);
                        }
                        nl->partners[count++] = j;
                    }
                }
            }
        }
    }
    nl->start[n] = count;
    nl->n_pairs = count;
}

void vs_neighbor_sort_owned(vs_neighbor *nl, vs_particles *p, const double lo[3],
                            const double hi[3], double cell_size)
{
    const int64_t n = p->n_owned;
    if (n > nl->cap_sort) {
        nl->cap_sort = n + n / 4 + 64;
        nl->order = VS_REALLOC(nl->order, sizeof(int64_t) * (size_t)nl->cap_sort);
        nl->scratch = VS_REALLOC(nl->scratch, sizeof(double) * (size_t)nl->cap_sort);
    }
    /* the cell list over the brick alone (no ghost margin); its counting sort is the order */
    const vs_particles owned_only = {.n_owned = n, .n_ghost = 0,
                                     .x = {p->x[0], p->x[1], p->x[2]}};
    build_cells(nl, &owned_only, lo, hi, 0.0, cell_size);
    memcpy(nl->order, nl->cell_particles, sizeof(int64_t) * (size_t)n);
    vs_particles_permute_owned(p, nl->order, nl->scratch);
}

double vs_neighbor_max_displacement2(const vs_particles *p)
{
    double max2 = 0.0;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        double dx = p->x[0][i] - p->x_build[0][i], dy = p->x[1][i] - p->x_build[1][i],
               dz = p->x[2][i] - p->x_build[2][i];
        double r2 = dx * dx + dy * dy + dz * dz;
        /* a NaN position must trigger a rebuild, where migration reports it */
        if (!(r2 <= max2)) {
            if (isnan(r2))
                return INFINITY;
            max2 = r2;
        }
    }
    return max2;
}

void vs_neighbor_mark_built(vs_particles *p)
{
    for (int d = 0; d < 3; ++d)
        memcpy(p->x_build[d], p->x[d], sizeof(double) * (size_t)p->n_owned);
}
