/* The boundary group: see config_boundary.h. */
#include "config_boundary.h"

#include <stdio.h>

static const config_setting_t *site(const config_setting_t *root, const char *path)
{
    return config_setting_lookup((config_setting_t *)root, path);
}

/* The tangential wall velocities of axis d: zero unless the walls are no-slip, and with no
 * component along the axis. */
static int check_velocities(const cfg_ctx *c, const config_setting_t *root, const vs_wall *w,
                            int d)
{
    static const char *const side[2] = {"velocity_lo", "velocity_hi"};
    const double *v[2] = {w->velocity_lo, w->velocity_hi};
    for (int s = 0; s < 2; ++s) {
        char key[64];
        snprintf(key, sizeof key, "boundary.%c.%s", "xyz"[d], side[s]);
        const int moving = v[s][0] != 0.0 || v[s][1] != 0.0 || v[s][2] != 0.0;
        if (moving && w->kind != VS_BOUNDARY_BOUNCE_BACK)
            return cfg_fail(c, site(root, key), key,
                            "expected [0.0, 0.0, 0.0]: only a bounce_back (no-slip) wall moves "
                            "(boundary.%c.kind is \"%s\")",
                            "xyz"[d], w->kind == VS_BOUNDARY_PERIODIC ? "periodic"
                                                                       : "bounce_forward");
        if (v[s][d] != 0.0)
            return cfg_fail(c, site(root, key), key,
                            "expected a velocity along the wall: component %c 0 (got %g)",
                            "xyz"[d], v[s][d]);
    }
    return 0;
}

static int check_force(const cfg_ctx *c, const config_setting_t *root, const vs_params *p,
                       int d)
{
    const vs_wall *w = &p->boundary.axis[d];
    char key[64];
    snprintf(key, sizeof key, "boundary.%c.force.kind", "xyz"[d]);
    if (w->force == VS_WALL_FORCE_NONE)
        return 0;
    if (w->kind == VS_BOUNDARY_PERIODIC)
        return cfg_fail(c, site(root, key), key,
                        "expected \"none\" on a periodic axis (boundary.%c.kind is \"periodic\")",
                        "xyz"[d]);
    snprintf(key, sizeof key, "boundary.%c.force.d", "xyz"[d]);
    if (!(w->force_d > 0.0))
        return cfg_fail(c, site(root, key), key, "expected the range d of the wall force "
                        "(required with boundary.%c.force.kind)", "xyz"[d]);
    /* the configuration's box (an input file's box is checked against the bricks) */
    const config_setting_t *box = site(root, "box");
    const config_setting_t *e = box ? config_setting_get_elem(box, (unsigned)d) : NULL;
    const double edge = !e ? 0.0
                        : config_setting_type(e) == CONFIG_TYPE_FLOAT ? config_setting_get_float(e)
                                                                      : (double)config_setting_get_int64(e);
    if (edge > 0.0 && !(2.0 * w->force_d <= edge))
        return cfg_fail(c, site(root, key), key,
                        "expected at most half the box edge %g along %c (got %g: the two walls' "
                        "ranges would overlap)", edge, "xyz"[d], w->force_d);
    return 0;
}

int vs_config_boundary(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    for (int d = 0; d < 3; ++d) {
        int rc = check_velocities(c, root, &p->boundary.axis[d], d);
        if (rc || (rc = check_force(c, root, p, d)))
            return rc;
    }
    for (int s = 0; s < p->species.n; ++s) {
        if (!p->species.list[s].frozen)
            continue;
        char key[64];
        snprintf(key, sizeof key, "species.[%d].frozen", s);
        const int plain = p->integrator.kind == VS_INTEGRATOR_DPD ||
                          p->integrator.kind == VS_INTEGRATOR_NVE;
        if (!plain || p->integrator.remove_com_every > 0)
            return cfg_fail(c, site(root, "species"), key,
                            "expected integrator.kind \"dpd\" or \"nve\" and no "
                            "integrator.remove_com_every with a frozen species (the "
                            "thermostats' per-particle steps would move wall particles)");
        if (p->species.list[s].inertia > 0.0)
            return cfg_fail(c, site(root, "species"), key,
                            "expected \"off\" for an oriented species (one with inertia): "
                            "frozen particles are point beads");
    }
    if (vs_has_walls(p) && p->integrator.kind == VS_INTEGRATOR_NPT)
        return cfg_fail(c, site(root, "integrator.kind"), "integrator.kind",
                        "expected a kind other than \"npt\" with walls (the barostat scales "
                        "the box, which would move the walls)");
    return 0;
}
