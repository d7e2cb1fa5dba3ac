/* The Monte Carlo run's closing lines and summary file (output.dir/mc_summary.h5): the block
 * averages of the production rows (src/engine/mc/mc_stats.h says how), the Gibbs
 * coexistence summary, the grand canonical histograms. */
#ifndef VESICA_RUN_MC_SUMMARY_H
#define VESICA_RUN_MC_SUMMARY_H

#include <stddef.h>

#include "mc_engine.h"
#include "mc_stats.h"

/* Log the acceptances and the averages, write mc_summary.h5. Returns 0, or -1 with err. */
int vs_run_mc_summary(const vs_mc_state *s, const vs_mc_series *series, char *err,
                      size_t err_len);

#endif
