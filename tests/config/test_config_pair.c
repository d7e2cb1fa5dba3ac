/* Unit tests of the pair list of the configuration (src/app/config_pair.c): what it accepts
 * (coefficients of both orders of a pair, per-pair cut-offs, wca, the DPD term's activity,
 * the pair reach) and every bad-input case with its whole error line, written out by hand
 * from docs/configuration.md. The pair list is inserted as line 4 of the fixture's BASE. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config_fixture.h"
#include "exit_codes.h"
#include "fsutil.h"
#include "pair_setup.h"

static vs_params prm; /* large: not on the stack */

/* BASE with `pair` as its line 4 (after the seed). */
static char *with_pair(const char *pair)
{
    char to[2048];
    snprintf(to, sizeof to, "seed = 7;\n%s", pair);
    return edit(BASE, "seed = 7;", to);
}

static void expect_pair_error(const char *pair, const char *msg)
{
    char *t = with_pair(pair);
    char err[VS_ERR_LEN];
    assert_int_equal(parse(t, NULL, 0, &prm, err), VS_EXIT_BAD_INPUT);
    assert_string_equal(err, msg);
    free(t);
}

static void test_accepts_lj(void **state)
{
    (void)state;
    char *t = with_pair("pair = ( { style = \"lj\"; rc = 2.5; shift = \"on\";\n"
                        "  coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; };\n"
                        "                  B = { epsilon = 0.5; sigma = 1.2; rc = 3.0; }; }; }; } );");
    parse_ok(t, NULL, 0, &prm);
    free(t);
    const vs_pair_style_params *lj = &prm.pair.set->style[VS_PAIR_LJ];
    assert_true(lj->active && lj->shift && !lj->tail && !lj->wca);
    assert_true(lj->c[0][0].on && lj->c[0][1].on && lj->c[1][0].on && !lj->c[1][1].on);
    assert_true(lj->c[1][0].eps == 0.5 && lj->c[1][0].sigma == 1.2 && lj->c[1][0].rc == 3.0);
    assert_true(lj->c[0][0].rc == 2.5);
    /* shifted: U(rc) = 4 (rc^-12 - rc^-6) of the A-A pair */
    assert_true(fabs(lj->c[0][0].shift - 4.0 * (pow(2.5, -12) - pow(2.5, -6))) < 1e-15);
    assert_true(lj->reach == 3.0);
    assert_true(!prm.pair.set->style[VS_PAIR_SOFT].active && !prm.pair.set->style[VS_PAIR_TABLE].active);
    assert_true(vs_dpd_active(&prm)); /* a_ij of BASE are not zero */
    assert_true(vs_pair_reach(&prm) == 3.0);
}

static void test_accepts_wca_and_inactive_dpd(void **state)
{
    (void)state;
    char *t = with_pair("pair = ( { style = \"lj\"; wca = \"on\";\n"
                        "  coeff = { A = { A = { epsilon = 1.0; sigma = 1.5; }; }; }; } );");
    char *u = edit(t, "a = { A = { A = 25.0; B = 30.0; };\n        B = { A = 30.0; B = 25.0; }; };",
                   "a = { A = { A = 0.0; B = 0.0; };\n        B = { A = 0.0; B = 0.0; }; };");
    char *v = edit(u, "gamma = 4.5;", "gamma = 0.0;");
    parse_ok(v, NULL, 0, &prm);
    const vs_pair_coeff *c = &prm.pair.set->style[VS_PAIR_LJ].c[0][0];
    assert_true(fabs(c->rc - 1.5 * pow(2.0, 1.0 / 6.0)) < 1e-15);
    assert_true(fabs(c->shift + 1.0) < 1e-14); /* U(2^(1/6) sigma) = -eps */
    assert_false(vs_dpd_active(&prm));
    assert_true(vs_pair_reach(&prm) == c->rc);
    free(v);
    /* gamma > 0: DPD stays as a thermostat */
    v = edit(u, "gamma = 4.5;", "gamma = 0.5;");
    parse_ok(v, NULL, 0, &prm);
    assert_true(vs_dpd_active(&prm));
    free(v);
    free(u);
    free(t);
    /* no pair list: DPD acts whatever its values */
    parse_ok(BASE, NULL, 0, &prm);
    assert_true(vs_dpd_active(&prm) && !vs_pair_styles_active(&prm));
}

static void test_accepts_table_keywords(void **state)
{
    (void)state;
    char *t = with_pair("pair = ( { style = \"table\"; file = \"t.table\";\n"
                        "  coeff = { A = { A = { table = \"AA\"; }; B = { table = \"AB\"; rc = 2.0; }; };\n"
                        "            B = { B = { table = \"AA\"; }; }; }; } );");
    parse_ok(t, NULL, 0, &prm);
    free(t);
    assert_int_equal(prm.pair.set->n_tables, 2);
    assert_string_equal(prm.pair.set->table_keyword[0], "AA");
    assert_string_equal(prm.pair.set->table_keyword[1], "AB");
    assert_int_equal(prm.pair.set->style[VS_PAIR_TABLE].c[1][1].table, 0);
    assert_int_equal(prm.pair.set->style[VS_PAIR_TABLE].c[1][0].table, 1);
    assert_true(prm.pair.set->style[VS_PAIR_TABLE].c[0][0].rc == 0.0); /* the table's end, once read */
    assert_string_equal(prm.pair.set->style[VS_PAIR_TABLE].file, "t.table");
}

static void test_errors(void **state)
{
    (void)state;
    expect_pair_error("pair = ( { style = \"lj\"; rc = 2.5; coeff = { A = { C = { epsilon = 1.0; sigma = 1.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].coeff.A.C: unknown species \"C\"");
    expect_pair_error("pair = ( { style = \"lj\"; rc = 2.5; coeff = { A = { A = { epsilon = 1.0; alpha = 1.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].coeff.A.A: expected only epsilon, sigma and rc for pair style lj (got alpha)");
    expect_pair_error("pair = ( { style = \"lj\"; rc = 2.5; coeff = { A = { A = { epsilon = 1.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].coeff.A.A: required key is missing (pair style lj needs epsilon and sigma)");
    expect_pair_error("pair = ( { style = \"soft\"; rc = 1.0; coeff = { A = { A = { alpha = 1.0; }; }; }; },\n"
                      "{ style = \"soft\"; coeff = { A = { A = { alpha = 1.0; }; }; }; } );",
                      "test.cfg:5: pair.[1].style: expected each style once in the pair list (got \"soft\" twice)");
    expect_pair_error("pair = ( { style = \"soft\"; rc = 1.0; coeff = { A = { B = { alpha = 1.0; }; };\n"
                      "B = { A = { alpha = 1.0; }; }; }; } );",
                      "test.cfg:5: pair.[0].coeff.B.A: expected each pair once (it is also given at line 4, as (B, A) or (A, B))");
    expect_pair_error("pair = ( { style = \"gaussian\"; coeff = { A = { B = { epsilon = 1.0; sigma = 1.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].coeff.A.B: required key is missing (give rc here or pair.[0].rc)");
    expect_pair_error("pair = ( { style = \"lj\"; rc = 2.5; shift = \"on\"; tail = \"on\"; coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].tail: expected \"off\" with shift = \"on\" (the corrections assume the unshifted potential beyond rc, as LAMMPS's pair_modify tail)");
    expect_pair_error("pair = ( { style = \"gaussian\"; rc = 2.5; wca = \"on\"; coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].wca: expected \"off\": wca applies to pair style lj only");
    expect_pair_error("pair = ( { style = \"lj\"; wca = \"on\"; coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; rc = 1.2; }; }; }; } );",
                      "test.cfg:4: pair.[0].coeff.A.A.rc: expected no rc with wca = \"on\" (the cut-off is 2^(1/6) sigma)");
    expect_pair_error("pair = ( { style = \"lj\"; rc = 2.5; file = \"x\"; coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].file: expected no file: only pair style table reads one");
    expect_pair_error("pair = ( { style = \"table\"; coeff = { A = { A = { table = \"AA\"; }; }; }; } );",
                      "test.cfg:4: pair.[0].file: required key is missing (pair style table reads its tables from a file)");
    expect_pair_error("pair = ( { style = \"buck\"; coeff = { A = { A = { table = \"AA\"; }; }; }; } );",
                      "test.cfg:4: pair.[0].style: expected one of \"lj\", \"soft\", \"gaussian\", \"table\", \"morse\", \"mie\", \"lj_force_shifted\" (got \"buck\")");
    /* morse: its own keys, no wca, no file */
    expect_pair_error("pair = ( { style = \"morse\"; rc = 2.0; coeff = { A = { A = { D0 = 1.0; alpha = 2.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].coeff.A.A: required key is missing (pair style morse needs D0, r0 and alpha)");
    expect_pair_error("pair = ( { style = \"morse\"; rc = 2.0; coeff = { A = { A = { D0 = 1.0; r0 = 1.0; alpha = 2.0; sigma = 1.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].coeff.A.A: expected only D0, r0, alpha and rc for pair style morse (got sigma)");
    expect_pair_error("pair = ( { style = \"morse\"; rc = 2.0; wca = \"on\"; coeff = { A = { A = { D0 = 1.0; r0 = 1.0; alpha = 2.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].wca: expected \"off\": wca applies to pair style lj only");
    expect_pair_error("pair = ( { style = \"lj\"; rc = 2.5; coeff = { A = { A = { epsilon = 1.0; sigma = -1.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].coeff.A.A.sigma: expected a number > 0 (got -1.0)");
    expect_pair_error("pair = ( { style = \"lj\"; rc = 2.5; coeff = { A = { }; }; } );",
                      "test.cfg:4: pair.[0].coeff: expected at least one pair of species (got none)");
    expect_pair_error("pair = ( { style = \"lj\"; rc = 2.5; } );",
                      "test.cfg:4: pair.[0].coeff: required key is missing");
    /* the lists reach 6: the box must be 12 */
    expect_pair_error("pair = ( { style = \"lj\"; rc = 6.0; coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );",
                      "test.cfg:1: box: expected each side >= 2 * the largest pair cut-off = 12.0 (got [10.0, 10.0, 10.0])");
}

/* pair.[].special: the factors of 1-2, 1-3 and 1-4 pairs (special.h); all 1 is no special
 * treatment; dpd.special is refused (DPD acts between all pairs). */
static void test_special(void **state)
{
    (void)state;
    const char *lj = "pair = ( { style = \"lj\"; rc = 2.5; special = [0.0, 0.5, 1.0];\n"
                     "  coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; },\n"
                     "{ style = \"soft\"; rc = 1.0; special = [1.0, 1.0, 1.0];\n"
                     "  coeff = { A = { A = { alpha = 1.0; }; }; }; } );";
    char *t = with_pair(lj);
    parse_ok(t, NULL, 0, &prm);
    free(t);
    const vs_pair_style_params *ps = &prm.pair.set->style[VS_PAIR_LJ];
    assert_true(ps->special && ps->special_factor[0] == 0.0 && ps->special_factor[1] == 0.5 &&
                ps->special_factor[2] == 1.0);
    assert_false(prm.pair.set->style[VS_PAIR_SOFT].special); /* all 1: as without the key */
    assert_int_equal(vs_special_depth(&prm), 0); /* no molecules: no lists */
    expect_pair_error("pair = ( { style = \"lj\"; rc = 2.5; special = [0.0, 1.5, 1.0]; coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].special.[1]: expected a number in [0, 1] (got 1.5)");
    expect_pair_error("pair = ( { style = \"lj\"; rc = 2.5; special = [0.0, 0.5]; coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );",
                      "test.cfg:4: pair.[0].special: expected 3 numbers [x, y, z] (got [0.0, 0.5])");
    char *u = edit(BASE, "  gamma = 4.5;\n", "  gamma = 4.5; special = [0.0, 1.0, 1.0];\n");
    char err[VS_ERR_LEN];
    assert_int_equal(parse(u, NULL, 0, &prm, err), VS_EXIT_BAD_INPUT);
    assert_string_equal(err, "test.cfg:9: dpd.special: not supported: the DPD term acts between "
                        "all pairs, bonded or not (exclusions are a key of the pair styles: "
                        "pair.[].special)");
    free(u);
}

/* mie: its four keys, integers accepted for the exponents, the derived constants and the
 * tail; eps <= 0, sigma <= 0, n <= m, m <= 0 and m <= 3 with tail corrections refused with
 * the key at fault. */
static void test_mie(void **state)
{
    (void)state;
    char *t = with_pair("pair = ( { style = \"mie\"; rc = 3.0; tail = \"on\";\n"
                        "  coeff = { A = { A = { epsilon = 1.5; sigma = 1.1; n = 14; m = 6.0; }; }; }; } );");
    parse_ok(t, NULL, 0, &prm);
    free(t);
    const vs_pair_style_params *ps = &prm.pair.set->style[VS_PAIR_MIE];
    assert_true(ps->active && ps->tail && !ps->shift && ps->c[0][0].on && !ps->c[0][1].on);
    const vs_pair_coeff *c = &ps->c[0][0];
    assert_true(c->given[0] == 1.5 && c->given[1] == 1.1 && c->given[2] == 14.0 && c->given[3] == 6.0);
    assert_true(c->k[2] == 7.0 && c->k[3] == 3.0 && c->rc == 3.0);
    assert_true(vs_pair_tail_on(&prm));
    const char *pre = "pair = ( { style = \"mie\"; rc = 3.0; tail = \"on\"; coeff = { A = { A = { ";
    const struct { const char *coeff, *msg; } bad[] = {
        {"epsilon = 0.0; sigma = 1.0; n = 14.0; m = 6.0;",
         "test.cfg:4: pair.[0].coeff.A.A.epsilon: expected a number > 0 for pair style mie (got 0)"},
        {"epsilon = 1.0; sigma = -1.0; n = 14.0; m = 6.0;",
         "test.cfg:4: pair.[0].coeff.A.A.sigma: expected a number > 0 (got -1.0)"},
        {"epsilon = 1.0; sigma = 1.0; n = 6.0; m = 6.0;",
         "test.cfg:4: pair.[0].coeff.A.A.n: expected n > m (got n = 6, m = 6)"},
        {"epsilon = 1.0; sigma = 1.0; n = 14.0; m = 0.0;",
         "test.cfg:4: pair.[0].coeff.A.A.m: expected a number > 0 (got 0.0)"},
        {"epsilon = 1.0; sigma = 1.0; n = 14.0; m = 3.0;",
         "test.cfg:4: pair.[0].coeff.A.A.m: expected m > 3 with tail = \"on\" (the integral of "
         "r^2 U beyond rc diverges otherwise; got m = 3)"},
        {"epsilon = 1.0; sigma = 1.0; n = 14.0;",
         "test.cfg:4: pair.[0].coeff.A.A: required key is missing (pair style mie needs epsilon, "
         "sigma, n and m)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        char text[512];
        snprintf(text, sizeof text, "%s%s }; }; }; } );", pre, bad[k].coeff);
        expect_pair_error(text, bad[k].msg);
    }
    /* m <= 3 is fine without tail corrections */
    t = with_pair("pair = ( { style = \"mie\"; rc = 3.0; shift = \"on\";\n"
                  "  coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; n = 8.0; m = 2.5; }; }; }; } );");
    parse_ok(t, NULL, 0, &prm);
    free(t);
    assert_true(prm.pair.set->style[VS_PAIR_MIE].shift && !vs_pair_tail_on(&prm));
}

/* The example configs/lj-liquid.cfg: lj at rc = 2.5 with tail corrections, DPD the
 * thermostat (a = 0, gamma > 0, at kT = 0.72). */
static void test_lj_liquid_example(void **state)
{
    (void)state;
    char err[VS_ERR_LEN];
    char *text = vs_read_text_file(VS_SOURCE_DIR "/configs/lj-liquid.cfg", err, sizeof err);
    assert_non_null(text);
    parse_ok(text, NULL, 0, &prm);
    free(text);
    const vs_pair_coeff *c = &prm.pair.set->style[VS_PAIR_LJ].c[0][0];
    assert_true(c->on && c->eps == 1.0 && c->sigma == 1.0 && c->rc == 2.5);
    assert_true(prm.pair.set->style[VS_PAIR_LJ].tail && !prm.pair.set->style[VS_PAIR_LJ].shift);
    assert_true(prm.dpd.kT == 0.72 && prm.dpd.a[0][0] == 0.0 && prm.dpd.gamma.v > 0.0);
    assert_true(vs_dpd_active(&prm));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_lj),
        cmocka_unit_test(test_accepts_wca_and_inactive_dpd),
        cmocka_unit_test(test_accepts_table_keywords),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_special),
        cmocka_unit_test(test_lj_liquid_example),
        cmocka_unit_test(test_mie),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
