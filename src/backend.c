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

static void cpu_local_thermo(vs_sim *s, vs_thermo_local *out)
{
    vs_thermo_local_cpu(&s->parts, &s->prm, &s->sums, out);
}
static void cpu_local_integrity(vs_sim *s, vs_integrity_local *out)
{
    vs_integrity_local_cpu(&s->parts, out);
}
static void cpu_sync_host(vs_sim *s) { (void)s; }

const vs_backend vs_backend_cpu = {
    .name = "cpu",
    .integrate_first_half = cpu_first_half,
    .integrate_second_half = cpu_second_half,
    .max_displacement2 = cpu_max_disp2,
    .migrate = cpu_migrate,
    .build_ghosts = cpu_build_ghosts,
    .update_ghosts = cpu_update_ghosts,
    .build_neighbors = cpu_build_neighbors,
    .compute_forces = cpu_forces,
    .local_thermo = cpu_local_thermo,
    .local_integrity = cpu_local_integrity,
    .sync_host = cpu_sync_host,
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

const vs_backend *vs_backend_select(vs_backend_kind kind, char *device, size_t device_len,
                                    char *err, size_t err_len)
{
    if (kind == VS_BACKEND_GPU) {
#ifdef VESICA_HAVE_CUDA
        char why[256] = "";
        int n = vs_gpu_device_count(why, sizeof why);
        if (n == 0)
            snprintf(err, err_len, "backend: \"gpu\" requested but no GPU is usable (%s)", why);
        else
            snprintf(err, err_len,
                     "backend: \"gpu\" requested, but the GPU backend is not part of this "
                     "version yet (%d GPU(s) visible); use \"cpu\" or \"auto\"", n);
#else
        snprintf(err, err_len,
                 "backend: \"gpu\" requested but this build has no CUDA support "
                 "(configure with -DVESICA_CUDA=ON on a machine with nvcc)");
#endif
        return NULL;
    }
    /* auto: the GPU backend joins here once it exists; until then auto means cpu */
    cpu_model(device, device_len);
    return &vs_backend_cpu;
}
