/* Phase timing on the device clock.
 *
 * Timing a phase by the wall clock needs a stream synchronisation at its end, which stalls
 * the queue: the next phase's kernels are launched only after the device ran dry. At 64k
 * particles those stalls cost a quarter of the step. Instead, a phase's begin and end record
 * events in the stream and the host goes on; the elapsed times are read later, from events
 * that have long completed (when the ring of marks is full, or when the caller settles the
 * timers). A phase's time is then the device time between reaching its begin and its end,
 * idle gaps included, so the phases of a step still add up to the step.
 */
#include "gpu_internal.cuh"

void vs_gpu_timing_create(vs_gpu_state *g)
{
    for (int k = 0; k < VS_PHASE_MARKS; ++k) {
        VS_CUDA_CHECK(cudaEventCreate(&g->mark_begin[k]));
        VS_CUDA_CHECK(cudaEventCreate(&g->mark_end[k]));
    }
}

void vs_gpu_timing_destroy(vs_gpu_state *g)
{
    for (int k = 0; k < VS_PHASE_MARKS; ++k) {
        cudaEventDestroy(g->mark_begin[k]);
        cudaEventDestroy(g->mark_end[k]);
    }
}

/* Add the oldest marked phase's seconds to its accumulator (waits for it if needed). */
static void settle_oldest(vs_gpu_state *g)
{
    const int k = g->mark_first;
    VS_CUDA_CHECK(cudaEventSynchronize(g->mark_end[k]));
    float ms = 0.0f;
    VS_CUDA_CHECK(cudaEventElapsedTime(&ms, g->mark_begin[k], g->mark_end[k]));
    g->phase_seconds[g->mark_phase[k]] += 1e-3 * (double)ms;
    g->mark_first = (k + 1) % VS_PHASE_MARKS;
    --g->n_marks;
}

extern "C" void vs_gpu_phase_begin(vs_gpu_state *g, int phase)
{
    if (g->n_marks == VS_PHASE_MARKS)
        settle_oldest(g); /* marks of many steps ago: no wait in practice */
    const int k = (g->mark_first + g->n_marks) % VS_PHASE_MARKS;
    g->mark_phase[k] = phase;
    VS_CUDA_CHECK(cudaEventRecord(g->mark_begin[k], g->stream));
}

extern "C" void vs_gpu_phase_end(vs_gpu_state *g, int phase)
{
    const int k = (g->mark_first + g->n_marks) % VS_PHASE_MARKS;
    if (g->mark_phase[k] != phase)
        vs_log_fatal(__FILE__, __LINE__, "phase %d ended while phase %d was open", phase,
                     g->mark_phase[k]);
    VS_CUDA_CHECK(cudaEventRecord(g->mark_end[k], g->stream));
    ++g->n_marks;
}

extern "C" void vs_gpu_phase_settle(vs_gpu_state *g, double *seconds, int n_phases)
{
    while (g->n_marks > 0)
        settle_oldest(g);
    for (int p = 0; p < n_phases && p < VS_MAX_PHASES; ++p) {
        seconds[p] += g->phase_seconds[p];
        g->phase_seconds[p] = 0.0;
    }
}
