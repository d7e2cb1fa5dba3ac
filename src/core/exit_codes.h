/* Exit status of `vesica`, shared by every layer that can end a run.
 *
 * 0 finished (integrator.steps reached), 1 runtime fault, 2 bad input (configuration, command
 * line, unusable checkpoint or output directory), 3 stopped for restart (a signal or
 * run.walltime: a checkpoint was written and the run must be continued with --restart latest).
 */
#ifndef VESICA_EXIT_CODES_H
#define VESICA_EXIT_CODES_H

#define VS_EXIT_FAULT 1
#define VS_EXIT_BAD_INPUT 2
#define VS_EXIT_CONTINUE 3

#endif
