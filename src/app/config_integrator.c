/* The integrator group's ensemble keys: see config_integrator.h. */
#include "config_integrator.h"

#include <stdio.h>
#include <string.h>

#include "param_schema.h"

static config_setting_t *key(const config_setting_t *root, const char *name)
{
    const config_setting_t *g = config_setting_get_member(root, "integrator");
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

/* The parameters and the kinds that use them (a bit per vs_integrator_kind). */
#define USERS(k) (1u << (k))
static const struct {
    const char *name;
    unsigned users;
} PARAMS[] = {
    {"tau", USERS(VS_INTEGRATOR_NOSE_HOOVER) | USERS(VS_INTEGRATOR_BERENDSEN) |
                USERS(VS_INTEGRATOR_NPT)},
    {"gamma", USERS(VS_INTEGRATOR_LANGEVIN) | USERS(VS_INTEGRATOR_BROWNIAN)},
    {"collision_rate", USERS(VS_INTEGRATOR_ANDERSEN)},
    {"pressure", USERS(VS_INTEGRATOR_NPT)},
    {"tau_p", USERS(VS_INTEGRATOR_NPT)},
};
#define N_PARAMS ((int)(sizeof PARAMS / sizeof PARAMS[0]))

/* What npt refuses: forces its Liouvillian does not contain. */
static int check_npt(const cfg_ctx *c, const config_setting_t *kind_site, const vs_params *p)
{
    if (!(p->dpd.kT > 0.0))
        return cfg_fail(c, kind_site, "integrator.kind",
                        "\"npt\" needs a temperature: expected dpd.kT > 0 (its thermostat "
                        "and barostat masses are proportional to kT)");
    if (p->dpd.gamma.v != 0.0)
        return cfg_fail(c, kind_site, "integrator.kind",
                        "\"npt\" integrates conservative forces only (the DPD thermostat is "
                        "not part of its equations of motion): expected dpd.gamma = 0");
    for (int sp = 0; sp < p->species.n; ++sp)
        for (int d = 0; d < 3; ++d)
            if (p->species.list[sp].body_force[d] != 0.0)
                return cfg_fail(c, kind_site, "integrator.kind",
                                "\"npt\" has no body force in its equations of motion: "
                                "expected species.[%d].body_force = [0, 0, 0]", sp);
    return 0;
}

int vs_config_extract_integrator(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    const config_setting_t *kind_site = key(root, "kind");
    const char *kind_name = config_setting_get_string(kind_site);
    int kind = VS_INTEGRATOR_DPD;
    for (int i = 0; i < vs_config_schema_count; ++i)
        if (strcmp(vs_config_schema[i].path, "integrator.kind") == 0)
            for (const key_choice *ch = vs_config_schema[i].choices; ch->name; ++ch)
                if (strcmp(ch->name, kind_name) == 0)
                    kind = ch->value;
    p->integrator.kind = (vs_integrator_kind)kind;
    double values[N_PARAMS] = {0.0};
    for (int k = 0; k < N_PARAMS; ++k) {
        char path[64];
        snprintf(path, sizeof path, "integrator.%s", PARAMS[k].name);
        const config_setting_t *s = key(root, PARAMS[k].name);
        const int used = (PARAMS[k].users & USERS(kind)) != 0;
        if (used && !s)
            return cfg_fail(c, kind_site, path, "required key is missing (integrator.kind = "
                            "\"%s\" needs it)", kind_name);
        if (!used && s)
            return cfg_fail(c, s, path, "not used by integrator.kind = \"%s\"; remove it",
                            kind_name);
        if (s)
            values[k] = num(s);
        /* tau, tau_p: below one step the relaxation overshoots (berendsen heats without
         * bound) and the chains cannot follow; past 1e9 steps nothing couples, and the masses
         * (proportional to tau^2) overflow on the way */
        const double dt = p->integrator.dt;
        if (s && (k == 0 || k == 4) && !(values[k] >= dt && values[k] <= 1e9 * dt))
            return cfg_fail(c, s, path, "expected a time constant from integrator.dt = %g to "
                            "1e9 dt (got %g): the %s cannot follow a shorter one and does "
                            "nothing with a longer one", dt, values[k],
                            k == 0 ? "thermostat" : "barostat");
    }
    p->integrator.tau = values[0];
    p->integrator.friction = values[1];
    p->integrator.collision_rate = values[2];
    p->integrator.pressure = values[3];
    p->integrator.tau_p = values[4];
    /* the chain length has a default: it is kept only where a chain runs */
    const int chained = kind == VS_INTEGRATOR_NOSE_HOOVER || kind == VS_INTEGRATOR_NPT;
    p->integrator.chain = chained ? (int)whole(key(root, "chain")) : 0;
    p->integrator.remove_com_every = whole(key(root, "remove_com_every"));
    if (kind == VS_INTEGRATOR_NOSE_HOOVER && !(p->dpd.kT > 0.0))
        return cfg_fail(c, kind_site, "integrator.kind",
                        "\"nose_hoover\" needs a temperature: expected dpd.kT > 0 (its "
                        "chain masses are proportional to kT)");
    const int npt_rc = kind == VS_INTEGRATOR_NPT ? check_npt(c, kind_site, p) : 0;
    if (npt_rc != 0)
        return npt_rc;
    if (kind == VS_INTEGRATOR_BROWNIAN && p->dpd.gamma.v != 0.0)
        return cfg_fail(c, kind_site, "integrator.kind",
                        "\"brownian\" has no velocities for the DPD dissipative force: "
                        "expected dpd.gamma = 0");
    return 0;
}
