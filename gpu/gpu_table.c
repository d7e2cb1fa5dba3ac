/* The GPU backend's table (backend_table.h): attach, which binds a device, uploads the state
 * and chooses the plan, and the step's phases as the launchers of gpu_backend.h, each acting
 * on device-resident state (st: a vs_gpu_state). Built only with CUDA. Each rank drives one
 * GPU: its node-local rank modulo the devices it sees. */
#define _POSIX_C_SOURCE 200809L /* gethostname */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decomp.h"
#include "gpu.h"
#include "gpu_backend.h"
#include "log.h"
#include "parallel.h"

/* Log rank -> host -> GPU on rank 0, and warn when ranks of a node share a device. */
static void report_binding(const vs_par *par, int device, int local_rank, int local_size,
                           int n_gpus)
{
    enum { LINE = 256 };
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

static int gpu_attach(const vs_backend_setup *s, void **st, char *err, size_t err_len)
{
    const vs_decomp *dc = s->dc;
    const vs_params *prm = s->prm;
    int local_rank = 0, local_size = 1;
    vs_par_node_layout(&dc->cart, &local_rank, &local_size, NULL);
    const int n_gpus = vs_gpu_device_count(NULL, 0);
    const int device = n_gpus > 0 ? local_rank % n_gpus : 0;
    /* the ghost shell as on the CPU (comm/halo.h): the list radius, and with molecules and
     * several ranks the bonded terms' reach plus the skin for bonded beads where that is
     * wider. At one rank every partner is owned and the bonded terms take the owned copy
     * (the tag map's lowest index) by the minimum image (gpu_bonded.cu), with or without
     * its ghosts: the same bits from the pair terms' shell alone. */
    const double width = s->list_radius;
    const double bonded =
        dc->cart.size > 1 && s->bonded_width > width ? s->bonded_width : width;
    /* owned particles plus the ghost shell: the brick's volume grown by the ghost width, and
     * by the bonded width for the share of beads in molecules */
    double grow = 1.0, grow_bonded = 1.0;
    for (int d = 0; d < 3; ++d) {
        const double len = dc->hi[d] - dc->lo[d];
        grow *= (len + 2.0 * width) / len;
        grow_bonded *= (len + 2.0 * bonded) / len;
    }
    const double bonded_share =
        prm->system.n_particles > 0 ? (double)prm->molecules.n_molecule_beads / (double)prm->system.n_particles
                               : 0.0;
    grow += bonded_share * (grow_bonded - grow);
    const int64_t hint = (int64_t)(grow * (double)prm->system.n_particles / dc->cart.size);
    vs_gpu_state *g = vs_gpu_create(prm, dc->lo, dc->hi, width, bonded, device,
                                     hint + 1024, err, err_len);
    /* the rest is collective: every rank must know whether every device came up */
    if (vs_par_any(&dc->cart, g == NULL)) {
        if (g) {
            vs_gpu_destroy(g);
            snprintf(err, err_len, "a GPU failed to start on another rank");
        }
        return 1;
    }
    *st = g;
    report_binding(&dc->cart, device, local_rank, local_size, n_gpus);
    char links[128];
    const int bad = vs_gpu_set_comm(g, dc, prm->exec.transport, links, sizeof links,
                                    err, err_len) != 0;
    if (vs_par_any(&dc->cart, bad)) {
        if (!bad)
            snprintf(err, err_len, "comm.transport: refused on another rank");
        return 1;
    }
    if (dc->cart.size > 1)
        vs_log_info("GPU halo transport: %s", links);
    vs_gpu_upload_owned(g, s->parts);
    if (s->device_len > 5) /* after "gpu: " */
        vs_gpu_describe(g, s->device + 5, s->device_len - 5);
    vs_gpu_plan_describe(g, s->plan, s->plan_len);
    return 0;
}

static void gpu_detach(void *st)
{
    vs_gpu_state *g = st;
    int64_t launched[VS_COLLECT_PARTS], made = 0;
    vs_gpu_graph_counts(g, launched, &made);
    const int64_t before = launched[VS_COLLECT_BEFORE_REACTION];
    const int64_t after = launched[VS_COLLECT_AFTER_REACTION];
    if (before + after > 0)
        vs_log_info("GPU graphs: %lld steps ran as one graph each, reaction steps as graphs up "
                    "to their events %lld times and after them %lld times (%lld made, the "
                    "others updated)", (long long)launched[VS_COLLECT_STEP], (long long)before,
                    (long long)after, (long long)made);
    else if (launched[VS_COLLECT_STEP] > 0)
        vs_log_info("GPU graphs: %lld steps ran as one graph each (%lld made, the others "
                    "updated)", (long long)launched[VS_COLLECT_STEP], (long long)made);
    vs_gpu_destroy(g);
}

/* The launchers take the state as a vs_gpu_state; the table passes it as the backend's own
 * pointer. Where a launcher's arguments are the table's, the conversion is all there is,
 * and the owned particles' number is settled first (vs_gpu_settle_owned: the slab path keeps
 * it on the device from its migration to the next step), except in the step's exchange, its
 * forces and the calls that read no particle (migrate settles it itself). */
static void gpu_first_half(void *st)
{
    vs_gpu_settle_owned(st);
    vs_gpu_integrate_first_half(st);
}
static void gpu_second_half(void *st)
{
    vs_gpu_settle_owned(st);
    vs_gpu_integrate_second_half(st);
}
static void gpu_finish_and_first_half(void *st)
{
    vs_gpu_settle_owned(st);
    vs_gpu_integrate_finish_and_first_half(st);
}
static double gpu_max_displacement2(void *st)
{
    vs_gpu_settle_owned(st);
    return vs_gpu_max_displacement2(st);
}
static void gpu_ensemble_op(void *st, int op, int64_t step, const vs_ensemble_consts *c)
{
    vs_gpu_settle_owned(st);
    vs_gpu_ensemble_op(st, op, step, c);
}
static void gpu_brownian_step(void *st, int64_t step, const vs_ensemble_consts *c)
{
    vs_gpu_settle_owned(st);
    vs_gpu_brownian_step(st, step, c);
}
static void gpu_scale_velocities(void *st, double f)
{
    vs_gpu_settle_owned(st);
    vs_gpu_scale_velocities(st, f);
}
static void gpu_shift_velocities(void *st, const double dv[3])
{
    vs_gpu_settle_owned(st);
    vs_gpu_shift_velocities(st, dv);
}
static int gpu_kinetic_sums(void *st, vs_wide out[VS_KINETIC_SUMS])
{
    vs_gpu_settle_owned(st);
    return vs_gpu_kinetic_sums(st, out);
}
static void gpu_scale_rotation(void *st, double s)
{
    vs_gpu_settle_owned(st);
    vs_gpu_scale_rotation(st, s);
}
static void gpu_berendsen_half_steps(void *st, int with_first_half, double dof,
                                     void (*sum)(const void *, vs_wide *, int),
                                     const void *sum_ctx)
{
    vs_gpu_settle_owned(st);
    vs_gpu_berendsen_half_steps(st, with_first_half, dof, sum, sum_ctx);
}
static void gpu_langevin_half_steps(void *st, int64_t step, const vs_ensemble_consts *c)
{
    vs_gpu_settle_owned(st);
    vs_gpu_langevin_half_steps(st, step, c);
}
static void gpu_npt_half(void *st, const vs_npt_coefs *c, int first)
{
    vs_gpu_settle_owned(st);
    vs_gpu_npt_half(st, c, first);
}
static void gpu_set_box(void *st, const double box[3], const double lo[3], const double hi[3])
{
    vs_gpu_settle_owned(st);
    vs_gpu_set_box(st, box, lo, hi);
}
static int64_t gpu_migrate(void *st, int64_t step) { return vs_gpu_migrate(st, step); }
static void gpu_build_ghosts(void *st) { vs_gpu_build_ghosts(st); }
static void gpu_update_ghosts(void *st)
{
    vs_gpu_settle_owned(st);
    vs_gpu_update_ghosts(st);
}
static void gpu_build_neighbors(void *st) { vs_gpu_build_neighbors(st); }
/* The first pair term starts the forces in its kernel (src/engine/forcefield.h); with
 * VS_WANT_TENSOR the virial tensor's sums start at zero here. */
static void gpu_forces_begin(void *st, int want) { vs_gpu_tensor_begin(st, want); }
static int gpu_can_overlap(void *st) { return vs_gpu_can_overlap(st); }
static int64_t gpu_halo_bytes(void *st)
{
    vs_gpu_settle_owned(st); /* the slab path's last exchange comes back with the number */
    return vs_gpu_halo_bytes(st);
}

static void gpu_local_thermo(void *st, vs_thermo_local *out)
{
    vs_gpu_settle_owned(st);
    vs_wide sums[VS_EXACT_SUMS];
    const int out_of_range = vs_gpu_thermo(st, sums);
    vs_thermo_local_exact(sums, !out_of_range, out);
    vs_gpu_tensor_local(st, out); /* output.pressure_tensor's sums, where asked */
}

static void gpu_local_integrity(void *st, vs_integrity_local *out)
{
    vs_gpu_settle_owned(st);
    uint64_t sums[3];
    vs_gpu_integrity(st, sums, &out->bad_tag);
    out->count = sums[0];
    out->tag_sum = sums[1];
    out->tag_square_sum = sums[2];
}

static double gpu_memory_bytes(void *st) { return (double)vs_gpu_memory_bytes(st); }
static void gpu_profile_sums(void *st, int axis, int bins, int per_species, int64_t *out)
{
    vs_gpu_settle_owned(st);
    vs_gpu_profile_sums(st, axis, bins, per_species, out);
}
static void gpu_sync(void *st)
{
    vs_gpu_settle_owned(st);
    vs_gpu_synchronize(st);
}
static void gpu_phase_mark(void *st, int phase, double weight)
{
    vs_gpu_phase_mark(st, phase, weight);
}
static void gpu_phase_settle(void *st, double *seconds, int n_phases)
{
    vs_gpu_phase_settle(st, seconds, n_phases);
}
static int gpu_collect_begin(void *st, int part) { return vs_gpu_graph_begin(st, part); }
static void gpu_collect_end(void *st) { vs_gpu_graph_end(st); }
static void gpu_field_phi(void *st, double *out)
{
    vs_gpu_settle_owned(st);
    vs_gpu_field_phi(st, out);
}
static void gpu_sync_host(void *st, vs_particles *host)
{
    vs_gpu_settle_owned(st);
    vs_gpu_download_owned(st, host);
}
static void gpu_reload(void *st, const vs_particles *host)
{
    vs_gpu_settle_owned(st);
    vs_gpu_upload_owned(st, host);
}

const vs_backend vs_backend_gpu = {
    .name = "gpu",
    .memory_kind = "device",
    .attach = gpu_attach,
    .detach = gpu_detach,
    .integrate_first_half = gpu_first_half,
    .integrate_second_half = gpu_second_half,
    .integrate_finish_and_first_half = gpu_finish_and_first_half,
    .max_displacement2 = gpu_max_displacement2,
    .ensemble_op = gpu_ensemble_op,
    .brownian_step = gpu_brownian_step,
    .scale_velocities = gpu_scale_velocities,
    .shift_velocities = gpu_shift_velocities,
    .kinetic_sums = gpu_kinetic_sums,
    .scale_rotation = gpu_scale_rotation,
    .berendsen_half_steps = gpu_berendsen_half_steps,
    .langevin_half_steps = gpu_langevin_half_steps,
    .npt_half = gpu_npt_half,
    .set_box = gpu_set_box,
    .migrate = gpu_migrate,
    .build_ghosts = gpu_build_ghosts,
    .update_ghosts = gpu_update_ghosts,
    .build_neighbors = gpu_build_neighbors,
    .forces_begin = gpu_forces_begin,
    .can_overlap = gpu_can_overlap,
    .halo_bytes = gpu_halo_bytes,
    .local_thermo = gpu_local_thermo,
    .local_integrity = gpu_local_integrity,
    .memory_bytes = gpu_memory_bytes,
    .profile_sums = gpu_profile_sums,
    .field_phi = gpu_field_phi,
    .sync = gpu_sync,
    .phase_mark = gpu_phase_mark,
    .phase_settle = gpu_phase_settle,
    .step_collect_begin = gpu_collect_begin,
    .step_collect_end = gpu_collect_end,
    .sync_host = gpu_sync_host,
    .reload = gpu_reload,
};
