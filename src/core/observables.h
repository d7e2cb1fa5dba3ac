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

/* What a force evaluation is asked for besides the forces (the terms' want_energy): energy
 * and scalar virial, and with VS_WANT_TENSOR (output.pressure_tensor, on thermo and profile
 * sample steps) each particle's share of the virial tensor too. */
#define VS_WANT_ENERGY 1
#define VS_WANT_TENSOR 2

/* The pressure tensor's six components, in this order (thermo.csv's pxx..pyz). */
enum { VS_T_XX, VS_T_YY, VS_T_ZZ, VS_T_XY, VS_T_XZ, VS_T_YZ, VS_TENSOR };
/* The axes (a, b) of component k. */
static const int vs_tensor_axes[VS_TENSOR][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};

/* A particle's share of the virial tensor sum_pairs r_ij,a F_ij,b (all forces: DPD's
 * conservative, dissipative and random, the pair styles, bonds, angles, dihedrals; not the
 * flow's body force) is summed in fixed point, VS_TENSOR_QUANTUM quanta per unit in 64-bit
 * integers, on both backends: each pair's component is halved and rounded once for each of
 * its two particles (a bonded term's split over its beads likewise), so a particle's sum, a
 * bin's and the total do not depend on the order of the adds or on the decomposition. The
 * quantum is the profiles' (profile_bin.h), so a bin adds the particles' integers as they
 * are. */
#define VS_TENSOR_QUANTUM 4294967296.0
#define VS_TENSOR_LIMIT 0x1p30 /* a contribution's bound (per half pair, per bead) */

/* A fixed-point tensor share as an exact vs_wide (2^80 / 2^32 = 2^48 quanta apart). */
static inline vs_wide vs_tensor_wide(int64_t q) { return (vs_wide)q * ((vs_wide)1 << 48); }

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
    int tensor;    /* 1: output.pressure_tensor, the columns pxx..pyz and the members below */
    /* P_ab = (sum m v_a v_b + W_ab) / V (+ the lj tail's isotropic part on the diagonal);
     * W_ab of all forces, in the order of VS_T_* */
    double ptensor[VS_TENSOR];
    int oriented;  /* 1: the run has oriented species, and the two below are set */
    double rot_kinetic;     /* sum of I |u|^2 / 2 (in conserved_energy, not in kinetic) */
    double rot_temperature; /* 2 rot_kinetic / (2 N_oriented): two degrees of freedom each */
    /* reactions (src/engine/reactions.h): 0 none; else 1 chain growth, 2 creation rules, 4
     * breaking rules, or'ed, and the columns of each below */
    int reactions;
    double rx_chain;      /* chain growth: the monomers bonded at the last reaction step */
    double rx_conversion; /* 1 - free monomers now / free monomers at step 0 */
    double rx_active;     /* the active ends now */
    double rx_created, rx_broken; /* bonds made by the creation rules, broken, at the last
                                     reaction step */
    int field;           /* 1: the run has the particle-field term, and the member below */
    double field_energy; /* its W (in potential; nothing in pressure: W is invariant when
                            the box and its grid scale together, docs/configuration.md) */
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
    /* output.pressure_tensor: sum m v_a v_b, then the virial tensor, as vs_wide limbs in the
     * order of VS_T_*; tensor_invalid: a share was out of range (the columns are NaN) */
    int tensor_invalid;
    int64_t tensor[2 * VS_TENSOR][3];
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
