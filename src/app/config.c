/* Configuration: libconfig text plus --set overrides -> a fully validated vs_params.
 *
 * One static table, SCHEMA, names every key Vesica reads: its type, whether it is required, its
 * default (as libconfig value text, parsed by the same code as the file) and its meaning. The
 * rest is driven by that table: the unknown-key check and its did-you-mean candidates, the type
 * and range checks and their "expected ..." wording, the resolution of --set paths, and the
 * defaults. Only the checks that tie several keys together (box against rc, the a_ij matrix
 * against the species, fractions, density against particles) are written out by hand, after
 * the per-key pass.
 *
 * The first error wins and becomes one line, FILE:LINE: KEY: expected WHAT (got WHAT). A value
 * that came from --set is reported against that argument instead: the copied setting carries
 * the argument's index in its libconfig hook, and a report walks up to the nearest hook.
 * Nothing here prints, exits or touches the file system (vs_read_text_file aside), and the
 * verdict depends only on the text and the overrides, so every MPI rank reaches the same one.
 *
 * Two libconfig 1.5 behaviours are handled by a small lexer before parsing. Integer literals
 * that do not fit 32 bits wrap silently (steps = 5000000000 reads as 705032704), so such
 * literals get the L suffix added, as newer libconfig versions do by themselves; literals past
 * 64 bits are an error. And @include is refused: only rank 0 reads input files, the other
 * ranks see the broadcast text and could not follow the include.
 */
#define _POSIX_C_SOURCE 200809L

#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* ---- The schema ------------------------------------------------------------------------- */

typedef enum {
    K_GROUP,  /* { key = value; ... } with the keys listed in the schema */
    K_MAP,    /* { NAME = ...; ... } whose member names are species names (pattern "*") */
    K_LIST,   /* ( { ... }, { ... } ): elements share the pattern "[]" */
    K_FLOAT,  /* a finite number; integers are accepted */
    K_INT,    /* an integer (32-bit, or 64-bit with L); floats are rejected */
    K_STRING, /* a string */
    K_NAME,   /* a string usable as a libconfig setting name: letter, then letters/digits/_ */
    K_ENUM,   /* one of a fixed set of strings */
    K_VEC3,   /* 3 numbers, as [x, y, z] or (x, y, z) */
    K_IVEC3   /* 3 integers */
} key_type;

typedef enum {
    OPTIONAL,
    REQUIRED,
    REQUIRED_UNLESS_RIVAL, /* required unless its rival key is given (density / particles) */
    REQUIRED_IF_SEVERAL    /* in a list element: required when the list has several elements */
} key_need;

/* Which numeric bounds apply to K_FLOAT and K_VEC3 elements. */
enum { B_LO = 1, B_LO_OPEN = 2, B_HI = 4 };

typedef struct {
    const char *name;
    int value;
} key_choice;

typedef struct {
    const char *path; /* dotted; "[]" stands for any list element, "*" for any species name */
    key_type type;
    key_need need;
    const char *def;  /* default as libconfig value text; NULL: no default */
    const char *doc;  /* meaning, one line (docs/configuration.md says more) */
    int bounds;       /* K_FLOAT, K_VEC3: B_* flags for lo and hi */
    double lo, hi;
    long long ilo, ihi;          /* K_INT, K_IVEC3: value range; K_LIST: element count */
    size_t maxlen;               /* K_STRING, K_NAME: longest accepted length */
    const key_choice *choices;   /* K_ENUM: terminated by a NULL name */
    const char *rival;           /* sibling key that must not be given together with this one */
} key_spec;

/* Designated initialisers throughout, so unnamed checks are zero (-Wextra stays quiet). */
#define KEY(p, t, n, d, doc_) .path = (p), .type = (t), .need = (n), .def = (d), .doc = (doc_)
#define NUM_GT(x) .bounds = B_LO | B_LO_OPEN, .lo = (x)
#define NUM_GE(x) .bounds = B_LO, .lo = (x)
#define NUM_IN(a, b) .bounds = B_LO | B_HI, .lo = (a), .hi = (b)
#define INT_GE(x) .ilo = (x), .ihi = INT64_MAX

/* Names tied to the enum values of params.h explicitly, not by position. */
static const key_choice RANDOM_CHOICES[] = {
    {"uniform", VS_RANDOM_UNIFORM}, {"gaussian", VS_RANDOM_GAUSSIAN}, {NULL, 0}};
static const key_choice BACKEND_CHOICES[] = {
    {"auto", VS_BACKEND_AUTO}, {"cpu", VS_BACKEND_CPU}, {"gpu", VS_BACKEND_GPU}, {NULL, 0}};
static const key_choice BUILDER_CHOICES[] = {
    {"thread", VS_GPU_BUILDER_THREAD},
    {"warp", VS_GPU_BUILDER_WARP},
    {"cells", VS_GPU_BUILDER_CELLS},
    {"auto", VS_GPU_BUILDER_AUTO},
    {NULL, 0}};
static const key_choice TRANSPORT_CHOICES[] = {
    {"auto", VS_TRANSPORT_AUTO},
    {"host", VS_TRANSPORT_HOST},
    {"peer", VS_TRANSPORT_PEER},
    {"mpi-device", VS_TRANSPORT_MPI_DEVICE},
    {NULL, 0}};
static const key_choice ON_OFF_CHOICES[] = {{"on", 1}, {"off", 0}, {NULL, 0}};
static const key_choice PRECISION_CHOICES[] = {
    {"mixed", VS_PRECISION_MIXED}, {"double", VS_PRECISION_DOUBLE}, {NULL, 0}};

/* Every key Vesica reads, in the order the documentation lists them. The first five fields
 * are path, type, need, default, meaning; the checks follow. docs/configuration.md documents
 * every path (a unit test checks that). */
static const key_spec SCHEMA[] = {
    {KEY("box", K_VEC3, REQUIRED, NULL,
         "periodic box edges [Lx, Ly, Lz], each >= 2 * dpd.rc")},
    {KEY("density", K_FLOAT, REQUIRED_UNLESS_RIVAL, NULL,
         "number density; particles = round(density * volume)"),
     NUM_GT(0), .rival = "particles"},
    {KEY("particles", K_INT, OPTIONAL, NULL,
         "total particle count, instead of density"),
     INT_GE(1), .rival = "density"},
    {KEY("seed", K_INT, OPTIONAL, "1",
         "64-bit seed of the initial state and the pair random stream"),
     INT_GE(0)},

    {KEY("species", K_LIST, REQUIRED, NULL,
         "particle species, one group each"),
     .ilo = 1, .ihi = VS_MAX_SPECIES},
    {KEY("species.[]", K_GROUP, OPTIONAL, NULL,
         "one species")},
    {KEY("species.[].name", K_NAME, REQUIRED, NULL,
         "unique name, used as a key of dpd.a"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("species.[].mass", K_FLOAT, OPTIONAL, "1.0",
         "particle mass"),
     NUM_GT(0)},
    {KEY("species.[].fraction", K_FLOAT, REQUIRED_IF_SEVERAL, "1.0",
         "number fraction of all particles; fractions sum to 1"),
     NUM_IN(0, 1)},
    {KEY("species.[].body_force", K_VEC3, OPTIONAL, "[0.0, 0.0, 0.0]",
         "constant force on every particle of the species")},

    {KEY("dpd", K_GROUP, REQUIRED, NULL,
         "DPD pair interaction")},
    {KEY("dpd.a", K_MAP, REQUIRED, NULL,
         "conservative amplitudes a_ij by species names")},
    {KEY("dpd.a.*", K_MAP, OPTIONAL, NULL,
         "row i of a_ij")},
    {KEY("dpd.a.*.*", K_FLOAT, OPTIONAL, NULL,
         "a_ij; a.A.B must equal a.B.A")},
    {KEY("dpd.gamma", K_FLOAT, REQUIRED, NULL,
         "dissipative strength gamma"),
     NUM_GE(0)},
    {KEY("dpd.kT", K_FLOAT, REQUIRED, NULL,
         "thermostat temperature k_B T"),
     NUM_GE(0)},
    {KEY("dpd.rc", K_FLOAT, OPTIONAL, "1.0",
         "cutoff radius r_c"),
     NUM_GT(0)},
    {KEY("dpd.s", K_FLOAT, OPTIONAL, "1.0",
         "weight exponent: w_D = w^(2s), w_R = w^s"),
     NUM_GT(0)},
    {KEY("dpd.random", K_ENUM, OPTIONAL, "\"uniform\"",
         "distribution of the pair random numbers"),
     .choices = RANDOM_CHOICES},

    {KEY("integrator", K_GROUP, REQUIRED, NULL,
         "time integration")},
    {KEY("integrator.dt", K_FLOAT, REQUIRED, NULL,
         "time step"),
     NUM_GT(0)},
    {KEY("integrator.lambda", K_FLOAT, OPTIONAL, "0.5",
         "Groot-Warren velocity-prediction factor"),
     NUM_IN(0, 1)},
    {KEY("integrator.steps", K_INT, REQUIRED, NULL,
         "final step number (a restart continues up to it)"),
     INT_GE(0)},

    {KEY("neighbor", K_GROUP, OPTIONAL, NULL,
         "neighbor list")},
    {KEY("neighbor.skin", K_FLOAT, OPTIONAL, "0.0",
         "Verlet skin added to rc; 0 rebuilds the lists on every step"),
     NUM_GE(0)},
    {KEY("neighbor.gpu_builder", K_ENUM, OPTIONAL, "\"auto\"",
         "GPU neighbour-list builder"),
     .choices = BUILDER_CHOICES},

    {KEY("decomposition", K_IVEC3, OPTIONAL, "[0, 0, 0]",
         "MPI ranks per dimension; all 0 = automatic"),
     .ilo = 0, .ihi = INT_MAX},
    {KEY("comm", K_GROUP, OPTIONAL, NULL,
         "communication between ranks")},
    {KEY("comm.transport", K_ENUM, OPTIONAL, "\"auto\"",
         "how the GPU backend moves halo data: auto, host, peer or mpi-device"),
     .choices = TRANSPORT_CHOICES},
    {KEY("comm.overlap", K_ENUM, OPTIONAL, "\"on\"",
         "GPU: compute interior forces while the ghosts travel"),
     .choices = ON_OFF_CHOICES},
    {KEY("backend", K_ENUM, OPTIONAL, "\"auto\"",
         "where the step runs"),
     .choices = BACKEND_CHOICES},
    {KEY("precision", K_ENUM, OPTIONAL, "\"mixed\"",
         "GPU arithmetic (the CPU backend is always double)"),
     .choices = PRECISION_CHOICES},

    {KEY("output", K_GROUP, REQUIRED, NULL,
         "output files")},
    {KEY("output.dir", K_STRING, REQUIRED, NULL,
         "directory for every output file"),
     .maxlen = VS_PATH_LEN - 1},
    {KEY("output.thermo_interval", K_INT, OPTIONAL, "100",
         "steps between thermo rows"),
     INT_GE(1)},
    {KEY("output.trajectory_interval", K_INT, OPTIONAL, "0",
         "steps between H5MD trajectory frames; 0 = no trajectory"),
     INT_GE(0)},
    {KEY("output.checkpoint_interval", K_INT, OPTIONAL, "0",
         "steps between checkpoints; 0 = only at the end of the run"),
     INT_GE(0)},
    {KEY("output.checkpoint_keep", K_INT, OPTIONAL, "2",
         "checkpoints kept (the newest ones); 0 = no checkpoints"),
     INT_GE(0)},

    {KEY("run", K_GROUP, OPTIONAL, NULL,
         "run control")},
    {KEY("run.walltime", K_FLOAT, OPTIONAL, "0.0",
         "hours this run may last; 0 = no limit"),
     NUM_GE(0)},
};
#define N_SCHEMA ((int)(sizeof SCHEMA / sizeof SCHEMA[0]))

#define PATH_LEN 256     /* display paths and patterns; longer names are cut, harmlessly */
#define SHOW_LEN 160     /* how much of a value an error line shows */

/* ---- Error reporting -------------------------------------------------------------------- */

typedef struct {
    const char *file;
    const char *const *sets;
    char *err;
    size_t err_len;
} ctx;

/* Where an error is reported: a --set argument (set >= 0), else a line of the file (0: none). */
typedef struct {
    int set;
    unsigned line;
} where;

static const char *file_name(const ctx *c) { return c->file ? c->file : "<config>"; }

static int vfail(const ctx *c, where w, const char *key, const char *fmt, va_list ap)
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

static int fail_where(const ctx *c, where w, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_where(const ctx *c, where w, const char *key, const char *fmt, ...)
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

static where where_of(const config_setting_t *s)
{
    where w = {set_origin(s), s ? config_setting_source_line(s) : 0};
    return w;
}

/* Report at a setting: its --set argument, else its line. */
static int fail(const ctx *c, const config_setting_t *site, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(const ctx *c, const config_setting_t *site, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(c, where_of(site), key, fmt, ap);
    va_end(ap);
    return rc;
}

/* Of several settings an error involves, the one to report at: the most recent --set among
 * them (the override the user just typed is the likely culprit), else the first given. */
static const config_setting_t *pick_site(const config_setting_t *const *s, int n)
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
static void fmt_double(char *b, size_t n, double v)
{
    snprintf(b, n, "%.15g", v);
    if (strtod(b, NULL) != v)
        snprintf(b, n, "%.17g", v);
    if (isfinite(v) && !strpbrk(b, ".e") && strlen(b) + 3 <= n)
        strcat(b, ".0");
}

/* Append to a bounded buffer; silently cut at the end. */
static void put(char *b, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *b, size_t n, const char *fmt, ...)
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
static void put_quoted(char *b, size_t n, const char *s)
{
    put(b, n, "\"");
    int shown = 0;
    for (; *s && shown < 48; ++s, ++shown) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            put(b, n, "\\%c", ch);
        else if (ch == '\n')
            put(b, n, "\\n");
        else if (ch == '\t')
            put(b, n, "\\t");
        else if (ch < 0x20 || ch == 0x7f)
            put(b, n, "\\x%02x", ch);
        else
            put(b, n, "%c", ch);
    }
    put(b, n, *s ? "...\"" : "\"");
}

/* A setting's value as the user would recognise it: 4, 4.0, "x", [1.0, 2.0], true. */
static void put_value(char *b, size_t n, const config_setting_t *s)
{
    char num[40];
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
        put(b, n, "%d", config_setting_get_int(s));
        break;
    case CONFIG_TYPE_INT64:
        put(b, n, "%lld", config_setting_get_int64(s));
        break;
    case CONFIG_TYPE_FLOAT:
        fmt_double(num, sizeof num, config_setting_get_float(s));
        put(b, n, "%s", num);
        break;
    case CONFIG_TYPE_STRING:
        put_quoted(b, n, config_setting_get_string(s));
        break;
    case CONFIG_TYPE_BOOL:
        put(b, n, "%s", config_setting_get_bool(s) ? "true" : "false");
        break;
    case CONFIG_TYPE_ARRAY:
    case CONFIG_TYPE_LIST: {
        int list = config_setting_type(s) == CONFIG_TYPE_LIST;
        put(b, n, list ? "(" : "[");
        for (int i = 0; i < config_setting_length(s); ++i) {
            if (i)
                put(b, n, ", ");
            put_value(b, n, config_setting_get_elem(s, (unsigned)i));
        }
        put(b, n, list ? ")" : "]");
        break;
    }
    default:
        put(b, n, "{ ... }");
        break;
    }
}

/* What was found, for a type mismatch: says the kind where the value alone would not. */
static void put_found(char *b, size_t n, const config_setting_t *s)
{
    int t = config_setting_type(s);
    int len = config_setting_is_aggregate(s) ? config_setting_length(s) : 0;
    if (t == CONFIG_TYPE_GROUP) {
        put(b, n, "a group");
    } else if (t == CONFIG_TYPE_LIST || t == CONFIG_TYPE_ARRAY) {
        const char *what = t == CONFIG_TYPE_LIST ? "list" : "array";
        if (len == 0)
            put(b, n, "an empty %s", what);
        else if (!config_setting_is_scalar(config_setting_get_elem(s, 0)))
            put(b, n, "a %s of %d groups or lists", what, len);
        else
            put_value(b, n, s);
    } else {
        if (t == CONFIG_TYPE_STRING)
            put(b, n, "a string ");
        else if (t == CONFIG_TYPE_BOOL)
            put(b, n, "a boolean ");
        put_value(b, n, s);
    }
}

static void put_bounds(char *b, size_t n, const key_spec *k)
{
    if ((k->bounds & B_LO) && (k->bounds & B_HI))
        put(b, n, " in [%g, %g]", k->lo, k->hi);
    else if (k->bounds & B_LO)
        put(b, n, " %s %g", (k->bounds & B_LO_OPEN) ? ">" : ">=", k->lo);
}

static void put_int_range(char *b, size_t n, const key_spec *k)
{
    if (k->ihi == INT64_MAX)
        put(b, n, " >= %lld", k->ilo);
    else
        put(b, n, " in [%lld, %lld]", k->ilo, k->ihi);
}

/* The "expected ..." wording of a key, from its schema entry alone. */
static void put_expected(char *b, size_t n, const key_spec *k)
{
    switch (k->type) {
    case K_GROUP:
        put(b, n, "a group { key = value; ... }");
        break;
    case K_MAP:
        put(b, n, "a group { NAME = ...; } keyed by species name");
        break;
    case K_LIST:
        put(b, n, "a list of %lld to %lld groups ( { ... }, { ... } )", k->ilo, k->ihi);
        break;
    case K_FLOAT:
        put(b, n, "a number");
        put_bounds(b, n, k);
        break;
    case K_INT:
        put(b, n, "an integer");
        put_int_range(b, n, k);
        break;
    case K_STRING:
        put(b, n, "a non-empty string of at most %zu characters", k->maxlen);
        break;
    case K_NAME:
        put(b, n, "a name (a letter, then letters, digits or _) of at most %zu characters",
            k->maxlen);
        break;
    case K_ENUM:
        put(b, n, "one of");
        for (const key_choice *ch = k->choices; ch->name; ++ch)
            put(b, n, "%s\"%s\"", ch == k->choices ? " " : ", ", ch->name);
        break;
    case K_VEC3:
        put(b, n, "3 numbers [x, y, z]");
        break;
    case K_IVEC3:
        put(b, n, "3 integers [nx, ny, nz]");
        break;
    }
}

/* "KEY: expected <schema wording> (got <found>)" */
static int fail_type(const ctx *c, const config_setting_t *s, const key_spec *k,
                     const char *disp)
{
    char exp[SHOW_LEN] = "", got[SHOW_LEN] = "";
    put_expected(exp, sizeof exp, k);
    put_found(got, sizeof got, s);
    return fail(c, s, disp, "expected %s (got %s)", exp, got);
}

/* ---- Did you mean ----------------------------------------------------------------------- */

/* Edit distance (with adjacent transpositions), case-insensitive; long names give up. */
static int edit_distance(const char *a, const char *b)
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
static const char *closest(const char *name, const char *const *cand, int n)
{
    int limit = ((int)strlen(name) + 1) / 3;
    if (limit < 1)
        limit = 1;
    const char *best = NULL;
    int best_d = INT_MAX;
    for (int i = 0; i < n; ++i) {
        int d = edit_distance(name, cand[i]);
        if (d < best_d) {
            best = cand[i];
            best_d = d;
        }
    }
    return best_d <= limit ? best : NULL;
}

/* ---- Schema lookups --------------------------------------------------------------------- */

static const key_spec *find_spec(const char *pattern)
{
    for (int i = 0; i < N_SCHEMA; ++i)
        if (strcmp(SCHEMA[i].path, pattern) == 0)
            return &SCHEMA[i];
    return NULL;
}

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
    put(out, n, parent[0] ? "%s.%s" : "%s%s", parent, name);
}

/* The schema pattern of member `name` under the key with pattern `pat` and spec `k`. */
static void child_pattern(char *out, size_t n, const char *pat, const key_spec *k,
                          const char *name)
{
    join(out, n, pat, (k && k->type == K_MAP) ? "*" : name);
}

/* "DISP.NAME: unknown key (did you mean DISP.KEY?)", or the keys that would be accepted. */
static int fail_unknown(const ctx *c, const config_setting_t *site, const where *w,
                        const char *pat, const char *disp_parent, const char *name)
{
    const char *cand[N_SCHEMA];
    int n = 0;
    for (int i = 0; i < N_SCHEMA; ++i) {
        const char *leaf = leaf_name(SCHEMA[i].path);
        if (is_child(SCHEMA[i].path, pat) && strcmp(leaf, "[]") != 0 && strcmp(leaf, "*") != 0)
            cand[n++] = leaf;
    }
    const key_spec *pk = find_spec(pat);
    char key[PATH_LEN], msg[SHOW_LEN * 2] = "unknown key";
    join(key, sizeof key, disp_parent, name);
    const char *best = closest(name, cand, n);
    const char *elsewhere = NULL; /* the same name at another level: random -> dpd.random */
    for (int i = 0; i < N_SCHEMA && !best && !elsewhere; ++i)
        if (edit_distance(name, leaf_name(SCHEMA[i].path)) == 0)
            elsewhere = SCHEMA[i].path;
    if (best) {
        char sug[PATH_LEN];
        join(sug, sizeof sug, disp_parent, best);
        put(msg, sizeof msg, " (did you mean %s?)", sug);
    } else if (elsewhere) {
        put(msg, sizeof msg, " (did you mean ");
        for (const char *q = elsewhere; *q; ++q) { /* species.[].mass -> species.[N].mass */
            if (q[0] == '[' && q[1] == ']')
                put(msg, sizeof msg, "[N");
            else
                put(msg, sizeof msg, "%c", *q);
        }
        put(msg, sizeof msg, "?)");
    } else if (pk && pk->type == K_LIST) {
        put(msg, sizeof msg, " (%s is a list: write %s.[N].key)", disp_parent, disp_parent);
    } else if (n == 0) {
        put(msg, sizeof msg, " (%s takes no keys)", disp_parent);
    } else {
        put(msg, sizeof msg, " (expected one of:");
        for (int i = 0; i < n; ++i)
            put(msg, sizeof msg, "%s%s", i ? ", " : " ", cand[i]);
        put(msg, sizeof msg, ")");
    }
    if (w)
        return fail_where(c, *w, key, "%s", msg);
    return fail(c, site, key, "%s", msg);
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

/* ---- Lexer pass: @include and integer literals ------------------------------------------ */

static int digit_value(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    return tolower(ch) - 'a' + 10;
}

/* Checks one integer literal t[0..len) (sign, digits or 0x digits, optional L/LL). Returns 0
 * when fine as is, 1 when it needs an L suffix to keep its value, -1 when out of 64-bit
 * range, 2 when it is not an integer literal at all (left to libconfig). */
static int classify_integer(const char *t, size_t len)
{
    size_t i = 0, suffix = 0;
    int neg = 0, base = 10;
    if (t[i] == '+' || t[i] == '-')
        neg = t[i++] == '-';
    if (len - i > 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X')) {
        base = 16;
        i += 2;
    }
    while (suffix < len - i && t[len - 1 - suffix] == 'L')
        ++suffix;
    if (suffix > 2 || len - suffix <= i)
        return 2;
    unsigned long long v = 0;
    int over = 0;
    for (size_t j = i; j < len - suffix; ++j) {
        int ch = (unsigned char)t[j];
        if (!(base == 16 ? isxdigit(ch) : isdigit(ch)))
            return 2;
        unsigned d = (unsigned)digit_value(ch);
        if (v > (ULLONG_MAX - d) / (unsigned)base)
            over = 1;
        else
            v = v * (unsigned)base + d;
    }
    unsigned long long lim64 = neg ? (unsigned long long)INT64_MAX + 1 : INT64_MAX;
    unsigned long long lim32 = neg ? (unsigned long long)INT_MAX + 1 : INT_MAX;
    if (over || v > lim64)
        return -1;
    return (!suffix && v > lim32) ? 1 : 0;
}

/* Copies `text`, adding L to integer literals too wide for 32 bits; refuses @include and
 * literals beyond 64 bits (returns NULL with the line and the reason). Strings and comments
 * are skipped the way libconfig's scanner skips them; anything odd is left to libconfig. */
static char *prescan(const char *t, unsigned *bad_line, char *why, size_t why_len)
{
    size_t n = strlen(t);
    char *out = VS_MALLOC(n + n / 8 + 2); /* a literal needing L is 10+ characters long */
    size_t o = 0, i = 0;
    unsigned line = 1;
    int line_start = 1;
    while (t[i]) {
        char ch = t[i];
        if (ch == '\n') {
            ++line;
            line_start = 1;
            out[o++] = t[i++];
        } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
            out[o++] = t[i++];
        } else if (ch == '#' || (ch == '/' && t[i + 1] == '/')) {
            while (t[i] && t[i] != '\n')
                out[o++] = t[i++];
        } else if (ch == '/' && t[i + 1] == '*') {
            out[o++] = t[i++];
            out[o++] = t[i++];
            while (t[i] && !(t[i] == '*' && t[i + 1] == '/')) {
                line += t[i] == '\n';
                out[o++] = t[i++];
            }
            for (int k = 0; k < 2 && t[i]; ++k)
                out[o++] = t[i++];
        } else if (ch == '"') {
            out[o++] = t[i++];
            while (t[i] && t[i] != '"') {
                if (t[i] == '\\' && t[i + 1])
                    out[o++] = t[i++];
                line += t[i] == '\n';
                out[o++] = t[i++];
            }
            if (t[i])
                out[o++] = t[i++];
            line_start = 0;
        } else if (ch == '@' && line_start && strncmp(t + i, "@include", 8) == 0) {
            *bad_line = line;
            snprintf(why, why_len,
                     "@include is not supported: only rank 0 reads files, so put everything "
                     "in one file");
            free(out);
            return NULL;
        } else if (isalpha((unsigned char)ch) || ch == '*') {
            while (isalnum((unsigned char)t[i]) || t[i] == '-' || t[i] == '_' || t[i] == '*')
                out[o++] = t[i++];
            line_start = 0;
        } else if (isdigit((unsigned char)ch) ||
                   ((ch == '+' || ch == '-' || ch == '.') &&
                    (isdigit((unsigned char)t[i + 1]) ||
                     (t[i + 1] == '.' && isdigit((unsigned char)t[i + 2]))))) {
            /* One numeric token: alphanumerics and dots, plus a sign right after an exponent
             * letter of a decimal float. */
            size_t s = i++;
            int hex = 0;
            while (isalnum((unsigned char)t[i]) || t[i] == '.' ||
                   ((t[i] == '+' || t[i] == '-') && !hex && (t[i - 1] == 'e' || t[i - 1] == 'E'))) {
                if (t[i] == 'x' || t[i] == 'X')
                    hex = 1;
                ++i;
            }
            size_t len = i - s;
            memcpy(out + o, t + s, len);
            o += len;
            int kind = classify_integer(t + s, len);
            if (kind == 1) {
                out[o++] = 'L';
            } else if (kind < 0) {
                *bad_line = line;
                snprintf(why, why_len, "integer %.*s does not fit in 64 bits",
                         (int)(len > 40 ? 40 : len), t + s);
                free(out);
                return NULL;
            }
            line_start = 0;
        } else {
            out[o++] = t[i++];
            line_start = 0;
        }
    }
    out[o] = '\0';
    return out;
}

/* Parses libconfig text into `cfg` (initialised here; the caller destroys it). On failure
 * returns -1 with the line and libconfig's (or the lexer's) reason. */
static int parse_text(config_t *cfg, const char *text, unsigned *bad_line, char *why,
                      size_t why_len)
{
    config_init(cfg);
    char *clean = prescan(text, bad_line, why, why_len);
    if (!clean)
        return -1;
    int ok = config_read_string(cfg, clean);
    free(clean);
    if (ok == CONFIG_TRUE)
        return 0;
    *bad_line = (unsigned)config_error_line(cfg);
    const char *msg = config_error_text(cfg) ? config_error_text(cfg) : "unknown error";
    if (strcmp(msg, "mismatched element type in array") == 0)
        snprintf(why, why_len, "%s: write every element the same way, e.g. [16.0, 16.5, 16.0]",
                 msg);
    else
        snprintf(why, why_len, "%s", msg);
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
static int set_value(const ctx *c, where w, config_setting_t *parent, const char *name,
                     const key_spec *k, const char *disp, const char *value, int idx)
{
    if (strpbrk(value, "\n\r"))
        return fail_where(c, w, disp, "expected a value on one line");
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
        put_expected(exp, sizeof exp, k);
        put_quoted(got, sizeof got, value);
        return fail_where(c, w, disp, "expected %s (got %s: %s)", exp, got, why);
    }
    config_setting_remove(parent, name);
    if (k->rival) /* --set density=... replaces a particles count, and the other way round */
        config_setting_remove(parent, k->rival);
    config_setting_t *d = copy_setting(parent, name, v);
    config_destroy(&tmp);
    if (!d)
        return fail_where(c, w, disp, "cannot be set (libconfig refused the name)");
    config_setting_set_hook(d, (void *)(intptr_t)(idx + 1));
    return 0;
}

/* Applies sets[idx] to the tree: resolves the path through the schema (unknown keys fail
 * here, with a did-you-mean), creates missing groups, replaces the value. The value itself is
 * checked later with everything else. */
static int apply_set(const ctx *c, config_t *cfg, int idx)
{
    const char *arg = c->sets[idx];
    where w = {idx, 0};
    const char *eq = arg ? strchr(arg, '=') : NULL;
    if (!eq)
        return fail_where(c, w, NULL, "expected key=value (got no '=')");
    char key[PATH_LEN];
    size_t klen = (size_t)(eq - arg);
    set_part parts[MAX_PARTS];
    int n_parts = 0;
    if (klen >= sizeof key)
        return fail_where(c, w, NULL, "expected key=value with a key shorter than %d characters",
                          PATH_LEN);
    memcpy(key, arg, klen);
    key[klen] = '\0';
    if (split_key(key, parts, &n_parts))
        return fail_where(c, w, NULL,
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
            put(ndisp, sizeof ndisp, ".[%d]", parts[i].index);
            if (!k || k->type != K_LIST)
                return fail_where(c, w, ndisp, "cannot set one element; set the whole value "
                                  "(%s=...)", disp[0] ? disp : key);
            if (last)
                return fail_where(c, w, ndisp, "cannot set a whole element; set a key inside it "
                                  "(%s.KEY=...) or the whole list (%s=(...))", ndisp, disp);
            snprintf(npat, sizeof npat, "%s", pat);
            put(npat, sizeof npat, ".[]");
            int len = cur ? config_setting_length(cur) : 0;
            if (!cur || parts[i].index >= len)
                return fail_where(c, w, ndisp, "no such element (%s has %d)", disp, len);
            cur = config_setting_get_elem(cur, (unsigned)parts[i].index);
            k = find_spec(npat);
        } else {
            child_pattern(npat, sizeof npat, pat, k, parts[i].name);
            join(ndisp, sizeof ndisp, disp, parts[i].name);
            const key_spec *nk = find_spec(npat);
            if (!nk)
                return fail_unknown(c, NULL, &w, pat, disp, parts[i].name);
            if (cur && !config_setting_is_group(cur))
                return fail_type(c, cur, k, disp);
            if (last) {
                if (!cur)
                    return fail_where(c, w, ndisp, "cannot be set here");
                return set_value(c, w, cur, parts[i].name, nk, ndisp, value, idx);
            }
            config_setting_t *next = member(cur, parts[i].name);
            if (!next && (nk->type == K_GROUP || nk->type == K_MAP)) {
                /* A group the --set brings in: errors about it point at the --set. */
                next = config_setting_add(cur, parts[i].name, CONFIG_TYPE_GROUP);
                if (!next)
                    return fail_where(c, w, ndisp, "cannot be set (libconfig refused the name)");
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

static int check_setting(const ctx *c, config_setting_t *s, const key_spec *k, const char *disp,
                         const char *pat);

static int check_number(const ctx *c, const config_setting_t *s, const key_spec *k,
                        const char *disp)
{
    if (!config_setting_is_number(s))
        return fail_type(c, s, k, disp);
    double v = as_double(s);
    char exp[SHOW_LEN] = "", got[48];
    if (!isfinite(v)) {
        put(exp, sizeof exp, "a finite number");
        put_bounds(exp, sizeof exp, k);
        fmt_double(got, sizeof got, v);
        return fail(c, s, disp, "expected %s (got %s)", exp, got);
    }
    int low = (k->bounds & B_LO) && ((k->bounds & B_LO_OPEN) ? !(v > k->lo) : !(v >= k->lo));
    int high = (k->bounds & B_HI) && !(v <= k->hi);
    if (low || high)
        return fail_type(c, s, k, disp);
    return 0;
}

static int check_integer(const ctx *c, const config_setting_t *s, const key_spec *k,
                         const char *disp, long long lo, long long hi)
{
    if (!is_int_type(s) || as_int(s) < lo || as_int(s) > hi)
        return fail_type(c, s, k, disp);
    return 0;
}

static int check_vec3(const ctx *c, const config_setting_t *s, const key_spec *k,
                      const char *disp)
{
    int t = config_setting_type(s);
    if ((t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) || config_setting_length(s) != 3)
        return fail_type(c, s, k, disp);
    for (unsigned i = 0; i < 3; ++i) {
        const config_setting_t *e = config_setting_get_elem(s, i);
        char edisp[PATH_LEN];
        snprintf(edisp, sizeof edisp, "%s.[%u]", disp, i);
        key_spec ek = *k; /* the element: a number or integer with the same bounds */
        ek.type = k->type == K_VEC3 ? K_FLOAT : K_INT;
        int rc = ek.type == K_FLOAT ? check_number(c, e, &ek, edisp)
                                    : check_integer(c, e, &ek, edisp, k->ilo, k->ihi);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_string(const ctx *c, const config_setting_t *s, const key_spec *k,
                        const char *disp)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return fail_type(c, s, k, disp);
    const char *v = config_setting_get_string(s);
    size_t len = strlen(v);
    if (len == 0 || len > k->maxlen || (k->type == K_NAME && !is_species_name(v)))
        return fail_type(c, s, k, disp);
    if (k->type == K_ENUM) {
        const char *names[8];
        int n = 0;
        for (const key_choice *ch = k->choices; ch->name && n < 8; ++ch) {
            if (strcmp(ch->name, v) == 0)
                return 0;
            names[n++] = ch->name;
        }
        char exp[SHOW_LEN] = "", got[SHOW_LEN] = "";
        put_expected(exp, sizeof exp, k);
        put_quoted(got, sizeof got, v);
        const char *best = closest(v, names, n);
        if (best)
            put(got, sizeof got, "; did you mean \"%s\"?", best);
        return fail(c, s, disp, "expected %s (got %s)", exp, got);
    }
    return 0;
}

/* A group: every member known and valid, every required member present. */
static int check_group(const ctx *c, config_setting_t *g, const key_spec *k, const char *disp,
                       const char *pat)
{
    if (!config_setting_is_group(g))
        return fail_type(c, g, k, disp);
    int n = config_setting_length(g);
    for (int i = 0; i < n; ++i) {
        config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(m);
        char cpat[PATH_LEN], cdisp[PATH_LEN];
        child_pattern(cpat, sizeof cpat, pat, k, name);
        join(cdisp, sizeof cdisp, disp, name);
        const key_spec *ck = find_spec(cpat);
        if (!ck)
            return fail_unknown(c, m, NULL, pat, disp, name);
        if (ck->rival) {
            const config_setting_t *r = member(g, ck->rival);
            if (r && config_setting_index(r) < i) {
                char rdisp[PATH_LEN];
                join(rdisp, sizeof rdisp, disp, ck->rival);
                return fail(c, m, cdisp, "expected only one of %s and %s (got both)", rdisp,
                            cdisp);
            }
        }
        int rc = check_setting(c, m, ck, cdisp, cpat);
        if (rc)
            return rc;
    }
    /* Required members, in schema order; the report points at the enclosing group. */
    for (int i = 0; i < N_SCHEMA; ++i) {
        const key_spec *ck = &SCHEMA[i];
        if (!is_child(ck->path, pat) || ck->need == OPTIONAL)
            continue;
        const char *name = leaf_name(ck->path);
        if (member(g, name))
            continue;
        char cdisp[PATH_LEN];
        join(cdisp, sizeof cdisp, disp, name);
        if (ck->need == REQUIRED)
            return fail(c, g, cdisp, "required key is missing");
        if (ck->need == REQUIRED_UNLESS_RIVAL && !member(g, ck->rival))
            return fail(c, g, cdisp, "required key is missing (give %s or %s)", name, ck->rival);
        if (ck->need == REQUIRED_IF_SEVERAL) {
            const config_setting_t *list = config_setting_parent(g);
            if (list && config_setting_length(list) > 1) {
                char ldisp[PATH_LEN];
                snprintf(ldisp, sizeof ldisp, "%s", disp);
                char *br = strrchr(ldisp, '.');
                if (br)
                    *br = '\0';
                return fail(c, g, cdisp, "required key is missing (%s has more than one element)",
                            ldisp);
            }
        }
    }
    return 0;
}

static int check_setting(const ctx *c, config_setting_t *s, const key_spec *k, const char *disp,
                         const char *pat)
{
    switch (k->type) {
    case K_GROUP:
    case K_MAP:
        return check_group(c, s, k, disp, pat);
    case K_LIST: {
        int len = config_setting_is_aggregate(s) ? config_setting_length(s) : 0;
        if (config_setting_type(s) != CONFIG_TYPE_LIST || len < k->ilo || len > k->ihi)
            return fail_type(c, s, k, disp);
        char epat[PATH_LEN];
        snprintf(epat, sizeof epat, "%s.[]", pat);
        const key_spec *ek = find_spec(epat);
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
        return check_vec3(c, s, k, disp);
    }
    return 0;
}

/* ---- Defaults --------------------------------------------------------------------------- */

/* Adds every absent key that has a default, under group `g` of pattern `pat`, creating
 * optional groups on the way. Runs after the per-key pass, so the tree is well formed. */
static int fill_defaults(const ctx *c, config_setting_t *g, const char *pat)
{
    for (int i = 0; i < N_SCHEMA; ++i) {
        const key_spec *k = &SCHEMA[i];
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
                return fail_where(c, (where){-1, 0}, k->path, "internal error: bad default %s",
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

static double num_at(const config_setting_t *root, const char *path)
{
    return as_double(at(root, path));
}

static void vec_at(const config_setting_t *s, double v[3])
{
    for (unsigned i = 0; i < 3; ++i)
        v[i] = as_double(config_setting_get_elem(s, i));
}

static int choice_at(const config_setting_t *root, const char *path)
{
    const key_spec *k = find_spec(path);
    const char *v = config_setting_get_string(at(root, path));
    for (const key_choice *ch = k->choices; ch->name; ++ch)
        if (strcmp(ch->name, v) == 0)
            return ch->value;
    return k->choices[0].value; /* not reached: the per-key pass checked the choice */
}

static int species_index(const vs_params *p, const char *name)
{
    for (int i = 0; i < p->n_species; ++i)
        if (strcmp(p->species[i].name, name) == 0)
            return i;
    return -1;
}

static int fail_unknown_species(const ctx *c, const config_setting_t *s, const char *key,
                                const char *parent, const vs_params *p)
{
    const char *names[VS_MAX_SPECIES] = {NULL};
    for (int i = 0; i < p->n_species; ++i)
        names[i] = p->species[i].name;
    const char *best = closest(config_setting_name(s), names, p->n_species);
    if (best)
        return fail(c, s, key, "unknown species (did you mean %s.%s?)", parent, best);
    char list[SHOW_LEN] = "";
    for (int i = 0; i < p->n_species; ++i)
        put(list, sizeof list, "%s%s", i ? ", " : "", names[i]);
    return fail(c, s, key, "unknown species (the species are %s)", list);
}

static int extract_species(const ctx *c, const config_setting_t *root, vs_params *p)
{
    const config_setting_t *list = member(root, "species");
    p->n_species = config_setting_length(list);
    double sum = 0.0;
    const config_setting_t *sites[VS_MAX_SPECIES + 1] = {list};
    for (int i = 0; i < p->n_species; ++i) {
        const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
        const config_setting_t *name = member(e, "name");
        vs_species *sp = &p->species[i];
        snprintf(sp->name, sizeof sp->name, "%s", config_setting_get_string(name));
        for (int j = 0; j < i; ++j)
            if (strcmp(p->species[j].name, sp->name) == 0) {
                char key[PATH_LEN];
                snprintf(key, sizeof key, "species.[%d].name", i);
                return fail(c, name, key, "expected a name no other species uses (got \"%s\", "
                            "as species.[%d].name)", sp->name, j);
            }
        sp->mass = as_double(member(e, "mass"));
        sp->fraction = as_double(member(e, "fraction"));
        vec_at(member(e, "body_force"), sp->body_force);
        sum += sp->fraction;
        sites[i + 1] = member(e, "fraction");
    }
    if (!(fabs(sum - 1.0) <= 1e-9)) {
        char got[48];
        fmt_double(got, sizeof got, sum);
        return fail(c, pick_site(sites, p->n_species + 1), "species",
                    "expected fractions summing to 1 within 1e-9 (got a sum of %s)", got);
    }
    return 0;
}

static int extract_matrix(const ctx *c, const config_setting_t *root, vs_params *p)
{
    const config_setting_t *a = at(root, "dpd.a");
    const config_setting_t *e[VS_MAX_SPECIES][VS_MAX_SPECIES] = {{NULL}};
    for (int r = 0; r < config_setting_length(a); ++r) {
        const config_setting_t *row = config_setting_get_elem(a, (unsigned)r);
        char rkey[PATH_LEN];
        snprintf(rkey, sizeof rkey, "dpd.a.%s", config_setting_name(row));
        int i = species_index(p, config_setting_name(row));
        if (i < 0)
            return fail_unknown_species(c, row, rkey, "dpd.a", p);
        for (int q = 0; q < config_setting_length(row); ++q) {
            const config_setting_t *v = config_setting_get_elem(row, (unsigned)q);
            char key[PATH_LEN];
            snprintf(key, sizeof key, "%s", rkey);
            put(key, sizeof key, ".%s", config_setting_name(v));
            int j = species_index(p, config_setting_name(v));
            if (j < 0)
                return fail_unknown_species(c, v, key, rkey, p);
            e[i][j] = v;
        }
    }
    for (int i = 0; i < p->n_species; ++i)
        for (int j = 0; j < p->n_species; ++j) {
            if (e[i][j])
                continue;
            const config_setting_t *row = member(a, p->species[i].name);
            char key[PATH_LEN];
            snprintf(key, sizeof key, "dpd.a.%s.%s", p->species[i].name, p->species[j].name);
            return fail(c, row ? row : a, key,
                        "required key is missing (dpd.a needs a value for every pair of "
                        "species)");
        }
    for (int i = 0; i < p->n_species; ++i)
        for (int j = 0; j < p->n_species; ++j)
            p->a[i][j] = as_double(e[i][j]);
    for (int i = 0; i < p->n_species; ++i)
        for (int j = i + 1; j < p->n_species; ++j) {
            if (p->a[i][j] == p->a[j][i])
                continue;
            /* Report at the override if one is involved, else at the later line. */
            const config_setting_t *two[2] = {e[j][i], e[i][j]};
            if (config_setting_source_line(e[i][j]) > config_setting_source_line(e[j][i])) {
                two[0] = e[i][j];
                two[1] = e[j][i];
            }
            const config_setting_t *site = pick_site(two, 2);
            const config_setting_t *other = site == e[i][j] ? e[j][i] : e[i][j];
            char key[PATH_LEN], okey[PATH_LEN], want[48] = "", got[48] = "";
            snprintf(key, sizeof key, "dpd.a.%s.%s",
                     config_setting_name(config_setting_parent(site)), config_setting_name(site));
            snprintf(okey, sizeof okey, "dpd.a.%s.%s",
                     config_setting_name(config_setting_parent(other)), config_setting_name(other));
            put_value(want, sizeof want, other);
            put_value(got, sizeof got, site);
            return fail(c, site, key, "expected %s, the value of %s, since a_ij is symmetric "
                        "(got %s)", want, okey, got);
        }
    return 0;
}

static int extract(const ctx *c, const config_setting_t *root, vs_params *p)
{
    int rc = extract_species(c, root, p);
    if (rc)
        return rc;
    if ((rc = extract_matrix(c, root, p)))
        return rc;

    p->gamma = num_at(root, "dpd.gamma");
    p->kT = num_at(root, "dpd.kT");
    p->rc = num_at(root, "dpd.rc");
    p->s = num_at(root, "dpd.s");
    p->random = (vs_random_kind)choice_at(root, "dpd.random");
    p->dt = num_at(root, "integrator.dt");
    p->lambda = num_at(root, "integrator.lambda");
    p->steps = as_int(at(root, "integrator.steps"));
    p->skin = num_at(root, "neighbor.skin");
    p->gpu_builder = (vs_gpu_builder_kind)choice_at(root, "neighbor.gpu_builder");
    p->transport = (vs_transport_kind)choice_at(root, "comm.transport");
    p->overlap = choice_at(root, "comm.overlap");
    p->backend = (vs_backend_kind)choice_at(root, "backend");
    p->precision = (vs_precision_kind)choice_at(root, "precision");
    if (p->gpu_builder == VS_GPU_BUILDER_AUTO) /* the faster for the precision */
        p->gpu_builder =
            p->precision == VS_PRECISION_MIXED ? VS_GPU_BUILDER_CELLS : VS_GPU_BUILDER_THREAD;
    p->seed = (uint64_t)as_int(at(root, "seed"));
    p->thermo_interval = as_int(at(root, "output.thermo_interval"));
    p->trajectory_interval = as_int(at(root, "output.trajectory_interval"));
    p->checkpoint_interval = as_int(at(root, "output.checkpoint_interval"));
    p->checkpoint_keep = as_int(at(root, "output.checkpoint_keep"));
    p->walltime = num_at(root, "run.walltime");
    snprintf(p->output_dir, sizeof p->output_dir, "%s",
             config_setting_get_string(at(root, "output.dir")));

    const config_setting_t *box = at(root, "box");
    vec_at(box, p->box);
    if (!(p->box[0] >= 2 * p->rc && p->box[1] >= 2 * p->rc && p->box[2] >= 2 * p->rc)) {
        const config_setting_t *two[2] = {box, at(root, "dpd.rc")};
        char rc2[48], got[SHOW_LEN] = "";
        fmt_double(rc2, sizeof rc2, 2 * p->rc);
        put_value(got, sizeof got, box);
        return fail(c, pick_site(two, 2), "box",
                    "expected each side >= 2 * dpd.rc = %s (got %s)", rc2, got);
    }

    const config_setting_t *dec = at(root, "decomposition");
    int zeros = 0;
    for (unsigned i = 0; i < 3; ++i) {
        p->decomposition[i] = (int)as_int(config_setting_get_elem(dec, i));
        zeros += p->decomposition[i] == 0;
    }
    if (zeros != 0 && zeros != 3) {
        char got[SHOW_LEN] = "";
        put_value(got, sizeof got, dec);
        return fail(c, dec, "decomposition",
                    "expected all 0 (automatic) or all >= 1 (got %s)", got);
    }

    double volume = p->box[0] * p->box[1] * p->box[2];
    const config_setting_t *dens = member(root, "density");
    if (dens) {
        double want = as_double(dens) * volume;
        char d[48], vol[48];
        fmt_double(d, sizeof d, as_double(dens));
        fmt_double(vol, sizeof vol, volume);
        if (!(want < 9.2e18))
            return fail(c, dens, "density",
                        "expected density * volume below 9.2e18 particles (got %s in volume %s)",
                        d, vol);
        p->n_particles = llround(want);
        if (p->n_particles < 1)
            return fail(c, dens, "density",
                        "expected density * volume to round to at least 1 particle (got %s in "
                        "volume %s)", d, vol);
    } else {
        p->n_particles = as_int(member(root, "particles"));
    }
    p->density = (double)p->n_particles / volume;
    return 0;
}

/* ---- Entry points ----------------------------------------------------------------------- */

/* Everything after the parse: overrides, per-key checks, defaults, cross checks. */
static int validate(const ctx *c, config_t *cfg, int n_sets, vs_params *out)
{
    int rc = 0;
    for (int i = 0; i < n_sets && !rc; ++i)
        rc = apply_set(c, cfg, i);
    if (rc)
        return rc;
    config_setting_t *root = config_root_setting(cfg);
    if ((rc = check_group(c, root, NULL, "", "")))
        return rc;
    if ((rc = fill_defaults(c, root, "")))
        return rc;
    vs_params p;
    memset(&p, 0, sizeof p);
    if ((rc = extract(c, root, &p)))
        return rc;
    memcpy(out, &p, sizeof p); /* every byte, so ranks can compare results bytewise */
    return 0;
}

int vs_config_parse(const char *text, const char *filename, const char *const *sets,
                    int n_sets, vs_params *out, char *err, size_t err_len)
{
    ctx c = {filename, sets, err, err_len};
    if (err && err_len)
        err[0] = '\0';
    if (!text)
        return fail_where(&c, (where){-1, 0}, NULL, "no configuration text");
    if (!out || n_sets < 0 || (n_sets > 0 && !sets))
        return fail_where(&c, (where){-1, 0}, NULL, "internal error: bad arguments");

    config_t cfg;
    unsigned line = 0;
    char why[SHOW_LEN];
    int rc;
    if (parse_text(&cfg, text, &line, why, sizeof why))
        rc = fail_where(&c, (where){-1, line}, NULL, "syntax error (%s)", why);
    else
        rc = validate(&c, &cfg, n_sets, out);
    config_destroy(&cfg);
    return rc;
}
