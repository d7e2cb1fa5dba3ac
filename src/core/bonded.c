/* The bonded terms' fatal errors, worded once for the CPU loops and the GPU kernels, and the
 * hash of the bonded types that a restart compares: see bonded.h. */
#include "bonded.h"

#include <stddef.h>
#include <stdint.h>

#include "fnv.h"
#include "log.h"

void vs_bonded_fail(const vs_params *prm, int kind, int64_t step, int64_t tag_a,
                    int64_t tag_b, double r, double r0)
{
    if (kind == VS_BONDED_MISSING)
        VS_FATAL("step %lld: bead %lld is bonded to bead %lld, which is neither on this rank "
                 "nor among its ghosts: the molecule stretched beyond the ghost reach of bonded "
                 "beads (molecules bond_reach = %g)",
                 (long long)step, (long long)tag_a, (long long)tag_b, prm->molecules.bond_reach);
    if (kind == VS_BONDED_TABLE)
        VS_FATAL("step %lld: the bond between beads %lld and %lld has length r = %.6g, outside "
                 "its table (bond style table, which ends at r = %g)",
                 (long long)step, (long long)tag_a, (long long)tag_b, r, r0);
    if (kind == VS_BONDED_FENE)
        VS_FATAL("step %lld: the FENE bond between beads %lld and %lld is stretched to "
                 "r = %.6g >= R0 = %g (the time step is too large or the force field "
                 "too stiff)",
                 (long long)step, (long long)tag_a, (long long)tag_b, r, r0);
    VS_FATAL("step %lld: the bond between beads %lld and %lld is stretched to "
             "r = %.6g, beyond the bonded reach %g (molecules bond_reach: the "
             "ghost shell of bonded beads is built for it)",
             (long long)step, (long long)tag_a, (long long)tag_b, r, prm->molecules.bond_reach);
}

/* A type's style, its numbers and its table (grid and spline coefficients), field by field:
 * the structs hold padding and a pointer. */
static uint64_t fnv_type(uint64_t h, int style, const double *num, size_t n_num,
                         const vs_table *t)
{
    h = vs_fnv1a(h, &style, sizeof style);
    h = vs_fnv1a(h, num, sizeof(double) * n_num);
    const double grid[3] = {(double)t->n, t->lo, t->dx};
    h = vs_fnv1a(h, grid, sizeof grid);
    if (t->coef && t->n > 1)
        h = vs_fnv1a(h, t->coef, sizeof(double) * 4 * (size_t)(t->n - 1));
    return h;
}

void vs_bonded_set_code(vs_params *p)
{
    const vs_molecules_params *m = &p->molecules;
    const int counts[3] = {m->n_bond_types, m->n_angle_types, m->n_dihedral_types};
    if (counts[0] + counts[1] + counts[2] == 0) {
        p->molecules.code = 0;
        return;
    }
    uint64_t h = vs_fnv1a(VS_FNV_OFFSET, counts, sizeof counts);
    for (int i = 0; i < m->n_bond_types; ++i) {
        const vs_bond_type *b = &m->bond_types[i];
        const double num[2] = {b->K, b->r0};
        h = fnv_type(h, b->style, num, 2, &b->tab);
    }
    for (int i = 0; i < m->n_angle_types; ++i) {
        const vs_angle_type *a = &m->angle_types[i];
        const double num[2] = {a->K, a->theta0};
        h = fnv_type(h, a->style, num, 2, &a->tab);
    }
    for (int i = 0; i < m->n_dihedral_types; ++i) {
        const vs_dihedral_type *d = &m->dihedral_types[i];
        const double num[3 + VS_DIHEDRAL_TERMS] = {(double)d->n, d->K, d->phi0, d->A[0],
                                                   d->A[1], d->A[2], d->A[3], d->A[4]};
        h = fnv_type(h, d->style, num, 3 + VS_DIHEDRAL_TERMS, &d->tab);
    }
    p->molecules.code = (int64_t)((h >> 12) | 1u); /* never 0 or -1 with a type */
}
