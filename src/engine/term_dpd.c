/* The DPD pair term (Groot & Warren; Tang & Karniadakis eqs 1-9): conservative, dissipative
 * and random pair forces within dpd.rc, the random number keyed by (seed, step, tag pair).
 * Evaluator: vs_dpd_pair_random (src/core/dpd_pair.h); CPU loop: vs_cpu_dpd_forces
 * (src/cpu/dpd_cpu.c); GPU kernels: vs_gpu_forces and, overlapped with the ghost update,
 * vs_gpu_update_ghosts_and_forces (gpu/gpu_forces.cu). */
#include "forcefield.h"

#ifdef VESICA_HAVE_CUDA
#include "gpu_backend.h"
#endif

/* every configuration has the DPD section; it acts unless its a_ij and gamma are all zero
 * with another pair style configured (vs_dpd_active) */
static int dpd_active(const vs_params *prm) { return vs_dpd_active(prm); }

static double dpd_reach(const vs_params *prm) { return prm->dpd.rc; }

/* An inert term (vs_dpd_inert: every a_ij and gamma_ij zero) adds only zeros to the
 * fixed-point sums: its walk is skipped, the sums are those of the walk. */
static void dpd_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)
{
    if (!vs_dpd_inert(cpu->prm))
        vs_cpu_dpd_forces(cpu, step, want_energy);
}

#ifdef VESICA_HAVE_CUDA
/* (an inert term only starts the forces there: vs_gpu_forces, gpu/gpu_forces.cu) */
static void dpd_gpu(struct vs_gpu_state *gpu, int64_t step, int want_energy)
{
    vs_gpu_forces(gpu, step, want_energy);
}

static void dpd_gpu_overlapped(struct vs_gpu_state *gpu, int64_t step, int want_energy,
                               double *comm_s, double *hidden_s)
{
    vs_gpu_update_ghosts_and_forces(gpu, step, want_energy, comm_s, hidden_s);
}
#endif

const vs_term_type vs_term_dpd = {
    .name = "dpd",
    .pair = 1,
    .active = dpd_active,
    .reach = dpd_reach,
    .cpu = dpd_cpu,
#ifdef VESICA_HAVE_CUDA
    .gpu = dpd_gpu,
    .gpu_overlapped = dpd_gpu_overlapped,
#endif
};
