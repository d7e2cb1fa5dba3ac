/* Unit tests of the brick layout chosen for P ranks: minimal ghost surface for the box shape,
 * the override, and the two errors (too many ranks; a brick thinner than the ghost width). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "decomp.h"

static void choose(const double box[3], int P, const int req[3], double w, int out[3], int rc)
{
    char err[512] = "";
    assert_int_equal(vs_decomp_choose(box, P, req, w, out, err, sizeof err), rc);
    if (rc)
        print_message("error line: %s\n", err);
}

static void test_cube(void **state)
{
    (void)state;
    const double box[3] = {20, 20, 20};
    const int none[3] = {0, 0, 0};
    int d[3];
    choose(box, 8, none, 1.3, d, 0);
    assert_int_equal(d[0], 2);
    assert_int_equal(d[1], 2);
    assert_int_equal(d[2], 2);
    choose(box, 1, none, 1.3, d, 0);
    assert_int_equal(d[0] * d[1] * d[2], 1);
    choose(box, 3, none, 1.3, d, 0); /* uneven: 3 in one dimension */
    assert_int_equal(d[0] * d[1] * d[2], 3);
    assert_int_equal((d[0] == 3) + (d[1] == 3) + (d[2] == 3), 1);
    choose(box, 4, none, 1.3, d, 0); /* 2 x 2 x 1 has less surface than 4 x 1 x 1 */
    assert_int_equal((d[0] == 2) + (d[1] == 2) + (d[2] == 2), 2);
}

static void test_elongated_box(void **state)
{
    (void)state;
    const double box[3] = {80, 10, 10};
    const int none[3] = {0, 0, 0};
    int d[3];
    choose(box, 4, none, 1.3, d, 0);
    assert_int_equal(d[0], 4);
    assert_int_equal(d[1], 1);
    assert_int_equal(d[2], 1);
}

static void test_override_and_errors(void **state)
{
    (void)state;
    const double box[3] = {10, 10, 10};
    const int req[3] = {1, 1, 4};
    int d[3];
    choose(box, 4, req, 1.3, d, 0);
    assert_int_equal(d[2], 4);
    const int wrong[3] = {2, 2, 2};
    char err[512];
    assert_int_equal(vs_decomp_choose(box, 4, wrong, 1.3, d, err, sizeof err),
                     VS_EXIT_BAD_INPUT);
    assert_non_null(strstr(err, "decomposition"));
    assert_non_null(strstr(err, "4 ranks"));
    const int thin[3] = {1, 1, 16};
    assert_int_equal(vs_decomp_choose(box, 16, thin, 1.3, d, err, sizeof err),
                     VS_EXIT_BAD_INPUT);
    assert_non_null(strstr(err, "thinner than the ghost width"));
    const int none[3] = {0, 0, 0};
    assert_int_equal(vs_decomp_choose(box, 1000, none, 1.3, d, err, sizeof err),
                     VS_EXIT_BAD_INPUT);
    assert_non_null(strstr(err, "too many"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube),
        cmocka_unit_test(test_elongated_box),
        cmocka_unit_test(test_override_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
