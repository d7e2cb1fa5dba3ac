/* The reactions of a configuration (config_reactions.h):
 *
 *   reactions = {
 *       interval = 50;
 *       chain = { ends = { I = "G"; A = "P"; }; monomer = "M"; new_end = "A";
 *                 radius = 1.0; probability = 0.1;
 *                 bond = { style = "harmonic"; K = 100.0; r0 = 0.7; }; };
 *       create = ( { i = "B"; j = "B"; radius = 1.0; max_bonds_i = 3; max_bonds_j = 3;
 *                    bond = { ... }; } );
 *       break = ( { i = "B"; j = "B"; length = 1.3; probability = 0.5; } );
 *   };
 *
 * The per-key checks (types, ranges such as Pr in [0, 1]) are the schema's; this file checks
 * what ties the keys together. The rules' bond and angle types are appended to the
 * molecules' (templates' or bonded.bonds'), so the bonded terms compute them like any other. */
#include "config_reactions.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bonded.h"
#include "config_molecules.h"
#include "exit_codes.h"
#include "fnv.h"

static const config_setting_t *get(const config_setting_t *g, const char *name)
{
    return g ? config_setting_get_member(g, name) : NULL;
}

static double num(const config_setting_t *s)
{
    return config_setting_type(s) == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
                                                       : (double)config_setting_get_int64(s);
}

/* The species named by string setting s (or by `name` when s is NULL), or -1 with the error
 * reported at `site` under `key`. */
static int species_at(const cfg_ctx *c, const vs_params *p, const config_setting_t *site,
                      const char *key, const char *name, int *out)
{
    for (int s = 0; s < p->species.n; ++s)
        if (strcmp(p->species.list[s].name, name) == 0) {
            *out = s;
            return 0;
        }
    char names[VS_MAX_SPECIES * (VS_NAME_LEN + 2)] = "";
    for (int s = 0; s < p->species.n; ++s)
        cfg_put(names, sizeof names, "%s%s", s ? ", " : "", p->species.list[s].name);
    return cfg_fail(c, site, key, "expected a species name (one of %s; got \"%s\")", names,
                    name);
}

/* The species of string member `name` of group g (absent: *out = -1). */
static int species_member(const cfg_ctx *c, const vs_params *p, const config_setting_t *g,
                          const char *base, const char *name, int *out)
{
    const config_setting_t *s = get(g, name);
    *out = -1;
    if (!s)
        return 0;
    char key[PATH_LEN];
    snprintf(key, sizeof key, "%s.%s", base, name);
    return species_at(c, p, s, key, config_setting_get_string(s), out);
}

static int frozen(const vs_params *p, int s) { return p->species.list[s].frozen; }

/* A reaction that turns species `from` into `to` keeps the particle frozen or mobile. */
static int same_frozen(const cfg_ctx *c, const vs_params *p, const config_setting_t *site,
                       const char *key, int from, int to)
{
    if (to < 0 || frozen(p, from) == frozen(p, to))
        return 0;
    return cfg_fail(c, site, key, "expected a %s species, as %s is (got %s, which is %s): a "
                    "reaction does not freeze or free a particle",
                    frozen(p, from) ? "frozen" : "mobile", p->species.list[from].name,
                    p->species.list[to].name, frozen(p, to) ? "frozen" : "not");
}

/* Append the bond type of group g (and the angle type of group a, when it is given) to the
 * molecules' types; their indices into *bond and *angle (-1: no angle). */
static int add_types(const cfg_ctx *c, const config_setting_t *g, const config_setting_t *a,
                     const char *base, vs_params *p, int *bond, int *angle)
{
    vs_molecules_params *m = &p->molecules;
    char key[PATH_LEN];
    snprintf(key, sizeof key, "%s.bond", base);
    if (m->n_bond_types >= VS_MAX_MOLTYPES)
        return cfg_fail(c, g, key, "expected at most %d bond types in all, the molecules' and "
                        "the reactions' (VS_MAX_MOLTYPES)", VS_MAX_MOLTYPES);
    if (vs_config_parse_bond(c, g, key, &m->bond_types[m->n_bond_types]))
        return VS_EXIT_BAD_INPUT;
    *bond = m->n_bond_types++;
    *angle = -1;
    if (!get(a, "style")) /* absent: no angles (the defaults make an empty group) */
        return 0;
    snprintf(key, sizeof key, "%s.angle", base);
    if (m->n_angle_types >= VS_MAX_MOLTYPES)
        return cfg_fail(c, a, key, "expected at most %d angle types in all, the molecules' "
                        "and the reactions' (VS_MAX_MOLTYPES)", VS_MAX_MOLTYPES);
    if (vs_config_parse_angle(c, a, key, &m->angle_types[m->n_angle_types]))
        return VS_EXIT_BAD_INPUT;
    *angle = m->n_angle_types++;
    return 0;
}

/* The ends map of chain growth: active species and what each becomes. */
static int chain_ends(const cfg_ctx *c, const config_setting_t *ends, vs_params *p)
{
    vs_chain_growth *g = &p->reactions.chain;
    if (config_setting_length(ends) == 0)
        return cfg_fail(c, ends, "reactions.chain.ends", "expected at least one active-end "
                        "species, as { I = \"G\"; } (got none)");
    for (int k = 0; k < config_setting_length(ends); ++k) {
        const config_setting_t *e = config_setting_get_elem(ends, (unsigned)k);
        char key[PATH_LEN];
        snprintf(key, sizeof key, "reactions.chain.ends.%s", config_setting_name(e));
        int s = -1, r = -1;
        if (species_at(c, p, e, key, config_setting_name(e), &s) ||
            species_at(c, p, e, key, config_setting_get_string(e), &r))
            return VS_EXIT_BAD_INPUT;
        g->active[s] = 1;
        g->reacted[s] = r;
    }
    for (int s = 0; s < p->species.n; ++s) {
        if (!g->active[s])
            continue;
        const int r = g->reacted[s];
        char key[PATH_LEN];
        snprintf(key, sizeof key, "reactions.chain.ends.%s", p->species.list[s].name);
        const config_setting_t *site = get(ends, p->species.list[s].name);
        if (g->active[r] || r == g->monomer)
            return cfg_fail(c, site, key, "expected a species that neither is an active end "
                            "nor the monomer (got %s): a reacted end does not react again",
                            p->species.list[r].name);
        if (same_frozen(c, p, site, key, s, r))
            return VS_EXIT_BAD_INPUT;
    }
    return 0;
}

static int extract_chain(const cfg_ctx *c, const config_setting_t *g, vs_params *p)
{
    vs_chain_growth *ch = &p->reactions.chain;
    const char *base = "reactions.chain";
    if (species_member(c, p, g, base, "monomer", &ch->monomer) ||
        species_member(c, p, g, base, "new_end", &ch->new_end) ||
        chain_ends(c, get(g, "ends"), p))
        return VS_EXIT_BAD_INPUT;
    if (ch->active[ch->monomer])
        return cfg_fail(c, get(g, "monomer"), "reactions.chain.monomer", "expected a species "
                        "that is no active end (got %s)", p->species.list[ch->monomer].name);
    if (!ch->active[ch->new_end])
        return cfg_fail(c, get(g, "new_end"), "reactions.chain.new_end", "expected one of the "
                        "active ends of reactions.chain.ends (got %s): the new end grows the "
                        "chain on", p->species.list[ch->new_end].name);
    if (same_frozen(c, p, get(g, "new_end"), "reactions.chain.new_end", ch->monomer,
                    ch->new_end))
        return VS_EXIT_BAD_INPUT;
    ch->radius = num(get(g, "radius"));
    ch->probability = num(get(g, "probability"));
    ch->on = 1;
    return add_types(c, get(g, "bond"), get(g, "angle"), base, p, &ch->bond_type,
                     &ch->angle_type);
}

static int extract_create(const cfg_ctx *c, const config_setting_t *e, int k, vs_params *p)
{
    vs_bond_create_rule *r = &p->reactions.create[k];
    char base[64];
    snprintf(base, sizeof base, "reactions.create.[%d]", k);
    if (species_member(c, p, e, base, "i", &r->species_i) ||
        species_member(c, p, e, base, "j", &r->species_j) ||
        species_member(c, p, e, base, "new_i", &r->new_i) ||
        species_member(c, p, e, base, "new_j", &r->new_j))
        return VS_EXIT_BAD_INPUT;
    r->radius = num(get(e, "radius"));
    r->probability = num(get(e, "probability"));
    r->max_bonds_i = (int)config_setting_get_int64(get(e, "max_bonds_i"));
    r->max_bonds_j = (int)config_setting_get_int64(get(e, "max_bonds_j"));
    char key[PATH_LEN];
    if (r->species_i == r->species_j &&
        (r->max_bonds_i != r->max_bonds_j || r->new_i != r->new_j)) {
        snprintf(key, sizeof key, "%s.j", base);
        return cfg_fail(c, get(e, "j"), key, "expected max_bonds_j and new_j equal to "
                        "max_bonds_i and new_i when i and j are one species (either bead may "
                        "take either role)");
    }
    snprintf(key, sizeof key, "%s.new_i", base);
    if (same_frozen(c, p, get(e, "new_i"), key, r->species_i, r->new_i))
        return VS_EXIT_BAD_INPUT;
    snprintf(key, sizeof key, "%s.new_j", base);
    if (same_frozen(c, p, get(e, "new_j"), key, r->species_j, r->new_j))
        return VS_EXIT_BAD_INPUT;
    return add_types(c, get(e, "bond"), get(e, "angle"), base, p, &r->bond_type,
                     &r->angle_type);
}

static int extract_break(const cfg_ctx *c, const config_setting_t *e, int k, vs_params *p)
{
    vs_bond_break_rule *r = &p->reactions.brk[k];
    char base[64];
    snprintf(base, sizeof base, "reactions.break.[%d]", k);
    if (species_member(c, p, e, base, "i", &r->species_i) ||
        species_member(c, p, e, base, "j", &r->species_j))
        return VS_EXIT_BAD_INPUT;
    r->length = num(get(e, "length"));
    r->probability = num(get(e, "probability"));
    return 0;
}

/* bonded.reach, or where it was not given the largest of rc and the FENE R0s of every bond
 * type, the reactions' included (as config_molecules.c does for the templates'). */
static void default_reach(const config_setting_t *root, vs_params *p)
{
    vs_molecules_params *m = &p->molecules;
    const config_setting_t *given = get(get(root, "bonded"), "reach");
    if (given) {
        m->bond_reach = num(given);
        return;
    }
    m->bond_reach = fmax(m->bond_reach, p->dpd.rc);
    for (int i = 0; i < m->n_bond_types; ++i)
        if (m->bond_types[i].style == VS_BOND_FENE && m->bond_types[i].r0 > m->bond_reach)
            m->bond_reach = m->bond_types[i].r0;
}

/* A new bond of type `bond` is up to `radius` long: within bonded.reach (the longest bond the
 * ghost shell of bonded beads covers), within the ghost width (the partners a reaction step
 * can see), and below a FENE bond's R0. */
static int check_radius(const cfg_ctx *c, const config_setting_t *site, const char *key,
                        double radius, int bond, const vs_params *p)
{
    const double reach = p->molecules.bond_reach, width = vs_list_radius(p);
    const vs_bond_type *bt = &p->molecules.bond_types[bond];
    if (!(radius <= reach))
        return cfg_fail(c, site, key, "expected at most bonded.reach = %g, the longest bond the "
                        "ghosts of bonded beads cover (got %g; a new bond is up to the radius "
                        "long: raise bonded.reach)", reach, radius);
    if (!(radius <= width))
        return cfg_fail(c, site, key, "expected at most the ghost width %g (the largest pair "
                        "cut-off + neighbor.skin: the partners a reaction step sees; got %g)",
                        width, radius);
    if (bt->style == VS_BOND_FENE && !(radius < bt->r0))
        return cfg_fail(c, site, key, "expected less than the new bond's FENE R0 = %g (got "
                        "%g): a bond that long has no finite energy", bt->r0, radius);
    return 0;
}

static int check_lengths(const cfg_ctx *c, const config_setting_t *root, const vs_params *p)
{
    const vs_reaction_params *rx = &p->reactions;
    const config_setting_t *g = get(root, "reactions");
    if (rx->chain.on &&
        check_radius(c, get(get(g, "chain"), "radius"), "reactions.chain.radius",
                     rx->chain.radius, rx->chain.bond_type, p))
        return VS_EXIT_BAD_INPUT;
    for (int k = 0; k < rx->n_create; ++k) {
        char key[PATH_LEN];
        snprintf(key, sizeof key, "reactions.create.[%d].radius", k);
        const config_setting_t *e = config_setting_get_elem(get(g, "create"), (unsigned)k);
        if (check_radius(c, get(e, "radius"), key, rx->create[k].radius,
                         rx->create[k].bond_type, p))
            return VS_EXIT_BAD_INPUT;
    }
    for (int k = 0; k < rx->n_break; ++k) {
        if (rx->brk[k].length < p->molecules.bond_reach)
            continue;
        char key[PATH_LEN];
        snprintf(key, sizeof key, "reactions.break.[%d].length", k);
        const config_setting_t *e = config_setting_get_elem(get(g, "break"), (unsigned)k);
        return cfg_fail(c, get(e, "length"), key, "expected less than bonded.reach = %g (got "
                        "%g): a bond beyond bonded.reach stops the run before it can break",
                        p->molecules.bond_reach, rx->brk[k].length);
    }
    return 0;
}

/* The physics key of the rules: 0 without reactions. */
static void reaction_code(vs_params *p)
{
    const vs_reaction_params *rx = &p->reactions;
    if (!rx->on) {
        p->reactions.code = 0;
        return;
    }
    uint64_t h = VS_FNV_OFFSET;
    const vs_chain_growth *g = &rx->chain;
    const double head[11] = {(double)rx->interval, g->on, g->monomer, g->new_end, g->radius,
                             g->probability, g->bond_type, g->angle_type, rx->n_create,
                             rx->n_break, p->species.n};
    h = vs_fnv1a(h, head, sizeof head);
    h = vs_fnv1a(h, g->active, sizeof g->active);
    h = vs_fnv1a(h, g->reacted, sizeof g->reacted);
    for (int k = 0; k < rx->n_create; ++k) {
        const vs_bond_create_rule *r = &rx->create[k];
        const double v[10] = {r->species_i, r->species_j, r->radius, r->probability,
                              r->max_bonds_i, r->max_bonds_j, r->new_i, r->new_j,
                              r->bond_type, r->angle_type};
        h = vs_fnv1a(h, v, sizeof v);
    }
    for (int k = 0; k < rx->n_break; ++k) {
        const vs_bond_break_rule *r = &rx->brk[k];
        const double v[4] = {r->species_i, r->species_j, r->length, r->probability};
        h = vs_fnv1a(h, v, sizeof v);
    }
    p->reactions.code = (int64_t)((h >> 12) | 1u); /* 52 bits, exact as a double; never 0 */
}

/* The rules of the group (each absent part leaves its rules off). */
static int extract_rules(const cfg_ctx *c, const config_setting_t *g, vs_params *p)
{
    vs_reaction_params *rx = &p->reactions;
    const config_setting_t *chain = get(g, "chain");
    if (get(chain, "radius") && extract_chain(c, chain, p)) /* given: its required keys */
        return VS_EXIT_BAD_INPUT;
    const config_setting_t *create = get(g, "create"), *brk = get(g, "break");
    rx->n_create = create ? config_setting_length(create) : 0;
    for (int k = 0; k < rx->n_create; ++k)
        if (extract_create(c, config_setting_get_elem(create, (unsigned)k), k, p))
            return VS_EXIT_BAD_INPUT;
    rx->n_break = brk ? config_setting_length(brk) : 0;
    for (int k = 0; k < rx->n_break; ++k)
        if (extract_break(c, config_setting_get_elem(brk, (unsigned)k), k, p))
            return VS_EXIT_BAD_INPUT;
    rx->on = rx->chain.on || rx->n_create > 0 || rx->n_break > 0;
    const config_setting_t *interval = get(g, "interval");
    rx->interval = config_setting_get_int64(interval);
    if (!rx->on && config_setting_source_line(interval) > 0)
        return cfg_fail(c, interval, "reactions", "expected at least one of reactions.chain, "
                        "reactions.create and reactions.break (got only the interval)");
    return 0;
}

int vs_config_reactions(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    memset(&p->reactions, 0, sizeof p->reactions);
    const config_setting_t *g = get(root, "reactions");
    if (!g)
        return 0;
    if (extract_rules(c, g, p))
        return VS_EXIT_BAD_INPUT;
    if (!p->reactions.on)
        return 0;
    default_reach(root, p);
    if (check_lengths(c, root, p))
        return VS_EXIT_BAD_INPUT;
    vs_bonded_set_code(p);
    reaction_code(p);
    return 0;
}
