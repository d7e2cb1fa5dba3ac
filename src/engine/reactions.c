/* The reaction step: see reactions.h. */
#include "reactions.h"

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpu_backend.h"
#include "log.h"
#include "timer.h"
#ifdef VESICA_HAVE_CUDA
#include "gpu_reaction.h"
#endif

void vs_reactions_init(vs_reactions *rx)
{
    memset(rx, 0, sizeof *rx);
    vs_tagmap_init(&rx->owned);
}

void vs_reactions_free(vs_reactions *rx)
{
    if (rx->mirror)
        vs_backend_cpu.detach(rx->mirror);
#ifdef VESICA_HAVE_CUDA
    vs_gpu_reaction_free(rx->device);
#endif
    free(rx->mine.c);
    vs_tagmap_free(&rx->owned);
    memset(rx, 0, sizeof *rx);
}

/* This rank's free monomers (of the monomer species, without a bond) and active ends. */
static void count_roles(const vs_params *prm, const vs_particles *p, int64_t out[2])
{
    const vs_chain_growth *g = &prm->reactions.chain;
    out[0] = out[1] = 0;
    for (int64_t i = 0; g->on && i < p->n_owned; ++i) {
        out[0] += p->species[i] == g->monomer && p->topo[i].n_bond == 0;
        out[1] += g->active[p->species[i]];
    }
}

void vs_reactions_start(vs_reactions *rx, const vs_params *prm, const vs_par *par,
                        const vs_particles *p)
{
    memset(&rx->st, 0, sizeof rx->st);
    if (!prm->reactions.on)
        return;
    int64_t n[2];
    count_roles(prm, p, n);
    vs_par_sum_int64(par, n, 2);
    rx->st.monomers0 = n[0];
}

void vs_reactions_thermo(const vs_reactions *rx, const vs_params *prm, const vs_par *par,
                         const vs_particles *p, vs_thermo *out)
{
    int64_t n[2];
    count_roles(prm, p, n);
    vs_par_sum_int64(par, n, 2);
    out->reactions = (prm->reactions.chain.on ? 1 : 0) | (prm->reactions.n_create ? 2 : 0) |
                     (prm->reactions.n_break ? 4 : 0);
    out->rx_chain = (double)rx->st.last_chain;
    out->rx_conversion =
        rx->st.monomers0 > 0 ? 1.0 - (double)n[0] / (double)rx->st.monomers0 : 0.0;
    out->rx_active = (double)n[1];
    out->rx_created = (double)rx->st.last_created;
    out->rx_broken = (double)rx->st.last_broken;
}

/* ---- Resolution: the same events from the same claims on every rank ------------------- */

/* A total order on the claims' content: kind, rule, key, then the tags. */
static int claim_cmp(const void *pa, const void *pb)
{
    const vs_reaction_claim *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->rule != b->rule)
        return a->rule < b->rule ? -1 : 1;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : (a->b > b->b);
}

/* An unordered pair of tags, as sorted keys. */
typedef struct {
    int64_t lo, hi;
} tag_pair;

static int pair_cmp(const void *pa, const void *pb)
{
    const tag_pair *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return a->hi < b->hi ? -1 : (a->hi > b->hi);
}

static tag_pair pair_of(int64_t a, int64_t b)
{
    const tag_pair p = {a < b ? a : b, a < b ? b : a};
    return p;
}

static int pair_in(const tag_pair *set, int64_t n, int64_t a, int64_t b)
{
    const tag_pair k = pair_of(a, b);
    return n > 0 && bsearch(&k, set, (size_t)n, sizeof k, pair_cmp) != NULL;
}

/* What resolution works with. */
typedef struct {
    const vs_params *prm;
    int64_t step;
    const vs_reaction_claim *all;
    int64_t n_all;
    tag_pair *broken; /* the step's broken bonds, sorted */
    int64_t n_broken;
    vs_tagmap used;   /* beads with a new bond this step */
    vs_reaction_event *ev;
    int64_t n_ev;
} resolver;

/* A's partners before the step, less those whose bond to it breaks now. */
static int kept_partners(const resolver *r, const vs_reaction_claim *c, int64_t skip,
                         int64_t out[VS_MAX_BONDS])
{
    int n = 0;
    for (int k = 0; k < c->n_bond; ++k)
        if (c->bond[k] != skip && !pair_in(r->broken, r->n_broken, c->a, c->bond[k]))
            out[n++] = c->bond[k];
    return n;
}

static int used(const resolver *r, int64_t tag)
{
    return vs_tagmap_find(r->used.key, r->used.val, r->used.mask, tag) >= 0;
}

static vs_reaction_event *new_event(resolver *r, int kind, int64_t a, int64_t b)
{
    vs_reaction_event *e = &r->ev[r->n_ev++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->a = a;
    e->b = b;
    e->new_a = e->new_b = e->angle_type = -1;
    if (kind != VS_CLAIM_BREAK) {
        vs_tagmap_insert(&r->used, a, 1);
        vs_tagmap_insert(&r->used, b, 1);
    }
    return e;
}

static void resolve_breaks(resolver *r)
{
    r->broken = VS_MALLOC(sizeof(tag_pair) * (size_t)(r->n_all > 0 ? r->n_all : 1));
    for (int64_t k = 0; k < r->n_all; ++k) {
        const vs_reaction_claim *c = &r->all[k];
        if (c->kind != VS_CLAIM_BREAK)
            continue;
        new_event(r, VS_CLAIM_BREAK, c->a, c->b);
        r->broken[r->n_broken++] = pair_of(c->a, c->b);
    }
    qsort(r->broken, (size_t)r->n_broken, sizeof(tag_pair), pair_cmp);
}

/* The molecule id two beads share after bonding: one's where the other has none, a new one
 * (above every tag, so no built or read id takes it) where neither has one. */
static int64_t shared_mol(const vs_params *prm, int64_t mol_a, int64_t mol_b, int64_t a,
                          int64_t b)
{
    if (mol_a != 0)
        return mol_a;
    if (mol_b != 0)
        return mol_b;
    return prm->system.n_particles + 1 + (a < b ? a : b);
}

/* Creation: the mutual nearest pairs of each rule that pass their draw, in the order of the
 * rules and then of their distance (the lower tag's claim), each bead in one new bond. */
static void resolve_creates(resolver *r)
{
    const vs_reaction_params *rx = &r->prm->reactions;
    vs_tagmap by_bead; /* tag -> index of its creation claim under the current rule */
    vs_tagmap_init(&by_bead);
    for (int rule = 0; rule < rx->n_create; ++rule) {
        const vs_bond_create_rule *cr = &rx->create[rule];
        int64_t first = -1, last = -1;
        for (int64_t k = 0; k < r->n_all; ++k)
            if (r->all[k].kind == VS_CLAIM_CREATE && r->all[k].rule == rule) {
                first = first < 0 ? k : first;
                last = k;
            }
        if (first < 0)
            continue;
        vs_tagmap_reset(&by_bead, last - first + 1);
        for (int64_t k = first; k <= last; ++k)
            vs_tagmap_insert(&by_bead, r->all[k].a, k);
        for (int64_t k = first; k <= last; ++k) { /* in the order of distance */
            const vs_reaction_claim *c = &r->all[k];
            if (c->a > c->b)
                continue; /* each pair once, from its lower tag's claim */
            const int64_t m = vs_tagmap_find(by_bead.key, by_bead.val, by_bead.mask, c->b);
            if (m < 0 || r->all[m].b != c->a || used(r, c->a) || used(r, c->b))
                continue;
            const vs_tea_block bits =
                vs_reaction_bits(r->prm->system.seed, (uint64_t)r->step,
                                 VS_RX_STREAM_CREATE + rule, (uint64_t)c->a, (uint64_t)c->b);
            if (!vs_reaction_accept(bits, cr->probability))
                continue;
            const vs_reaction_claim *d = &r->all[m];
            vs_reaction_event *e = new_event(r, VS_CLAIM_CREATE, c->a, c->b);
            e->bond_type = cr->bond_type;
            e->angle_type = cr->angle_type;
            e->new_a = c->species == cr->species_i ? cr->new_i : cr->new_j;
            e->new_b = d->species == cr->species_i ? cr->new_i : cr->new_j;
            const int64_t mol = shared_mol(r->prm, c->mol, d->mol, c->a, c->b);
            e->mol_a = c->mol != 0 ? c->mol : mol;
            e->mol_b = d->mol != 0 ? d->mol : mol;
            e->n_a = kept_partners(r, c, c->b, e->pa);
            e->n_b = kept_partners(r, d, d->b, e->pb);
        }
    }
    vs_tagmap_free(&by_bead);
}

/* Chain growth: in the order of the draws, an end and its monomer bond unless either has
 * bonded already this step (a monomer several ends chose goes to the lowest draw). */
static void resolve_chain(resolver *r)
{
    const vs_chain_growth *g = &r->prm->reactions.chain;
    for (int64_t k = 0; k < r->n_all; ++k) {
        const vs_reaction_claim *c = &r->all[k];
        if (c->kind != VS_CLAIM_CHAIN || used(r, c->a) || used(r, c->b))
            continue;
        vs_reaction_event *e = new_event(r, VS_CLAIM_CHAIN, c->a, c->b);
        e->bond_type = g->bond_type;
        e->angle_type = g->angle_type;
        e->new_a = g->reacted[c->species];
        e->new_b = g->new_end;
        e->mol_a = e->mol_b = shared_mol(r->prm, c->mol, 0, c->a, c->a);
        e->n_a = kept_partners(r, c, c->b, e->pa);
    }
}

/* ---- Application to the owned beads ---------------------------------------------------- */

/* The owned index of `tag`, or -1. */
static int64_t owned_index(const vs_tagmap *m, int64_t tag)
{
    return vs_tagmap_find(m->key, m->val, m->mask, tag);
}

/* Remove the broken bonds from their owned beads, and from every owned bead the angles and
 * dihedrals they were part of. */
static void apply_breaks(const resolver *r, vs_particles *p, const vs_tagmap *owned)
{
    if (r->n_broken == 0)
        return;
    for (int64_t k = 0; k < r->n_ev; ++k) {
        const vs_reaction_event *e = &r->ev[k];
        if (e->kind != VS_CLAIM_BREAK)
            continue;
        const int64_t i = owned_index(owned, e->a), j = owned_index(owned, e->b);
        if (i >= 0)
            vs_topo_remove_bond(&p->topo[i], e->b);
        if (j >= 0)
            vs_topo_remove_bond(&p->topo[j], e->a);
    }
    for (int64_t i = 0; i < p->n_owned; ++i) {
        vs_topo *t = &p->topo[i];
        for (int k = 0; k < t->n_angle; ++k)
            for (int q = 0; q < 2; ++q)
                if (pair_in(r->broken, r->n_broken, t->angle[k][q], t->angle[k][q + 1])) {
                    const int64_t a = t->angle[k][q], b = t->angle[k][q + 1];
                    vs_topo_remove_angles_with(t, a, b);
                    k = -1; /* the list shifted: look again from its start */
                    break;
                }
        vs_dihedrals *dh = p->dih ? &p->dih[i] : NULL;
        for (int k = 0; dh && k < dh->n_dihedral; ++k)
            for (int q = 0; q < 3; ++q)
                if (pair_in(r->broken, r->n_broken, dh->dihedral[k][q],
                            dh->dihedral[k][q + 1])) {
                    const int64_t a = dh->dihedral[k][q], b = dh->dihedral[k][q + 1];
                    vs_dihedrals_remove_with(dh, a, b);
                    k = -1;
                    break;
                }
    }
}

/* The angle a-b-c (b the vertex) on those of its three beads this rank owns. */
static void add_angle(vs_particles *p, const vs_tagmap *owned, int64_t a, int64_t b,
                      int64_t c, int type, int64_t step)
{
    const int64_t tags[3] = {a, b, c};
    for (int q = 0; q < 3; ++q) {
        const int64_t i = owned_index(owned, tags[q]);
        if (i >= 0 && vs_topo_add_angle(&p->topo[i], a, b, c, type) != 0)
            VS_FATAL("step %lld: reactions: bead %lld would take part in more than %d angles "
                     "with the new angle %lld-%lld-%lld (VS_MAX_ANGLES, src/core/topology.h; "
                     "a creation rule with an angle type makes one per other bond of its "
                     "beads)", (long long)step, (long long)tags[q], VS_MAX_ANGLES,
                     (long long)a, (long long)b, (long long)c);
    }
}

/* Bead i (owned) of a new bond to `partner`: the bond, its species and molecule id. */
static void bond_bead(vs_particles *p, int64_t i, int64_t partner, int type, int species,
                      int64_t mol, int64_t step)
{
    if (vs_topo_add_bond(&p->topo[i], partner, type) != 0)
        VS_FATAL("step %lld: reactions: bead %lld has %d bonds already, no room for one to "
                 "%lld (VS_MAX_BONDS)", (long long)step, (long long)p->tag[i], VS_MAX_BONDS,
                 (long long)partner);
    if (species >= 0)
        p->species[i] = species;
    p->topo[i].mol = mol;
}

static void apply_bonds(const resolver *r, vs_particles *p, const vs_tagmap *owned)
{
    for (int64_t k = 0; k < r->n_ev; ++k) {
        const vs_reaction_event *e = &r->ev[k];
        if (e->kind == VS_CLAIM_BREAK)
            continue;
        const int64_t i = owned_index(owned, e->a), j = owned_index(owned, e->b);
        if (i >= 0)
            bond_bead(p, i, e->b, e->bond_type, e->new_a, e->mol_a, r->step);
        if (j >= 0)
            bond_bead(p, j, e->a, e->bond_type, e->new_b, e->mol_b, r->step);
        if (e->angle_type < 0)
            continue;
        for (int q = 0; q < e->n_a; ++q)
            add_angle(p, owned, e->pa[q], e->a, e->b, e->angle_type, r->step);
        for (int q = 0; q < e->n_b; ++q)
            add_angle(p, owned, e->a, e->b, e->pb[q], e->angle_type, r->step);
    }
}

/* Whether the step runs on the GPU backend's own state (gpu/gpu_reaction.h): every rule and
 * the special-neighbour lists; only VESICA_GPU_REACTIONS=mirror in the environment sends it
 * through the host mirror (the tests compare the two). The same answer on every rank: the
 * backend and the environment. */
static int on_device(const vs_backend *b)
{
#ifdef VESICA_HAVE_CUDA
    const char *env = getenv("VESICA_GPU_REACTIONS");
    return b == &vs_backend_gpu && !(env && strcmp(env, "mirror") == 0);
#else
    (void)b;
    return 0;
#endif
}

/* This rank's claims of the step. The CPU backend lists them over its own state, the GPU
 * on the device where it can (on_device); another backend brings its owned particles into
 * p, over which the host mirror (a CPU state of its own) builds the ghosts and cells the
 * same search reads (reactions.h). */
static void list_claims(vs_reactions *rx, int device, const vs_backend *b, void *st,
                        const vs_backend_setup *host, vs_particles *p, int64_t step)
{
    if (b == &vs_backend_cpu) {
        vs_cpu_reaction_claims(st, step, &rx->mine);
        return;
    }
#ifdef VESICA_HAVE_CUDA
    if (device) {
        vs_gpu_reaction_claims(st, &rx->device, step, &rx->mine);
        return;
    }
#else
    (void)device;
#endif
    b->sync_host(st, p);
    if (!rx->mirror) {
        char err[256] = "";
        if (vs_backend_cpu.attach(host, &rx->mirror, err, sizeof err) != 0)
            VS_FATAL("reactions: the host mirror of the %s backend: %s", b->name, err);
    }
    vs_cpu_reaction_mirror(rx->mirror, host->list_radius, host->bonded_width);
    vs_cpu_reaction_claims(rx->mirror, step, &rx->mine);
    p->n_ghost = 0; /* the mirror's ghosts are its own: the engine's p holds owned beads */
}

#ifdef VESICA_HAVE_CUDA
static int tag_cmp(const void *pa, const void *pb)
{
    const int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : (a > b);
}

/* The tags of the beads the events touch: their two beads, the partners that take part in a
 * new angle and, where bonds break, the owned beads with an angle or dihedral along one
 * (vs_gpu_reaction_near_broken); ascending, distinct, *n_out of them (malloc'd). */
static int64_t *touched_tags(vs_reactions *rx, const resolver *r, void *st, int64_t *n_out)
{
    int64_t n_near = 0;
    int64_t *near = NULL; /* tag_pair: two int64 words, lower tag first, sorted */
    if (r->n_broken > 0)
        near = vs_gpu_reaction_near_broken(st, &rx->device, (const int64_t *)r->broken,
                                           r->n_broken, &n_near);
    int64_t n = 0;
    int64_t *tags = VS_MALLOC(sizeof(int64_t) *
                              (size_t)(r->n_ev * (2 + 2 * VS_MAX_BONDS) + n_near + 1));
    for (int64_t k = 0; k < r->n_ev; ++k) {
        const vs_reaction_event *e = &r->ev[k];
        tags[n++] = e->a;
        tags[n++] = e->b;
        for (int q = 0; e->angle_type >= 0 && q < e->n_a; ++q)
            tags[n++] = e->pa[q];
        for (int q = 0; e->angle_type >= 0 && q < e->n_b; ++q)
            tags[n++] = e->pb[q];
    }
    for (int64_t k = 0; k < n_near; ++k)
        tags[n++] = near[k];
    free(near);
    qsort(tags, (size_t)n, sizeof *tags, tag_cmp);
    int64_t m = 0;
    for (int64_t k = 0; k < n; ++k)
        if (m == 0 || tags[k] != tags[m - 1])
            tags[m++] = tags[k];
    *n_out = m;
    return tags;
}

/* The events applied on the GPU's state: the records of the beads they touch come from the
 * device, take the events as the CPU's do (apply_breaks, apply_bonds), and go back. */
static void apply_on_device(vs_reactions *rx, const resolver *r, void *st)
{
    int64_t m = 0;
    int64_t *tags = touched_tags(rx, r, st, &m);
    vs_particles beads;
    vs_gpu_reaction_fetch(st, &rx->device, tags, m, &beads);
    vs_tagmap_reset(&rx->owned, beads.n_owned);
    for (int64_t i = 0; i < beads.n_owned; ++i)
        vs_tagmap_insert(&rx->owned, beads.tag[i], i);
    apply_breaks(r, &beads, &rx->owned);
    apply_bonds(r, &beads, &rx->owned);
    vs_gpu_reaction_store(st, rx->device, &beads);
    vs_gpu_reaction_release(&beads);
    free(tags);
}

/* The special lists on the device path (vs_reactions_special_fetched): copies of the beads
 * they need, fetched from the GPU's state. */
typedef struct {
    void *st;
    vs_reactions *rx;
} device_io;

static void io_affected(void *ctx, const int64_t *ends, int64_t n, vs_particles *out)
{
    const device_io *d = ctx;
    int64_t m = 0;
    int64_t *tags = vs_gpu_reaction_affected(d->st, &d->rx->device, ends, n, &m);
    vs_gpu_reaction_fetch(d->st, &d->rx->device, tags, m, out);
    free(tags);
}

static void io_records(void *ctx, const int64_t *tags, int64_t n, vs_particles *out)
{
    const device_io *d = ctx;
    vs_gpu_reaction_fetch(d->st, &d->rx->device, tags, n, out);
}

static void io_store(void *ctx, const vs_particles *beads)
{
    const device_io *d = ctx;
    vs_gpu_reaction_store_special(d->st, &d->rx->device, beads);
}

static void special_on_device(vs_reactions *rx, const vs_par *par, int depth, const resolver *r,
                              void *st)
{
    device_io d = {st, rx};
    const vs_special_io io = {&d, io_affected, io_records, io_store, vs_gpu_reaction_release};
    vs_reactions_special_fetched(par, depth, r->ev, r->n_ev, r->step, &io);
}
#endif

int vs_reactions_step(vs_reactions *rx, const vs_params *prm, const vs_par *par,
                      vs_particles *p, const vs_backend *b, void *backend_state,
                      const vs_backend_setup *host, int64_t step)
{
    if (b->sync)
        b->sync(backend_state); /* the step's queued work is not the reactions' time */
    const double t0 = vs_wall_seconds();
    const int device = on_device(b);
    if (rx->steps == 0 && b != &vs_backend_cpu)
        vs_log_info("Reactions: the %s backend's reaction steps run %s", b->name,
                    device ? "on the device" : "through the host mirror");
    list_claims(rx, device, b, backend_state, host, p, step);
    resolver r;
    memset(&r, 0, sizeof r);
    r.prm = prm;
    r.step = step;
    vs_reaction_claim *all = vs_par_allgatherv_records(par, rx->mine.c, rx->mine.n,
                                                       sizeof(vs_reaction_claim), &r.n_all);
    qsort(all, (size_t)r.n_all, sizeof *all, claim_cmp); /* rank order no longer matters */
    r.all = all;
    r.ev = VS_MALLOC(sizeof(vs_reaction_event) * (size_t)(r.n_all > 0 ? r.n_all : 1));
    vs_tagmap_init(&r.used);
    vs_tagmap_reset(&r.used, 2 * r.n_all);
    resolve_breaks(&r);
    resolve_creates(&r);
    resolve_chain(&r);
    int64_t count[3] = {0, 0, 0}; /* chain, created, broken */
    for (int64_t k = 0; k < r.n_ev; ++k)
        count[r.ev[k].kind == VS_CLAIM_CHAIN ? 0 : r.ev[k].kind == VS_CLAIM_CREATE ? 1 : 2]++;
#ifdef VESICA_HAVE_CUDA
    if (r.n_ev > 0 && device) {
        apply_on_device(rx, &r, backend_state);
        if (vs_special_depth(prm) > 0)
            special_on_device(rx, par, vs_special_depth(prm), &r, backend_state);
    }
#endif
    if (r.n_ev > 0 && !device) {
        vs_tagmap_reset(&rx->owned, p->n_owned);
        for (int64_t i = 0; i < p->n_owned; ++i)
            vs_tagmap_insert(&rx->owned, p->tag[i], i);
        apply_breaks(&r, p, &rx->owned);
        apply_bonds(&r, p, &rx->owned);
        if (p->special)
            vs_reactions_special(par, p, vs_special_depth(prm), r.ev, r.n_ev, step);
        if (b != &vs_backend_cpu)
            b->reload(backend_state, p);
    }
    vs_reaction_state *s = &rx->st;
    s->last_step = step;
    s->last_chain = count[0];
    s->last_created = count[1];
    s->last_broken = count[2];
    s->total_chain += count[0];
    s->total_created += count[1];
    s->total_broken += count[2];
    free(all);
    free(r.ev);
    free(r.broken);
    vs_tagmap_free(&r.used);
    rx->steps++;
    rx->seconds += vs_wall_seconds() - t0;
    if (r.n_ev == 0)
        return VS_REACTIONS_UNCHANGED;
    return device || b == &vs_backend_cpu ? VS_REACTIONS_IN_PLACE : VS_REACTIONS_RELOADED;
}
