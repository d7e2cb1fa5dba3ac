/* The global state of an ensemble's thermostat (the same on every rank) and its algebra:
 * the Nose-Hoover chain, Berendsen's factor, and the per-species constants of the
 * per-particle operations of integrator.h. Host code only; the backends receive factors.
 *
 * Nose-Hoover chains (Martyna, Klein & Tuckerman, J. Chem. Phys. 97, 2635, 1992), integrated
 * as in Martyna, Tuckerman, Tobias & Klein (Mol. Phys. 87, 1117, 1996) with one inner step and
 * no Suzuki-Yoshida weights, the scheme of LAMMPS's fix nvt: a half-step of the chain, driven
 * by the kinetic energy K, gives the factor that scales every velocity; the kinetic energy
 * after it is K times the factor squared, carried to the next half-step without a new sum.
 * Masses Q_1 = N_f kT tau^2, Q_k = kT tau^2 (k > 1); N_f = 3N - 3 (the momentum is
 * conserved). The conserved quantity is K + U + E_chain with
 *   E_chain = N_f kT xi_1 + sum_{k>1} kT xi_k + sum_k Q_k v_k^2 / 2.
 *
 * NPT (integrator.kind = "npt"): the isotropic barostat of Martyna, Tobias & Klein (J. Chem.
 * Phys. 101, 4177, 1994) with Nose-Hoover chains on the particles and on the barostat, in the
 * measure-preserving, time-reversible factorisation of Tuckerman, Alejandre, Lopez-Rendon,
 * Jochim & Martyna (J. Phys. A 39, 5629, 2006). eps = ln(V / V0) / 3, its velocity v_eps,
 * barostat mass W = (N_f + 3) kT tau_p^2, chain masses kT tau_p^2 on the barostat:
 *   dv_eps/dt = G / W,  G = (1 + 3 / N_f) 2K + W_vir - 3 P_ext V     (W_vir = 3 V P_inst - 2K)
 *   dp_i/dt = F_i - (1 + 3 / N_f) v_eps p_i,   dr_i/dt = p_i / m_i + v_eps r_i,   dL/dt = v_eps L
 * One step: barostat chain dt/2, particle chain dt/2, v_eps dt/2, velocities dt/2 (exact
 * solution: v <- c_v v + c_f a), positions and box dt (x <- c_x x + c_xv v, L <- c_x L), and
 * the mirror image after the forces. W_vir is the thermo's virial plus the lj tail's
 * (pair_setup.h), so the mean of the thermo's pressure is P_ext. The conserved quantity is
 *   H = K + U + P_ext V + W v_eps^2 / 2 + E_chain(particles) + E_chain(barostat),
 * with the tail's part of U taken as W_tail / 3 = P_tail V, whose volume derivative is the
 * tail pressure the barostat feels (the tail energy's is not: see docs/validation.md).
 */
#ifndef VESICA_ENSEMBLE_H
#define VESICA_ENSEMBLE_H

#include <stdint.h>

#include "params.h"

typedef struct {
    int chain;                 /* M (nose_hoover), else 0 */
    double xi[VS_MAX_CHAIN];   /* chain positions */
    double vxi[VS_MAX_CHAIN];  /* chain velocities (1/time) */
    double ke2;                /* 2 K after the last scaling (nose_hoover) */
    int have_ke;               /* ke2 is set (after the first sum, or from a checkpoint) */
    /* npt only (barostat 1), all zero otherwise */
    int barostat;              /* the run has the barostat */
    double veps;               /* v_eps (1/time) */
    double bxi[VS_MAX_CHAIN];  /* the barostat's chain positions */
    double bvxi[VS_MAX_CHAIN]; /* and velocities */
    double box[3];             /* the box now */
    double virial;             /* W_vir of the last forces, tail included (carried) */
    int have_virial;           /* virial is set */
} vs_ensemble_state;

/* The per-particle factors of an npt half-step (from v_eps): v <- cv v + cf a, and in the
 * first half x <- cx x + cxv v (with the new v); cx also scales the box. */
typedef struct {
    double cv, cf, cx, cxv;
} vs_npt_coefs;

/* The per-particle operations of the ensembles (integrator.h) that a backend runs. */
typedef enum {
    VS_ENSEMBLE_OP_LANGEVIN_FIRST = 0,  /* O(dt/2) before the first half-kick */
    VS_ENSEMBLE_OP_LANGEVIN_SECOND = 1, /* O(dt/2) after the second half-kick */
    VS_ENSEMBLE_OP_ANDERSEN = 2         /* collisions after the second half-kick */
} vs_ensemble_op;

/* Degrees of freedom of the kinetic temperature: 3N - 3. */
double vs_ensemble_dof(const vs_params *p);
/* Zero state for p's integrator. */
void vs_ensemble_init(vs_ensemble_state *e, const vs_params *p);
/* Half a step (dt/2) of the chain from 2K = e->ke2; returns the velocity factor and leaves
 * e->ke2 scaled by its square. */
double vs_nhc_half_step(vs_ensemble_state *e, const vs_params *p);
/* E_chain of the current state. */
double vs_nhc_energy(const vs_ensemble_state *e, const vs_params *p);
/* npt: the barostat mass W; half a step of the barostat's chain (scales v_eps); half a step
 * of v_eps under G from 2K = e->ke2, e->virial and the volume; the particle factors; the
 * energy beyond K + U (P V, W v_eps^2 / 2, both chains). */
double vs_npt_mass(const vs_params *p);
void vs_npt_chain_half_step(vs_ensemble_state *e, const vs_params *p);
void vs_npt_veps_half_step(vs_ensemble_state *e, const vs_params *p, double volume);
vs_npt_coefs vs_npt_coefs_make(const vs_ensemble_state *e, const vs_params *p);
double vs_npt_energy(const vs_ensemble_state *e, const vs_params *p, double volume);

/* Berendsen's factor sqrt(1 + dt / tau (kT / T - 1)) from 2K (T = 2K / N_f); 1 at K = 0. */
double vs_berendsen_factor(const vs_params *p, double ke2);

/* Per species: Ornstein-Uhlenbeck factors of a half-step (langevin), Maxwell-Boltzmann
 * widths sqrt(kT/m), the Brownian mobility dt / (m gamma) and noise sqrt(2 kT dt / (m gamma)),
 * and Andersen's collision probability per step. */
typedef struct {
    double ou_c[VS_MAX_SPECIES], ou_sigma[VS_MAX_SPECIES];
    double mb_sigma[VS_MAX_SPECIES];
    double mobility_dt[VS_MAX_SPECIES], bd_noise[VS_MAX_SPECIES];
    double collide_p;
} vs_ensemble_consts;
void vs_ensemble_consts_make(vs_ensemble_consts *c, const vs_params *p);

#endif
