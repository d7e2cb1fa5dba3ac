/* Phase timers: see timer.h. CLOCK_MONOTONIC, so a clock adjustment cannot make a phase take
 * negative time. */
#define _POSIX_C_SOURCE 200809L
#include "timer.h"

#include <string.h>
#include <time.h>

const char *const vs_timer_labels[VS_TIMER_COUNT] = {
#define VS_TIMER_LABEL(id, label) label,
    VS_TIMER_PHASES(VS_TIMER_LABEL)
#undef VS_TIMER_LABEL
};

const char *const vs_timer_keys[VS_TIMER_COUNT] = {
#define VS_TIMER_KEY(id, label) #id,
    VS_TIMER_PHASES(VS_TIMER_KEY)
#undef VS_TIMER_KEY
};

double vs_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void vs_timers_reset(vs_timers *t) { memset(t, 0, sizeof(*t)); }

void vs_timer_start(vs_timers *t, vs_timer_id id) { t->started[id] = vs_wall_seconds(); }

void vs_timer_stop(vs_timers *t, vs_timer_id id)
{
    t->total[id] += vs_wall_seconds() - t->started[id];
}
