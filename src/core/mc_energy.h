/* The pair energies of the Monte Carlo moves besides the checkerboard's displacements, as the
 * GPU computes them (gpu/gpu_mc.cu) where a box lives on the device: the energy of one
 * particle against its box (a trial insertion, a particle to delete or transfer) and of a
 * whole box at scaled coordinates (a trial volume). Written once for the kernels and the CPU
 * unit test that holds them to the host's own loops (tests/mc/test_mc_energy.c).
 *
 * The host (src/engine/mc/mc_box.c) sums the same pairs with the same arithmetic: minimum-image
 * distances as vs_mc_sweep_dist2 takes them, the capped pair energy of every active style as
 * vs_mc_sweep_pair, each pair rounded once into the exact fixed-point sum (fixed_sum.h). The
 * sums are integers, so the order of the pairs, the cell grid that finds them and the split
 * over threads do not change the result: the host's move decisions see the same integers
 * whichever side computed them, and the GPU run makes the CPU's trajectory bit for bit.
 * A volume move scales every coordinate by f (one rounded product, vs_mc_scale_coord, as the
 * host scales its stored positions) and the edges by f (the host's products, passed in).
 */
#ifndef VESICA_MC_ENERGY_H
#define VESICA_MC_ENERGY_H

#include <stdint.h>

#include "mc_sweep.h"

/* A coordinate of a box scaled by a volume move's factor f. */
VS_HOST_DEVICE double vs_mc_scale_coord(double x, double f)
{
    return vs_mul_rn(x, f);
}

/* The grid of the whole-box energy over edges L: cells at least reach wide (at most
 * VS_MC_SWEEP_MAX_NC per axis, at least 1), no offset. Only the plan's grid is set. */
VS_HOST_DEVICE void vs_mc_energy_grid(vs_mc_sweep_plan *p, const double L[3], double reach)
{
    for (int d = 0; d < 3; ++d) {
        int n = (int)(L[d] / reach);
        n = n < VS_MC_SWEEP_MAX_NC ? n : VS_MC_SWEEP_MAX_NC;
        p->nc[d] = n < 1 ? 1 : n;
        p->L[d] = L[d];
        p->h[d] = L[d] / p->nc[d];
        p->off[d] = 0.0;
    }
}

/* The pair term, in quanta, of a particle of species si at y and one of species sj at
 * (b0, b1, b2), in a box of edges L: zero beyond the reach. */
VS_HOST_DEVICE vs_wide vs_mc_energy_term(const vs_mc_sweep_pairs *pp, const vs_pair_coeff *coeff,
                                         const double L[3], const double y[3], int si, double b0,
                                         double b1, double b2, int sj)
{
    const double r2 = vs_mc_sweep_dist2(L, y, b0, b1, b2);
    return r2 < pp->reach2 ? vs_mc_sweep_pair(pp, coeff, si, sj, r2) : (vs_wide)0;
}

/* The particles of a box sorted by the cells of grid p: by slot their positions (X, Y, Z),
 * species ss and original indices id; start[c] the first slot of cell c (ncell + 1 of them). */
typedef struct {
    const double *X, *Y, *Z;
    const int32_t *ss, *id, *start;
} vs_mc_energy_cells;

/* The pair energy, in quanta, of slot k (in cell `cell`) with the slots of its neighbour cell
 * r (0 <= r < 27, in the order of vs_mc_sweep_near's lists; zero for r beyond their count)
 * whose original index is above k's: over every k and r, each pair of the box once. */
VS_HOST_DEVICE vs_wide vs_mc_energy_cell_pairs(const vs_mc_sweep_pairs *pp,
                                               const vs_pair_coeff *coeff,
                                               const vs_mc_sweep_plan *p,
                                               const vs_mc_energy_cells *c, int k, uint32_t cell,
                                               int r)
{
    const int nc0 = p->nc[0], nc1 = p->nc[1];
    int q0[3], q1[3], q2[3];
    const int n0 = vs_mc_sweep_near(p, 0, (int)(cell % (uint32_t)nc0), q0);
    const int n1 = vs_mc_sweep_near(p, 1, (int)(cell / (uint32_t)nc0 % (uint32_t)nc1), q1);
    const int n2 = vs_mc_sweep_near(p, 2, (int)(cell / (uint32_t)(nc0 * nc1)), q2);
    if (r >= n0 * n1 * n2)
        return 0;
    const int nb = q0[r % n0] + nc0 * (q1[(r / n0) % n1] + nc1 * q2[r / (n0 * n1)]);
    const double y[3] = {c->X[k], c->Y[k], c->Z[k]};
    const int32_t mine = c->id[k];
    const int si = c->ss[k];
    vs_wide sum = 0;
    for (int32_t j = c->start[nb]; j < c->start[nb + 1]; ++j)
        if (c->id[j] > mine)
            sum += vs_mc_energy_term(pp, coeff, p->L, y, si, c->X[j], c->Y[j], c->Z[j], c->ss[j]);
    return sum;
}

#endif
