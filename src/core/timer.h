/* Phase timers for the end-of-run breakdown (like LAMMPS's timing table).
 *
 * One X-macro list names the phases, so the enum and the printed names cannot drift. Times
 * are wall-clock seconds on this rank; the report reduces them to min/avg/max over ranks and
 * names the slowest rank.
 */
#ifndef VESICA_TIMER_H
#define VESICA_TIMER_H

#define VS_TIMER_PHASES(X)                                                                     \
    X(pair, "Pair")                                                                            \
    X(neighbor, "Neighbor")                                                                    \
    X(comm, "Comm")                                                                            \
    X(integrate, "Integrate")                                                                  \
    X(output, "Output")

typedef enum {
#define VS_TIMER_ENUM(id, label) VS_TIMER_##id,
    VS_TIMER_PHASES(VS_TIMER_ENUM)
#undef VS_TIMER_ENUM
    VS_TIMER_COUNT
} vs_timer_id;

typedef struct {
    double total[VS_TIMER_COUNT];
    double started[VS_TIMER_COUNT];
} vs_timers;

extern const char *const vs_timer_labels[VS_TIMER_COUNT]; /* "Pair", ... for tables */
extern const char *const vs_timer_keys[VS_TIMER_COUNT];   /* "pair", ... for perf.json */

void vs_timers_reset(vs_timers *t);
void vs_timer_start(vs_timers *t, vs_timer_id id);
void vs_timer_stop(vs_timers *t, vs_timer_id id);
double vs_wall_seconds(void);

#endif
