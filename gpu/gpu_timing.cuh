/* The step's timing and its graph: their part of the GPU state (gpu_timing.cu,
 * gpu_graph.cu). */
#ifndef VESICA_GPU_TIMING_CUH
#define VESICA_GPU_TIMING_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "gpu_backend.h"

#define VS_PHASE_MARKS 64 /* phase boundaries not yet read back (about a dozen steps) */
#define VS_MAX_PHASES 16

/* Phase timing on the device clock (gpu_timing.cu): a ring of phase boundaries, oldest at
 * mark_first, each with the phase it starts (-1: none) and its weight; the seconds so far. */
struct vs_gpu_timing {
    cudaEvent_t mark[VS_PHASE_MARKS];      /* the marks as events (several ranks) */
    unsigned long long *h_stamp, *d_stamp; /* or as the device's clock (ns, 0: not yet) */
    int mark_phase[VS_PHASE_MARKS];
    double mark_weight[VS_PHASE_MARKS]; /* the steps a mark's phase stands for */
    int mark_first, n_marks, stamps; /* stamps: 1 clock, 0 events, -1 not chosen yet */
    double phase_seconds[VS_MAX_PHASES];
};

/* The step as one CUDA graph (gpu_graph.cu): captured from the stream as the step queues its
 * work, then launched at once; the executable graph is updated in place from each step's
 * capture (the same kernels, new arguments) and made anew only when the update fails. */
struct vs_gpu_graph {
    int allowed;           /* VESICA_GPU_GRAPHS=0 turns the graphs off */
    int capturing, marked; /* the stream is being captured; phase marks were among it */
    int part;              /* what is being captured (VS_COLLECT_*) */
    cudaGraphExec_t exec[VS_COLLECT_PARTS][2]; /* per part, unmarked and marked: NULL or kept */
    int64_t launched[VS_COLLECT_PARTS], made; /* parts launched as graphs; graphs made */
    /* buffers given up during a capture, whose captured work (not launched yet) may still use
     * them: freed, or their peers' mappings closed, once the stream has run past that work
     * (vs_gpu_graph_free_retired) */
    struct vs_retired {
        void *ptr;
        size_t bytes;
        int mapped; /* a peer's buffer mapped here (closed, not freed) */
    } *retired;
    int n_retired, retired_cap;
};

/* A buffer given up while the stream is captured (a grown one's old room, a peer's old
 * mapping), freed once the stream has run past the captured work; and those freed now
 * (gpu_graph.cu). */
void vs_gpu_graph_retire(vs_gpu_state *g, void *ptr, size_t bytes, int mapped);
void vs_gpu_graph_free_retired(vs_gpu_state *g);

#endif
