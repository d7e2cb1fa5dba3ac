/* `vesica mc CONFIG`: the Monte Carlo engine's run driver (src/engine/mc/ has the moves):
 * output directory, the start (a lattice, the input file, or a checkpoint), the cycle loop,
 * thermo.csv, checkpoints, stopping on a signal, the summary. One rank, the CPU. */
#ifndef VESICA_RUN_MC_H
#define VESICA_RUN_MC_H

#include <mpi.h>

#include "params.h"
#include "run.h"

/* Returns the exit status: 0 finished, 1 runtime fault, 2 bad input (more than one rank, a
 * checkpoint of other physics, an input system the box cannot hold), 3 stopped for restart. */
int vs_run_mc(const vs_params *prm, const vs_run_options *opt, MPI_Comm comm);

#endif
