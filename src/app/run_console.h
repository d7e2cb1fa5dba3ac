/* The run's lines on the console (rank 0, through vs_log_info): the thermo table, its rows
 * with an ETA, a progress line when no row came for a while (run.c decides when), and the
 * timing breakdown at the end. */
#ifndef VESICA_RUN_CONSOLE_H
#define VESICA_RUN_CONSOLE_H

#include <stdint.h>

#include "perf_json.h"
#include "simulation.h"
#include "thermo.h"

void vs_console_thermo_header(void);
/* One row of the table; eta_s < 0 prints "-". */
void vs_console_thermo_row(const vs_thermo *t, double eta_s);
/* "  ... step K of STEPS, R steps/s, ETA T": step k, `done` steps of this run in `elapsed`
 * seconds. */
void vs_console_progress(int64_t k, int64_t steps, int64_t done, double elapsed);
/* The end of a run: the per-phase min/avg/max over ranks, printed like LAMMPS's breakdown,
 * collected into perf; with reactions, their steps and seconds since the loop began (the
 * count and seconds then: steps0, seconds0). Collective. */
void vs_console_timing(const vs_sim *sim, double loop_s, vs_perf_summary *perf);
void vs_console_reactions(const vs_sim *sim, double loop_s, int64_t steps0, double seconds0,
                          vs_perf_summary *perf);

#endif
