/* perf.json writer: see perf_json.h. */
#include "perf_json.h"

#include <stdio.h>

#include "fsutil.h"
#include "params.h"

/* `s` (NULL: empty) as the body of a JSON string: quotes, backslashes and control characters
 * escaped; cut to fit `len`. */
static void json_escape(char *out, size_t len, const char *s)
{
    size_t n = 0;
    for (; s && *s && n + 7 < len; ++s) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            n += (size_t)snprintf(out + n, len - n, "\\%c", c);
        else if (c < 0x20)
            n += (size_t)snprintf(out + n, len - n, "\\u%04x", c);
        else
            out[n++] = (char)c;
    }
    out[n] = '\0';
}

int vs_perf_json_write(const char *dir, const vs_perf_summary *s, char *err, size_t err_len)
{
    char text[4096];
    char backend[256], device[512], plan[512];
    json_escape(backend, sizeof backend, s->backend);
    json_escape(device, sizeof device, s->device);
    json_escape(plan, sizeof plan, s->plan);
    size_t n = 0;
#define VS_APPEND(...) n += (size_t)snprintf(text + n, n < sizeof text ? sizeof text - n : 0, __VA_ARGS__)
    VS_APPEND("{\n  \"particles\": %lld,\n  \"steps\": %lld,\n  \"ranks\": %d,\n",
              (long long)s->particles, (long long)s->steps, s->ranks);
    VS_APPEND("  \"backend\": \"%s\",\n  \"device\": \"%s\",\n  \"plan\": \"%s\",\n", backend,
              device, plan);
    VS_APPEND("  \"wall_s\": %.6f,\n  \"particle_steps_per_s\": %.6e,\n", s->wall_s,
              s->particle_steps_per_s);
    VS_APPEND("  \"neighbor_builds\": %lld,\n  \"dangerous_builds\": %lld,\n",
              (long long)s->neighbor_builds, (long long)s->dangerous_builds);
    VS_APPEND("  \"memory_bytes_per_particle\": %.1f,\n", s->memory_bytes_per_particle);
    VS_APPEND("  \"comm_hidden_s\": %.6f,\n  \"halo_bytes_per_step\": %.0f,\n",
              s->comm_hidden_s, s->halo_bytes_per_step);
    VS_APPEND("  \"checkpoints\": %lld,\n  \"checkpoint_s\": %.6f,\n  \"checkpoint_bytes\": %.0f,\n",
              (long long)s->checkpoints, s->checkpoint_s, s->checkpoint_bytes);
    VS_APPEND("  \"frames\": %lld,\n  \"trajectory_s\": %.6f,\n  \"trajectory_bytes\": %.0f,\n",
              (long long)s->frames, s->trajectory_s, s->trajectory_bytes);
    if (s->reaction_steps > 0) /* runs with reactions only */
        VS_APPEND("  \"reaction_steps\": %lld,\n  \"reaction_s\": %.6f,\n",
                  (long long)s->reaction_steps, s->reaction_s);
    VS_APPEND("  \"phases_s\": {");
    for (int k = 0; k < VS_TIMER_COUNT; ++k)
        VS_APPEND("%s\n    \"%s\": %.6f", k ? "," : "", vs_timer_keys[k], s->phase_avg_s[k]);
    VS_APPEND("\n  },\n  \"phases_max_s\": {");
    for (int k = 0; k < VS_TIMER_COUNT; ++k)
        VS_APPEND("%s\n    \"%s\": %.6f", k ? "," : "", vs_timer_keys[k], s->phase_max_s[k]);
    VS_APPEND("\n  }\n}\n");
#undef VS_APPEND
    if (n >= sizeof text) {
        snprintf(err, err_len, "perf.json: summary too long");
        return -1;
    }
    char path[VS_PATH_LEN + 16];
    snprintf(path, sizeof path, "%s/perf.json", dir);
    return vs_write_file_atomic(path, text, n, err, err_len);
}
