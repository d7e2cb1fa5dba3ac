/* Unit tests of the configuration module (src/app/config*.c): bad input. What it accepts is
 * tested in test_config_accept.c.
 *
 * Each bad-input case edits one thing in a known-good configuration and asserts both the exit
 * status (2) and the whole error line, so the file, the line number, the key and the wording of
 * the expectation are all pinned down. Expected values are written out by hand from the
 * documentation, never taken from the code under test.
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

#include "config_fixture.h"
#include "config_lex.h"
#include "fsutil.h"

#ifndef VS_SOURCE_DIR
#error "build with -DVS_SOURCE_DIR=\"<repository root>\""
#endif

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
                      "lambda, steps, kind, tau, chain, pressure, tau_p, gamma, "
                      "collision_rate, remove_com_every)");
}

/* ---- the ensembles (integrator.kind) ----------------------------------------------------- */

static void test_integrator_kind_unknown(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10;", "steps = 10; kind = \"metropolis\";",
                      "test.cfg:12: integrator.kind: expected one of \"dpd\", \"nve\", "
                      "\"nose_hoover\", \"langevin\", \"andersen\", \"berendsen\", "
                      "\"brownian\", \"npt\" (got \"metropolis\")");
}

static void test_integrator_parameter_missing(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10;", "steps = 10; kind = \"nose_hoover\";",
                      "test.cfg:12: integrator.tau: required key is missing (integrator.kind = "
                      "\"nose_hoover\" needs it)");
}

static void test_integrator_parameter_unused(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10;", "steps = 10; kind = \"langevin\"; gamma = 1.0; tau = 2.0;",
                      "test.cfg:12: integrator.tau: not used by integrator.kind = \"langevin\"; "
                      "remove it");
}

static void test_integrator_chain_range(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10;", "steps = 10; kind = \"nose_hoover\"; tau = 1.0; chain = 11;",
                      "test.cfg:12: integrator.chain: expected an integer in [1, 10] (got 11)");
}

static void test_integrator_nose_hoover_without_temperature(void **state)
{
    (void)state;
    const char *sets[] = {"integrator.kind=nose_hoover", "integrator.tau=1.0", "dpd.kT=0"};
    EXPECT_ERROR(BASE, sets, 3,
                 "--set integrator.kind=nose_hoover: integrator.kind: \"nose_hoover\" needs a "
                 "temperature: expected dpd.kT > 0 (its chain masses are proportional to kT)");
}

/* npt: its keys, and what it refuses (exit 2 with the line) */
static void test_integrator_npt_pressure_missing(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10;", "steps = 10; kind = \"npt\"; tau = 1.0; tau_p = 2.0;",
                      "test.cfg:12: integrator.pressure: required key is missing "
                      "(integrator.kind = \"npt\" needs it)");
}

static void test_integrator_npt_negative_tau_p(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10;",
                      "steps = 10; kind = \"npt\"; tau = 1.0; pressure = 1.0; tau_p = -2.0;",
                      "test.cfg:12: integrator.tau_p: expected a number > 0 (got -2.0)");
}

static void test_integrator_barostat_with_dpd(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10;", "steps = 10; pressure = 1.0; tau_p = 2.0;",
                      "test.cfg:12: integrator.pressure: not used by integrator.kind = "
                      "\"dpd\"; remove it");
}

static void test_integrator_npt_with_dissipation(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10;",
                      "steps = 10; kind = \"npt\"; tau = 1.0; pressure = 1.0; tau_p = 2.0;",
                      "test.cfg:12: integrator.kind: \"npt\" integrates conservative forces "
                      "only (the DPD thermostat is not part of its equations of motion): "
                      "expected dpd.gamma = 0");
}

static void test_integrator_npt_with_body_force(void **state)
{
    (void)state;
    const char *sets[] = {"integrator.kind=npt", "integrator.tau=1.0", "integrator.pressure=1.0",
                          "integrator.tau_p=1.0", "dpd.gamma=0",
                          "species.[0].body_force=[0.1,0.0,0.0]"};
    EXPECT_ERROR(BASE, sets, 6,
                 "--set integrator.kind=npt: integrator.kind: \"npt\" has no body force in "
                 "its equations of motion: expected species.[0].body_force = [0, 0, 0]");
}

static void test_integrator_brownian_with_dissipation(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("steps = 10;", "steps = 10; kind = \"brownian\"; gamma = 1.0;",
                      "test.cfg:12: integrator.kind: \"brownian\" has no velocities for the DPD "
                      "dissipative force: expected dpd.gamma = 0");
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
                      "test.cfg:9: dpd.gamma: expected a number >= 0 or a species matrix "
                      "{ NAME = { NAME = number; }; } (got a boolean true)");
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

static void test_gamma_matrix_errors(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("gamma = 4.5;",
                      "gamma = { A = { A = 4.5; B = 3.0; }; B = { A = 2.0; B = 4.5; }; };",
                      "test.cfg:9: dpd.gamma.B.A: expected 3.0, the value of dpd.gamma.A.B, "
                      "since gamma_ij is symmetric (got 2.0)");
    EXPECT_EDIT_ERROR("gamma = 4.5;", "gamma = { A = { A = 4.5; B = 3.0; }; B = { A = 3.0; }; };",
                      "test.cfg:9: dpd.gamma.B.B: required key is missing (dpd.gamma needs a "
                      "value for every pair of species)");
    EXPECT_EDIT_ERROR("gamma = 4.5;",
                      "gamma = { A = { A = 4.5; B = -1.0; }; B = { A = -1.0; B = 4.5; }; };",
                      "test.cfg:9: dpd.gamma.A.B: expected a number >= 0 (got -1.0)");
    EXPECT_EDIT_ERROR("gamma = 4.5;", "gamma = { A = { A = 4.5; C = 3.0; }; };",
                      "test.cfg:9: dpd.gamma.A.C: unknown species (did you mean dpd.gamma.A.A?)");
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

static void test_duplicate_key_is_named(void **state)
{
    (void)state;
    EXPECT_EDIT_ERROR("seed = 7;", "seed = 7; seed = 8;",
                      "test.cfg:3: seed: duplicate setting name (a key may appear only once in "
                      "its group)");
    EXPECT_EDIT_ERROR("gamma = 4.5;", "gamma = 4.5;\n  gamma = 3.0;",
                      "test.cfg:10: gamma: duplicate setting name (a key may appear only once "
                      "in its group)");
}

static void test_deep_nesting_names_the_limit(void **state)
{
    (void)state;
    char deep[3 * VS_CFG_MAX_DEPTH + 16] = "x = ";
    for (int i = 0; i < VS_CFG_MAX_DEPTH + 1; ++i)
        strcat(deep, "(");
    strcat(deep, ");");
    EXPECT_EDIT_ERROR("seed = 7;", deep,
                      "test.cfg:3: syntax error (groups, lists and arrays nest more than 64 "
                      "levels deep (the limit; Vesica's keys nest at most 4 levels))");
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
                     "--set dpd.gamma=abc: dpd.gamma: expected a number >= 0 or a species matrix "
                     "{ NAME = { NAME = number; }; } (got a string \"abc\")");
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
                     "--set dpd.gamma=1; seed = 3: dpd.gamma: expected a number >= 0 or a species "
                     "matrix { NAME = { NAME = number; }; } (got \"1; seed = 3\": more than one "
                     "value)");
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
        cmocka_unit_test(test_gamma_matrix_errors),
        cmocka_unit_test(test_incomplete_a_missing_row),
        cmocka_unit_test(test_a_unknown_species),
        cmocka_unit_test(test_a_not_a_matrix),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_duplicate_key_is_named),
        cmocka_unit_test(test_deep_nesting_names_the_limit),
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
        cmocka_unit_test(test_integrator_kind_unknown),
        cmocka_unit_test(test_integrator_parameter_missing),
        cmocka_unit_test(test_integrator_parameter_unused),
        cmocka_unit_test(test_integrator_chain_range),
        cmocka_unit_test(test_integrator_nose_hoover_without_temperature),
        cmocka_unit_test(test_integrator_brownian_with_dissipation),
        cmocka_unit_test(test_integrator_npt_pressure_missing),
        cmocka_unit_test(test_integrator_npt_negative_tau_p),
        cmocka_unit_test(test_integrator_barostat_with_dpd),
        cmocka_unit_test(test_integrator_npt_with_dissipation),
        cmocka_unit_test(test_integrator_npt_with_body_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
