/* The dpd group's species-pair matrices: see config_matrix.h. A matrix is a map of species
 * names to maps of species names,
 *
 *   a = { A = { A = 25.0; B = 50.0; }; B = { A = 50.0; B = 25.0; }; };
 *
 * with a value for every ordered pair, and M.A.B equal to M.B.A. dpd.gamma takes either this
 * form or one number for every pair. */
#include "config_matrix.h"

#include <stdio.h>
#include <string.h>

static const config_setting_t *member(const config_setting_t *g, const char *name)
{
    return g && config_setting_is_group(g) ? config_setting_get_member(g, name) : NULL;
}

static double as_double(const config_setting_t *s)
{
    return config_setting_type(s) == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
                                                       : (double)config_setting_get_int64(s);
}

static int species_index(const vs_params *p, const char *name)
{
    for (int i = 0; i < p->species.n; ++i)
        if (strcmp(p->species.list[i].name, name) == 0)
            return i;
    return -1;
}

static int fail_unknown_species(const cfg_ctx *c, const config_setting_t *s, const char *key,
                                const char *parent, const vs_params *p)
{
    const char *names[VS_MAX_SPECIES] = {NULL};
    for (int i = 0; i < p->species.n; ++i)
        names[i] = p->species.list[i].name;
    const char *best = cfg_closest(config_setting_name(s), names, p->species.n);
    if (best)
        return cfg_fail(c, s, key, "unknown species (did you mean %s.%s?)", parent, best);
    char list[SHOW_LEN] = "";
    for (int i = 0; i < p->species.n; ++i)
        cfg_put(list, sizeof list, "%s%s", i ? ", " : "", names[i]);
    return cfg_fail(c, s, key, "unknown species (the species are %s)", list);
}

/* The settings of map `m` (key `key`) by species pair; fails on an unknown species name or a
 * missing pair. */
static int matrix_sites(const cfg_ctx *c, const config_setting_t *m, const char *key,
                        const vs_params *p, const config_setting_t *e[][VS_MAX_SPECIES])
{
    for (int r = 0; r < config_setting_length(m); ++r) {
        const config_setting_t *row = config_setting_get_elem(m, (unsigned)r);
        char rkey[PATH_LEN];
        snprintf(rkey, sizeof rkey, "%s.%s", key, config_setting_name(row));
        int i = species_index(p, config_setting_name(row));
        if (i < 0)
            return fail_unknown_species(c, row, rkey, key, p);
        for (int q = 0; q < config_setting_length(row); ++q) {
            const config_setting_t *v = config_setting_get_elem(row, (unsigned)q);
            char vkey[PATH_LEN];
            snprintf(vkey, sizeof vkey, "%s", rkey);
            cfg_put(vkey, sizeof vkey, ".%s", config_setting_name(v));
            int j = species_index(p, config_setting_name(v));
            if (j < 0)
                return fail_unknown_species(c, v, vkey, rkey, p);
            e[i][j] = v;
        }
    }
    for (int i = 0; i < p->species.n; ++i)
        for (int j = 0; j < p->species.n; ++j) {
            if (e[i][j])
                continue;
            const config_setting_t *row = member(m, p->species.list[i].name);
            char vkey[PATH_LEN];
            snprintf(vkey, sizeof vkey, "%s.%s.%s", key, p->species.list[i].name,
                     p->species.list[j].name);
            return cfg_fail(c, row ? row : m, vkey,
                            "required key is missing (%s needs a value for every pair of "
                            "species)", key);
        }
    return 0;
}

/* Map `m` (key `key`, the symbol `sym` in messages: "a_ij") into out[i][j]. */
static int extract_matrix(const cfg_ctx *c, const config_setting_t *m, const char *key,
                          const char *sym, const vs_params *p,
                          double out[][VS_MAX_SPECIES])
{
    const config_setting_t *e[VS_MAX_SPECIES][VS_MAX_SPECIES] = {{NULL}};
    int rc = matrix_sites(c, m, key, p, e);
    if (rc)
        return rc;
    for (int i = 0; i < p->species.n; ++i)
        for (int j = 0; j < p->species.n; ++j)
            out[i][j] = as_double(e[i][j]);
    for (int i = 0; i < p->species.n; ++i)
        for (int j = i + 1; j < p->species.n; ++j) {
            if (out[i][j] == out[j][i])
                continue;
            /* Report at the override if one is involved, else at the later line. */
            const config_setting_t *two[2] = {e[j][i], e[i][j]};
            if (config_setting_source_line(e[i][j]) > config_setting_source_line(e[j][i])) {
                two[0] = e[i][j];
                two[1] = e[j][i];
            }
            const config_setting_t *site = cfg_pick_site(two, 2);
            const config_setting_t *other = site == e[i][j] ? e[j][i] : e[i][j];
            char skey[PATH_LEN], okey[PATH_LEN], want[48] = "", got[48] = "";
            snprintf(skey, sizeof skey, "%s.%s.%s", key,
                     config_setting_name(config_setting_parent(site)), config_setting_name(site));
            snprintf(okey, sizeof okey, "%s.%s.%s", key,
                     config_setting_name(config_setting_parent(other)),
                     config_setting_name(other));
            cfg_put_value(want, sizeof want, other);
            cfg_put_value(got, sizeof got, site);
            return cfg_fail(c, site, skey, "expected %s, the value of %s, since %s is symmetric "
                            "(got %s)", want, okey, sym, got);
        }
    return 0;
}

int vs_config_dpd_matrices(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    const config_setting_t *dpd = member(root, "dpd");
    int rc = extract_matrix(c, member(dpd, "a"), "dpd.a", "a_ij", p, p->dpd.a);
    if (rc)
        return rc;
    const config_setting_t *g = member(dpd, "gamma");
    vs_pair_real *gamma = &p->dpd.gamma;
    memset(gamma, 0, sizeof *gamma);
    if (!config_setting_is_group(g)) {
        gamma->v = as_double(g);
        return 0;
    }
    if ((rc = extract_matrix(c, g, "dpd.gamma", "gamma_ij", p, gamma->ij)))
        return rc;
    gamma->per_pair = 1;
    gamma->v = gamma->ij[0][0];
    for (int i = 0; i < p->species.n; ++i)
        for (int j = 0; j < p->species.n; ++j)
            gamma->v = gamma->ij[i][j] > gamma->v ? gamma->ij[i][j] : gamma->v;
    return 0;
}
