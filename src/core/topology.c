/* Topology records and the tag map: see topology.h. */
#include "topology.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

/* the sizes docs/architecture.md and the GPU's word-by-word permutation count on */
_Static_assert(sizeof(vs_topo) == 288, "vs_topo: 288 bytes");
_Static_assert(sizeof(vs_dihedrals) == 152, "vs_dihedrals: 152 bytes");

void vs_tagmap_init(vs_tagmap *m) { memset(m, 0, sizeof *m); }

void vs_tagmap_free(vs_tagmap *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

void vs_tagmap_reset(vs_tagmap *m, int64_t expected)
{
    int64_t cap = 16;
    while (cap < 2 * expected)
        cap *= 2;
    if (cap != m->mask + 1 || !m->key) {
        free(m->key);
        free(m->val);
        m->key = VS_MALLOC(sizeof(int64_t) * (size_t)cap);
        m->val = VS_MALLOC(sizeof(int64_t) * (size_t)cap);
        m->mask = cap - 1;
    }
    memset(m->key, 0xff, sizeof(int64_t) * (size_t)cap); /* every key -1 */
    m->n = 0;
}

/* Put tag -> index in the first free slot of the tag's probe sequence; with `first_wins`, do
 * nothing if the tag is met on the way. */
static void tagmap_place(vs_tagmap *m, int64_t tag, int64_t index, int first_wins)
{
    int64_t h = (int64_t)(vs_tagmap_hash(tag) & (uint64_t)m->mask);
    for (; m->key[h] >= 0; h = (h + 1) & m->mask)
        if (first_wins && m->key[h] == tag)
            return;
    m->key[h] = tag;
    m->val[h] = index;
    m->n++;
}

void vs_tagmap_insert(vs_tagmap *m, int64_t tag, int64_t index) { tagmap_place(m, tag, index, 1); }

void vs_tagmap_insert_copy(vs_tagmap *m, int64_t tag, int64_t index)
{
    tagmap_place(m, tag, index, 0);
}

int vs_topo_add_bond(vs_topo *t, int64_t partner, int type)
{
    if (t->n_bond >= VS_MAX_BONDS)
        return -1;
    t->bond[t->n_bond] = partner;
    t->bond_type[t->n_bond] = type;
    t->n_bond++;
    return 0;
}

int vs_topo_add_angle(vs_topo *t, int64_t a, int64_t b, int64_t c, int type)
{
    if (t->n_angle >= VS_MAX_ANGLES)
        return -1;
    t->angle[t->n_angle][0] = a;
    t->angle[t->n_angle][1] = b;
    t->angle[t->n_angle][2] = c;
    t->angle_type[t->n_angle] = type;
    t->n_angle++;
    return 0;
}

int vs_topo_add_dihedral(vs_dihedrals *t, const int64_t tags[4], int type)
{
    if (t->n_dihedral >= VS_MAX_DIHEDRALS)
        return -1;
    for (int q = 0; q < 4; ++q)
        t->dihedral[t->n_dihedral][q] = tags[q];
    t->dihedral_type[t->n_dihedral] = type;
    t->n_dihedral++;
    return 0;
}

int vs_topo_remove_bond(vs_topo *t, int64_t partner)
{
    for (int k = 0; k < t->n_bond; ++k) {
        if (t->bond[k] != partner)
            continue;
        for (int m = k + 1; m < t->n_bond; ++m) {
            t->bond[m - 1] = t->bond[m];
            t->bond_type[m - 1] = t->bond_type[m];
        }
        t->n_bond--;
        t->bond[t->n_bond] = 0;
        t->bond_type[t->n_bond] = 0;
        return 0;
    }
    return -1;
}

/* Whether a and b are consecutive in the chain q[0 .. n). */
static int consecutive(const int64_t *q, int n, int64_t a, int64_t b)
{
    for (int k = 0; k + 1 < n; ++k)
        if ((q[k] == a && q[k + 1] == b) || (q[k] == b && q[k + 1] == a))
            return 1;
    return 0;
}

int vs_topo_remove_angles_with(vs_topo *t, int64_t a, int64_t b)
{
    int kept = 0, removed = 0;
    for (int k = 0; k < t->n_angle; ++k) {
        if (consecutive(t->angle[k], 3, a, b)) {
            ++removed;
            continue;
        }
        if (kept != k) {
            memcpy(t->angle[kept], t->angle[k], sizeof t->angle[k]);
            t->angle_type[kept] = t->angle_type[k];
        }
        ++kept;
    }
    for (int k = kept; k < t->n_angle; ++k) {
        memset(t->angle[k], 0, sizeof t->angle[k]);
        t->angle_type[k] = 0;
    }
    t->n_angle = kept;
    return removed;
}

int vs_dihedrals_remove_with(vs_dihedrals *t, int64_t a, int64_t b)
{
    int kept = 0, removed = 0;
    for (int k = 0; k < t->n_dihedral; ++k) {
        if (consecutive(t->dihedral[k], 4, a, b)) {
            ++removed;
            continue;
        }
        if (kept != k) {
            memcpy(t->dihedral[kept], t->dihedral[k], sizeof t->dihedral[k]);
            t->dihedral_type[kept] = t->dihedral_type[k];
        }
        ++kept;
    }
    for (int k = kept; k < t->n_dihedral; ++k) {
        memset(t->dihedral[k], 0, sizeof t->dihedral[k]);
        t->dihedral_type[k] = 0;
    }
    t->n_dihedral = kept;
    return removed;
}
