/* The parameter schema: one table naming every key Vesica reads (param_schema.c), and the
 * types that describe a key. Each key is declared once, in its row: type, range, default,
 * meaning, where its value lands in vs_params, and whether it is a physics key that a
 * restart must match (with its place in their order and its checkpoint attribute).
 *
 * The table lives in core, below the configuration parser (app) that checks and extracts
 * the keys, because core's physics keys (physics_keys.c: the restart comparison and hash)
 * and the checkpoints (io) read it too, and a layer may include only those below it.
 */
#ifndef VESICA_PARAM_SCHEMA_H
#define VESICA_PARAM_SCHEMA_H

#include <stddef.h>

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
    K_IVEC3,  /* 3 integers */
    K_FLOATS, /* [a, b, ...]: ilo to ihi numbers within the bounds */
    K_FLOAT_OR_MAP /* a number within the bounds (every species pair), or a K_MAP of K_MAPs
                      of numbers, one per species pair (dpd.gamma; the rows "KEY.*" and
                      "KEY.*.*" give the bounds and meaning of the matrix form) */
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

/* Where a key's value lands. */
typedef enum {
    LAND_NONE = 0, /* nowhere by itself (groups, lists, keys that only steer other values) */
    LAND_AUTO,     /* copied by config.c's one loop: K_FLOAT into a double, K_INT into an
                      int64_t (or an int), K_ENUM's value into an int, K_STRING into a
                      char array, K_VEC3 into double[3], K_IVEC3 into int[3] */
    LAND_OWN       /* filled by dedicated code (checks across keys, lists, names); offset
                      and size still say where, for the physics keys */
} key_land;

/* How a physics key's value is held, compared (as doubles, bit for bit) and stored. */
typedef enum {
    VS_PHYS_REAL,   /* `count` doubles; stored as doubles */
    VS_PHYS_INT64,  /* an int64_t, compared as a double; stored as a 64-bit integer */
    VS_PHYS_SEED,   /* the uint64_t seed, compared as its two 32-bit halves (both under the key's
                       name, high half first); stored as a 64-bit integer */
    VS_PHYS_ENUM,   /* an enum member (int-sized), compared as a double; stored as a 64-bit
                       integer */
    VS_PHYS_COUNT,  /* the int species.n, compared as a double; not stored: a checkpoint's count
                       is the length of its species names */
    VS_PHYS_NAME,   /* per species: the name, compared through a hash of its bytes; stored as a
                       fixed-length string array */
    VS_PHYS_MATRIX, /* the n x n doubles of dpd.a, compared row by row as dpd.a.I.J; stored
                       row-major as one array */
    VS_PHYS_PAIR_REAL /* a vs_pair_real (dpd.gamma): while both sides hold one value for every
                         pair, compared and stored as that one double (as a plain number was
                         before the matrix form existed); else as VS_PHYS_MATRIX */
} vs_physics_kind;

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
    int with_input;              /* WI_*: how the key stands when the configuration has input */
    key_land land;               /* where the value lands: */
    size_t offset, size;         /* in vs_params (species.[] rows: in vs_species) */
    int physics;                 /* > 0: a physics key, the physics_keys.c order (1, 2, ...) */
    const char *stored;          /* physics: the checkpoint's attribute; NULL: not stored */
    vs_physics_kind phys_kind;   /* physics: how the value is compared and stored */
} key_spec;

/* key_spec.with_input: keys an input file (the input group) makes moot. */
enum {
    WI_ANY = 0,     /* as without input */
    WI_REFUSED = 1, /* the file gives it: refused with input, required only without */
    WI_OPTIONAL = 2 /* not required with input (and not used) */
};

/* Every key Vesica reads, in the order the documentation lists them. */
extern const key_spec vs_config_schema[];
extern const int vs_config_schema_count;
/* An upper bound on vs_config_schema_count, for arrays of candidates (checked at compile
 * time in param_schema.c). */
#define VS_CONFIG_SCHEMA_MAX 384

/* The row of a path (with "[]" and "*" as in the table), or NULL. */
const key_spec *vs_schema_find(const char *path);

#endif
