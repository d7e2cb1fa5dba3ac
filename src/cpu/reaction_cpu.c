/* The reactions' candidates on the CPU backend: the claims of this rank's beads at a reaction
 * step (src/core/reaction.h says what a claim is and why each is made by one rank only).
 *
 * Partners are found in the cell list of the neighbour build of the same step (the engine
 * rebuilds the lists on every reaction step, so the cells and ghosts are current): the 27
 * cells around a bead hold every particle within the list radius, and the configuration keeps
 * every reaction radius within it. A partner's copy is an owner's position plus a periodic
 * shift, so the separation from the owned bead, and with it every choice below, is the same on
 * any rank layout; where a small box gives a partner several copies within the radius the
 * nearest counts. */
#include <math.h>
#include <string.h>

#include "bonded.h"
#include "cpu_backend.h"
#include "log.h"
#include "neighbor.h"

static void push(vs_claim_list *out, const vs_reaction_claim *c)
{
    if (out->n == out->cap) {
        out->cap = out->cap ? 2 * out->cap : 64;
        out->c = VS_REALLOC(out->c, sizeof(vs_reaction_claim) * (size_t)out->cap);
    }
    out->c[out->n++] = *c;
}

/* A claim of owned bead i about partner tag b, with i's own record. */
static vs_reaction_claim claim_of(const vs_particles *p, int64_t i, int kind, int rule,
                                  int64_t b, uint64_t key)
{
    vs_reaction_claim c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.rule = rule;
    c.a = p->tag[i];
    c.b = b;
    c.key = key;
    c.mol = p->topo[i].mol;
    c.species = p->species[i];
    c.n_bond = p->topo[i].n_bond;
    for (int k = 0; k < c.n_bond; ++k)
        c.bond[k] = p->topo[i].bond[k];
    return c;
}

/* The cell of owned particle i and the bounds of its 27 neighbours. */
static void cell_range(const vs_neighbor *nl, int64_t i, int lo[3], int hi[3])
{
    const int64_t ci = nl->particle_cell[i];
    const int c[3] = {(int)(ci % nl->ncell[0]), (int)((ci / nl->ncell[0]) % nl->ncell[1]),
                      (int)(ci / ((int64_t)nl->ncell[0] * nl->ncell[1]))};
    for (int d = 0; d < 3; ++d) {
        lo[d] = c[d] > 0 ? c[d] - 1 : 0;
        hi[d] = c[d] + 1 < nl->ncell[d] ? c[d] + 1 : nl->ncell[d] - 1;
    }
}

/* The best partner of owned bead i among the particles within the radius. */
static vs_reaction_best search(const vs_cpu_state *s, int64_t i, const vs_reaction_search *q)
{
    const vs_particles *p = s->parts;
    const vs_neighbor *nl = &s->nl;
    vs_reaction_best best = {-1, 0.0, {0, 0}};
    int lo[3], hi[3];
    cell_range(nl, i, lo, hi);
    for (int z = lo[2]; z <= hi[2]; ++z)
        for (int y = lo[1]; y <= hi[1]; ++y)
            for (int x = lo[0]; x <= hi[0]; ++x) {
                const int64_t c = ((int64_t)z * nl->ncell[1] + y) * nl->ncell[0] + x;
                for (int64_t k = nl->cell_start[c]; k < nl->cell_start[c + 1]; ++k) {
                    const int64_t j = nl->cell_particles[k];
                    double r2 = 0.0;
                    for (int d = 0; d < 3; ++d) {
                        const double dx = p->x[d][i] - p->x[d][j];
                        r2 += dx * dx;
                    }
                    vs_reaction_candidate(&best, q, p->tag[i], &p->topo[i], p->tag[j],
                                          p->species[j], p->topo[j].n_bond, r2);
                }
            }
    return best;
}

/* Breaking: each bond once, by the owner of its lower tag. */
static void break_claims(const vs_cpu_state *s, int64_t step, vs_claim_list *out)
{
    const vs_particles *p = s->parts;
    const vs_params *prm = s->prm;
    const vs_reaction_params *rx = &prm->reactions;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const vs_topo *t = &p->topo[i];
        for (int k = 0; k < t->n_bond; ++k) {
            const int64_t tag = t->bond[k];
            if (tag < p->tag[i])
                continue;
            const int64_t j = vs_tagmap_nearest(s->tagmap.key, s->tagmap.val, s->tagmap.mask,
                                                tag, p->x[0], p->x[1], p->x[2], p->x[0][i],
                                                p->x[1][i], p->x[2][i]);
            if (j < 0)
                vs_bonded_fail(prm, VS_BONDED_MISSING, step, p->tag[i], tag, 0.0, 0.0);
            double r2 = 0.0;
            for (int d = 0; d < 3; ++d) {
                const double dx = p->x[d][i] - p->x[d][j];
                r2 += dx * dx;
            }
            int r = 0;
            if (vs_reaction_breaks(rx->brk, rx->n_break, prm->system.seed, (uint64_t)step,
                                   p->tag[i], tag, p->species[i], p->species[j], r2, &r)) {
                const vs_reaction_claim c = claim_of(p, i, VS_CLAIM_BREAK, r, tag, 0);
                push(out, &c);
            }
        }
    }
}

/* Creation rule r: each bead that may bond names its nearest partner. */
static void create_claims(const vs_cpu_state *s, int r, vs_claim_list *out)
{
    const vs_particles *p = s->parts;
    const vs_bond_create_rule *rule = &s->prm->reactions.create[r];
    for (int64_t i = 0; i < p->n_owned; ++i) {
        int mine;
        vs_reaction_search q;
        if (!vs_reaction_create_search(rule, p->species[i], &mine, &q) ||
            p->topo[i].n_bond >= mine)
            continue;
        const vs_reaction_best b = search(s, i, &q);
        if (b.tag < 0)
            continue;
        uint64_t key;
        memcpy(&key, &b.score, sizeof key); /* r^2 >= 0: its bits order as the number */
        const vs_reaction_claim c = claim_of(p, i, VS_CLAIM_CREATE, r, b.tag, key);
        push(out, &c);
    }
}

/* Chain growth: each active end picks a free monomer in reach (the lowest draw, a uniform
 * choice) and keeps it with probability Pr. */
static void chain_claims(const vs_cpu_state *s, int64_t step, vs_claim_list *out)
{
    const vs_particles *p = s->parts;
    const vs_chain_growth *g = &s->prm->reactions.chain;
    const vs_reaction_search q = {VS_CLAIM_CHAIN, g->monomer, 1, g->radius * g->radius,
                                  VS_RX_STREAM_CHAIN, s->prm->system.seed, (uint64_t)step};
    for (int64_t i = 0; i < p->n_owned; ++i) {
        if (!g->active[p->species[i]] || p->topo[i].n_bond >= VS_MAX_BONDS)
            continue;
        const vs_reaction_best b = search(s, i, &q);
        if (b.tag < 0 || !vs_reaction_accept(b.bits, g->probability))
            continue;
        const vs_reaction_claim c = claim_of(p, i, VS_CLAIM_CHAIN, 0, b.tag, b.bits.v0);
        push(out, &c);
    }
}

void vs_cpu_reaction_claims(vs_cpu_state *s, int64_t step, vs_claim_list *out)
{
    const vs_reaction_params *rx = &s->prm->reactions;
    out->n = 0;
    if (rx->n_break > 0)
        break_claims(s, step, out);
    for (int r = 0; r < rx->n_create; ++r)
        create_claims(s, r, out);
    if (rx->chain.on)
        chain_claims(s, step, out);
}

void vs_cpu_reaction_mirror(vs_cpu_state *s, double list_radius, double bonded_width)
{
    s->list_radius = list_radius;
    s->halo.bonded_width = bonded_width;
    vs_halo_build_ghosts(&s->halo, s->dc, s->parts, list_radius);
    if (s->parts->topo)
        vs_cpu_build_tagmap(s);
    /* the cells of the CPU backend's own build (cpu_build_neighbors), without its pairs */
    vs_neighbor_build_cells(&s->nl, s->parts, s->dc->lo, s->dc->hi, list_radius, list_radius);
}
