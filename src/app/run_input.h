/* The system of the configuration's input group, read for the run driver (run.c). */
#ifndef VESICA_RUN_INPUT_H
#define VESICA_RUN_INPUT_H

#include <mpi.h>

#include "input_system.h"
#include "params.h"

/* Rank 0 reads prm->input.file (only its header with header_only: a restart, whose state
 * comes from the checkpoint); every rank gets the verdict and *out = *prm with the file's
 * box, particle count, density and topology flag. On success rank 0's *sys holds the whole
 * system (records and topology; nothing with header_only), the other ranks' none. Returns 0,
 * or VS_EXIT_BAD_INPUT with one line printed by rank 0; nothing is written anywhere.
 * Collective over comm. */
int vs_run_read_input(const vs_params *prm, int header_only, MPI_Comm comm, vs_params *out,
                      vs_input_system *sys);

#endif
