/* Density-field frames: see run_fields.h. */
#define _POSIX_C_SOURCE 200809L
#include "run_fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "backend.h"
#include "config.h"
#include "field_grid.h"
#include "log.h"

/* The grid of field.spacing and this rank's owned vertices, as the field term has them
 * (vs_field_owned over the rank grid). */
static void set_layout(vs_run_fields *rf, const vs_sim *sim, const vs_params *prm)
{
    vs_fields_layout *L = &rf->layout;
    for (int d = 0; d < 3; ++d) {
        L->n[d] = (int)llround(prm->system.box[d] / prm->field.spacing);
        L->h[d] = prm->system.box[d] / L->n[d];
        vs_field_owned(L->n[d], sim->dc.coords[d], sim->dc.dims[d], &L->a[d], &L->b[d]);
    }
    L->nf = prm->field.n;
    for (int k = 0; k < prm->field.n; ++k)
        rf->names[k] = prm->species.list[prm->field.species[k]].name;
    L->names = rf->names;
}

int vs_run_fields_start(vs_run_fields *rf, vs_sim *sim, const vs_params *prm,
                        const char *config_text, int64_t restart_step)
{
    const vs_par *par = &sim->dc.cart;
    rf->interval = prm->output.field_interval;
    if (rf->interval <= 0)
        return 0;
    snprintf(rf->path, sizeof rf->path, "%s/fields.h5", prm->output.dir);
    set_layout(rf, sim, prm);
    if (!sim->backend->field_phi) {
        if (par->rank == 0)
            fprintf(stderr, "vesica: error: output.field_interval: backend %s cannot give "
                    "the density fields yet\n", sim->backend->name);
        return 1;
    }
    char err[VS_ERR_LEN] = "";
    int exists = par->rank == 0 && restart_step >= 0 && access(rf->path, F_OK) == 0;
    vs_par_bcast_bytes(par, &exists, sizeof exists, 0);
    int rc;
    if (exists) {
        const int64_t kept = vs_fields_h5_trim(par, rf->path, &rf->layout, restart_step, err,
                                               sizeof err);
        rc = kept < 0;
        if (!rc)
            vs_log_info("Fields %s: %lld frame(s) up to step %lld kept, appending", rf->path,
                        (long long)kept, (long long)restart_step);
        else if (par->rank == 0)
            fprintf(stderr, "vesica: error: %s (move it away to start new field frames)\n",
                    err);
        return rc;
    }
    if (restart_step >= 0)
        vs_log_warn("%s not found: field frames start at step %lld", rf->path,
                    (long long)restart_step);
    rc = vs_fields_h5_create(par, rf->path, &rf->layout, config_text, err, sizeof err) != 0;
    if (rc && par->rank == 0)
        fprintf(stderr, "vesica: error: %s\n", err);
    else
        vs_log_info("Fields: %s, phi of %d species on %d x %d x %d vertices every %lld steps",
                    rf->path, rf->layout.nf, rf->layout.n[0], rf->layout.n[1], rf->layout.n[2],
                    (long long)rf->interval);
    return rc;
}

int vs_run_fields_write(vs_run_fields *rf, vs_sim *sim)
{
    const vs_fields_layout *L = &rf->layout;
    const size_t owned = (size_t)(L->b[0] - L->a[0]) * (size_t)(L->b[1] - L->a[1]) *
                         (size_t)(L->b[2] - L->a[2]);
    double *phi = VS_MALLOC(sizeof(double) * owned * (size_t)(L->nf > 0 ? L->nf : 1));
    sim->backend->field_phi(sim->backend_state, phi);
    char err[VS_ERR_LEN] = "";
    const double time = (double)sim->step * sim->prm.integrator.dt;
    const int rc = vs_fields_h5_append(&sim->dc.cart, rf->path, L, sim->step, time, phi, err,
                                       sizeof err) != 0;
    free(phi);
    if (rc && sim->dc.cart.rank == 0)
        fprintf(stderr, "vesica: error: %s\n", err);
    return rc;
}
