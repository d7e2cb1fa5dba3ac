/* profiles.h5: binned profiles, one row per closed window, written collectively through
 * parallel HDF5 (every rank makes the same calls; rank 0 alone selects the data, which every
 * rank holds after the reduction). Layout: docs/file-formats.md.
 *
 * Restarts: at every checkpoint the open window's partial sums go into /pending/step_<S>;
 * a restart from the checkpoint of step S cuts the windows closed after S and takes the
 * pending sums of S back, so a run stopped and restarted writes the
 * same file as one that ran straight through.
 */
#ifndef VESICA_PROFILES_H5_H
#define VESICA_PROFILES_H5_H

#include <stddef.h>
#include <stdint.h>

#include "parallel.h"
#include "params.h"

#define VS_PROFILE_Q 5 /* per bin and set: density, vx, vy, vz, kT */
#define VS_PROFILE_Q_TENSOR 6 /* then, with output.pressure_tensor: P_xx .. P_yz */

/* The quantities per bin and set of this run: VS_PROFILE_Q, and the tensor's after them. */
static inline int vs_profile_q(const vs_params *prm)
{
    return VS_PROFILE_Q + (prm->output.pressure_tensor ? VS_PROFILE_Q_TENSOR : 0);
}

/* One closed window: per set, bin and quantity the mean over its samples and the standard
 * error of that mean (the samples' standard deviation / sqrt(samples - 1); 0 with one
 * sample), both [set][bin][vs_profile_q]. */
typedef struct {
    int64_t step_first, step_last, samples;
    double time_first, time_last;
    const double *mean, *stderr_mean;
} vs_profile_window;

/* A new profiles.h5 (replacing any): bin centres, the window datasets (empty), attributes
 * with units and the configuration (config_text verbatim). Returns 0, or -1 with one line. */
int vs_profiles_h5_create(const vs_par *par, const char *path, const vs_params *prm,
                          const char *config_text, char *err, size_t err_len);
/* Append one window. Returns 0 or -1 with one line. */
int vs_profiles_h5_append(const vs_par *par, const char *path, const vs_params *prm,
                          const vs_profile_window *w, char *err, size_t err_len);
/* Restart at `step`: keep the windows closed by then and read the pending sums of `step` into state[n] (*found = 0 when there are none: no open window).
 * Returns 0 or -1 with one line. */
int vs_profiles_h5_restart(const vs_par *par, const char *path, const vs_params *prm,
                           int64_t step, double *state, size_t n, int *found, char *err,
                           size_t err_len);
/* Store the open window's partial sums state[n] as those of checkpoint `step`. */
int vs_profiles_h5_save_pending(const vs_par *par, const char *path, int64_t step,
                                const double *state, size_t n, char *err, size_t err_len);

#endif
