/* The grid of positions of src/core/position_grid.h: the quantum's bounds, rounding onto the
 * grid that is exact, a move that is plain addition without a grid, and why the grid is needed:
 * the mixed force kernels see llrint((x - c) / q), the position in quanta around a brick
 * centre c, and only with positions, box edge and centres all on the grid does a pair's
 * separation come out as the same integer in every brick's frame. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "position_grid.h"

static double draw(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) * 0x1p-53; /* [0, 1) */
}

static int is_power_of_two(double q)
{
    int e = 0;
    return q > 0.0 && frexp(q, &e) == 0.5;
}

/* x a whole number of quanta (x / q is exact: q is a power of two) */
static int on_grid(double x, double q)
{
    return x / q == floor(x / q);
}

/* the position in quanta in the frame of centre c, as vs_quantize computes it on the device */
static long long quanta(double x, double c, double q)
{
    return llrint((x - c) / q);
}

/* the separation x_i - x_j in quanta, seen in the frame of centre c */
static long long separation(double xi, double xj, double c, double q)
{
    return quanta(xi, c, q) - quanta(xj, c, q);
}

/* the smallest power of two q with 2^31 q > box + 2 reach (the longest edge) */
static void test_quantum_bounds(void **state)
{
    (void)state;
    const struct {
        double box[3], reach;
    } cases[] = {
        {{6.1, 6.0, 5.93}, 1.3},       {{6.1, 6.0, 5.93}, 4.6},   {{6.9, 6.8, 6.7}, 3.3},
        {{2800.0, 2800.0, 2800.0}, 1.3}, {{10.0, 2800.0, 5.0}, 2.0}, {{5.0, 3.0, 6.0}, 1.0},
        {{16.0, 16.0, 16.0}, 1.0},     {{0.5, 0.5, 0.5}, 1e-3},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const double *b = cases[k].box;
        const double widest = fmax(b[0], fmax(b[1], b[2]));
        const double span = widest + 2.0 * cases[k].reach;
        const double q = vs_grid_quantum(b, cases[k].reach);
        assert_true(is_power_of_two(q));
        assert_true(ldexp(q, 31) > span);
        assert_true(ldexp(q, 30) <= span);
    }
    /* by hand: 6.1 + 2 * 1.3 = 8.7 < 2^4, so q = 2^-27; 2800 + 2.6 < 2^12, so q = 2^-19 */
    assert_true(vs_grid_quantum(cases[0].box, 1.3) == 0x1p-27);
    assert_true(vs_grid_quantum(cases[3].box, 1.3) == 0x1p-19);
    /* a span that is a power of two itself: 6 + 2 = 2^3 needs 2^31 q > 8, so q = 2^-27 */
    assert_true(vs_grid_quantum(cases[5].box, 1.0) == 0x1p-27);
}

/* floor and step land on the grid; floor keeps [0, box) and moves down by less than q; step is
 * the nearest multiple, ties to even */
static void test_floor_and_step(void **state)
{
    (void)state;
    const double boxes[][3] = {{6.1, 6.0, 5.93}, {2800.0, 2800.0, 2800.0}, {6.9, 6.8, 6.7}};
    uint64_t s = 3;
    for (size_t k = 0; k < sizeof boxes / sizeof boxes[0]; ++k) {
        const double q = vs_grid_quantum(boxes[k], 1.3);
        for (int d = 0; d < 3; ++d) {
            const double box = boxes[k][d];
            for (int n = 0; n < 20000; ++n) {
                double x = box * draw(&s);
                if (n == 0)
                    x = 0.0;
                if (n == 1)
                    x = nextafter(box, 0.0); /* the largest position in the box */
                const double f = vs_grid_floor(x, q);
                assert_true(on_grid(f, q));
                assert_true(f >= 0.0 && f < box);
                assert_true(f <= x && x - f < q);
                const double dx = 0.5 * (draw(&s) - 0.5);
                const double g = vs_grid_step(dx, q);
                assert_true(on_grid(g, q));
                assert_true(fabs(g - dx) <= 0.5 * q);
            }
            /* the rounded box edge itself */
            const double l = vs_grid_step(box, q);
            assert_true(on_grid(l, q));
            assert_true(fabs(l - box) <= 0.5 * q);
        }
    }
    const double q = 0x1p-27;
    assert_true(vs_grid_step(2.5 * q, q) == 2.0 * q);
    assert_true(vs_grid_step(3.5 * q, q) == 4.0 * q);
    assert_true(vs_grid_step(-2.5 * q, q) == -2.0 * q);
    assert_true(vs_grid_floor(-0.5 * q, q) == -q);
    assert_true(vs_grid_floor(3.0 * q, q) == 3.0 * q);
}

/* no grid (q = 0: the CPU, double precision, npt): x + d to the bit; a grid: x stays on it */
static void test_move(void **state)
{
    (void)state;
    uint64_t s = 5;
    const double q = 0x1p-27;
    for (int n = 0; n < 100000; ++n) {
        const double x = 6.1 * draw(&s), d = 0.1 * (draw(&s) - 0.5);
        const double want = x + d, got = vs_grid_move(x, d, 0.0);
        assert_memory_equal(&got, &want, sizeof got);
        const double xg = vs_grid_floor(x, q), moved = vs_grid_move(xg, d, q);
        assert_true(on_grid(moved, q));
        assert_true(moved == xg + vs_grid_step(d, q));
        assert_true(fabs(moved - (xg + d)) <= 0.5 * q);
    }
    /* a move below half a quantum is lost on the grid, kept without one */
    assert_true(vs_grid_move(1.0, 0.25 * q, q) == 1.0);
    assert_true(vs_grid_move(1.0, 0.25 * q, 0.0) == 1.0 + 0.25 * q);
}

/* On the grid: a pair across the periodic boundary, j's image x_j + L, has one separation in
 * quanta in every frame (1 rank's centre and two bricks'), and so does the image on the other
 * side, x_i - L, that another brick may hold instead: the exact (x_i - x_j - L) / q. */
static void test_frames_agree_on_grid(void **state)
{
    (void)state;
    const double box[3] = {6.1, 6.0, 5.93};
    const double q = vs_grid_quantum(box, 1.3);
    const double l = vs_grid_step(box[0], q);
    /* the centres of the whole box and of the two bricks of a 2 x 1 x 1 split */
    const double c[3] = {vs_grid_step(0.5 * l, q), vs_grid_step(0.25 * l, q),
                         vs_grid_step(0.75 * l, q)};
    assert_true(c[1] != c[2]);
    uint64_t s = 7;
    for (int n = 0; n < 100000; ++n) {
        const double xi = vs_grid_floor(l * draw(&s), q), xj = vs_grid_floor(l * draw(&s), q);
        const double exact = xi - (xj + l); /* exact: every term is on the grid */
        const long long want = llrint(exact / q);
        assert_true((double)want * q == exact);
        for (int k = 0; k < 3; ++k) {
            assert_true(separation(xi, xj + l, c[k], q) == want);
            assert_true(separation(xi - l, xj, c[k], q) == want);
        }
    }
}

/* Off the grid the frames disagree. In quanta (exact for any power-of-two q): x_i = 2,
 * x_j = 23, centres 12 and 13 (or 13.5). An edge of 24.5 (half a quantum off the grid) puts
 * j's image at 47.5, which rounds to even: to 36 around 12 but to 34 around 13, so the pair is
 * 46 quanta apart in one brick and 45 in the other (exactly: 45.5). A centre at 13.5 (off the
 * grid, edge 24 on it) puts x_i at -11.5 and the image at 33.5: the pair is 46 apart there
 * and 45, exact, around 14, that centre rounded onto the grid. */
static void test_frames_disagree_off_grid(void **state)
{
    (void)state;
    const double box[3] = {6.1, 6.0, 5.93};
    const double quantum[2] = {0.25, vs_grid_quantum(box, 1.3)};
    for (int k = 0; k < 2; ++k) {
        const double q = quantum[k];
        const double xi = 2.0 * q, xj = 23.0 * q, c1 = 12.0 * q, c2 = 13.0 * q;
        const double l_off = 24.5 * q, l = vs_grid_step(l_off, q);
        assert_true(l == 24.0 * q); /* rounded to even */
        /* an edge off the grid: the two brick frames disagree, whichever image they hold */
        assert_true(separation(xi, xj + l_off, c1, q) == -46);
        assert_true(separation(xi, xj + l_off, c2, q) == -45);
        assert_true(separation(xi - l_off, xj, c1, q) == -45);
        /* the same pair with the edge on the grid: -45 in every frame */
        assert_true(separation(xi, xj + l, c1, q) == -45);
        assert_true(separation(xi, xj + l, c2, q) == -45);
        assert_true(separation(xi - l, xj, c1, q) == -45);
        /* a centre off the grid */
        const double c_off = 13.5 * q;
        assert_true(separation(xi, xj + l, c_off, q) == -46);
        assert_true(separation(xi, xj + l, vs_grid_step(c_off, q), q) == -45);
    }
    /* in lengths, at the grid of the 6.1 x 6 x 5.93 box: the unrounded edge and the bricks'
     * own centres (a quarter and three quarters of it) against snapped positions; the frames
     * differ by a whole quantum for some pair */
    const double q = quantum[1], l = box[0];
    const double c1 = 0.25 * l, c2 = 0.75 * l;
    assert_false(on_grid(l, q) && on_grid(c1, q) && on_grid(c2, q));
    uint64_t s = 11;
    int found = 0;
    for (int n = 0; n < 100000 && !found; ++n) {
        const double xi = vs_grid_floor(l * draw(&s), q), xj = vs_grid_floor(l * draw(&s), q);
        const long long a = separation(xi, xj + l, c1, q), b = separation(xi - l, xj, c2, q);
        if (a != b) {
            print_message("off the grid: x_i = %.17g, x_j = %.17g, L = %.17g, q = 2^%d: "
                          "%lld quanta around %.17g, %lld around %.17g\n",
                          xi, xj, l, (int)log2(q), a, c1, b, c2);
            found = 1;
        }
    }
    assert_true(found);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantum_bounds),          cmocka_unit_test(test_floor_and_step),
        cmocka_unit_test(test_move),                    cmocka_unit_test(test_frames_agree_on_grid),
        cmocka_unit_test(test_frames_disagree_off_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
