/* Binned profiles: the sampling facility of a run (profiles group; the file is
 * io/profiles_h5.h).
 *
 * Every `every` steps inside a window, the backend sums each bin's count, mass, momentum and
 * m v^2 in fixed point (src/core/profile_bin.h; the GPU on the device, only the bins read
 * back); the sums are reduced over the ranks (integers: the same on any rank count) and
 * turned into the sample's per-bin density, mass-weighted mean velocity and kinetic
 * temperature, whose sums and sums of squares make the window's mean and standard error.
 * A window closes at its last step and becomes a row of profiles.h5.
 */
#ifndef VESICA_PROFILES_H
#define VESICA_PROFILES_H

#include <stddef.h>
#include <stdint.h>

#include "profiles_h5.h"
#include "simulation.h"

typedef struct {
    const vs_params *prm;
    int bins, n_sets;
    int64_t *sums;   /* one sample: [set][bin][VS_PROFILE_FIELDS] */
    double *state;   /* the open window: samples, then [set][bin][q] sums, then squares */
    size_t state_len;
    double *mean, *err; /* a closed window, [set][bin][q] */
} vs_profiler;

/* Nothing to do (and nothing allocated) when prm->output.profiles.axis < 0. */
void vs_profiler_init(vs_profiler *p, const vs_params *prm);
void vs_profiler_free(vs_profiler *p);
int vs_profiler_active(const vs_profiler *p);
/* Steps [first, last] of window w (0-based); 0 when there is no such window. */
int vs_profiler_window_steps(const vs_profiler *p, int w, int64_t *first, int64_t *last);
/* Whether `step` takes a sample, and whether it closes a window (into *w). */
int vs_profiler_sample_due(const vs_profiler *p, int64_t step);
int vs_profiler_closes(const vs_profiler *p, int64_t step, vs_profile_window *w);
/* Take the sample of the current (finished) step. Collective. */
void vs_profiler_sample(vs_profiler *p, vs_sim *sim);

#endif
