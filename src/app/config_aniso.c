/* The anisotropic pair style of a configuration (config_aniso.h): the `aniso` group and the
 * species' moments of inertia,
 *
 *   species = ( { name = "J"; inertia = 0.4; } );
 *   aniso = { style = "janus"; rc = 1.0;
 *             coeff = { J = { J = { alpha_r = 396.0; alpha_a = 132.0; beta = 65.0;
 *                                   nu = 0.5; }; }; }; };
 *
 * A pair given as A.B also sets B.A (giving both is an error); pairs not given do not
 * interact in this style (they keep DPD and the pair list). Both species of a pair must be
 * oriented (an inertia given): the model's factor needs both orientations, so a point bead
 * interacts with an oriented particle only through the isotropic terms. */
#include "config_aniso.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const config_setting_t *get(const config_setting_t *g, const char *name)
{
    return g ? config_setting_get_member(g, name) : NULL;
}

static double num(const config_setting_t *s)
{
    return config_setting_type(s) == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
                                                       : (double)config_setting_get_int64(s);
}

static int species_of(const vs_params *p, const char *name)
{
    for (int s = 0; s < p->species.n; ++s)
        if (strcmp(p->species.list[s].name, name) == 0)
            return s;
    return -1;
}

static const char *const style_names[] = {"none", "disk", "rod", "janus", "triblock"};

static int is_janus(int style) { return style == VS_ANISO_JANUS || style == VS_ANISO_TRIBLOCK; }

/* One pair group g: its coefficients into pc. */
static int extract_pair(const cfg_ctx *c, const config_setting_t *g, const char *key,
                        int style, double rc_default, vs_aniso_coeff *pc)
{
    static const char *const disk_keys[] = {"alpha", "mu", "nu", NULL};
    static const char *const janus_keys[] = {"alpha_r", "alpha_a", "beta", "nu", NULL};
    const char *const *keys = is_janus(style) ? janus_keys : disk_keys;
    const char *text = is_janus(style) ? "alpha_r, alpha_a, beta and nu" : "alpha, mu and nu";
    for (int m = 0; m < config_setting_length(g); ++m) {
        const config_setting_t *v = config_setting_get_elem(g, (unsigned)m);
        int known = strcmp(config_setting_name(v), "rc") == 0;
        for (int q = 0; keys[q]; ++q)
            known |= strcmp(config_setting_name(v), keys[q]) == 0;
        if (!known)
            return cfg_fail(c, v, key, "expected only %s and rc for aniso style %s (got %s)",
                            text, style_names[style], config_setting_name(v));
    }
    for (int q = 0; keys[q]; ++q)
        if (!get(g, keys[q]))
            return cfg_fail(c, g, key, "required key is missing (aniso style %s needs %s)",
                            style_names[style], text);
    memset(pc, 0, sizeof *pc);
    pc->on = 1;
    pc->rc = get(g, "rc") ? num(get(g, "rc")) : rc_default;
    pc->nu = num(get(g, "nu"));
    if (is_janus(style)) {
        pc->alpha = num(get(g, "alpha_r"));
        pc->alpha_a = num(get(g, "alpha_a"));
        const double beta = num(get(g, "beta"));
        /* two patches, one at each pole, must not overlap */
        if (style == VS_ANISO_TRIBLOCK && beta > 90.0)
            return cfg_fail(c, get(g, "beta"), key,
                            "beta: expected a value in (0, 90] for aniso style triblock (got %g)",
                            beta);
        pc->beta = beta * (3.14159265358979323846 / 180.0);
    } else {
        pc->alpha = num(get(g, "alpha"));
        pc->mu = num(get(g, "mu"));
    }
    vs_aniso_coeff_finish(pc);
    return 0;
}

static int extract_coeffs(const cfg_ctx *c, const config_setting_t *group, vs_params *p)
{
    vs_aniso_params *an = &p->aniso;
    const config_setting_t *map = get(group, "coeff");
    const config_setting_t *given[VS_MAX_SPECIES][VS_MAX_SPECIES] = {{NULL}};
    const double rc_default = num(get(group, "rc"));
    for (int r = 0; r < config_setting_length(map); ++r) {
        const config_setting_t *row = config_setting_get_elem(map, (unsigned)r);
        for (int q = 0; q < config_setting_length(row); ++q) {
            const config_setting_t *g = config_setting_get_elem(row, (unsigned)q);
            char key[PATH_LEN];
            snprintf(key, sizeof key, "aniso.coeff.%s.%s", config_setting_name(row),
                     config_setting_name(g));
            const int i = species_of(p, config_setting_name(row));
            const int j = species_of(p, config_setting_name(g));
            if (i < 0 || j < 0)
                return cfg_fail(c, i < 0 ? row : g, key, "unknown species \"%s\"",
                                config_setting_name(i < 0 ? row : g));
            for (int s = 0; s < 2; ++s) {
                const int sp = s ? j : i;
                if (!(p->species.list[sp].inertia > 0.0))
                    return cfg_fail(c, g, key, "expected oriented species (species %s has no "
                                    "orientation: give it species.[%d].inertia > 0)",
                                    p->species.list[sp].name, sp);
            }
            if (given[i][j])
                return cfg_fail(c, g, key, "expected each pair once (it is also given at line "
                                "%d)", config_setting_source_line(given[i][j]));
            given[i][j] = given[j][i] = g;
            const int rc = extract_pair(c, g, key, an->style, rc_default, &an->c[i][j]);
            if (rc)
                return rc;
            an->c[j][i] = an->c[i][j];
            if (an->c[i][j].rc > an->reach)
                an->reach = an->c[i][j].rc;
        }
    }
    if (an->reach == 0.0)
        return cfg_fail(c, map, "aniso.coeff", "expected at least one pair of species (got "
                        "none)");
    return 0;
}

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t k = 0; k < n; ++k) {
        h ^= b[k];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The physics key of the orientations and the style: 0 without oriented species. */
static void aniso_code(vs_params *p)
{
    if (!vs_params_oriented(p)) {
        p->aniso.code = 0;
        return;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    const int head[2] = {p->aniso.style, p->species.n};
    h = fnv(h, head, sizeof head);
    for (int s = 0; s < p->species.n; ++s)
        h = fnv(h, &p->species.list[s].inertia, sizeof(double));
    for (int i = 0; i < p->species.n; ++i)
        h = fnv(h, p->aniso.c[i], sizeof(vs_aniso_coeff) * (size_t)p->species.n);
    p->aniso.code = (int64_t)((h >> 12) | 1u); /* 52 bits, exact as a double; never 0 */
}

int vs_config_aniso(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    memset(&p->aniso, 0, sizeof p->aniso);
    const config_setting_t *group = get(root, "aniso");
    if (get(group, "style")) { /* the defaults make the group where none was given */
        const char *name = config_setting_get_string(get(group, "style"));
        for (int s = 1; s <= VS_ANISO_TRIBLOCK; ++s)
            if (strcmp(name, style_names[s]) == 0)
                p->aniso.style = s;
        const int rc = extract_coeffs(c, group, p);
        if (rc)
            return rc;
    }
    aniso_code(p);
    const vs_integrator_kind k = p->integrator.kind;
    if (vs_params_oriented(p) && k != VS_INTEGRATOR_DPD && k != VS_INTEGRATOR_NVE &&
        k != VS_INTEGRATOR_BERENDSEN && k != VS_INTEGRATOR_LANGEVIN)
        return cfg_fail(c, get(get(root, "integrator"), "kind"), "integrator.kind",
                        "expected \"dpd\", \"nve\", \"berendsen\" or \"langevin\" with "
                        "oriented species (species.[].inertia): the other ensembles do not "
                        "integrate rotation");
    return 0;
}
