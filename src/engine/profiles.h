/* Binned profiles: the sampling facility of a run (profiles group; the file is
 * io/profiles_h5.h).
 *
 * Every `every` steps inside a window, the backend sums each bin's count, mass, momentum and
 * m v^2 in fixed point (src/core/profile_bin.h; the GPU on the device, only the bins read
 * back); the sums are reduced over the ranks (integers: the same on any rank count) and
 * turned into the sample's per-bin density, mass-weighted mean velocity and kinetic
 * temperature, whose sums and sums of squares make the window's mean and standard error.
 * A window closes at its last step and becomes a row of profiles.h5.
 *
 * With output.pressure_tensor each bin also gets the pressure tensor
 *   P_ab = (sum m (v_a - u_a) (v_b - u_b) + W_ab) / V_bin
 * u the bin's mean velocity in that sample (the streaming part removed: under a flow the
 * plain sum m v_a v_b would count the mean flow's momentum transport), W_ab each particle's
 * share of the virial tensor (half of each pair's r_a F_b to each of its two particles'
 * bins, a bonded term's equally to its beads'): the same total as the thermo's tensor, and in
 * the bulk of a linear stress profile the same as the Irving-Kirkwood bin average (both put a
 * pair's virial symmetrically about its midpoint); near a kink it is smoothed over r_c.
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
    int n_fields;    /* integers per set and bin (vs_profile_fields) */
    int n_q;         /* quantities per set and bin (vs_profile_q): the tensor's last */
    int64_t *sums;   /* one sample: [set][bin][n_fields] */
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
