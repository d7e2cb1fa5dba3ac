/* The particle-integrity check must fire: a missing tag, a duplicated tag (with the same
 * count, so only the checksum can tell), and a non-finite position each make it fail; a
 * complete set passes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "thermo.h"

static void fill(vs_particles *p, int64_t n)
{
    vs_particles_init(p, n);
    p->n_owned = n;
    for (int64_t i = 0; i < n; ++i) {
        p->tag[i] = n - 1 - i; /* any order */
        for (int d = 0; d < 3; ++d) {
            p->x[d][i] = 0.5;
            p->v[d][i] = 0.0;
        }
    }
}

static void test_integrity(void **state)
{
    (void)state;
    vs_par self;
    vs_par_from_comm(&self, MPI_COMM_SELF);
    vs_particles p;
    fill(&p, 1000);
    assert_int_equal(vs_check_integrity(&self, &p, 1000, 0), 0);
    assert_int_not_equal(vs_check_integrity(&self, &p, 1001, 1), 0); /* one lost */
    p.tag[10] = p.tag[11];                                           /* duplicate, same count */
    assert_int_not_equal(vs_check_integrity(&self, &p, 1000, 2), 0);
    p.tag[10] = p.tag[11] + 1; /* wrong tag, but right sum: squares differ */
    p.tag[12] -= 1;
    assert_int_not_equal(vs_check_integrity(&self, &p, 1000, 3), 0);
    vs_particles_free(&p);
    fill(&p, 1000);
    p.x[1][500] = NAN;
    assert_int_not_equal(vs_check_integrity(&self, &p, 1000, 4), 0);
    vs_particles_free(&p);
}

int main(int argc, char **argv)
{
    vs_par_init(&argc, &argv);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_integrity)};
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    vs_par_finalize();
    return failed;
}
