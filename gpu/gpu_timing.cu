/* Phase timing on the device clock.
 *
 * Timing a phase by the wall clock needs a stream synchronisation at its end, which stalls
 * the queue: the next phase's kernels are launched only after the device ran dry. At 64k
 * particles those stalls cost a quarter of the step. Instead, each phase boundary puts one
 * mark in the stream (the end of one phase is the start of the next) and the host goes on;
 * the times are read later, from marks that have long passed (when the ring of marks is
 * full, or when the caller settles the timers). A phase's time is the device time from
 * reaching its start to reaching its end, idle gaps included, so the phases of a step still
 * add up to the step. Each mark carries a weight, the steps its phase stands for: the engine
 * marks one step in output.timing_every, for a step's marks cost a small system's step a
 * sizeable part of it.
 *
 * At one rank a mark is a one-thread kernel that writes the device's nanosecond clock
 * (%globaltimer) into mapped host memory: there the step goes to the device as a graph, in
 * which an event leaves the device idle for several microseconds (the next kernel waits for
 * the stream to drain and the event to be written) where a kernel follows a kernel at once.
 * So it is on the slab path's ranks, whose step is a graph too. On other paths across ranks
 * the step is launched call by call, the host's launch of a kernel costs more than an
 * event's record, and the host waits for the device in the step: there events are the
 * faster, and a mark is one (docs/performance.md, session 21). The kind is chosen at the
 * first mark.
 */
#include <sched.h>
#include <string.h>

#include "gpu_internal.cuh"

__global__ void phase_stamp_kernel(unsigned long long *stamp)
{
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    *stamp = now;
}

void vs_gpu_timing_create(vs_gpu_state *g)
{
    for (int k = 0; k < VS_PHASE_MARKS; ++k)
        VS_CUDA_CHECK(cudaEventCreate(&g->tm.mark[k]));
    const size_t bytes = sizeof(unsigned long long) * VS_PHASE_MARKS;
    VS_CUDA_CHECK(cudaHostAlloc((void **)&g->tm.h_stamp, bytes, cudaHostAllocMapped));
    memset(g->tm.h_stamp, 0, bytes);
    VS_CUDA_CHECK(cudaHostGetDevicePointer((void **)&g->tm.d_stamp, g->tm.h_stamp, 0));
    g->tm.stamps = -1;
}

void vs_gpu_timing_destroy(vs_gpu_state *g)
{
    for (int k = 0; k < VS_PHASE_MARKS; ++k)
        cudaEventDestroy(g->tm.mark[k]);
    if (g->tm.h_stamp)
        cudaFreeHost(g->tm.h_stamp);
}

/* Mark k's time, once the device has written it: the host polls the slot (a stream
 * synchronisation would drain the queue the host keeps ahead of the device), and where the
 * stream has gone idle without writing it, the run stops. */
static unsigned long long stamp_of(vs_gpu_state *g, int k)
{
    volatile unsigned long long *stamp = g->tm.h_stamp + k;
    while (*stamp == 0) {
        const cudaError_t idle = cudaStreamQuery(g->stream);
        if (idle == cudaSuccess && *stamp == 0)
            vs_log_fatal(__FILE__, __LINE__, "phase mark %d never reached the host", k);
        if (idle != cudaSuccess && idle != cudaErrorNotReady)
            VS_CUDA_CHECK(idle);
        sched_yield();
    }
    return *stamp;
}

/* The interval from the oldest mark to the next one goes to the phase the oldest started (if
 * any); the oldest mark is then dropped (a stamp's slot cleared for reuse). Needs two marks;
 * waits for the second if needed. */
static void settle_oldest(vs_gpu_state *g)
{
    const int k = g->tm.mark_first, next = (k + 1) % VS_PHASE_MARKS;
    if (g->tm.stamps) {
        /* waited for even where it starts nothing: the slot is reused next, and a write
         * still on its way would pass for the next mark's */
        const unsigned long long start = stamp_of(g, k);
        if (g->tm.mark_phase[k] >= 0)
            g->tm.phase_seconds[g->tm.mark_phase[k]] +=
                g->tm.mark_weight[k] * 1e-9 * (double)(stamp_of(g, next) - start);
    } else if (g->tm.mark_phase[k] >= 0) {
        VS_CUDA_CHECK(cudaEventSynchronize(g->tm.mark[next]));
        float ms = 0.0f;
        VS_CUDA_CHECK(cudaEventElapsedTime(&ms, g->tm.mark[k], g->tm.mark[next]));
        g->tm.phase_seconds[g->tm.mark_phase[k]] += g->tm.mark_weight[k] * 1e-3 * (double)ms;
    }
    g->tm.h_stamp[k] = 0;
    g->tm.mark_first = next;
    --g->tm.n_marks;
}

extern "C" void vs_gpu_phase_mark(vs_gpu_state *g, int phase, double weight)
{
    if (phase >= VS_MAX_PHASES)
        vs_log_fatal(__FILE__, __LINE__, "phase id %d out of range", phase);
    if (g->tm.n_marks == VS_PHASE_MARKS)
        settle_oldest(g); /* marks of many steps ago: no wait in practice */
    const int k = (g->tm.mark_first + g->tm.n_marks) % VS_PHASE_MARKS;
    g->tm.mark_phase[k] = phase;
    g->tm.mark_weight[k] = weight;
    g->graph.marked |= g->graph.capturing;
    if (g->tm.stamps < 0)
        g->tm.stamps = g->tr.dc == NULL || g->tr.dc->cart.size == 1 ||
                       (g->slab.on && g->graph.allowed);
    /* in a captured step the mark is a node of the graph, written when the graph runs */
    if (g->tm.stamps) {
        phase_stamp_kernel<<<1, 1, 0, g->stream>>>(g->tm.d_stamp + k);
        VS_CUDA_CHECK(cudaGetLastError());
    } else {
        VS_CUDA_CHECK(cudaEventRecordWithFlags(g->tm.mark[k], g->stream,
                                               g->graph.capturing ? cudaEventRecordExternal
                                                                  : cudaEventRecordDefault));
    }
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
    if (g->tm.n_marks == 1 && g->tm.mark_phase[g->tm.mark_first] < 0) {
        /* a closing mark starts nothing; its slot is free once the device has written it */
        if (g->tm.stamps)
            (void)stamp_of(g, g->tm.mark_first);
        g->tm.h_stamp[g->tm.mark_first] = 0;
        g->tm.n_marks = 0;
    }
    for (int p = 0; p < n_phases && p < VS_MAX_PHASES; ++p) {
        seconds[p] += g->tm.phase_seconds[p];
        g->tm.phase_seconds[p] = 0.0;
    }
}
