/* The pair list: see config_pair.h. The syntax follows dpd.a: per style, a map of species
 * names to maps of species names, each pair a group of its coefficients,
 *
 *   pair = ( { style = "lj"; rc = 2.5; shift = "on";
 *              coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; };
 *                              B = { epsilon = 0.5; sigma = 1.2; rc = 3.0; }; }; }; } );
 *
 * A pair given as A.B also sets B.A (giving both is an error); pairs not given do not
 * interact in that style. */
#include "config_pair.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "pair_setup.h"

static const config_setting_t *get(const config_setting_t *g, const char *name)
{
    return g ? config_setting_get_member(g, name) : NULL;
}

static double num(const config_setting_t *s)
{
    return config_setting_type(s) == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
                                                       : (double)config_setting_get_int64(s);
}

static int on(const config_setting_t *e, const char *name)
{
    const config_setting_t *s = get(e, name);
    return s && strcmp(config_setting_get_string(s), "on") == 0;
}

static int species_of(const vs_params *p, const char *name)
{
    for (int s = 0; s < p->species.n; ++s)
        if (strcmp(p->species.list[s].name, name) == 0)
            return s;
    return -1;
}

/* The slot of `key` among the style's coefficient keys (vs_pair_styles): 0.., or
 * VS_PAIR_MAX_KEYS for rc (every style) and table (styles with a file), -1: not the style's. */
static int key_slot(int style, const char *key)
{
    const vs_pair_style_info *info = &vs_pair_styles[style];
    if (strcmp(key, "rc") == 0 || ((info->flags & VS_PAIR_FILE) && strcmp(key, "table") == 0))
        return VS_PAIR_MAX_KEYS;
    for (int q = 0; q < VS_PAIR_MAX_KEYS; ++q)
        if (info->keys[q] && strcmp(key, info->keys[q]) == 0)
            return q;
    return -1;
}

/* The style's required keys as text, "epsilon and sigma", with `and_rc` ", rc" at the end
 * in the form "epsilon, sigma and rc". */
static void keys_text(int style, int and_rc, char *out, size_t n)
{
    const vs_pair_style_info *info = &vs_pair_styles[style];
    const char *k[VS_PAIR_MAX_KEYS + 2];
    int m = 0;
    for (int q = 0; q < VS_PAIR_MAX_KEYS; ++q)
        if (info->keys[q])
            k[m++] = info->keys[q];
    if (info->flags & VS_PAIR_FILE)
        k[m++] = "table";
    if (and_rc)
        k[m++] = "rc";
    out[0] = '\0';
    for (int q = 0; q < m; ++q)
        cfg_put(out, n, "%s%s", q == 0 ? "" : q == m - 1 ? " and " : ", ", k[q]);
}

/* The index of a table keyword, added when new. */
static int table_index(const cfg_ctx *c, const config_setting_t *site, const char *key,
                       vs_params *p, const char *keyword)
{
    for (int t = 0; t < p->pair.set->n_tables; ++t)
        if (strcmp(p->pair.set->table_keyword[t], keyword) == 0)
            return t;
    if (keyword[0] == '\0')
        return -cfg_fail(c, site, key, "expected a section keyword of the table file (got \"\")");
    if (p->pair.set->n_tables == VS_MAX_TABLES)
        return -cfg_fail(c, site, key, "expected at most %d different tables (got more)",
                         VS_MAX_TABLES);
    snprintf(p->pair.set->table_keyword[p->pair.set->n_tables], VS_NAME_LEN, "%s", keyword);
    return p->pair.set->n_tables++;
}

/* One pair group g of style element k: its coefficients into c. */
static int extract_pair(const cfg_ctx *c, const config_setting_t *g, const char *key, int k,
                        int style, const config_setting_t *elem, vs_params *p, vs_pair_coeff *pc)
{
    const vs_pair_style_info *info = &vs_pair_styles[style];
    char text[128];
    for (int m = 0; m < config_setting_length(g); ++m) {
        const config_setting_t *v = config_setting_get_elem(g, (unsigned)m);
        if (key_slot(style, config_setting_name(v)) < 0) {
            keys_text(style, 1, text, sizeof text);
            return cfg_fail(c, v, key, "expected only %s for pair style %s (got %s)", text,
                            vs_pair_style_name(style), config_setting_name(v));
        }
    }
    const char *file_key = (info->flags & VS_PAIR_FILE) ? "table" : NULL;
    for (int q = 0; q <= VS_PAIR_MAX_KEYS; ++q) {
        const char *need = q < VS_PAIR_MAX_KEYS ? info->keys[q] : file_key;
        if (need && !get(g, need)) {
            keys_text(style, 0, text, sizeof text);
            return cfg_fail(c, g, key, "required key is missing (pair style %s needs %s)",
                            vs_pair_style_name(style), text);
        }
    }
    memset(pc, 0, sizeof *pc);
    pc->on = 1;
    for (int q = 0; q < VS_PAIR_MAX_KEYS; ++q)
        pc->given[q] = info->keys[q] ? num(get(g, info->keys[q])) : 0.0;
    if (info->check) {
        char why[160];
        const int q = info->check(pc, on(elem, "tail"), why, sizeof why);
        if (q >= 0) {
            char qkey[PATH_LEN] = "";
            cfg_put(qkey, sizeof qkey, "%s.%s", key, info->keys[q]);
            return cfg_fail(c, get(g, info->keys[q]), qkey, "%s", why);
        }
    }
    const config_setting_t *rc = get(g, "rc") ? get(g, "rc") : get(elem, "rc");
    pc->rc = rc ? num(rc) : 0.0; /* table: 0 until the table gives its last r */
    if ((info->flags & VS_PAIR_WCA) && on(elem, "wca")) {
        if (get(g, "rc")) {
            char rkey[PATH_LEN] = "";
            cfg_put(rkey, sizeof rkey, "%s.rc", key);
            return cfg_fail(c, get(g, "rc"), rkey, "expected no rc with wca = \"on\" (the "
                            "cut-off is 2^(1/6) sigma)");
        }
        pc->rc = pow(2.0, 1.0 / 6.0) * pc->sigma;
    }
    if (info->flags & VS_PAIR_FILE) {
        const config_setting_t *t = get(g, "table");
        char tkey[PATH_LEN] = "";
        cfg_put(tkey, sizeof tkey, "%s.table", key);
        const int idx = table_index(c, t, tkey, p, config_setting_get_string(t));
        if (idx < 0)
            return -idx;
        pc->table = idx;
        return 0;
    }
    if (!(pc->rc > 0.0))
        return cfg_fail(c, g, key, "required key is missing (give rc here or pair.[%d].rc)", k);
    vs_pair_coeff_finish(style, pc, on(elem, "shift") || on(elem, "wca"), p->pair.set->tables);
    return 0;
}

/* How many styles have option `flag`. */
static int n_with(unsigned flag)
{
    int n = 0;
    for (int s = 0; s < VS_PAIR_STYLES; ++s)
        n += (vs_pair_styles[s].flags & flag) != 0;
    return n;
}

/* " lj" or "s lj, gaussian": the styles with option `flag`, after "pair style". */
static const char *options_text(unsigned flag)
{
    static char out[128];
    out[0] = '\0';
    cfg_put(out, sizeof out, "%s", n_with(flag) == 1 ? "" : "s");
    for (int s = 0, m = 0; s < VS_PAIR_STYLES; ++s)
        if (vs_pair_styles[s].flags & flag)
            cfg_put(out, sizeof out, "%s%s", m++ ? ", " : " ", vs_pair_styles[s].name);
    return out;
}

/* The coeff map of style element k. */
static int extract_coeffs(const cfg_ctx *c, const config_setting_t *elem, int k, int style,
                          vs_params *p)
{
    vs_pair_style_params *ps = &p->pair.set->style[style];
    const config_setting_t *map = get(elem, "coeff");
    const config_setting_t *given[VS_MAX_SPECIES][VS_MAX_SPECIES] = {{NULL}};
    for (int r = 0; r < config_setting_length(map); ++r) {
        const config_setting_t *row = config_setting_get_elem(map, (unsigned)r);
        for (int q = 0; q < config_setting_length(row); ++q) {
            const config_setting_t *g = config_setting_get_elem(row, (unsigned)q);
            char key[PATH_LEN];
            snprintf(key, sizeof key, "pair.[%d].coeff.%s.%s", k, config_setting_name(row),
                     config_setting_name(g));
            const int i = species_of(p, config_setting_name(row));
            const int j = species_of(p, config_setting_name(g));
            if (i < 0 || j < 0)
                return cfg_fail(c, i < 0 ? row : g, key, "unknown species \"%s\"",
                                config_setting_name(i < 0 ? row : g));
            if (given[i][j])
                return cfg_fail(c, g, key,
                                "expected each pair once (it is also given at line "
                                "%d, as (%s, %s) or (%s, %s))",
                                config_setting_source_line(given[i][j]), p->species.list[i].name,
                                p->species.list[j].name, p->species.list[j].name,
                                p->species.list[i].name);
            given[i][j] = given[j][i] = g;
            int rc = extract_pair(c, g, key, k, style, elem, p, &ps->c[i][j]);
            if (rc)
                return rc;
            ps->c[j][i] = ps->c[i][j];
            if (ps->c[i][j].rc > ps->reach)
                ps->reach = ps->c[i][j].rc;
        }
    }
    return 0;
}

/* The special factors of style element e (absent: none, every factor 1). */
static void extract_special(const config_setting_t *e, vs_pair_style_params *ps)
{
    const config_setting_t *sp = get(e, "special");
    ps->special = 0;
    for (int l = 0; l < 3; ++l) {
        ps->special_factor[l] = sp ? num(config_setting_get_elem(sp, (unsigned)l)) : 1.0;
        ps->special |= ps->special_factor[l] != 1.0;
    }
}

int vs_config_pair(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    const config_setting_t *dpd_special = get(get(root, "dpd"), "special");
    if (dpd_special)
        return cfg_fail(c, dpd_special, "dpd.special", "not supported: the DPD term acts "
                        "between all pairs, bonded or not (exclusions are a key of the pair "
                        "styles: pair.[].special)");
    vs_params_release(p);
    const config_setting_t *list = get(root, "pair");
    const int n = list ? config_setting_length(list) : 0;
    if (n > 0 && !(p->pair.set = calloc(1, sizeof *p->pair.set)))
        return cfg_fail(c, list, "pair", "out of memory for the pair styles");
    for (int k = 0; k < n; ++k) {
        const config_setting_t *e = config_setting_get_elem(list, (unsigned)k);
        const config_setting_t *st = get(e, "style");
        const int style = vs_pair_style_by_name(config_setting_get_string(st));
        char key[PATH_LEN];
        snprintf(key, sizeof key, "pair.[%d].style", k);
        vs_pair_style_params *ps = &p->pair.set->style[style];
        if (ps->active)
            return cfg_fail(c, st, key, "expected each style once in the pair list (got \"%s\" "
                            "twice)", vs_pair_style_name(style));
        const char *const options[2] = {"wca", "tail"};
        const unsigned option_flag[2] = {VS_PAIR_WCA, VS_PAIR_TAIL};
        for (int q = 0; q < 2; ++q)
            if (!(vs_pair_styles[style].flags & option_flag[q]) && on(e, options[q])) {
                snprintf(key, sizeof key, "pair.[%d].%s", k, options[q]);
                return cfg_fail(c, get(e, options[q]), key, "expected \"off\": %s applies "
                                "to pair style%s only", options[q], options_text(option_flag[q]));
            }
        if ((on(e, "wca") || on(e, "shift")) && on(e, "tail")) {
            snprintf(key, sizeof key, "pair.[%d].tail", k);
            return cfg_fail(c, get(e, "tail"), key, "expected \"off\" with %s = \"on\" (the "
                            "corrections assume the unshifted potential beyond rc, as LAMMPS's "
                            "pair_modify tail)", on(e, "wca") ? "wca" : "shift");
        }
        const config_setting_t *file = get(e, "file");
        if (!!(vs_pair_styles[style].flags & VS_PAIR_FILE) != (file != NULL)) {
            snprintf(key, sizeof key, "pair.[%d].file", k);
            if (file)
                return cfg_fail(c, file, key, "expected no file: only pair style%s read%s "
                                "one", options_text(VS_PAIR_FILE),
                                n_with(VS_PAIR_FILE) == 1 ? "s" : "");
            return cfg_fail(c, e, key, "required key is missing (pair style %s reads its "
                            "tables from a file)", vs_pair_style_name(style));
        }
        ps->active = 1;
        ps->shift = on(e, "shift") || on(e, "wca");
        ps->wca = on(e, "wca");
        ps->tail = on(e, "tail");
        extract_special(e, ps);
        if (file)
            snprintf(ps->file, sizeof ps->file, "%s", config_setting_get_string(file));
        const int rc = extract_coeffs(c, e, k, style, p);
        if (rc)
            return rc;
        int pairs = 0;
        for (int i = 0; i < p->species.n; ++i)
            for (int j = 0; j < p->species.n; ++j)
                pairs += ps->c[i][j].on;
        if (pairs == 0) {
            snprintf(key, sizeof key, "pair.[%d].coeff", k);
            return cfg_fail(c, get(e, "coeff"), key, "expected at least one pair of species "
                            "(got none)");
        }
    }
    vs_pair_set_code(p); /* again once tables are read (vs_pair_tables_load) */
    return 0;
}
