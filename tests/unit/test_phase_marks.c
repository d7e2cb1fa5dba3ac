/* Unit tests of which steps the device marks the phases of (output.timing_every,
 * vs_sim_step_marked):
 * - with every <= 1 every step is marked;
 * - each block of `every` consecutive steps has exactly one marked step, so a run's phases,
 *   scaled by `every`, stand for its steps to within one block;
 * - the marked place moves from block to block (each place about equally often), so output
 *   steps at a fixed interval are marked about one time in `every`, not always or never.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "simulation.h"

static void test_every_step_when_every_is_one(void **state)
{
    (void)state;
    for (int64_t step = 0; step < 1000; ++step) {
        assert_true(vs_sim_step_marked(1, step));
        assert_true(vs_sim_step_marked(0, step));
    }
}

static void test_one_per_block_places_spread(void **state)
{
    (void)state;
    const int64_t everies[] = {2, 7, 10, 16};
    for (size_t e = 0; e < sizeof everies / sizeof everies[0]; ++e) {
        const int64_t every = everies[e], blocks = 2000;
        int64_t per_place[16] = {0};
        for (int64_t k = 0; k < blocks; ++k) {
            int marked = 0;
            for (int64_t s = k * every; s < (k + 1) * every; ++s)
                if (vs_sim_step_marked(every, s)) {
                    ++marked;
                    ++per_place[s - k * every];
                }
            assert_int_equal(marked, 1);
        }
        /* each place near blocks / every: a binomial's spread is about 3 % of 2000 / 16 */
        for (int64_t p = 0; p < every; ++p) {
            assert_true(per_place[p] > blocks / every / 2);
            assert_true(per_place[p] < 2 * blocks / every);
        }
    }
}

static void test_output_steps_not_aligned(void **state)
{
    (void)state;
    /* thermo rows every 100 steps, marks one step in ten: about a tenth of the rows' steps */
    int64_t marked = 0;
    const int64_t rows = 5000;
    for (int64_t r = 1; r <= rows; ++r)
        marked += vs_sim_step_marked(10, 100 * r);
    assert_true(marked > rows / 20);
    assert_true(marked < rows / 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_step_when_every_is_one),
        cmocka_unit_test(test_one_per_block_places_spread),
        cmocka_unit_test(test_output_steps_not_aligned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
