/* The Monte Carlo run's closing statistics: block averages with block errors of each box's
 * observables, the Gibbs ensemble's coexistence summary, and the grand canonical histograms
 * of N and of (N, E), all over the production rows of thermo.csv (the rows after
 * mc.equilibration), so they are a function of that file: a restart rebuilds the series from
 * the rows it keeps and reaches the same numbers as a run that never stopped.
 *
 * The block method: the R rows are cut into B = mc.blocks consecutive blocks, row k (0-based)
 * in block floor(k B / R), so the sizes differ by at most one and every row counts. A quantity
 * f of the means of some series (a plain mean, or a ratio such as <U>/<N>) is estimated from
 * the means over all rows, and its error is the spread of its B block values:
 *     error = sqrt(sum_b (f_b - mean_b f_b)^2 / (B (B - 1))),
 * the standard error of the mean when the blocks are longer than the correlation time of the
 * series (a block count too large for the rows underestimates it; R < 2 B gives no error).
 *
 * Gibbs: in each row the denser box is the liquid one (boxes may swap identity near the
 * critical point; a mean over boxes would mix the phases). The vapour pressure is the vapour
 * box's virial pressure; the heat of vaporization per particle is the enthalpy difference
 *     H_v = (<U_v>/<N_v> - <U_l>/<N_l>) + P_v (<V_v>/<N_v> - <V_l>/<N_l>),
 * each term from the means over the rows (ratios of means: a row with an empty vapour box
 * still counts).
 */
#ifndef VESICA_MC_STATS_H
#define VESICA_MC_STATS_H

#include <stdint.h>

#include "mc_engine.h"
#include "mc_summary.h"

/* One thermo row: the cycle and each box's observables. */
typedef struct {
    int64_t cycle;
    vs_mc_box_obs box[VS_MC_MAX_BOXES];
} vs_mc_row;

/* The production rows of the campaign so far. */
typedef struct {
    int64_t n, cap;
    vs_mc_row *row;
} vs_mc_series;

/* Append a row. Returns 0, or -1 (out of memory). */
int vs_mc_series_push(vs_mc_series *s, const vs_mc_row *r);
void vs_mc_series_free(vs_mc_series *s);

/* A function of the means of k series (m[0..k-1]). */
typedef double (*vs_mc_stat_fn)(const double *m, const void *ctx);

/* The block estimate of f over k series of n values each (x[j][i]: series j, row i), cut
 * into `blocks` blocks (see the top): *mean from all rows, *error from the blocks (NAN when
 * n < 2 blocks or blocks < 2). f NULL: the plain mean of series 0. Returns 0, or -1 (k > 16
 * or out of memory). */
int vs_mc_block_estimate(const double *const *x, int k, int64_t n, int blocks, vs_mc_stat_fn f,
                         const void *ctx, double *mean, double *error);

#define VS_MC_MAX_STATS (20 + 4 * VS_MAX_SPECIES)

/* Each box's N, volume, density, energy, energy per particle (<U>/<N>) and pressure, and for
 * two boxes the coexistence summary (see the top). With `species` (NULL: none) also each
 * species' mole fraction x_k = <N_k> / <N> per box ("x_NAME") and, for two boxes, in the
 * liquid and in the vapour ("x_NAME_liquid", "x_NAME_vapour"), from the rows' counts per
 * species. Returns the number of results written to out (at most VS_MC_MAX_STATS), or -1
 * (out of memory). */
int vs_mc_summarize(const vs_mc_series *s, int n_boxes, int blocks,
                    const vs_species_params *species, vs_mc_stat *out);

/* Whether a run's thermo rows carry each box's particles per species (and its summary the
 * compositions): the NPT Gibbs ensemble of a mixture. */
int vs_mc_has_composition(const vs_params *prm);

/* The grand canonical histograms of box 0 over the rows (vs_mc_histograms, mc_summary.h),
 * E the box's total potential energy (tail included) in bins of width w. */
/* Returns 0, or -1 (out of memory). */
int vs_mc_histograms_build(const vs_mc_series *s, double w, vs_mc_histograms *h);
void vs_mc_histograms_free(vs_mc_histograms *h);

#endif
