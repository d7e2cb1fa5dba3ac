/* The tables of the table pair style: files in the LAMMPS pair table format, as IBI
 * workflows (VOTCA, ...) write them:
 *
 *   # comments
 *   KEYWORD
 *   N n [R rlo rhi] [FP fplo fphi]
 *   (blank)
 *   1 r_1 U_1 F_1
 *   ...
 *   n r_n U_n F_n
 *
 * one section per keyword, r on a uniform grid (R: r_k = rlo + (k - 1)(rhi - rlo)/(n - 1)
 * instead of the column), F = -dU/dr. Rank 0 reads the file; the tables reach every rank. */
#ifndef VESICA_PAIR_TABLE_H
#define VESICA_PAIR_TABLE_H

#include <stddef.h>

#include "parallel.h"
#include "params.h"

/* The section `keyword` of the file text (named `path` in messages) into t, splined. Returns
 * 0, or -1 with one line in err ("PATH:LINE: pair table KEYWORD: expected ... (got ...)"). */
int vs_pair_table_parse(const char *path, const char *text, const char *keyword,
                        vs_pair_table *t, char *err, size_t err_len);

/* Every table p names (p->pair.set->table_keyword) from p->pair.set->style[VS_PAIR_TABLE].file,
 * read on rank 0 of `par` and sent to all; then the table style's pairs finished: the cut-off
 * (default the table's last r), the shift, the reach. Collective. Returns 0, or -1 with one line in
 * err on every rank. Nothing to do without the table style. */
int vs_pair_tables_load(const vs_par *par, vs_params *p, char *err, size_t err_len);

#endif
