/* Candidates a particle's walk tests per pair it finds, for stencils of finer cells (a study
 * for issue 53 item 1: "fewer candidates per pair found"; no GPU, no Vesica code).
 *
 * Uniform random points at density rho in a periodic cube, a reach r (the DPD cut-off 1 at
 * rho 3, or the LJ list radius 2.8 at rho 0.8442). The cells are r / ax wide along x and
 * r / ayz along y and z; the walk visits the rows of cells along x at offsets (dy, dz) within
 * the reach in cells, skips a row whose y-z extent lies beyond r, and trims each row to the
 * cells its sphere reaches along x, as vs_stencil_row does (ax = 2, ayz = 1 is Vesica's grid:
 * x cells half wide, 3 x 3 rows). Two ways to take a row:
 *   cells   every particle of its trimmed cells;
 *   sorted  only those within the row's exact x range (rows kept sorted by x, the range
 *           found by two binary searches): the least any row-based walk can test.
 * and two stencils:
 *   half    the rows above (dz > 0, or dz = 0 and dy > 0) and the own row after the particle
 *           (the Newton walk: each pair found once);
 *   full    every row (the walk from both sides, the LJ list's builder).
 * Prints candidates per particle and per pair found (within r), per stencil and way.
 *
 * Build and run: cc -O2 -std=c11 -o stencil_candidates scaling/tools/stencil_candidates.c -lm
 *                ./stencil_candidates [rho r box]   (default 3 1 16: the DPD fluid)
 *                ./stencil_candidates 0.8442 2.8 40 (the LJ liquid's list) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double frand(unsigned long long *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static int wrap(int c, int n) { return ((c % n) + n) % n; }

static int compare_double(const void *a, const void *b)
{
    const double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

/* the values of sorted v[0..m) in [lo, hi) */
static int count_in(const double *v, int m, double lo, double hi)
{
    int a = 0, b = m;
    while (a < b) { /* first >= lo */
        const int mid = (a + b) / 2;
        if (v[mid] < lo)
            a = mid + 1;
        else
            b = mid;
    }
    int c = a, d = m;
    while (c < d) { /* first >= hi */
        const int mid = (c + d) / 2;
        if (v[mid] < hi)
            c = mid + 1;
        else
            d = mid;
    }
    return c - a;
}

/* distance along one axis from coordinate u (in cell c, width w) to the cell d away */
static double gap(double u, int c, int d, double w)
{
    if (d > 0)
        return (c + d) * w - u;
    if (d < 0)
        return u - (c + d + 1) * w;
    return 0.0;
}

int main(int argc, char **argv)
{
    const double rho = argc > 1 ? atof(argv[1]) : 3.0, r = argc > 2 ? atof(argv[2]) : 1.0,
                 box = argc > 3 ? atof(argv[3]) : 16.0;
    if (!(rho > 0) || !(r > 0) || !(box >= 4 * r)) {
        fprintf(stderr, "stencil_candidates: rho > 0, r > 0 and box >= 4 r\n");
        return 1;
    }
    const int n = (int)(rho * box * box * box);
    double *x = malloc(sizeof(double) * 3 * (size_t)n);
    if (!x)
        return 1;
    unsigned long long seed = 12345;
    for (int k = 0; k < 3 * n; ++k)
        x[k] = frand(&seed) * box;
    /* pairs within r, each once (a plain cell list of cells >= r) */
    long long pairs = 0;
    {
        const int nc = (int)(box / r);
        const double w = box / nc;
        int *head = malloc(sizeof(int) * (size_t)nc * nc * nc), *next = malloc(sizeof(int) * n);
        for (int c = 0; c < nc * nc * nc; ++c)
            head[c] = -1;
        for (int k = 0; k < n; ++k) {
            const int c = ((int)(x[3 * k + 2] / w) % nc * nc + (int)(x[3 * k + 1] / w) % nc) * nc +
                          (int)(x[3 * k] / w) % nc;
            next[k] = head[c];
            head[c] = k;
        }
        for (int k = 0; k < n; ++k) {
            const int c[3] = {(int)(x[3 * k] / w) % nc, (int)(x[3 * k + 1] / w) % nc,
                              (int)(x[3 * k + 2] / w) % nc};
            for (int dz = -1; dz <= 1; ++dz)
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int cc = (wrap(c[2] + dz, nc) * nc + wrap(c[1] + dy, nc)) * nc +
                                       wrap(c[0] + dx, nc);
                        for (int j = head[cc]; j >= 0; j = next[j]) {
                            if (j <= k)
                                continue;
                            double d2 = 0;
                            for (int e = 0; e < 3; ++e) {
                                double s = x[3 * k + e] - x[3 * j + e];
                                s -= box * round(s / box);
                                d2 += s * s;
                            }
                            pairs += d2 < r * r;
                        }
                    }
        }
        free(head);
        free(next);
    }
    printf("stencil_candidates: %d points, rho %.4f, reach %.3f, box %.2f: %.3f pairs a point "
           "within the reach (each once)\n",
           n, n / (box * box * box), r, box, (double)pairs / n);
    printf("%4s %4s  %14s %14s %14s %14s\n", "ax", "ayz", "half cells", "half sorted",
           "full cells", "full sorted");
    const int grids[][2] = {{1, 1}, {2, 1}, {3, 1}, {2, 2}, {4, 2}, {3, 3}, {4, 4}};
    for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; ++gi) {
        const int ax = grids[gi][0], ayz = grids[gi][1];
        const int nx = (int)(box / (r / ax)), nyz = (int)(box / (r / ayz));
        const double wx = box / nx, wyz = box / nyz;
        /* a row's particles: counted per cell, and their x coordinates sorted per row */
        int *count = calloc((size_t)nx * nyz * nyz, sizeof(int));
        int *row_first = calloc((size_t)nyz * nyz + 1, sizeof(int));
        double *row_x = malloc(sizeof(double) * (size_t)n);
        for (int k = 0; k < n; ++k) {
            const int row = (int)(x[3 * k + 2] / wyz) % nyz * nyz + (int)(x[3 * k + 1] / wyz) % nyz;
            ++count[row * nx + (int)(x[3 * k] / wx) % nx];
            ++row_first[row + 1];
        }
        for (int row = 0; row < nyz * nyz; ++row)
            row_first[row + 1] += row_first[row];
        {
            int *fill = malloc(sizeof(int) * (size_t)nyz * nyz);
            for (int row = 0; row < nyz * nyz; ++row)
                fill[row] = row_first[row];
            for (int k = 0; k < n; ++k) {
                const int row =
                    (int)(x[3 * k + 2] / wyz) % nyz * nyz + (int)(x[3 * k + 1] / wyz) % nyz;
                row_x[fill[row]++] = x[3 * k];
            }
            for (int row = 0; row < nyz * nyz; ++row)
                qsort(row_x + row_first[row], (size_t)(row_first[row + 1] - row_first[row]),
                      sizeof(double), compare_double);
            free(fill);
        }
        double half_cells = 0, half_sorted = 0, full_cells = 0, full_sorted = 0;
        const int samples = n < 20000 ? n : 20000;
        for (int k = 0; k < samples; ++k) {
            const double *p = &x[3 * k];
            const int c[3] = {(int)(p[0] / wx) % nx, (int)(p[1] / wyz) % nyz,
                              (int)(p[2] / wyz) % nyz};
            for (int dz = -ayz; dz <= ayz; ++dz)
                for (int dy = -ayz; dy <= ayz; ++dy) {
                    const double gy = gap(p[1], c[1], dy, wyz), gz = gap(p[2], c[2], dz, wyz);
                    const double left = r * r - gy * gy - gz * gz;
                    if (left <= 0)
                        continue;
                    const double hw = sqrt(left);
                    int lo = (int)floor((p[0] - hw) / wx), hi = (int)floor((p[0] + hw) / wx);
                    if (lo < c[0] - ax)
                        lo = c[0] - ax;
                    if (hi > c[0] + ax)
                        hi = c[0] + ax;
                    const int ry = wrap(c[1] + dy, nyz), rz = wrap(c[2] + dz, nyz);
                    double in_cells = 0;
                    for (int cx = lo; cx <= hi; ++cx)
                        in_cells += count[(rz * nyz + ry) * nx + wrap(cx, nx)];
                    /* the row's points within hw of the particle along x (periodic) */
                    const double *rx = row_x + row_first[rz * nyz + ry];
                    const int m = row_first[rz * nyz + ry + 1] - row_first[rz * nyz + ry];
                    double in_range = count_in(rx, m, p[0] - hw, p[0] + hw);
                    if (p[0] - hw < 0)
                        in_range += count_in(rx, m, p[0] - hw + box, box);
                    if (p[0] + hw >= box)
                        in_range += count_in(rx, m, 0.0, p[0] + hw - box);
                    const int own = dy == 0 && dz == 0, above = dz > 0 || (dz == 0 && dy > 0);
                    full_cells += in_cells - own;
                    full_sorted += in_range - own;
                    if (above) {
                        half_cells += in_cells;
                        half_sorted += in_range;
                    } else if (own) { /* the own row after the particle: half of the others */
                        half_cells += (in_cells - 1) / 2;
                        half_sorted += (in_range - 1) / 2;
                    }
                }
        }
        const double per = 1.0 / samples, pp = (double)pairs / n;
        printf("%4d %4d  %6.1f (%5.2f) %6.1f (%5.2f) %6.1f (%5.2f) %6.1f (%5.2f)\n", ax, ayz,
               half_cells * per, half_cells * per / pp, half_sorted * per,
               half_sorted * per / pp, full_cells * per, full_cells * per / (2 * pp),
               full_sorted * per, full_sorted * per / (2 * pp));
        free(count);
        free(row_first);
        free(row_x);
    }
    printf("(candidates a point, and in brackets per pair found: half per pair, full per "
           "ordered pair)\n");
    free(x);
    return 0;
}
