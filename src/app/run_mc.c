/* The Monte Carlo run driver: see run_mc.h.
 *
 * thermo.csv has one row every output.thermo_interval cycles (and one at cycle 0 of a fresh
 * start): per box (suffix _0, _1) the particles, volume, density, total potential energy
 * (tail included) and virial pressure, then per move kind the attempted and accepted
 * counts since the start of the campaign and the step sizes. A restart drops the rows after
 * its checkpoint's cycle and appends, so a stopped and continued run leaves the same file.
 * The production rows (after mc.equilibration) are also kept in memory for the closing
 * statistics (run_mc_summary.h; 344 bytes a row), a restart reading its predecessors' back.
 */
#define _POSIX_C_SOURCE 200809L
#include "run_mc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint_mc.h"
#include "exit_codes.h"
#include "fsutil.h"
#include "h5md_mc.h"
#include "input_system.h"
#include "log.h"
#include "mc_engine.h"
#include "mc_domain.h"
#include "mc_ranks.h"
#include "mc_stats.h"
#include "parallel.h"
#include "run_mc_summary.h"
#include "run_stop.h"

#define ERR_LEN 1024

/* Every rank's status agreed: 0 when no rank failed, else the largest status, with the
 * lowest failing rank's line in err on every rank. Collective. */
static int agreed(const vs_par *par, int rc, char *err)
{
    if (par->size == 1)
        return rc;
    if (!vs_par_agree_error(par, rc != 0, err, ERR_LEN))
        return 0;
    return (int)vs_par_max_int64(par, rc);
}

static void header(FILE *f, const vs_mc_state *s)
{
    fprintf(f, "cycle");
    for (int b = 0; b < s->n_boxes; ++b)
        fprintf(f, ",n_%d,volume_%d,density_%d,energy_%d,pressure_%d", b, b, b, b, b);
    for (int b = 0; b < s->n_boxes; ++b)
        fprintf(f, ",displacement_attempted_%d,displacement_accepted_%d,max_displacement_%d", b,
                b, b);
    const int ens = s->prm->mc.ensemble;
    if (ens == VS_MC_NPT || ens == VS_MC_GIBBS)
        fprintf(f, ",volume_attempted,volume_accepted,max_log_volume");
    if (ens == VS_MC_GIBBS_NPT)
        fprintf(f, ",volume_attempted_0,volume_accepted_0,volume_attempted_1,volume_accepted_1,"
                   "max_log_volume_0,max_log_volume_1");
    if (ens == VS_MC_GCMC)
        fprintf(f, ",insertion_attempted,insertion_accepted,deletion_attempted,"
                   "deletion_accepted");
    if (ens == VS_MC_GIBBS || ens == VS_MC_GIBBS_NPT)
        fprintf(f, ",transfer_attempted_0,transfer_accepted_0,transfer_attempted_1,"
                   "transfer_accepted_1");
    vs_run_mc_composition_header(f, s);
    fprintf(f, "\n");
}

/* A thermo row; a production row (after mc.equilibration) joins the series. The
 * observables are collective (several ranks share their sums); f is NULL on the ranks that
 * write nothing. Returns 0, or -1 (out of memory). */
static int row(FILE *f, const vs_mc_state *s, vs_mc_series *series)
{
    const vs_mc_counts *t = &s->pr.total;
    vs_mc_row r;
    memset(&r, 0, sizeof r);
    r.cycle = s->pr.cycle;
    for (int b = 0; b < s->n_boxes; ++b)
        r.box[b] = vs_mc_observe(s, b);
    if (!f)
        return 0;
    fprintf(f, "%lld", (long long)s->pr.cycle);
    for (int b = 0; b < s->n_boxes; ++b) {
        const vs_mc_box_obs o = r.box[b];
        fprintf(f, ",%lld,%.17g,%.17g,%.17g,%.17g", (long long)o.n, o.volume, o.density,
                o.energy, o.pressure);
    }
    for (int b = 0; b < s->n_boxes; ++b)
        fprintf(f, ",%lld,%lld,%.17g", (long long)t->attempted[VS_MC_DISPLACE][b],
                (long long)t->accepted[VS_MC_DISPLACE][b], s->pr.max_disp[b]);
    const int ens = s->prm->mc.ensemble;
    if (ens == VS_MC_NPT || ens == VS_MC_GIBBS)
        fprintf(f, ",%lld,%lld,%.17g", (long long)t->attempted[VS_MC_VOLUME][0],
                (long long)t->accepted[VS_MC_VOLUME][0], s->pr.max_dlnv[0]);
    if (ens == VS_MC_GIBBS_NPT)
        fprintf(f, ",%lld,%lld,%lld,%lld,%.17g,%.17g", (long long)t->attempted[VS_MC_VOLUME][0],
                (long long)t->accepted[VS_MC_VOLUME][0], (long long)t->attempted[VS_MC_VOLUME][1],
                (long long)t->accepted[VS_MC_VOLUME][1], s->pr.max_dlnv[0], s->pr.max_dlnv[1]);
    if (ens == VS_MC_GCMC || ens == VS_MC_GIBBS || ens == VS_MC_GIBBS_NPT)
        for (int b = 0; b < 2; ++b)
            fprintf(f, ",%lld,%lld", (long long)t->attempted[VS_MC_EXCHANGE][b],
                    (long long)t->accepted[VS_MC_EXCHANGE][b]);
    vs_run_mc_composition_row(f, s, &r);
    fprintf(f, "\n");
    fflush(f);
    return s->pr.cycle > s->prm->mc.equilibration ? vs_mc_series_push(series, &r) : 0;
}

/* The production rows of a kept thermo.csv line into the series (%.17g reads back the same
 * doubles, so the closing statistics match a run that never stopped). Returns 0, or -1. */
static int keep_row(const char *line, const vs_mc_state *s, vs_mc_series *series)
{
    vs_mc_row r;
    memset(&r, 0, sizeof r);
    char *end;
    r.cycle = strtoll(line, &end, 10);
    if (r.cycle <= s->prm->mc.equilibration)
        return 0;
    for (int b = 0; b < s->n_boxes; ++b) {
        vs_mc_box_obs *o = &r.box[b];
        o->n = strtoll(end + 1, &end, 10);
        o->volume = strtod(end + 1, &end);
        o->density = strtod(end + 1, &end);
        o->energy = strtod(end + 1, &end);
        o->pressure = strtod(end + 1, &end);
    }
    return vs_run_mc_composition_read(line, s, &r) ? -1 : vs_mc_series_push(series, &r);
}

/* thermo.csv afresh, or on restart its rows up to `cycle` kept (the rest was written after
 * the checkpoint by the run that stopped), their production rows into the series. */
static FILE *open_thermo(const char *dir, const vs_mc_state *s, int restart,
                         vs_mc_series *series, char *err)
{
    char path[VS_PATH_LEN + 16];
    snprintf(path, sizeof path, "%s/thermo.csv", dir);
    char *old = restart ? vs_read_text_file(path, err, ERR_LEN) : NULL;
    FILE *f = fopen(path, "w");
    if (!f) {
        free(old);
        snprintf(err, ERR_LEN, "%.300s: cannot write", path);
        return NULL;
    }
    if (!old) {
        header(f, s);
        return f;
    }
    int first = 1, bad = 0;
    for (char *line = strtok(old, "\n"); line; line = strtok(NULL, "\n"), first = 0)
        if (first || strtoll(line, NULL, 10) <= s->pr.cycle) {
            fprintf(f, "%s\n", line);
            bad |= !first && keep_row(line, s, series);
        }
    free(old);
    if (bad) {
        fclose(f);
        snprintf(err, ERR_LEN, "out of memory for the rows of %.300s", path);
        return NULL;
    }
    return f;
}

/* Box 0 from the input file (prm->input), its edges into *prm. Returns 0, or an exit status. */
static int read_input(vs_params *prm, vs_mc_state *s, char *err)
{
    vs_input_system sys;
    if (vs_input_read(prm, 0, &sys, err, ERR_LEN) != 0)
        return VS_EXIT_BAD_INPUT;
    const double reach = vs_pair_reach(prm);
    for (int d = 0; d < 3; ++d)
        if (!(sys.box[d] >= 2 * reach)) {
            snprintf(err, ERR_LEN, "%.300s: box edge %g below twice the largest pair cut-off (%g)",
                     prm->input.file, sys.box[d], 2 * reach);
            vs_input_system_free(&sys);
            return VS_EXIT_BAD_INPUT;
        }
    memcpy(prm->system.box, sys.box, sizeof sys.box);
    prm->system.n_particles = sys.n;
    vs_mc_box *b = &s->box[0];
    int rc = vs_mc_box_set_edges(b, sys.box, &s->pairs) || vs_mc_box_reserve(b, sys.n);
    for (int64_t i = 0; i < sys.n && !rc; ++i)
        vs_mc_box_append(b, sys.recs[i].x, sys.recs[i].species, sys.recs[i].tag);
    s->pr.next_tag = sys.n + (s->n_boxes > 1 ? prm->mc.particles2 : 0);
    vs_input_system_free(&sys);
    return rc ? VS_EXIT_FAULT : 0;
}

/* The checkpoint path --restart names ("latest": the newest in output.dir). Returns 0, or an
 * exit status with err. */
static int restart_path(const vs_params *prm, const vs_run_options *opt, char *path,
                        size_t len, char *err)
{
    if (strcmp(opt->restart, "latest") != 0) {
        snprintf(path, len, "%s", opt->restart);
        return 0;
    }
    if (vs_mc_checkpoint_latest(prm->output.dir, path, len) == 0)
        return 0;
    snprintf(err, ERR_LEN, "--restart latest: no Monte Carlo checkpoint in %.300s/checkpoints",
             prm->output.dir);
    return VS_EXIT_BAD_INPUT;
}

/* Whether checkpoint ck (at path) may continue this configuration: the same physics (unless
 * forced) and box count. Returns 0, or VS_EXIT_BAD_INPUT with err. */
static int checkpoint_fits(const vs_params *prm, const vs_run_options *opt,
                           const vs_mc_checkpoint *ck, int n_boxes, const char *path, char *err)
{
    if (ck->hash != vs_mc_physics_hash(prm) && !opt->force_restart) {
        snprintf(err, ERR_LEN, "%.300s: the physics keys (or the mc ensemble, kT, pressure, "
                 "activity, second box) differ from the configuration's (--force-restart to "
                 "continue anyway)", path);
        return VS_EXIT_BAD_INPUT;
    }
    if (ck->n_boxes != n_boxes) {
        snprintf(err, ERR_LEN, "%.300s: %d boxes, the configuration has %d", path, ck->n_boxes,
                 n_boxes);
        return VS_EXIT_BAD_INPUT;
    }
    return 0;
}

/* The state of a checkpoint. Returns 0, or an exit status with err. */
static int from_checkpoint(const vs_params *prm, const vs_run_options *opt, vs_mc_state *s,
                           char *err)
{
    char path[VS_PATH_LEN + 64];
    int rc = restart_path(prm, opt, path, sizeof path, err);
    if (rc)
        return rc;
    vs_mc_checkpoint ck;
    if (vs_mc_checkpoint_read(path, &ck, err, ERR_LEN))
        return VS_EXIT_BAD_INPUT;
    rc = checkpoint_fits(prm, opt, &ck, s->n_boxes, path, err);
    for (int b = 0; b < s->n_boxes && !rc; ++b) {
        vs_mc_box *box = &s->box[b];
        const vs_mc_box_data *d = &ck.box[b];
        if (vs_mc_box_set_edges(box, d->L, &s->pairs) || vs_mc_box_reserve(box, d->n + 1))
            rc = VS_EXIT_FAULT;
        for (int64_t i = 0; i < d->n && !rc; ++i)
            vs_mc_box_append(box, &d->x[3 * i], d->species[i], d->tag[i]);
    }
    s->pr = ck.pr;
    if (!rc && ck.shared_log_volume_step && prm->mc.ensemble == VS_MC_GIBBS_NPT)
        vs_log_info("%s: written before the log-volume steps per box: both boxes continue from "
                    "its step %.6g", path, ck.pr.max_dlnv[0]);
    vs_mc_checkpoint_free(&ck);
    if (!rc)
        vs_log_info("Restart from %s (cycle %lld)", path, (long long)s->pr.cycle);
    return rc;
}

/* A split state from a checkpoint: every rank reads its rows of each box (MPI-IO; rank 0
 * finds the file). Collective. Returns 0, or an exit status with err (every rank's). */
static int from_checkpoint_split(const vs_params *prm, const vs_run_options *opt,
                                 vs_mc_state *s, const vs_par *par, char *err)
{
    char path[VS_PATH_LEN + 64] = "";
    int rc = par->rank == 0 ? restart_path(prm, opt, path, sizeof path, err) : 0;
    if ((rc = agreed(par, rc, err)))
        return rc;
    vs_par_bcast_bytes(par, path, sizeof path, 0);
    vs_mc_checkpoint ck;
    int64_t n_all[VS_MC_MAX_BOXES], row0[VS_MC_MAX_BOXES];
    if (vs_mc_checkpoint_read_rows(par, path, &ck, n_all, row0, err, ERR_LEN))
        return VS_EXIT_BAD_INPUT;
    rc = checkpoint_fits(prm, opt, &ck, s->n_boxes, path, err);
    for (int b = 0; b < s->n_boxes && !rc; ++b)
        rc = vs_mc_domain_hold_rows(s, b, &ck.box[b], row0[b]) ? VS_EXIT_FAULT : 0;
    if ((rc = agreed(par, rc, err))) {
        vs_mc_checkpoint_free(&ck);
        return rc;
    }
    vs_mc_domain_recount(s);
    s->pr = ck.pr;
    vs_mc_checkpoint_free(&ck);
    vs_log_info("Restart from %s (cycle %lld; each rank read its part)", path,
                (long long)s->pr.cycle);
    return 0;
}

/* A split state's checkpoint: every rank writes its rows (MPI-IO). Collective. */
static int write_checkpoint_split(const vs_mc_state *s, const vs_run_options *opt,
                                  const vs_par *par, char *err)
{
    vs_mc_checkpoint ck;
    memset(&ck, 0, sizeof ck);
    ck.pr = s->pr;
    ck.n_boxes = s->n_boxes;
    ck.hash = vs_mc_physics_hash(s->prm);
    vs_mc_box_data d[VS_MC_MAX_BOXES];
    vs_mc_rows rows[VS_MC_MAX_BOXES];
    for (int b = 0; b < s->n_boxes; ++b) {
        int64_t row0 = 0;
        vs_mc_domain_rows(s, b, &d[b], &row0);
        rows[b] = (vs_mc_rows){{d[b].L[0], d[b].L[1], d[b].L[2]}, vs_mc_n(s, b), row0, d[b].n,
                               d[b].x, d[b].species, d[b].tag};
    }
    const int rc = vs_mc_checkpoint_write_rows(par, s->prm->output.dir, &ck, rows,
                                               opt->config_text, s->prm->output.checkpoint_keep,
                                               err, ERR_LEN)
                       ? VS_EXIT_FAULT
                       : 0;
    for (int b = 0; b < s->n_boxes; ++b)
        vs_mc_box_data_free(&d[b]);
    return rc;
}

static int write_checkpoint(const vs_mc_state *s, const vs_run_options *opt, char *err)
{
    vs_mc_checkpoint ck;
    memset(&ck, 0, sizeof ck);
    ck.pr = s->pr;
    ck.n_boxes = s->n_boxes;
    ck.hash = vs_mc_physics_hash(s->prm);
    for (int b = 0; b < s->n_boxes; ++b) {
        const vs_mc_box *box = &s->box[b];
        memcpy(ck.box[b].L, box->L, sizeof box->L);
        ck.box[b].n = box->n;
        ck.box[b].x = box->x;
        ck.box[b].species = box->species;
        ck.box[b].tag = box->tag;
    }
    return vs_mc_checkpoint_write(s->prm->output.dir, &ck, opt->config_text,
                                  s->prm->output.checkpoint_keep, err, ERR_LEN);
}

/* Rank 0's boxes, progress and input box on every other rank (rank 0 read the file).
 * Collective. Returns 0, or an exit status with err. */
static int share_start(vs_params *prm, vs_mc_state *s, const vs_par *par, char *err)
{
    vs_par_bcast_bytes(par, prm->system.box, sizeof prm->system.box, 0);
    vs_par_bcast_bytes(par, &prm->system.n_particles, sizeof prm->system.n_particles, 0);
    vs_par_bcast_bytes(par, &s->pr, sizeof s->pr, 0);
    if (s->dom) /* each rank its part of rank 0's boxes */
        return vs_mc_domain_scatter(s) ? (snprintf(err, ERR_LEN, "out of memory for the boxes"),
                                          VS_EXIT_FAULT)
                                       : 0;
    int bad = 0;
    for (int b = 0; b < s->n_boxes; ++b) {
        vs_mc_box *box = &s->box[b];
        double L[3] = {box->L[0], box->L[1], box->L[2]};
        int64_t n = box->n;
        vs_par_bcast_bytes(par, L, sizeof L, 0);
        vs_par_bcast_bytes(par, &n, sizeof n, 0);
        if (par->rank != 0)
            bad |= vs_mc_box_set_edges(box, L, &s->pairs) || vs_mc_box_reserve(box, n + 1);
        if (vs_par_any(par, bad))
            break;
        box->n = n; /* appended below from the broadcast arrays */
        vs_par_bcast_bytes(par, box->x, (size_t)(3 * n) * sizeof(double), 0);
        vs_par_bcast_bytes(par, box->species, (size_t)n * sizeof(int32_t), 0);
        vs_par_bcast_bytes(par, box->tag, (size_t)n * sizeof(int64_t), 0);
        if (par->rank != 0) {
            box->n = 0;
            memset(box->count, 0, sizeof box->count);
            for (int64_t i = 0; i < n; ++i) { /* in place: slot i is read, then refilled */
                const double x[3] = {box->x[3 * i], box->x[3 * i + 1], box->x[3 * i + 2]};
                vs_mc_box_append(box, x, box->species[i], box->tag[i]);
            }
        }
    }
    if (!bad)
        return 0;
    snprintf(err, ERR_LEN, "out of memory for the boxes");
    return VS_EXIT_FAULT;
}

/* The start: a checkpoint or the input file (read on rank 0, sent to the others), or the
 * lattice. Collective. */
static int start(vs_params *prm, const vs_run_options *opt, vs_mc_state *s, const vs_par *par,
                 char *err)
{
    int rc = 0;
    if (vs_mc_init(s, prm) ||
        (par->size > 1 && prm->mc.decomposition == VS_MC_DOMAIN && vs_mc_domain_open(s, par))) {
        snprintf(err, ERR_LEN, "out of memory for the boxes");
        rc = VS_EXIT_FAULT;
    }
    const int split_restart = s->dom && opt->restart; /* every rank reads its part */
    if (!rc && split_restart)
        rc = from_checkpoint_split(prm, opt, s, par, err);
    else if (!rc && par->rank == 0 && opt->restart)
        rc = from_checkpoint(prm, opt, s, err);
    else if (!rc && par->rank == 0 && prm->input.format != VS_INPUT_NONE)
        rc = read_input(prm, s, err);
    rc = agreed(par, rc, err);
    if (!rc && par->size > 1 && !split_restart &&
        (opt->restart || prm->input.format != VS_INPUT_NONE))
        rc = share_start(prm, s, par, err);
    if (!rc && !opt->restart && vs_mc_fill_lattice(s))
        rc = VS_EXIT_FAULT;
    if (!rc && !opt->restart)
        vs_mc_set_cycle_length(s);
    if (!rc && !s->dom) /* split boxes: once the ranks' bricks are known (vs_run_mc) */
        vs_mc_refresh(s);
    if (prm->exec.backend == VS_BACKEND_GPU) {
        int local_rank = 0, local_size = 1; /* one device per rank of a node, as MD */
        if (par->size > 1) /* collective: every rank, whatever its rc */
            vs_par_node_layout(par, &local_rank, &local_size, NULL);
        if (!rc && vs_mc_gpu_open(s, local_rank, err, ERR_LEN)) /* no device, no CUDA: as MD */
            rc = VS_EXIT_BAD_INPUT;
        else if (!rc && s->dom) {
            vs_mc_domain_take_gpu(s);
            vs_log_info("Monte Carlo: checkerboard sweeps on the GPU over each rank's brick and "
                        "ghosts (the positions through the host after each colour step); the "
                        "other moves on the host");
        } else if (!rc)
            vs_log_info("Monte Carlo: checkerboard sweeps on the GPU, and the volume moves' "
                        "energies; the exchange moves' energies on the %s",
                        s->exchange_on_host ? "host (VESICA_MC_GPU_EXCHANGE=device: on the GPU)"
                                            : "GPU (VESICA_MC_GPU_EXCHANGE=device)");
    }
    return agreed(par, rc, err);
}

static int out_of_memory(char *err)
{
    snprintf(err, ERR_LEN, "out of memory for the thermo rows");
    return VS_EXIT_FAULT;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* run.walltime: stop while two more cycles and ten seconds still fit. */
static int walltime_up(const vs_params *prm, double t0, double cycle_s)
{
    return prm->run.walltime > 0.0 &&
           now_s() - t0 + 2.0 * cycle_s + 10.0 > prm->run.walltime * 3600.0;
}

/* traj.h5md: its path, and whether it holds this campaign's frames so far. */
typedef struct {
    char path[VS_PATH_LEN + 16];
    int exists;
    int parallel; /* every rank writes its rows (a split state, and a file made for that) */
} mc_trajectory;

/* traj.h5md at the start: a new run removes an earlier run's, a restart keeps the frames up
 * to its checkpoint's cycle. Returns 0, or an exit status with err. */
static int open_trajectory(mc_trajectory *tr, const vs_mc_state *s, int restart, char *err)
{
    snprintf(tr->path, sizeof tr->path, "%s/traj.h5md", s->prm->output.dir);
    tr->exists = restart && access(tr->path, F_OK) == 0;
    if (!restart)
        unlink(tr->path);
    if (!tr->exists || s->prm->output.trajectory_interval <= 0)
        return 0;
    char why[ERR_LEN];
    const int64_t kept = vs_h5md_mc_trim(tr->path, s->pr.cycle, why, sizeof why);
    if (kept < 0) {
        snprintf(err, ERR_LEN, "%.900s (move it away to start a new trajectory)", why);
        return VS_EXIT_FAULT;
    }
    vs_log_info("Trajectory %s: %lld frame(s) up to cycle %lld kept, appending", tr->path,
                (long long)kept, (long long)s->pr.cycle);
    return 0;
}

/* The frame of the current cycle: the observables on every rank (collective), the file
 * written by rank 0, or by every rank (MPI-IO) where the boxes are split. Returns 0, or an
 * exit status with err. */
static int write_frame(mc_trajectory *tr, const vs_mc_state *s, const vs_par *par, char *err)
{
    const int write = par->rank == 0;
    vs_h5md_mc_box boxes[VS_MC_MAX_BOXES];
    vs_mc_box_data rows[VS_MC_MAX_BOXES];
    int64_t n_all[VS_MC_MAX_BOXES], row0[VS_MC_MAX_BOXES];
    memset(rows, 0, sizeof rows);
    for (int b = 0; b < s->n_boxes; ++b) {
        const vs_mc_box *box = &s->box[b];
        const vs_mc_box_obs o = vs_mc_observe(s, b);
        vs_mc_box_data d = {{box->L[0], box->L[1], box->L[2]}, box->n, box->x, box->species,
                            box->tag};
        if (tr->parallel) /* collective: each rank its rows of the box in tag order */
            vs_mc_domain_tag_rows(s, b, &rows[b], &row0[b]);
        else if (s->dom) /* collective: rank 0 gets the box in index order */
            vs_mc_domain_gather(s, b, &rows[b]);
        n_all[b] = o.n; /* n_all and row0: the parallel writer's */
        boxes[b] = (vs_h5md_mc_box){s->dom ? rows[b] : d, o.volume, o.density, o.energy,
                                    o.pressure};
    }
    int rc = 0;
    if (tr->parallel) { /* every rank writes its rows (MPI-IO) */
        int exists = tr->exists; /* rank 0 opened the file */
        vs_par_bcast_bytes(par, &exists, sizeof exists, 0);
        rc = vs_h5md_mc_append_rows(par, tr->path, !exists, s->n_boxes, s->pr.cycle, boxes,
                                    n_all, row0, err, ERR_LEN)
                 ? VS_EXIT_FAULT
                 : 0;
        tr->exists = exists || !rc;
    } else if (write && vs_h5md_mc_append(tr->path, !tr->exists, s->n_boxes, s->pr.cycle,
                                          boxes, err, ERR_LEN)) {
        rc = VS_EXIT_FAULT;
    }
    tr->exists |= write && !rc;
    for (int b = 0; b < s->n_boxes; ++b)
        vs_mc_box_data_free(&rows[b]);
    return rc;
}

/* The displacements attempted since the campaign's start, over the boxes. */
static int64_t displacements(const vs_mc_state *s)
{
    int64_t n = 0;
    for (int b = 0; b < s->n_boxes; ++b)
        n += s->pr.total.attempted[VS_MC_DISPLACE][b];
    return n;
}

/* The cycle's thermo row and trajectory frame where due (rank 0 writes them). Collective.
 * Returns 0, or an exit status with err. */
static int cycle_outputs(vs_mc_state *s, FILE *thermo, mc_trajectory *tr, vs_mc_series *series,
                         const vs_par *par, char *err)
{
    const int64_t fi = s->prm->output.trajectory_interval;
    const int row_due = s->pr.cycle % s->prm->output.thermo_interval == 0;
    const int frame_due = fi > 0 && s->pr.cycle % fi == 0;
    if (!row_due && !frame_due)
        return 0;
    int rc = vs_mc_sync_host(s, err, ERR_LEN) ? VS_EXIT_FAULT : 0;
    if (!rc && row_due && row(thermo, s, series))
        rc = out_of_memory(err);
    if (!rc && frame_due)
        rc = write_frame(tr, s, par, err);
    return agreed(par, rc, err);
}

/* A checkpoint: the one-rank file, written by rank 0 where every rank holds the whole state,
 * or by every rank through MPI-IO where the boxes are split. Collective. Returns 0, or an
 * exit status with err. */
static int checkpoint(vs_mc_state *s, const vs_run_options *opt, const vs_par *par, char *err)
{
    int rc = vs_mc_sync_host(s, err, ERR_LEN) ? VS_EXIT_FAULT : 0;
    if (s->dom) /* the split's sweeps run on the host: nothing to sync */
        return rc ? agreed(par, rc, err) : write_checkpoint_split(s, opt, par, err);
    if (!rc && par->rank == 0 && write_checkpoint(s, opt, err))
        rc = VS_EXIT_FAULT;
    return agreed(par, rc, err);
}

/* The cycles, their outputs and checkpoints, a stop, the closing statistics. Collective. */
static int loop(vs_mc_state *s, const vs_run_options *opt, FILE *thermo, mc_trajectory *tr,
                vs_mc_series *series, const vs_par *par, char *err)
{
    const vs_params *prm = s->prm;
    const int64_t ci = prm->output.checkpoint_interval;
    int rc = 0;
    if (!opt->restart && row(thermo, s, series))
        rc = out_of_memory(err);
    if (!rc && !opt->restart && prm->output.trajectory_interval > 0)
        rc = write_frame(tr, s, par, err);
    if ((rc = agreed(par, rc, err)))
        return rc;
    const int keep = prm->output.checkpoint_keep > 0;
    const double t0 = now_s();
    double cycle_s = 0.0, moving_s = 0.0; /* moving: the cycles' moves alone */
    const int64_t tried0 = displacements(s);
    while (s->pr.cycle < prm->mc.cycles) {
        const double t1 = now_s();
        rc = vs_mc_cycle(s) ? VS_EXIT_FAULT : 0;
        if (rc)
            snprintf(err, ERR_LEN, "%s", s->err);
        if ((rc = agreed(par, rc, err)))
            return rc;
        moving_s += now_s() - t1;
        if ((rc = cycle_outputs(s, thermo, tr, series, par, err)))
            return rc;
        cycle_s = now_s() - t1 > cycle_s ? now_s() - t1 : cycle_s;
        int stop = vs_run_stop_signalled() || walltime_up(prm, t0, cycle_s);
        if (par->size > 1) /* a signal or the clock of any rank stops them all */
            stop = vs_par_any(par, stop);
        const int want_ck = keep && ((ci > 0 && s->pr.cycle % ci == 0) || stop);
        if (want_ck && (rc = checkpoint(s, opt, par, err)))
            return rc;
        if (stop && s->pr.cycle < prm->mc.cycles) {
            vs_log_info("Stopped at cycle %lld (a signal or run.walltime): continue with "
                        "--restart latest",
                        (long long)s->pr.cycle);
            return VS_EXIT_CONTINUE;
        }
    }
    if (moving_s > 0.0 && displacements(s) > tried0)
        vs_log_info("Monte Carlo: %lld attempted displacements in %.3f s of moves: %.4g per "
                    "second", (long long)(displacements(s) - tried0), moving_s,
                    (double)(displacements(s) - tried0) / moving_s);
    for (int b = 0; s->dom && b < s->n_boxes; ++b) /* what the split holds per rank */
        vs_log_info("Box %d split over %d ranks: %lld to %lld of its %lld particles on each "
                    "at the end", b, par->size,
                    (long long)-vs_par_max_int64(par, -s->box[b].n),
                    (long long)vs_par_max_int64(par, s->box[b].n), (long long)vs_mc_n(s, b));
    if (s->gpu[0])
        vs_log_info("Monte Carlo on the GPU: %lld particle and %lld whole-box energies of the "
                    "other moves there; boxes copied %lld times to the device and %lld back",
                    (long long)s->gpu_particle_energies,
                    (long long)s->gpu_box_energies, (long long)s->gpu_uploads,
                    (long long)s->gpu_downloads);
    if (keep && (ci == 0 || s->pr.cycle % ci != 0) && (rc = checkpoint(s, opt, par, err)))
        return rc;
    if (vs_mc_sync_host(s, err, ERR_LEN))
        rc = VS_EXIT_FAULT;
    if (!rc && par->rank == 0 && vs_run_mc_summary(s, series, err, ERR_LEN))
        rc = VS_EXIT_FAULT;
    return agreed(par, rc, err);
}

/* What more than one rank refuses: the sequential sweep. Returns 0, or VS_EXIT_BAD_INPUT with
 * err. */
static int ranks_refused(const vs_params *prm, int size, char *err)
{
    if (size > 1 && prm->mc.sweep != VS_MC_SWEEP_CHECKERBOARD) {
        snprintf(err, ERR_LEN, "mc.sweep: the sequential sweep runs on one rank (each move "
                 "follows the one before): got %d ranks; set mc.sweep = \"checkerboard\" or "
                 "run on one rank", size);
        return VS_EXIT_BAD_INPUT;
    }
    return 0;
}

/* The output files on rank 0: thermo.csv and traj.h5md. Collective. */
static int open_outputs(const vs_mc_state *s, const vs_run_options *opt, const vs_par *par,
                        vs_mc_series *series, FILE **thermo, mc_trajectory *traj, char *err)
{
    int rc = 0;
    memset(traj, 0, sizeof *traj);
    *thermo = NULL;
    if (par->rank == 0) {
        *thermo = open_thermo(s->prm->output.dir, s, opt->restart != NULL, series, err);
        rc = *thermo ? open_trajectory(traj, s, opt->restart != NULL, err) : VS_EXIT_FAULT;
        /* a split state writes its frames through every rank, unless it continues a file
         * one rank made (then rank 0 gathers them) */
        traj->parallel = s->dom && (!traj->exists || vs_h5md_mc_parallel_ok(traj->path));
        if (s->dom && s->prm->output.trajectory_interval > 0)
            vs_log_info("Trajectory %s: %s", traj->path,
                        traj->parallel ? "each rank writes its rows of a frame (MPI-IO)"
                                       : "continues a file one rank made: rank 0 gathers "
                                         "each frame");
    }
    if ((rc = agreed(par, rc, err)))
        return rc;
    vs_par_bcast_bytes(par, traj, sizeof *traj, 0);
    return 0;
}

int vs_run_mc(const vs_params *prm_in, const vs_run_options *opt, MPI_Comm comm)
{
    vs_par par;
    vs_par_from_comm(&par, comm);
    vs_params prm = *prm_in; /* an input file sets the box and the count */
    char err[ERR_LEN] = "";
    int rc = ranks_refused(&prm, par.size, err);
    if (!rc && par.rank == 0 && vs_mkdir_p(prm.output.dir, err, sizeof err))
        rc = VS_EXIT_BAD_INPUT;
    if ((rc = agreed(&par, rc, err))) {
        if (par.rank == 0)
            fprintf(stderr, "vesica: error: %s\n", err);
        return rc;
    }
    vs_mc_state s;
    vs_mc_series series = {0};
    vs_mc_ranks ranks;
    memset(&ranks, 0, sizeof ranks);
    rc = start(&prm, opt, &s, &par, err);
    if (!rc && par.size > 1) {
        rc = vs_mc_ranks_open(&ranks, comm, &s, opt->restart == NULL, err, ERR_LEN);
        s.ranks = rc ? NULL : &ranks;
        if (!rc && s.dom) { /* the bricks known: the boxes' energies over the split */
            vs_mc_domain_attach(&s, &ranks);
            vs_mc_refresh(&s);
        } else {
            s.pairs.ranks = s.ranks; /* the whole-box energies split over the ranks too */
        }
        if (!rc)
            vs_log_info("Monte Carlo: %d ranks, the checkerboard's cells in %d x %d x %d bricks, "
                        "%s", par.size, ranks.dims[0], ranks.dims[1], ranks.dims[2],
                        s.dom ? "each rank holding its brick's particles (decomposition domain)"
                              : "every rank holding the whole boxes (decomposition replicated)");
    }
    FILE *thermo = NULL;
    mc_trajectory traj;
    if (!rc)
        rc = open_outputs(&s, opt, &par, &series, &thermo, &traj, err);
    if (!rc) {
        vs_log_info("Monte Carlo: %d box(es), %lld particles, cycles %lld to %lld",
                    s.n_boxes, (long long)(vs_mc_n(&s, 0) + (s.n_boxes > 1 ? vs_mc_n(&s, 1) : 0)),
                    (long long)s.pr.cycle, (long long)prm.mc.cycles);
        rc = loop(&s, opt, thermo, &traj, &series, &par, err);
    }
    if (thermo)
        fclose(thermo);
    if (rc && rc != VS_EXIT_CONTINUE && par.rank == 0)
        fprintf(stderr, "vesica: error: %s\n", err);
    vs_mc_series_free(&series);
    vs_mc_ranks_close(&ranks);
    vs_mc_free(&s);
    return rc;
}
