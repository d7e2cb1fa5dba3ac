/* The particle-field term (MD-SCF): the forces of the density fields on the particles of the
 * field species (src/core/field_grid.h, the physics; CPU: vs_cpu_field_forces,
 * src/cpu/field_cpu.c; GPU: vs_gpu_field_forces, gpu/gpu_field.cu). Its reach is zero: the
 * fields need no neighbour list and no ghosts, only the grid's halo. */
#include "term_field.h"

#include <math.h>
#include <stdio.h>

#include "exit_codes.h"
#include "field_grid.h"
#include "forcefield.h"
#include "thermo.h"

#ifdef VESICA_HAVE_CUDA
#include "gpu_backend.h"
#endif

static int field_active(const vs_params *prm) { return prm->field.on; }

static double field_reach(const vs_params *prm)
{
    (void)prm;
    return 0.0;
}

static void field_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)
{
    vs_cpu_field_forces(cpu, step, want_energy);
}

#ifdef VESICA_HAVE_CUDA
static void field_gpu(struct vs_gpu_state *gpu, int64_t step, int want_energy)
{
    vs_gpu_field_forces(gpu, step, want_energy);
}
#endif

const vs_term_type vs_term_field = {
    .name = "field",
    .active = field_active,
    .reach = field_reach,
    .cpu = field_cpu,
#ifdef VESICA_HAVE_CUDA
    .gpu = field_gpu,
#endif
};

int vs_field_check_layout(const vs_params *prm, const int dims[3], char *err, size_t err_len)
{
    if (!prm->field.on)
        return 0;
    const double h = prm->field.spacing;
    int halo = 0; /* the blocks' halo: the widest axis's (field_cpu.c) */
    for (int d = 0; d < 3; ++d) {
        const int hd = vs_field_halo(prm->neighbor.skin, prm->system.box[d] / round(
                                         prm->system.box[d] / h));
        halo = hd > halo ? hd : halo;
    }
    for (int d = 0; d < 3; ++d) {
        const double cells = prm->system.box[d] / h;
        const double n = round(cells);
        if (!(fabs(cells - n) <= 1e-9 * cells) || n < 4.0) {
            snprintf(err, err_len, "field.spacing: expected a whole number of grid cells, at "
                     "least 4, along each box edge (box %c %g / spacing %g = %.6g cells)",
                     "xyz"[d], prm->system.box[d], h, cells);
            return VS_EXIT_BAD_INPUT;
        }
        const int fewest = (int)n / dims[d];
        if (fewest < halo) {
            snprintf(err, err_len, "field.spacing: %d ranks along %c leave a brick %d grid "
                     "cells wide; the field needs at least %d (3 + skin / (2 spacing), rounded "
                     "up): use fewer ranks along %c, a finer grid or a smaller skin", dims[d],
                     "xyz"[d], fewest, halo, "xyz"[d]);
            return VS_EXIT_BAD_INPUT;
        }
    }
    return 0;
}

double vs_field_energy(const vs_par *par, const vs_backend *backend, void *backend_state)
{
    vs_wide w = 0;
    int bad = 0; /* the GPU's sums mark a vertex out of range here; the CPU's in its sums */
    if (backend == &vs_backend_cpu) {
        w = ((const vs_cpu_state *)backend_state)->field_energy;
    } else {
#ifdef VESICA_HAVE_CUDA
        bad = vs_gpu_field_energy(backend_state, &w);
#endif
    }
    vs_par_sum_wide(par, &w, 1);
    if (vs_par_any(par, bad))
        return NAN;
    return vs_wide_to_double(w);
}
