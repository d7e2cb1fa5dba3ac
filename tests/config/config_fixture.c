/* The shared fixture of the configuration tests: see config_fixture.h. */
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

/* Two species, so the a_ij matrix and the fractions have something to check. Line numbers
 * matter: the expected messages below refer to them. */
const char BASE[] =
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
const char MINIMAL[] =
    "box = [10, 10, 10];\n"
    "density = 3;\n"
    "species = ( { name = \"W\"; } );\n"
    "dpd = { a = { W = { W = 25; }; }; gamma = 4.5; kT = 1; };\n"
    "integrator = { dt = 0.04; steps = 100; };\n"
    "output = { dir = \"out/min\"; };\n";

/* BASE (or any text) with the one occurrence of `from` replaced by `to`. */
char *edit(const char *text, const char *from, const char *to)
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

int parse(const char *text, const char *const *sets, int n_sets, vs_params *p,
                 char *err)
{
    memset(err, 'X', VS_ERR_LEN);
    return vs_config_parse(text, "test.cfg", sets, n_sets, p, err, VS_ERR_LEN);
}

void parse_ok(const char *text, const char *const *sets, int n_sets, vs_params *p)
{
    char err[VS_ERR_LEN];
    int rc = parse(text, sets, n_sets, p, err);
    if (rc != 0)
        fail_msg("expected success, got: %s", err);
}

