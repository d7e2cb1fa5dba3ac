/* The particle-field interactions of a configuration (config_field.h):
 *
 *   field = {
 *       spacing = 1.0;          # grid cell edge
 *       interval = 10;          # steps between field updates
 *       kappa = 0.05;           # compressibility
 *       chi = { A = { A = 0.0; B = 1.2; }; B = { A = 1.2; B = 0.0; }; };
 *       force = "gradient";     # or "energy"
 *   };
 *
 * The species named as rows of chi are the field species, in the order of `species`; every
 * row has a value for every field species. The per-key checks (kappa > 0, interval >= 1,
 * spacing > 0) are the schema's; this file checks the matrix and the run around it. */
#include "config_field.h"

#include <stdio.h>
#include <string.h>

#include "exit_codes.h"
#include "fnv.h"

static const config_setting_t *get(const config_setting_t *g, const char *name)
{
    return g ? config_setting_get_member(g, name) : NULL;
}

static double num(const config_setting_t *s)
{
    return config_setting_type(s) == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
                                                       : (double)config_setting_get_int64(s);
}

static int species_index(const vs_params *p, const char *name)
{
    for (int s = 0; s < p->species.n; ++s)
        if (strcmp(p->species.list[s].name, name) == 0)
            return s;
    return -1;
}

static int fail_species(const cfg_ctx *c, const vs_params *p, const config_setting_t *site,
                        const char *key)
{
    char names[VS_MAX_SPECIES * (VS_NAME_LEN + 2)] = "";
    for (int s = 0; s < p->species.n; ++s)
        cfg_put(names, sizeof names, "%s%s", s ? ", " : "", p->species.list[s].name);
    return cfg_fail(c, site, key, "unknown species (the species are %s)", names);
}

/* The field species: the rows of chi, in the order of the species list. */
static int field_species(const cfg_ctx *c, const config_setting_t *chi, vs_params *p)
{
    vs_field_params *f = &p->field;
    for (int s = 0; s < VS_MAX_SPECIES; ++s)
        f->of[s] = -1;
    for (int r = 0; r < config_setting_length(chi); ++r) {
        const config_setting_t *row = config_setting_get_elem(chi, (unsigned)r);
        char key[PATH_LEN];
        snprintf(key, sizeof key, "field.chi.%s", config_setting_name(row));
        const int s = species_index(p, config_setting_name(row));
        if (s < 0)
            return fail_species(c, p, row, key);
        f->of[s] = 0;
    }
    f->n = 0;
    for (int s = 0; s < p->species.n; ++s)
        if (f->of[s] == 0) {
            f->species[f->n] = s;
            f->of[s] = f->n++;
        }
    return 0;
}

/* chi_kl from the rows: a value for every field species, symmetric. */
static int chi_values(const cfg_ctx *c, const config_setting_t *chi, vs_params *p)
{
    vs_field_params *f = &p->field;
    const config_setting_t *at[VS_MAX_SPECIES][VS_MAX_SPECIES] = {{NULL}};
    for (int r = 0; r < config_setting_length(chi); ++r) {
        const config_setting_t *row = config_setting_get_elem(chi, (unsigned)r);
        const int k = f->of[species_index(p, config_setting_name(row))];
        for (int q = 0; q < config_setting_length(row); ++q) {
            const config_setting_t *v = config_setting_get_elem(row, (unsigned)q);
            char key[PATH_LEN];
            snprintf(key, sizeof key, "field.chi.%s.%s", config_setting_name(row),
                     config_setting_name(v));
            const int s = species_index(p, config_setting_name(v));
            if (s < 0)
                return fail_species(c, p, v, key);
            if (f->of[s] < 0)
                return cfg_fail(c, v, key, "expected a field species (a row of field.chi; "
                                "%s has none)", config_setting_name(v));
            at[k][f->of[s]] = v;
        }
    }
    for (int k = 0; k < f->n; ++k)
        for (int l = 0; l < f->n; ++l) {
            const char *a = p->species.list[f->species[k]].name,
                       *b = p->species.list[f->species[l]].name;
            char key[PATH_LEN];
            snprintf(key, sizeof key, "field.chi.%s.%s", a, b);
            if (!at[k][l])
                return cfg_fail(c, get(chi, a), key, "required key is missing (field.chi needs "
                                "a value for every pair of field species)");
            f->chi[k][l] = num(at[k][l]);
        }
    for (int k = 0; k < f->n; ++k)
        for (int l = k + 1; l < f->n; ++l) {
            if (f->chi[k][l] == f->chi[l][k])
                continue;
            const config_setting_t *two[2] = {at[k][l], at[l][k]};
            const config_setting_t *site = cfg_pick_site(two, 2);
            const config_setting_t *other = site == at[k][l] ? at[l][k] : at[k][l];
            char key[PATH_LEN], okey[PATH_LEN], want[48] = "", got[48] = "";
            snprintf(key, sizeof key, "field.chi.%s.%s",
                     config_setting_name(config_setting_parent(site)), config_setting_name(site));
            snprintf(okey, sizeof okey, "field.chi.%s.%s",
                     config_setting_name(config_setting_parent(other)),
                     config_setting_name(other));
            cfg_put_value(want, sizeof want, other);
            cfg_put_value(got, sizeof got, site);
            return cfg_fail(c, site, key, "expected %s, the value of %s, since chi is symmetric "
                            "(got %s)", want, okey, got);
        }
    return 0;
}

/* The field's physics key: a hash of everything that sets its forces. */
static void field_code(vs_params *p)
{
    const vs_field_params *f = &p->field;
    uint64_t h = vs_fnv1a(VS_FNV_OFFSET, "field", 5);
    const double v[4] = {f->spacing, (double)f->interval, f->kappa, (double)f->force};
    h = vs_fnv1a(h, v, sizeof v);
    h = vs_fnv1a(h, f->species, sizeof(int) * (size_t)f->n);
    for (int k = 0; k < f->n; ++k)
        h = vs_fnv1a(h, f->chi[k], sizeof(double) * (size_t)f->n);
    p->field.code = (int64_t)((h >> 12) | 1u); /* 52 bits, exact as a double; never 0 */
}

/* The run around the field: what the term cannot join yet (on either backend). */
static int check_run(const cfg_ctx *c, const config_setting_t *g, const vs_params *p)
{
    if (p->integrator.kind == VS_INTEGRATOR_NPT)
        return cfg_fail(c, g, "field", "the field term needs a fixed box (its grid is the "
                        "box's); integrator.kind = \"npt\" is not supported with it");
    if (vs_has_walls(p))
        return cfg_fail(c, g, "field", "the field term needs a periodic box (its grid wraps "
                        "around every axis); walls are not supported with it");
    return 0;
}

int vs_config_field(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    memset(&p->field, 0, sizeof p->field);
    const config_setting_t *g = get(root, "field");
    if (!get(g, "spacing")) /* absent (the defaults' pass may have made the bare group) */
        return 0;
    vs_field_params *f = &p->field;
    f->on = 1;
    f->spacing = num(get(g, "spacing"));
    f->interval = config_setting_get_int64(get(g, "interval"));
    f->kappa = num(get(g, "kappa"));
    f->force = strcmp(config_setting_get_string(get(g, "force")), "energy") == 0
                   ? VS_FIELD_FORCE_ENERGY
                   : VS_FIELD_FORCE_GRADIENT;
    const config_setting_t *chi = get(g, "chi");
    if (field_species(c, chi, p) || chi_values(c, chi, p) || check_run(c, g, p))
        return VS_EXIT_BAD_INPUT;
    if (f->n == 0)
        return cfg_fail(c, chi, "field.chi", "expected at least one field species (a row)");
    field_code(p);
    return 0;
}
