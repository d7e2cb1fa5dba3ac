/* A Monte Carlo box: its particles (positions, species, tags), a cell list that follows every
 * move, and the pair energies of one particle or of the whole box.
 *
 * Energies are exact fixed-point sums (src/core/fixed_sum.h, 2^-80 quanta): each pair's
 * energy is rounded once, so a particle's energy does not depend on the order the cell list
 * visits its neighbours, the total kept by adding each accepted move's difference is the
 * same integer as a sum from scratch, and a restart that rebuilds the cells in another order
 * makes the same decisions bit for bit. A pair closer than the cap's distance counts as
 * VS_MC_PAIR_CAP (an overlap a start may have; no accepted state comes near it). The pair
 * energies come from the pair styles written once (src/core/pair_styles.h); the long-range
 * corrections (vs_pair_tail) depend on the counts and the volume only and are kept apart.
 */
#ifndef VESICA_MC_BOX_H
#define VESICA_MC_BOX_H

#include <stdint.h>

#include "fixed_sum.h"
#include "params.h"

#define VS_MC_PAIR_CAP 1e6 /* energy of one pair at most (energy units) */

typedef struct {
    double L[3];              /* edges (length) */
    int64_t n, cap;           /* particles, and room for them */
    double *x;                /* 3 cap: positions in [0, L) */
    int32_t *species;         /* cap */
    int64_t *tag;             /* cap: global ids, kept through transfers */
    int64_t count[VS_MAX_SPECIES]; /* particles per species */
    /* the cell list (nc >= 3 along every axis; else every particle is a neighbour) */
    int use_cells;
    int nc[3];
    int64_t *head;            /* first particle of each cell, -1: empty */
    int64_t *next, *prev, *cell_of; /* cap: the doubly linked lists */
    int64_t head_cap;
    vs_wide pair_energy;      /* exact sum of the pair energies (quanta, fixed_sum.h) */
} vs_mc_box;

/* What the energies read: the active pair styles and the largest cut-off. */
typedef struct {
    const vs_params *prm;
    int n_styles;
    int style[VS_PAIR_STYLES];
    double reach;
    const struct vs_mc_ranks *ranks; /* several ranks: vs_mc_energy_total is split over them
                                        and collective (mc_ranks.h); NULL: one rank */
} vs_mc_pairs;

void vs_mc_pairs_init(vs_mc_pairs *pp, const vs_params *prm);

/* An empty box of edges L with room for cap particles. Returns 0, or -1 (out of memory). */
int vs_mc_box_init(vs_mc_box *b, const double L[3], int64_t cap, const vs_mc_pairs *pp);
void vs_mc_box_free(vs_mc_box *b);
/* Room for at least cap particles (grows by doubling). Returns 0, or -1. */
int vs_mc_box_reserve(vs_mc_box *b, int64_t cap);

/* Append a particle (position wrapped into the box), linked into its cell. The caller has
 * reserved room. */
void vs_mc_box_append(vs_mc_box *b, const double x[3], int32_t species, int64_t tag);
/* Remove particle i: the last particle takes its slot. */
void vs_mc_box_remove(vs_mc_box *b, int64_t i);
/* Move particle i to x (wrapped), relinking its cell. */
void vs_mc_box_move(vs_mc_box *b, int64_t i, const double x[3]);
/* New edges: the cell grid is remade for them and every particle relinked (the positions
 * are the caller's to scale). Returns 0, or -1 (out of memory). */
int vs_mc_box_set_edges(vs_mc_box *b, const double L[3], const vs_mc_pairs *pp);

/* The pair energy, in quanta, of a particle of `species` at x with every particle of the box
 * but `skip` (-1: none). */
vs_wide vs_mc_energy_at(const vs_mc_box *b, const vs_mc_pairs *pp, const double x[3],
                        int32_t species, int64_t skip);
/* The pair energies of particle i where it is and at y (a displacement), in quanta: the
 * same integers as two calls of vs_mc_energy_at, in one pass where the box has no cells. */
void vs_mc_energy_move(const vs_mc_box *b, const vs_mc_pairs *pp, int64_t i, const double y[3],
                       vs_wide *e_old, vs_wide *e_new);
/* The whole box's pair energy in quanta (each pair once) and, if virial is not NULL, the sum
 * of r . F over the pairs. Collective where pp->ranks is set (the same integers). */
vs_wide vs_mc_energy_total(const vs_mc_box *b, const vs_mc_pairs *pp, double *virial);
/* A pair of species si and sj at squared distance r2 (within reach), in quanta: its energy
 * and (w not NULL) r . F, each capped, as vs_mc_energy_total adds them. */
void vs_mc_pair_quanta(const vs_mc_pairs *pp, int si, int sj, double r2, vs_wide *e, vs_wide *w);
/* The minimum-image squared distance of a and b (both in [0, L): one image shift at most),
 * the arithmetic of every energy of this file. */
static inline double vs_mc_box_dist2(const double L[3], const double *a, const double *b)
{
    double r2 = 0.0;
    for (int d = 0; d < 3; ++d) {
        double dx = a[d] - b[d];
        dx = dx > 0.5 * L[d] ? dx - L[d] : dx < -0.5 * L[d] ? dx + L[d] : dx;
        r2 += dx * dx;
    }
    return r2;
}
/* The long-range corrections of the box (counts and volume): energy and virial. */
void vs_mc_tail(const vs_mc_box *b, const vs_mc_pairs *pp, const int64_t *count, double volume,
                double *energy, double *virial);

static inline double vs_mc_volume(const vs_mc_box *b)
{
    return b->L[0] * b->L[1] * b->L[2];
}

#endif
