/* Stopping a run for a restart (exit 3): SIGTERM and SIGUSR1 set a flag (the handlers that
 * vs_run_install_stop_handlers, run.h, installs; defined here), rank 0 adds its
 * walltime verdict, and the ranks OR them together after every step, so all of them stop at
 * the same step.
 *
 * A run with a Verlet skin does not stop at the step it was asked to: it goes on to the next
 * step that rebuilt the neighbour lists (at most VS_STOP_WAIT steps). Its positions were
 * wrapped into the box at that build and the lists' reference positions are those
 * positions, so the checkpoint's canonical state (positions in the box, lists rebuilt) is
 * the very state the uninterrupted run has there, and the restart continues bit for bit as
 * that run does. Stopped between builds, the restart would wrap positions and restart the
 * skin's displacement count where the uninterrupted run does neither, and part from it in
 * the last bits. Without a skin every step rebuilds: the stop is at once.
 */
#ifndef VESICA_RUN_STOP_H
#define VESICA_RUN_STOP_H

#include <stdint.h>

#include "parallel.h"

#define VS_STOP_WAIT 100 /* the most steps a stop waits for a list build */

typedef struct {
    int pending;      /* a stop was asked for on some rank; waiting for a list build */
    int64_t asked_at; /* the step after which it was asked */
    int64_t test_at;  /* VESICA_TEST_STOP_AT=STEP (tests): ask for the stop after STEP; -1 */
} vs_run_stop;

/* Whether this process received SIGTERM or SIGUSR1. */
int vs_run_stop_signalled(void);
void vs_run_stop_init(vs_run_stop *s);
/* After step k (which rebuilt the lists when `built`; the same on every rank): whether the
 * run stops here for a restart. `want`: this rank asks for it (rank 0: the walltime runs
 * out); a signal received asks too. Collective. */
int vs_run_stop_now(vs_run_stop *s, const vs_par *par, int want, int64_t k, int built);

#endif
