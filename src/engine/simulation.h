/* The simulation: state of one rank and the time step, the same on every backend.
 *
 * One step: integrate half -> (rebuild? migrate + ghosts + neighbour list : ghost update)
 * -> [a reaction step, which forces the rebuild: reactions.h] -> forces (each term of the
 * force field, forcefield.h) -> integrate second half. The
 * backend's table (backend_table.h) supplies each phase and the ensemble kind's table
 * (ensemble_step.h) the two halves; this file owns the order, the rebuild decision (any
 * rank's particle moved more than half the skin: all ranks rebuild together) and the
 * timers.
 */
#ifndef VESICA_SIMULATION_H
#define VESICA_SIMULATION_H

#include <stddef.h>
#include <stdint.h>

#include "decomp.h"
#include "ensemble.h"
#include "forcefield.h"
#include "parallel.h"
#include "params.h"
#include "particles.h"
#include "reactions.h"
#include "thermo.h"
#include "timer.h"

struct vs_backend;
struct vs_ensemble_kind;

typedef struct vs_sim {
    vs_params prm;
    vs_decomp dc;            /* the rank grid and this rank's brick (communicator inside) */
    vs_particles parts;      /* host particles: the CPU backend's working state, the GPU
                                backend's staging for start, restart and records */
    vs_forcefield ff;        /* the force terms the step asks for forces */
    vs_timers timers;
    int phase_open;          /* the timed phase running now (a vs_timer_id), -1: none */
    double phase_weight;     /* device marks: the steps a mark stands for now; 0 = unmarked */
    const struct vs_backend *backend;
    double list_radius;      /* of the neighbour lists and the ghost shell: the pair terms'
                                largest cut-off + skin (vs_list_radius) */
    double bonded_width;     /* molecules: ghost width of bonded beads (the bonded terms'
                                reach + skin), 0 without molecules */
    double volume_limit;     /* npt: the largest box volume a run may reach (vs_sim_set_box) */
    int64_t step;            /* steps completed since the start of the run */
    int64_t n_builds;        /* neighbour-list builds, the initial one included */
    int64_t n_dangerous;     /* builds where some particle had moved more than the full skin */
    int energy_due;          /* what the next force evaluation must produce besides the
                                forces: VS_WANT_* (energy and virial; the virial tensor) */
    int second_half_pending; /* the last step's second half-step is not done yet (it runs
                                with the next step's first half, or when the state is read) */
    double comm_hidden_s;    /* communication time that ran under force work (overlap) */
    double tail_energy;      /* lj tail corrections of the whole system (pair_setup.h), */
    double tail_virial;      /* set at the start from the species counts; 0: none */
    int64_t species_count[VS_MAX_SPECIES]; /* global, for the tail of a changed volume */
    const struct vs_ensemble_kind *ensemble; /* integrator.kind's table (ensemble_step.h) */
    vs_ensemble_state ens;   /* the thermostat's global state (ensemble.h; checkpointed) */
    vs_ensemble_consts ens_c; /* the ensemble's per-species constants */
    vs_reactions rx;         /* reactions (reactions.h): counters and scratch; off when
                                prm.reactions.on is 0 */
    void *backend_state;     /* the backend's own state (vs_cpu_state, vs_gpu_state) */
    char device[256];        /* what runs the backend: "cpu: <model>", "gpu: <name>" */
    char plan[256];          /* how the backend runs the step, decided once at attach
                                (logged at the start, written into perf.json) */
} vs_sim;

/* Everything a thermo row of this run reads: energy and virial, and the virial tensor where
 * output.pressure_tensor asks for it (the energy_due of a step with a row). */
static inline int vs_sim_want_all(const vs_sim *sim)
{
    return VS_WANT_ENERGY | (sim->prm.output.pressure_tensor ? VS_WANT_TENSOR : 0);
}

/* Decompose the box over `comm`, pick the backend. Collective. Returns 0, or
 * VS_EXIT_BAD_INPUT with one line in err (same verdict on every rank). */
int vs_sim_create(vs_sim *sim, const vs_params *prm, MPI_Comm comm, char *err,
                  size_t err_len);
/* Initial particles, ghosts, neighbour list and the forces at step 0. Returns 0, or non-zero
 * with one line in err when the backend cannot take the state (e.g. device memory). */
int vs_sim_start(vs_sim *sim, char *err, size_t err_len);
/* Restart from a checkpoint: this rank's share of the state as records (any subset; they go
 * to their owners by position), at `step`. The stored forces are kept: no force evaluation
 * before the first step, exactly as in the run that wrote the checkpoint (see
 * vs_sim_canonicalize). Frees nothing; returns like vs_sim_start. Collective. */
/* ext: the optional records, one of each kind present per record: topology (molecules),
 * dihedrals and special-neighbour lists; topology and lists must be present exactly when the
 * configuration has them (dihedral records are made empty or dropped as the run needs).
 * ext NULL: none (a plain fluid). */
int vs_sim_start_from_records(vs_sim *sim, vs_particle_rec *recs, const vs_particle_ext *ext,
                              int64_t n, int64_t step, char *err, size_t err_len);
/* A new run from a system read from a file (io/input_system.h): this rank's share of its
 * records (any subset: they go to their owners by position), with topology records (or NULL
 * for a plain fluid), dihedral records (NULL: none) and special-neighbour lists (special; where the configuration asks for
 * them and none are given they are made here from the records' bonds, which must then hold
 * whole molecules: rank 0 has the whole file). With draw_velocities the file had none: Maxwell-Boltzmann velocities
 * at k_B T from the seed. orient: the file's orientations (NULL: none; a configuration with
 * oriented species then draws them from the seed, and their rates with the velocities).
 * Then as vs_sim_start: forces at step 0. Collective. */
int vs_sim_start_from_system(vs_sim *sim, vs_particle_rec *recs, const vs_topo *topo,
                             const vs_dihedrals *dih, const vs_special *special,
                             const vs_orient *orient, int64_t n, int draw_velocities,
                             char *err, size_t err_len);
/* Bring the run into the canonical state a restart from this point would have: owned state
 * to the host, every particle to the owner of its position (wrapped into the box), each
 * rank's particles in tag order, back to the backend, ghosts and neighbour list rebuilt.
 * Forces are kept. Force sums follow the order of particles in memory, which depends on the
 * run's history; after this call it depends only on the state, so a run that continues and
 * a run restarted from a checkpoint written at this step are bit-identical from here on.
 * Collective. */
void vs_sim_canonicalize(vs_sim *sim);
/* This rank's owned particles on the host, current (the step finished, downloaded first
 * where the backend keeps them on a device); valid until the next step. */
const vs_particles *vs_sim_owned_particles(vs_sim *sim);
/* The same as records; malloc'd, length in *n. */
vs_particle_rec *vs_sim_owned_records(vs_sim *sim, int64_t *n);
/* Their optional records in the same order (malloc'd; NULL where the run has none). */
void vs_sim_owned_ext(vs_sim *sim, vs_particle_ext *out);
/* Whether the device marks the phases of `step` when one step in `every` is marked: one
 * step of each block of `every` (steps k * every to k * every + every - 1), at a place drawn
 * by a hash of k, so that a run's marked steps are its steps / every to within one, no
 * output interval lines up with them, and every rank marks the same ones. */
int vs_sim_step_marked(int64_t every, int64_t step);
/* Advance one step. Its second half-step is left pending: the next step runs it fused with
 * its own first half. Everything that reads the state (thermo, integrity, records,
 * canonicalize) finishes it first; call vs_sim_finish_step before reading it otherwise. */
void vs_sim_step(vs_sim *sim);
/* Run the pending second half-step, if any. */
void vs_sim_finish_step(vs_sim *sim);
/* Bring sim->timers up to date: phases timed on a device's clock are read back (this waits
 * for the device). Call before reading the timers. */
void vs_sim_settle_timers(vs_sim *sim);
/* npt: the box is now `box` (the same bits on every rank): the bricks, the lj tail
 * corrections and the backend (when attached) follow it; the caller rebuilds the ghosts and
 * lists. A brick thinner than the ghost shell stops the run (exit 1, one line). */
void vs_sim_set_box(vs_sim *sim, const double box[3]);
/* Thermo row of the current state. Collective. */
void vs_sim_thermo(vs_sim *sim, vs_thermo *out);
/* Particle count, tag checksum, finite state (see vs_integrity_verify). Collective. */
int vs_sim_check_integrity(vs_sim *sim);
void vs_sim_destroy(vs_sim *sim);

#endif
