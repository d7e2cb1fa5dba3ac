/* The bonded terms (molecules): harmonic and FENE bonds; harmonic, cosine and cosine_squared
 * angles; periodic, harmonic and multi_harmonic dihedrals.
 * Evaluators: vs_bond_eval, vs_angle_eval, vs_dihedral_eval (src/core/bonded.h); CPU loops:
 * vs_cpu_{bond,angle,dihedral}_forces (src/cpu/bonded_cpu.c); GPU kernels:
 * vs_gpu_{bond,angle,dihedral}_forces (gpu/gpu_bonded.cu).
 *
 * Reach: a bond's partner is at most molecules' bond_reach away (checked every step); an
 * angle's far end is two bonds away, so the angle term needs twice that, a dihedral's three
 * times.
 */
#include "forcefield.h"

#ifdef VESICA_HAVE_CUDA
#include "gpu_backend.h"
#endif

static int bond_active(const vs_params *prm) { return prm->molecules.n_bond_types > 0; }
static double bond_reach(const vs_params *prm) { return prm->molecules.bond_reach; }
static void bond_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)
{
    /* energy and scalar virial: cheap, summed on every call; the tensor when asked */
    vs_cpu_bond_forces(cpu, step, want_energy);
}

#ifdef VESICA_HAVE_CUDA
static void bond_gpu(struct vs_gpu_state *gpu, int64_t step, int want_energy)
{
    vs_gpu_bond_forces(gpu, step, want_energy);
}
#endif

static int angle_active(const vs_params *prm) { return prm->molecules.n_angle_types > 0; }
static double angle_reach(const vs_params *prm) { return 2.0 * prm->molecules.bond_reach; }
static void angle_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)
{
    vs_cpu_angle_forces(cpu, step, want_energy);
}

#ifdef VESICA_HAVE_CUDA
static void angle_gpu(struct vs_gpu_state *gpu, int64_t step, int want_energy)
{
    vs_gpu_angle_forces(gpu, step, want_energy);
}
#endif

static int dihedral_active(const vs_params *prm) { return prm->molecules.n_dihedral_types > 0; }
static double dihedral_reach(const vs_params *prm) { return 3.0 * prm->molecules.bond_reach; }
static void dihedral_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)
{
    vs_cpu_dihedral_forces(cpu, step, want_energy);
}

#ifdef VESICA_HAVE_CUDA
static void dihedral_gpu(struct vs_gpu_state *gpu, int64_t step, int want_energy)
{
    vs_gpu_dihedral_forces(gpu, step, want_energy);
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

const vs_term_type vs_term_dihedral = {
    .name = "dihedral",
    .bonded = 1,
    .active = dihedral_active,
    .reach = dihedral_reach,
    .cpu = dihedral_cpu,
#ifdef VESICA_HAVE_CUDA
    .gpu = dihedral_gpu,
#endif
};
