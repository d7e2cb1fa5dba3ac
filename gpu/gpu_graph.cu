/* The step as one CUDA graph.
 *
 * A small system's step is bound by the host: about twenty launches, memsets and phase marks
 * of a few microseconds each, for kernels that run for less. Where nothing in the step waits
 * for the device (one rank with the ghosts' number on the device, no energies, no Morton
 * reorder: vs_gpu_graph_begin), the stream is captured while the step queues its work as
 * always, and the captured graph is launched at once. The executable graph is kept and
 * updated in place from each step's capture (the same nodes, new arguments such as the pair
 * RNG's key), which costs less than launching the work one call at a time; it is made anew
 * only where the update fails (a different sequence: after a reorder, say). The steps whose
 * phases are marked (one in output.timing_every) keep an executable graph of their own, so
 * that the two sequences do not undo each other's updates. The step's work,
 * its order and its arguments are exactly those of the eager step, so the trajectory is the
 * same bits (tests/gpu/ranks_bitwise.sh compares them).
 *
 * A reaction step, whose events the host resolves between its rebuild and its forces, goes
 * as two graphs where it can: up to the rebuild, and from the rebuild after the events
 * (VS_COLLECT_*). Each part keeps an executable graph of its own, so that the three
 * sequences do not undo each other's updates.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.cuh"

void vs_gpu_graph_init(vs_gpu_state *g)
{
    const char *env = getenv("VESICA_GPU_GRAPHS");
    g->graph.allowed = !(env && strcmp(env, "0") == 0);
}

static void destroy_exec(cudaGraphExec_t *exec)
{
    if (*exec)
        cudaGraphExecDestroy(*exec);
    *exec = NULL;
}

void vs_gpu_graph_retire(vs_gpu_state *g, void *ptr, size_t bytes, int mapped)
{
    if (g->graph.n_retired == g->graph.retired_cap) {
        const int cap = 2 * g->graph.retired_cap + 16;
        void *grown = realloc(g->graph.retired, sizeof *g->graph.retired * (size_t)cap);
        if (!grown)
            VS_FATAL("out of host memory for %d retired device buffers", cap);
        g->graph.retired = (struct vs_gpu_graph::vs_retired *)grown;
        g->graph.retired_cap = cap;
    }
    g->graph.retired[g->graph.n_retired].ptr = ptr;
    g->graph.retired[g->graph.n_retired].bytes = bytes;
    g->graph.retired[g->graph.n_retired].mapped = mapped;
    ++g->graph.n_retired;
}

/* After the stream has run past the steps that retired them. A peer read this rank's
 * exported buffers up to the step before the one that replaced them (gpu_slab.cu): its
 * reads came before what it signalled in that step, which this rank's stream waited for. */
void vs_gpu_graph_free_retired(vs_gpu_state *g)
{
    if (g->graph.n_retired == 0)
        return;
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    for (int k = 0; k < g->graph.n_retired; ++k) {
        if (g->graph.retired[k].mapped) {
            VS_CUDA_CHECK(cudaIpcCloseMemHandle(g->graph.retired[k].ptr));
        } else {
            VS_CUDA_CHECK(cudaFree(g->graph.retired[k].ptr));
            g->bytes_allocated -= g->graph.retired[k].bytes;
        }
    }
    g->graph.n_retired = 0;
}

void vs_gpu_graph_destroy(vs_gpu_state *g)
{
    free(g->graph.retired); /* vs_gpu_destroy freed what it held first */
    g->graph.retired = NULL;
    g->graph.retired_cap = 0;
    for (int part = 0; part < VS_COLLECT_PARTS; ++part)
        for (int marked = 0; marked < 2; ++marked)
            destroy_exec(&g->graph.exec[part][marked]);
}

extern "C" int vs_gpu_graph_begin(vs_gpu_state *g, int part)
{
    /* ghosts_on_device: the last build kept the count on the device (and so has an
     * estimate of it), and so will this one (one rank, a small fluid brick, no skin; or the
     * slab path, whose bounds come from the last step's slot); nothing else in such a step
     * reads back. The slab path's messages to the neighbours carry only bounds and buffers,
     * and the streams' order across ranks is kept by stream memory operations, which a graph
     * holds (gpu_transport.cu); its timed parts are events, which it does not */
    if (!g->graph.allowed || !g->halo.ghosts_on_device ||
        (g->slab.on && (!g->slab.slot_queued || g->slab.timed)) || vs_gpu_reorder_due(g) ||
        vs_pair_styles_active(g->prm))
        return 0;
    vs_gpu_graph_free_retired(g); /* the stream has run past the steps that gave them up */
    vs_gpu_timing_make_room(g, 16); /* a step makes about six marks */
    /* relaxed: the host may still allocate (it does not in such a step) */
    VS_CUDA_CHECK(cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeRelaxed));
    g->graph.capturing = 1;
    g->graph.marked = 0;
    g->graph.part = part;
    return 1;
}

extern "C" void vs_gpu_graph_end(vs_gpu_state *g)
{
    cudaGraph_t graph = NULL;
    VS_CUDA_CHECK(cudaStreamEndCapture(g->stream, &graph));
    g->graph.capturing = 0;
    const int part = g->graph.part;
    cudaGraphExec_t *exec = &g->graph.exec[part][g->graph.marked];
    if (*exec) {
        cudaGraphExecUpdateResultInfo info;
        if (cudaGraphExecUpdate(*exec, graph, &info) != cudaSuccess) {
            (void)cudaGetLastError(); /* the update's refusal is not an error of the run */
            destroy_exec(exec);
        }
    }
    if (!*exec) {
        VS_CUDA_CHECK(cudaGraphInstantiate(exec, graph, 0));
        ++g->graph.made;
    }
    VS_CUDA_CHECK(cudaGraphLaunch(*exec, g->stream));
    VS_CUDA_CHECK(cudaGraphDestroy(graph));
    ++g->graph.launched[part];
}

extern "C" void vs_gpu_graph_counts(const vs_gpu_state *g, int64_t launched[VS_COLLECT_PARTS],
                                    int64_t *made)
{
    for (int part = 0; part < VS_COLLECT_PARTS; ++part)
        launched[part] = g->graph.launched[part];
    *made = g->graph.made;
}
