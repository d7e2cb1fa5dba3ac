/* The coefficients of the conservative pair styles (pair_styles.h), per species pair, and
 * their tables: the types every style's header reads. */
#ifndef VESICA_PAIR_COEFF_H
#define VESICA_PAIR_COEFF_H

#include <math.h>
#include <stddef.h>

#include "dpd_pair.h" /* vs_pair_result, vs_pair_result_f */
#include "hostdevice.h"

#define VS_MAX_TABLES 8               /* tables of all species pairs together */
#define VS_PAIR_TABLE_MAX_POINTS 1024 /* points per table */
#define VS_PAIR_MAX_KEYS 4            /* given coefficients of a style (rc aside) */

/* The coefficients of one style for one pair of species (on = 0: no interaction). */
typedef struct {
    int on;
    int table;       /* table: index into the tables */
    double rc, rc2;  /* cut-off */
    double k[4];     /* derived constants: the style's setup (its header) fills them */
    double shift;    /* U(rc) subtracted from the energy (0: not shifted) */
    /* The coefficients as given (reports, tail corrections): slot q holds the style's key q
     * (VS_PAIR_INFO_<name> of its header). The names are lj's and gaussian's. */
    union {
        struct {
            double eps, sigma, alpha;
        };
        double given[VS_PAIR_MAX_KEYS];
    };
} vs_pair_coeff;

/* A species pair's coefficients for the float bodies (the GPU's mixed walk from both sides):
 * k and shift rounded to float once, as every body's (REAL) casts round them at each use, so
 * the bodies give the same bits from either and convert nothing per pair; rc2 stays double
 * (that walk's cut-off test is in fp64). */
typedef struct {
    int on;
    int table;
    double rc2;
    float k[4];
    float shift;
} vs_pair_coeff_f;

VS_HOST_DEVICE vs_pair_coeff_f vs_pair_coeff_rounded(const vs_pair_coeff *c)
{
    vs_pair_coeff_f r;
    r.on = c->on;
    r.table = c->table;
    r.rc2 = c->rc2;
    for (int q = 0; q < 4; ++q)
        r.k[q] = (float)c->k[q];
    r.shift = (float)c->shift;
    return r;
}

/* What a style declares beyond its body (VS_PAIR_INFO_<name> of its header), collected from
 * VS_PAIR_STYLE_LIST into vs_pair_styles (pair_setup.c) for the parser, the report and the
 * set-up. */
enum {
    VS_PAIR_SHIFTS = 1, /* shift = "on" subtracts U(rc) */
    VS_PAIR_WCA = 2,    /* wca = "on": rc = 2^(1/6) given[1] (sigma), shifted */
    VS_PAIR_TAIL = 4,   /* tail = "on": long-range corrections (.tail) */
    VS_PAIR_FILE = 8    /* reads its tables from pair.[].file, key "table" per pair */
};
typedef struct {
    const char *name;                   /* the list's name */
    const char *keys[VS_PAIR_MAX_KEYS]; /* required numeric keys: key q lands in given[q] (NULL: no key) */
    void (*setup)(vs_pair_coeff *c);    /* k from given and rc (NULL: none) */
    /* energy and virial tail integrals of pair c, each times pre (VS_PAIR_TAIL) */
    void (*tail)(const vs_pair_coeff *c, double pre, double *energy, double *virial);
    /* the style's own limits on a pair's given coefficients (NULL: the keys' ranges only):
     * -1 when good, else the slot of the key at fault and the expectation in why */
    int (*check)(const vs_pair_coeff *c, int tail, char *why, size_t len);
    unsigned flags;
} vs_pair_style_info;

/* One tabulated potential: n points r0 + k dr; e, f the file's energies and forces, e2 and
 * f2 their splines' second derivatives times dr^2 / 6. */
typedef struct {
    int n;
    double r0, dr, inv_dr;
    double e[VS_PAIR_TABLE_MAX_POINTS], e2[VS_PAIR_TABLE_MAX_POINTS];
    double f[VS_PAIR_TABLE_MAX_POINTS], f2[VS_PAIR_TABLE_MAX_POINTS];
} vs_pair_table;

#endif
