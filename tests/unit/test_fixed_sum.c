/* The fixed-point sums of src/core/fixed_sum.h: rounding that is odd, sums that do not depend
 * on the order of their terms, the exact conversion of doubles to 128-bit sums, the limbs
 * that carry them across ranks, and an overflow that is seen. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fixed_sum.h"

static double draw(uint64_t *state, double scale)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return scale * ((double)(*state >> 11) * 0x1p-53 - 0.5);
}

/* round(-g) = -round(g), ties included: a pair enters its particles as +q and -q */
static void test_force_rounding_is_odd(void **state)
{
    (void)state;
    const double quantum = 1.0 / VS_FIXED_FORCE_QUANTA;
    const double ties[] = {0.5 * quantum, 1.5 * quantum, 2.5 * quantum, 3.0, 1e6 + 0.5 * quantum};
    for (size_t k = 0; k < sizeof ties / sizeof ties[0]; ++k)
        assert_true(vs_fixed_force(-ties[k]) == -vs_fixed_force(ties[k]));
    assert_true(vs_fixed_force(0.5 * quantum) == 0); /* to even */
    assert_true(vs_fixed_force(1.5 * quantum) == 2);
    uint64_t s = 1;
    for (int k = 0; k < 100000; ++k) {
        const double g = draw(&s, 200.0);
        const int64_t q = vs_fixed_force(g);
        assert_true(vs_fixed_force(-g) == -q);
        assert_true(fabs(vs_fixed_force_to_double(q) - g) <= 0.5 * quantum);
    }
    assert_false(vs_fixed_force_ok(NAN));
    assert_false(vs_fixed_force_ok(INFINITY));
    assert_false(vs_fixed_force_ok(VS_FIXED_FORCE_LIMIT));
    assert_true(vs_fixed_force_ok(-0.999 * VS_FIXED_FORCE_LIMIT));
}

static void test_add_sees_overflow(void **state)
{
    (void)state;
    uint64_t overflow = 0;
    int64_t sum = 0;
    const int64_t big = vs_fixed_force(0.99 * VS_FIXED_FORCE_LIMIT); /* just under 2^62 */
    vs_fixed_add(&sum, big, &overflow);
    vs_fixed_add(&sum, -big, &overflow);
    vs_fixed_add(&sum, big, &overflow);
    assert_true(overflow >> 63 == 0);
    vs_fixed_add(&sum, big, &overflow);
    assert_true(overflow >> 63 == 0); /* 1.98 2^62 < 2^63 */
    vs_fixed_add(&sum, big, &overflow);
    assert_true(overflow >> 63 == 1);
    overflow = 0;
    sum = 0;
    for (int k = 0; k < 3; ++k)
        vs_fixed_add(&sum, -big, &overflow);
    assert_true(overflow >> 63 == 1);
}

/* the same terms in reverse and in a shuffled order: the same sum to the bit */
static void test_sums_ignore_order(void **state)
{
    (void)state;
    enum { N = 4096 };
    static double g[N];
    uint64_t s = 7;
    for (int k = 0; k < N; ++k)
        g[k] = draw(&s, 100.0) * pow(10.0, (double)(k % 7) - 3.0);
    int64_t q1 = 0, q2 = 0, q3 = 0;
    vs_wide w1 = 0, w2 = 0, w3 = 0;
    double d1 = 0.0, d2 = 0.0;
    uint64_t overflow = 0;
    for (int k = 0; k < N; ++k) {
        vs_fixed_add(&q1, vs_fixed_force(g[k]), &overflow);
        w1 += vs_wide_from_double(g[k]);
        d1 += g[k];
    }
    for (int k = N - 1; k >= 0; --k) {
        vs_fixed_add(&q2, vs_fixed_force(g[k]), &overflow);
        w2 += vs_wide_from_double(g[k]);
        d2 += g[k];
    }
    for (int k = 0; k < N; ++k) { /* 1237 is prime to N: a permutation */
        const int j = (int)((k * 1237L) % N);
        vs_fixed_add(&q3, vs_fixed_force(g[j]), &overflow);
        w3 += vs_wide_from_double(g[j]);
    }
    assert_true(q1 == q2 && q1 == q3);
    assert_true(w1 == w2 && w1 == w3);
    assert_true(overflow == 0);
    print_message("double sums in two orders differ by %.3g; fixed-point sums agree\n", d1 - d2);
}

/* a double within the range converts without rounding: e = w 2^-80 exactly */
static void test_wide_is_exact(void **state)
{
    (void)state;
    uint64_t s = 3;
    for (int k = 0; k < 100000; ++k) {
        const double e = draw(&s, 2.0) * pow(2.0, (double)(k % 60) - 27.0);
        const vs_wide w = vs_wide_from_double(e);
        /* the conversion back is exact too: e has 53 bits, all above 2^-80 */
        assert_true(vs_wide_to_double(w) == e);
        assert_true(vs_wide_from_double(-e) == -w);
    }
    /* 1 + 1e-16 + 1e-16: added in double each 1e-16 is lost (below half an ulp of 1); the
     * exact sum, rounded once, is the double next to 1 */
    volatile double one = 1.0, tiny = 1e-16;
    assert_true(one + tiny + tiny == 1.0);
    const vs_wide w = vs_wide_from_double(one) + vs_wide_from_double(tiny) +
                      vs_wide_from_double(tiny);
    assert_true(vs_wide_to_double(w) == 1.0 + DBL_EPSILON);
    assert_false(vs_wide_ok(NAN));
    assert_false(vs_wide_ok(VS_WIDE_LIMIT));
}

/* limbs add without carries and give the sum back, negative sums included */
static void test_limbs(void **state)
{
    (void)state;
    uint64_t s = 11;
    int64_t total[3] = {0, 0, 0};
    vs_wide sum = 0;
    for (int r = 0; r < 1000; ++r) { /* 1000 "ranks" */
        const vs_wide w = vs_wide_from_double(draw(&s, 1e9)) + vs_wide_from_double(draw(&s, 1e-9));
        int64_t l[3];
        vs_wide_to_limbs(w, l);
        assert_true(l[0] >= 0 && l[0] < ((int64_t)1 << 42) && l[1] >= 0 &&
                    l[1] < ((int64_t)1 << 42));
        assert_true(vs_wide_from_limbs(l) == w);
        for (int k = 0; k < 3; ++k)
            total[k] += l[k];
        sum += w;
    }
    assert_true(vs_wide_from_limbs(total) == sum);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_force_rounding_is_odd), cmocka_unit_test(test_add_sees_overflow),
        cmocka_unit_test(test_sums_ignore_order),     cmocka_unit_test(test_wide_is_exact),
        cmocka_unit_test(test_limbs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
