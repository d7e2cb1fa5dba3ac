/* Thermodynamic observables and the particle-integrity check, reduced over all ranks.
 *
 *   temperature  T = 2 K / (3N - 3)   (the centre-of-mass momentum is conserved)
 *   pressure     p = (N T + W / 3) / V,  W = sum over pairs of r_ij . F^C_ij
 * Only the conservative force enters the virial, as in Groot & Warren (1997): the dissipative
 * and random virials average to zero in equilibrium and only add noise.
 *
 *   pressure tensor (output.pressure_tensor)  P_ab = (sum_i m_i v_i,a v_i,b + W_ab) / V,
 *     W_ab = sum over pairs and bonded terms of r_ij,a F_ij,b with every force (DPD's
 * dissipative and random forces included; the flow's body force is no pair force and does not
 * enter). Its kinetic part is the plain sum (as LAMMPS's compute pressure), so trace / 3 is
 * (2 K + W_xx + W_yy + W_zz) / (3 V), while `pressure`'s kinetic part N T = 2 K N / (3 N - 3)
 * counts the conserved centre-of-mass freedoms out: the two differ by 2 K / (3 (N - 1) V)
 * besides the dissipative and random virials, which average to zero. */
#ifndef VESICA_THERMO_H
#define VESICA_THERMO_H

#include <stdint.h>

#include "observables.h"
#include "parallel.h"
#include "params.h"
#include "particles.h"

/* Exact sums (fixed_sum.h) over all ranks, in place: the same bits on any rank count and in
 * any order. Collective. */
void vs_par_sum_wide(const vs_par *par, vs_wide *w, int n);
/* Sum the local shares over ranks and derive the row. Collective. */
void vs_thermo_reduce(const vs_par *par, const vs_params *prm, const vs_thermo_local *local,
                      int64_t step, vs_thermo *out);

/* Verify the global particle count, the tag checksums (every tag 0..N-1 exactly once) and
 * finite positions and velocities, like LAMMPS's 'Lost atoms'. Collective. Returns 0 when all
 * is well; otherwise every rank returns non-zero and the offending step, rank and tag are
 * logged. `host` must hold the owned tags (used only to name the culprit on failure). */
int vs_integrity_verify(const vs_par *par, const vs_integrity_local *local,
                        const vs_particles *host, int64_t n_total, int64_t step);

/* Whether global sums {count, tag sum, squared-tag sum} describe tags 0..n_total-1. */
int vs_integrity_sums_ok(const uint64_t global[3], int64_t n_total);

/* Both halves on host data (CPU backend, tests). */
int vs_check_integrity(const vs_par *par, const vs_particles *p, int64_t n_total,
                       int64_t step);

#endif
