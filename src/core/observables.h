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

/* Energy and virial of this rank's share of the last force evaluation. */
typedef struct {
    double energy; /* potential energy of this rank's share of the interactions */
    double virial; /* sum of r_ij . F^C_ij over this rank's share of the pairs */
    double bond_energy, angle_energy; /* the bonded terms' energies (molecules); `energy`
                                       * is the pair terms' */
} vs_force_sums;

/* One thermo row, reduced over all ranks. */
typedef struct {
    int64_t step;
    double time;
    double temperature, pressure;
    double kinetic, potential;
    double momentum[3];
    int molecules;       /* 1: the run has molecules, and the three energies below are set */
    double pair_energy, bond_energy, angle_energy; /* potential = their sum */
} vs_thermo;

/* This rank's share of the sums that make the thermo row. */
typedef struct {
    double momentum[3];
    double kinetic;
    double potential;
    double virial;
    double bond_energy, angle_energy; /* shares of potential (molecules) */
} vs_thermo_local;

/* This rank's share of the integrity check: count, sum of tags, sum of squared tags (modulo
 * 2^64), and the tag of a particle with a non-finite position or velocity (-1 if none). */
typedef struct {
    uint64_t count, tag_sum, tag_square_sum;
    int64_t bad_tag;
} vs_integrity_local;

#endif
