/* perf.json: the machine-readable performance summary of a run, one JSON object written once
 * at the end by rank 0, atomically (temporary file, fsync, rename). Its keys: particles,
 * steps, ranks, backend, device, plan, wall_s, particle_steps_per_s, neighbor_builds,
 * dangerous_builds, memory_bytes_per_particle, comm_hidden_s, halo_bytes_per_step,
 * checkpoints, checkpoint_s, checkpoint_bytes, frames, trajectory_s, trajectory_bytes, in
 * runs with reactions reaction_steps and reaction_s, and
 * phases_s and phases_max_s (seconds per phase, named by vs_timer_keys: average and maximum
 * over ranks). Scripts (scaling/, tests/) read keys by name, so a key may be added but not
 * renamed or removed without them. Meaning of each key: docs/file-formats.md. */
#ifndef VESICA_PERF_JSON_H
#define VESICA_PERF_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "timer.h"

typedef struct {
    int64_t particles, steps;
    int ranks;
    const char *backend, *device;
    const char *plan;           /* how the backend runs the step; "" or NULL: none given */
    double wall_s, particle_steps_per_s;
    double phase_avg_s[VS_TIMER_COUNT], phase_max_s[VS_TIMER_COUNT];
    int64_t neighbor_builds, dangerous_builds;
    double memory_bytes_per_particle; /* backend memory on rank 0 / particles per rank */
    double comm_hidden_s;       /* communication under force work (overlap), rank average */
    double halo_bytes_per_step; /* bytes sent per ghost update, summed over ranks */
    /* I/O of the loop (also inside phases_s.output): count, seconds, bytes */
    int64_t checkpoints, frames;
    double checkpoint_s, checkpoint_bytes, trajectory_s, trajectory_bytes;
    /* reactions: the reaction steps of the loop and their seconds (rank average; outside the
     * phases, part of "Other"); 0 without reactions, and then not written */
    int64_t reaction_steps;
    double reaction_s;
} vs_perf_summary;

int vs_perf_json_write(const char *dir, const vs_perf_summary *s, char *err, size_t err_len);

#endif
