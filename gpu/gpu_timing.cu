/* Phase timing on the device clock.
 *
 * Timing a phase by the wall clock needs a stream synchronisation at its end, which stalls
 * the queue: the next phase's kernels are launched only after the device ran dry. At 64k
 * particles those stalls cost a quarter of the step. Instead, each phase boundary records one
 * event in the stream (the end of one phase is the start of the next) and the host goes on;
 * the elapsed times are read later, from events that have long completed (when the ring of
 * marks is full, or when the caller settles the timers). A phase's time is the device time
 * from reaching its start to reaching its end, idle gaps included, so the phases of a step
 * still add up to the step.
 */
#include "gpu_internal.cuh"

void vs_gpu_timing_create(vs_gpu_state *g)
{
    for (int k = 0; k < VS_PHASE_MARKS; ++k)
        VS_CUDA_CHECK(cudaEventCreate(&g->tm.mark[k]));
}

void vs_gpu_timing_destroy(vs_gpu_state *g)
{
    for (int k = 0; k < VS_PHASE_MARKS; ++k)
        cudaEventDestroy(g->tm.mark[k]);
}

/* The interval from the oldest mark to the next one goes to the phase the oldest started (if
 * any); the oldest mark is then dropped. Needs two marks; waits for the second if needed. */
static void settle_oldest(vs_gpu_state *g)
{
    const int k = g->tm.mark_first, next = (k + 1) % VS_PHASE_MARKS;
    if (g->tm.mark_phase[k] >= 0) {
        VS_CUDA_CHECK(cudaEventSynchronize(g->tm.mark[next]));
        float ms = 0.0f;
        VS_CUDA_CHECK(cudaEventElapsedTime(&ms, g->tm.mark[k], g->tm.mark[next]));
        g->tm.phase_seconds[g->tm.mark_phase[k]] += 1e-3 * (double)ms;
    }
    g->tm.mark_first = next;
    --g->tm.n_marks;
}

extern "C" void vs_gpu_phase_mark(vs_gpu_state *g, int phase)
{
    if (phase >= VS_MAX_PHASES)
        vs_log_fatal(__FILE__, __LINE__, "phase id %d out of range", phase);
    if (g->tm.n_marks == VS_PHASE_MARKS)
        settle_oldest(g); /* marks of many steps ago: no wait in practice */
    const int k = (g->tm.mark_first + g->tm.n_marks) % VS_PHASE_MARKS;
    g->tm.mark_phase[k] = phase;
    /* in a captured step the mark is a node of the graph, recorded when the graph runs */
    VS_CUDA_CHECK(cudaEventRecordWithFlags(g->tm.mark[k], g->stream,
                                           g->graph.capturing ? cudaEventRecordExternal
                                                              : cudaEventRecordDefault));
    ++g->tm.n_marks;
}

void vs_gpu_timing_make_room(vs_gpu_state *g, int marks)
{
    while (g->tm.n_marks > VS_PHASE_MARKS - marks)
        settle_oldest(g);
}

extern "C" void vs_gpu_phase_settle(vs_gpu_state *g, double *seconds, int n_phases)
{
    while (g->tm.n_marks > 1)
        settle_oldest(g);
    if (g->tm.n_marks == 1 && g->tm.mark_phase[g->tm.mark_first] < 0)
        g->tm.n_marks = 0; /* a closing mark starts nothing */
    for (int p = 0; p < n_phases && p < VS_MAX_PHASES; ++p) {
        seconds[p] += g->tm.phase_seconds[p];
        g->tm.phase_seconds[p] = 0.0;
    }
}
