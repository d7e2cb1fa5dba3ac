/* Run driver: see run.h.
 *
 * Ordering matters for the "nothing half-written" rule: every check that can reject the input
 * (configuration, decomposition, backend) runs before the output directory is touched.
 */
#include "run.h"

#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "config.h"
#include "fsutil.h"
#include "log.h"
#include "perf_json.h"
#include "simulation.h"
#include "thermo.h"
#include "thermo_csv.h"

static void print_thermo_header(void)
{
    vs_log_info("%10s %12s %12s %12s %14s %14s %10s", "Step", "Time", "Temp", "Press",
                "KinEng", "PotEng", "ETA");
}

static void format_eta(double seconds, char *buf, size_t len)
{
    if (seconds < 0.0)
        snprintf(buf, len, "-");
    else if (seconds < 3600.0)
        snprintf(buf, len, "%02d:%02d", (int)(seconds / 60.0), (int)seconds % 60);
    else
        snprintf(buf, len, "%dh%02dm", (int)(seconds / 3600.0), ((int)seconds % 3600) / 60);
}

static void print_thermo_row(const vs_thermo *t, double eta_s)
{
    char eta[32];
    format_eta(eta_s, eta, sizeof eta);
    vs_log_info("%10lld %12.4f %12.6f %12.6f %14.6g %14.6g %10s", (long long)t->step, t->time,
                t->temperature, t->pressure, t->kinetic, t->potential, eta);
}

/* Per-phase min/avg/max over ranks, printed like LAMMPS's breakdown, and collected for
 * perf.json. */
static void report_timing(const vs_sim *sim, double loop_s, vs_perf_summary *perf)
{
    const vs_par *par = &sim->dc.cart;
    double sum[VS_TIMER_COUNT];
    for (int k = 0; k < VS_TIMER_COUNT; ++k)
        sum[k] = sim->timers.total[k];
    vs_par_sum_double(par, sum, VS_TIMER_COUNT);
    vs_log_info("\n%-10s %10s %10s %10s %8s %7s", "Phase", "min (s)", "avg (s)", "max (s)",
                "max rank", "%total");
    double accounted = 0.0;
    for (int k = 0; k < VS_TIMER_COUNT; ++k) {
        int max_rank = 0;
        const double mn = vs_par_min_double(par, sim->timers.total[k]);
        const double mx = vs_par_maxloc_double(par, sim->timers.total[k], &max_rank);
        const double avg = sum[k] / par->size;
        perf->phase_avg_s[k] = avg;
        perf->phase_max_s[k] = mx;
        accounted += avg;
        vs_log_info("%-10s %10.4f %10.4f %10.4f %8d %6.2f%%", vs_timer_labels[k], mn, avg, mx,
                    max_rank, loop_s > 0.0 ? 100.0 * avg / loop_s : 0.0);
    }
    const double other = loop_s - accounted;
    vs_log_info("%-10s %10s %10.4f %10s %8s %6.2f%%", "Other", "", other, "", "",
                loop_s > 0.0 ? 100.0 * other / loop_s : 0.0);
    /* overlap: the part of Comm that ran while interior forces were computed */
    double hidden = sim->comm_hidden_s;
    vs_par_sum_double(par, &hidden, 1);
    perf->comm_hidden_s = hidden / par->size;
    const double comm = perf->phase_avg_s[VS_TIMER_comm];
    if (perf->comm_hidden_s > 0.0)
        vs_log_info("Comm hidden under interior forces: %.4f s of %.4f s (%.1f%%)",
                    perf->comm_hidden_s, comm, comm > 0.0 ? 100.0 * perf->comm_hidden_s / comm : 0.0);
    double halo = sim->backend->halo_bytes ? (double)sim->backend->halo_bytes((vs_sim *)sim) : 0.0;
    vs_par_sum_double(par, &halo, 1);
    perf->halo_bytes_per_step = halo;
    if (par->size > 1)
        vs_log_info("Halo: %.4g bytes sent per ghost update (all ranks)", halo);
}

int vs_run(const vs_params *prm, MPI_Comm comm)
{
    char err[VS_ERR_LEN] = "";
    vs_sim sim;
    if (vs_sim_create(&sim, prm, comm, err, sizeof err) != 0) {
        if (vs_par_world_rank() == 0)
            fprintf(stderr, "vesica: error: %s\n", err);
        return VS_EXIT_BAD_INPUT;
    }
    const vs_par *par = &sim.dc.cart;
    const int root = par->rank == 0;

    /* output directory: rank 0 creates and probes it, everyone hears the verdict */
    int bad_dir = 0;
    vs_thermo_csv csv = {NULL};
    if (root)
        bad_dir = vs_check_writable_dir(prm->output_dir, err, sizeof err) != 0 ||
                  vs_thermo_csv_open(&csv, prm->output_dir, err, sizeof err) != 0;
    if (vs_par_any(par, bad_dir)) {
        if (root)
            fprintf(stderr, "vesica: error: output.dir: %s\n", err);
        vs_sim_destroy(&sim);
        return VS_EXIT_BAD_INPUT;
    }

    const char *device = sim.device;
    vs_log_info("Vesica: %lld particles, %d species, box %g x %g x %g, density %.6g",
                (long long)prm->n_particles, prm->n_species, prm->box[0], prm->box[1],
                prm->box[2], prm->density);
    vs_log_info("Ranks: %d as %d x %d x %d bricks; ghost width %g; backend %s (%s)", par->size,
                sim.dc.dims[0], sim.dc.dims[1], sim.dc.dims[2], sim.ghost_width,
                sim.backend->name, device);
    vs_log_info("Steps: %lld of dt %g (lambda %g); thermo every %lld; output in %s\n",
                (long long)prm->steps, prm->dt, prm->lambda, (long long)prm->thermo_interval,
                prm->output_dir);

    int status = 0;
    vs_thermo t;
    if (vs_sim_start(&sim, err, sizeof err) != 0) {
        if (root)
            fprintf(stderr, "vesica: error: %s\n", err);
        vs_thermo_csv_close(&csv);
        vs_sim_destroy(&sim);
        return 1;
    }
    vs_timer_start(&sim.timers, VS_TIMER_output);
    vs_sim_thermo(&sim, &t);
    if (vs_sim_check_integrity(&sim))
        status = 1;
    if (root)
        vs_thermo_csv_write(&csv, &t);
    print_thermo_header();
    print_thermo_row(&t, -1.0);
    vs_timer_stop(&sim.timers, VS_TIMER_output);
    /* the loop's timers start clean: set-up (initial state, first build) is not a step */
    vs_timers_reset(&sim.timers);
    const int64_t builds_at_start = sim.n_builds;

    const double t0 = vs_wall_seconds();
    for (int64_t k = 1; k <= prm->steps && status == 0; ++k) {
        sim.energy_due = k % prm->thermo_interval == 0 || k == prm->steps;
        vs_sim_step(&sim);
        if (sim.energy_due) {
            vs_timer_start(&sim.timers, VS_TIMER_output);
            vs_sim_thermo(&sim, &t);
            if (vs_sim_check_integrity(&sim))
                status = 1;
            if (root && vs_thermo_csv_write(&csv, &t) != 0) {
                vs_log_error("%s/thermo.csv: write failed (disk full?)", prm->output_dir);
            }
            const double elapsed = vs_wall_seconds() - t0;
            print_thermo_row(&t, elapsed / (double)k * (double)(prm->steps - k));
            vs_timer_stop(&sim.timers, VS_TIMER_output);
        }
    }
    const double loop_s = vs_wall_seconds() - t0;
    if (root)
        vs_thermo_csv_close(&csv);
    if (status != 0) {
        vs_log_info("Run stopped at step %lld: particle integrity check failed (see above)",
                    (long long)sim.step);
        vs_sim_destroy(&sim);
        return 1;
    }

    const int64_t steps = sim.step;
    vs_perf_summary perf;
    memset(&perf, 0, sizeof perf);
    perf.particles = prm->n_particles;
    perf.steps = steps;
    perf.ranks = par->size;
    perf.backend = sim.backend->name;
    perf.device = device;
    perf.wall_s = loop_s;
    perf.particle_steps_per_s =
        loop_s > 0.0 ? (double)prm->n_particles * (double)steps / loop_s : 0.0;
    perf.neighbor_builds = sim.n_builds - builds_at_start;
    perf.dangerous_builds = sim.n_dangerous;
    const double n_local = (double)prm->n_particles / (double)par->size;
    perf.memory_bytes_per_particle = sim.backend->memory_bytes(&sim) / n_local;

    vs_log_info("\nLoop time of %.4g s on %d ranks for %lld steps with %lld particles",
                loop_s, par->size, (long long)steps, (long long)prm->n_particles);
    vs_log_info("Performance: %.4g steps/s, %.4g particle-steps/s",
                loop_s > 0.0 ? (double)steps / loop_s : 0.0, perf.particle_steps_per_s);
    vs_log_info("Memory: %.1f bytes per particle (%s memory, rank 0)",
                perf.memory_bytes_per_particle, sim.gpu ? "device" : "host");
    vs_log_info("Neighbor list builds = %lld", (long long)perf.neighbor_builds);
    vs_log_info("Dangerous builds = %lld", (long long)perf.dangerous_builds);
    report_timing(&sim, loop_s, &perf);

    int bad = 0;
    if (root && vs_perf_json_write(prm->output_dir, &perf, err, sizeof err) != 0) {
        vs_log_error("%s", err);
        bad = 1;
    }
    const int failed = vs_par_any(par, bad);
    vs_sim_destroy(&sim);
    return failed ? 1 : 0;
}
