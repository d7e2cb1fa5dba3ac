/* The soft anisotropic pair style (aniso group): evaluator vs_aniso_eval
 * (src/core/pair_aniso.h), CPU loop vs_cpu_aniso_forces (src/cpu/aniso_cpu.c), GPU walk
 * vs_gpu_aniso_forces (gpu/gpu_aniso.cu). Its reach is the largest cut-off of its species
 * pairs. */
#include "forcefield.h"

#ifdef VESICA_HAVE_CUDA
#include "gpu_backend.h"
#endif

static int aniso_active(const vs_params *prm) { return prm->aniso.style != VS_ANISO_NONE; }

static double aniso_reach(const vs_params *prm) { return prm->aniso.reach; }

static void aniso_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)
{
    (void)step;
    vs_cpu_aniso_forces(cpu, want_energy);
}

#ifdef VESICA_HAVE_CUDA
static void aniso_gpu(struct vs_gpu_state *gpu, int64_t step, int want_energy)
{
    (void)step;
    vs_gpu_aniso_forces(gpu, want_energy);
}
#endif

const vs_term_type vs_term_aniso = {
    .name = "aniso",
    .pair = 1,
    .active = aniso_active,
    .reach = aniso_reach,
    .cpu = aniso_cpu,
#ifdef VESICA_HAVE_CUDA
    .gpu = aniso_gpu,
#endif
};
