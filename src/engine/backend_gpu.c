/* The GPU backend's table: each phase of the step is a launcher of gpu/gpu_backend.h acting
 * on device-resident state. Built only with CUDA (VESICA_HAVE_CUDA). Each rank drives one
 * GPU: its node-local rank modulo the devices it sees. */
#define _POSIX_C_SOURCE 200809L /* gethostname */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "forcefield.h"
#include "gpu.h"
#include "gpu_backend.h"
#include "log.h"
#include "simulation.h"
#include "thermo.h"

static vs_gpu_state *state(vs_sim *s) { return (vs_gpu_state *)s->backend_state; }

/* Log rank -> host -> GPU on rank 0, and warn when ranks of a node share a device. */
static void report_binding(vs_sim *s, int device, int local_rank, int local_size, int n_gpus)
{
    enum { LINE = 256 };
    const vs_par *par = &s->dc.cart;
    char host[64] = "?";
    gethostname(host, sizeof host - 1);
    vs_gpu_info info;
    if (vs_gpu_device_info(device, &info) != 0)
        snprintf(info.uuid, sizeof info.uuid, "?");
    char line[LINE];
    snprintf(line, sizeof line, "rank %d -> %s (local rank %d) -> GPU %d %s", par->rank, host,
             local_rank, device, info.uuid);
    char *all = VS_MALLOC((size_t)par->size * LINE);
    vs_par_allgather_bytes(par, line, LINE, all);
    if (par->size > 1)
        for (int r = 0; r < par->size; ++r)
            vs_log_info("%s", all + (size_t)r * LINE);
    free(all);
    if (local_rank == 0 && local_size > n_gpus)
        vs_log_warn("%d ranks on %s share %d GPU%s: ranks on one device run one after the "
                    "other", local_size, host, n_gpus, n_gpus == 1 ? "" : "s");
}

static int gpu_attach(vs_sim *s, char *err, size_t err_len)
{
    int local_rank = 0, local_size = 1;
    vs_par_node_layout(&s->dc.cart, &local_rank, &local_size, NULL);
    const int n_gpus = vs_gpu_device_count(NULL, 0);
    const int device = n_gpus > 0 ? local_rank % n_gpus : 0;
    /* the ghost shell as on the CPU (comm/halo.h): the list radius, and with molecules the
     * bonded terms' reach plus the skin for bonded beads where that is wider */
    const double width = s->list_radius;
    const double bonded = s->bonded_width > width ? s->bonded_width : width;
    /* owned particles plus the ghost shell: the brick's volume grown by the ghost width, and
     * by the bonded width for the share of beads in molecules */
    double grow = 1.0, grow_bonded = 1.0;
    for (int d = 0; d < 3; ++d) {
        const double len = s->dc.hi[d] - s->dc.lo[d];
        grow *= (len + 2.0 * width) / len;
        grow_bonded *= (len + 2.0 * bonded) / len;
    }
    const double bonded_share =
        s->prm.system.n_particles > 0 ? (double)s->prm.molecules.n_molecule_beads / (double)s->prm.system.n_particles
                               : 0.0;
    grow += bonded_share * (grow_bonded - grow);
    const int64_t hint = (int64_t)(grow * (double)s->prm.system.n_particles / s->dc.cart.size);
    s->backend_state = vs_gpu_create(&s->prm, s->dc.lo, s->dc.hi, width, bonded, device,
                                     hint + 1024, err, err_len);
    /* the rest is collective: every rank must know whether every device came up */
    if (vs_par_any(&s->dc.cart, s->backend_state == NULL)) {
        if (s->backend_state) {
            vs_gpu_destroy(state(s));
            s->backend_state = NULL;
            snprintf(err, err_len, "a GPU failed to start on another rank");
        }
        return 1;
    }
    report_binding(s, device, local_rank, local_size, n_gpus);
    char links[128];
    const int bad = vs_gpu_set_comm(state(s), &s->dc, s->prm.exec.transport, links, sizeof links,
                                    err, err_len) != 0;
    if (vs_par_any(&s->dc.cart, bad)) {
        if (!bad)
            snprintf(err, err_len, "comm.transport: refused on another rank");
        return 1;
    }
    if (s->dc.cart.size > 1)
        vs_log_info("GPU halo transport: %s", links);
    vs_gpu_upload_owned(state(s), &s->parts);
    vs_gpu_describe(state(s), s->device + 5, sizeof s->device - 5); /* after "gpu: " */
    vs_gpu_plan_describe(state(s), s->plan, sizeof s->plan);
    return 0;
}

static void gpu_detach(vs_sim *s)
{
    int64_t launched = 0, made = 0;
    vs_gpu_graph_counts(state(s), &launched, &made);
    if (launched > 0)
        vs_log_info("GPU graphs: %lld steps ran as one graph each (%lld made, the others "
                    "updated)", (long long)launched, (long long)made);
    vs_gpu_destroy(state(s));
    s->backend_state = NULL;
}

static void gpu_first_half(vs_sim *s) { vs_gpu_integrate_first_half(state(s)); }
static void gpu_second_half(vs_sim *s) { vs_gpu_integrate_second_half(state(s)); }
static void gpu_finish_and_first_half(vs_sim *s)
{
    vs_gpu_integrate_finish_and_first_half(state(s));
}
static void gpu_ensemble_op(vs_sim *s, int op, int64_t step)
{
    vs_gpu_ensemble_op(state(s), op, step, &s->ens_c);
}
static void gpu_brownian(vs_sim *s, int64_t step)
{
    vs_gpu_brownian_step(state(s), step, &s->ens_c);
}
static void gpu_scale_v(vs_sim *s, double f) { vs_gpu_scale_velocities(state(s), f); }
static void gpu_shift_v(vs_sim *s, const double dv[3]) { vs_gpu_shift_velocities(state(s), dv); }
static int gpu_momentum_sums(vs_sim *s, vs_wide out[5])
{
    return vs_gpu_momentum_sums(state(s), out);
}
static void gpu_npt_half(vs_sim *s, const vs_npt_coefs *c, int first)
{
    vs_gpu_npt_half(state(s), c, first);
}
static void gpu_set_box(vs_sim *s) { vs_gpu_set_box(state(s), s->prm.system.box, s->dc.lo, s->dc.hi); }
static double gpu_max_disp2(vs_sim *s) { return vs_gpu_max_displacement2(state(s)); }
static int64_t gpu_migrate(vs_sim *s) { return vs_gpu_migrate(state(s), s->step); }
static void gpu_build_ghosts(vs_sim *s) { vs_gpu_build_ghosts(state(s)); }
static void gpu_update_ghosts(vs_sim *s) { vs_gpu_update_ghosts(state(s)); }
static void gpu_build_neighbors(vs_sim *s) { vs_gpu_build_neighbors(state(s)); }
/* The first pair term starts the forces in its kernel (forcefield.h). */
static void gpu_forces_begin(vs_sim *s) { (void)s; }
static void gpu_term_forces(vs_sim *s, const vs_term_type *term, int64_t step)
{
    term->gpu(state(s), step, s->energy_due);
}

static int gpu_can_overlap(vs_sim *s, const vs_term_type *term)
{
    return term->gpu_overlapped != NULL && vs_gpu_can_overlap(state(s));
}
static void gpu_update_ghosts_and_term_forces(vs_sim *s, const vs_term_type *term,
                                              int64_t step, double *comm_s, double *hidden_s)
{
    term->gpu_overlapped(state(s), step, s->energy_due, comm_s, hidden_s);
}
static int64_t gpu_halo_bytes(vs_sim *s) { return vs_gpu_halo_bytes(state(s)); }

static void gpu_local_thermo(vs_sim *s, vs_thermo_local *out)
{
    vs_wide sums[VS_EXACT_SUMS];
    const int out_of_range = vs_gpu_thermo(state(s), sums);
    vs_thermo_local_exact(sums, !out_of_range, out);
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
static void gpu_profile_sums(vs_sim *s, int axis, int bins, int per_species, int64_t *out)
{
    vs_gpu_profile_sums(state(s), axis, bins, per_species, out);
}
static void gpu_sync(vs_sim *s) { vs_gpu_synchronize(state(s)); }
static void gpu_phase_mark(vs_sim *s, int phase) { vs_gpu_phase_mark(state(s), phase); }
static void gpu_phase_settle(vs_sim *s)
{
    vs_gpu_phase_settle(state(s), s->timers.total, VS_TIMER_COUNT);
}
static int gpu_collect_begin(vs_sim *s) { return vs_gpu_graph_begin(state(s)); }
static void gpu_collect_end(vs_sim *s) { vs_gpu_graph_end(state(s)); }
static void gpu_sync_host(vs_sim *s) { vs_gpu_download_owned(state(s), &s->parts); }
static void gpu_reload(vs_sim *s) { vs_gpu_upload_owned(state(s), &s->parts); }

const vs_backend vs_backend_gpu = {
    .name = "gpu",
    .memory_kind = "device",
    .attach = gpu_attach,
    .detach = gpu_detach,
    .integrate_first_half = gpu_first_half,
    .integrate_second_half = gpu_second_half,
    .integrate_finish_and_first_half = gpu_finish_and_first_half,
    .max_displacement2 = gpu_max_disp2,
    .ensemble_op = gpu_ensemble_op,
    .brownian_step = gpu_brownian,
    .scale_velocities = gpu_scale_v,
    .shift_velocities = gpu_shift_v,
    .momentum_sums = gpu_momentum_sums,
    .npt_half = gpu_npt_half,
    .set_box = gpu_set_box,
    .migrate = gpu_migrate,
    .build_ghosts = gpu_build_ghosts,
    .update_ghosts = gpu_update_ghosts,
    .build_neighbors = gpu_build_neighbors,
    .forces_begin = gpu_forces_begin,
    .term_forces = gpu_term_forces,
    .can_overlap = gpu_can_overlap,
    .update_ghosts_and_term_forces = gpu_update_ghosts_and_term_forces,
    .halo_bytes = gpu_halo_bytes,
    .local_thermo = gpu_local_thermo,
    .local_integrity = gpu_local_integrity,
    .memory_bytes = gpu_memory_bytes,
    .profile_sums = gpu_profile_sums,
    .sync = gpu_sync,
    .phase_mark = gpu_phase_mark,
    .phase_settle = gpu_phase_settle,
    .step_collect_begin = gpu_collect_begin,
    .step_collect_end = gpu_collect_end,
    .sync_host = gpu_sync_host,
    .reload = gpu_reload,
};
