/* Backend tables and selection: see backend.h. The CPU table wires the reference modules
 * (integrate.c, halo.c, neighbor.c, forces_cpu.c) into the step's phases. */
#include "backend.h"

#include <stdio.h>
#include <string.h>

#include "forces_cpu.h"
#include "halo.h"
#include "integrate.h"
#include "neighbor.h"
#include "simulation.h"
#ifdef VESICA_HAVE_CUDA
#include "gpu.h"
#endif

static void cpu_first_half(vs_sim *s) { vs_integrate_first_half(&s->parts, &s->prm); }
static void cpu_second_half(vs_sim *s) { vs_integrate_second_half(&s->parts, &s->prm); }
static double cpu_max_disp2(vs_sim *s) { return vs_neighbor_max_displacement2(&s->parts); }
static int64_t cpu_migrate(vs_sim *s)
{
    const int64_t moved = vs_halo_migrate(&s->halo, &s->dc, &s->parts, s->step);
    vs_neighbor_sort_owned(&s->nl, &s->parts, s->dc.lo, s->dc.hi, s->prm.rc + s->prm.skin);
    return moved;
}
static void cpu_build_ghosts(vs_sim *s)
{
    vs_halo_build_ghosts(&s->halo, &s->dc, &s->parts, s->ghost_width);
}
static void cpu_update_ghosts(vs_sim *s) { vs_halo_update_ghosts(&s->halo, &s->dc, &s->parts); }
static void cpu_build_neighbors(vs_sim *s)
{
    vs_neighbor_build(&s->nl, &s->parts, s->dc.lo, s->dc.hi, s->ghost_width,
                      s->prm.rc + s->prm.skin);
    vs_neighbor_mark_built(&s->parts);
}
static void cpu_forces(vs_sim *s, int64_t step)
{
    vs_forces_cpu(&s->nl, &s->parts, &s->prm, &s->dpd, step, &s->sums);
}

static int64_t cpu_halo_bytes(vs_sim *s) { return s->halo.bytes_last_exchange; }

static void cpu_local_thermo(vs_sim *s, vs_thermo_local *out)
{
    vs_thermo_local_cpu(&s->parts, &s->prm, &s->sums, out);
}
static void cpu_local_integrity(vs_sim *s, vs_integrity_local *out)
{
    vs_integrity_local_cpu(&s->parts, out);
}
static void cpu_sync_host(vs_sim *s) { (void)s; }
static void cpu_reload(vs_sim *s) { (void)s; }
static void cpu_sync(vs_sim *s) { (void)s; }
static double cpu_memory_bytes(vs_sim *s)
{
    const vs_neighbor *nl = &s->nl;
    return (double)s->parts.capacity * (double)vs_particles_bytes_per_slot() +
           8.0 * (double)(nl->cap_partners + nl->cap_start + nl->cap_cells +
                          2 * nl->cap_particles + 2 * nl->cap_sort);
}
static int cpu_attach(vs_sim *s, char *err, size_t err_len)
{
    (void)s;
    (void)err;
    (void)err_len;
    return 0;
}
static void cpu_detach(vs_sim *s) { (void)s; }

const vs_backend vs_backend_cpu = {
    .name = "cpu",
    .attach = cpu_attach,
    .detach = cpu_detach,
    .integrate_first_half = cpu_first_half,
    .integrate_second_half = cpu_second_half,
    .max_displacement2 = cpu_max_disp2,
    .migrate = cpu_migrate,
    .build_ghosts = cpu_build_ghosts,
    .update_ghosts = cpu_update_ghosts,
    .build_neighbors = cpu_build_neighbors,
    .compute_forces = cpu_forces,
    .halo_bytes = cpu_halo_bytes,
    .local_thermo = cpu_local_thermo,
    .local_integrity = cpu_local_integrity,
    .memory_bytes = cpu_memory_bytes,
    .sync = cpu_sync,
    .sync_host = cpu_sync_host,
    .reload = cpu_reload,
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
