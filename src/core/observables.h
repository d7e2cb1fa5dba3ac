/* The quantities a force evaluation and a thermo row produce, as plain data shared by the
 * backends (which compute this rank's share where their data live), the engine (which
 * reduces them over ranks) and io/ (which writes them).
 *
 *   temperature  T = 2 K / (3N - 3)   (the centre-of-mass momentum is conserved)
 *   pressure     p = (N T + W / 3) / V,  W = sum over pairs of r_ij . F^C_ij
 */
#ifndef VESICA_OBSERVABLES_H
#define VESICA_OBSERVABLES_H

#include <stdint.h>

#include "fixed_sum.h"

/* Energy and virial of this rank's share of the last force evaluation (CPU backend), as
 * exact sums of the contributions (fixed_sum.h): the same bits in any order of the pairs. */
typedef struct {
    vs_wide energy; /* potential energy of this rank's share of the pair interactions */
    vs_wide virial; /* sum of r_ij . F^C_ij over this rank's share of the pairs, bonded too */
    vs_wide bond_energy, angle_energy, dihedral_energy; /* the bonded terms' (molecules) */
    int out_of_range; /* a contribution was not finite or beyond vs_wide_ok: sums invalid */
} vs_force_sums;

/* One thermo row, reduced over all ranks. */
typedef struct {
    int64_t step;
    double time;
    double temperature, pressure;
    double kinetic, potential;
    double momentum[3];
    int molecules;       /* 1: the run has molecules, and the four energies below are set */
    double pair_energy, bond_energy, angle_energy, dihedral_energy; /* potential: their sum */
    int ensemble_columns; /* 0 none; 1 conserved_energy; 2 thermostat_energy too; 3 volume
                             too (after the molecules' columns: src/engine/ensemble_step.h) */
    double thermostat_energy, conserved_energy;
    double volume; /* the box's (npt: its column, ensemble_columns 3) */
    double virial; /* W = sum of r_ij . F_ij over all pairs and bonded terms (no tail) */
    int oriented;  /* 1: the run has oriented species, and the two below are set */
    double rot_kinetic;     /* sum of I |u|^2 / 2 (in conserved_energy, not in kinetic) */
    double rot_temperature; /* 2 rot_kinetic / (2 N_oriented): two degrees of freedom each */
} vs_thermo;

/* The exact sums of a thermo row, in the order of vs_thermo_local.exact. */
enum { VS_EXACT_PX, VS_EXACT_PY, VS_EXACT_PZ, VS_EXACT_KINETIC, VS_EXACT_PAIR, VS_EXACT_VIRIAL,
       VS_EXACT_BOND, VS_EXACT_ANGLE, VS_EXACT_DIHEDRAL, VS_EXACT_SUMS };

/* This rank's share of the sums that make the thermo row: exact fixed-point integers
 * (fixed_sum.h, as vs_wide limbs, in the order of VS_EXACT_*) on both backends, which the
 * reduction over ranks adds exactly, so a row does not depend on how the particles are spread
 * over ranks or ordered within one. exact_invalid: a contribution was out of range (a
 * blown-up run), and the row is NaN. */
typedef struct {
    int exact_invalid;
    int64_t exact[VS_EXACT_SUMS][3];
} vs_thermo_local;

/* A rank's share from its exact sums (in the order of VS_EXACT_*); exact = 0: a contribution
 * was out of range, and the row will be NaN. Both backends. */
static inline void vs_thermo_local_exact(const vs_wide all[VS_EXACT_SUMS], int exact,
                                         vs_thermo_local *out)
{
    for (int k = 0; k < VS_EXACT_SUMS; ++k)
        vs_wide_to_limbs(all[k], out->exact[k]);
    out->exact_invalid = !exact;
}

/* This rank's share of the integrity check: count, sum of tags, sum of squared tags (modulo
 * 2^64), and the tag of a particle with a non-finite position or velocity (-1 if none). */
typedef struct {
    uint64_t count, tag_sum, tag_square_sum;
    int64_t bad_tag;
} vs_integrity_local;

#endif
