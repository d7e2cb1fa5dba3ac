/* The configuration schema: one table naming every key Vesica reads (config_schema.c), and
 * the types that describe a key. Internal to the configuration module (config.c and its
 * helpers); other layers see only config.h.
 */
#ifndef VESICA_CONFIG_SCHEMA_H
#define VESICA_CONFIG_SCHEMA_H

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
    K_FLOATS  /* [a, b, ...]: ilo to ihi numbers within the bounds */
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
    int with_input;              /* WI_*: how the key stands when the configuration has input */
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
 * time in config_schema.c). */
#define VS_CONFIG_SCHEMA_MAX 192

#endif
