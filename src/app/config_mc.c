/* The mc group: see config_mc.h. The per-key checks (types, ranges such as kT > 0, activity
 * > 0) are the schema's; these are the checks across keys. */
#include "config_mc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const config_setting_t *get(const config_setting_t *g, const char *name)
{
    return g && config_setting_is_group(g) ? config_setting_get_member(g, name) : NULL;
}

static double num(const config_setting_t *s)
{
    if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
        return config_setting_get_float(s);
    return config_setting_type(s) == CONFIG_TYPE_INT ? (double)config_setting_get_int(s)
                                                     : (double)config_setting_get_int64(s);
}

/* The defaults create every optional group, mc included: a given one has its required kT. */
int vs_config_mc_given(const config_setting_t *root)
{
    return get(get(root, "mc"), "kT") != NULL;
}

int vs_config_mc_groups(const cfg_ctx *c, const config_setting_t *root)
{
    static const char *const md_only[] = {"dpd", "integrator", "molecules", "reactions",
                                          "aniso", "flow", "profiles"};
    for (size_t i = 0; i < sizeof md_only / sizeof md_only[0]; ++i) {
        const config_setting_t *s = get(root, md_only[i]);
        if (s)
            return cfg_fail(c, s, md_only[i], "not used by the Monte Carlo engine (the mc "
                            "group is given; mc.kT is its temperature); remove it");
    }
    return 0;
}

static const char *const ENSEMBLE_NAME[] = {"nvt", "npt", "gcmc", "gibbs", "gibbs_npt"};
static const char *const MOVE_KEY[VS_MC_MOVES] = {"displacement", "volume", "exchange"};
/* Which move kinds each ensemble has (a bit per vs_mc_move), and their default
 * probabilities when mc.moves gives none. */
static const unsigned ALLOWED[] = {1u, 3u, 5u, 7u, 7u};
static const double DEFAULT_P[][VS_MC_MOVES] = {
    {1.0, 0.0, 0.0}, {0.99, 0.01, 0.0}, {0.5, 0.0, 0.5}, {0.89, 0.01, 0.1}, {0.89, 0.01, 0.1}};

static int check_moves(const cfg_ctx *c, const config_setting_t *mc, vs_mc_params *m)
{
    const config_setting_t *moves = get(mc, "moves");
    const char *ens = ENSEMBLE_NAME[m->ensemble];
    int given = 0;
    double sum = 0.0;
    for (int k = 0; k < VS_MC_MOVES; ++k) {
        const config_setting_t *s = get(moves, MOVE_KEY[k]);
        m->p_move[k] = s ? num(s) : 0.0;
        char key[64];
        snprintf(key, sizeof key, "mc.moves.%s", MOVE_KEY[k]);
        if (s && m->p_move[k] > 0.0 && !(ALLOWED[m->ensemble] & (1u << k)))
            return cfg_fail(c, s, key, "the %s ensemble has no %s move: expected 0 or no key",
                            ens, MOVE_KEY[k]);
        given += s != NULL;
        sum += m->p_move[k];
    }
    if (!given) {
        memcpy(m->p_move, DEFAULT_P[m->ensemble], sizeof m->p_move);
        return 0;
    }
    if (fabs(sum - 1.0) > 1e-9)
        return cfg_fail(c, moves, "mc.moves", "expected the move probabilities to sum to 1 "
                        "(got %.17g)", sum);
    /* the last given kind takes the round-off, so the cumulative sum reaches 1 exactly */
    for (int k = VS_MC_MOVES - 1; k >= 0; --k)
        if (m->p_move[k] > 0.0) {
            m->p_move[k] += 1.0 - sum;
            break;
        }
    if (!(m->p_move[VS_MC_DISPLACE] > 0.0))
        return cfg_fail(c, moves, "mc.moves.displacement", "expected a probability > 0 "
                        "(without displacements the particles never move within a box)");
    return 0;
}

/* The keys each ensemble needs or refuses: pressure (npt, gibbs_npt), activity (gcmc), box2
 * and particles2 (gibbs, gibbs_npt). */
static int check_ensemble_keys(const cfg_ctx *c, const config_setting_t *mc, vs_params *p)
{
    vs_mc_params *m = &p->mc;
    const char *ens = ENSEMBLE_NAME[m->ensemble];
    const config_setting_t *site = get(mc, "ensemble") ? get(mc, "ensemble") : mc;
    static const char *const keys[] = {"pressure", "activity", "chemical_potential", "box2",
                                       "particles2"};
    const unsigned two = 1u << VS_MC_GIBBS | 1u << VS_MC_GIBBS_NPT;
    const unsigned users[] = {1u << VS_MC_NPT | 1u << VS_MC_GIBBS_NPT, 1u << VS_MC_GCMC,
                              1u << VS_MC_GCMC, two, two};
    for (int k = 0; k < 5; ++k) {
        const config_setting_t *s = get(mc, keys[k]);
        char key[64];
        snprintf(key, sizeof key, "mc.%s", keys[k]);
        if (s && !(users[k] & (1u << m->ensemble)))
            return cfg_fail(c, s, key, "not used by mc.ensemble = \"%s\"; remove it", ens);
    }
    if (m->ensemble == VS_MC_NPT || m->ensemble == VS_MC_GIBBS_NPT) {
        if (!get(mc, "pressure"))
            return cfg_fail(c, site, "mc.pressure", "required key is missing (mc.ensemble = "
                            "\"%s\" needs it)", ens);
        m->pressure = num(get(mc, "pressure"));
    }
    if (m->ensemble == VS_MC_GCMC) {
        const config_setting_t *z = get(mc, "activity"), *mu = get(mc, "chemical_potential");
        if (!z && !mu)
            return cfg_fail(c, site, "mc.activity", "required key is missing (mc.ensemble = "
                            "\"gcmc\" needs mc.activity or mc.chemical_potential)");
        m->activity = z ? num(z) : exp(num(mu) / m->kT);
        if (!(m->activity > 0.0 && isfinite(m->activity)))
            return cfg_fail(c, mu, "mc.chemical_potential", "expected exp(mu / kT) to be a "
                            "positive finite number (got mu = %g)", num(mu));
        if (p->species.n != 1)
            return cfg_fail(c, site, "mc.ensemble", "\"gcmc\" inserts one species: expected "
                            "one species (got %d)", p->species.n);
    }
    if (m->ensemble == VS_MC_GIBBS || m->ensemble == VS_MC_GIBBS_NPT) {
        const config_setting_t *b2 = get(mc, "box2"), *n2 = get(mc, "particles2");
        if (!b2)
            return cfg_fail(c, site, "mc.box2", "\"%s\" needs two boxes: the second box's "
                            "edges are missing", ens);
        if (!n2)
            return cfg_fail(c, site, "mc.particles2", "\"%s\" needs two boxes: the second "
                            "box's particle count is missing", ens);
        for (unsigned i = 0; i < 3; ++i)
            m->box2[i] = num(config_setting_get_elem(b2, i));
        m->particles2 = config_setting_type(n2) == CONFIG_TYPE_INT ? config_setting_get_int(n2)
                                                                 : config_setting_get_int64(n2);
        const double reach = vs_pair_reach(p);
        for (int i = 0; i < 3; ++i)
            if (!(m->box2[i] >= 2 * reach))
                return cfg_fail(c, b2, "mc.box2", "expected each side >= 2 * the largest pair "
                                "cut-off = %g (got %g)", 2 * reach, m->box2[i]);
    }
    return 0;
}

int vs_config_mc(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    const config_setting_t *mc = get(root, "mc");
    if (!vs_config_mc_given(root)) {
        memset(&p->mc, 0, sizeof p->mc); /* the defaults landed; an MD run has no mc part */
        return 0;
    }
    p->mc.on = 1;
    if (!vs_pair_styles_active(p))
        return cfg_fail(c, mc, "pair", "the Monte Carlo engine needs a pair style (the pair "
                        "list): none is given");
    if (p->exec.backend == VS_BACKEND_GPU && p->mc.sweep != VS_MC_SWEEP_CHECKERBOARD)
        return cfg_fail(c, get(root, "backend"), "backend", "the Monte Carlo engine runs on "
                        "the GPU with mc.sweep = \"checkerboard\" only: expected \"cpu\" or "
                        "\"auto\", or that sweep");
    if (p->mc.decomposition == VS_MC_DOMAIN && p->mc.sweep != VS_MC_SWEEP_CHECKERBOARD)
        return cfg_fail(c, get(mc, "decomposition"), "mc.decomposition", "\"domain\" splits "
                        "the checkerboard sweep's cells: expected mc.sweep = \"checkerboard\" "
                        "or \"replicated\"");
    if (p->mc.sweep == VS_MC_SWEEP_CHECKERBOARD && vs_pair_style_of(p, VS_PAIR_TABLE)->active)
        return cfg_fail(c, get(mc, "sweep"), "mc.sweep", "\"checkerboard\" takes the "
                        "analytic pair styles: the tabulated style is not offered with it "
                        "(expected \"sequential\")");
    if (vs_has_walls(p))
        return cfg_fail(c, get(root, "boundary"), "boundary", "the Monte Carlo engine has "
                        "periodic boxes only: expected every axis periodic");
    if (p->mc.energy_bin == 0.0)
        p->mc.energy_bin = 0.1 * p->mc.kT;
    int rc = check_ensemble_keys(c, mc, p);
    return rc ? rc : check_moves(c, mc, &p->mc);
}
