/* Unit tests of the conservative pair styles (src/core/pair_styles.h, pair_setup.c) and the
 * table reader (io/pair_table.c).
 *
 * - every style, several species pairs, shifted and not: the radial force is minus the
 *   numerical derivative (central differences) of the energy over r in (0.8 sigma, rc);
 * - closed-form values: lj U(sigma) = 0, F(sigma) = 24 eps / sigma, the minimum U = -eps at
 *   2^(1/6) sigma; soft U(0) = alpha, F -> 2 alpha / rc; gaussian U(sigma) = eps e^-1/2;
 *   shifted energies vanish at rc; the float evaluator within 1e-5 of the double one;
 * - a table of a known smooth potential: the spline passes through the file's points and
 *   stays within 1e-7 of the function between them;
 * - the lj tail corrections against a numerical integration of r^2 U and r^3 U';
 * - lj_force_shifted: F = -dU/dr in both precisions, energy and force zero at rc, and both
 *   against the linear-force-shifted form written out from the plain lj formulas;
 * - malformed table files: one error naming the file and the line.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pair_setup.h"
#include "pair_table.h"

static vs_pair_table tables[2];

/* A smooth test potential for tables: U = 2 exp(-r) + 1 / r^6, F = -dU/dr. */
static double tab_u(double r) { return 2.0 * exp(-r) + pow(r, -6.0); }
static double tab_f(double r) { return 2.0 * exp(-r) + 6.0 * pow(r, -7.0); }

static void make_table(vs_pair_table *t, double r0, double r1, int n)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    t->r0 = r0;
    t->dr = (r1 - r0) / (n - 1);
    for (int k = 0; k < n; ++k) {
        const double r = r0 + k * t->dr;
        t->e[k] = tab_u(r);
        t->f[k] = tab_f(r);
    }
    vs_pair_table_spline(t, 0, 0.0, 0.0);
}

static vs_pair_coeff coeff(int style, double a, double b, double rc, int shift)
{
    vs_pair_coeff c;
    memset(&c, 0, sizeof c);
    c.on = 1;
    c.rc = rc;
    c.eps = a;
    c.sigma = b;
    c.alpha = a;
    c.table = style == VS_PAIR_TABLE ? (int)b : 0;
    vs_pair_coeff_finish(style, &c, shift, tables);
    return c;
}

static double energy(int style, const vs_pair_coeff *c, double r)
{
    return vs_pair_style_eval(style, c, tables, r * r).energy;
}

/* F(r) = -dU/dr over (lo, rc) at 400 points, to 1e-6 of the largest |F| seen (tables: 1e-5,
 * the energy spline's derivative converging as dr^3 to the function's, the force spline as
 * dr^4). */
static void check_derivative(int style, const vs_pair_coeff *c, double lo)
{
    double fmax = 0.0, worst = 0.0;
    for (int k = 0; k < 400; ++k) {
        const double r = lo + (c->rc - lo) * (k + 0.5) / 400.0;
        const vs_pair_result p = vs_pair_style_eval(style, c, tables, r * r);
        const double h = 1e-5 * r;
        const double num = -(energy(style, c, r + h) - energy(style, c, r - h)) / (2.0 * h);
        const double f = p.f_over_r * r;
        assert_true(fabs(p.virial - f * r) <= 1e-12 * (fabs(f * r) + 1e-300));
        fmax = fmax > fabs(f) ? fmax : fabs(f);
        worst = worst > fabs(f - num) ? worst : fabs(f - num);
        /* float (the mixed-precision GPU evaluator): its rounding of 1 - r/rc near rc aside */
        const vs_pair_result_f q = vs_pair_style_eval_f(style, c, tables, (float)(r * r));
        if (!(fabs((double)q.f_over_r * r - f) <= 2e-5 * fabs(f) + 2e-6 * fmax + 1e-6))
            fail_msg("style %d, r = %g: float force %g, double %g", style, r,
                     (double)q.f_over_r * r, f);
    }
    if (!(worst <= (style == VS_PAIR_TABLE ? 1e-5 : 1e-6) * fmax))
        fail_msg("style %d: |F + dU/dr| up to %g with |F| up to %g", style, worst, fmax);
}

static void test_derivatives(void **state)
{
    (void)state;
    make_table(&tables[0], 1.0, 3.0, 1001);
    make_table(&tables[1], 0.9, 2.5, 801);
    for (int shift = 0; shift <= 1; ++shift) {
        /* three species pairs per style, each with its own parameters and cut-off */
        const double lj[3][3] = {{1.0, 1.0, 2.5}, {0.5, 1.2, 3.0}, {2.0, 0.8, 2.0}};
        const double ga[3][3] = {{1.0, 1.0, 3.0}, {-0.5, 0.7, 2.0}, {3.0, 1.5, 4.0}};
        const double so[3][2] = {{25.0, 1.0}, {40.0, 1.5}, {5.0, 0.8}};
        for (int k = 0; k < 3; ++k) {
            vs_pair_coeff c = coeff(VS_PAIR_LJ, lj[k][0], lj[k][1], lj[k][2], shift);
            check_derivative(VS_PAIR_LJ, &c, 0.8 * lj[k][1]);
            c = coeff(VS_PAIR_GAUSSIAN, ga[k][0], ga[k][1], ga[k][2], shift);
            check_derivative(VS_PAIR_GAUSSIAN, &c, 0.05);
            c = coeff(VS_PAIR_SOFT, so[k][0], 0.0, so[k][1], shift);
            check_derivative(VS_PAIR_SOFT, &c, 0.01);
        }
        vs_pair_coeff c = coeff(VS_PAIR_TABLE, 0.0, 0.0, 3.0, shift);
        check_derivative(VS_PAIR_TABLE, &c, 1.0);
        c = coeff(VS_PAIR_TABLE, 0.0, 1.0, 2.2, shift);
        check_derivative(VS_PAIR_TABLE, &c, 0.9);
    }
}

static void test_closed_forms(void **state)
{
    (void)state;
    const double eps = 1.5, sigma = 1.1;
    vs_pair_coeff c = coeff(VS_PAIR_LJ, eps, sigma, 3.0, 0);
    vs_pair_result r = vs_pair_style_eval(VS_PAIR_LJ, &c, tables, sigma * sigma);
    assert_true(fabs(r.energy) < 1e-14);
    assert_true(fabs(r.f_over_r * sigma - 24.0 * eps / sigma) < 1e-12);
    const double rmin = pow(2.0, 1.0 / 6.0) * sigma;
    r = vs_pair_style_eval(VS_PAIR_LJ, &c, tables, rmin * rmin);
    assert_true(fabs(r.energy + eps) < 1e-13 && fabs(r.f_over_r) < 1e-12);
    /* shifted: zero at the cut-off; wca: cut at the minimum, zero there */
    c = coeff(VS_PAIR_LJ, eps, sigma, 2.5, 1);
    assert_true(fabs(energy(VS_PAIR_LJ, &c, 2.5)) < 1e-15);
    c = coeff(VS_PAIR_LJ, eps, sigma, rmin, 1);
    assert_true(fabs(energy(VS_PAIR_LJ, &c, rmin)) < 1e-14);
    assert_true(energy(VS_PAIR_LJ, &c, 0.99 * rmin) > 0.0);
    c = coeff(VS_PAIR_SOFT, 7.0, 0.0, 1.5, 0);
    r = vs_pair_style_eval(VS_PAIR_SOFT, &c, tables, 1e-12);
    assert_true(fabs(r.energy - 7.0) < 1e-5 && fabs(r.f_over_r * 1e-6 - 2.0 * 7.0 / 1.5) < 1e-4);
    assert_true(fabs(energy(VS_PAIR_SOFT, &c, 1.5)) < 1e-15);
    c = coeff(VS_PAIR_GAUSSIAN, 2.0, 0.9, 4.0, 0);
    assert_true(fabs(energy(VS_PAIR_GAUSSIAN, &c, 0.9) - 2.0 * exp(-0.5)) < 1e-14);
    c = coeff(VS_PAIR_GAUSSIAN, 2.0, 0.9, 2.0, 1);
    assert_true(fabs(energy(VS_PAIR_GAUSSIAN, &c, 2.0)) < 1e-15);
}

/* morse (keys D0, r0, alpha in slots 0, 1, 2): F = -dU/dr in both precisions, the minimum
 * -D0 with no force at r0, the closed form at 0.8 r0, and zero energy at rc when shifted. */
static void test_morse(void **state)
{
    (void)state;
    const double m[3][4] = {{1.0, 1.1, 2.0, 2.5}, {0.7, 1.2, 1.5, 2.2}, {1.3, 1.0, 6.0, 3.0}};
    for (int k = 0; k < 3; ++k)
        for (int shift = 0; shift <= 1; ++shift) {
            vs_pair_coeff c;
            memset(&c, 0, sizeof c);
            c.on = 1;
            c.rc = m[k][3];
            c.given[0] = m[k][0], c.given[1] = m[k][1], c.given[2] = m[k][2];
            vs_pair_coeff_finish(VS_PAIR_MORSE, &c, shift, tables);
            check_derivative(VS_PAIR_MORSE, &c, 0.5 * m[k][1]);
            const double d0 = m[k][0], r0 = m[k][1], a = m[k][2], r = 0.8 * r0;
            const vs_pair_result p0 = vs_pair_style_eval(VS_PAIR_MORSE, &c, tables, r0 * r0);
            assert_true(fabs(p0.energy + c.shift + d0) < 1e-14 && fabs(p0.f_over_r) < 1e-14);
            const double e = exp(-a * (r - r0));
            const vs_pair_result p = vs_pair_style_eval(VS_PAIR_MORSE, &c, tables, r * r);
            assert_true(fabs(p.energy + c.shift - d0 * (e * e - 2.0 * e)) < 1e-13);
            assert_true(fabs(p.f_over_r * r - 2.0 * a * d0 * (e * e - e)) < 1e-12);
            if (shift)
                assert_true(fabs(energy(VS_PAIR_MORSE, &c, c.rc)) < 1e-15);
            else
                assert_true(c.shift == 0.0);
        }
}

/* lj_force_shifted (keys epsilon, sigma): the derivative in both precisions; U and F
 * continuous to zero at rc; U = U_LJ(r) - U_LJ(rc) + (r - rc) F_LJ(rc) and F = F_LJ(r) -
 * F_LJ(rc) from the plain lj formulas written here; no shift taken. */
static double lj_u(double e, double s, double r) { return 4 * e * (pow(s / r, 12) - pow(s / r, 6)); }
static double lj_f(double e, double s, double r)
{
    return 24 * e * (2 * pow(s / r, 12) - pow(s / r, 6)) / r;
}

static void test_lj_force_shifted(void **state)
{
    (void)state;
    const double p[3][3] = {{1.0, 1.0, 2.5}, {0.5, 1.2, 3.0}, {2.0, 0.8, 2.0}};
    for (int k = 0; k < 3; ++k)
        for (int shift = 0; shift <= 1; ++shift) {
            const double e = p[k][0], s = p[k][1], rc = p[k][2];
            const vs_pair_coeff c = coeff(VS_PAIR_LJ_FORCE_SHIFTED, e, s, rc, shift);
            assert_true(c.shift == 0.0);
            check_derivative(VS_PAIR_LJ_FORCE_SHIFTED, &c, 0.8 * s);
            const vs_pair_result at = vs_pair_style_eval(VS_PAIR_LJ_FORCE_SHIFTED, &c, tables,
                                                         rc * rc);
            assert_true(fabs(at.energy) < 1e-14 && fabs(at.f_over_r * rc) < 1e-13);
            for (int q = 0; q < 50; ++q) {
                const double r = 0.85 * s + (rc - 0.85 * s) * q / 50.0;
                const vs_pair_result v =
                    vs_pair_style_eval(VS_PAIR_LJ_FORCE_SHIFTED, &c, tables, r * r);
                const double u = lj_u(e, s, r) - lj_u(e, s, rc) + (r - rc) * lj_f(e, s, rc);
                const double f = lj_f(e, s, r) - lj_f(e, s, rc);
                if (!(fabs(v.energy - u) <= 1e-12 * (1 + fabs(u)) &&
                      fabs(v.f_over_r * r - f) <= 1e-12 * (1 + fabs(f))))
                    fail_msg("lj_force_shifted at r = %g: U %.17g (%.17g), F %.17g (%.17g)", r,
                             v.energy, u, v.f_over_r * r, f);
            }
        }
}

static void test_table_spline(void **state)
{
    (void)state;
    make_table(&tables[0], 0.5, 3.0, 801);
    vs_pair_coeff c = coeff(VS_PAIR_TABLE, 0.0, 0.0, 3.0, 0);
    double worst = 0.0;
    for (int k = 0; k < 2000; ++k) {
        const double r = 0.6 + 2.39 * k / 1999.0;
        const vs_pair_result p = vs_pair_style_eval(VS_PAIR_TABLE, &c, tables, r * r);
        worst = fmax(worst, fabs(p.energy - tab_u(r)) / fabs(tab_u(r)));
        worst = fmax(worst, fabs(p.f_over_r * r - tab_f(r)) / fabs(tab_f(r)));
    }
    if (!(worst < 1e-7))
        fail_msg("table spline off by %g relative", worst);
    for (int k = 0; k < 801; k += 37) { /* through the points */
        const double r = 0.5 + k * tables[0].dr;
        assert_true(fabs(energy(VS_PAIR_TABLE, &c, r) - tables[0].e[k]) <=
                    1e-12 * fabs(tables[0].e[k]) + 1e-14);
    }
    /* below the table: NaN, which the force's range check reports */
    assert_true(isnan(vs_pair_style_eval(VS_PAIR_TABLE, &c, tables, 0.4 * 0.4).f_over_r));
}

static void test_tail(void **state)
{
    (void)state;
    static vs_pair_set set; /* large (the tables): not on the stack */
    vs_params p;
    memset(&p, 0, sizeof p);
    p.pair.set = &set;
    p.species.n = 2;
    vs_pair_style_params *lj = &set.style[VS_PAIR_LJ];
    lj->active = lj->tail = 1;
    const double par[2][2][3] = {{{1.0, 1.0, 2.5}, {0.7, 1.2, 3.0}}, {{0.7, 1.2, 3.0}, {1.3, 0.9, 2.2}}};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            lj->c[i][j] = coeff(VS_PAIR_LJ, par[i][j][0], par[i][j][1], par[i][j][2], 1);
    const int64_t count[2] = {300, 700};
    const double volume = 1234.0;
    double e = 0.0, w = 0.0;
    vs_pair_tail(&p, count, volume, &e, &w);
    /* numerically: 2 pi / V sum N_i N_j int r^2 U, -2 pi / V sum N_i N_j int r^3 U' (U
     * unshifted), Simpson's rule in u = 1/r over (0, 1/rc] */
    double ne = 0.0, nw = 0.0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const double eps = par[i][j][0], s = par[i][j][1], rc = par[i][j][2];
            const int m = 20000;
            double ie = 0.0, iw = 0.0;
            for (int k = 0; k <= m; ++k) {
                const double u = (1.0 / rc) * k / m; /* r = 1/u, dr = du / u^2 */
                const double wgt = (k == 0 || k == m) ? 1.0 : (k % 2 ? 4.0 : 2.0);
                const double s6 = pow(s * u, 6.0);
                /* r^2 U dr = U / u^4 du; r^3 U' dr = r U' / u^4 du, r U' = -4 eps (12 s12 - 6 s6) */
                ie += wgt * 4.0 * eps * (s6 * s6 - s6) / pow(u, 4.0 * (k > 0)) * (k > 0);
                iw += wgt * -4.0 * eps * (12.0 * s6 * s6 - 6.0 * s6) / pow(u, 4.0 * (k > 0)) * (k > 0);
            }
            const double du = (1.0 / rc) / m;
            const double pairs = (double)count[i] * (double)count[j];
            ne += 2.0 * 3.14159265358979323846 / volume * pairs * ie * du / 3.0;
            nw += -2.0 * 3.14159265358979323846 / volume * pairs * iw * du / 3.0;
        }
    assert_true(fabs(e - ne) < 1e-8 * fabs(ne));
    assert_true(fabs(w - nw) < 1e-8 * fabs(nw));
}

/* A table file with the section `key` of rows from tab_u, tab_f; `bad` rows edited. */
static const char *good_text =
    "# written by a test\n"
    "OTHER\nN 3\n\n1 1.0 1.0 1.0\n2 1.5 0.5 0.5\n3 2.0 0.0 0.0\n\n"
    "AA\nN 5 R 1.0 3.0\n\n1 0.0 4.0 3.0\n2 0.0 2.0 1.0\n3 0.0 1.0 0.5\n4 0.0 0.5 0.25\n"
    "5 0.0 0.25 0.1\n";

static void expect_error(const char *text, const char *key, const char *needle)
{
    vs_pair_table t;
    char err[512] = "";
    assert_int_equal(vs_pair_table_parse("t.table", text, key, &t, err, sizeof err), -1);
    if (!strstr(err, needle))
        fail_msg("expected '%s' in: %s", needle, err);
}

static void test_table_files(void **state)
{
    (void)state;
    vs_pair_table t;
    char err[512] = "";
    assert_int_equal(vs_pair_table_parse("t.table", good_text, "AA", &t, err, sizeof err), 0);
    assert_int_equal(t.n, 5);
    assert_true(fabs(t.r0 - 1.0) < 1e-15 && fabs(t.dr - 0.5) < 1e-15);
    assert_true(t.e[2] == 1.0 && t.f[4] == 0.1);
    expect_error(good_text, "BB", "t.table: pair table BB: expected a section");
    expect_error("AA\nN 3\n\n1 1.0 1.0 1.0\n2 1.5 1.0\n3 2.0 0 0\n", "AA", "t.table:5:");
    expect_error("AA\nN 3\n\n1 1.0 1.0 1.0\n3 1.5 1.0 1.0\n3 2.0 0 0\n", "AA", "t.table:5:");
    expect_error("AA\nN 3\n\n1 1.0 1.0 1.0\n2 1.5 1.0 1.0\n3 2.2 0 0\n", "AA",
                 "t.table:6: pair table AA: expected r on a uniform");
    expect_error("AA\nN 4\n\n1 1.0 1.0 1.0\n2 1.5 1.0 1.0\n3 2.0 0 0\n", "AA",
                 "expected 4 rows");
    expect_error("AA\nN 3 RSQ 1 2\n\n1 1.0 1.0 1.0\n", "AA", "t.table:2:");
    expect_error("AA\nN 1\n\n1 1.0 1.0 1.0\n", "AA", "t.table:2:");
    expect_error("AA\nN 3\n\n1 1.0 1.0 1.0\n2 1.5 nan 1.0\n3 2.0 0 0\n", "AA", "t.table:5:");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_derivatives),  cmocka_unit_test(test_closed_forms),
        cmocka_unit_test(test_table_spline), cmocka_unit_test(test_tail),
        cmocka_unit_test(test_table_files),  cmocka_unit_test(test_morse),
        cmocka_unit_test(test_lj_force_shifted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
