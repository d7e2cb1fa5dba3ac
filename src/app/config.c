/* Configuration: libconfig text plus --set overrides -> a fully validated vs_params.
 *
 * One static table (param_schema.c) names every key Vesica reads: its type, whether it is
 * required, its default (as libconfig value text, parsed by the same code as the file) and its
 * meaning. The rest is driven by that table: the unknown-key check and its did-you-mean
 * candidates, the type and range checks and their "expected ..." wording (config_report.c),
 * the resolution of --set paths, and the defaults. Only the checks that tie several keys
 * together (box against rc, the a_ij matrix against the species, fractions, density against
 * particles) are written out by hand, after the per-key pass.
 *
 * The first error wins and becomes one line, FILE:LINE: KEY: expected WHAT (got WHAT). A value
 * that came from --set is reported against that argument instead: the copied setting carries
 * the argument's index in its libconfig hook, and a report walks up to the nearest hook.
 * Nothing here prints, exits or touches the file system (vs_read_text_file aside), and the
 * verdict depends only on the text and the overrides, so every MPI rank reaches the same one.
 *
 * The text passes a small lexer (config_lex.c: wide integer literals, @include) before
 * libconfig parses it.
 *
 * The parser records what the configuration says and decides no performance policy: an
 * "auto" choice (backend, neighbor.gpu_builder, comm.transport) stays AUTO in vs_params for
 * the backend to resolve.
 */
#define _POSIX_C_SOURCE 200809L

#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_lex.h"
#include "config_matrix.h"
#include "config_mc.h"
#include "config_molecules.h"
#include "config_report.h"
#include "config_boundary.h"
#include "config_flow.h"
#include "config_aniso.h"
#include "config_field.h"
#include "config_reactions.h"
#include "config_pair.h"
#include "config_integrator.h"
#include "param_schema.h"
#include "log.h"

/* ---- Schema lookups --------------------------------------------------------------------- */

/* Is `path` a direct child of `pattern` ("" is the root)? */
static int is_child(const char *path, const char *pattern)
{
    size_t n = strlen(pattern);
    const char *rest = path;
    if (n) {
        if (strncmp(path, pattern, n) != 0 || path[n] != '.')
            return 0;
        rest = path + n + 1;
    }
    return strchr(rest, '.') == NULL;
}

static const char *leaf_name(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? dot + 1 : path;
}

static void join(char *out, size_t n, const char *parent, const char *name)
{
    out[0] = '\0';
    cfg_put(out, n, parent[0] ? "%s.%s" : "%s%s", parent, name);
}

/* The schema pattern of member `name` under the key with pattern `pat` and spec `k`. */
static void child_pattern(char *out, size_t n, const char *pat, const key_spec *k,
                          const char *name)
{
    join(out, n, pat, (k && (k->type == K_MAP || k->type == K_FLOAT_OR_MAP)) ? "*" : name);
}

/* "DISP.NAME: unknown key (did you mean DISP.KEY?)", or the keys that would be accepted. */
static int fail_unknown(const cfg_ctx *c, const config_setting_t *site, const cfg_where *w,
                        const char *pat, const char *disp_parent, const char *name)
{
    const char *cand[VS_CONFIG_SCHEMA_MAX];
    int n = 0;
    for (int i = 0; i < vs_config_schema_count; ++i) {
        const char *leaf = leaf_name(vs_config_schema[i].path);
        if (is_child(vs_config_schema[i].path, pat) && strcmp(leaf, "[]") != 0 &&
            strcmp(leaf, "*") != 0)
            cand[n++] = leaf;
    }
    const key_spec *pk = vs_schema_find(pat);
    char key[PATH_LEN], msg[SHOW_LEN * 2] = "unknown key";
    join(key, sizeof key, disp_parent, name);
    const char *best = cfg_closest(name, cand, n);
    const char *elsewhere = NULL; /* the same name at another level: random -> dpd.random */
    for (int i = 0; i < vs_config_schema_count && !best && !elsewhere; ++i)
        if (cfg_edit_distance(name, leaf_name(vs_config_schema[i].path)) == 0)
            elsewhere = vs_config_schema[i].path;
    if (best) {
        char sug[PATH_LEN];
        join(sug, sizeof sug, disp_parent, best);
        cfg_put(msg, sizeof msg, " (did you mean %s?)", sug);
    } else if (elsewhere) {
        cfg_put(msg, sizeof msg, " (did you mean ");
        for (const char *q = elsewhere; *q; ++q) { /* species.[].mass -> species.[N].mass */
            if (q[0] == '[' && q[1] == ']')
                cfg_put(msg, sizeof msg, "[N");
            else
                cfg_put(msg, sizeof msg, "%c", *q);
        }
        cfg_put(msg, sizeof msg, "?)");
    } else if (pk && pk->type == K_LIST) {
        cfg_put(msg, sizeof msg, " (%s is a list: write %s.[N].key)", disp_parent, disp_parent);
    } else if (n == 0) {
        cfg_put(msg, sizeof msg, " (%s takes no keys)", disp_parent);
    } else {
        cfg_put(msg, sizeof msg, " (expected one of:");
        for (int i = 0; i < n; ++i)
            cfg_put(msg, sizeof msg, "%s%s", i ? ", " : " ", cand[i]);
        cfg_put(msg, sizeof msg, ")");
    }
    if (w)
        return cfg_fail_at(c, *w, key, "%s", msg);
    return cfg_fail(c, site, key, "%s", msg);
}

/* ---- Reading values out of libconfig (AUTOCONVERT is off, so convert here) ------------- */

static int is_int_type(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
}

static long long as_int(const config_setting_t *s)
{
    return config_setting_type(s) == CONFIG_TYPE_INT ? config_setting_get_int(s)
                                                     : config_setting_get_int64(s);
}

static double as_double(const config_setting_t *s)
{
    return config_setting_type(s) == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
                                                       : (double)as_int(s);
}

/* A member of a group by name; NULL when absent or when `g` is not a group. */
static config_setting_t *member(const config_setting_t *g, const char *name)
{
    if (!g || !config_setting_is_group(g))
        return NULL;
    return config_setting_get_member(g, name);
}

/* The setting at a schema path without list elements ("dpd.rc"); NULL when absent. */
static config_setting_t *at(const config_setting_t *root, const char *path)
{
    char buf[PATH_LEN];
    snprintf(buf, sizeof buf, "%s", path);
    const config_setting_t *s = root;
    char *save = NULL;
    for (char *part = strtok_r(buf, ".", &save); part && s; part = strtok_r(NULL, ".", &save))
        s = member(s, part);
    return (config_setting_t *)s;
}

/* Setting names libconfig accepts: [A-Za-z*][-A-Za-z0-9_*]*. */
static int is_setting_name(const char *s)
{
    if (!(isalpha((unsigned char)s[0]) || s[0] == '*'))
        return 0;
    for (++s; *s; ++s)
        if (!(isalnum((unsigned char)*s) || *s == '-' || *s == '_' || *s == '*'))
            return 0;
    return 1;
}

/* Species names are stricter: also valid identifiers elsewhere (file names, HDF5 paths). */
static int is_species_name(const char *s)
{
    if (!isalpha((unsigned char)s[0]))
        return 0;
    for (++s; *s; ++s)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}


/* Parses libconfig text into `cfg` (initialised here; the caller destroys it). On failure
 * returns -1 with the line and libconfig's (or the lexer's) reason. */
static int parse_text(config_t *cfg, const char *text, unsigned *bad_line, char *why,
                      size_t why_len)
{
    config_init(cfg);
    char *clean = cfg_prescan(text, bad_line, why, why_len);
    if (!clean)
        return -1;
    int ok = config_read_string(cfg, clean);
    free(clean);
    if (ok == CONFIG_TRUE)
        return 0;
    *bad_line = (unsigned)config_error_line(cfg);
    const char *msg = config_error_text(cfg) ? config_error_text(cfg) : "unknown error";
    cfg_explain_error(text, *bad_line, msg, why, why_len);
    return -1;
}

/* Parses one libconfig value (`value` is what follows "key =") into `tmp`; returns its
 * setting, or NULL with the reason. */
static config_setting_t *parse_value(config_t *tmp, const char *value, char *why,
                                     size_t why_len)
{
    size_t n = strlen(value) + 8;
    char *wrapped = VS_MALLOC(n);
    snprintf(wrapped, n, "v = %s\n;", value); /* the newline keeps a # comment off the ; */
    unsigned line = 0;
    int rc = parse_text(tmp, wrapped, &line, why, why_len);
    free(wrapped);
    if (rc)
        return NULL;
    config_setting_t *root = config_root_setting(tmp);
    if (config_setting_length(root) != 1 || !member(root, "v")) {
        snprintf(why, why_len, "more than one value");
        return NULL;
    }
    return member(root, "v");
}

/* Deep copy of `src` as member `name` of `parent` (name ignored in lists and arrays). The copy
 * carries no line; NULL only if libconfig refuses (an invalid name). */
static config_setting_t *copy_setting(config_setting_t *parent, const char *name,
                                      const config_setting_t *src)
{
    int t = config_setting_type(src);
    config_setting_t *d = config_setting_add(parent, name, t);
    if (!d)
        return NULL;
    switch (t) {
    case CONFIG_TYPE_INT:
        config_setting_set_int(d, config_setting_get_int(src));
        break;
    case CONFIG_TYPE_INT64:
        config_setting_set_int64(d, config_setting_get_int64(src));
        break;
    case CONFIG_TYPE_FLOAT:
        config_setting_set_float(d, config_setting_get_float(src));
        break;
    case CONFIG_TYPE_STRING:
        config_setting_set_string(d, config_setting_get_string(src));
        break;
    case CONFIG_TYPE_BOOL:
        config_setting_set_bool(d, config_setting_get_bool(src));
        break;
    default:
        for (int i = 0; i < config_setting_length(src); ++i) {
            const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);
            if (!copy_setting(d, config_setting_name(e), e))
                return NULL;
        }
        break;
    }
    return d;
}

/* ---- --set key=value -------------------------------------------------------------------- */

#define MAX_PARTS 16

typedef struct {
    char name[PATH_LEN / 2]; /* empty for a list index */
    int index;
} set_part;

/* "species.[0].fraction" (or "species[0].fraction") -> parts; 0 on success. */
static int split_key(const char *key, set_part *parts, int *n_parts)
{
    int n = 0;
    const char *p = key;
    for (;;) {
        if (n >= MAX_PARTS - 1)
            return -1;
        if (*p == '[') {
            char *end;
            if (!isdigit((unsigned char)p[1]))
                return -1;
            errno = 0;
            long v = strtol(p + 1, &end, 10);
            if (*end != ']' || errno || v > INT_MAX)
                return -1;
            parts[n].name[0] = '\0';
            parts[n++].index = (int)v;
            p = end + 1;
        } else {
            size_t len = strcspn(p, ".[");
            if (len == 0 || len >= sizeof parts[n].name)
                return -1;
            memcpy(parts[n].name, p, len);
            parts[n].name[len] = '\0';
            if (!is_setting_name(parts[n].name))
                return -1;
            parts[n++].index = -1;
            p += len;
            if (*p == '[')
                continue; /* name[N] */
        }
        if (*p == '\0')
            break;
        if (*p != '.')
            return -1;
        ++p;
    }
    *n_parts = n;
    return 0;
}

/* Puts `value` (libconfig value text) as member `name` of `parent`, replacing any old one,
 * marked as coming from sets[idx]. A value for a string key that does not start with a quote
 * is the string itself (--set output.dir=runs/a); a bare word where something else was wanted
 * becomes a string too, so the type check says what was expected. */
static int set_value(const cfg_ctx *c, cfg_where w, config_setting_t *parent, const char *name,
                     const key_spec *k, const char *disp, const char *value, int idx)
{
    if (strpbrk(value, "\n\r"))
        return cfg_fail_at(c, w, disp, "expected a value on one line");
    int literal = (k->type == K_STRING || k->type == K_NAME || k->type == K_ENUM) &&
                  value[0] != '"';
    int bare = isalpha((unsigned char)value[0]) && value[strcspn(value, " \t;,=#")] == '\0';
    config_t tmp;
    config_setting_t *v;
    char why[SHOW_LEN];
    if (literal || bare) {
        config_init(&tmp);
        v = config_setting_add(config_root_setting(&tmp), "v", CONFIG_TYPE_STRING);
        config_setting_set_string(v, value);
    } else if (!(v = parse_value(&tmp, value, why, sizeof why))) {
        config_destroy(&tmp);
        char exp[SHOW_LEN] = "", got[SHOW_LEN] = "";
        cfg_put_expected(exp, sizeof exp, k);
        cfg_put_quoted(got, sizeof got, value);
        return cfg_fail_at(c, w, disp, "expected %s (got %s: %s)", exp, got, why);
    }
    config_setting_remove(parent, name);
    if (k->rival) /* --set density=... replaces a particles count, and the other way round */
        config_setting_remove(parent, k->rival);
    config_setting_t *d = copy_setting(parent, name, v);
    config_destroy(&tmp);
    if (!d)
        return cfg_fail_at(c, w, disp, "cannot be set (libconfig refused the name)");
    config_setting_set_hook(d, (void *)(intptr_t)(idx + 1));
    return 0;
}

/* Applies sets[idx] to the tree: resolves the path through the schema (unknown keys fail
 * here, with a did-you-mean), creates missing groups, replaces the value. The value itself is
 * checked later with everything else. */
static int apply_set(const cfg_ctx *c, config_t *cfg, int idx)
{
    const char *arg = c->sets[idx];
    cfg_where w = {idx, 0};
    const char *eq = arg ? strchr(arg, '=') : NULL;
    if (!eq)
        return cfg_fail_at(c, w, NULL, "expected key=value (got no '=')");
    char key[PATH_LEN];
    size_t klen = (size_t)(eq - arg);
    set_part parts[MAX_PARTS];
    int n_parts = 0;
    if (klen >= sizeof key)
        return cfg_fail_at(c, w, NULL, "expected key=value with a key shorter than %d characters",
                           PATH_LEN);
    memcpy(key, arg, klen);
    key[klen] = '\0';
    if (split_key(key, parts, &n_parts))
        return cfg_fail_at(c, w, NULL,
                           "expected key=value with a dotted key such as dpd.gamma or "
                           "species.[0].mass (got key \"%s\")",
                           key);
    const char *value = eq + 1;

    config_setting_t *cur = config_root_setting(cfg);
    const key_spec *k = NULL; /* the spec of `cur`; NULL for the root */
    char pat[PATH_LEN] = "", disp[PATH_LEN] = "";
    for (int i = 0; i < n_parts; ++i) {
        int last = i == n_parts - 1;
        char npat[PATH_LEN], ndisp[PATH_LEN];
        if (parts[i].index >= 0) {
            snprintf(ndisp, sizeof ndisp, "%s", disp);
            cfg_put(ndisp, sizeof ndisp, ".[%d]", parts[i].index);
            if (!k || k->type != K_LIST)
                return cfg_fail_at(c, w, ndisp, "cannot set one element; set the whole value "
                                   "(%s=...)", disp[0] ? disp : key);
            if (last)
                return cfg_fail_at(c, w, ndisp, "cannot set a whole element; set a key inside it "
                                   "(%s.KEY=...) or the whole list (%s=(...))", ndisp, disp);
            snprintf(npat, sizeof npat, "%s", pat);
            cfg_put(npat, sizeof npat, ".[]");
            int len = cur ? config_setting_length(cur) : 0;
            if (!cur || parts[i].index >= len)
                return cfg_fail_at(c, w, ndisp, "no such element (%s has %d)", disp, len);
            cur = config_setting_get_elem(cur, (unsigned)parts[i].index);
            k = vs_schema_find(npat);
        } else {
            child_pattern(npat, sizeof npat, pat, k, parts[i].name);
            join(ndisp, sizeof ndisp, disp, parts[i].name);
            const key_spec *nk = vs_schema_find(npat);
            if (!nk)
                return fail_unknown(c, NULL, &w, pat, disp, parts[i].name);
            if (cur && !config_setting_is_group(cur))
                return cfg_fail_type(c, cur, k, disp);
            if (last) {
                if (!cur)
                    return cfg_fail_at(c, w, ndisp, "cannot be set here");
                return set_value(c, w, cur, parts[i].name, nk, ndisp, value, idx);
            }
            config_setting_t *next = member(cur, parts[i].name);
            if (!next && (nk->type == K_GROUP || nk->type == K_MAP ||
                          nk->type == K_FLOAT_OR_MAP)) {
                /* A group the --set brings in: errors about it point at the --set. */
                next = config_setting_add(cur, parts[i].name, CONFIG_TYPE_GROUP);
                if (!next)
                    return cfg_fail_at(c, w, ndisp, "cannot be set (libconfig refused the name)");
                config_setting_set_hook(next, (void *)(intptr_t)(idx + 1));
            }
            cur = next;
            k = nk;
        }
        snprintf(pat, sizeof pat, "%s", npat);
        snprintf(disp, sizeof disp, "%s", ndisp);
    }
    return 0; /* not reached: the last part either returns or fails above */
}

/* ---- Per-key checks (every key, whatever its origin) ------------------------------------ */

static int check_setting(const cfg_ctx *c, config_setting_t *s, const key_spec *k, const char *disp,
                         const char *pat);

static int check_number(const cfg_ctx *c, const config_setting_t *s, const key_spec *k,
                        const char *disp)
{
    if (!config_setting_is_number(s))
        return cfg_fail_type(c, s, k, disp);
    double v = as_double(s);
    char exp[SHOW_LEN] = "", got[48];
    if (!isfinite(v)) {
        cfg_put(exp, sizeof exp, "a finite number");
        cfg_put_bounds(exp, sizeof exp, k);
        cfg_fmt_double(got, sizeof got, v);
        return cfg_fail(c, s, disp, "expected %s (got %s)", exp, got);
    }
    int low = (k->bounds & B_LO) && ((k->bounds & B_LO_OPEN) ? !(v > k->lo) : !(v >= k->lo));
    int high = (k->bounds & B_HI) && !(v <= k->hi);
    if (low || high)
        return cfg_fail_type(c, s, k, disp);
    return 0;
}

static int check_integer(const cfg_ctx *c, const config_setting_t *s, const key_spec *k,
                         const char *disp, long long lo, long long hi)
{
    if (!is_int_type(s) || as_int(s) < lo || as_int(s) > hi)
        return cfg_fail_type(c, s, k, disp);
    return 0;
}

static int check_vec3(const cfg_ctx *c, const config_setting_t *s, const key_spec *k,
                      const char *disp)
{
    int t = config_setting_type(s);
    const int len = (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) ? config_setting_length(s)
                                                                      : -1;
    if (k->type == K_FLOATS ? (len < k->ilo || len > k->ihi) : len != 3)
        return cfg_fail_type(c, s, k, disp);
    const unsigned n = (unsigned)config_setting_length(s);
    for (unsigned i = 0; i < n; ++i) {
        const config_setting_t *e = config_setting_get_elem(s, i);
        char edisp[PATH_LEN];
        snprintf(edisp, sizeof edisp, "%s.[%u]", disp, i);
        key_spec ek = *k; /* the element: a number or integer with the same bounds */
        ek.type = k->type == K_IVEC3 ? K_INT : K_FLOAT;
        int rc = ek.type == K_FLOAT ? check_number(c, e, &ek, edisp)
                                    : check_integer(c, e, &ek, edisp, k->ilo, k->ihi);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_string(const cfg_ctx *c, const config_setting_t *s, const key_spec *k,
                        const char *disp)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return cfg_fail_type(c, s, k, disp);
    const char *v = config_setting_get_string(s);
    size_t len = strlen(v);
    if (len == 0 || len > k->maxlen || (k->type == K_NAME && !is_species_name(v)))
        return cfg_fail_type(c, s, k, disp);
    if (k->type == K_ENUM) {
        const char *names[8];
        int n = 0;
        for (const key_choice *ch = k->choices; ch->name && n < 8; ++ch) {
            if (strcmp(ch->name, v) == 0)
                return 0;
            names[n++] = ch->name;
        }
        char exp[SHOW_LEN] = "", got[SHOW_LEN] = "";
        cfg_put_expected(exp, sizeof exp, k);
        cfg_put_quoted(got, sizeof got, v);
        const char *best = cfg_closest(v, names, n);
        if (best)
            cfg_put(got, sizeof got, "; did you mean \"%s\"?", best);
        return cfg_fail(c, s, disp, "expected %s (got %s)", exp, got);
    }
    return 0;
}

/* A group: every member known and valid, every required member present. */
/* Whether the configuration that holds s has an input group (a system read from a file). */
static int input_given(const config_setting_t *s)
{
    while (config_setting_parent(s))
        s = config_setting_parent(s);
    return member(s, "input") != NULL;
}

static int check_group(const cfg_ctx *c, config_setting_t *g, const key_spec *k, const char *disp,
                       const char *pat)
{
    if (!config_setting_is_group(g))
        return cfg_fail_type(c, g, k, disp);
    int n = config_setting_length(g);
    for (int i = 0; i < n; ++i) {
        config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(m);
        char cpat[PATH_LEN], cdisp[PATH_LEN];
        child_pattern(cpat, sizeof cpat, pat, k, name);
        join(cdisp, sizeof cdisp, disp, name);
        const key_spec *ck = vs_schema_find(cpat);
        if (!ck)
            return fail_unknown(c, m, NULL, pat, disp, name);
        if (ck->rival) {
            const config_setting_t *r = member(g, ck->rival);
            if (r && config_setting_index(r) < i) {
                char rdisp[PATH_LEN];
                join(rdisp, sizeof rdisp, disp, ck->rival);
                return cfg_fail(c, m, cdisp, "expected only one of %s and %s (got both)", rdisp,
                                cdisp);
            }
        }
        if (ck->with_input == WI_REFUSED && input_given(g))
            return cfg_fail(c, m, cdisp, "expected no %s with input (input.file gives it)",
                            cdisp);
        int rc = check_setting(c, m, ck, cdisp, cpat);
        if (rc)
            return rc;
    }
    /* Required members, in schema order; the report points at the enclosing group. */
    for (int i = 0; i < vs_config_schema_count; ++i) {
        const key_spec *ck = &vs_config_schema[i];
        if (!is_child(ck->path, pat) || ck->need == OPTIONAL)
            continue;
        if (ck->with_input != WI_ANY && input_given(g))
            continue;
        if (pat[0] == '\0' && vs_config_mc_given(g) &&
            (strcmp(ck->path, "dpd") == 0 || strcmp(ck->path, "integrator") == 0))
            continue; /* MD's groups: the Monte Carlo engine refuses them (config_mc.c) */
        const char *name = leaf_name(ck->path);
        if (member(g, name))
            continue;
        char cdisp[PATH_LEN];
        join(cdisp, sizeof cdisp, disp, name);
        if (ck->need == REQUIRED)
            return cfg_fail(c, g, cdisp, "required key is missing");
        if (ck->need == REQUIRED_UNLESS_RIVAL && !member(g, ck->rival))
            return cfg_fail(c, g, cdisp, "required key is missing (give %s or %s)", name,
                            ck->rival);
        if (ck->need == REQUIRED_IF_SEVERAL) {
            const config_setting_t *list = config_setting_parent(g);
            if (list && config_setting_length(list) > 1) {
                char ldisp[PATH_LEN];
                snprintf(ldisp, sizeof ldisp, "%s", disp);
                char *br = strrchr(ldisp, '.');
                if (br)
                    *br = '\0';
                return cfg_fail(c, g, cdisp,
                                "required key is missing (%s has more than one element)", ldisp);
            }
        }
    }
    return 0;
}

static int check_setting(const cfg_ctx *c, config_setting_t *s, const key_spec *k, const char *disp,
                         const char *pat)
{
    switch (k->type) {
    case K_GROUP:
    case K_MAP:
        return check_group(c, s, k, disp, pat);
    case K_LIST: {
        int len = config_setting_is_aggregate(s) ? config_setting_length(s) : 0;
        if (config_setting_type(s) != CONFIG_TYPE_LIST || len < k->ilo || len > k->ihi)
            return cfg_fail_type(c, s, k, disp);
        char epat[PATH_LEN];
        snprintf(epat, sizeof epat, "%s.[]", pat);
        const key_spec *ek = vs_schema_find(epat);
        for (int i = 0; i < len; ++i) {
            char edisp[PATH_LEN];
            snprintf(edisp, sizeof edisp, "%s.[%d]", disp, i);
            int rc = check_setting(c, config_setting_get_elem(s, (unsigned)i), ek, edisp, epat);
            if (rc)
                return rc;
        }
        return 0;
    }
    case K_FLOAT:
        return check_number(c, s, k, disp);
    case K_FLOAT_OR_MAP: {
        if (config_setting_is_group(s))
            return check_group(c, s, k, disp, pat);
        if (!config_setting_is_number(s))
            return cfg_fail_type(c, s, k, disp);
        key_spec nk = *k;
        nk.type = K_FLOAT; /* a number out of range: "expected a number >= 0" */
        return check_number(c, s, &nk, disp);
    }
    case K_INT:
        return check_integer(c, s, k, disp, k->ilo, k->ihi);
    case K_STRING:
    case K_NAME:
        return check_string(c, s, k, disp);
    case K_ENUM: {
        key_spec ek = *k;
        ek.maxlen = PATH_LEN; /* length is not the point: the choice is */
        return check_string(c, s, &ek, disp);
    }
    case K_VEC3:
    case K_IVEC3:
    case K_FLOATS:
        return check_vec3(c, s, k, disp);
    }
    return 0;
}

/* ---- Defaults --------------------------------------------------------------------------- */

/* Adds every absent key that has a default, under group `g` of pattern `pat`, creating
 * optional groups on the way. Runs after the per-key pass, so the tree is well formed. */
static int fill_defaults(const cfg_ctx *c, config_setting_t *g, const char *pat)
{
    for (int i = 0; i < vs_config_schema_count; ++i) {
        const key_spec *k = &vs_config_schema[i];
        if (!is_child(k->path, pat) || k->type == K_MAP || strcmp(leaf_name(k->path), "*") == 0)
            continue;
        const char *name = leaf_name(k->path);
        config_setting_t *m = member(g, name);
        if (!m && k->type == K_GROUP)
            m = config_setting_add(g, name, CONFIG_TYPE_GROUP);
        if (!m && k->def) {
            config_t tmp;
            char why[SHOW_LEN];
            config_setting_t *v = parse_value(&tmp, k->def, why, sizeof why);
            m = v ? copy_setting(g, name, v) : NULL;
            config_destroy(&tmp);
            if (!m)
                return cfg_fail_at(c, (cfg_where){-1, 0}, k->path, "internal error: bad default %s",
                                   k->def);
        }
        if (m && k->type == K_GROUP) {
            int rc = fill_defaults(c, m, k->path);
            if (rc)
                return rc;
        } else if (m && k->type == K_LIST) {
            char epat[PATH_LEN];
            snprintf(epat, sizeof epat, "%s.[]", k->path);
            for (int e = 0; e < config_setting_length(m); ++e) {
                int rc = fill_defaults(c, config_setting_get_elem(m, (unsigned)e), epat);
                if (rc)
                    return rc;
            }
        }
    }
    return 0;
}

/* ---- Checks across keys, and the extraction into vs_params ------------------------------ */

static void vec_at(const config_setting_t *s, double v[3])
{
    for (unsigned i = 0; i < 3; ++i)
        v[i] = as_double(config_setting_get_elem(s, i));
}

/* The value of choice s of key k. */
static int choice_of(const key_spec *k, const config_setting_t *s)
{
    const char *v = config_setting_get_string(s);
    for (const key_choice *ch = k->choices; ch->name; ++ch)
        if (strcmp(ch->name, v) == 0)
            return ch->value;
    return k->choices[0].value; /* not reached: the per-key pass checked the choice */
}

/* After the defaults: an input group was given (the defaults create an empty one otherwise,
 * without the required format). */
static int has_input(const config_setting_t *root)
{
    return member(root, "input") && member(member(root, "input"), "format");
}

static int extract_species(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    const config_setting_t *list = member(root, "species");
    p->species.n = config_setting_length(list);
    double sum = 0.0;
    const config_setting_t *sites[VS_MAX_SPECIES + 1] = {list};
    for (int i = 0; i < p->species.n; ++i) {
        const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
        const config_setting_t *name = member(e, "name");
        vs_species *sp = &p->species.list[i];
        snprintf(sp->name, sizeof sp->name, "%s", config_setting_get_string(name));
        for (int j = 0; j < i; ++j)
            if (strcmp(p->species.list[j].name, sp->name) == 0) {
                char key[PATH_LEN];
                snprintf(key, sizeof key, "species.[%d].name", i);
                return cfg_fail(c, name, key, "expected a name no other species uses (got \"%s\", "
                                "as species.[%d].name)", sp->name, j);
            }
        sp->mass = as_double(member(e, "mass"));
        const config_setting_t *fraction = member(e, "fraction");
        sp->fraction = fraction ? as_double(fraction) : 0.0;
        vec_at(member(e, "body_force"), sp->body_force);
        sp->frozen = strcmp(config_setting_get_string(member(e, "frozen")), "on") == 0;
        sp->inertia = member(e, "inertia") ? as_double(member(e, "inertia")) : 0.0;
        sum += sp->fraction;
        sites[i + 1] = member(e, "fraction");
    }
    if (has_input(root)) /* the file gives every particle's species */
        return 0;
    if (!(fabs(sum - 1.0) <= 1e-9)) {
        char got[48];
        cfg_fmt_double(got, sizeof got, sum);
        return cfg_fail(c, cfg_pick_site(sites, p->species.n + 1), "species",
                        "expected fractions summing to 1 within 1e-9 (got a sum of %s)", got);
    }
    return 0;
}

/* One value of a LAND_AUTO row into its field (param_schema.h says which type goes into
 * which field); 1 when the row's field does not fit its type (a schema mistake). */
static int land_value(const key_spec *k, const config_setting_t *s, char *field)
{
    switch (k->type) {
    case K_FLOAT:
        if (k->size != sizeof(double))
            return 1;
        *(double *)field = as_double(s);
        return 0;
    case K_INT:
        if (k->size == sizeof(int64_t))
            *(int64_t *)field = (int64_t)as_int(s);
        else if (k->size == sizeof(int))
            *(int *)field = (int)as_int(s);
        else
            return 1;
        return 0;
    case K_ENUM:
        if (k->size != sizeof(int))
            return 1;
        *(int *)field = choice_of(k, s);
        return 0;
    case K_STRING:
        snprintf(field, k->size, "%s", config_setting_get_string(s));
        return 0;
    case K_VEC3:
    case K_IVEC3:
        if (k->size != 3 * (k->type == K_VEC3 ? sizeof(double) : sizeof(int)))
            return 1;
        for (unsigned i = 0; i < 3; ++i)
            if (k->type == K_VEC3)
                ((double *)field)[i] = as_double(config_setting_get_elem(s, i));
            else
                ((int *)field)[i] = (int)as_int(config_setting_get_elem(s, i));
        return 0;
    default:
        return 1;
    }
}

/* Every key whose row says LAND_AUTO, given or defaulted, into its field of p (keys without
 * a value, optional and without default, leave their field zero). */
static void land_keys(const config_setting_t *root, vs_params *p)
{
    for (int i = 0; i < vs_config_schema_count; ++i) {
        const key_spec *k = &vs_config_schema[i];
        if (k->land != LAND_AUTO)
            continue;
        const config_setting_t *s = at(root, k->path);
        if (s && land_value(k, s, (char *)p + k->offset) != 0)
            VS_FATAL("internal error: schema row %s cannot land in a field of %zu bytes",
                     k->path, k->size);
    }
}

static int extract_system(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    const int mc = vs_config_mc_given(root); /* then no dpd or integrator group */
    int rc = extract_species(c, root, p);
    if (rc)
        return rc;
    if (!mc && (rc = vs_config_dpd_matrices(c, root, p)))
        return rc;
    land_keys(root, p);
    if (!mc && (rc = vs_config_extract_integrator(c, root, p)))
        return rc;
    const config_setting_t *dec = at(root, "decomposition");
    int zeros = 0;
    for (unsigned i = 0; i < 3; ++i)
        zeros += p->exec.decomposition[i] == 0;
    if (zeros != 0 && zeros != 3) {
        char got[SHOW_LEN] = "";
        cfg_put_value(got, sizeof got, dec);
        return cfg_fail(c, dec, "decomposition",
                        "expected all 0 (automatic) or all >= 1 (got %s)", got);
    }
    if ((rc = vs_config_pair(c, root, p)) || (rc = vs_config_boundary(c, root, p)))
        return rc;
    if ((rc = vs_config_aniso(c, root, p)))
        return rc;
    if (has_input(root)) { /* box and particles come with the file (run_input.c) */
        if ((rc = vs_config_extract_flow(c, root, p)) || (rc = vs_config_input(c, root, p)))
            return rc;
        return vs_config_reactions(c, root, p);
    }

    const config_setting_t *box = at(root, "box");
    vec_at(box, p->system.box);
    /* the pair terms' largest cut-off: dpd.rc unless a pair style reaches farther */
    const double reach = vs_pair_reach(p);
    const double *edge = p->system.box;
    if (!(edge[0] >= 2 * reach && edge[1] >= 2 * reach && edge[2] >= 2 * reach)) {
        const config_setting_t *two[2] = {box, at(root, "dpd.rc")};
        char rc2[48], got[SHOW_LEN] = "";
        cfg_fmt_double(rc2, sizeof rc2, 2 * reach);
        cfg_put_value(got, sizeof got, box);
        return cfg_fail(c, cfg_pick_site(two, 2), "box",
                        "expected each side >= 2 * %s = %s (got %s)",
                        reach == p->dpd.rc ? "dpd.rc" : "the largest pair cut-off", rc2, got);
    }

    double volume = p->system.box[0] * p->system.box[1] * p->system.box[2];
    const config_setting_t *dens = member(root, "density");
    if (dens) {
        double want = as_double(dens) * volume;
        char d[48], vol[48];
        cfg_fmt_double(d, sizeof d, as_double(dens));
        cfg_fmt_double(vol, sizeof vol, volume);
        if (!(want < 9.2e18))
            return cfg_fail(c, dens, "density",
                            "expected density * volume below 9.2e18 particles (got %s in volume "
                            "%s)", d, vol);
        p->system.n_particles = llround(want);
        if (p->system.n_particles < 1)
            return cfg_fail(c, dens, "density",
                            "expected density * volume to round to at least 1 particle (got %s in "
                            "volume %s)", d, vol);
    } else {
        p->system.n_particles = as_int(member(root, "particles"));
    }
    p->system.density = (double)p->system.n_particles / volume;
    if ((rc = vs_config_extract_flow(c, root, p)) || (rc = vs_config_molecules(c, root, p)))
        return rc;
    return vs_config_reactions(c, root, p);
}

static int extract(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    int rc = extract_system(c, root, p);
    if (rc)
        return rc;
    return vs_config_mc(c, root, p);
}

/* Density-field frames need the fields (the field group) to write. */
static int check_field_output(const cfg_ctx *c, const config_setting_t *root, const vs_params *p)
{
    if (p->output.field_interval > 0 && !p->field.on)
        return cfg_fail(c, at(root, "output.field_interval"), "output.field_interval",
                        "expected 0 without a field group (there are no density fields to "
                        "write)");
    return 0;
}

/* ---- Entry points ----------------------------------------------------------------------- */

/* Everything after the parse: overrides, per-key checks, defaults, cross checks. */
static int validate(const cfg_ctx *c, config_t *cfg, int n_sets, vs_params *out)
{
    int rc = 0;
    for (int i = 0; i < n_sets && !rc; ++i)
        rc = apply_set(c, cfg, i);
    if (rc)
        return rc;
    config_setting_t *root = config_root_setting(cfg);
    if (vs_config_mc_given(root) && (rc = vs_config_mc_groups(c, root)))
        return rc; /* before the defaults, which create every optional group */
    if ((rc = check_group(c, root, NULL, "", "")))
        return rc;
    if ((rc = fill_defaults(c, root, "")))
        return rc;
    vs_params p;
    memset(&p, 0, sizeof p);
    if ((rc = extract(c, root, &p)) || (rc = vs_config_field(c, root, &p)) ||
        (rc = check_field_output(c, root, &p))) {
        vs_params_release(&p);
        return rc;
    }
    memcpy(out, &p, sizeof p); /* every byte, so ranks can compare results bytewise */
    return 0;
}

int vs_config_parse(const char *text, const char *filename, const char *const *sets,
                    int n_sets, vs_params *out, char *err, size_t err_len)
{
    cfg_ctx c = {filename, sets, err, err_len};
    if (err && err_len)
        err[0] = '\0';
    if (!text)
        return cfg_fail_at(&c, (cfg_where){-1, 0}, NULL, "no configuration text");
    if (!out || n_sets < 0 || (n_sets > 0 && !sets))
        return cfg_fail_at(&c, (cfg_where){-1, 0}, NULL, "internal error: bad arguments");

    config_t cfg;
    unsigned line = 0;
    char why[SHOW_LEN];
    int rc;
    char dup[64];
    if (parse_text(&cfg, text, &line, why, sizeof why) == 0)
        rc = validate(&c, &cfg, n_sets, out);
    else if (strcmp(why, "duplicate setting name") == 0 &&
             cfg_duplicate_name(text, line, dup, sizeof dup) == 0)
        rc = cfg_fail_at(&c, (cfg_where){-1, line}, dup, "duplicate setting name (a key may "
                         "appear only once in its group)");
    else
        rc = cfg_fail_at(&c, (cfg_where){-1, line}, NULL, "syntax error (%s)", why);
    config_destroy(&cfg);
    return rc;
}
