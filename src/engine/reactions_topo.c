/* The special-neighbour lists after a reaction step (reactions.h): only the beads near a
 * changed bond need new lists, and no rank holds the bond graph around them (ghosts carry no
 * bonds), so the graph comes in two rounds of an all-gather:
 *   1. each rank names its affected beads (an end of a changed bond, or a bead whose old list
 *      holds one) and the beads of their old lists;
 *   2. each rank sends the bonds, as they are now, of its beads among those named;
 * then each rank rebuilds its affected beads' lists from that graph (vs_special_build).
 * Why this is enough: a list changes only where a shortest path of at most `depth` bonds
 * gains or loses a changed bond, which puts an end of it in the bead's old list; and a bead
 * within depth - 1 bonds of an affected one in the new graph is in that bead's old list, or
 * reached through a new bond and then in the old list of that bond's end, which is affected
 * too. So every bead whose partners the search needs was named in round 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "reactions.h"
#include "special.h"

/* A bead's bonds as round 2 sends them. */
typedef struct {
    int64_t tag;
    int32_t n, pad;
    int64_t bond[VS_MAX_BONDS];
} bead_bonds;

typedef struct {
    const bead_bonds *beads;
    vs_tagmap index; /* tag -> row of beads */
} bond_graph;

static int graph_partners(void *ctx, int64_t tag, int64_t out[4])
{
    const bond_graph *g = ctx;
    const int64_t k = vs_tagmap_find(g->index.key, g->index.val, g->index.mask, tag);
    if (k < 0)
        return -1;
    for (int q = 0; q < g->beads[k].n; ++q)
        out[q] = g->beads[k].bond[q];
    return g->beads[k].n;
}

static int tag_cmp(const void *pa, const void *pb)
{
    const int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : (a > b);
}

static int in_set(const vs_tagmap *m, int64_t tag)
{
    return vs_tagmap_find(m->key, m->val, m->mask, tag) >= 0;
}

/* The owned beads whose lists may change: an end of an event, or one in whose old list an
 * end is. Returns their count, indices in *out (malloc'd). */
static int64_t affected_beads(const vs_particles *p, const vs_tagmap *ends, int64_t **out)
{
    int64_t n = 0;
    *out = VS_MALLOC(sizeof(int64_t) * (size_t)(p->n_owned > 0 ? p->n_owned : 1));
    for (int64_t i = 0; i < p->n_owned; ++i) {
        int hit = in_set(ends, p->tag[i]);
        for (int64_t k = 0; !hit && k < p->special[i].n; ++k)
            hit = in_set(ends, p->special[i].e[k] >> 2);
        if (hit)
            (*out)[n++] = i;
    }
    return n;
}

/* Round 1: the tags of the affected beads and of their old lists, from every rank, as a set;
 * with `sorted`, also as an array, ascending and distinct (*n_sorted of them, malloc'd). */
static void named_beads(const vs_par *par, const vs_particles *p, const int64_t *aff,
                        int64_t n_aff, vs_tagmap *named, int64_t **sorted, int64_t *n_sorted)
{
    int64_t *mine = VS_MALLOC(sizeof(int64_t) * (size_t)(n_aff * (1 + VS_MAX_SPECIAL) + 1));
    int64_t n = 0;
    for (int64_t k = 0; k < n_aff; ++k) {
        const int64_t i = aff[k];
        mine[n++] = p->tag[i];
        for (int64_t q = 0; q < p->special[i].n; ++q)
            mine[n++] = p->special[i].e[q] >> 2;
    }
    int64_t n_all = 0;
    int64_t *all = vs_par_allgatherv_records(par, mine, n, sizeof(int64_t), &n_all);
    vs_tagmap_reset(named, n_all);
    for (int64_t k = 0; k < n_all; ++k)
        vs_tagmap_insert(named, all[k], 1);
    free(mine);
    if (!sorted) {
        free(all);
        return;
    }
    qsort(all, (size_t)n_all, sizeof *all, tag_cmp);
    int64_t m = 0;
    for (int64_t k = 0; k < n_all; ++k)
        if (m == 0 || all[k] != all[m - 1])
            all[m++] = all[k];
    *sorted = all;
    *n_sorted = m;
}

/* Round 2: the bonds now of every named bead, from its owner. */
static bead_bonds *named_bonds(const vs_par *par, const vs_particles *p, const vs_tagmap *named,
                               int64_t *n_out)
{
    int64_t n = 0;
    for (int64_t i = 0; i < p->n_owned; ++i)
        n += in_set(named, p->tag[i]);
    bead_bonds *mine = VS_MALLOC(sizeof(bead_bonds) * (size_t)(n > 0 ? n : 1));
    memset(mine, 0, sizeof(bead_bonds) * (size_t)(n > 0 ? n : 1));
    n = 0;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        if (!in_set(named, p->tag[i]))
            continue;
        bead_bonds *b = &mine[n++];
        b->tag = p->tag[i];
        b->n = p->topo[i].n_bond;
        for (int q = 0; q < b->n; ++q)
            b->bond[q] = p->topo[i].bond[q];
    }
    bead_bonds *all = vs_par_allgatherv_records(par, mine, n, sizeof(bead_bonds), n_out);
    free(mine);
    return all;
}

/* The events' ends, as a set. */
static void event_ends(const vs_reaction_event *ev, int64_t n_ev, vs_tagmap *ends)
{
    vs_tagmap_reset(ends, 2 * n_ev);
    for (int64_t k = 0; k < n_ev; ++k) {
        vs_tagmap_insert(ends, ev[k].a, 1);
        vs_tagmap_insert(ends, ev[k].b, 1);
    }
}

/* Round 2 and the new lists: the affected beads aff of p (their old lists still in place)
 * get theirs from the bonds of the named beads that src owns, gathered from every rank. */
static void rebuild_lists(const vs_par *par, vs_particles *p, const int64_t *aff,
                          int64_t n_aff, const vs_particles *src, const vs_tagmap *named,
                          int depth, int64_t step)
{
    bond_graph g;
    int64_t n_beads = 0;
    g.beads = named_bonds(par, src, named, &n_beads);
    vs_tagmap_init(&g.index);
    vs_tagmap_reset(&g.index, n_beads);
    for (int64_t k = 0; k < n_beads; ++k)
        vs_tagmap_insert(&g.index, g.beads[k].tag, k);
    for (int64_t k = 0; k < n_aff; ++k) {
        const int64_t i = aff[k];
        char err[256];
        if (vs_special_build(p->tag[i], depth, graph_partners, &g, &p->special[i], err,
                             sizeof err) != 0)
            VS_FATAL("step %lld: reactions: %s", (long long)step, err);
    }
    free((void *)g.beads);
    vs_tagmap_free(&g.index);
}

void vs_reactions_special(const vs_par *par, vs_particles *p, int depth,
                          const vs_reaction_event *ev, int64_t n_ev, int64_t step)
{
    vs_tagmap ends, named;
    vs_tagmap_init(&ends);
    vs_tagmap_init(&named);
    event_ends(ev, n_ev, &ends);
    int64_t *aff = NULL;
    const int64_t n_aff = affected_beads(p, &ends, &aff);
    named_beads(par, p, aff, n_aff, &named, NULL, NULL);
    rebuild_lists(par, p, aff, n_aff, p, &named, depth, step);
    free(aff);
    vs_tagmap_free(&ends);
    vs_tagmap_free(&named);
}

void vs_reactions_special_fetched(const vs_par *par, int depth, const vs_reaction_event *ev,
                                  int64_t n_ev, int64_t step, const vs_special_io *io)
{
    vs_tagmap ends, named;
    vs_tagmap_init(&ends);
    vs_tagmap_init(&named);
    event_ends(ev, n_ev, &ends);
    int64_t *sorted = VS_MALLOC(sizeof(int64_t) * (size_t)(2 * n_ev + 1)), n = 0;
    for (int64_t k = 0; k < ends.mask + 1; ++k)
        if (ends.key[k] >= 0)
            sorted[n++] = ends.key[k];
    qsort(sorted, (size_t)n, sizeof *sorted, tag_cmp);
    vs_particles picked, src;
    io->affected(io->ctx, sorted, n, &picked); /* the affected beads, and only they */
    free(sorted);
    int64_t *aff = NULL;
    const int64_t n_aff = affected_beads(&picked, &ends, &aff);
    named_beads(par, &picked, aff, n_aff, &named, &sorted, &n);
    io->records(io->ctx, sorted, n, &src); /* the named beads this rank owns, as now */
    rebuild_lists(par, &picked, aff, n_aff, &src, &named, depth, step);
    io->store(io->ctx, &picked);
    io->release(&picked);
    io->release(&src);
    free(sorted);
    free(aff);
    vs_tagmap_free(&ends);
    vs_tagmap_free(&named);
}
