/* `vesica run`: the run driver around the step loop: output directory, restart from a
 * checkpoint, thermo table and thermo.csv, H5MD frames, checkpoints, stopping on a signal or
 * at the walltime, integrity checks, the final timing summary and perf.json. */
#ifndef VESICA_RUN_H
#define VESICA_RUN_H

#include <mpi.h>

#include "params.h"

typedef struct {
    const char *config_text; /* the configuration file's text, stored in checkpoints */
    const char *restart;     /* NULL: a new run; "latest" or a checkpoint file */
    int force_restart;       /* restart even when the physics keys differ from the checkpoint */
} vs_run_options;

/* SIGTERM and SIGUSR1 set a flag that the step loop reads (a stop for restart, exit 3). main
 * calls this first thing, before MPI_Init and the parsing, so that a signal during start-up
 * stops the run after its first step instead of killing it; vs_run installs them again, in
 * case the MPI library replaced them. */
void vs_run_install_stop_handlers(void);

/* Returns the process exit status: 0 finished, 1 runtime fault, 2 bad input, 3 stopped for
 * restart (config.h). Collective. */
int vs_run(const vs_params *prm, const vs_run_options *opt, MPI_Comm comm);

#endif
