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
