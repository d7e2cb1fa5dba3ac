/* The Monte Carlo run's closing lines and summary file (output.dir/mc_summary.h5): the block
 * averages of the production rows (src/engine/mc/mc_stats.h says how), the Gibbs
 * coexistence summary, the grand canonical histograms. */
#ifndef VESICA_RUN_MC_SUMMARY_H
#define VESICA_RUN_MC_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

#include "mc_engine.h"
#include "mc_stats.h"

/* The composition columns of thermo.csv (vs_mc_has_composition: gibbs_npt mixtures), the
 * last of a row: n_NAME_B, the particles of species NAME in box B, species by species for
 * box 0, then box 1. Nothing where the run has none. */
void vs_run_mc_composition_header(FILE *f, const vs_mc_state *s);
void vs_run_mc_composition_row(FILE *f, const vs_mc_state *s, const vs_mc_row *r);
/* The counts of a kept thermo line's last columns into r. Returns 0, or -1 (too few). */
int vs_run_mc_composition_read(const char *line, const vs_mc_state *s, vs_mc_row *r);

/* Log the acceptances and the averages, write mc_summary.h5. Returns 0, or -1 with err. */
int vs_run_mc_summary(const vs_mc_state *s, const vs_mc_series *series, char *err,
                      size_t err_len);

#endif
