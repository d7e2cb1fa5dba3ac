/* Unit tests of the mie pair style (src/core/pair_mie.h):
 *
 * - F = -dU/dr (central differences) over (0.8 sigma, rc) for several (n, m), shifted and
 *   not, in double and in float (the mixed-precision GPU evaluator);
 * - the energy and force against the formula written out here with pow(), the prefactor
 *   C = (n/(n-m)) (n/m)^(m/(n-m)) at its closed values (4 at 12-6, 27/4 at 9-6), U(sigma) = 0,
 *   the minimum -eps without force at (n/m)^(1/(n-m)) sigma, zero energy at rc when shifted;
 * - n = 12, m = 6 against the lj style with the same eps, sigma, rc: equal to round-off (the
 *   worst relative difference, a few ulp, is printed), not bit for bit;
 * - the tail corrections against Simpson's rule on r^2 U and r^3 U', and at 12-6 against
 *   lj's.
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

static const vs_pair_table *tables = NULL; /* mie reads none */

static vs_pair_coeff mie(double eps, double sigma, double n, double m, double rc, int shift)
{
    vs_pair_coeff c;
    memset(&c, 0, sizeof c);
    c.on = 1;
    c.rc = rc;
    c.given[0] = eps, c.given[1] = sigma, c.given[2] = n, c.given[3] = m;
    vs_pair_coeff_finish(VS_PAIR_MIE, &c, shift, tables);
    return c;
}

/* The potential written out independently: C eps ((s/r)^n - (s/r)^m) and its -dU/dr. */
static double mie_c(double n, double m) { return n / (n - m) * pow(n / m, m / (n - m)); }
static double mie_u(double eps, double s, double n, double m, double r)
{
    return mie_c(n, m) * eps * (pow(s / r, n) - pow(s / r, m));
}
static double mie_f(double eps, double s, double n, double m, double r)
{
    return mie_c(n, m) * eps * (n * pow(s / r, n) - m * pow(s / r, m)) / r;
}

static const double cases[4][5] = {
    /* eps, sigma, n, m, rc */
    {1.0, 1.0, 14.0, 6.0, 2.5}, {161.0, 3.74, 14.0, 6.0, 10.0}, {0.7, 1.2, 20.5, 7.25, 3.0},
    {2.0, 0.9, 9.0, 6.0, 2.2}};

static void test_derivative_both_precisions(void **state)
{
    (void)state;
    for (int k = 0; k < 4; ++k)
        for (int shift = 0; shift <= 1; ++shift) {
            const double *p = cases[k];
            const vs_pair_coeff c = mie(p[0], p[1], p[2], p[3], p[4], shift);
            double fmax = 0.0, worst = 0.0, worst_f = 0.0;
            for (int q = 0; q < 400; ++q) {
                const double r = 0.8 * p[1] + (p[4] - 0.8 * p[1]) * (q + 0.5) / 400.0;
                const double h = 1e-5 * r;
                const double num = -(vs_pair_style_eval(VS_PAIR_MIE, &c, tables, (r + h) * (r + h)).energy -
                                     vs_pair_style_eval(VS_PAIR_MIE, &c, tables, (r - h) * (r - h)).energy) /
                                   (2.0 * h);
                const vs_pair_result d = vs_pair_style_eval(VS_PAIR_MIE, &c, tables, r * r);
                const vs_pair_result_f f = vs_pair_style_eval_f(VS_PAIR_MIE, &c, tables, (float)(r * r));
                assert_true(fabs(d.virial - d.f_over_r * r * r) <= 1e-12 * fabs(d.virial) + 1e-300);
                fmax = fmax > fabs(d.f_over_r * r) ? fmax : fabs(d.f_over_r * r);
                worst = fmax > 0 && fabs(d.f_over_r * r - num) > worst ? fabs(d.f_over_r * r - num) : worst;
                const double df = fabs((double)f.f_over_r * r - d.f_over_r * r);
                worst_f = df > worst_f ? df : worst_f;
                /* float's energy: the relative rounding of each term times its size */
                const double scale = mie_c(p[2], p[3]) * p[0] * (pow(p[1] / r, p[2]) + pow(p[1] / r, p[3]));
                if (!(fabs((double)f.energy - d.energy) <= 2e-6 * scale + 1e-6 * fabs(c.shift)))
                    fail_msg("case %d r %g: float energy %g, double %g", k, r, (double)f.energy, d.energy);
            }
            if (!(worst <= 1e-6 * fmax))
                fail_msg("case %d shift %d: |F + dU/dr| up to %g with |F| up to %g", k, shift, worst, fmax);
            if (!(worst_f <= 2e-5 * fmax))
                fail_msg("case %d shift %d: float force off by %g of %g", k, shift, worst_f, fmax);
        }
}

static void test_closed_forms(void **state)
{
    (void)state;
    assert_true(fabs(mie_c(12.0, 6.0) - 4.0) < 1e-15);
    assert_true(fabs(vs_pair_mie_prefactor(9.0, 6.0) - 3.0 * pow(1.5, 2.0)) < 1e-14);
    for (int k = 0; k < 4; ++k) {
        const double eps = cases[k][0], s = cases[k][1], n = cases[k][2], m = cases[k][3],
                     rc = cases[k][4];
        vs_pair_coeff c = mie(eps, s, n, m, rc, 0);
        assert_true(c.shift == 0.0);
        for (int q = 0; q < 50; ++q) {
            const double r = 0.85 * s + (rc - 0.85 * s) * q / 49.0;
            const vs_pair_result p = vs_pair_style_eval(VS_PAIR_MIE, &c, tables, r * r);
            const double u = mie_u(eps, s, n, m, r), f = mie_f(eps, s, n, m, r);
            const double su = mie_c(n, m) * eps * (pow(s / r, n) + pow(s / r, m));
            if (!(fabs(p.energy - u) <= 1e-13 * su && fabs(p.f_over_r * r - f) <= 1e-13 * su * n / r))
                fail_msg("case %d r %g: U %.17g vs %.17g, F %.17g vs %.17g", k, r, p.energy, u,
                         p.f_over_r * r, f);
        }
        assert_true(fabs(vs_pair_style_eval(VS_PAIR_MIE, &c, tables, s * s).energy) < 1e-13 * eps);
        const double rmin = pow(n / m, 1.0 / (n - m)) * s;
        const vs_pair_result p = vs_pair_style_eval(VS_PAIR_MIE, &c, tables, rmin * rmin);
        assert_true(fabs(p.energy + eps) < 1e-13 * eps && fabs(p.f_over_r) < 1e-12 * eps / (s * s));
        c = mie(eps, s, n, m, rc, 1);
        assert_true(fabs(c.shift - mie_u(eps, s, n, m, rc)) < 1e-13 * eps);
        assert_true(fabs(vs_pair_style_eval(VS_PAIR_MIE, &c, tables, rc * rc).energy) < 1e-15 * eps);
    }
}

/* 12-6 is lj: the worst relative difference of U and F over the range, against the sizes of
 * the terms (the sum cancels at sigma). */
static void test_twelve_six_is_lj(void **state)
{
    (void)state;
    for (int shift = 0; shift <= 1; ++shift) {
        const double eps = 1.3, s = 1.1, rc = 3.0;
        const vs_pair_coeff c = mie(eps, s, 12.0, 6.0, rc, shift);
        vs_pair_coeff l;
        memset(&l, 0, sizeof l);
        l.on = 1;
        l.rc = rc;
        l.eps = eps;
        l.sigma = s;
        vs_pair_coeff_finish(VS_PAIR_LJ, &l, shift, tables);
        double worst = 0.0;
        int same = 0, total = 0;
        for (int q = 0; q < 1000; ++q) {
            const double r = 0.8 * s + (rc - 0.8 * s) * (q + 0.5) / 1000.0;
            const vs_pair_result a = vs_pair_style_eval(VS_PAIR_MIE, &c, tables, r * r);
            const vs_pair_result b = vs_pair_style_eval(VS_PAIR_LJ, &l, tables, r * r);
            const double s6 = pow(s / r, 6.0);
            const double size = 4.0 * eps * (s6 * s6 + s6);
            const double de = fabs(a.energy - b.energy) / size;
            const double dfr = fabs(a.f_over_r - b.f_over_r) / (size * 12.0 / (r * r));
            worst = fmax(worst, fmax(de, dfr));
            same += a.energy == b.energy && a.f_over_r == b.f_over_r;
            ++total;
        }
        print_message("mie 12-6 vs lj (shift %d): worst relative difference %.2e (%.1f ulp), "
                      "%d of %d points bit-identical\n", shift, worst, worst / 2.220446e-16,
                      same, total);
        assert_true(worst < 1e-14);
    }
}

/* Simpson's rule over u = 1/r in (0, 1/rc]: 2 pi / V N_i N_j int r^2 U and -r^3 U'. */
static void numeric_tail(double eps, double s, double n, double m, double rc, double pre,
                         double *e, double *w)
{
    const int steps = 20000;
    double ie = 0.0, iw = 0.0;
    for (int k = 1; k <= steps; ++k) { /* the integrands vanish at u = 0 (m > 3) */
        const double u = (1.0 / rc) * k / steps, r = 1.0 / u;
        const double wgt = k == steps ? 1.0 : (k % 2 ? 4.0 : 2.0);
        ie += wgt * mie_u(eps, s, n, m, r) * r * r * r * r;        /* r^2 U dr = r^4 U du */
        iw += wgt * mie_f(eps, s, n, m, r) * r * r * r * r * r;    /* -r^3 U' dr = r^5 F du */
    }
    const double du = (1.0 / rc) / steps;
    *e = pre * ie * du / 3.0;
    *w = pre * iw * du / 3.0;
}

static void test_tail(void **state)
{
    (void)state;
    static vs_pair_set set; /* large: not on the stack */
    vs_params p;
    memset(&p, 0, sizeof p);
    memset(&set, 0, sizeof set);
    p.pair.set = &set;
    p.species.n = 2;
    vs_pair_style_params *ps = &set.style[VS_PAIR_MIE];
    ps->active = ps->tail = 1;
    const double par[3][5] = {{1.0, 1.0, 14.0, 6.0, 2.5}, {0.7, 1.2, 20.5, 7.25, 3.0},
                              {1.3, 0.9, 9.0, 5.5, 2.2}};
    const int which[2][2] = {{0, 1}, {1, 2}};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const double *q = par[which[i][j]];
            ps->c[i][j] = mie(q[0], q[1], q[2], q[3], q[4], 0);
        }
    const int64_t count[2] = {300, 700};
    const double volume = 1234.0, pi = 3.14159265358979323846;
    double e = 0.0, w = 0.0;
    vs_pair_tail(&p, count, volume, &e, &w);
    double ne = 0.0, nw = 0.0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const double *q = par[which[i][j]];
            double de, dw;
            numeric_tail(q[0], q[1], q[2], q[3], q[4],
                         2.0 * pi / volume * (double)count[i] * (double)count[j], &de, &dw);
            ne += de;
            nw += dw;
        }
    if (!(fabs(e - ne) < 1e-8 * fabs(ne) && fabs(w - nw) < 1e-8 * fabs(nw)))
        fail_msg("tail energy %.12g vs %.12g, virial %.12g vs %.12g", e, ne, w, nw);
    /* 12-6: lj's corrections */
    ps->active = 0;
    vs_pair_style_params *lj = &set.style[VS_PAIR_LJ];
    lj->active = lj->tail = ps->active = 1;
    memset(ps->c, 0, sizeof ps->c);
    ps->c[0][0] = mie(1.1, 0.95, 12.0, 6.0, 2.7, 0);
    double e_mie = 0.0, w_mie = 0.0, e_lj = 0.0, w_lj = 0.0;
    lj->active = 0;
    vs_pair_tail(&p, count, volume, &e_mie, &w_mie);
    lj->active = 1;
    ps->active = 0;
    lj->c[0][0].on = 1;
    lj->c[0][0].rc = 2.7;
    lj->c[0][0].eps = 1.1;
    lj->c[0][0].sigma = 0.95;
    vs_pair_coeff_finish(VS_PAIR_LJ, &lj->c[0][0], 0, tables);
    vs_pair_tail(&p, count, volume, &e_lj, &w_lj);
    assert_true(fabs(e_mie - e_lj) <= 1e-14 * fabs(e_lj) && fabs(w_mie - w_lj) <= 1e-14 * fabs(w_lj));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_derivative_both_precisions), cmocka_unit_test(test_closed_forms),
        cmocka_unit_test(test_twelve_six_is_lj), cmocka_unit_test(test_tail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
