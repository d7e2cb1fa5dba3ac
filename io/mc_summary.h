/* The Monte Carlo run's summary file, output.dir/mc_summary.h5: one serial HDF5 file written
 * at the end of a run under a temporary name and renamed into place (a reader never sees half
 * a file).
 *
 * Layout (docs/configuration.md, "Monte Carlo"): root attributes `ensemble`, `kT`, `rows`
 * (production thermo rows), `blocks`, `first_cycle`, `last_cycle`; per result a dataset
 * GROUP/NAME of two doubles (estimate, block error; the error NaN when the rows were too few),
 * GROUP `box_0`, `box_1` or `coexistence` (with attribute `liquid`: how the liquid box was
 * chosen; gibbs_npt mixtures also the mole fractions `x_NAME` per box, `x_NAME_liquid` and
 * `x_NAME_vapour`); for grand canonical runs the group `histogram`: `count_n` (int64, the
 * rows with N = 0, 1, ...), and the nonzero bins of the joint (N, E) histogram as three int64
 * columns `joint_n`, `joint_energy_bin` (bin j holds E in [j w, (j + 1) w)) and
 * `joint_count`, with attribute `energy_bin` (w).
 */
#ifndef VESICA_MC_SUMMARY_H
#define VESICA_MC_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

/* One named result: group ("box_0", "coexistence"), name, estimate and block error. */
typedef struct {
    char group[16];
    char name[48];
    double mean, error;
} vs_mc_stat;

/* The grand canonical histograms: count_n[N] for N = 0..n_len-1 and the nonzero bins of the
 * joint (N, E) histogram, sorted by N then bin; E in bins of width energy_bin. */
typedef struct {
    int64_t n_len;
    int64_t *count_n;
    int64_t joint_len;
    int64_t *joint_n, *joint_bin, *joint_count;
    double energy_bin;
} vs_mc_histograms;

typedef struct {
    const char *ensemble;     /* "nvt", "npt", "gcmc", "gibbs", "gibbs_npt" */
    double kT;
    int64_t rows, blocks, first_cycle, last_cycle;
    const char *liquid_rule;  /* gibbs: how the liquid box is chosen; NULL otherwise */
    const vs_mc_stat *stat;
    int n_stats;
    const vs_mc_histograms *hist; /* NULL: none */
} vs_mc_summary;

/* Write output_dir/mc_summary.h5. Returns 0, or -1 with one line in err. */
int vs_mc_summary_write(const char *output_dir, const vs_mc_summary *s, char *err,
                        size_t err_len);

#endif
