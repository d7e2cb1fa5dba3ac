/* The run's lines on the console (rank 0, through vs_log_info): the thermo table, its rows
 * with an ETA, and a progress line when no row came for a while (run.c decides when). */
#ifndef VESICA_RUN_CONSOLE_H
#define VESICA_RUN_CONSOLE_H

#include <stdint.h>

#include "thermo.h"

void vs_console_thermo_header(void);
/* One row of the table; eta_s < 0 prints "-". */
void vs_console_thermo_row(const vs_thermo *t, double eta_s);
/* "  ... step K of STEPS, R steps/s, ETA T": step k, `done` steps of this run in `elapsed`
 * seconds. */
void vs_console_progress(int64_t k, int64_t steps, int64_t done, double elapsed);

#endif
