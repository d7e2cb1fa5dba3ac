/* The soft anisotropic pair style (aniso group): evaluator vs_aniso_eval
 * (src/core/pair_aniso.h), CPU loop vs_cpu_aniso_forces (src/cpu/aniso_cpu.c). The GPU
 * backend does not have it yet: a configuration with oriented species is refused there
 * (src/app/config_aniso.c), so the term has no GPU function. Its reach is the largest cut-off
 * of its species pairs. */
#include "forcefield.h"

static int aniso_active(const vs_params *prm) { return prm->aniso.style != VS_ANISO_NONE; }

static double aniso_reach(const vs_params *prm) { return prm->aniso.reach; }

static void aniso_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)
{
    (void)step;
    vs_cpu_aniso_forces(cpu, want_energy);
}

const vs_term_type vs_term_aniso = {
    .name = "aniso",
    .pair = 1,
    .active = aniso_active,
    .reach = aniso_reach,
    .cpu = aniso_cpu,
};
