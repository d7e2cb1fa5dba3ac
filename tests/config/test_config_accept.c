/* Unit tests of the configuration module (src/app/config*.c): what it accepts. The bad-input
 * cases are in test_config.c.
 *
 * The cases check that defaults, integer-for-float, --set overrides and the shipped example
 * configs/dpd-fluid.cfg come out as documented, and that the documentation covers the schema. Expected
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

#include "config_fixture.h"
#include "fsutil.h"
#include "param_schema.h"
#include "physics_keys.h"

#ifndef VS_SOURCE_DIR
#error "build with -DVS_SOURCE_DIR=\"<repository root>\""
#endif

/* ---- positive cases --------------------------------------------------------------------- */

static void test_defaults_filled(void **state)
{
    (void)state;
    vs_params p;
    parse_ok(MINIMAL, NULL, 0, &p);
    assert_int_equal(p.species.n, 1);
    assert_string_equal(p.species.list[0].name, "W");
    assert_true(p.species.list[0].mass == 1.0);
    assert_true(p.species.list[0].fraction == 1.0);
    for (int d = 0; d < 3; ++d) {
        assert_true(p.species.list[0].body_force[d] == 0.0);
        assert_true(p.system.box[d] == 10.0);
        assert_int_equal(p.exec.decomposition[d], 0);
    }
    assert_int_equal(p.system.n_particles, 3000);
    assert_true(p.system.density == 3.0);
    assert_int_equal(p.system.seed, 1);
    assert_true(p.dpd.a[0][0] == 25.0);
    assert_true(p.dpd.gamma.v == 4.5);
    assert_true(p.dpd.kT == 1.0);
    assert_true(p.dpd.rc == 1.0);
    assert_true(p.dpd.s == 1.0);
    assert_int_equal(p.dpd.random, VS_RANDOM_UNIFORM);
    assert_true(p.integrator.dt == 0.04);
    assert_true(p.integrator.lambda == 0.5);
    assert_int_equal(p.integrator.steps, 100);
    assert_true(p.neighbor.skin == 0.0);
    assert_int_equal(p.exec.backend, VS_BACKEND_AUTO);
    assert_int_equal(p.exec.precision, VS_PRECISION_MIXED);
    assert_string_equal(p.output.dir, "out/min");
    assert_int_equal(p.output.thermo_interval, 100);
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
    assert_true(p.system.box[0] == 12.0 && p.system.box[1] == 10.0 && p.system.box[2] == 8.0);
    assert_int_equal(p.system.n_particles, 960);
    assert_true(p.system.density == 1.0);
    assert_int_equal(p.system.seed, 123456789012345ULL);
    assert_int_equal(p.species.n, 2);
    assert_string_equal(p.species.list[1].name, "Solvent_2");
    assert_true(p.species.list[0].mass == 1.5 && p.species.list[1].mass == 1.0);
    assert_true(p.species.list[0].fraction == 0.25 && p.species.list[1].fraction == 0.75);
    assert_true(p.species.list[0].body_force[0] == 0.1 && p.species.list[0].body_force[1] == 0.0);
    assert_true(p.dpd.a[0][0] == 25.0 && p.dpd.a[0][1] == 40.0 && p.dpd.a[1][0] == 40.0 &&
                p.dpd.a[1][1] == 20.0);
    assert_true(p.dpd.gamma.v == 3.0 && p.dpd.kT == 0.5 && p.dpd.rc == 1.2 && p.dpd.s == 0.5);
    assert_int_equal(p.dpd.random, VS_RANDOM_GAUSSIAN);
    assert_true(p.integrator.dt == 0.02 && p.integrator.lambda == 0.65);
    assert_int_equal(p.integrator.steps, 0);
    assert_true(p.neighbor.skin == 0.4);
    assert_int_equal(p.exec.decomposition[0], 2);
    assert_int_equal(p.exec.decomposition[1], 1);
    assert_int_equal(p.exec.backend, VS_BACKEND_CPU);
    assert_int_equal(p.exec.precision, VS_PRECISION_DOUBLE);
    assert_string_equal(p.output.dir, "runs/full");
    assert_int_equal(p.output.thermo_interval, 7);
}

static void test_int_accepted_for_float(void **state)
{
    (void)state;
    vs_params p;
    char *t = edit(BASE, "gamma = 4.5", "gamma = 4");
    parse_ok(t, NULL, 0, &p);
    assert_true(p.dpd.gamma.v == 4.0);
    free(t);
    t = edit(BASE, "[10.0, 10.0, 10.0]", "[10L, 12L, 14L]"); /* 64-bit integers too */
    parse_ok(t, NULL, 0, &p);
    assert_true(p.system.box[0] == 10.0 && p.system.box[1] == 12.0 && p.system.box[2] == 14.0);
    free(t);
}

static void test_list_accepted_for_vector(void **state)
{
    (void)state;
    vs_params p;
    char *t = edit(BASE, "[10.0, 10.0, 10.0]", "(10, 10.5, 11)");
    parse_ok(t, NULL, 0, &p);
    assert_true(p.system.box[0] == 10.0 && p.system.box[1] == 10.5 && p.system.box[2] == 11.0);
    free(t);
}

static void test_density_rounds_particle_count(void **state)
{
    (void)state;
    vs_params p;
    /* 3 * 3.3^3 = 107.811 -> 108 particles; the density used is 108 / 35.937. */
    char *t = edit(BASE, "[10.0, 10.0, 10.0]", "[3.3, 3.3, 3.3]");
    parse_ok(t, NULL, 0, &p);
    assert_int_equal(p.system.n_particles, 108);
    assert_true(p.system.density == 108.0 / (3.3 * 3.3 * 3.3));
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
    assert_int_equal(p.integrator.steps, 5000000000LL);
    assert_int_equal(p.system.seed, 9223372036854775807ULL);
    free(t);
    free(u);
    t = edit(BASE, "seed = 7", "seed = 0x80000000");
    parse_ok(t, NULL, 0, &p);
    assert_int_equal(p.system.seed, 0x80000000ULL);
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
    assert_string_equal(p.output.dir, "out/5000000000 @include");
    free(t);
}

/* dpd.gamma as a species matrix: each pair's value, and the largest as the one number. */
static void test_gamma_matrix(void **state)
{
    (void)state;
    const char *sets[] = {"dpd.gamma={ A = { A = 4.5; B = 1.5; }; B = { A = 1.5; B = 9; }; }"};
    vs_params p;
    parse_ok(BASE, sets, 1, &p);
    assert_int_equal(p.dpd.gamma.per_pair, 1);
    assert_true(p.dpd.gamma.ij[0][0] == 4.5 && p.dpd.gamma.ij[0][1] == 1.5 &&
                p.dpd.gamma.ij[1][0] == 1.5 && p.dpd.gamma.ij[1][1] == 9.0);
    assert_true(p.dpd.gamma.v == 9.0);
    assert_true(vs_pair_real_at(&p.dpd.gamma, 1, 0) == 1.5);
    assert_false(vs_pair_real_uniform(&p.dpd.gamma, 2));
    const char *one[] = {"dpd.gamma=3"};
    parse_ok(BASE, one, 1, &p);
    assert_int_equal(p.dpd.gamma.per_pair, 0);
    assert_true(vs_pair_real_at(&p.dpd.gamma, 1, 0) == 3.0 && vs_pair_real_uniform(&p.dpd.gamma, 2));
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
    assert_true(p.dpd.gamma.v == 3.0);
    assert_true(p.system.box[0] == 20.0 && p.system.box[2] == 20.0);
    assert_int_equal(p.system.n_particles, 24000);
    assert_int_equal(p.integrator.steps, 5000000000LL);
    assert_true(p.species.list[0].fraction == 0.25 && p.species.list[1].fraction == 0.75);
    assert_true(p.species.list[1].mass == 3.0);
    assert_true(p.species.list[0].body_force[0] == 0.5);
    assert_string_equal(p.output.dir, "runs/a");
    assert_int_equal(p.exec.backend, VS_BACKEND_CPU);
    assert_true(p.neighbor.skin == 0.5);
    assert_true(p.dpd.a[0][1] == 28.0 && p.dpd.a[1][0] == 28.0);
    assert_int_equal(p.system.seed, 99);
}

static void test_set_quoted_string(void **state)
{
    (void)state;
    const char *sets[] = {"output.dir=\"runs/with space\"", "precision=\"double\""};
    vs_params p;
    parse_ok(BASE, sets, 2, &p);
    assert_string_equal(p.output.dir, "runs/with space");
    assert_int_equal(p.exec.precision, VS_PRECISION_DOUBLE);
}

/* neighbor.gpu_builder "auto" (the default) stays AUTO whatever the precision: the GPU
 * backend's plan resolves it, not the parser; a named builder stays. */
static void test_gpu_builder_auto(void **state)
{
    (void)state;
    vs_params p;
    parse_ok(BASE, NULL, 0, &p);
    assert_int_equal(p.exec.gpu_builder, VS_GPU_BUILDER_AUTO);
    const char *dbl[] = {"precision=\"double\""};
    parse_ok(BASE, dbl, 1, &p);
    assert_int_equal(p.exec.gpu_builder, VS_GPU_BUILDER_AUTO);
    const char *named[] = {"precision=\"mixed\"", "neighbor.gpu_builder=\"thread\""};
    parse_ok(BASE, named, 2, &p);
    assert_int_equal(p.exec.gpu_builder, VS_GPU_BUILDER_THREAD);
    const char *dbl_cells[] = {"precision=\"double\"", "neighbor.gpu_builder=\"cells\""};
    parse_ok(BASE, dbl_cells, 2, &p);
    assert_int_equal(p.exec.gpu_builder, VS_GPU_BUILDER_CELLS);
}

static void test_set_later_wins(void **state)
{
    (void)state;
    const char *sets[] = {"integrator.dt=0.5", "integrator.dt=0.02"};
    vs_params p;
    parse_ok(BASE, sets, 2, &p);
    assert_true(p.integrator.dt == 0.02);
}

static void test_set_fixes_file_value(void **state)
{
    (void)state;
    const char *sets[] = {"integrator.dt=0.02"};
    vs_params p;
    char *t = edit(BASE, "dt = 0.01", "dt = -1");
    parse_ok(t, sets, 1, &p);
    assert_true(p.integrator.dt == 0.02);
    free(t);
}

static void test_set_density_replaces_particles(void **state)
{
    (void)state;
    const char *to_particles[] = {"particles=500"};
    const char *to_density[] = {"particles=500", "density=2"};
    vs_params p;
    parse_ok(BASE, to_particles, 1, &p);
    assert_int_equal(p.system.n_particles, 500);
    parse_ok(BASE, to_density, 2, &p);
    assert_int_equal(p.system.n_particles, 2000);
}

static void test_set_whole_group(void **state)
{
    (void)state;
    const char *sets[] = {"integrator={ dt = 0.03; steps = 4; lambda = 0.6; }"};
    vs_params p;
    parse_ok(BASE, sets, 1, &p);
    assert_true(p.integrator.dt == 0.03 && p.integrator.lambda == 0.6);
    assert_int_equal(p.integrator.steps, 4);
}

static void test_set_whole_species_list(void **state)
{
    (void)state;
    const char *sets[] = {"species=({ name = \"W\"; })", "dpd.a={ W = { W = 25.0; }; }"};
    vs_params p;
    parse_ok(BASE, sets, 2, &p);
    assert_int_equal(p.species.n, 1);
    assert_string_equal(p.species.list[0].name, "W");
    assert_true(p.species.list[0].fraction == 1.0);
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
    assert_true(p.system.box[0] == 16.0 && p.system.box[1] == 16.0 && p.system.box[2] == 16.0);
    assert_int_equal(p.system.n_particles, 3 * 16 * 16 * 16);
    assert_true(p.system.density == 3.0);
    assert_int_equal(p.species.n, 1);
    assert_true(p.dpd.a[0][0] == 25.0);
    assert_true(p.dpd.gamma.v == 4.5 && p.dpd.kT == 1.0 && p.dpd.rc == 1.0 && p.dpd.s == 1.0);
    assert_true(p.integrator.dt == 0.04 && p.integrator.lambda == 0.65);
    assert_int_equal(p.integrator.steps, 2000);
    assert_int_equal(p.output.thermo_interval, 100);
    assert_string_equal(p.output.dir, "out/dpd-fluid");
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

/* Every key of the schema table (src/core/param_schema.c) appears in docs/configuration.md. */
static void test_docs_cover_schema(void **state)
{
    (void)state;
    char err[VS_ERR_LEN];
    char *doc = vs_read_text_file(VS_SOURCE_DIR "/docs/configuration.md", err, sizeof err);
    assert_non_null(doc);
    int keys = 0;
    for (int i = 0; i < vs_config_schema_count; ++i) {
        const char *path = vs_config_schema[i].path;
        char want[160];
        if (strchr(path, '*'))
            continue; /* the rows and entries of dpd.a are documented with dpd.a */
        /* species.[].mass is written species.[N].mass in the docs */
        const char *br = strstr(path, "[]");
        if (br)
            snprintf(want, sizeof want, "`%.*s[N]%s`", (int)(br - path), path, br + 2);
        else
            snprintf(want, sizeof want, "`%s`", path);
        if (!strstr(doc, want))
            fail_msg("docs/configuration.md does not document %s", want);
        ++keys;
    }
    assert_true(keys >= 25);
    free(doc);
}

/* The physics keys, from the schema's rows, keep the order and the checkpoint attributes that
 * checkpoints already written hold (the order is part of the physics hash they store). */
static void test_physics_keys_frozen(void **state)
{
    (void)state;
    static const char *const want[][2] = {
        {"box", "box"}, {"particles", "particles"}, {"seed", "seed"}, {"species", NULL},
        {"name", "species_names"}, {"mass", "species_mass"}, {"fraction", "species_fraction"},
        {"body_force", "species_body_force"}, {"dpd.a", "a"}, {"dpd.gamma", "gamma"},
        {"dpd.kT", "kT"}, {"dpd.rc", "rc"}, {"dpd.s", "s"}, {"dpd.random", "random"},
        {"integrator.dt", "dt"}, {"integrator.lambda", "lambda"}, {"flow.kind", "flow_kind"},
        {"flow.axis", "flow_axis"}, {"flow.across", "flow_across"},
        {"flow.species", "flow_species"}, {"flow.g", "flow_g"}, {"pair", "pair_code"},
        {"integrator.kind", "integrator_kind"}, {"integrator.tau", "integrator_tau"},
        {"integrator.chain", "integrator_chain"}, {"integrator.gamma", "integrator_gamma"},
        {"integrator.collision_rate", "integrator_collision_rate"},
        {"integrator.remove_com_every", "integrator_remove_com_every"},
        {"integrator.pressure", "integrator_pressure"}, {"integrator.tau_p", "integrator_tau_p"},
        {"boundary.x.kind", "boundary_x_kind"},
        {"boundary.x.velocity_lo", "boundary_x_velocity_lo"},
        {"boundary.x.velocity_hi", "boundary_x_velocity_hi"},
        {"boundary.x.force.kind", "boundary_x_force"},
        {"boundary.x.force.f", "boundary_x_force_f"},
        {"boundary.x.force.d", "boundary_x_force_d"},
        {"boundary.y.kind", "boundary_y_kind"},
        {"boundary.y.velocity_lo", "boundary_y_velocity_lo"},
        {"boundary.y.velocity_hi", "boundary_y_velocity_hi"},
        {"boundary.y.force.kind", "boundary_y_force"},
        {"boundary.y.force.f", "boundary_y_force_f"},
        {"boundary.y.force.d", "boundary_y_force_d"},
        {"boundary.z.kind", "boundary_z_kind"},
        {"boundary.z.velocity_lo", "boundary_z_velocity_lo"},
        {"boundary.z.velocity_hi", "boundary_z_velocity_hi"},
        {"boundary.z.force.kind", "boundary_z_force"},
        {"boundary.z.force.f", "boundary_z_force_f"},
        {"boundary.z.force.d", "boundary_z_force_d"},
        {"frozen", "species_frozen"},
        {"bonded", "bonded_code"},
        {"aniso", "aniso_code"},
        {"reactions", "reactions_code"},
        {"field", "field_code"}};
    const int n_want = (int)(sizeof want / sizeof want[0]);
    int n;
    const vs_physics_key *k = vs_physics_key_list(&n);
    assert_int_equal(n, n_want);
    for (int i = 0; i < n; ++i) {
        assert_string_equal(k[i].key, want[i][0]);
        if (want[i][1])
            assert_string_equal(k[i].stored, want[i][1]);
        else
            assert_null(k[i].stored);
    }
    assert_int_equal(k[0].count, 3); /* box */
    assert_true(k[4].per_species && k[7].per_species && k[7].count == 3); /* name, body_force */
    assert_true(!k[3].per_species && !k[8].per_species);
    assert_true(k[21].offset == offsetof(vs_params, pair.code));
    assert_true(k[25].offset == offsetof(vs_params, integrator.friction));
    assert_true(k[n - 4].offset == offsetof(vs_params, molecules.code)); /* bonded */
    assert_true(k[n - 3].offset == offsetof(vs_params, aniso.code));     /* aniso */
    assert_true(k[n - 2].offset == offsetof(vs_params, reactions.code)); /* reactions */
    assert_true(k[n - 1].offset == offsetof(vs_params, field.code));     /* field, the last */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_filled),
        cmocka_unit_test(test_every_key_read),
        cmocka_unit_test(test_int_accepted_for_float),
        cmocka_unit_test(test_list_accepted_for_vector),
        cmocka_unit_test(test_density_rounds_particle_count),
        cmocka_unit_test(test_wide_integers),
        cmocka_unit_test(test_comments_and_strings_left_alone),
        cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_gamma_matrix),
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
        cmocka_unit_test(test_physics_keys_frozen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
