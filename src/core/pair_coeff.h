/* The coefficients of the conservative pair styles (pair_styles.h), per species pair, and
 * their tables: the types every style's header reads. */
#ifndef VESICA_PAIR_COEFF_H
#define VESICA_PAIR_COEFF_H

#include <math.h>

#include "dpd_pair.h" /* vs_pair_result, vs_pair_result_f */
#include "hostdevice.h"

#define VS_MAX_TABLES 8               /* tables of all species pairs together */
#define VS_PAIR_TABLE_MAX_POINTS 1024 /* points per table */

/* The coefficients of one style for one pair of species (on = 0: no interaction). */
typedef struct {
    int on;
    int table;       /* table: index into the tables */
    double rc, rc2;  /* cut-off */
    /* derived constants (pair_setup.c), per style:
     *   lj: k = {48 eps sigma^12, 24 eps sigma^6, 4 eps sigma^12, 4 eps sigma^6}
     *   soft: k = {alpha, 1 / rc, 2 alpha / rc}
     *   gaussian: k = {eps, 1 / (2 sigma^2), 1 / sigma^2} */
    double k[4];
    double shift;    /* U(rc) subtracted from the energy (0: not shifted) */
    double eps, sigma, alpha; /* as given (reports, tail corrections) */
} vs_pair_coeff;

/* One tabulated potential: n points r0 + k dr; e, f the file's energies and forces, e2 and
 * f2 their splines' second derivatives times dr^2 / 6. */
typedef struct {
    int n;
    double r0, dr, inv_dr;
    double e[VS_PAIR_TABLE_MAX_POINTS], e2[VS_PAIR_TABLE_MAX_POINTS];
    double f[VS_PAIR_TABLE_MAX_POINTS], f2[VS_PAIR_TABLE_MAX_POINTS];
} vs_pair_table;

#endif
