/* Unit tests of the split of the checkerboard sweep over ranks (src/engine/mc/mc_ranks.c):
 *
 * - the bricks of cells: for grids of 2 to 16 cells per axis and every grid of 1 to 12 ranks
 *   (bricks of one cell and empty bricks included: a volume move may coarsen the sweep's grid
 *   below the ranks), the cells of each colour over all ranks are that colour's cells of the
 *   whole grid, each exactly once, and each rank's list is in increasing index order;
 * - each cell's owner (vs_mc_ranks_owner) is the rank whose brick (vs_mc_ranks_brick) holds
 *   it, for the same grids;
 * - the split of a box's particles for the whole-box energy: the ranks' ranges [i0, i1)
 *   tile [0, n) in order, for n from 0 to 50 and 1 to 12 ranks.
 * No MPI call is made: the functions read the grid of ranks and the rank number only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mc_ranks.h"

/* Every factorisation dims of p ranks checked against the grid nc. */
static void check_grid(const int nc[3], int p)
{
    vs_mc_sweep_plan plan;
    memset(&plan, 0, sizeof plan);
    memcpy(plan.nc, nc, sizeof plan.nc);
    const int64_t ncell = (int64_t)nc[0] * nc[1] * nc[2];
    int *seen = calloc((size_t)ncell, sizeof *seen);
    assert_non_null(seen);
    vs_mc_ranks r;
    memset(&r, 0, sizeof r);
    r.cells = malloc((size_t)ncell * sizeof *r.cells);
    assert_non_null(r.cells);
    r.cells_cap = ncell;
    for (int px = 1; px <= p; ++px)
        for (int py = 1; px * py <= p; ++py) {
            if (p % (px * py))
                continue;
            r.dims[0] = px;
            r.dims[1] = py;
            r.dims[2] = p / (px * py);
            for (int colour = 0; colour < 8; ++colour) {
                memset(seen, 0, (size_t)ncell * sizeof *seen);
                for (int k = 0; k < p; ++k) {
                    const int64_t m = vs_mc_ranks_cells(&r, k, &plan, colour);
                    for (int64_t i = 0; i < m; ++i) {
                        assert_true(r.cells[i] < (uint32_t)ncell);
                        assert_true(i == 0 || r.cells[i] > r.cells[i - 1]);
                        seen[r.cells[i]]++;
                    }
                }
                for (int64_t c = 0; c < ncell; ++c) {
                    const int c0 = (int)(c % nc[0]), c1 = (int)(c / nc[0] % nc[1]),
                              c2 = (int)(c / ((int64_t)nc[0] * nc[1]));
                    assert_int_equal(seen[c], vs_mc_sweep_colour(c0, c1, c2) == colour);
                }
            }
            /* the owner of every cell is the rank whose brick holds it (the domain split
             * sends each particle there) */
            for (int64_t c = 0; c < ncell; ++c) {
                const int co[3] = {(int)(c % nc[0]), (int)(c / nc[0] % nc[1]),
                                   (int)(c / ((int64_t)nc[0] * nc[1]))};
                const int k = vs_mc_ranks_owner(&r, nc, co);
                assert_true(k >= 0 && k < p);
                int lo[3], hi[3];
                vs_mc_ranks_brick(&r, k, nc, lo, hi);
                for (int d = 0; d < 3; ++d)
                    assert_true(co[d] >= lo[d] && co[d] < hi[d]);
            }
        }
    free(r.cells);
    free(seen);
}

static void test_bricks(void **state)
{
    (void)state;
    const int sizes[] = {2, 4, 6, 8, 14, 16};
    const int ns = (int)(sizeof sizes / sizeof sizes[0]);
    for (int a = 0; a < ns; ++a)
        for (int b = 0; b < ns; b += 2)
            for (int c = 0; c < ns; c += 3) {
                const int nc[3] = {sizes[a], sizes[b], sizes[c]};
                for (int p = 1; p <= 12; ++p)
                    check_grid(nc, p);
            }
}

static void test_split(void **state)
{
    (void)state;
    vs_mc_ranks r;
    memset(&r, 0, sizeof r);
    for (int p = 1; p <= 12; ++p)
        for (int64_t n = 0; n <= 50; ++n) {
            int64_t next = 0;
            r.par.size = p;
            for (int k = 0; k < p; ++k) {
                r.par.rank = k;
                int64_t i0, i1;
                vs_mc_ranks_split(&r, n, &i0, &i1);
                assert_true(i0 == next && i1 >= i0);
                next = i1;
            }
            assert_true(next == n);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bricks),
        cmocka_unit_test(test_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
