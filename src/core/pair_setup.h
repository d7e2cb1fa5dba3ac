/* Host-side set-up of the conservative pair styles (pair_styles.h has the evaluators): style
 * names, the derived constants of a pair's coefficients, the splines of a table, and the
 * long-range (tail) corrections of lj and mie. */
#ifndef VESICA_PAIR_SETUP_H
#define VESICA_PAIR_SETUP_H

#include <stdint.h>

#include "params.h"
#include "pair_styles.h"

/* What each style declares (its header's VS_PAIR_INFO), indexed by style. */
extern const vs_pair_style_info vs_pair_styles[VS_PAIR_STYLES];

/* The style's name in VS_PAIR_STYLE_LIST ("?" out of range); and back (-1: none). */
const char *vs_pair_style_name(int style);
int vs_pair_style_by_name(const char *name);

/* From c->rc and the given coefficients (table: c->table set, its table splined): the
 * derived constants (the style's setup), rc2, and with `shift` the energy at rc to subtract
 * (styles with VS_PAIR_SHIFTS). */
void vs_pair_coeff_finish(int style, vs_pair_coeff *c, int shift, const vs_pair_table *tables);

/* The splines of a table whose n, r0, dr, e and f are filled; the force's end slopes fp_lo,
 * fp_hi when have_fp (a file's FP keyword), else its end secants. */
void vs_pair_table_spline(vs_pair_table *t, int have_fp, double fp_lo, double fp_hi);

/* p->pair.code from the active styles' options and coefficients and the tables' contents
 * (not the file's name): the physics key that a restart compares. 0 without pair styles. */
void vs_pair_set_code(vs_params *p);

/* The tail corrections of the whole system (zero unless a style with VS_PAIR_TAIL has tail
 * on): with count[s] particles of species s in `volume`, the energy 2 pi / V sum_ij N_i N_j
 * int_rc^inf r^2 U dr and the virial -2 pi / V sum_ij N_i N_j int_rc^inf r^3 U' dr (U the
 * unshifted form), so that the pressure gains virial / (3 V). */
/* Whether an active style with tail corrections (VS_PAIR_TAIL) has tail on. */
int vs_pair_tail_on(const vs_params *p);

void vs_pair_tail(const vs_params *p, const int64_t *count, double volume, double *energy,
                  double *virial);

#endif
