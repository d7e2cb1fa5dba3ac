/* Run driver: see run.h.
 *
 * Ordering matters for the "nothing half-written" rule: every check that can reject the input
 * (configuration, decomposition, backend, output directory, checkpoint) runs before anything
 * is written to the output directory.
 *
 * Checkpoints and exact restarts: a checkpoint is written after the step's thermo row and
 * frame, from the canonical state (vs_sim_canonicalize), which the run then continues from. A
 * restart reaches the same canonical state from the file, so a run that is stopped and
 * restarted and a run that goes straight through are bit-identical (same rank count and
 * backend, and the straight run checkpoints at the restart step too).
 *
 * Stopping (run_stop.h): SIGTERM and SIGUSR1 only set a flag; every step the ranks OR their
 * flags (and rank 0's walltime verdict) together, so all of them write the checkpoint of the
 * same step (with a skin, the next that rebuilt the lists) and exit with VS_EXIT_CONTINUE.
 */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "checkpoint.h"
#include "config.h"
#include "ensemble_step.h"
#include "fsutil.h"
#include "h5md.h"
#include "log.h"
#include "perf_json.h"
#include "physics_keys.h"
#include "psf.h"
#include "redistribute.h"
#include "run_console.h"
#include "run_fields.h"
#include "run_input.h"
#include "run_stop.h"
#include "simulation.h"
#include "profiles.h"
#include "thermo.h"
#include "thermo_csv.h"
#include "watch.h"

/* Bytes a checkpoint and a frame of n particles take (HDF5 overhead aside). */
static double checkpoint_bytes_estimate(int64_t n)
{
    return (double)n * (double)(12 * sizeof(double) + sizeof(int64_t) + 4 * sizeof(int32_t));
}
static double frame_bytes_estimate(int64_t n)
{
    return (double)n * (double)(6 * sizeof(double) + 3 * sizeof(int32_t));
}

/* Rank 0: the output directory has room for what the run will write: two checkpoints (the
 * newest and the one being written) unless checkpoints are off (checkpoint_keep = 0), and a
 * frame if there is a trajectory; then it (and, with checkpoints, its checkpoints/) exists and
 * takes a new file.
 * The room is checked first, on the file system that will hold the directory, so that a
 * refusal creates nothing. */
static int check_output_dir(const vs_params *prm, char *err, size_t err_len)
{
    const double free_bytes = vs_free_bytes(prm->output.dir);
    /* the margins of check_room below */
    const int checkpoints = prm->output.checkpoint_keep > 0,
              frames = prm->output.trajectory_interval > 0;
    const double need =
        (checkpoints ? 2.0 * (1.1 * checkpoint_bytes_estimate(prm->system.n_particles) + 1048576.0)
                     : 0.0) +
        (frames ? 1.1 * frame_bytes_estimate(prm->system.n_particles) + 1048576.0 : 0.0);
    if (free_bytes >= 0.0 && free_bytes < need) {
        snprintf(err, err_len, "%.400s: not enough free space: %.1f MiB free, %s need "
                 "about %.1f MiB", prm->output.dir, free_bytes / 1048576.0,
                 checkpoints && frames ? "two checkpoints and a frame"
                                       : (checkpoints ? "two checkpoints" : "a frame"),
                 need / 1048576.0);
        return -1;
    }
    char sub[VS_PATH_LEN + 16];
    snprintf(sub, sizeof sub, "%s/checkpoints", prm->output.dir);
    if (vs_check_writable_dir(prm->output.dir, err, err_len) != 0 ||
        (checkpoints && vs_check_writable_dir(sub, err, err_len) != 0))
        return -1;
    return 0;
}

/* What a stop for an output error leaves: the newest checkpoint, if any. */
static const char *kept_note(int64_t last_checkpoint)
{
    return last_checkpoint >= 0 ? "the previous checkpoints are kept"
                                : "no checkpoint of this run was written before";
}

/* Rank 0 checks that output.dir has room for `bytes` more (plus a margin for HDF5's own
 * structures), so a filling disk stops the run with one clear line and the previous
 * checkpoint intact, before HDF5 meets ENOSPC in the middle of a file. `last_checkpoint`: the
 * step of the newest checkpoint (-1: none). Collective. */
static int check_room(const vs_par *par, const char *dir, double bytes, const char *what,
                      int64_t step, int64_t last_checkpoint)
{
    char err[2 * VS_ERR_LEN] = "";
    int bad = 0;
    if (par->rank == 0) {
        const double free_bytes = vs_free_bytes(dir);
        const double need = 1.1 * bytes + 1048576.0;
        if (free_bytes >= 0.0 && free_bytes < need) {
            snprintf(err, sizeof err, "%.400s: disk full: %.1f MiB free, the %s of step %lld "
                     "needs about %.1f MiB; not written (%s)", dir, free_bytes / 1048576.0,
                     what, (long long)step, need / 1048576.0, kept_note(last_checkpoint));
            bad = 1;
        }
    }
    if (vs_par_agree_error(par, bad, err, sizeof err)) {
        if (par->rank == 0)
            fprintf(stderr, "vesica: error: output.dir: %s\n", err);
        return -1;
    }
    return 0;
}

/* Everything the loop needs besides the simulation. */
typedef struct {
    const vs_params *prm;
    const vs_run_options *opt;
    vs_sim *sim;
    vs_thermo_csv csv;
    char traj_path[VS_PATH_LEN + 16];
    int traj_exists;            /* traj.h5md holds this campaign's frames so far */
    vs_profiler prof;           /* binned profiles (profiles group), if any */
    char prof_path[VS_PATH_LEN + 16];
    vs_run_fields fields;       /* density-field frames (output.field_interval), if any */
    int64_t last_checkpoint;    /* step of the newest checkpoint written or read (-1: none) */
    double last_checkpoint_s;   /* how long the last checkpoint write took */
    double last_checkpoint_bytes; /* and its size */
    double run_start;           /* wall clock at the start of vs_run (for run.walltime) */
    int64_t first_step;         /* the step the loop starts after (0, or the restart's) */
    int64_t builds_at_start;    /* neighbour-list builds before the loop */
    double loop_s;              /* wall time of the step loop */
    int stopped;                /* the loop ended early for a signal or the walltime */
    vs_watch watch;             /* the temperature watch over the thermo rows */
    vs_perf_summary perf;
    vs_particle_ext restart_ext; /* the checkpoint's topology records (molecules) and special
                                  * lists, each NULL where it has none */
    vs_ensemble_state restart_ens; /* the checkpoint's thermostat state */
    vs_reaction_state restart_rx; /* and its reactions' counters, where it has them */
    int restart_has_rx;
    vs_input_system input;      /* a new run from input.file: the system (rank 0's) */
    vs_frame_fields frame;      /* the trajectory frame's arrays, kept from frame to frame */
    int64_t reaction_steps_at_start; /* the reactions' count and seconds before the loop */
    double reaction_s_at_start;
} run_state;

/* This rank's tag slab of the current state (records in tag order) and its first tag; with
 * `ext`, their optional records too (topology with molecules, special lists; NULL where the
 * run has none). */
static vs_particle_rec *tag_slab(vs_sim *sim, int64_t *n, int64_t *lo, vs_particle_ext *ext)
{
    int64_t n_owned = 0, hi = 0;
    vs_particle_rec *owned = vs_sim_owned_records(sim, &n_owned);
    vs_particle_ext owned_ext = {NULL, NULL, NULL, NULL};
    if (ext)
        vs_sim_owned_ext(sim, &owned_ext);
    vs_particle_rec *slab = vs_redistribute_by_tag_ext(&sim->dc.cart, owned, &owned_ext, n_owned,
                                                       sim->prm.system.n_particles, n, ext);
    free(owned);
    vs_particle_ext_free(&owned_ext);
    vs_tag_slab(sim->prm.system.n_particles, sim->dc.cart.size, sim->dc.cart.rank, lo, &hi);
    int bad = *n != hi - *lo;
    for (int64_t i = 0; i < *n && !bad; ++i)
        bad = slab[i].tag != *lo + i;
    if (vs_par_any(&sim->dc.cart, bad))
        VS_FATAL("step %lld: particles lost or duplicated (tag slab [%lld, %lld) holds %lld)",
                 (long long)sim->step, (long long)*lo, (long long)hi, (long long)*n);
    return slab;
}

/* One rank holds the whole tag slab: the frame's fields straight from the owned particles,
 * each placed by its tag (no records, no redistribution), with tag_slab's check that every
 * tag is there once. */
static void owned_fields(vs_sim *sim, vs_frame_fields *ff)
{
    const vs_particles *p = vs_sim_owned_particles(sim);
    const int64_t n = sim->prm.system.n_particles;
    vs_frame_fields_reserve(ff, n);
    ff->n = n;
    ff->lo = 0;
    uint8_t *seen = VS_MALLOC((size_t)(n > 0 ? n : 1));
    memset(seen, 0, (size_t)(n > 0 ? n : 1));
    int bad = p->n_owned != n;
    for (int64_t i = 0; i < p->n_owned && !bad; ++i) {
        const int64_t tag = p->tag[i];
        bad = tag < 0 || tag >= n || seen[tag];
        if (bad)
            break;
        seen[tag] = 1;
        const double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]},
                     v[3] = {p->v[0][i], p->v[1][i], p->v[2][i]};
        const int32_t image[3] = {p->image[0][i], p->image[1][i], p->image[2][i]};
        vs_frame_fields_set(ff, tag, x, v, image, sim->prm.system.box);
    }
    free(seen);
    if (bad)
        VS_FATAL("step %lld: particles lost or duplicated (tag slab [0, %lld) holds %lld)",
                 (long long)sim->step, (long long)n, (long long)p->n_owned);
}

/* One H5MD frame of the current state. Returns 0 or -1 (logged). */
static int write_frame(run_state *rs, const vs_thermo *t)
{
    vs_sim *sim = rs->sim;
    if (check_room(&sim->dc.cart, rs->prm->output.dir,
                   frame_bytes_estimate(rs->prm->system.n_particles), "trajectory frame", sim->step,
                   rs->last_checkpoint) != 0)
        return -1;
    const double t0 = vs_wall_seconds();
    /* the first frame of a trajectory also carries the topology, and topology.psf beside it;
     * the later ones of a one-rank run need no records */
    const int create = !rs->traj_exists;
    /* the records' extras: orientations, and with reactions the topology of every frame */
    const int extras = create || vs_params_oriented(rs->prm) || rs->prm->reactions.on;
    vs_particle_ext ext = {NULL, NULL, NULL, NULL};
    vs_particle_rec *slab = NULL;
    if (extras || sim->dc.cart.size > 1) {
        int64_t n = 0, lo = 0;
        slab = tag_slab(sim, &n, &lo, extras ? &ext : NULL);
        vs_frame_fields_from_slab(&rs->frame, slab, n, lo, sim->prm.system.box);
        if (ext.orient)
            vs_frame_fields_orient(&rs->frame, ext.orient);
    } else {
        owned_fields(sim, &rs->frame);
    }
    const vs_topo *topo = ext.topo;
    char err[VS_ERR_LEN];
    double bytes = 0.0;
    vs_params frame_prm = *rs->prm; /* the frame's box is the run's now (npt changes it) */
    memcpy(frame_prm.system.box, sim->prm.system.box, sizeof frame_prm.system.box);
    int rc = vs_h5md_append(&sim->dc.cart, rs->traj_path, create, &frame_prm, t, &rs->frame,
                            slab, topo, ext.dih, &bytes, err, sizeof err);
    if (rc == 0 && create) {
        char psf[VS_PATH_LEN + 32];
        snprintf(psf, sizeof psf, "%s/topology.psf", rs->prm->output.dir);
        rc = vs_psf_write(&sim->dc.cart, psf, rs->prm, slab, topo, ext.dih, rs->frame.n,
                          rs->frame.lo, err, sizeof err);
    }
    free(slab);
    vs_particle_ext_free(&ext);
    if (rc != 0) {
        if (sim->dc.cart.rank == 0)
            fprintf(stderr, "vesica: error: %s\n", err);
        return -1;
    }
    rs->traj_exists = 1;
    rs->perf.frames++;
    rs->perf.trajectory_s += vs_wall_seconds() - t0;
    rs->perf.trajectory_bytes += bytes;
    return 0;
}

/* Canonicalize (unless the run ends here), then write the checkpoint of the current step.
 * Returns 0 or -1 (logged). */
static int write_checkpoint(run_state *rs, int run_ends)
{
    vs_sim *sim = rs->sim;
    const double size = rs->last_checkpoint_bytes > 0.0
                            ? rs->last_checkpoint_bytes
                            : checkpoint_bytes_estimate(rs->prm->system.n_particles);
    if (check_room(&sim->dc.cart, rs->prm->output.dir, size, "checkpoint", sim->step,
                   rs->last_checkpoint) != 0)
        return -1;
    /* The run goes on from the canonical state a restart would rebuild, so that both take
     * the same steps. The written records depend on it only through the wrap of the positions
     * into the box (they are sorted by tag and the forces are stored), so a run that ends here
     * skips it and wraps the records the same way. Its neighbour-list build is timed
     * as comm and neighbor; the rest (download, redistribution, upload) counts as output. */
    if (!run_ends) {
        vs_timer_stop(&sim->timers, VS_TIMER_output);
        vs_sim_settle_timers(sim);
        const double build_before =
            sim->timers.total[VS_TIMER_comm] + sim->timers.total[VS_TIMER_neighbor];
        const double t_canon = vs_wall_seconds();
        vs_sim_canonicalize(sim);
        vs_sim_settle_timers(sim);
        const double build_s = sim->timers.total[VS_TIMER_comm] +
                               sim->timers.total[VS_TIMER_neighbor] - build_before;
        sim->timers.total[VS_TIMER_output] += vs_wall_seconds() - t_canon - build_s;
        vs_timer_start(&sim->timers, VS_TIMER_output);
    }
    const double t0 = vs_wall_seconds();
    int64_t n = 0, lo = 0;
    vs_particle_ext ext = {NULL, NULL, NULL, NULL};
    vs_particle_rec *slab = tag_slab(sim, &n, &lo, &ext);
    if (run_ends) /* canonical records: positions in the box */
        for (int64_t i = 0; i < n; ++i)
            vs_particle_rec_wrap(&slab[i], sim->prm.system.box);
    char err[VS_ERR_LEN], path[VS_PATH_LEN + 64];
    double bytes = 0.0;
    const vs_ckpt_global glob = {&sim->ens, rs->prm->reactions.on ? &sim->rx.st : NULL};
    const int rc = vs_checkpoint_write(&sim->dc.cart, rs->prm->output.dir, sim->step, rs->prm,
                                       &glob, rs->opt->config_text, slab, &ext, n, lo,
                                       rs->prm->output.checkpoint_keep, path, sizeof path, &bytes,
                                       err, sizeof err);
    free(slab);
    vs_particle_ext_free(&ext);
    if (rc != 0) {
        if (sim->dc.cart.rank == 0)
            fprintf(stderr, "vesica: error: checkpoint at step %lld not written: %s (%s)\n",
                    (long long)sim->step, err, kept_note(rs->last_checkpoint));
        return -1;
    }
    if (vs_profiler_active(&rs->prof) &&
        vs_profiles_h5_save_pending(&sim->dc.cart, rs->prof_path, sim->step, rs->prof.state,
                                    rs->prof.state_len, err, sizeof err) != 0) {
        if (sim->dc.cart.rank == 0)
            fprintf(stderr, "vesica: error: checkpoint at step %lld: %s\n",
                    (long long)sim->step, err);
        return -1;
    }
    const double dt = vs_wall_seconds() - t0;
    rs->last_checkpoint = sim->step;
    rs->last_checkpoint_s = dt;
    rs->last_checkpoint_bytes = bytes;
    rs->perf.checkpoints++;
    rs->perf.checkpoint_s += dt;
    rs->perf.checkpoint_bytes += bytes;
    vs_log_info("Checkpoint %s (%.1f MB in %.3f s, %.3f GB/s)", path, bytes / 1e6, dt,
                dt > 0.0 ? bytes / dt / 1e9 : 0.0);
    return 0;
}

/* Find, read and check the checkpoint to restart from. Returns 0 with the slab and info,
 * or an exit status with the error printed. */
static int load_checkpoint(run_state *rs, vs_checkpoint_info *info, vs_particle_rec **slab,
                           int64_t *n)
{
    const vs_par *par = &rs->sim->dc.cart;
    const int root = par->rank == 0;
    const vs_params *prm = rs->prm;
    char err[VS_ERR_LEN] = "", path[VS_PATH_LEN + 64] = "";
    int found = 0;
    if (strcmp(rs->opt->restart, "latest") == 0) {
        int64_t *steps = NULL;
        const int count = vs_checkpoint_list(par, prm->output.dir, &steps);
        if (count == 0) {
            if (root)
                fprintf(stderr, "vesica: error: --restart latest: no checkpoint in "
                        "%s/checkpoints\n", prm->output.dir);
            return VS_EXIT_BAD_INPUT;
        }
        for (int i = 0; i < count && !found; ++i) {
            vs_checkpoint_path(prm->output.dir, steps[i], path, sizeof path);
            if (vs_checkpoint_read(par, path, info, slab, &rs->restart_ext, n, err,
                                   sizeof err) == 0) {
                found = info->step == steps[i];
                if (!found) {
                    snprintf(err, sizeof err, "checkpoint %.400s holds step %lld (file damaged "
                             "or renamed)", path, (long long)info->step);
                    free(*slab);
                    *slab = NULL;
                    vs_particle_ext_free(&rs->restart_ext);
                }
            }
            if (!found && i + 1 < count) {
                char next[VS_PATH_LEN + 64];
                vs_checkpoint_path(prm->output.dir, steps[i + 1], next, sizeof next);
                if (root)
                    vs_log_warn("%s; falling back to the previous checkpoint %s", err, next);
            }
        }
        free(steps);
        if (!found) {
            if (root)
                fprintf(stderr, "vesica: error: --restart latest: no valid checkpoint in "
                        "%s/checkpoints (oldest: %s)\n", prm->output.dir, err);
            return VS_EXIT_BAD_INPUT;
        }
    } else {
        snprintf(path, sizeof path, "%s", rs->opt->restart);
        if (vs_checkpoint_read(par, path, info, slab, &rs->restart_ext, n, err,
                               sizeof err) != 0) {
            if (root)
                fprintf(stderr, "vesica: error: --restart: %s\n", err);
            return VS_EXIT_BAD_INPUT;
        }
    }
    if (vs_params_molecular(prm) != (rs->restart_ext.topo != NULL)) {
        if (root)
            fprintf(stderr, "vesica: error: --restart: checkpoint %s %s molecules but the "
                    "configuration %s\n", path, rs->restart_ext.topo ? "has" : "has no",
                    rs->restart_ext.topo ? "has none" : "has molecules");
        free(*slab);
        *slab = NULL;
        vs_particle_ext_free(&rs->restart_ext);
        return VS_EXIT_BAD_INPUT;
    }
    char what[256];
    if (vs_params_physics_diff(prm, &info->physics, what, sizeof what)) {
        if (!rs->opt->force_restart) {
            if (root)
                fprintf(stderr, "vesica: error: --restart: %s differs from checkpoint %s; "
                        "the physics of a run cannot change on restart (pass --force-restart "
                        "to continue with the new value)\n", what, path);
            free(*slab);
            *slab = NULL;
            return VS_EXIT_BAD_INPUT;
        }
        if (root)
            vs_log_warn("--force-restart: %s differs from checkpoint %s; continuing with the "
                        "configuration's value", what, path);
    }
    vs_log_info("Restart from %s: step %lld, time %g (written by Vesica %s)", path,
                (long long)info->step, info->time, info->version);
    return 0;
}

/* A set-up step's verdict when the run goes on (else it is vs_run's exit status). */
#define RUN_GOES_ON (-1)

/* With --restart, the checkpoint is found, read and checked (reading only), and a campaign
 * already finished ends here (status 0); then rank 0 checks, creates and probes output.dir. Returns
 * RUN_GOES_ON (with a restart, *slab then holds this rank's records of the checkpoint and `info`
 * its metadata), or the exit status with the error printed. */
static int check_output_and_restart(run_state *rs, vs_checkpoint_info *info,
                                    vs_particle_rec **slab, int64_t *n)
{
    const vs_params *prm = rs->prm;
    const vs_par *par = &rs->sim->dc.cart;
    const int root = par->rank == 0;
    char err[VS_ERR_LEN] = "";
    /* the checkpoint first: it only reads, so a refusal leaves no directory behind */
    if (rs->opt->restart) {
        const int rc = load_checkpoint(rs, info, slab, n);
        if (rc != 0)
            return rc;
        if (info->step >= prm->integrator.steps) {
            vs_log_info("Run already finished: checkpoint at step %lld, integrator.steps = "
                        "%lld; nothing to do", (long long)info->step,
                        (long long)prm->integrator.steps);
            free(*slab);
            *slab = NULL;
            return 0;
        }
    }
    /* output directory: rank 0 creates and probes it, everyone hears the verdict */
    int bad_dir = root && check_output_dir(prm, err, sizeof err) != 0;
    if (vs_par_any(par, bad_dir)) {
        if (root)
            fprintf(stderr, "vesica: error: output.dir: %s\n", err);
        free(*slab);
        *slab = NULL;
        return VS_EXIT_BAD_INPUT;
    }
    if (!rs->opt->restart)
        return RUN_GOES_ON;
    rs->last_checkpoint = info->step;
    rs->restart_ens = info->ensemble;
    rs->restart_rx = info->reactions;
    rs->restart_has_rx = info->has_reactions;
    return RUN_GOES_ON;
}

/* Output files: a new run starts them afresh (no checkpoints, thermo.csv or frames of an
 * earlier run); a restart cuts thermo.csv and traj.h5md back to `restart_step`. Opens
 * rs->csv on rank 0. Returns 0, or 1 with the error printed. */
/* profiles.h5: a new run starts it; a restart continues it from the checkpoint's step (a
 * restart without one starts it anew, with a warning). Returns 0 or 1 (printed). */
static int prepare_profiles(run_state *rs, int64_t restart_step)
{
    const vs_par *par = &rs->sim->dc.cart;
    if (!vs_profiler_active(&rs->prof))
        return 0;
    char err[VS_ERR_LEN] = "";
    int exists = par->rank == 0 && access(rs->prof_path, F_OK) == 0;
    vs_par_bcast_bytes(par, &exists, sizeof exists, 0);
    int rc, found = 0;
    if (rs->opt->restart && exists) {
        rc = vs_profiles_h5_restart(par, rs->prof_path, rs->prm, restart_step, rs->prof.state,
                                    rs->prof.state_len, &found, err, sizeof err);
        if (rc == 0)
            vs_log_info("Profiles %s: continued at step %lld%s", rs->prof_path,
                        (long long)restart_step, found ? " (open window's sums restored)" : "");
    } else {
        if (rs->opt->restart)
            vs_log_warn("%s not found: profiles start at step %lld", rs->prof_path,
                        (long long)restart_step);
        rc = vs_profiles_h5_create(par, rs->prof_path, rs->prm, rs->opt->config_text, err,
                                   sizeof err);
    }
    if (rc != 0 && par->rank == 0)
        fprintf(stderr, "vesica: error: %s\n", err);
    return rc != 0;
}

/* Sample and close windows at step k (after the step's thermo and frame). Returns 0 or 1. */
static int profile_step(run_state *rs, int64_t k)
{
    if (!vs_profiler_active(&rs->prof))
        return 0;
    if (vs_profiler_sample_due(&rs->prof, k))
        vs_profiler_sample(&rs->prof, rs->sim);
    vs_profile_window w;
    if (!vs_profiler_closes(&rs->prof, k, &w))
        return 0;
    char err[VS_ERR_LEN] = "";
    if (vs_profiles_h5_append(&rs->sim->dc.cart, rs->prof_path, rs->prm, &w, err,
                              sizeof err) != 0) {
        if (rs->sim->dc.cart.rank == 0)
            fprintf(stderr, "vesica: error: %s\n", err);
        return 1;
    }
    return 0;
}

static int prepare_files(run_state *rs, int64_t restart_step)
{
    const vs_params *prm = rs->prm;
    const vs_run_options *opt = rs->opt;
    const vs_par *par = &rs->sim->dc.cart;
    const int root = par->rank == 0;
    char err[VS_ERR_LEN] = "";
    int bad = 0;
    if (root) {
        vs_checkpoint_clean(prm->output.dir, 0);
        rs->csv.molecules = vs_params_molecular(prm), rs->csv.oriented = vs_params_oriented(prm);
        rs->csv.ensemble_columns = vs_ensemble_columns(prm);
        rs->csv.tensor = prm->output.pressure_tensor;
        rs->csv.reactions = (prm->reactions.chain.on ? 1 : 0) |
                            (prm->reactions.n_create > 0 ? 2 : 0) |
                            (prm->reactions.n_break > 0 ? 4 : 0);
        rs->csv.field = prm->field.on;
        if (!opt->restart) {
            const int removed = vs_checkpoint_clean(prm->output.dir, 1);
            if (removed > 0)
                vs_log_info("New run: removed %d checkpoint(s) of an earlier run in %s/"
                            "checkpoints", removed, prm->output.dir);
            bad = vs_thermo_csv_open(&rs->csv, prm->output.dir, err, sizeof err) != 0;
        } else {
            bad = vs_thermo_csv_reopen(&rs->csv, prm->output.dir, restart_step, err,
                                       sizeof err) != 0;
        }
        rs->traj_exists = opt->restart && access(rs->traj_path, F_OK) == 0;
        if (!opt->restart)
            unlink(rs->traj_path); /* a new run: no frames of an earlier one */
    }
    if (vs_par_agree_error(par, bad, err, sizeof err)) {
        if (root)
            fprintf(stderr, "vesica: error: output.dir: %s\n", err);
        return 1;
    }
    vs_par_bcast_bytes(par, &rs->traj_exists, sizeof rs->traj_exists, 0);
    if (prepare_profiles(rs, restart_step) != 0 ||
        vs_run_fields_start(&rs->fields, rs->sim, prm, opt->config_text,
                            opt->restart ? restart_step : -1) != 0)
        return 1;
    if (rs->traj_exists) {
        const int64_t kept = vs_h5md_trim(par, rs->traj_path, restart_step, err, sizeof err);
        if (kept < 0) {
            if (root)
                fprintf(stderr, "vesica: error: %s (move it away to start a new "
                        "trajectory)\n", err);
            return 1;
        }
        vs_log_info("Trajectory %s: %lld frame(s) up to step %lld kept, appending",
                    rs->traj_path, (long long)kept, (long long)restart_step);
    }
    return 0;
}

/* Rank 0: what the run is and how it runs. */
static void log_run_header(const run_state *rs)
{
    const vs_params *prm = rs->prm;
    const vs_sim *sim = rs->sim;
    const double *box = sim->prm.system.box; /* on the position grid in mixed GPU runs */
    vs_log_info("Vesica: %lld particles, %d species, box %.10g x %.10g x %.10g, density %.6g",
                (long long)prm->system.n_particles, prm->species.n, box[0], box[1], box[2],
                prm->system.density);
    /* both backends send bonded beads out to the bonded width where it is wider */
    char width[96];
    if (sim->bonded_width > sim->list_radius)
        snprintf(width, sizeof width, "ghost width %g (bonded beads %g)", sim->list_radius,
                 sim->bonded_width);
    else
        snprintf(width, sizeof width, "ghost width %g", sim->list_radius);
    vs_log_info("Ranks: %d as %d x %d x %d bricks; %s; backend %s (%s)", sim->dc.cart.size,
                sim->dc.dims[0], sim->dc.dims[1], sim->dc.dims[2], width, sim->backend->name,
                sim->device);
    if (sim->prm.exec.position_quantum > 0.0) {
        int e = 0;
        frexp(sim->prm.exec.position_quantum, &e);
        vs_log_info("Positions: on a grid of 2^%d = %.3g length units (mixed precision: the "
                    "same bits on any number of ranks), box edges rounded to it", e - 1,
                    sim->prm.exec.position_quantum);
    }
    vs_log_info("Steps: up to step %lld of dt %g (integrator %s, lambda %g); thermo every %lld; "
                "output in %s", (long long)prm->integrator.steps, prm->integrator.dt,
                vs_ensemble_name(prm->integrator.kind), prm->integrator.lambda,
                (long long)prm->output.thermo_interval, prm->output.dir);
    char traj[64], ckpt[96];
    if (prm->output.trajectory_interval > 0)
        snprintf(traj, sizeof traj, "every %lld steps", (long long)prm->output.trajectory_interval);
    else
        snprintf(traj, sizeof traj, "off");
    if (prm->output.checkpoint_keep == 0)
        snprintf(ckpt, sizeof ckpt, "off");
    else if (prm->output.checkpoint_interval > 0)
        snprintf(ckpt, sizeof ckpt, "every %lld steps and at the end, keep %lld",
                 (long long)prm->output.checkpoint_interval,
                 (long long)prm->output.checkpoint_keep);
    else
        snprintf(ckpt, sizeof ckpt, "at the end, keep %lld",
                 (long long)prm->output.checkpoint_keep);
    vs_log_info("Trajectory: %s; checkpoints: %s%s\n", traj, ckpt,
                prm->run.walltime > 0 ? "; walltime set" : "");
}

/* The state the loop starts from: the checkpoint's records at `restart_step` (freed here) for
 * a restart, else a new initial state. The backend attaches here and decides its plan, which
 * rank 0 logs (after the header: the plan is not known before). Returns 0, or 1 with the
 * error printed. */
static int start_state(run_state *rs, vs_particle_rec *slab, int64_t n, int64_t restart_step)
{
    vs_sim *sim = rs->sim;
    char err[VS_ERR_LEN] = "";
    vs_input_system *in = &rs->input;
    /* npt: the checkpoint's particles lie in the checkpoint's box, which the bricks take
     * before the particles go to their owners */
    const int npt_restart = rs->opt->restart && rs->restart_ens.barostat && sim->ens.barostat;
    if (npt_restart)
        vs_sim_set_box(sim, rs->restart_ens.box);
    if (rs->opt->restart && sim->ens.barostat &&
        !(rs->restart_ens.barostat && rs->restart_ens.chain == sim->ens.chain)) {
        /* (--force-restart): the box and virial to go on from are not in the checkpoint */
        if (sim->dc.cart.rank == 0)
            fprintf(stderr, "vesica: error: restart: integrator.kind = \"npt\" needs the "
                    "barostat's state with integrator.chain = %d, which the checkpoint does "
                    "not have\n", sim->ens.chain);
        vs_input_system_free(in);
        free(slab);
        vs_particle_ext_free(&rs->restart_ext);
        return 1;
    }
    const int failed =
        rs->opt->restart ? vs_sim_start_from_records(sim, slab, &rs->restart_ext, n,
                                                     restart_step, err, sizeof err)
        : rs->prm->input.format != VS_INPUT_NONE
            ? vs_sim_start_from_system(sim, in->recs, in->topo, in->dih, in->special, in->orient,
                                       in->recs ? in->n : 0,
                                       !in->has_velocities, err, sizeof err)
            : vs_sim_start(sim, err, sizeof err);
    vs_input_system_free(in);
    free(slab);
    vs_particle_ext_free(&rs->restart_ext);
    if (failed) {
        if (sim->dc.cart.rank == 0)
            fprintf(stderr, "vesica: error: %s\n", err);
        return 1;
    }
    char terms[160];
    vs_forcefield_describe(&sim->ff, terms, sizeof terms);
    vs_log_info("Force field: %s", terms);
    /* the thermostat goes on from the checkpoint's state (a chain of another length, after
     * --force-restart, starts afresh) */
    if (rs->opt->restart && rs->restart_ens.chain == sim->ens.chain &&
        rs->restart_ens.barostat == sim->ens.barostat)
        sim->ens = rs->restart_ens;
    if (rs->opt->restart && rs->restart_has_rx) /* the reactions' counters go on too */
        sim->rx.st = rs->restart_rx;
    else if (rs->opt->restart) /* (--force-restart) reactions start from the state read */
        vs_reactions_start(&sim->rx, &sim->prm, &sim->dc.cart, &sim->parts);
    if (sim->plan[0])
        vs_log_info("Plan: %s\n", sim->plan);
    return 0;
}

/* The output of the first step before the loop: the integrity check, the thermo table's
 * header and, for a new run, its first row (and frame); then the loop's timers start clean,
 * as set-up (initial state, first build) is not a step. Returns the status the loop starts
 * with: 0, or 1 after a failure. */
static int first_output(run_state *rs)
{
    vs_sim *sim = rs->sim;
    int status = 0;
    rs->first_step = sim->step;
    vs_timer_start(&sim->timers, VS_TIMER_output);
    if (vs_sim_check_integrity(sim))
        status = 1;
    vs_console_thermo_header();
    if (!rs->opt->restart) {
        vs_thermo t;
        vs_sim_thermo(sim, &t);
        if (sim->dc.cart.rank == 0)
            vs_thermo_csv_write(&rs->csv, &t);
        vs_console_thermo_row(&t, -1.0);
        if (status == 0 && rs->prm->output.trajectory_interval > 0 && write_frame(rs, &t) != 0)
            status = 1;
        if (status == 0 && vs_run_fields_due(&rs->fields, sim->step) &&
            vs_run_fields_write(&rs->fields, sim) != 0)
            status = 1;
    }
    vs_timer_stop(&sim->timers, VS_TIMER_output);
    vs_sim_settle_timers(sim);
    vs_timers_reset(&sim->timers);
    memset(&rs->perf, 0, sizeof rs->perf);
    rs->builds_at_start = sim->n_builds;
    rs->reaction_steps_at_start = sim->rx.steps;
    rs->reaction_s_at_start = sim->rx.seconds;
    return status;
}

/* Rank 0 after step k of a loop that began at wall time t0: would what is left of
 * run.walltime fail to cover two more steps, the wait for a list build (the mean steps
 * between builds so far, run_stop.h) and a checkpoint (with margins)? */
static int walltime_runs_out(const run_state *rs, int64_t k, double t0)
{
    const double now = vs_wall_seconds();
    const double steps = (double)(k - rs->first_step);
    const double step_s = (now - t0) / steps;
    const double builds = (double)(rs->sim->n_builds - rs->builds_at_start);
    const double wait = fmin(steps / fmax(builds, 1.0), VS_STOP_WAIT);
    const double ckpt_s = rs->perf.checkpoints > 0
                              ? rs->last_checkpoint_s
                              : checkpoint_bytes_estimate(rs->prm->system.n_particles) / 1e8;
    return now - rs->run_start + 1.5 * ckpt_s + (2.0 + wait) * step_s + 1.0 >=
           rs->prm->run.walltime * 3600.0;
}

/* The steps after rs->first_step up to integrator.steps, each followed by its thermo row,
 * frame and checkpoint when due. Ends early after an error (returns 1), or when a rank was
 * signalled or the walltime runs out (rs->stopped, after a checkpoint). `status` is the one
 * first_output returned; the loop does not start unless it is 0. Sets rs->loop_s. */
static int step_loop(run_state *rs, int status)
{
    vs_sim *sim = rs->sim;
    const vs_params *prm = rs->prm;
    const vs_par *par = &sim->dc.cart;
    const int root = par->rank == 0;
    vs_thermo t;
    int stopped = 0;
    vs_run_stop stop;
    vs_run_stop_init(&stop);
    const double t0 = vs_wall_seconds();
    /* rank 0 says how far the run got when no thermo row did for this long (a long run with
     * sparse rows would look hung); VESICA_PROGRESS_SECONDS sets it (tests) */
    const char *every = getenv("VESICA_PROGRESS_SECONDS");
    const double progress_s = every ? atof(every) : 10.0;
    double said = t0;
    for (int64_t k = rs->first_step + 1; k <= prm->integrator.steps && !status && !stopped; ++k) {
        const int last = k == prm->integrator.steps;
        const int thermo_due = k % prm->output.thermo_interval == 0 || last;
        const int frame_due =
            prm->output.trajectory_interval > 0 && k % prm->output.trajectory_interval == 0;
        const int sample_due =
            vs_profiler_active(&rs->prof) && vs_profiler_sample_due(&rs->prof, k);
        const int fields_due = vs_run_fields_due(&rs->fields, k);
        sim->energy_due = prm->output.pressure_tensor && (thermo_due || sample_due) /* tensor */
                              ? vs_sim_want_all(sim) : (thermo_due || frame_due);
        const int64_t builds = sim->n_builds;
        vs_sim_step(sim);

        /* the step's device work may still be queued (phases are timed on the device's
         * clock): let it finish before the output timer starts, not inside it; the same for
         * the second half-step, pending until the state is read (a profile sample reads it
         * too: inside the output timer its integrate time counted twice) */
        if (thermo_due || frame_due || sample_due || fields_due) {
            vs_sim_finish_step(sim);
            sim->backend->sync(sim->backend_state);
        }
        vs_timer_start(&sim->timers, VS_TIMER_output);
        if (thermo_due || frame_due) {
            vs_sim_thermo(sim, &t);
            if (vs_sim_check_integrity(sim))
                status = 1;
        }
        if (thermo_due && status == 0) {
            if (root && vs_thermo_csv_write(&rs->csv, &t) != 0)
                vs_log_error("%s/thermo.csv: write failed (disk full?)", prm->output.dir);
            const double elapsed = vs_wall_seconds() - t0;
            vs_console_thermo_row(&t, elapsed / (double)(k - rs->first_step) *
                                     (double)(prm->integrator.steps - k));
            said = vs_wall_seconds();
            status = vs_watch_row(&rs->watch, prm, &t, root);
        } else if (root && vs_wall_seconds() - said >= progress_s) {
            said = vs_wall_seconds();
            vs_console_progress(k, prm->integrator.steps, k - rs->first_step, said - t0);
        }
        if (frame_due && status == 0 && write_frame(rs, &t) != 0)
            status = 1;
        if (fields_due && status == 0 && vs_run_fields_write(&rs->fields, sim) != 0)
            status = 1;
        if (status == 0 && profile_step(rs, k) != 0)
            status = 1;

        /* stop now? a signal on any rank, or too little walltime left (rank 0 decides);
         * with a skin at the next list build (run_stop.h) */
        const int want_stop =
            root && prm->run.walltime > 0.0 && walltime_runs_out(rs, k, t0);
        stopped = status == 0 && !last &&
                  vs_run_stop_now(&stop, par, want_stop, k, sim->n_builds != builds);
        /* checkpoint_keep = 0 switches checkpoints off (benchmarks) */
        const int ckpt_due = prm->output.checkpoint_keep > 0 &&
                             (last || stopped || (prm->output.checkpoint_interval > 0 &&
                                                  k % prm->output.checkpoint_interval == 0));
        if (ckpt_due && status == 0 && write_checkpoint(rs, last || stopped) != 0)
            status = 1;
        vs_timer_stop(&sim->timers, VS_TIMER_output);
    }
    vs_sim_finish_step(sim); /* a no-op after the last step's thermo */
    rs->loop_s = vs_wall_seconds() - t0;
    rs->stopped = stopped;
    return status;
}

/* Rank 0: the end-of-run summary (loop time, rates, memory, builds, I/O, the timing
 * breakdown), collected in rs->perf for perf.json on the way. Collective (the breakdown
 * reduces over ranks). */
static void report_summary(run_state *rs)
{
    const vs_params *prm = rs->prm;
    vs_sim *sim = rs->sim;
    const vs_par *par = &sim->dc.cart;
    const double loop_s = rs->loop_s;
    const int64_t steps = sim->step - rs->first_step;
    vs_perf_summary *perf = &rs->perf;
    perf->particles = prm->system.n_particles;
    perf->steps = steps;
    perf->ranks = par->size;
    perf->backend = sim->backend->name;
    perf->device = sim->device;
    perf->plan = sim->plan;
    perf->wall_s = loop_s;
    perf->particle_steps_per_s =
        loop_s > 0.0 ? (double)prm->system.n_particles * (double)steps / loop_s : 0.0;
    perf->neighbor_builds = sim->n_builds - rs->builds_at_start;
    perf->dangerous_builds = sim->n_dangerous;
    const double n_local = (double)prm->system.n_particles / (double)par->size;
    perf->memory_bytes_per_particle = sim->backend->memory_bytes(sim->backend_state) / n_local;

    vs_log_info("\nLoop time of %.4g s on %d ranks for %lld steps with %lld particles",
                loop_s, par->size, (long long)steps, (long long)prm->system.n_particles);
    vs_log_info("Performance: %.4g steps/s, %.4g particle-steps/s",
                loop_s > 0.0 ? (double)steps / loop_s : 0.0, perf->particle_steps_per_s);
    vs_log_info("Memory: %.1f bytes per particle (%s memory, rank 0)",
                perf->memory_bytes_per_particle, sim->backend->memory_kind);
    vs_log_info("Neighbor list builds = %lld", (long long)perf->neighbor_builds);
    vs_log_info("Dangerous builds = %lld", (long long)perf->dangerous_builds);
    vs_log_info("I/O: %lld checkpoint(s), %.1f MB in %.3f s (%.3f GB/s); %lld frame(s), "
                "%.1f MB in %.3f s (%.3f GB/s)", (long long)perf->checkpoints,
                perf->checkpoint_bytes / 1e6, perf->checkpoint_s,
                perf->checkpoint_s > 0 ? perf->checkpoint_bytes / perf->checkpoint_s / 1e9 : 0.0,
                (long long)perf->frames, perf->trajectory_bytes / 1e6, perf->trajectory_s,
                perf->trajectory_s > 0 ? perf->trajectory_bytes / perf->trajectory_s / 1e9
                                       : 0.0);
    vs_console_timing(sim, loop_s, perf);
    if (prm->reactions.on)
        vs_console_reactions(sim, loop_s, rs->reaction_steps_at_start, rs->reaction_s_at_start,
                             perf);
}

/* perf.json, and the line that says why a run stopped before integrator.steps. Returns the
 * exit status of a run whose loop ended without an error. Collective. */
static int finish_run(run_state *rs)
{
    const vs_params *prm = rs->prm;
    const vs_sim *sim = rs->sim;
    const vs_par *par = &sim->dc.cart;
    char err[VS_ERR_LEN] = "";
    int failed = 0;
    if (par->rank == 0 && vs_perf_json_write(prm->output.dir, &rs->perf, err, sizeof err) != 0) {
        vs_log_error("%s", err);
        failed = 1;
    }
    failed = vs_par_any(par, failed);
    const int stopped = rs->stopped;
    const int by_signal = stopped && vs_par_any(par, vs_run_stop_signalled());
    if (!failed && stopped && prm->output.checkpoint_keep == 0) {
        vs_log_warn("stopped at step %lld (%s) without a checkpoint: output.checkpoint_keep = 0 "
                    "switches checkpoints off", (long long)sim->step,
                    by_signal ? "SIGTERM or SIGUSR1" : "run.walltime reached");
    } else if (!failed && stopped) {
        vs_log_info("Stopped for restart at step %lld (%s): checkpoint written; continue with "
                    "--restart latest (exit status %d)", (long long)sim->step,
                    by_signal ? "SIGTERM or SIGUSR1" : "run.walltime reached",
                    VS_EXIT_CONTINUE);
    }
    return failed ? 1 : (stopped ? VS_EXIT_CONTINUE : 0);
}

int vs_run(const vs_params *config_prm, const vs_run_options *opt, MPI_Comm comm)
{
    const double run_start = vs_wall_seconds();
    vs_run_install_stop_handlers(); /* again: MPI_Init may have installed its own */
    char err[VS_ERR_LEN] = "";
    /* a system read from a file sets box and particle count before anything is decided; a
     * restart needs only the header (the state is the checkpoint's) */
    vs_params with_input;
    vs_input_system input;
    memset(&input, 0, sizeof input);
    const vs_params *prm = config_prm;
    if (config_prm->input.format != VS_INPUT_NONE) {
        const int rc = vs_run_read_input(config_prm, opt->restart != NULL, comm, &with_input,
                                         &input);
        if (rc != 0)
            return rc;
        prm = &with_input;
    }
    vs_sim sim;
    if (vs_sim_create(&sim, prm, comm, err, sizeof err) != 0) {
        if (vs_par_world_rank() == 0)
            fprintf(stderr, "vesica: error: %s\n", err);
        vs_input_system_free(&input);
        return VS_EXIT_BAD_INPUT;
    }
    run_state rs;
    memset(&rs, 0, sizeof rs);
    rs.input = input;
    rs.prm = prm;
    rs.opt = opt;
    rs.sim = &sim;
    rs.last_checkpoint = -1;
    rs.run_start = run_start;
    snprintf(rs.traj_path, sizeof rs.traj_path, "%s/traj.h5md", prm->output.dir);
    snprintf(rs.prof_path, sizeof rs.prof_path, "%s/profiles.h5", prm->output.dir);
    vs_profiler_init(&rs.prof, prm);

    /* every check that can reject the input runs before anything is written */
    vs_checkpoint_info info;
    memset(&info, 0, sizeof info);
    vs_particle_rec *restart_slab = NULL;
    int64_t restart_n = 0;
    const int verdict = check_output_and_restart(&rs, &info, &restart_slab, &restart_n);
    if (verdict != RUN_GOES_ON) {
        vs_profiler_free(&rs.prof);
        vs_input_system_free(&rs.input);
        vs_sim_destroy(&sim);
        return verdict;
    }
    if (prepare_files(&rs, info.step) != 0) {
        vs_thermo_csv_close(&rs.csv);
        free(restart_slab);
        vs_profiler_free(&rs.prof);
        vs_particle_ext_free(&rs.restart_ext);
        vs_input_system_free(&rs.input);
        vs_sim_destroy(&sim);
        return 1;
    }
    log_run_header(&rs);
    vs_watch_dt(prm, sim.dc.cart.rank == 0);
    if (start_state(&rs, restart_slab, restart_n, info.step) != 0) {
        vs_thermo_csv_close(&rs.csv);
        vs_profiler_free(&rs.prof);
        vs_sim_destroy(&sim);
        return 1;
    }

    int status = step_loop(&rs, first_output(&rs));
    vs_frame_fields_free(&rs.frame);
    vs_sim_settle_timers(&sim);
    vs_thermo_csv_close(&rs.csv);
    if (status != 0) {
        vs_log_info("Run stopped at step %lld after an error (see above)", (long long)sim.step);
        vs_profiler_free(&rs.prof);
        vs_sim_destroy(&sim);
        return 1;
    }
    report_summary(&rs);
    status = finish_run(&rs);
    vs_profiler_free(&rs.prof);
    vs_sim_destroy(&sim);
    return status;
}
