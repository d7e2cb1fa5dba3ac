/* `vesica mc CONFIG`: the Monte Carlo engine's run driver (src/engine/mc/ has the moves):
 * output directory, the start (a lattice, the input file, or a checkpoint), the cycle loop,
 * thermo.csv, checkpoints, stopping on a signal, the summary. On several ranks (the
 * checkerboard sweep on the CPU, src/engine/mc/mc_ranks.h) every rank runs the cycles on the
 * whole state; rank 0 reads the start and writes the files, the ranks agree on failures and
 * stops. */
#ifndef VESICA_RUN_MC_H
#define VESICA_RUN_MC_H

#include <mpi.h>

#include "params.h"
#include "run.h"

/* Returns the exit status: 0 finished, 1 runtime fault, 2 bad input (more than one rank
 * without the checkerboard sweep on the CPU, too few of its cells per rank, a checkpoint of
 * other physics, an input system the box cannot hold), 3 stopped for restart. Collective: every
 * rank returns the same status. */
int vs_run_mc(const vs_params *prm, const vs_run_options *opt, MPI_Comm comm);

#endif
