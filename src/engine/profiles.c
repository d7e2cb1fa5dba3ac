/* Binned profiles: see profiles.h. */
#include "profiles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "log.h"
#include "profile_bin.h"

void vs_profiler_init(vs_profiler *p, const vs_params *prm)
{
    memset(p, 0, sizeof *p);
    p->prm = prm;
    if (prm->output.profiles.axis < 0)
        return;
    p->bins = prm->output.profiles.bins;
    p->n_sets = prm->output.profiles.per_species ? 1 + prm->species.n : 1;
    const size_t cells = (size_t)p->n_sets * (size_t)p->bins;
    p->n_fields = vs_profile_fields(prm->output.pressure_tensor);
    p->n_q = vs_profile_q(prm);
    p->sums = VS_MALLOC(sizeof(int64_t) * cells * (size_t)p->n_fields);
    p->state_len = 1 + 2 * cells * (size_t)p->n_q;
    p->state = VS_MALLOC(sizeof(double) * p->state_len);
    memset(p->state, 0, sizeof(double) * p->state_len);
    p->mean = VS_MALLOC(sizeof(double) * cells * (size_t)p->n_q);
    p->err = VS_MALLOC(sizeof(double) * cells * (size_t)p->n_q);
}

void vs_profiler_free(vs_profiler *p)
{
    free(p->sums);
    free(p->state);
    free(p->mean);
    free(p->err);
    memset(p, 0, sizeof *p);
}

int vs_profiler_active(const vs_profiler *p) { return p->state != NULL; }

int vs_profiler_window_steps(const vs_profiler *p, int w, int64_t *first, int64_t *last)
{
    const vs_profiles_params *q = &p->prm->output.profiles;
    if (q->window > 0) {
        if ((int64_t)(w + 1) * q->window > p->prm->integrator.steps)
            return 0;
        *first = (int64_t)w * q->window + 1;
        *last = (int64_t)(w + 1) * q->window;
        return 1;
    }
    if (w >= q->n_times)
        return 0;
    /* the steps whose times lie in [T - h, T + h], up to rounding of the times */
    const double dt = p->prm->integrator.dt;
    *first = (int64_t)ceil((q->times[w] - q->half_width) / dt - 1e-9);
    *last = (int64_t)floor((q->times[w] + q->half_width) / dt + 1e-9);
    if (*first < 1)
        *first = 1;
    return 1;
}

/* The window that holds `step`, or -1. */
static int window_of(const vs_profiler *p, int64_t step)
{
    const vs_profiles_params *q = &p->prm->output.profiles;
    if (q->window > 0)
        return step >= 1 && step <= p->prm->integrator.steps ? (int)((step - 1) / q->window) : -1;
    int64_t first, last;
    for (int w = 0; vs_profiler_window_steps(p, w, &first, &last); ++w)
        if (step >= first && step <= last)
            return w;
    return -1;
}

int vs_profiler_sample_due(const vs_profiler *p, int64_t step)
{
    return p->state && step % p->prm->output.profiles.every == 0 && window_of(p, step) >= 0;
}

/* The bin's pressure tensor from its sums s (profile_bin.h): the kinetic part from the
 * velocities relative to the bin's mass-weighted mean u (the streaming part M u_a u_b
 * removed), the virial part the particles' shares. */
static void bin_tensor(const int64_t *s, double bin_volume, double out[VS_TENSOR])
{
    const double m = (double)s[1] / VS_PROFILE_QUANTUM;
    for (int k = 0; k < VS_TENSOR; ++k) {
        const int a = vs_tensor_axes[k][0], b = vs_tensor_axes[k][1];
        const double mvv = (double)s[VS_PROFILE_FIELDS + k] / VS_PROFILE_QUANTUM;
        const double w = (double)s[VS_PROFILE_FIELDS + VS_TENSOR + k] / VS_PROFILE_QUANTUM;
        const double stream = m > 0.0 ? ((double)s[2 + a] / VS_PROFILE_QUANTUM) *
                                            ((double)s[2 + b] / VS_PROFILE_QUANTUM) / m
                                      : 0.0;
        out[k] = (mvv - stream + w) / bin_volume;
    }
}

/* One sample's per-bin quantities from the reduced sums into the window's sums. */
static void accumulate(vs_profiler *p)
{
    const vs_params *prm = p->prm;
    const double bin_volume =
        prm->system.box[0] * prm->system.box[1] * prm->system.box[2] / p->bins;
    const size_t cells = (size_t)p->n_sets * (size_t)p->bins, nq = (size_t)p->n_q;
    double *sum = p->state + 1, *sq = p->state + 1 + cells * nq;
    for (size_t c = 0; c < cells; ++c) {
        const int64_t *s = p->sums + c * (size_t)p->n_fields;
        const double n = (double)s[0], m = (double)s[1] / VS_PROFILE_QUANTUM;
        double q[VS_PROFILE_Q + VS_PROFILE_Q_TENSOR] = {n / bin_volume, 0.0, 0.0, 0.0, 0.0};
        if (p->n_q > VS_PROFILE_Q)
            bin_tensor(s, bin_volume, q + VS_PROFILE_Q);
        if (s[0] > 0 && m > 0.0) {
            double mu2 = 0.0;
            for (int d = 0; d < 3; ++d) {
                const double mv = (double)s[2 + d] / VS_PROFILE_QUANTUM;
                q[1 + d] = mv / m;
                mu2 += mv * mv / m;
            }
            /* sum m (v - u)^2 = sum m v^2 - (sum m v)^2 / sum m, over 3 (n - 1) freedoms */
            if (s[0] > 1)
                q[4] = ((double)s[5] / VS_PROFILE_QUANTUM - mu2) / (3.0 * (n - 1.0));
        }
        for (size_t k = 0; k < nq; ++k) {
            sum[c * nq + k] += q[k];
            sq[c * nq + k] += q[k] * q[k];
        }
    }
    p->state[0] += 1.0;
}

void vs_profiler_sample(vs_profiler *p, vs_sim *sim)
{
    const vs_profiles_params *q = &p->prm->output.profiles;
    vs_sim_finish_step(sim);
    sim->backend->profile_sums(sim->backend_state, q->axis, q->bins, q->per_species, p->sums);
    vs_par_sum_int64(&sim->dc.cart, p->sums,
                     p->n_sets * p->bins * p->n_fields);
    accumulate(p);
}

int vs_profiler_closes(const vs_profiler *p, int64_t step, vs_profile_window *w)
{
    if (!p->state)
        return 0;
    const int k = window_of(p, step);
    int64_t first = 0, last = 0;
    if (k < 0 || !vs_profiler_window_steps(p, k, &first, &last) || step != last)
        return 0;
    const size_t cells = (size_t)p->n_sets * (size_t)p->bins, nq = cells * (size_t)p->n_q;
    const double n = p->state[0];
    const double *sum = p->state + 1, *sq = p->state + 1 + nq;
    for (size_t i = 0; i < nq; ++i) {
        const double mean = n > 0.0 ? sum[i] / n : 0.0;
        const double var = n > 1.0 ? fmax(sq[i] / n - mean * mean, 0.0) : 0.0;
        p->mean[i] = mean;
        p->err[i] = n > 1.0 ? sqrt(var / (n - 1.0)) : 0.0; /* uncorrelated samples assumed */
    }
    w->step_first = first;
    w->step_last = last;
    w->samples = (int64_t)n;
    w->time_first = (double)first * p->prm->integrator.dt;
    w->time_last = (double)last * p->prm->integrator.dt;
    w->mean = p->mean;
    w->stderr_mean = p->err;
    memset(p->state, 0, sizeof(double) * p->state_len); /* the next window starts empty */
    return 1;
}
