/* Sanity of a run's time step and temperature: a warning at the start when integrator.dt is
 * outside the range the integrator was tested in for the given a_ij, gamma, kT and masses, and
 * a watch over the thermo rows (non-finite values; a kinetic temperature far from dpd.kT after
 * equilibration; a drift of the total momentum where the dynamics conserves it, and of the
 * conserved energy of nve and nose_hoover), which stops the run (exit 1) past the limits of the
 * run group. */
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
    int have_first;   /* the first row's momentum and energy are the reference of the drifts */
    double momentum0[3], energy0, kinetic0;
    int momentum_warned, energy_warned; /* one warning per excursion */
} vs_watch;

/* Whether the total momentum is a constant of the motion: no body force or flow, no walls and
 * no frozen particles (they take momentum), and an integrator that only exchanges momentum
 * within pairs (or scales all velocities alike). */
int vs_watch_momentum_conserved(const vs_params *prm);

/* One thermo row (the same on every rank). Returns 0 to go on, 1 to stop the run: a
 * non-finite value, run.temperature_rows rows in a row far from kT, or a drift beyond
 * run.momentum_limit or run.energy_limit. Warnings and the reason
 * of a stop are logged when `log` (rank 0). */
int vs_watch_row(vs_watch *w, const vs_params *prm, const vs_thermo *t, int log);

#endif
