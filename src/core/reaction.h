/* Reactions: what every rank must compute alike to change the topology during a run
 * (vs_reaction_params in params.h; the step in src/engine/reactions.c).
 *
 * A reaction step decides everything from the state at that step: each candidate's random
 * draw comes from the keyed pair hash of tea_rng.h on a stream of its own, (seed, step, the
 * two tags), so the rank that looks at a pair and the rank count do not matter. Each decision
 * about a bead is made once, by the rank that owns it, from its own position and its
 * partner's copy (an owner's position plus a periodic shift: the same doubles on any layout),
 * and sent to every rank as a claim (vs_reaction_claim). Every rank then orders the claims
 * of the whole system by their content and resolves the conflicts by the same rules, so every
 * rank holds the same list of events and applies those of its own beads.
 *
 * Streams: the top byte of the key's step word, as the ensembles' per-particle streams
 * (integrator.h: bytes 4 to 19; the DPD pairs' is 0, the initial state's 0x80): chain growth
 * 0x40, creation rule r 0x44 + r, breaking rule r 0x48 + r. Of a pair's 64 bits, v0 orders
 * the candidates (chain growth: an end takes the monomer of the lowest v0, a uniform choice)
 * and v1 is the probability draw, independent of v0. */
#ifndef VESICA_REACTION_H
#define VESICA_REACTION_H

#include <stdint.h>

#include "hostdevice.h"
#include "params.h"
#include "tea_rng.h"
#include "topology.h"

enum {
    VS_RX_STREAM_CHAIN = 0x40,
    VS_RX_STREAM_CREATE = 0x44, /* + rule */
    VS_RX_STREAM_BREAK = 0x48   /* + rule */
};

/* The 64 bits of the unordered pair (a, b) at `step` on `stream`. */
VS_HOST_DEVICE vs_tea_block vs_reaction_bits(uint64_t seed, uint64_t step, int stream,
                                             uint64_t a, uint64_t b)
{
    const vs_tea_key key = vs_tea_make_key(seed, step ^ ((uint64_t)stream << 56));
    return vs_pair_bits(key, a, b);
}

/* Whether the draw of bits b passes a probability p (p = 1: always; p = 0: never). */
VS_HOST_DEVICE int vs_reaction_accept(vs_tea_block b, double p)
{
    return vs_u32_to_open_unit(b.v1) < p;
}

/* What a rank claims for one of its beads at a reaction step. */
typedef enum {
    VS_CLAIM_BREAK = 0,  /* the bond a-b breaks (a: its lower tag) */
    VS_CLAIM_CREATE = 1, /* a's nearest partner under creation rule `rule` is b */
    VS_CLAIM_CHAIN = 2   /* the active end a takes the monomer b, its draw accepted */
} vs_claim_kind;

typedef struct {
    int32_t kind, rule;
    int64_t a, b;
    /* the order of conflicts: chain growth the draw's v0; creation the bits of r^2 (a
     * non-negative double orders as its bits); breaking 0 */
    uint64_t key;
    int64_t mol;                /* a's molecule id */
    int32_t species, n_bond;    /* a's species and bonds before the step */
    int64_t bond[VS_MAX_BONDS]; /* a's bond partners */
} vs_reaction_claim;

/* ---- A bead's partner search, the same tests on every backend ---------------------------
 * The backend walks the cells around owned bead `me` and hands each particle found to
 * vs_reaction_candidate, which keeps the best partner: creation the nearest, chain growth
 * the lowest draw v0 (a uniform choice); ties by the lower tag. */

/* What the partners of one bead must be, and how they are scored. */
typedef struct {
    int kind;      /* VS_CLAIM_CREATE: nearest; VS_CLAIM_CHAIN: lowest draw */
    int species;   /* the partner's */
    int max_bonds; /* the partner has fewer bonds */
    double radius2;
    int stream;
    uint64_t seed, step;
} vs_reaction_search;

/* The best candidate so far (tag -1: none). */
typedef struct {
    int64_t tag;
    double score;
    vs_tea_block bits;
} vs_reaction_best;

VS_HOST_DEVICE int vs_reaction_bonded_to(const vs_topo *t, int64_t tag)
{
    for (int k = 0; k < t->n_bond; ++k)
        if (t->bond[k] == tag)
            return 1;
    return 0;
}

VS_HOST_DEVICE void vs_reaction_consider(vs_reaction_best *b, int64_t tag, double score,
                                         vs_tea_block bits)
{
    if (b->tag < 0 || score < b->score || (score == b->score && tag < b->tag)) {
        b->tag = tag;
        b->score = score;
        b->bits = bits;
    }
}

/* Particle `tag` (its species and bond count, r2 its squared distance from `me`, whose
 * record is `mine`) as a partner of `me` under search q. */
VS_HOST_DEVICE void vs_reaction_candidate(vs_reaction_best *best, const vs_reaction_search *q,
                                          int64_t me, const vs_topo *mine, int64_t tag,
                                          int species, int n_bond, double r2)
{
    if (tag == me || species != q->species || n_bond >= q->max_bonds)
        return;
    if (!(r2 <= q->radius2) || vs_reaction_bonded_to(mine, tag))
        return;
    if (q->kind == VS_CLAIM_CREATE) {
        const vs_tea_block none = {0, 0};
        vs_reaction_consider(best, tag, r2, none);
    } else {
        const vs_tea_block b =
            vs_reaction_bits(q->seed, q->step, q->stream, (uint64_t)me, (uint64_t)tag);
        vs_reaction_consider(best, tag, (double)b.v0, b);
    }
}

/* Creation rule cr as a bead of species sp sees it: 0 where sp has no role in it; else 1,
 * with the most bonds the bead may have to search (*own_max) and its search q (the other
 * role's species and bond limit; a bead of both roles, i = j, searches as i). */
VS_HOST_DEVICE int vs_reaction_create_search(const vs_bond_create_rule *cr, int sp, int *own_max,
                                             vs_reaction_search *q)
{
    const int role_i = sp == cr->species_i, role_j = sp == cr->species_j;
    if (!role_i && !role_j)
        return 0;
    *own_max = role_i ? cr->max_bonds_i : cr->max_bonds_j;
    q->kind = VS_CLAIM_CREATE;
    q->species = role_i ? cr->species_j : cr->species_i;
    q->max_bonds = role_i ? cr->max_bonds_j : cr->max_bonds_i;
    q->radius2 = cr->radius * cr->radius;
    q->stream = 0;
    q->seed = q->step = 0;
    return 1;
}

/* Whether the bond a-b (a the lower tag; species sa and sb, r2 its squared length) breaks at
 * `step` under the n rules brk: the first rule that names the pair's species decides (its
 * index in *rule), with its length and its draw. */
VS_HOST_DEVICE int vs_reaction_breaks(const vs_bond_break_rule *brk, int n, uint64_t seed,
                                      uint64_t step, int64_t a, int64_t b, int sa, int sb,
                                      double r2, int *rule)
{
    for (int r = 0; r < n; ++r) {
        const vs_bond_break_rule *br = &brk[r];
        if (!((br->species_i == sa && br->species_j == sb) ||
              (br->species_i == sb && br->species_j == sa)))
            continue;
        const vs_tea_block bits =
            vs_reaction_bits(seed, step, VS_RX_STREAM_BREAK + r, (uint64_t)a, (uint64_t)b);
        *rule = r;
        return r2 > br->length * br->length && vs_reaction_accept(bits, br->probability);
    }
    return 0;
}

/* A growable list of claims (host code). */
typedef struct {
    vs_reaction_claim *c;
    int64_t n, cap;
} vs_claim_list;

/* The reactions' global state: the same on every rank, checkpointed (/reaction_state). */
typedef struct {
    int64_t monomers0;    /* chain growth: the free monomers at step 0 (conversion = 1 -
                             monomers / monomers0) */
    int64_t last_step;    /* the latest reaction step (0: none yet) */
    int64_t last_chain, last_created, last_broken;    /* its events */
    int64_t total_chain, total_created, total_broken; /* since step 0 */
} vs_reaction_state;
#define VS_REACTION_STATE_WORDS 8

#endif
