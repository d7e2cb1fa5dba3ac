/* Stopping a run for a restart: see run_stop.h. */
#define _POSIX_C_SOURCE 200809L
#include "run_stop.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static volatile sig_atomic_t stop_signal = 0;

static void on_stop_signal(int sig) { stop_signal = sig; }

void vs_run_install_stop_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
}

int vs_run_stop_signalled(void) { return stop_signal != 0; }

void vs_run_stop_init(vs_run_stop *s)
{
    memset(s, 0, sizeof *s);
    const char *at = getenv("VESICA_TEST_STOP_AT");
    s->test_at = at ? strtoll(at, NULL, 10) : -1;
}

int vs_run_stop_now(vs_run_stop *s, const vs_par *par, int want, int64_t k, int built)
{
    if (!s->pending) {
        want = want || stop_signal != 0 || k == s->test_at;
        if (!vs_par_any(par, want))
            return 0;
        s->pending = 1;
        s->asked_at = k;
    }
    return built || k - s->asked_at >= VS_STOP_WAIT;
}
