/* Unit tests of the tabulated energies (src/core/table.h, table.c) and the table styles'
 * evaluators (bonded.h).
 *
 * - natural spline of sin x on [0, pi] (301 points; sin'' = 0 at both ends, as the natural
 *   spline assumes): E and dE/dx at points between the nodes against sin and cos; dE/dx against the central difference of E (the force is the
 *   energy's own derivative); the spline passes through every node;
 * - periodic spline of cos 3 phi + 0.4 sin phi over [-pi, pi]: E, E' and E'' agree at -pi
 *   and pi, and E, E' match the function;
 * - outside the grid vs_table_eval reports it; a table bond outside its table returns
 *   VS_BONDED_TABLE with no force;
 * - the table styles against the analytic ones they tabulate: bond (harmonic), angle
 *   (harmonic) and dihedral (periodic), forces and energies on random geometries.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bonded.h"
#include "table.h"
#include "test_support.h"

#define PI 3.14159265358979323846

static vs_table make(int n, double lo, double hi, double (*f)(double), int periodic)
{
    vs_table t;
    double *y = malloc(sizeof(double) * (size_t)n);
    double *c = malloc(sizeof(double) * 4 * (size_t)(n - 1));
    t.n = n;
    t.lo = lo;
    t.dx = (hi - lo) / (n - 1);
    for (int k = 0; k < n; ++k)
        y[k] = f(lo + k * t.dx);
    if (periodic)
        y[n - 1] = y[0];
    vs_table_build(n, t.dx, y, periodic, c);
    t.coef = c;
    free(y);
    return t;
}

static double fsin(double x) { return sin(x); }
static double fper(double x) { return cos(3.0 * x) + 0.4 * sin(x); }
static double dper(double x) { return -3.0 * sin(3.0 * x) + 0.4 * cos(x); }
static double fharm(double r) { return 0.5 * 80.0 * (r - 0.7) * (r - 0.7); }
static double fang(double t) { return 0.5 * 6.0 * (t - 2.0) * (t - 2.0); }
static double fdih(double p) { return 1.5 * (1.0 + cos(3.0 * p - 0.35)); }

static void test_natural(void **state)
{
    (void)state;
    vs_table t = make(301, 0.0, PI, fsin, 0);
    double e, d, ep, em, dd;
    for (int k = 0; k < 301; ++k) {
        vs_table_eval(&t, k * t.dx, &e, &d);
        VS_ASSERT_NEAR(e, sin(k * t.dx), 1e-14);
    }
    for (int k = 0; k < 3000; ++k) {
        const double x = 0.0005 + k * (PI - 0.001) / 3000.0;
        assert_int_equal(vs_table_eval(&t, x, &e, &d), 0);
        VS_ASSERT_NEAR(e, sin(x), 1e-8);
        VS_ASSERT_NEAR(d, cos(x), 1e-6);
        const double h = 1e-6;
        vs_table_eval(&t, x + h, &ep, &dd);
        vs_table_eval(&t, x - h, &em, &dd);
        VS_ASSERT_NEAR(d, (ep - em) / (2 * h), 1e-7);
    }
    assert_int_equal(vs_table_eval(&t, PI + 0.01, &e, &d), 1);
    assert_int_equal(vs_table_eval(&t, -0.01, &e, &d), 1);
    free((void *)t.coef);
}

static void test_periodic(void **state)
{
    (void)state;
    vs_table t = make(721, -PI, PI, fper, 1);
    double e1, d1, e2, d2;
    vs_table_eval(&t, -PI, &e1, &d1);
    vs_table_eval(&t, PI, &e2, &d2);
    VS_ASSERT_NEAR(e1, e2, 1e-14);
    VS_ASSERT_NEAR(d1, d2, 1e-9);
    const double *c0 = t.coef, *cl = t.coef + 4 * (t.n - 2); /* E'' at both ends */
    VS_ASSERT_NEAR(2.0 * c0[2], 2.0 * cl[2] + 6.0 * cl[3] * t.dx, 1e-7);
    for (int k = 0; k < 2000; ++k) {
        const double x = -PI + (k + 0.5) * (2.0 * PI / 2000.0);
        vs_table_eval(&t, x, &e1, &d1);
        VS_ASSERT_NEAR(e1, fper(x), 1e-8);
        VS_ASSERT_NEAR(d1, dper(x), 1e-5);
    }
    free((void *)t.coef);
}

static uint64_t rng_state = 0x0123456789ABCDEFull;
static double urand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static void test_styles_against_analytic(void **state)
{
    (void)state;
    vs_bond_type tb = {VS_BOND_TABLE, 0.0, 0.0, make(1501, 0.0, 1.5, fharm, 0)};
    vs_angle_type ta = {VS_ANGLE_TABLE, 0.0, 0.0, make(1801, 0.0, PI, fang, 0)};
    vs_dihedral_type td;
    memset(&td, 0, sizeof td);
    td.style = VS_DIHEDRAL_TABLE;
    td.tab = make(3601, -PI, PI, fdih, 1);
    vs_dihedral_type pd;
    memset(&pd, 0, sizeof pd);
    pd.style = VS_DIHEDRAL_PERIODIC;
    pd.K = 1.5;
    pd.n = 3;
    pd.phi0 = 0.35;
    for (int trial = 0; trial < 500; ++trial) {
        double x[4][3];
        for (int q = 0; q < 4; ++q)
            for (int k = 0; k < 3; ++k)
                x[q][k] = 0.8 * urand();
        double d[3], b[3][3], r2 = 0.0;
        for (int k = 0; k < 3; ++k) {
            d[k] = x[0][k] - x[1][k];
            r2 += d[k] * d[k];
            for (int q = 0; q < 3; ++q)
                b[q][k] = x[q + 1][k] - x[q][k];
        }
        double fs1, e1, fs2, e2;
        assert_int_equal(vs_bond_eval_type(&tb, r2, &fs1, &e1), VS_BONDED_OK);
        vs_bond_eval(VS_BOND_HARMONIC, 80.0, 0.7, r2, &fs2, &e2);
        VS_ASSERT_NEAR(e1, e2, 1e-9);
        VS_ASSERT_NEAR(fs1 * sqrt(r2), fs2 * sqrt(r2), 1e-7);
        double fa1[3], fc1[3], fa2[3], fc2[3];
        e1 = vs_angle_eval_type(&ta, d, b[1], fa1, fc1);
        e2 = vs_angle_eval(VS_ANGLE_HARMONIC, 6.0, 2.0, d, b[1], fa2, fc2);
        VS_ASSERT_NEAR(e1, e2, 1e-8);
        for (int k = 0; k < 3; ++k) {
            VS_ASSERT_NEAR(fa1[k], fa2[k], 1e-5 * fmax(1.0, fabs(fa2[k])));
            VS_ASSERT_NEAR(fc1[k], fc2[k], 1e-5 * fmax(1.0, fabs(fc2[k])));
        }
        double f1[4][3], f2[4][3], phi, w;
        e1 = vs_dihedral_eval(&td, b[0], b[1], b[2], f1, &phi, &w);
        e2 = vs_dihedral_eval(&pd, b[0], b[1], b[2], f2, &phi, &w);
        VS_ASSERT_NEAR(e1, e2, 1e-9);
        for (int q = 0; q < 4; ++q)
            for (int k = 0; k < 3; ++k)
                VS_ASSERT_NEAR(f1[q][k], f2[q][k], 1e-6 * fmax(1.0, fabs(f2[q][k])));
    }
    double fs, e;
    assert_int_equal(vs_bond_eval_type(&tb, 1.6 * 1.6, &fs, &e), VS_BONDED_TABLE);
    assert_true(fs == 0.0);
    free((void *)tb.tab.coef);
    free((void *)ta.tab.coef);
    free((void *)td.tab.coef);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_natural),
        cmocka_unit_test(test_periodic),
        cmocka_unit_test(test_styles_against_analytic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
