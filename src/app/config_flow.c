/* The flow and profiles groups: see config_flow.h. */
#include "config_flow.h"

#include <stdio.h>
#include <string.h>

#include "param_schema.h"

/* The small readers of config.c (static there; AUTOCONVERT is off, so convert here). */
static config_setting_t *at(const config_setting_t *root, const char *group, const char *name)
{
    const config_setting_t *g = config_setting_get_member(root, group);
    return g ? config_setting_get_member(g, name) : NULL;
}

static double num(const config_setting_t *s)
{
    if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
        return config_setting_get_float(s);
    return config_setting_type(s) == CONFIG_TYPE_INT ? (double)config_setting_get_int(s)
                                                     : (double)config_setting_get_int64(s);
}

static long long whole(const config_setting_t *s)
{
    return config_setting_type(s) == CONFIG_TYPE_INT ? config_setting_get_int(s)
                                                     : config_setting_get_int64(s);
}

static int choice(const config_setting_t *root, const char *group, const char *name)
{
    char path[PATH_LEN];
    snprintf(path, sizeof path, "%s.%s", group, name);
    const char *v = config_setting_get_string(at(root, group, name));
    for (int i = 0; i < vs_config_schema_count; ++i)
        if (strcmp(vs_config_schema[i].path, path) == 0)
            for (const key_choice *ch = vs_config_schema[i].choices; ch->name; ++ch)
                if (strcmp(ch->name, v) == 0)
                    return ch->value;
    return 0; /* not reached: the per-key pass checked the choice */
}

static int extract_flow_group(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    vs_flow *f = &p->flow;
    memset(f, 0, sizeof *f);
    f->kind = (vs_flow_kind)choice(root, "flow", "kind");
    if (f->kind == VS_FLOW_NONE)
        return 0; /* all zero, as checkpoints older than the term read back */
    f->axis = choice(root, "flow", "axis");
    f->across = choice(root, "flow", "across");
    f->g = num(at(root, "flow", "g"));
    if (p->integrator.kind == VS_INTEGRATOR_NPT) /* the integrator group is read first */
        return cfg_fail(c, at(root, "flow", "kind"), "flow.kind",
                        "expected \"none\" with integrator.kind = \"npt\" (the barostat "
                        "scales the box, which would move the flow's profile)");
    if (f->across == f->axis)
        return cfg_fail(c, at(root, "flow", "across"), "flow.across",
                        "expected an axis other than flow.axis (got \"%c\" for both)",
                        "xyz"[f->axis]);
    const config_setting_t *sp = at(root, "flow", "species");
    const char *name = config_setting_get_string(sp);
    f->species = -1;
    if (strcmp(name, "all") == 0)
        return 0;
    for (int i = 0; i < p->species.n; ++i)
        if (strcmp(p->species.list[i].name, name) == 0)
            f->species = i;
    if (f->species >= 0)
        return 0;
    char list[SHOW_LEN] = "";
    for (int i = 0; i < p->species.n; ++i)
        cfg_put(list, sizeof list, ", \"%s\"", p->species.list[i].name);
    return cfg_fail(c, sp, "flow.species", "expected \"all\"%s (got \"%s\")", list, name);
}

/* Windows must close within the run: a window past its end would never be written. */
static int check_windows(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    vs_profiles_params *q = &p->output.profiles;
    if (q->window > 0) {
        if (q->window > p->integrator.steps)
            return cfg_fail(c, at(root, "profiles", "window"), "profiles.window",
                            "expected at most integrator.steps = %lld steps (got %lld)",
                            (long long)p->integrator.steps, (long long)q->window);
        if (q->window % q->every != 0)
            return cfg_fail(c, at(root, "profiles", "window"), "profiles.window",
                            "expected a multiple of profiles.every = %lld (got %lld)",
                            (long long)q->every, (long long)q->window);
        return 0;
    }
    const config_setting_t *t = at(root, "profiles", "times");
    q->n_times = config_setting_length(t);
    const double end = (double)p->integrator.steps * p->integrator.dt;
    for (int i = 0; i < q->n_times; ++i) {
        q->times[i] = num(config_setting_get_elem(t, (unsigned)i));
        char key[PATH_LEN], got[48], last[48];
        snprintf(key, sizeof key, "profiles.times.[%d]", i);
        cfg_fmt_double(got, sizeof got, q->times[i]);
        /* a bound computed from other keys: 6 digits, not its round-off (0.4 - 0.5) */
        snprintf(last, sizeof last, "%.6g", end - q->half_width);
        if (q->times[i] + q->half_width > end)
            return cfg_fail(c, config_setting_get_elem(t, (unsigned)i), key,
                            "expected a window ending within the run, a time <= steps * dt - "
                            "half_width = %s (got %s)", last, got);
        if (i > 0 && !(q->times[i] - q->half_width >= q->times[i - 1] + q->half_width))
            return cfg_fail(c, config_setting_get_elem(t, (unsigned)i), key,
                            "expected a window after the previous one, without overlap (got %s)",
                            got);
    }
    return 0;
}

static int extract_profiles_group(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    vs_profiles_params *q = &p->output.profiles;
    memset(q, 0, sizeof *q);
    q->axis = choice(root, "profiles", "axis");
    if (q->axis < 0)
        return 0;
    q->bins = (int)whole(at(root, "profiles", "bins"));
    q->every = whole(at(root, "profiles", "every"));
    q->window = whole(at(root, "profiles", "window"));
    q->half_width = num(at(root, "profiles", "half_width"));
    q->per_species = choice(root, "profiles", "per_species");
    return check_windows(c, root, p);
}

int vs_config_extract_flow(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    int rc = extract_flow_group(c, root, p);
    return rc ? rc : extract_profiles_group(c, root, p);
}
