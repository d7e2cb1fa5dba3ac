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

/* Returns the process exit status: 0 finished, 1 runtime fault, 2 bad input, 3 stopped for
 * restart (config.h). Collective. */
int vs_run(const vs_params *prm, const vs_run_options *opt, MPI_Comm comm);

#endif
