/* The ensembles in the step. integrator.kind names one ensemble kind: a table of operations
 * (vs_ensemble_kind), one file per kind in src/engine/ensembles/, listed once in the registry
 * of ensemble_step.c. The step (simulation.c) calls the kind's two halves and asks it whether
 * they may be fused; it never switches over kinds.
 *
 *   kind         first half                         second half
 *   dpd, nve     velocity Verlet (Groot-Warren)     kick
 *   nose_hoover  chain dt/2 (2K carried), v *= s,   kick, exact 2K, chain dt/2, v *= s
 *                velocity Verlet
 *   berendsen    velocity Verlet                    kick, exact 2K, v *= lambda
 *   langevin     O(dt/2), velocity Verlet           kick, O(dt/2)
 *   andersen     velocity Verlet                    kick, collisions
 *   brownian     the Brownian step                  nothing
 *   npt          barostat chain, particle chain,    v dt/2, exact 2K and virial, v_eps,
 *                v_eps, v dt/2, x and box dt        particle chain, barostat chain
 *                (ensemble.h; the box change rebuilds the ghosts and lists every step)
 * and, after the second half of every integrator.remove_com_every-th step, the centre-of-mass
 * velocity P / M (exact sums) is taken from every velocity. The dpd kind without the removal
 * runs exactly the backend's Verlet steps, as before the ensembles existed.
 *
 * A kind works through a vs_ens_ctx: the backend's table and state, the communicator, the
 * parameters and the global thermostat state (the same on every rank: it starts from exact
 * sums over all ranks), never the simulation itself, so this file and the kinds sit below
 * simulation.c. A kind that changes the box (npt) leaves the new box in e->box; the step
 * then moves the box (vs_sim_set_box) and rebuilds.
 */
#ifndef VESICA_ENSEMBLE_STEP_H
#define VESICA_ENSEMBLE_STEP_H

#include <stdint.h>

#include "backend_table.h"
#include "ensemble.h"
#include "parallel.h"
#include "params.h"
#include "thermo.h"

/* What a half-step works on. */
typedef struct {
    const vs_backend *b;         /* the backend's table */
    void *st;                    /* and its state */
    const vs_par *par;           /* every rank: exact sums, rank 0's virial */
    const vs_params *prm;
    vs_ensemble_state *e;        /* the global thermostat state (checkpointed) */
    const vs_ensemble_consts *c; /* the per-species constants of the per-particle operations */
    int64_t step;                /* the step this half belongs to */
    double tail_energy;          /* the lj tail corrections at the current box (0: none) */
    double tail_virial;
} vs_ens_ctx;

/* What a kind does to the total momentum P (the run's watch, src/app/watch.c, checks it). */
typedef enum {
    VS_MOMENTUM_FREE = 0,     /* random kicks or a moving box change it */
    VS_MOMENTUM_KEPT = 1,     /* conserved (without body forces and flow) */
    VS_MOMENTUM_DIRECTION = 2 /* every velocity scaled: P keeps its direction, not its length */
} vs_momentum_rule;

typedef struct vs_ensemble_kind {
    vs_integrator_kind kind;
    const char *name; /* its integrator.kind */
    /* the thermo columns of a run of this kind (vs_thermo.ensemble_columns): 0 none,
     * 1 conserved_energy, 2 thermostat_energy and conserved_energy, 3 those and volume */
    int columns;
    /* 1: both halves are the backend's plain Verlet steps, so a second half and the next first
     * half may run as the backend's fused step (integrate_finish_and_first_half) */
    int fusable;
    /* Optional, for a kind that is not `fusable`: its own second half and the next first half
     * in one call, where fuses_on(backend) says the backend can */
    int (*fuses_on)(const vs_backend *b);
    void (*finish_and_first_half)(const vs_ens_ctx *c);
    /* 1: the first half changes the box (e->box): the step moves it, rebuilds the ghosts and
     * lists every step, needs the virial of every step's forces, and positions keep no fixed
     * grid */
    int moves_box;
    vs_momentum_rule momentum;
    /* 1: a thermostat holds the temperature at dpd.kT (the watch checks it); 0: the
     * temperature is the initial energy's (nve) */
    int thermostat;
    void (*first_half)(const vs_ens_ctx *c);
    void (*second_half)(const vs_ens_ctx *c);
    /* the energy beyond K + U that the conserved quantity adds (the thermostats' and the
     * barostat's) at `volume` */
    double (*thermostat_energy)(const vs_ens_ctx *c, double volume);
} vs_ensemble_kind;

/* The table of integrator kind `kind` (NULL: none is registered). */
const vs_ensemble_kind *vs_ensemble_kind_of(vs_integrator_kind kind);
/* The kind's configuration name ("dpd", "nose_hoover", ...; "?" when unknown). */
const char *vs_ensemble_name(vs_integrator_kind kind);
/* The thermo columns of a run of p (vs_ensemble_kind.columns). */
int vs_ensemble_columns(const vs_params *p);

/* Set up the constants and the zero state. */
void vs_ensemble_setup(vs_ensemble_state *e, vs_ensemble_consts *c, const vs_params *p);
/* The second half of step c->step (k->second_half), then the removal of the centre-of-mass
 * velocity when due. Collective. The first half is k->first_half alone. */
void vs_ensemble_second_half(const vs_ensemble_kind *k, const vs_ens_ctx *c);
/* Whether the second half of step `step` and the next first half may run fused on backend b:
 * a fusable kind with the backend's fused step, or a kind whose own fused call b supports,
 * and no removal of the centre-of-mass velocity between them. */
int vs_ensemble_fusable(const vs_ensemble_kind *k, const vs_backend *b, const vs_params *p,
                        int64_t step);
/* That fused call (vs_ensemble_fusable said yes). */
void vs_ensemble_finish_and_first_half(const vs_ensemble_kind *k, const vs_ens_ctx *c);
/* The row's ensemble columns: the conserved energy (nve: K + U; nose_hoover: K + U + E_chain)
 * and the thermostats' energy; t->kinetic and t->potential are set. */
void vs_ensemble_thermo(const vs_ensemble_kind *k, const vs_ens_ctx *c, vs_thermo *t);

/* ---- for the kinds (src/engine/ensembles/) ---------------------------------------------- */

/* The backend's Verlet half-steps. */
void vs_ens_verlet_first(const vs_ens_ctx *c);
void vs_ens_verlet_second(const vs_ens_ctx *c);
/* The kinetic sums (VS_KINETIC_SUMS, fixed_sum.h) over all ranks from exact sums, in one
 * reduction: the same bits on every rank (every one NaN where a term was out of range).
 * Collective. */
void vs_ens_global_sums(const vs_ens_ctx *c, double out[VS_KINETIC_SUMS]);
/* 2K over all ranks from exact sums: the same bits on every rank. Collective. */
double vs_ens_global_ke2(const vs_ens_ctx *c);
/* Oriented particles: 2 K_rot (sum of I |u|^2) and their count over all ranks from exact
 * sums, the same bits on every rank (0 and 0 without them). Collective. */
void vs_ens_global_rotation(const vs_ens_ctx *c, double *ke2, double *n_oriented);
/* W_vir of the current forces with the lj tail's, rank 0's value on every rank. Collective. */
double vs_ens_global_virial(const vs_ens_ctx *c);
/* The box's volume now. */
double vs_ens_volume(const vs_ens_ctx *c);
/* E_chain of the particle chain (0 without one): the thermostat energy of the kinds without
 * a barostat. */
double vs_ens_chain_energy(const vs_ens_ctx *c, double volume);

#endif
