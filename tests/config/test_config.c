/* Unit tests of the configuration module (src/app/config*.c).
 *
 * Each bad-input case edits one thing in a known-good configuration and asserts both the exit
 * status (2) and the whole error line, so the file, the line number, the key and the wording of
 * the expectation are all pinned down. The positive cases check that defaults, integer-for-float,
 * --set overrides and the shipped example configs/dpd-fluid.cfg come out as documented. Expected
 * values are written out by hand from the documentation, never taken from the code under test.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "fsutil.h"

#ifndef VS_SOURCE_DIR
#error "build with -DVS_SOURCE_DIR=\"<repository root>\""
#endif

/* Two species, so the a_ij matrix and the fractions have something to check. Line numbers
 * matter: the expected messages below refer to them. */
static const char BASE[] =
    "box = [10.0, 10.0, 10.0];\n"                               /* 1 */
    "density = 3.0;\n"                                          /* 2 */
    "seed = 7;\n"                                               /* 3 */
    "species = ( { name = \"A\"; fraction = 0.5; },\n"          /* 4 */
    "            { name = \"B\"; fraction = 0.5; mass = 2.0; } );\n" /* 5 */
    "dpd = {\n"                                                 /* 6 */
    "  a = { A = { A = 25.0; B = 30.0; };\n"                    /* 7 */
    "        B = { A = 30.0; B = 25.0; }; };\n"                 /* 8 */
    "  gamma = 4.5;\n"                                          /* 9 */
    "  kT = 1.0;\n"                                             /* 10 */
    "};\n"                                                      /* 11 */
    "integrator = { dt = 0.01; steps = 10; };\n"                /* 12 */
    "output = { dir = \"out/x\"; };\n";                         /* 13 */

/* Only the required keys, one species: everything else comes from the defaults. */
static const char MINIMAL[] =
    "box = [10, 10, 10];\n"
    "density = 3;\n"
    "species = ( { name = \"W\"; } );\n"
    "dpd = { a = { W = { W = 25; }; }; gamma = 4.5; kT = 1; };\n"
    "integrator = { dt = 0.04; steps = 100; };\n"
    "output = { dir = \"out/min\"; };\n";

/* BASE (or any text) with the one occurrence of `from` replaced by `to`. */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    assert_null(strstr(at + 1, from)); /* the edit must be unambiguous */
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

static int parse(const char *text, const char *const *sets, int n_sets, vs_params *p,
                 char *err)
{
    memset(err, 'X', VS_ERR_LEN);
    return vs_config_parse(text, "test.cfg", sets, n_sets, p, err, VS_ERR_LEN);
}

#define EXPECT_ERROR(text, sets, n_sets, msg)                                                 \
    do {                                                                                     \
        vs_params p_;                                                                        \
        char err_[VS_ERR_LEN];                                                               \
        assert_int_equal(parse((text), (sets), (n_sets), &p_, err_), VS_EXIT_BAD_INPUT);     \
        assert_string_equal(err_, (msg));                                                    \
    } while (0)

/* Edit BASE, parse, expect exactly `msg`. */
#define EXPECT_EDIT_ERROR(from, to, msg)                                                      \
    do {                                                                                     \
        char *t_ = edit(BASE, (from), (to));                                                 \
        EXPECT_ERROR(t_, NULL, 0, (msg));                                                    \
        free(t_);                                                                            \
    } while (0)

#define EXPECT_SET_ERROR(set, msg)                                                            \
    do {                                                                                     \
        const char *s_[] = {(set)};                                                          \
        EXPECT_ERROR(BASE, s_, 1, (msg));                                                    \
    } while (0)

static void parse_ok(const char *text, const char *const *sets, int n_sets, vs_params *p)
{
    char err[VS_ERR_LEN];
    int rc = parse(text, sets, n_sets, p, err);
    if (rc != 0)
        fail_msg("expected success, got: %s", err);
}

/* ---- unknown keys ---------------------------------------------------------------------- */

static void test_unknown_key_did_you_mean(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("gamma = 4.5", "gama = 4.5",
                      "test.cfg:9: dpd.gama: unknown key (did you mean dpd.gamma?)");
}

static void test_unknown_key_in_list_element(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("mass = 2.0", "mas = 2.0",
                      "test.cfg:5: species.[1].mas: unknown key (did you mean species.[1].mass?)");
}

static void test_unknown_key_at_wrong_level(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("seed = 7;", "random = \"gaussian\";",
                      "test.cfg:3: random: unknown key (did you mean dpd.random?)");
}

static void test_unknown_key_lists_known_keys(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10;", "steps = 10; colour = 1;",
                      "test.cfg:12: integrator.colour: unknown key (expected one of: dt, "
                      "lambda, steps)");
}

/* ---- types ------------------------------------------------------------------------------ */

static void test_string_for_number(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("kT = 1.0", "kT = \"1.0\"",
                      "test.cfg:10: dpd.kT: expected a number >= 0 (got a string \"1.0\")");
}

static void test_float_for_integer(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10", "steps = 10.0",
                      "test.cfg:12: integrator.steps: expected an integer >= 0 (got 10.0)");
}

static void test_number_for_string(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("dir = \"out/x\"", "dir = 5",
                      "test.cfg:13: output.dir: expected a non-empty string of at most 1023 "
                      "characters (got 5)");
}

static void test_boolean_for_number(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("gamma = 4.5", "gamma = true",
                      "test.cfg:9: dpd.gamma: expected a number >= 0 (got a boolean true)");
}

static void test_group_for_number(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("density = 3.0", "density = { x = 1; }",
                      "test.cfg:2: density: expected a number > 0 (got a group)");
}

static void test_wrong_array_length(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("[10.0, 10.0, 10.0]", "[10.0, 10.0]",
                      "test.cfg:1: box: expected 3 numbers [x, y, z] (got [10.0, 10.0])");
}

static void test_string_in_vector(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("[10.0, 10.0, 10.0]", "(10.0, \"ten\", 10.0)",
                      "test.cfg:1: box.[1]: expected a number (got a string \"ten\")");
}

static void test_infinite_number(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("kT = 1.0", "kT = 1e999",
                      "test.cfg:10: dpd.kT: expected a finite number >= 0 (got inf)");
}

static void test_species_not_a_list(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("species = ( { name = \"A\"; fraction = 0.5; },\n"
                      "            { name = \"B\"; fraction = 0.5; mass = 2.0; } );",
                      "species = { name = \"A\"; };",
                      "test.cfg:4: species: expected a list of 1 to 16 groups ( { ... }, "
                      "{ ... } ) (got a group)");
}

static void test_empty_species_list(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("species = ( { name = \"A\"; fraction = 0.5; },\n"
                      "            { name = \"B\"; fraction = 0.5; mass = 2.0; } );",
                      "species = ();",
                      "test.cfg:4: species: expected a list of 1 to 16 groups ( { ... }, "
                      "{ ... } ) (got an empty list)");
}

static void test_too_many_species(void **state)
{
    (void)state;
    char list[2048] = "species = (";
    for (int i = 0; i < VS_MAX_SPECIES + 1; ++i)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s{ name = \"S%d\"; }",
                 i ? ", " : " ", i);
    strcat(list, " );");
    char *t = edit(MINIMAL, "species = ( { name = \"W\"; } );", list);
    EXPECT_ERROR(t, NULL, 0,
                 "test.cfg:3: species: expected a list of 1 to 16 groups ( { ... }, { ... } ) "
                 "(got a list of 17 groups or lists)");
    free(t);
}

/* ---- missing keys ----------------------------------------------------------------------- */

static void test_missing_required_key(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR(" steps = 10;", "",
                      "test.cfg:12: integrator.steps: required key is missing");
}

static void test_missing_required_group(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("integrator = { dt = 0.01; steps = 10; };", "",
                      "test.cfg: integrator: required key is missing");
}

static void test_missing_species_name(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("name = \"B\"; ", "",
                      "test.cfg:5: species.[1].name: required key is missing");
}

static void test_missing_fraction_with_two_species(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("\"B\"; fraction = 0.5;", "\"B\";",
                      "test.cfg:5: species.[1].fraction: required key is missing (species has "
                      "more than one element)");
}

/* ---- values ----------------------------------------------------------------------------- */

static void test_dt_zero(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("dt = 0.01", "dt = 0",
                      "test.cfg:12: integrator.dt: expected a number > 0 (got 0)");
}

static void test_dt_negative(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("dt = 0.01", "dt = -0.01",
                      "test.cfg:12: integrator.dt: expected a number > 0 (got -0.01)");
}

static void test_gamma_negative(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("gamma = 4.5", "gamma = -1",
                      "test.cfg:9: dpd.gamma: expected a number >= 0 (got -1)");
}

static void test_lambda_out_of_range(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("dt = 0.01;", "dt = 0.01; lambda = 1.5;",
                      "test.cfg:12: integrator.lambda: expected a number in [0, 1] (got 1.5)");
}

static void test_box_smaller_than_2rc(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("[10.0, 10.0, 10.0]", "[10.0, 1.5, 10.0]",
                      "test.cfg:1: box: expected each side >= 2 * dpd.rc = 2.0 "
                      "(got [10.0, 1.5, 10.0])");
}

static void test_rc_too_large_for_box(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("kT = 1.0;", "kT = 1.0; rc = 6.0;",
                      "test.cfg:1: box: expected each side >= 2 * dpd.rc = 12.0 "
                      "(got [10.0, 10.0, 10.0])");
}

static void test_density_zero(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("density = 3.0", "density = 0.0",
                      "test.cfg:2: density: expected a number > 0 (got 0.0)");
}

static void test_density_negative(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("density = 3.0", "density = -3",
                      "test.cfg:2: density: expected a number > 0 (got -3)");
}

static void test_density_below_one_particle(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("density = 3.0", "density = 0.0001",
                      "test.cfg:2: density: expected density * volume to round to at least 1 "
                      "particle (got 0.0001 in volume 1000.0)");
}

static void test_particles_zero(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("density = 3.0", "particles = 0",
                      "test.cfg:2: particles: expected an integer >= 1 (got 0)");
}

static void test_both_density_and_particles(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("seed = 7;", "particles = 3000;",
                      "test.cfg:3: particles: expected only one of density and particles "
                      "(got both)");
}

static void test_neither_density_nor_particles(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("density = 3.0;", "",
                      "test.cfg: density: required key is missing (give density or particles)");
}

static void test_mass_not_positive(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("mass = 2.0", "mass = 0",
                      "test.cfg:5: species.[1].mass: expected a number > 0 (got 0)");
}

static void test_seed_negative(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("seed = 7", "seed = -7",
                      "test.cfg:3: seed: expected an integer >= 0 (got -7)");
}

static void test_thermo_interval_zero(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("dir = \"out/x\";", "dir = \"out/x\"; thermo_interval = 0;",
                      "test.cfg:13: output.thermo_interval: expected an integer >= 1 (got 0)");
}

static void test_empty_output_dir(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("dir = \"out/x\"", "dir = \"\"",
                      "test.cfg:13: output.dir: expected a non-empty string of at most 1023 "
                      "characters (got a string \"\")");
}

static void test_decomposition_mixed(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("seed = 7;", "decomposition = [2, 0, 1];",
                      "test.cfg:3: decomposition: expected all 0 (automatic) or all >= 1 "
                      "(got [2, 0, 1])");
}

static void test_decomposition_negative(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("seed = 7;", "decomposition = [2, -2, 1];",
                      "test.cfg:3: decomposition.[1]: expected an integer in [0, 2147483647] "
                      "(got -2)");
}

static void test_bad_enum(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("seed = 7;", "backend = \"cuda\";",
                      "test.cfg:3: backend: expected one of \"auto\", \"cpu\", \"gpu\" "
                      "(got \"cuda\")");
}

static void test_bad_enum_did_you_mean(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("kT = 1.0;", "kT = 1.0; random = \"gausian\";",
                      "test.cfg:10: dpd.random: expected one of \"uniform\", \"gaussian\" "
                      "(got \"gausian\"; did you mean \"gaussian\"?)");
}

/* ---- species and the a_ij matrix -------------------------------------------------------- */

static void test_duplicate_species(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("name = \"B\"", "name = \"A\"",
                      "test.cfg:5: species.[1].name: expected a name no other species uses "
                      "(got \"A\", as species.[0].name)");
}

static void test_bad_species_name(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("name = \"B\"", "name = \"B-2\"",
                      "test.cfg:5: species.[1].name: expected a name (a letter, then letters, "
                      "digits or _) of at most 31 characters (got a string \"B-2\")");
}

static void test_fractions_not_summing_to_one(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("\"A\"; fraction = 0.5", "\"A\"; fraction = 0.4",
                      "test.cfg:4: species: expected fractions summing to 1 within 1e-9 "
                      "(got a sum of 0.9)");
}

static void test_fraction_out_of_range(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("\"A\"; fraction = 0.5", "\"A\"; fraction = 1.5",
                      "test.cfg:4: species.[0].fraction: expected a number in [0, 1] (got 1.5)");
}

static void test_asymmetric_a(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("B = { A = 30.0;", "B = { A = 31.0;",
                      "test.cfg:8: dpd.a.B.A: expected 30.0, the value of dpd.a.A.B, since "
                      "a_ij is symmetric (got 31.0)");
}

static void test_incomplete_a(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR(" B = 25.0;", "",
                      "test.cfg:8: dpd.a.B.B: required key is missing (dpd.a needs a value for "
                      "every pair of species)");
}

static void test_incomplete_a_missing_row(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("\n        B = { A = 30.0; B = 25.0; };", "",
                      "test.cfg:7: dpd.a.B.A: required key is missing (dpd.a needs a value for "
                      "every pair of species)");
}

static void test_a_unknown_species(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("A = 25.0; B = 30.0;", "A = 25.0; B = 30.0; b = 30.0;",
                      "test.cfg:7: dpd.a.A.b: unknown species (did you mean dpd.a.A.B?)");
}

static void test_a_not_a_matrix(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("B = { A = 30.0; B = 25.0; }", "B = 25.0",
                      "test.cfg:8: dpd.a.B: expected a group { NAME = ...; } keyed by species "
                      "name (got 25.0)");
}

/* ---- syntax ----------------------------------------------------------------------------- */

static void test_syntax_error(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("gamma = 4.5;", "gamma 4.5;", "test.cfg:9: syntax error (syntax error)");
}

static void test_duplicate_key_is_a_syntax_error(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("seed = 7;", "seed = 7; seed = 8;",
                      "test.cfg:3: syntax error (duplicate setting name)");
}

static void test_mixed_array_syntax_error(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("[10.0, 10.0, 10.0]", "[10, 10.5, 10]",
                      "test.cfg:1: syntax error (mismatched element type in array: write every "
                      "element the same way, e.g. [16.0, 16.5, 16.0])");
}

static void test_include_rejected(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("seed = 7;\n", "seed = 7;\n  @include \"more.cfg\"\n",
                      "test.cfg:4: syntax error (@include is not supported: only rank 0 reads "
                      "files, so put everything in one file)");
}

static void test_integer_beyond_64_bits(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10", "steps = 99999999999999999999",
                      "test.cfg:12: syntax error (integer 99999999999999999999 does not fit in "
                      "64 bits)");
}

/* ---- --set errors ----------------------------------------------------------------------- */

static void test_set_bad_value(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("dpd.gamma=abc",
                     "--set dpd.gamma=abc: dpd.gamma: expected a number >= 0 (got a string "
                     "\"abc\")");
}

static void test_set_out_of_range(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("integrator.dt=-1",
                     "--set integrator.dt=-1: integrator.dt: expected a number > 0 (got -1)");
}

static void test_set_unknown_key(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("dpd.gama=4",
                     "--set dpd.gama=4: dpd.gama: unknown key (did you mean dpd.gamma?)");
}

static void test_set_unknown_key_in_element(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("species.[0].fractoin=1",
                     "--set species.[0].fractoin=1: species.[0].fractoin: unknown key (did you "
                     "mean species.[0].fraction?)");
}

static void test_set_without_equals(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("dpd.gamma", "--set dpd.gamma: expected key=value (got no '=')");
}

static void test_set_bad_key_syntax(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("dpd..gamma=1",
                     "--set dpd..gamma=1: expected key=value with a dotted key such as "
                     "dpd.gamma or species.[0].mass (got key \"dpd..gamma\")");
}

static void test_set_value_syntax_error(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("box=[20,20",
                     "--set box=[20,20: box: expected 3 numbers [x, y, z] (got \"[20,20\": "
                     "syntax error)");
}

static void test_set_two_values(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("dpd.gamma=1; seed = 3",
                     "--set dpd.gamma=1; seed = 3: dpd.gamma: expected a number >= 0 (got "
                     "\"1; seed = 3\": more than one value)");
}

static void test_set_missing_element(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("species.[2].mass=1",
                     "--set species.[2].mass=1: species.[2]: no such element (species has 2)");
}

static void test_set_array_element(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("box.[0]=20",
                     "--set box.[0]=20: box.[0]: cannot set one element; set the whole value "
                     "(box=...)");
}

static void test_set_breaks_symmetry(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("dpd.a.A.B=40",
                     "--set dpd.a.A.B=40: dpd.a.A.B: expected 30.0, the value of dpd.a.B.A, "
                     "since a_ij is symmetric (got 40)");
}

static void test_set_rc_breaks_box(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("dpd.rc=6",
                     "--set dpd.rc=6: box: expected each side >= 2 * dpd.rc = 12.0 "
                     "(got [10.0, 10.0, 10.0])");
}

static void test_set_fractions_off(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("species.[1].fraction=0.25",
                     "--set species.[1].fraction=0.25: species: expected fractions summing to "
                     "1 within 1e-9 (got a sum of 0.75)");
}

static void test_set_unknown_species_row(void **state)
{
    (void)state;
    EXPECT_SET_ERROR("dpd.a.C.A=1",
                     "--set dpd.a.C.A=1: dpd.a.C: unknown species (did you mean dpd.a.A?)");
}

static void test_set_reports_the_failing_override(void **state)
{
    (void)state;
    const char *sets[] = {"integrator.steps=20", "dpd.kT=-2", "seed=3"};
    EXPECT_ERROR(BASE, sets, 3, "--set dpd.kT=-2: dpd.kT: expected a number >= 0 (got -2)");
}

/* ---- robustness of the report ----------------------------------------------------------- */

static void test_error_is_one_line(void **state)
{
    (void)state;
    vs_params p;
    char err[VS_ERR_LEN];
    char *t = edit(BASE, "kT = 1.0", "kT = \"a\\nb\"");
    assert_int_equal(vs_config_parse(t, "odd\nname.cfg", NULL, 0, &p, err, sizeof err),
                     VS_EXIT_BAD_INPUT);
    assert_string_equal(err, "odd?name.cfg:10: dpd.kT: expected a number >= 0 (got a string "
                             "\"a\\nb\")");
    free(t);
}

static void test_small_error_buffer(void **state)
{
    (void)state;
    vs_params p;
    char err[16];
    memset(err, 'X', sizeof err);
    assert_int_equal(vs_config_parse("x = 1;", "test.cfg", NULL, 0, &p, err, 8),
                     VS_EXIT_BAD_INPUT);
    assert_string_equal(err, "test.cf");
    assert_int_equal(err[8], 'X'); /* nothing written past err_len */
}

static void test_output_untouched_on_error(void **state)
{
    (void)state;
    vs_params p, before;
    memset(&p, 0x5a, sizeof p);
    before = p;
    char err[VS_ERR_LEN];
    char *t = edit(BASE, "dt = 0.01", "dt = 0");
    assert_int_equal(parse(t, NULL, 0, &p, err), VS_EXIT_BAD_INPUT);
    assert_memory_equal(&p, &before, sizeof p);
    free(t);
}

/* ---- positive cases --------------------------------------------------------------------- */

static void test_defaults_filled(void **state)
{
    (void)state;
    vs_params p;
    parse_ok(MINIMAL, NULL, 0, &p);
    assert_int_equal(p.n_species, 1);
    assert_string_equal(p.species[0].name, "W");
    assert_true(p.species[0].mass == 1.0);
    assert_true(p.species[0].fraction == 1.0);
    for (int d = 0; d < 3; ++d) {
        assert_true(p.species[0].body_force[d] == 0.0);
        assert_true(p.box[d] == 10.0);
        assert_int_equal(p.decomposition[d], 0);
    }
    assert_int_equal(p.n_particles, 3000);
    assert_true(p.density == 3.0);
    assert_int_equal(p.seed, 1);
    assert_true(p.a[0][0] == 25.0);
    assert_true(p.gamma == 4.5);
    assert_true(p.kT == 1.0);
    assert_true(p.rc == 1.0);
    assert_true(p.s == 1.0);
    assert_int_equal(p.random, VS_RANDOM_UNIFORM);
    assert_true(p.dt == 0.04);
    assert_true(p.lambda == 0.5);
    assert_int_equal(p.steps, 100);
    assert_true(p.skin == 0.0);
    assert_int_equal(p.backend, VS_BACKEND_AUTO);
    assert_int_equal(p.precision, VS_PRECISION_MIXED);
    assert_string_equal(p.output_dir, "out/min");
    assert_int_equal(p.thermo_interval, 100);
}

static void test_every_key_read(void **state)
{
    (void)state;
    static const char full[] =
        "box = [12.0, 10.0, 8.0];\n"
        "particles = 960;\n"
        "seed = 123456789012345L;\n"
        "species = ( { name = \"A\"; mass = 1.5; fraction = 0.25;\n"
        "              body_force = [0.1, 0.0, 0.0]; },\n"
        "            { name = \"Solvent_2\"; fraction = 0.75; } );\n"
        "dpd = { a = { A = { A = 25.0; Solvent_2 = 40.0; };\n"
        "              Solvent_2 = { Solvent_2 = 20.0; A = 40.0; }; };\n"
        "        gamma = 3.0; kT = 0.5; rc = 1.2; s = 0.5; random = \"gaussian\"; };\n"
        "integrator = { dt = 0.02; lambda = 0.65; steps = 0; };\n"
        "neighbor = { skin = 0.4; };\n"
        "decomposition = [2, 1, 1];\n"
        "backend = \"cpu\";\n"
        "precision = \"double\";\n"
        "output = { dir = \"runs/full\"; thermo_interval = 7; };\n";
    vs_params p;
    parse_ok(full, NULL, 0, &p);
    assert_true(p.box[0] == 12.0 && p.box[1] == 10.0 && p.box[2] == 8.0);
    assert_int_equal(p.n_particles, 960);
    assert_true(p.density == 1.0);
    assert_int_equal(p.seed, 123456789012345ULL);
    assert_int_equal(p.n_species, 2);
    assert_string_equal(p.species[1].name, "Solvent_2");
    assert_true(p.species[0].mass == 1.5 && p.species[1].mass == 1.0);
    assert_true(p.species[0].fraction == 0.25 && p.species[1].fraction == 0.75);
    assert_true(p.species[0].body_force[0] == 0.1 && p.species[0].body_force[1] == 0.0);
    assert_true(p.a[0][0] == 25.0 && p.a[0][1] == 40.0 && p.a[1][0] == 40.0 &&
                p.a[1][1] == 20.0);
    assert_true(p.gamma == 3.0 && p.kT == 0.5 && p.rc == 1.2 && p.s == 0.5);
    assert_int_equal(p.random, VS_RANDOM_GAUSSIAN);
    assert_true(p.dt == 0.02 && p.lambda == 0.65);
    assert_int_equal(p.steps, 0);
    assert_true(p.skin == 0.4);
    assert_int_equal(p.decomposition[0], 2);
    assert_int_equal(p.decomposition[1], 1);
    assert_int_equal(p.backend, VS_BACKEND_CPU);
    assert_int_equal(p.precision, VS_PRECISION_DOUBLE);
    assert_string_equal(p.output_dir, "runs/full");
    assert_int_equal(p.thermo_interval, 7);
}

static void test_int_accepted_for_float(void **state)
{
    (void)state;
    vs_params p;
    char *t = edit(BASE, "gamma = 4.5", "gamma = 4");
    parse_ok(t, NULL, 0, &p);
    assert_true(p.gamma == 4.0);
    free(t);
    t = edit(BASE, "[10.0, 10.0, 10.0]", "[10L, 12L, 14L]"); /* 64-bit integers too */
    parse_ok(t, NULL, 0, &p);
    assert_true(p.box[0] == 10.0 && p.box[1] == 12.0 && p.box[2] == 14.0);
    free(t);
}

static void test_list_accepted_for_vector(void **state)
{
    (void)state;
    vs_params p;
    char *t = edit(BASE, "[10.0, 10.0, 10.0]", "(10, 10.5, 11)");
    parse_ok(t, NULL, 0, &p);
    assert_true(p.box[0] == 10.0 && p.box[1] == 10.5 && p.box[2] == 11.0);
    free(t);
}

static void test_density_rounds_particle_count(void **state)
{
    (void)state;
    vs_params p;
    /* 3 * 3.3^3 = 107.811 -> 108 particles; the density used is 108 / 35.937. */
    char *t = edit(BASE, "[10.0, 10.0, 10.0]", "[3.3, 3.3, 3.3]");
    parse_ok(t, NULL, 0, &p);
    assert_int_equal(p.n_particles, 108);
    assert_true(p.density == 108.0 / (3.3 * 3.3 * 3.3));
    free(t);
}

static void test_wide_integers(void **state)
{
    (void)state;
    vs_params p;
    /* libconfig 1.5 wraps these silently; the module reads them as 64-bit integers. */
    char *t = edit(BASE, "steps = 10", "steps = 5000000000");
    char *u = edit(t, "seed = 7", "seed = 9223372036854775807");
    parse_ok(u, NULL, 0, &p);
    assert_int_equal(p.steps, 5000000000LL);
    assert_int_equal(p.seed, 9223372036854775807ULL);
    free(t);
    free(u);
    t = edit(BASE, "seed = 7", "seed = 0x80000000");
    parse_ok(t, NULL, 0, &p);
    assert_int_equal(p.seed, 0x80000000ULL);
    free(t);
}

static void test_comments_and_strings_left_alone(void **state)
{
    (void)state;
    vs_params p;
    char *t = edit(BASE, "dir = \"out/x\";",
                   "dir = \"out/5000000000 @include\"; # 9999999999999999999999\n"
                   "/* 9999999999999999999999\n   @include \"x\" */");
    parse_ok(t, NULL, 0, &p);
    assert_string_equal(p.output_dir, "out/5000000000 @include");
    free(t);
}

static void test_set_overrides(void **state)
{
    (void)state;
    const char *sets[] = {
        "dpd.gamma=3",
        "box=[20,20,20]",
        "integrator.steps=5000000000",
        "species.[0].fraction=0.25",
        "species[1].fraction=0.75", /* the name[N] spelling works too */
        "species.[1].mass=3",
        "species.[0].body_force=[0.5, 0.0, 0.0]",
        "output.dir=runs/a",        /* unquoted: taken as the string */
        "backend=cpu",
        "neighbor.skin=0.5",        /* creates the neighbor group */
        "dpd.a.A.B=28",
        "dpd.a.B.A=28.0",
        "seed=99",
    };
    vs_params p;
    parse_ok(BASE, sets, (int)(sizeof sets / sizeof sets[0]), &p);
    assert_true(p.gamma == 3.0);
    assert_true(p.box[0] == 20.0 && p.box[2] == 20.0);
    assert_int_equal(p.n_particles, 24000);
    assert_int_equal(p.steps, 5000000000LL);
    assert_true(p.species[0].fraction == 0.25 && p.species[1].fraction == 0.75);
    assert_true(p.species[1].mass == 3.0);
    assert_true(p.species[0].body_force[0] == 0.5);
    assert_string_equal(p.output_dir, "runs/a");
    assert_int_equal(p.backend, VS_BACKEND_CPU);
    assert_true(p.skin == 0.5);
    assert_true(p.a[0][1] == 28.0 && p.a[1][0] == 28.0);
    assert_int_equal(p.seed, 99);
}

static void test_set_quoted_string(void **state)
{
    (void)state;
    const char *sets[] = {"output.dir=\"runs/with space\"", "precision=\"double\""};
    vs_params p;
    parse_ok(BASE, sets, 2, &p);
    assert_string_equal(p.output_dir, "runs/with space");
    assert_int_equal(p.precision, VS_PRECISION_DOUBLE);
}

/* neighbor.gpu_builder "auto" (the default) stays AUTO whatever the precision: the GPU
 * backend's plan resolves it, not the parser; a named builder stays. */
static void test_gpu_builder_auto(void **state)
{
    (void)state;
    vs_params p;
    parse_ok(BASE, NULL, 0, &p);
    assert_int_equal(p.gpu_builder, VS_GPU_BUILDER_AUTO);
    const char *dbl[] = {"precision=\"double\""};
    parse_ok(BASE, dbl, 1, &p);
    assert_int_equal(p.gpu_builder, VS_GPU_BUILDER_AUTO);
    const char *named[] = {"precision=\"mixed\"", "neighbor.gpu_builder=\"thread\""};
    parse_ok(BASE, named, 2, &p);
    assert_int_equal(p.gpu_builder, VS_GPU_BUILDER_THREAD);
    const char *dbl_cells[] = {"precision=\"double\"", "neighbor.gpu_builder=\"cells\""};
    parse_ok(BASE, dbl_cells, 2, &p);
    assert_int_equal(p.gpu_builder, VS_GPU_BUILDER_CELLS);
}

static void test_set_later_wins(void **state)
{
    (void)state;
    const char *sets[] = {"integrator.dt=0.5", "integrator.dt=0.02"};
    vs_params p;
    parse_ok(BASE, sets, 2, &p);
    assert_true(p.dt == 0.02);
}

static void test_set_fixes_file_value(void **state)
{
    (void)state;
    const char *sets[] = {"integrator.dt=0.02"};
    vs_params p;
    char *t = edit(BASE, "dt = 0.01", "dt = -1");
    parse_ok(t, sets, 1, &p);
    assert_true(p.dt == 0.02);
    free(t);
}

static void test_set_density_replaces_particles(void **state)
{
    (void)state;
    const char *to_particles[] = {"particles=500"};
    const char *to_density[] = {"particles=500", "density=2"};
    vs_params p;
    parse_ok(BASE, to_particles, 1, &p);
    assert_int_equal(p.n_particles, 500);
    parse_ok(BASE, to_density, 2, &p);
    assert_int_equal(p.n_particles, 2000);
}

static void test_set_whole_group(void **state)
{
    (void)state;
    const char *sets[] = {"integrator={ dt = 0.03; steps = 4; lambda = 0.6; }"};
    vs_params p;
    parse_ok(BASE, sets, 1, &p);
    assert_true(p.dt == 0.03 && p.lambda == 0.6);
    assert_int_equal(p.steps, 4);
}

static void test_set_whole_species_list(void **state)
{
    (void)state;
    const char *sets[] = {"species=({ name = \"W\"; })", "dpd.a={ W = { W = 25.0; }; }"};
    vs_params p;
    parse_ok(BASE, sets, 2, &p);
    assert_int_equal(p.n_species, 1);
    assert_string_equal(p.species[0].name, "W");
    assert_true(p.species[0].fraction == 1.0);
}

static void test_deterministic(void **state)
{
    (void)state;
    const char *sets[] = {"dpd.kT=0.9"};
    vs_params p, q;
    memset(&p, 0, sizeof p);
    memset(&q, 0xff, sizeof q);
    parse_ok(BASE, sets, 1, &p);
    parse_ok(BASE, sets, 1, &q);
    assert_memory_equal(&p, &q, sizeof p); /* every byte, padding of names included */
}

/* ---- files ------------------------------------------------------------------------------ */

static void test_shipped_config_parses(void **state)
{
    (void)state;
    char err[VS_ERR_LEN];
    char *text = vs_read_text_file(VS_SOURCE_DIR "/configs/dpd-fluid.cfg", err, sizeof err);
    if (!text)
        fail_msg("%s", err);
    vs_params p;
    int rc = vs_config_parse(text, "configs/dpd-fluid.cfg", NULL, 0, &p, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    /* The values docs/configuration.md promises for the example. */
    assert_true(p.box[0] == 16.0 && p.box[1] == 16.0 && p.box[2] == 16.0);
    assert_int_equal(p.n_particles, 3 * 16 * 16 * 16);
    assert_true(p.density == 3.0);
    assert_int_equal(p.n_species, 1);
    assert_true(p.a[0][0] == 25.0);
    assert_true(p.gamma == 4.5 && p.kT == 1.0 && p.rc == 1.0 && p.s == 1.0);
    assert_true(p.dt == 0.04 && p.lambda == 0.65);
    assert_int_equal(p.steps, 2000);
    assert_int_equal(p.thermo_interval, 100);
    assert_string_equal(p.output_dir, "out/dpd-fluid");
    free(text);
}

static void test_read_missing_file(void **state)
{
    (void)state;
    char err[VS_ERR_LEN];
    assert_null(vs_read_text_file("no/such/file.cfg", err, sizeof err));
    assert_string_equal(err, "no/such/file.cfg: cannot read: No such file or directory");
}

static void test_read_directory(void **state)
{
    (void)state;
    char err[VS_ERR_LEN];
    assert_null(vs_read_text_file(VS_SOURCE_DIR "/configs", err, sizeof err));
    assert_string_equal(err, VS_SOURCE_DIR "/configs: cannot read: Is a directory");
}

/* Every key of the schema table in src/app/config_schema.c appears in docs/configuration.md. */
static void test_docs_cover_schema(void **state)
{
    (void)state;
    char err[VS_ERR_LEN];
    char *src = vs_read_text_file(VS_SOURCE_DIR "/src/app/config_schema.c", err, sizeof err);
    char *doc = vs_read_text_file(VS_SOURCE_DIR "/docs/configuration.md", err, sizeof err);
    assert_non_null(src);
    assert_non_null(doc);
    int keys = 0;
    for (const char *q = strstr(src, "{KEY(\""); q; q = strstr(q + 1, "{KEY(\"")) {
        const char *start = q + 6;
        const char *end = strchr(start, '"');
        char path[128], want[160];
        snprintf(path, sizeof path, "%.*s", (int)(end - start), start);
        if (strchr(path, '*'))
            continue; /* the rows and entries of dpd.a are documented with dpd.a */
        /* species.[].mass is written species.[N].mass in the docs */
        char *br = strstr(path, "[]");
        if (br)
            snprintf(want, sizeof want, "`%.*s[N]%s`", (int)(br - path), path, br + 2);
        else
            snprintf(want, sizeof want, "`%s`", path);
        if (!strstr(doc, want))
            fail_msg("docs/configuration.md does not document %s", want);
        ++keys;
    }
    assert_true(keys >= 25);
    free(src);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_key_did_you_mean),
        cmocka_unit_test(test_unknown_key_in_list_element),
        cmocka_unit_test(test_unknown_key_at_wrong_level),
        cmocka_unit_test(test_unknown_key_lists_known_keys),
        cmocka_unit_test(test_string_for_number),
        cmocka_unit_test(test_float_for_integer),
        cmocka_unit_test(test_number_for_string),
        cmocka_unit_test(test_boolean_for_number),
        cmocka_unit_test(test_group_for_number),
        cmocka_unit_test(test_wrong_array_length),
        cmocka_unit_test(test_string_in_vector),
        cmocka_unit_test(test_infinite_number),
        cmocka_unit_test(test_species_not_a_list),
        cmocka_unit_test(test_empty_species_list),
        cmocka_unit_test(test_too_many_species),
        cmocka_unit_test(test_missing_required_key),
        cmocka_unit_test(test_missing_required_group),
        cmocka_unit_test(test_missing_species_name),
        cmocka_unit_test(test_missing_fraction_with_two_species),
        cmocka_unit_test(test_dt_zero),
        cmocka_unit_test(test_dt_negative),
        cmocka_unit_test(test_gamma_negative),
        cmocka_unit_test(test_lambda_out_of_range),
        cmocka_unit_test(test_box_smaller_than_2rc),
        cmocka_unit_test(test_rc_too_large_for_box),
        cmocka_unit_test(test_density_zero),
        cmocka_unit_test(test_density_negative),
        cmocka_unit_test(test_density_below_one_particle),
        cmocka_unit_test(test_particles_zero),
        cmocka_unit_test(test_both_density_and_particles),
        cmocka_unit_test(test_neither_density_nor_particles),
        cmocka_unit_test(test_mass_not_positive),
        cmocka_unit_test(test_seed_negative),
        cmocka_unit_test(test_thermo_interval_zero),
        cmocka_unit_test(test_empty_output_dir),
        cmocka_unit_test(test_decomposition_mixed),
        cmocka_unit_test(test_decomposition_negative),
        cmocka_unit_test(test_bad_enum),
        cmocka_unit_test(test_bad_enum_did_you_mean),
        cmocka_unit_test(test_duplicate_species),
        cmocka_unit_test(test_bad_species_name),
        cmocka_unit_test(test_fractions_not_summing_to_one),
        cmocka_unit_test(test_fraction_out_of_range),
        cmocka_unit_test(test_asymmetric_a),
        cmocka_unit_test(test_incomplete_a),
        cmocka_unit_test(test_incomplete_a_missing_row),
        cmocka_unit_test(test_a_unknown_species),
        cmocka_unit_test(test_a_not_a_matrix),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_duplicate_key_is_a_syntax_error),
        cmocka_unit_test(test_mixed_array_syntax_error),
        cmocka_unit_test(test_include_rejected),
        cmocka_unit_test(test_integer_beyond_64_bits),
        cmocka_unit_test(test_set_bad_value),
        cmocka_unit_test(test_set_out_of_range),
        cmocka_unit_test(test_set_unknown_key),
        cmocka_unit_test(test_set_unknown_key_in_element),
        cmocka_unit_test(test_set_without_equals),
        cmocka_unit_test(test_set_bad_key_syntax),
        cmocka_unit_test(test_set_value_syntax_error),
        cmocka_unit_test(test_set_two_values),
        cmocka_unit_test(test_set_missing_element),
        cmocka_unit_test(test_set_array_element),
        cmocka_unit_test(test_set_breaks_symmetry),
        cmocka_unit_test(test_set_rc_breaks_box),
        cmocka_unit_test(test_set_fractions_off),
        cmocka_unit_test(test_set_unknown_species_row),
        cmocka_unit_test(test_set_reports_the_failing_override),
        cmocka_unit_test(test_error_is_one_line),
        cmocka_unit_test(test_small_error_buffer),
        cmocka_unit_test(test_output_untouched_on_error),
        cmocka_unit_test(test_defaults_filled),
        cmocka_unit_test(test_every_key_read),
        cmocka_unit_test(test_int_accepted_for_float),
        cmocka_unit_test(test_list_accepted_for_vector),
        cmocka_unit_test(test_density_rounds_particle_count),
        cmocka_unit_test(test_wide_integers),
        cmocka_unit_test(test_comments_and_strings_left_alone),
        cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_set_quoted_string),
        cmocka_unit_test(test_gpu_builder_auto),
        cmocka_unit_test(test_set_later_wins),
        cmocka_unit_test(test_set_fixes_file_value),
        cmocka_unit_test(test_set_density_replaces_particles),
        cmocka_unit_test(test_set_whole_group),
        cmocka_unit_test(test_set_whole_species_list),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_shipped_config_parses),
        cmocka_unit_test(test_read_missing_file),
        cmocka_unit_test(test_read_directory),
        cmocka_unit_test(test_docs_cover_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
