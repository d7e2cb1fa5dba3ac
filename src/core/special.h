/* Special neighbours: the beads 1-2, 1-3 and 1-4 apart along the bonds, whose pair forces a
 * pair style may exclude or scale (the `special` key of a `pair` entry, as LAMMPS's
 * special_bonds lj: factor 0 skips the pair, energy, force and virial; factor s multiplies
 * all three by s).
 *
 * Each bead keeps its own list (vs_special, one per particle slot, allocated only when some
 * pair style has a factor other than 1), made once from the whole bond graph where it is
 * known (the molecule builder, the input readers on rank 0) and carried with its particle
 * from then on, like vs_topo: migration (host and device), the Morton reorder, the
 * redistributions and checkpoints. The level of a pair is the shortest path along the bonds
 * (a ring's bead 1-2 and 1-4 at once is 1-2), as LAMMPS's special list. A pair (i, j) takes
 * its factor from i's list by j's tag: the lists are symmetric, so j's list gives the same,
 * and ghosts need no list. Lists hold the levels up to the deepest one whose factor is not
 * 1 in some style (vs_special_depth, params.h): 1-2 only, 1-2 and 1-3, or all three.
 */
#ifndef VESICA_SPECIAL_H
#define VESICA_SPECIAL_H

#include <stddef.h>
#include <stdint.h>

#include "hostdevice.h"

/* Partners per bead: a linear chain needs 6 (1-4 included), a trifunctional branch point 9,
 * a tetrafunctional one 12. 128 bytes a bead. */
#define VS_MAX_SPECIAL 15

typedef struct {
    int64_t n;                 /* entries */
    int64_t e[VS_MAX_SPECIAL]; /* partner tag << 2 | level (1: 1-2, 2: 1-3, 3: 1-4) */
} vs_special;

/* The level of the pair (this bead, tag) in s: 1, 2 or 3, or 0 when not special. */
VS_HOST_DEVICE int vs_special_level(const vs_special *s, int64_t tag)
{
    const int64_t n = s->n;
    for (int64_t k = 0; k < n; ++k) {
        const int64_t e = s->e[k];
        if ((e >> 2) == tag)
            return (int)(e & 3);
    }
    return 0;
}

/* The bond partners of `tag` into out (at most 4 = VS_MAX_BONDS); their number, or -1 when
 * the tag is unknown. */
typedef int (*vs_bond_partners_fn)(void *ctx, int64_t tag, int64_t out[4]);

/* The list of bead `tag` up to `depth` (1..3) bonds away, by breadth-first search over
 * bonds(). Returns 0, or -1 with a message in err (more than VS_MAX_SPECIAL partners, or a
 * partner the graph does not know). */
int vs_special_build(int64_t tag, int depth, vs_bond_partners_fn bonds, void *ctx,
                     vs_special *out, char *err, size_t err_len);

#endif
