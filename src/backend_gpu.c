/* The GPU backend's table: each phase of the step is a launcher of gpu/gpu_backend.h acting
 * on device-resident state. Built only with CUDA (VESICA_HAVE_CUDA). This version drives one
 * GPU from one rank, whose ghosts are the periodic images made on the device. */
#include <stdio.h>

#include "backend.h"
#include "gpu_backend.h"
#include "simulation.h"

static vs_gpu_state *state(vs_sim *s) { return (vs_gpu_state *)s->gpu; }

static int gpu_attach(vs_sim *s, char *err, size_t err_len)
{
    /* owned particles plus the ghost shell: the brick's volume grown by the ghost width */
    double grow = 1.0;
    for (int d = 0; d < 3; ++d)
        grow *= (s->dc.hi[d] - s->dc.lo[d] + 2.0 * s->ghost_width) / (s->dc.hi[d] - s->dc.lo[d]);
    const int64_t hint = (int64_t)(grow * 1.02 * (double)s->prm.n_particles / s->dc.cart.size);
    s->gpu = vs_gpu_create(&s->prm, s->dc.lo, s->dc.hi, s->ghost_width, 0, hint + 1024, err,
                           err_len);
    if (!s->gpu)
        return 1;
    vs_gpu_upload_owned(state(s), &s->parts);
    vs_gpu_describe(state(s), s->device + 5, sizeof s->device - 5); /* after "gpu: " */
    return 0;
}

static void gpu_detach(vs_sim *s)
{
    vs_gpu_destroy(state(s));
    s->gpu = NULL;
}

static void gpu_first_half(vs_sim *s) { vs_gpu_integrate_first_half(state(s)); }
static void gpu_second_half(vs_sim *s) { vs_gpu_integrate_second_half(state(s)); }
static double gpu_max_disp2(vs_sim *s) { return vs_gpu_max_displacement2(state(s)); }
static int64_t gpu_migrate(vs_sim *s) { return vs_gpu_wrap_and_sort(state(s)); }
static void gpu_build_ghosts(vs_sim *s) { vs_gpu_build_ghosts_self(state(s)); }
static void gpu_update_ghosts(vs_sim *s) { vs_gpu_update_ghosts_self(state(s)); }
static void gpu_build_neighbors(vs_sim *s) { vs_gpu_build_neighbors(state(s)); }
static void gpu_forces(vs_sim *s, int64_t step)
{
    vs_gpu_forces(state(s), step, s->energy_due);
}

static void gpu_local_thermo(vs_sim *s, vs_thermo_local *out)
{
    double sums[6];
    vs_gpu_thermo(state(s), sums);
    for (int d = 0; d < 3; ++d)
        out->momentum[d] = sums[d];
    out->kinetic = sums[3];
    out->potential = sums[4];
    out->virial = sums[5];
}

static void gpu_local_integrity(vs_sim *s, vs_integrity_local *out)
{
    uint64_t sums[3];
    vs_gpu_integrity(state(s), sums, &out->bad_tag);
    out->count = sums[0];
    out->tag_sum = sums[1];
    out->tag_square_sum = sums[2];
}

static double gpu_memory_bytes(vs_sim *s) { return (double)vs_gpu_memory_bytes(state(s)); }
static void gpu_sync(vs_sim *s) { vs_gpu_synchronize(state(s)); }
static void gpu_sync_host(vs_sim *s) { vs_gpu_download_owned(state(s), &s->parts); }
static void gpu_reload(vs_sim *s) { vs_gpu_upload_owned(state(s), &s->parts); }

const vs_backend vs_backend_gpu = {
    .name = "gpu",
    .attach = gpu_attach,
    .detach = gpu_detach,
    .integrate_first_half = gpu_first_half,
    .integrate_second_half = gpu_second_half,
    .max_displacement2 = gpu_max_disp2,
    .migrate = gpu_migrate,
    .build_ghosts = gpu_build_ghosts,
    .update_ghosts = gpu_update_ghosts,
    .build_neighbors = gpu_build_neighbors,
    .compute_forces = gpu_forces,
    .local_thermo = gpu_local_thermo,
    .local_integrity = gpu_local_integrity,
    .memory_bytes = gpu_memory_bytes,
    .sync = gpu_sync,
    .sync_host = gpu_sync_host,
    .reload = gpu_reload,
};
