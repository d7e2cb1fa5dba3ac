/* The run's density-field frames (output.field_interval; io/fields_h5.h writes them): at step
 * 0 of a new run and at every multiple of the interval, the field species' density fractions
 * phi_K of the current positions on the grid, from the backend (its field_phi) into
 * output.dir/fields.h5. A new run starts the file afresh; a restart keeps its frames up to
 * the checkpoint's step and appends after them (as traj.h5md), or starts it when it is gone.
 */
#ifndef VESICA_RUN_FIELDS_H
#define VESICA_RUN_FIELDS_H

#include <stdint.h>

#include "fields_h5.h"
#include "params.h"
#include "simulation.h"

typedef struct {
    int64_t interval; /* 0: no frames */
    char path[VS_PATH_LEN + 16];
    vs_fields_layout layout;
    const char *names[VS_MAX_SPECIES];
} vs_run_fields;

/* Set up from the parameters and the rank grid, and create (a new run: restart_step < 0) or
 * trim (a restart) the file. Collective. Returns 0, or 1 with the error printed on rank 0. */
int vs_run_fields_start(vs_run_fields *rf, vs_sim *sim, const vs_params *prm,
                        const char *config_text, int64_t restart_step);
/* Whether step k writes a frame (a multiple of the interval). */
static inline int vs_run_fields_due(const vs_run_fields *rf, int64_t k)
{
    return rf->interval > 0 && k % rf->interval == 0;
}
/* The frame of sim->step, whose state is finished (vs_sim_finish_step). Collective. Returns
 * 0, or 1 with the error printed on rank 0. */
int vs_run_fields_write(vs_run_fields *rf, vs_sim *sim);

#endif
