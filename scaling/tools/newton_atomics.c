/* Where the Newton walk's per-pair bookkeeping goes (a host study for issue 53 item 1): over
 * uniform random points at the DPD fluid's density, with Vesica's cell grid (cells r_c / 2
 * along x, r_c along y and z), its Morton order of the particles (over cubes r_c wide), its
 * half stencil (the own row after the particle's cell-list entry, then the rows (1, 0),
 * (-1, 1), (0, 1), (1, 1)) and its blocks of 256 threads and warps of 32, count:
 *   - pairs found a particle, and how many of their j-shares fall inside the finder's block
 *     (two 32-bit shared atomics a component) or outside it (one 64-bit global atomic);
 *   - in the warp's rounds (gpu_newton.cuh, vs_newton_rounds: depth-first, 32 pairs a round),
 *     the share of pairs evaluated by their finder's own lane (the depths every lane of the
 *     warp reaches), which exp/s27-own-pairs summed without atomics.
 * Periodic box, no ghosts: every particle is owned. Build and run:
 *   cc -O2 -std=c11 -o newton_atomics scaling/tools/newton_atomics.c -lm
 *   ./newton_atomics [N] [RHO] [BLOCK]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WARP 32
static int BLOCK = 256; /* threads a block (VS_NEWTON_BLOCK) */

static double *px, *py, *pz;
static int nx, ny, nz;
static double box, cwx, cwy, cwz;

static uint64_t rng = 88172645463325252ull;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1.0p-53;
}

static uint64_t spread(uint64_t v)
{
    uint64_t x = v & 0x1fffff;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

static int cell_x(double x) { int c = (int)(x / cwx); return c < nx ? c : nx - 1; }
static int cell_y(double y) { int c = (int)(y / cwy); return c < ny ? c : ny - 1; }
static int cell_z(double z) { int c = (int)(z / cwz); return c < nz ? c : nz - 1; }
static int64_t cell_of(int i)
{
    return ((int64_t)cell_z(pz[i]) * ny + cell_y(py[i])) * nx + cell_x(px[i]);
}

typedef struct {
    uint64_t key;
    int i;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *p = a, *q = b;
    return p->key < q->key ? -1 : p->key > q->key ? 1 : (p->i > q->i) - (p->i < q->i);
}

static double wrap(double d)
{
    return d - box * round(d / box);
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 1000000;
    const double rho = argc > 2 ? atof(argv[2]) : 3.0, rc = 1.0;
    if (argc > 3)
        BLOCK = atoi(argv[3]);
    if (n < WARP || BLOCK < WARP || BLOCK % WARP != 0) {
        fprintf(stderr, "newton_atomics: N >= %d and BLOCK a multiple of %d expected\n", WARP,
                WARP);
        return 2;
    }
    box = cbrt(n / rho);
    nx = (int)(box * 2.0 / rc);
    ny = nz = (int)(box / rc);
    cwx = box / nx;
    cwy = box / ny;
    cwz = box / nz;
    double *x0 = malloc(3 * sizeof(double) * (size_t)n);
    for (int k = 0; k < 3 * n; ++k)
        x0[k] = uniform() * box;
    /* memory order: the Morton code of the cell over cubes r_c wide (x cells / 2), then the
     * cell, as the periodic reorder sorts */
    keyed *ord = malloc(sizeof(keyed) * (size_t)n);
    px = x0;
    py = x0 + n;
    pz = x0 + 2 * n;
    for (int i = 0; i < n; ++i) {
        const uint64_t m = spread((uint64_t)(cell_x(px[i]) / 2)) |
                           spread((uint64_t)cell_y(py[i])) << 1 |
                           spread((uint64_t)cell_z(pz[i])) << 2;
        ord[i].key = m << 1 | (uint64_t)(cell_x(px[i]) & 1);
        ord[i].i = i;
    }
    qsort(ord, (size_t)n, sizeof(keyed), by_key);
    double *x = malloc(3 * sizeof(double) * (size_t)n);
    for (int k = 0; k < n; ++k) {
        x[k] = px[ord[k].i];
        x[n + k] = py[ord[k].i];
        x[2 * n + k] = pz[ord[k].i];
    }
    px = x;
    py = x + n;
    pz = x + 2 * n;
    /* the cell list: entries in cell order (within a cell, memory order) */
    const int64_t ncell = (int64_t)nx * ny * nz;
    int64_t *start = calloc((size_t)ncell + 1, sizeof(int64_t));
    int *entry = malloc(sizeof(int) * (size_t)n), *rank = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i)
        ++start[cell_of(i) + 1];
    for (int64_t c = 0; c < ncell; ++c)
        start[c + 1] += start[c];
    int64_t *fill = malloc(sizeof(int64_t) * (size_t)ncell);
    for (int64_t c = 0; c < ncell; ++c)
        fill[c] = start[c];
    for (int i = 0; i < n; ++i) {
        const int64_t k = fill[cell_of(i)]++;
        entry[k] = i;
        rank[i] = (int)k;
    }
    int *found = calloc((size_t)n, sizeof(int));
    int64_t pairs = 0, in_block = 0, candidates = 0;
    const int rows[5][2] = {{0, 0}, {1, 0}, {-1, 1}, {0, 1}, {1, 1}};
    for (int i = 0; i < n; ++i) {
        const int cx = cell_x(px[i]), cy = cell_y(py[i]), cz = cell_z(pz[i]);
        for (int r = 0; r < 5; ++r) {
            const int y = (cy + rows[r][0] + ny) % ny, z = (cz + rows[r][1] + nz) % nz;
            for (int dx = -2; dx <= 2; ++dx) { /* the row's cells within x_reach (untrimmed) */
                const int xc = (cx + dx + nx) % nx;
                const int64_t c = ((int64_t)z * ny + y) * nx + xc;
                for (int64_t k = start[c]; k < start[c + 1]; ++k) {
                    const int j = entry[k];
                    if (r == 0 && k <= rank[i] && dx == 0)
                        continue; /* the own cell: entries after i's only */
                    if (r == 0 && dx < 0)
                        continue; /* the own row: the cells after i's (a periodic box) */
                    ++candidates;
                    const double ddx = wrap(px[i] - px[j]), ddy = wrap(py[i] - py[j]),
                                 ddz = wrap(pz[i] - pz[j]);
                    if (ddx * ddx + ddy * ddy + ddz * ddz < rc * rc && j != i) {
                        ++pairs;
                        ++found[i];
                        in_block += i / BLOCK == j / BLOCK;
                    }
                }
            }
        }
    }
    /* the rounds: a warp's pairs at depth d are all lanes' d-th; the lane of pair
     * t = 32 r + l is its finder when every lane has more than d */
    int64_t own = 0;
    for (int w = 0; w < n / WARP; ++w) {
        int least = 1 << 30;
        for (int l = 0; l < WARP; ++l)
            least = found[w * WARP + l] < least ? found[w * WARP + l] : least;
        own += (int64_t)least * WARP;
    }
    printf("newton_atomics: %d points, rho %.2f, box %.3f, cells %d x %d x %d\n", n, rho, box, nx,
           ny, nz);
    printf("  pairs found a particle %.3f (candidates %.2f, untrimmed rows)\n",
           (double)pairs / n, (double)candidates / n);
    printf("  j-shares inside the finder's block of %d: %.1f %%; global 64-bit atomics a particle "
           "%.2f; shared 32-bit atomics a pair %.2f\n",
           BLOCK, 100.0 * in_block / pairs, 3.0 * (double)(pairs - in_block) / n,
           (6.0 * pairs + 6.0 * in_block) / pairs);
    printf("  pairs in rounds that every lane of the warp reaches (evaluated by their finder): "
           "%.1f %%\n",
           100.0 * own / pairs);
    return 0;
}
