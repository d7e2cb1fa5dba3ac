/* `vesica run`: the run driver around the step loop: output directory, thermo table and
 * thermo.csv, integrity checks, the final timing summary and perf.json. */
#ifndef VESICA_RUN_H
#define VESICA_RUN_H

#include <mpi.h>

#include "params.h"

/* Returns the process exit status: 0 finished, 1 runtime fault, 2 bad input. Collective. */
int vs_run(const vs_params *prm, MPI_Comm comm);

#endif
