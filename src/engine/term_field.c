/* The particle-field term (MD-SCF): the forces of the density fields on the particles of the
 * field species (src/core/field_grid.h, the physics; CPU: vs_cpu_field_forces,
 * src/cpu/field_cpu.c). No GPU kernels yet: a configuration with backend = "gpu" is refused
 * (src/app/config_field.c) and "auto" runs on the CPU (simulation.c's select_for_terms). Its
 * reach is zero: the fields need no neighbour list and no ghosts, only the grid's halo. */
#include "term_field.h"

#include <math.h>
#include <stdio.h>

#include "exit_codes.h"
#include "field_grid.h"
#include "forcefield.h"
#include "thermo.h"

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

const vs_term_type vs_term_field = {
    .name = "field",
    .active = field_active,
    .reach = field_reach,
    .cpu = field_cpu,
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

double vs_field_energy(const vs_par *par, void *backend_state)
{
    const vs_cpu_state *s = backend_state;
    vs_wide w = s->field_energy;
    vs_par_sum_wide(par, &w, 1);
    return vs_wide_to_double(w);
}
