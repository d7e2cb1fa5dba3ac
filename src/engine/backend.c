/* Backend tables and selection: see backend.h. The CPU table adapts the CPU backend
 * (src/cpu/cpu_backend.h), whose state sits behind sim->backend_state, to the step's phases;
 * the GPU table is backend_gpu.c. */
#include "backend.h"

#include <stdio.h>
#include <string.h>

#include "cpu_backend.h"
#include "forcefield.h"
#include "integrate.h"
#include "simulation.h"
#ifdef VESICA_HAVE_CUDA
#include "gpu.h"
#endif

static vs_cpu_state *cpu(vs_sim *s) { return (vs_cpu_state *)s->backend_state; }

static int cpu_attach(vs_sim *s, char *err, size_t err_len)
{
    (void)err;
    (void)err_len;
    s->backend_state = vs_cpu_create(&s->prm, &s->dc, &s->parts, s->list_radius,
                                     s->bonded_width);
    vs_cpu_plan_describe(cpu(s), s->plan, sizeof s->plan);
    return 0;
}
static void cpu_detach(vs_sim *s)
{
    vs_cpu_destroy(cpu(s));
    s->backend_state = NULL;
}
static void cpu_first_half(vs_sim *s) { vs_cpu_integrate_first_half(cpu(s)); }
static void cpu_second_half(vs_sim *s) { vs_cpu_integrate_second_half(cpu(s)); }
static double cpu_max_disp2(vs_sim *s) { return vs_cpu_max_displacement2(cpu(s)); }
static void cpu_ensemble_op(vs_sim *s, int op, int64_t step)
{
    vs_integrate_ensemble_op(&s->parts, &s->prm, &s->ens_c, (vs_ensemble_op)op, step);
}
static void cpu_brownian(vs_sim *s, int64_t step)
{
    vs_integrate_brownian(&s->parts, &s->prm, &s->ens_c, step);
}
static void cpu_scale_v(vs_sim *s, double f) { vs_scale_velocities(&s->parts, f); }
static void cpu_shift_v(vs_sim *s, const double dv[3]) { vs_shift_velocities(&s->parts, dv); }
static int cpu_momentum_sums(vs_sim *s, vs_wide out[5])
{
    return vs_momentum_sums(&s->parts, &s->prm, out);
}
static void cpu_npt_half(vs_sim *s, const vs_npt_coefs *c, int first)
{
    vs_integrate_npt(&s->parts, &s->prm, c, first);
}
/* the CPU derives its cells and bricks from sim->prm and sim->dc at every build */
static void cpu_set_box(vs_sim *s) { (void)s; }
static int64_t cpu_migrate(vs_sim *s) { return vs_cpu_migrate(cpu(s), s->step); }
static void cpu_build_ghosts(vs_sim *s) { vs_cpu_build_ghosts(cpu(s)); }
static void cpu_update_ghosts(vs_sim *s) { vs_cpu_update_ghosts(cpu(s)); }
static void cpu_build_neighbors(vs_sim *s) { vs_cpu_build_neighbors(cpu(s)); }
static void cpu_forces_begin(vs_sim *s) { vs_cpu_forces_begin(cpu(s)); }
static void cpu_term_forces(vs_sim *s, const vs_term_type *term, int64_t step)
{
    term->cpu(cpu(s), step, s->energy_due);
}
static void cpu_forces_end(vs_sim *s, int64_t step) { vs_cpu_forces_end(cpu(s), step); }
static int64_t cpu_halo_bytes(vs_sim *s) { return vs_cpu_halo_bytes(cpu(s)); }
static void cpu_local_thermo(vs_sim *s, vs_thermo_local *out)
{
    vs_thermo_local_cpu(&s->parts, &s->prm, &cpu(s)->sums, out);
}
static void cpu_local_integrity(vs_sim *s, vs_integrity_local *out)
{
    vs_integrity_local_cpu(&s->parts, out);
}
static double cpu_memory_bytes(vs_sim *s) { return vs_cpu_memory_bytes(cpu(s)); }
static void cpu_profile_sums(vs_sim *s, int axis, int bins, int per_species, int64_t *out)
{
    vs_cpu_profile_sums(cpu(s), axis, bins, per_species, out);
}
/* the state lives in sim->parts: nothing to move or wait for */
static void cpu_nothing(vs_sim *s) { (void)s; }

const vs_backend vs_backend_cpu = {
    .name = "cpu",
    .memory_kind = "host",
    .attach = cpu_attach,
    .detach = cpu_detach,
    .integrate_first_half = cpu_first_half,
    .integrate_second_half = cpu_second_half,
    .max_displacement2 = cpu_max_disp2,
    .ensemble_op = cpu_ensemble_op,
    .brownian_step = cpu_brownian,
    .scale_velocities = cpu_scale_v,
    .shift_velocities = cpu_shift_v,
    .momentum_sums = cpu_momentum_sums,
    .npt_half = cpu_npt_half,
    .set_box = cpu_set_box,
    .migrate = cpu_migrate,
    .build_ghosts = cpu_build_ghosts,
    .update_ghosts = cpu_update_ghosts,
    .build_neighbors = cpu_build_neighbors,
    .forces_begin = cpu_forces_begin,
    .term_forces = cpu_term_forces,
    .forces_end = cpu_forces_end,
    .halo_bytes = cpu_halo_bytes,
    .local_thermo = cpu_local_thermo,
    .local_integrity = cpu_local_integrity,
    .memory_bytes = cpu_memory_bytes,
    .profile_sums = cpu_profile_sums,
    .sync = cpu_nothing,
    .sync_host = cpu_nothing,
    .reload = cpu_nothing,
};

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                char *nl = strchr(colon, '\n');
                if (nl)
                    *nl = '\0';
                snprintf(buf, len, "cpu:%s", colon + 1);
            }
            break;
        }
    }
    fclose(f);
}

const vs_backend *vs_backend_select(vs_backend_kind kind, int n_ranks, char *device,
                                    size_t device_len, char *err, size_t err_len)
{
    if (kind == VS_BACKEND_CPU) {
        cpu_model(device, device_len);
        return &vs_backend_cpu;
    }
#ifdef VESICA_HAVE_CUDA
    char why[256] = "";
    const int n_gpus = vs_gpu_device_count(why, sizeof why);
    (void)n_ranks; /* every rank drives one GPU (shared when ranks outnumber devices) */
    if (n_gpus > 0) {
        vs_gpu_info info;
        if (vs_gpu_device_info(0, &info) == 0)
            snprintf(device, device_len, "gpu: %s", info.name);
        else
            snprintf(device, device_len, "gpu");
        return &vs_backend_gpu;
    }
    if (kind == VS_BACKEND_GPU) {
        snprintf(err, err_len, "backend: \"gpu\" requested but no GPU is usable (%s)", why);
        return NULL;
    }
#else
    (void)n_ranks;
    if (kind == VS_BACKEND_GPU) {
        snprintf(err, err_len,
                 "backend: \"gpu\" requested but this build has no CUDA support "
                 "(configure with -DVESICA_CUDA=ON on a machine with nvcc)");
        return NULL;
    }
#endif
    cpu_model(device, device_len);
    return &vs_backend_cpu;
}
