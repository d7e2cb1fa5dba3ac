/* The bonded terms' fatal errors, worded once for the CPU loops and the GPU kernels: see
 * bonded.h. */
#include "bonded.h"

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
