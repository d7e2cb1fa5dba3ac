/* A backend is a table of the step's phases, chosen at run time; each backend fills its own
 * (vs_backend_cpu in src/cpu/cpu_backend.c, vs_backend_gpu in gpu/gpu_table.c) and the engine
 * reaches it only through the table (src/engine/backend.h selects one).
 *
 * The table sits in core so that the backends, below the engine, can fill it: its operations
 * take the backend's own state (`st`, what attach made: vs_cpu_state, vs_gpu_state) and, as
 * arguments, the few things of the engine they need, never the simulation itself. The force
 * terms are not in the table: a term holds one function per backend (src/engine/forcefield.h)
 * and the step calls the running backend's.
 *
 * `cpu` is the double-precision reference that CI runs on many MPI ranks. `gpu` runs the whole
 * step on the device, one GPU per rank (node-local rank modulo the visible devices), with the
 * halo traffic from device memory.
 */
#ifndef VESICA_BACKEND_TABLE_H
#define VESICA_BACKEND_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "ensemble.h"
#include "fixed_sum.h"
#include "observables.h"
#include "params.h"
#include "particles.h"

struct vs_decomp; /* comm/decomp.h */

/* What a backend starts from (attach). The pointers stay valid and current for the whole
 * run: prm and dc change in place when npt moves the box (set_box tells the backend). */
typedef struct {
    const vs_params *prm;
    const struct vs_decomp *dc; /* the rank grid and this rank's brick */
    vs_particles *parts;        /* the host particles, the initial state */
    double list_radius;         /* of the neighbour lists and the ghost shell */
    double bonded_width;        /* ghost width of bonded beads, 0 without molecules */
    char *device;               /* "cpu: <model>", "gpu: <name>": the backend may refine it */
    size_t device_len;
    char *plan;                 /* receives how the backend runs the step (log, perf.json) */
    size_t plan_len;
} vs_backend_setup;

/* The parts of a step a backend may collect as one unit (step_collect_begin). */
enum {
    VS_COLLECT_STEP = 0,            /* a whole step */
    VS_COLLECT_BEFORE_REACTION = 1, /* a reaction step up to the rebuild its events see */
    VS_COLLECT_AFTER_REACTION = 2,  /* its rebuild after the events, and its forces */
    VS_COLLECT_PARTS = 3
};

typedef struct vs_backend {
    const char *name;
    const char *memory_kind; /* where memory_bytes lives: "host" or "device" */
    /* Create this backend's state in *st and take over the initial state in setup->parts
     * (the GPU backend uploads it); describe the plan. Collective. Returns 0, or non-zero on
     * every rank with one line in err where it failed (*st may then hold a state to detach). */
    int (*attach)(const vs_backend_setup *setup, void **st, char *err, size_t err_len);
    void (*detach)(void *st);
    void (*integrate_first_half)(void *st);
    void (*integrate_second_half)(void *st);
    /* Optional (NULL where absent): the previous step's second half and this step's first
     * half in one pass, with the results of the two calls. */
    void (*integrate_finish_and_first_half)(void *st);
    double (*max_displacement2)(void *st); /* this rank's largest, squared */
    /* The ensembles (src/engine/ensemble_step.h): their per-particle operations of
     * src/core/integrator.h at `step` (op: vs_ensemble_op), the Brownian step in place of the
     * first half, velocities scaled and shifted, and the exact local kinetic sums
     * (VS_KINETIC_SUMS, fixed_sum.h: m v, m v^2 / 2, m, and the oriented particles'
     * I |u|^2 / 2 and count; returns 1 when a term was out of range). */
    void (*ensemble_op)(void *st, int op, int64_t step, const vs_ensemble_consts *c);
    void (*brownian_step)(void *st, int64_t step, const vs_ensemble_consts *c);
    void (*scale_velocities)(void *st, double s);
    void (*shift_velocities)(void *st, const double dv[3]);
    int (*kinetic_sums)(void *st, vs_wide out[VS_KINETIC_SUMS]);
    /* Oriented particles: every u scaled by s. */
    void (*scale_rotation)(void *st, double s);
    /* Optional: Berendsen's second half where the velocities live, so that no sum need come
     * back: the kick, the exact kinetic sums of the kicked v and u (VS_KINETIC_SUMS and the
     * out-of-range flag, added over the ranks by `sum` unless it is NULL: one rank), the
     * factors vs_berendsen_scale gives from them (dof: the translational degrees of freedom),
     * and v and u scaled; with_first_half: the next step's first half in the same passes. */
    void (*berendsen_half_steps)(void *st, int with_first_half, double dof,
                                 void (*sum)(const void *ctx, vs_wide *w, int n),
                                 const void *sum_ctx);
    /* Optional: langevin's second half of `step` (kick, O(dt/2) of stream
     * VS_STREAM_LANGEVIN_SECOND) and the next step's first half (O(dt/2) of
     * VS_STREAM_LANGEVIN_FIRST at step + 1, velocity Verlet) in one pass, with the results of
     * integrate_second_half, two ensemble_op calls and integrate_first_half. */
    void (*langevin_half_steps)(void *st, int64_t step, const vs_ensemble_consts *c);
    /* npt: a half-step of the barostat-coupled velocities and, in the first half, positions
     * (vs_integrate_npt's arithmetic, integrator.h); and the box changed (the setup's prm
     * and dc already hold the new one, box and brick [lo, hi)): bring everything the backend
     * derived from it up to date. The caller rebuilds the ghosts and lists next. */
    void (*npt_half)(void *st, const vs_npt_coefs *c, int first);
    void (*set_box)(void *st, const double box[3], const double lo[3], const double hi[3]);
    int64_t (*migrate)(void *st, int64_t step);
    void (*build_ghosts)(void *st);
    void (*update_ghosts)(void *st);
    void (*build_neighbors)(void *st);
    /* Start a force evaluation (forcefield.h: forces from the constant body force, sums
     * zero); each term of the force field then adds its forces. want: what the terms are
     * asked for besides forces (VS_WANT_*, observables.h). */
    void (*forces_begin)(void *st, int want);
    /* Optional (NULL where absent): end the force evaluation after the last term (CPU: the
     * fixed-point force sums become the forces). */
    void (*forces_end)(void *st, int64_t step);
    /* Optional (NULL: never): whether a step that reuses the neighbour list can run its
     * ghost update under the forces of a term that has an overlapped form (the term's
     * gpu_overlapped, forcefield.h). */
    int (*can_overlap)(void *st);
    /* Bytes this rank sent in the last ghost update. */
    int64_t (*halo_bytes)(void *st);
    void (*local_thermo)(void *st, vs_thermo_local *out);
    void (*local_integrity)(void *st, vs_integrity_local *out);
    /* Bytes of memory this rank's backend holds for particle state and lists (device memory
     * on the GPU backend). */
    double (*memory_bytes)(void *st);
    /* Wait for queued device work (CPU: no-op). */
    void (*sync)(void *st);
    /* Optional (NULL: phases are timed by the wall clock): phase timing on the device's own
     * clock. A mark (the open phase ends, `phase` starts; -1: none) returns at once, so the
     * device's queue never runs dry at a phase boundary; settle waits for the marked work
     * and adds each finished phase's seconds, times the weight of the mark that started it
     * (the steps it stands for: output.timing_every), to seconds[0 .. n_phases). */
    void (*phase_mark)(void *st, int phase, double weight);
    void (*phase_settle)(void *st, double *seconds, int n_phases);
    /* Optional (NULL: never): a step whose work nothing on the host waits for, queued as one
     * unit (a reaction step as two: VS_COLLECT_*). begin returns 1 when the backend takes
     * this part so (it then collects what the step queues), 0 when it runs as usual; end
     * queues what was collected. */
    int (*step_collect_begin)(void *st, int part);
    void (*step_collect_end)(void *st);
    /* One binned profile sample of this rank's owned particles at the finished step (the
     * integers of src/core/profile_bin.h, per set and bin: see vs_cpu_profile_sums); only
     * the bin sums leave the backend. */
    void (*profile_sums)(void *st, int axis, int bins, int per_species, int64_t *out);
    /* Optional (NULL: the backend has no field term): the density fractions phi_K of the
     * field species at the current positions on this rank's owned grid vertices (the
     * split of vs_field_owned, src/core/field_grid.h), species after species, x fastest,
     * into out (field.n times the owned vertices); the same bits on any rank count.
     * Collective (the halo's counts travel to their owners). */
    void (*field_phi)(void *st, double *out);
    /* Bring the owned particle state into `host` (a no-op where it lives there). */
    void (*sync_host)(void *st, vs_particles *host);
    /* Take back owned state that was changed in `host` (x, v, vp, f, image, tag, species)
     * and forget every order-dependent counter, as at attach: the canonical re-start after
     * a checkpoint and a restart (CPU: a no-op, the state lives there). */
    void (*reload)(void *st, const vs_particles *host);
} vs_backend;

#endif
