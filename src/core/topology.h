/* Molecular topology that travels with its particles, and the per-rank tag-to-index map.
 *
 * Each bead keeps every bond, angle and dihedral it takes part in, keyed by the partners'
 * global tags (vs_topo, one per particle slot, allocated only when the configuration has
 * molecules; the dihedrals in vs_dihedrals beside it, allocated only when it has dihedral
 * types). A bond is therefore stored on both its beads, an angle on all three and a
 * dihedral on all four: every rank that owns
 * one of the beads computes the interaction from the same positions and keeps only the force
 * on its own bead, so no force is ever sent back (as with the DPD pairs), and a bead's force
 * is summed in the order of its own lists, whatever the rank count. Memory grows with the
 * rank's own particles only; nothing holds all tags.
 *
 * Partners are found among the owned particles and ghosts through vs_tagmap, an
 * open-addressing hash map from tag to local index, rebuilt after every ghost build (the
 * indices stay valid through ghost updates). Only bonded particles enter it. Where a tag has
 * several copies (a periodic image next to the original on a dimension with one rank) the
 * first inserted wins; the bonded terms take the minimum image of the separation, so any copy
 * gives the same vector.
 */
#ifndef VESICA_TOPOLOGY_H
#define VESICA_TOPOLOGY_H

#include <stdint.h>

#include "hostdevice.h"

#define VS_MAX_BONDS 4  /* bonds per bead: a linear chain needs 2, a branch point 3 */
#define VS_MAX_ANGLES 8 /* angles per bead: a linear chain needs 3 */
/* Dihedrals per bead: a linear chain needs 4 (the bead first, second, third or fourth). A
 * branch point needs more; the readers stop with a clear error where a bead has more. */
#define VS_MAX_DIHEDRALS 4

/* 288 bytes, 8-byte words (the GPU permutes records by words). */
typedef struct {
    int64_t mol;                      /* molecule id, 1-based; 0: a free bead */
    int32_t n_bond, n_angle;          /* ghosts: n_bond only (it marks them bonded) */
    int64_t bond[VS_MAX_BONDS];       /* partner tags */
    int32_t bond_type[VS_MAX_BONDS];  /* index into vs_params.bond_types */
    int32_t angle_type[VS_MAX_ANGLES];
    int64_t angle[VS_MAX_ANGLES][3];  /* tags a, b (the vertex), c; this bead is one of them */
} vs_topo;

/* A bead's dihedrals: a record of its own beside vs_topo (152 bytes), allocated only when the
 * run has dihedral types (vs_params_dihedrals), so a bead-spring run moves and permutes 288
 * topology bytes a bead, not 440; it travels with its particle as vs_topo does. */
typedef struct {
    int32_t n_dihedral;
    int32_t dihedral_type[VS_MAX_DIHEDRALS];
    int32_t pad;
    int64_t dihedral[VS_MAX_DIHEDRALS][4]; /* tags a, b, c, d along the chain (b-c the axis) */
} vs_dihedrals;

typedef struct {
    int64_t *key;   /* tags; -1: empty */
    int64_t *val;   /* local indices */
    int64_t mask;   /* capacity - 1 (capacity a power of two) */
    int64_t n;
} vs_tagmap;

void vs_tagmap_init(vs_tagmap *m);
void vs_tagmap_free(vs_tagmap *m);
/* Empty the map, with room for `expected` entries at most half full. */
void vs_tagmap_reset(vs_tagmap *m, int64_t expected);
/* Insert tag -> index unless the tag is present already (the first copy wins). */
void vs_tagmap_insert(vs_tagmap *m, int64_t tag, int64_t index);
/* Insert tag -> index as one more copy of the tag (a periodic image), for vs_tagmap_nearest. */
void vs_tagmap_insert_copy(vs_tagmap *m, int64_t tag, int64_t index);

VS_HOST_DEVICE uint64_t vs_tagmap_hash(int64_t tag)
{
    uint64_t z = (uint64_t)tag + 0x9e3779b97f4a7c15ull; /* splitmix64 finaliser */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The local index of `tag`, or -1. */
VS_HOST_DEVICE int64_t vs_tagmap_find(const int64_t *key, const int64_t *val, int64_t mask,
                                      int64_t tag)
{
    for (int64_t h = (int64_t)(vs_tagmap_hash(tag) & (uint64_t)mask);; h = (h + 1) & mask) {
        if (key[h] == tag)
            return val[h];
        if (key[h] < 0)
            return -1;
    }
}

/* Of the local copies of `tag` (the particle and its periodic images, vs_tagmap_insert_copy),
 * the index of the one nearest to (rx, ry, rz), or -1. The bonded terms take the partners' copies
 * this way, each nearest to the bead before it along the chain, and use raw differences of
 * their positions: every copy is its owner's position plus a periodic shift, the same doubles
 * on any rank layout, so the separations (and the forces) do not depend on which copies a
 * rank holds, where a minimum-image wrap of whichever copy was found would round differently. */
VS_HOST_DEVICE int64_t vs_tagmap_nearest(const int64_t *key, const int64_t *val, int64_t mask,
                                         int64_t tag, const double *x, const double *y,
                                         const double *z, double rx, double ry, double rz)
{
    int64_t best = -1;
    double best_r2 = 0.0;
    for (int64_t h = (int64_t)(vs_tagmap_hash(tag) & (uint64_t)mask); key[h] >= 0;
         h = (h + 1) & mask) {
        if (key[h] != tag)
            continue;
        const int64_t j = val[h];
        const double dx = x[j] - rx, dy = y[j] - ry, dz = z[j] - rz;
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (best < 0 || r2 < best_r2) {
            best = j;
            best_r2 = r2;
        }
    }
    return best;
}

/* Add a bond (both beads), an angle (all three) or a dihedral (all four) to a bead's lists.
 * Return 0, or -1 when the bead's list is full (VS_MAX_BONDS, VS_MAX_ANGLES,
 * VS_MAX_DIHEDRALS). */
int vs_topo_add_bond(vs_topo *t, int64_t partner, int type);
int vs_topo_add_angle(vs_topo *t, int64_t a, int64_t b, int64_t c, int type);
int vs_topo_add_dihedral(vs_dihedrals *t, const int64_t tags[4], int type);

/* Remove the bond to `partner` from a bead's list (the order of the others kept). Returns 0,
 * or -1 when the bead has no such bond. */
int vs_topo_remove_bond(vs_topo *t, int64_t partner);
/* Remove every angle (dihedral) of a bead in which a and b are consecutive beads: the angles
 * and dihedrals a broken bond a-b was part of. Returns how many were removed. */
int vs_topo_remove_angles_with(vs_topo *t, int64_t a, int64_t b);
int vs_dihedrals_remove_with(vs_dihedrals *t, int64_t a, int64_t b);

#endif
