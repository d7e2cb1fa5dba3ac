/* The flow term: a driving field on top of the constant body force (flow.kind), today the
 * double Poiseuille force of Backer et al. Evaluator: vs_double_poiseuille_force
 * (src/core/flow.h); CPU loop: vs_cpu_flow_forces (src/cpu/flow_cpu.c); GPU kernel:
 * vs_gpu_flow_forces (gpu/gpu_flow.cu). Inactive (not in the force field, no pass over the
 * forces) unless the configuration asks for it. */
#include "forcefield.h"

#ifdef VESICA_HAVE_CUDA
#include "gpu_backend.h"
#endif

static int flow_active(const vs_params *prm) { return prm->flow.kind != VS_FLOW_NONE; }

static double flow_reach(const vs_params *prm)
{
    (void)prm;
    return 0.0; /* a field on each particle alone: no partners */
}

static void flow_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)
{
    (void)step;
    (void)want_energy; /* no energy: not the gradient of a periodic potential */
    vs_cpu_flow_forces(cpu);
}

#ifdef VESICA_HAVE_CUDA
static void flow_gpu(struct vs_gpu_state *gpu, int64_t step, int want_energy)
{
    (void)step;
    (void)want_energy;
    vs_gpu_flow_forces(gpu);
}
#endif

const vs_term_type vs_term_flow = {
    .name = "flow",
    .active = flow_active,
    .reach = flow_reach,
    .cpu = flow_cpu,
#ifdef VESICA_HAVE_CUDA
    .gpu = flow_gpu,
#endif
};
