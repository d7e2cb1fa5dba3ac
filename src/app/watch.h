/* Sanity of a run's time step and temperature: a warning at the start when integrator.dt is
 * outside the range the integrator was tested in for the given a_ij, gamma, kT and masses, and
 * a watch over the thermo rows (non-finite values; a kinetic temperature far from dpd.kT after
 * equilibration), which stops the run (exit 1) past the limits of the run group. */
#ifndef VESICA_WATCH_H
#define VESICA_WATCH_H

#include <stdint.h>

#include "observables.h"
#include "params.h"

/* The largest dt of the tested range for these parameters (see watch.c), or 0 when no
 * criterion applies (no forces, no temperature). */
double vs_dt_tested_max(const vs_params *prm);

/* Rank 0 (`log`): a warning line when integrator.dt exceeds vs_dt_tested_max. */
void vs_watch_dt(const vs_params *prm, int log);

typedef struct {
    int64_t far_rows; /* consecutive thermo rows with the temperature far from kT */
} vs_watch;

/* One thermo row (the same on every rank). Returns 0 to go on, 1 to stop the run: a
 * non-finite value, or run.temperature_rows rows in a row far from kT. Warnings and the reason
 * of a stop are logged when `log` (rank 0). */
int vs_watch_row(vs_watch *w, const vs_params *prm, const vs_thermo *t, int log);

#endif
