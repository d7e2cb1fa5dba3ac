/* The wall term: the force of boundary.*.force on the particles within its range of a wall
 * (src/core/wall.h, the evaluator; CPU loop: vs_cpu_wall_forces, src/cpu/wall_cpu.c; GPU
 * kernel: vs_gpu_wall_forces, gpu/gpu_wall.cu). Inactive (not in the force field, no pass
 * over the forces) unless some wall has a force. */
#include "forcefield.h"

#ifdef VESICA_HAVE_CUDA
#include "gpu_backend.h"
#endif

static int wall_active(const vs_params *prm)
{
    int any = 0;
    for (int d = 0; d < 3; ++d)
        any |= prm->boundary.axis[d].kind != VS_BOUNDARY_PERIODIC &&
               prm->boundary.axis[d].force != VS_WALL_FORCE_NONE;
    return any;
}

static double wall_reach(const vs_params *prm)
{
    (void)prm;
    return 0.0; /* a field on each particle alone: no partners */
}

static void wall_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)
{
    (void)step;
    (void)want_energy; /* an external field: no energy in the thermo (wall.h) */
    vs_cpu_wall_forces(cpu);
}

#ifdef VESICA_HAVE_CUDA
static void wall_gpu(struct vs_gpu_state *gpu, int64_t step, int want_energy)
{
    (void)step;
    (void)want_energy;
    vs_gpu_wall_forces(gpu);
}
#endif

const vs_term_type vs_term_wall = {
    .name = "wall",
    .active = wall_active,
    .reach = wall_reach,
    .cpu = wall_cpu,
#ifdef VESICA_HAVE_CUDA
    .gpu = wall_gpu,
#endif
};
