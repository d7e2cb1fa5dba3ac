/* Error lines of the configuration module: see config_report.h. */
#include "config_report.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_codes.h"

static const char *file_name(const cfg_ctx *c) { return c->file ? c->file : "<config>"; }

static int vfail(const cfg_ctx *c, cfg_where w, const char *key, const char *fmt, va_list ap)
{
    if (!c->err || c->err_len == 0)
        return VS_EXIT_BAD_INPUT;
    size_t n = 0;
    int k;
    if (w.set >= 0)
        k = snprintf(c->err, c->err_len, "--set %s: ", c->sets[w.set]);
    else if (w.line > 0)
        k = snprintf(c->err, c->err_len, "%s:%u: ", file_name(c), w.line);
    else
        k = snprintf(c->err, c->err_len, "%s: ", file_name(c));
    n = k > 0 ? (size_t)k : 0;
    if (key && n < c->err_len) {
        k = snprintf(c->err + n, c->err_len - n, "%s: ", key);
        n += k > 0 ? (size_t)k : 0;
    }
    if (n < c->err_len)
        vsnprintf(c->err + n, c->err_len - n, fmt, ap);
    /* One line, whatever the file name or the argument held. */
    for (char *p = c->err; *p; ++p)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return VS_EXIT_BAD_INPUT;
}

int cfg_fail_at(const cfg_ctx *c, cfg_where w, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(c, w, key, fmt, ap);
    va_end(ap);
    return rc;
}

/* The nearest --set origin of a setting or its ancestors, else -1. */
static int set_origin(const config_setting_t *s)
{
    for (; s; s = config_setting_parent(s)) {
        void *h = config_setting_get_hook(s);
        if (h)
            return (int)((intptr_t)h - 1);
    }
    return -1;
}

static cfg_where where_of(const config_setting_t *s)
{
    cfg_where w = {set_origin(s), s ? config_setting_source_line(s) : 0};
    return w;
}

int cfg_fail(const cfg_ctx *c, const config_setting_t *site, const char *key, const char *fmt,
             ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(c, where_of(site), key, fmt, ap);
    va_end(ap);
    return rc;
}

/* Of several settings an error involves, the one to report at: the most recent --set among
 * them (the override the user just typed is the likely culprit), else the first given. */
const config_setting_t *cfg_pick_site(const config_setting_t *const *s, int n)
{
    const config_setting_t *best = s[0];
    int best_set = set_origin(s[0]);
    for (int i = 1; i < n; ++i) {
        int o = set_origin(s[i]);
        if (o > best_set) {
            best = s[i];
            best_set = o;
        }
    }
    return best;
}

/* A double as short as round-trips, always recognisable as a float (4.0, not 4). */
void cfg_fmt_double(char *b, size_t n, double v)
{
    snprintf(b, n, "%.15g", v);
    if (strtod(b, NULL) != v)
        snprintf(b, n, "%.17g", v);
    if (isfinite(v) && !strpbrk(b, ".e") && strlen(b) + 3 <= n)
        strcat(b, ".0");
}

/* Append to a bounded buffer; silently cut at the end. */
void cfg_put(char *b, size_t n, const char *fmt, ...)
{
    size_t used = strlen(b);
    if (used + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b + used, n - used, fmt, ap);
    va_end(ap);
}

/* A string as a quoted, escaped, shortened literal. */
void cfg_put_quoted(char *b, size_t n, const char *s)
{
    cfg_put(b, n, "\"");
    int shown = 0;
    for (; *s && shown < 48; ++s, ++shown) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            cfg_put(b, n, "\\%c", ch);
        else if (ch == '\n')
            cfg_put(b, n, "\\n");
        else if (ch == '\t')
            cfg_put(b, n, "\\t");
        else if (ch < 0x20 || ch == 0x7f)
            cfg_put(b, n, "\\x%02x", ch);
        else
            cfg_put(b, n, "%c", ch);
    }
    cfg_put(b, n, *s ? "...\"" : "\"");
}

/* A setting's value as the user would recognise it: 4, 4.0, "x", [1.0, 2.0], true. */
void cfg_put_value(char *b, size_t n, const config_setting_t *s)
{
    char num[40];
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
        cfg_put(b, n, "%d", config_setting_get_int(s));
        break;
    case CONFIG_TYPE_INT64:
        cfg_put(b, n, "%lld", config_setting_get_int64(s));
        break;
    case CONFIG_TYPE_FLOAT:
        cfg_fmt_double(num, sizeof num, config_setting_get_float(s));
        cfg_put(b, n, "%s", num);
        break;
    case CONFIG_TYPE_STRING:
        cfg_put_quoted(b, n, config_setting_get_string(s));
        break;
    case CONFIG_TYPE_BOOL:
        cfg_put(b, n, "%s", config_setting_get_bool(s) ? "true" : "false");
        break;
    case CONFIG_TYPE_ARRAY:
    case CONFIG_TYPE_LIST: {
        int list = config_setting_type(s) == CONFIG_TYPE_LIST;
        cfg_put(b, n, list ? "(" : "[");
        for (int i = 0; i < config_setting_length(s); ++i) {
            if (i)
                cfg_put(b, n, ", ");
            cfg_put_value(b, n, config_setting_get_elem(s, (unsigned)i));
        }
        cfg_put(b, n, list ? ")" : "]");
        break;
    }
    default:
        cfg_put(b, n, "{ ... }");
        break;
    }
}

/* What was found, for a type mismatch: says the kind where the value alone would not. */
static void put_found(char *b, size_t n, const config_setting_t *s)
{
    int t = config_setting_type(s);
    int len = config_setting_is_aggregate(s) ? config_setting_length(s) : 0;
    if (t == CONFIG_TYPE_GROUP) {
        cfg_put(b, n, "a group");
    } else if (t == CONFIG_TYPE_LIST || t == CONFIG_TYPE_ARRAY) {
        const char *what = t == CONFIG_TYPE_LIST ? "list" : "array";
        if (len == 0)
            cfg_put(b, n, "an empty %s", what);
        else if (!config_setting_is_scalar(config_setting_get_elem(s, 0)))
            cfg_put(b, n, "a %s of %d groups or lists", what, len);
        else
            cfg_put_value(b, n, s);
    } else {
        if (t == CONFIG_TYPE_STRING)
            cfg_put(b, n, "a string ");
        else if (t == CONFIG_TYPE_BOOL)
            cfg_put(b, n, "a boolean ");
        cfg_put_value(b, n, s);
    }
}

void cfg_put_bounds(char *b, size_t n, const key_spec *k)
{
    if ((k->bounds & B_LO) && (k->bounds & B_HI))
        cfg_put(b, n, " in %c%g, %g]", (k->bounds & B_LO_OPEN) ? '(' : '[', k->lo, k->hi);
    else if (k->bounds & B_LO)
        cfg_put(b, n, " %s %g", (k->bounds & B_LO_OPEN) ? ">" : ">=", k->lo);
}

static void put_int_range(char *b, size_t n, const key_spec *k)
{
    if (k->ihi == INT64_MAX)
        cfg_put(b, n, " >= %lld", k->ilo);
    else
        cfg_put(b, n, " in [%lld, %lld]", k->ilo, k->ihi);
}

/* The "expected ..." wording of a key, from its schema entry alone. */
void cfg_put_expected(char *b, size_t n, const key_spec *k)
{
    switch (k->type) {
    case K_GROUP:
        cfg_put(b, n, "a group { key = value; ... }");
        break;
    case K_MAP:
        cfg_put(b, n, "a group { NAME = ...; } keyed by species name");
        break;
    case K_LIST:
        cfg_put(b, n, "a list of %lld to %lld groups ( { ... }, { ... } )", k->ilo, k->ihi);
        break;
    case K_FLOAT:
        cfg_put(b, n, "a number");
        cfg_put_bounds(b, n, k);
        break;
    case K_INT:
        cfg_put(b, n, "an integer");
        put_int_range(b, n, k);
        break;
    case K_STRING:
        cfg_put(b, n, "a non-empty string of at most %zu characters", k->maxlen);
        break;
    case K_NAME:
        cfg_put(b, n, "a name (a letter, then letters, digits or _) of at most %zu characters",
                k->maxlen);
        break;
    case K_ENUM:
        cfg_put(b, n, "one of");
        for (const key_choice *ch = k->choices; ch->name; ++ch)
            cfg_put(b, n, "%s\"%s\"", ch == k->choices ? " " : ", ", ch->name);
        break;
    case K_VEC3:
        cfg_put(b, n, "3 numbers [x, y, z]");
        break;
    case K_IVEC3:
        cfg_put(b, n, "3 integers [nx, ny, nz]");
        break;
    case K_FLOATS:
        cfg_put(b, n, "%lld to %lld numbers [a, b, ...]", k->ilo, k->ihi);
        cfg_put_bounds(b, n, k);
        break;
    case K_FLOAT_OR_MAP:
        cfg_put(b, n, "a number");
        cfg_put_bounds(b, n, k);
        cfg_put(b, n, " or a species matrix { NAME = { NAME = number; }; }");
        break;
    }
}

/* "KEY: expected <schema wording> (got <found>)" */
int cfg_fail_type(const cfg_ctx *c, const config_setting_t *s, const key_spec *k,
                     const char *disp)
{
    char exp[SHOW_LEN] = "", got[SHOW_LEN] = "";
    cfg_put_expected(exp, sizeof exp, k);
    put_found(got, sizeof got, s);
    return cfg_fail(c, s, disp, "expected %s (got %s)", exp, got);
}

/* ---- Did you mean ----------------------------------------------------------------------- */

/* Edit distance (with adjacent transpositions), case-insensitive; long names give up. */
int cfg_edit_distance(const char *a, const char *b)
{
    enum { M = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= M || lb >= M)
        return INT_MAX;
    int d[M][M];
    for (size_t i = 0; i <= la; ++i)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; ++j)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; ++i)
        for (size_t j = 1; j <= lb; ++j) {
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int v = d[i - 1][j - 1] + !same;
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

/* The closest candidate, if close enough to be a plausible typo; first in order on ties. */
const char *cfg_closest(const char *name, const char *const *cand, int n)
{
    int limit = ((int)strlen(name) + 1) / 3;
    if (limit < 1)
        limit = 1;
    const char *best = NULL;
    int best_d = INT_MAX;
    for (int i = 0; i < n; ++i) {
        int d = cfg_edit_distance(name, cand[i]);
        if (d < best_d) {
            best = cand[i];
            best_d = d;
        }
    }
    return best_d <= limit ? best : NULL;
}
