/* The bonded terms (molecules): harmonic and FENE bonds, harmonic and cosine angles.
 * Evaluators: vs_bond_eval, vs_angle_eval (src/core/bonded.h); CPU loops: vs_cpu_bond_forces,
 * vs_cpu_angle_forces (src/cpu/bonded_cpu.c); GPU kernels: vs_gpu_bond_forces,
 * vs_gpu_angle_forces (gpu/gpu_bonded.cu).
 *
 * Reach: a bond's partner is at most molecules' bond_reach away (checked every step); an
 * angle's far end is two bonds away, so the angle term needs twice that.
 */
#include "forcefield.h"

#ifdef VESICA_HAVE_CUDA
#include "gpu_backend.h"
#endif

static int bond_active(const vs_params *prm) { return prm->n_bond_types > 0; }
static double bond_reach(const vs_params *prm) { return prm->bond_reach; }
static void bond_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)
{
    (void)want_energy; /* cheap: summed on every call */
    vs_cpu_bond_forces(cpu, step);
}

#ifdef VESICA_HAVE_CUDA
static void bond_gpu(struct vs_gpu_state *gpu, int64_t step, int want_energy)
{
    vs_gpu_bond_forces(gpu, step, want_energy);
}
#endif

static int angle_active(const vs_params *prm) { return prm->n_angle_types > 0; }
static double angle_reach(const vs_params *prm) { return 2.0 * prm->bond_reach; }
static void angle_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)
{
    (void)want_energy;
    vs_cpu_angle_forces(cpu, step);
}

#ifdef VESICA_HAVE_CUDA
static void angle_gpu(struct vs_gpu_state *gpu, int64_t step, int want_energy)
{
    vs_gpu_angle_forces(gpu, step, want_energy);
}
#endif

const vs_term_type vs_term_bond = {
    .name = "bond",
    .bonded = 1,
    .active = bond_active,
    .reach = bond_reach,
    .cpu = bond_cpu,
#ifdef VESICA_HAVE_CUDA
    .gpu = bond_gpu,
#endif
};

const vs_term_type vs_term_angle = {
    .name = "angle",
    .bonded = 1,
    .active = angle_active,
    .reach = angle_reach,
    .cpu = angle_cpu,
#ifdef VESICA_HAVE_CUDA
    .gpu = angle_gpu,
#endif
};
