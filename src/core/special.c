/* Special neighbour lists: see special.h. */
#include "special.h"

#include <stdio.h>
#include <string.h>

static int listed(const vs_special *s, int64_t tag)
{
    return vs_special_level(s, tag) != 0;
}

int vs_special_build(int64_t tag, int depth, vs_bond_partners_fn bonds, void *ctx,
                     vs_special *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    /* level by level: the partners of level L - 1 (or the bead itself) give level L */
    int64_t from = 0, to = 0; /* entries of the previous level: [from, to) */
    for (int level = 1; level <= depth; ++level) {
        const int64_t first = out->n;
        for (int64_t k = (level == 1 ? -1 : from); k < (level == 1 ? 0 : to); ++k) {
            const int64_t src = k < 0 ? tag : out->e[k] >> 2;
            int64_t p[4];
            const int np = bonds(ctx, src, p);
            if (np < 0) {
                snprintf(err, err_len, "special neighbours of bead %lld: bond partner %lld is "
                         "not in the system", (long long)tag + 1, (long long)src + 1);
                return -1;
            }
            for (int q = 0; q < np; ++q) {
                if (p[q] == tag || listed(out, p[q]))
                    continue; /* the shortest path wins, as in LAMMPS */
                if (out->n == VS_MAX_SPECIAL) {
                    snprintf(err, err_len, "bead %lld has more than %d special neighbours "
                             "(1-2 to 1-%d; VS_MAX_SPECIAL, src/core/special.h)",
                             (long long)tag + 1, VS_MAX_SPECIAL, depth + 1);
                    return -1;
                }
                out->e[out->n++] = p[q] * 4 + level;
            }
        }
        from = first;
        to = out->n;
    }
    return 0;
}
