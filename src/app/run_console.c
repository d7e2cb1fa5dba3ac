/* The run's console lines: see run_console.h. */
#include "run_console.h"

#include <stdio.h>

#include "log.h"

static void format_eta(double seconds, char *buf, size_t len)
{
    if (seconds < 0.0)
        snprintf(buf, len, "-");
    else if (seconds < 3600.0)
        snprintf(buf, len, "%02d:%02d", (int)(seconds / 60.0), (int)seconds % 60);
    else
        snprintf(buf, len, "%dh%02dm", (int)(seconds / 3600.0), ((int)seconds % 3600) / 60);
}

void vs_console_thermo_header(void)
{
    vs_log_info("%10s %12s %12s %12s %14s %14s %10s", "Step", "Time", "Temp", "Press",
                "KinEng", "PotEng", "ETA");
}

void vs_console_thermo_row(const vs_thermo *t, double eta_s)
{
    char eta[32];
    format_eta(eta_s, eta, sizeof eta);
    vs_log_info("%10lld %12.4f %12.6f %12.6f %14.6g %14.6g %10s", (long long)t->step, t->time,
                t->temperature, t->pressure, t->kinetic, t->potential, eta);
}

void vs_console_progress(int64_t k, int64_t steps, int64_t done, double elapsed)
{
    const double rate = (double)done / elapsed;
    char eta[32];
    format_eta((double)(steps - k) / rate, eta, sizeof eta);
    vs_log_info("  ... step %lld of %lld, %.3g steps/s, ETA %s", (long long)k,
                (long long)steps, rate, eta);
}

/* Per-phase min/avg/max over ranks, printed like LAMMPS's breakdown, and collected for
 * perf.json. */
void vs_console_timing(const vs_sim *sim, double loop_s, vs_perf_summary *perf)
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
    /* overlap: the part of Comm that ran while forces were computed */
    double hidden = sim->comm_hidden_s;
    vs_par_sum_double(par, &hidden, 1);
    perf->comm_hidden_s = hidden / par->size;
    const double comm = perf->phase_avg_s[VS_TIMER_comm];
    if (perf->comm_hidden_s > 0.0)
        vs_log_info("Comm hidden under forces: %.4f s of %.4f s (%.1f%%)", perf->comm_hidden_s,
                    comm, comm > 0.0 ? 100.0 * perf->comm_hidden_s / comm : 0.0);
    double halo =
        sim->backend->halo_bytes ? (double)sim->backend->halo_bytes(sim->backend_state) : 0.0;
    vs_par_sum_double(par, &halo, 1);
    perf->halo_bytes_per_step = halo;
    if (par->size > 1)
        vs_log_info("Halo: %.4g bytes sent in the last ghost exchange (all ranks)", halo);
}

void vs_console_reactions(const vs_sim *sim, double loop_s, int64_t steps0, double seconds0,
                          vs_perf_summary *perf)
{
    const vs_par *par = &sim->dc.cart;
    double rx_s = sim->rx.seconds - seconds0;
    vs_par_sum_double(par, &rx_s, 1);
    perf->reaction_steps = sim->rx.steps - steps0;
    perf->reaction_s = rx_s / par->size;
    vs_log_info("Reactions: %lld reaction steps, %.4f s (%.2f%% of the loop, in Other); since "
                "step 0 %lld monomers bonded by chain growth, %lld bonds made, %lld broken",
                (long long)perf->reaction_steps, perf->reaction_s,
                loop_s > 0.0 ? 100.0 * perf->reaction_s / loop_s : 0.0,
                (long long)sim->rx.st.total_chain, (long long)sim->rx.st.total_created,
                (long long)sim->rx.st.total_broken);
}
