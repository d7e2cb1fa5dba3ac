/* A backend is a table of the step's phases, chosen at run time.
 *
 * `cpu` is the double-precision reference that CI runs on many MPI ranks. `gpu` runs the whole
 * step on the device, one GPU per rank (node-local rank modulo the visible devices), with the
 * halo traffic from device memory. `backend = "auto"` picks `gpu` when it is compiled in and a
 * device is usable, else `cpu`.
 */
#ifndef VESICA_BACKEND_H
#define VESICA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "ensemble.h"
#include "fixed_sum.h"
#include "params.h"
#include "thermo.h"

struct vs_sim;
struct vs_term_type;

typedef struct vs_backend {
    const char *name;
    const char *memory_kind; /* where memory_bytes lives: "host" or "device" */
    /* Create this backend's state (sim->backend_state) and take over the initial state in
     * sim->parts (the GPU backend uploads it); describe the plan in sim->plan. Returns 0, or
     * non-zero with one line in err. */
    int (*attach)(struct vs_sim *sim, char *err, size_t err_len);
    void (*detach)(struct vs_sim *sim);
    void (*integrate_first_half)(struct vs_sim *sim);
    void (*integrate_second_half)(struct vs_sim *sim);
    /* Optional (NULL where absent): the previous step's second half and this step's first
     * half in one pass, with the results of the two calls. */
    void (*integrate_finish_and_first_half)(struct vs_sim *sim);
    double (*max_displacement2)(struct vs_sim *sim); /* this rank's largest, squared */
    /* The ensembles (src/engine/ensemble.c; integrator.kind other than dpd and nve): their
     * per-particle operations of src/core/integrator.h at `step` (op: vs_ensemble_op of
     * src/core/ensemble.h), the Brownian step in place of the first half, velocities scaled
     * and shifted, and the exact local sums of m v (3), m v^2 / 2 and m (fixed_sum.h; returns
     * 1 when a term was out of range). */
    void (*ensemble_op)(struct vs_sim *sim, int op, int64_t step);
    void (*brownian_step)(struct vs_sim *sim, int64_t step);
    void (*scale_velocities)(struct vs_sim *sim, double s);
    void (*shift_velocities)(struct vs_sim *sim, const double dv[3]);
    int (*momentum_sums)(struct vs_sim *sim, vs_wide out[5]);
    /* npt (src/engine/ensemble_step.c): a half-step of the barostat-coupled velocities and,
     * in the first half, positions (vs_integrate_npt's arithmetic, integrator.h); and the
     * box changed (sim->prm.system.box and sim->dc already hold the new one): bring everything the
     * backend derived from it up to date. The caller rebuilds the ghosts and lists next. */
    void (*npt_half)(struct vs_sim *sim, const vs_npt_coefs *c, int first);
    void (*set_box)(struct vs_sim *sim);
    int64_t (*migrate)(struct vs_sim *sim);
    void (*build_ghosts)(struct vs_sim *sim);
    void (*update_ghosts)(struct vs_sim *sim);
    void (*build_neighbors)(struct vs_sim *sim);
    /* Start a force evaluation (forcefield.h: forces from the constant body force, sums
     * zero); then each term of the force field adds its forces at `step` through
     * term_forces. Energy and virial are needed only when sim->energy_due is set. */
    void (*forces_begin)(struct vs_sim *sim);
    void (*term_forces)(struct vs_sim *sim, const struct vs_term_type *term, int64_t step);
    /* Optional (NULL where absent): end the force evaluation after the last term (CPU: the
     * fixed-point force sums become the forces). */
    void (*forces_end)(struct vs_sim *sim, int64_t step);
    /* Optional (NULL where absent): whether a step that reuses the neighbour list can overlap
     * its ghost update with the forces of `term`, and that step's ghost update and the
     * term's forces, overlapped. comm_s: seconds of communication; hidden_s: how many of
     * them ran under force work. */
    int (*can_overlap)(struct vs_sim *sim, const struct vs_term_type *term);
    void (*update_ghosts_and_term_forces)(struct vs_sim *sim, const struct vs_term_type *term,
                                          int64_t step, double *comm_s, double *hidden_s);
    /* Bytes this rank sent in the last ghost update. */
    int64_t (*halo_bytes)(struct vs_sim *sim);
    void (*local_thermo)(struct vs_sim *sim, vs_thermo_local *out);
    void (*local_integrity)(struct vs_sim *sim, vs_integrity_local *out);
    /* Bytes of memory this rank's backend holds for particle state and lists (device memory
     * on the GPU backend). */
    double (*memory_bytes)(struct vs_sim *sim);
    /* Wait for queued device work (CPU: no-op). */
    void (*sync)(struct vs_sim *sim);
    /* Optional (NULL: phases are timed by the wall clock): phase timing on the device's own
     * clock. A mark (the open phase ends, `phase` starts; -1: none) returns at once, so the
     * device's queue never runs dry at a phase boundary; settle waits for the marked work
     * and adds each finished phase's seconds to sim->timers. */
    void (*phase_mark)(struct vs_sim *sim, int phase);
    void (*phase_settle)(struct vs_sim *sim);
    /* Optional (NULL: never): a step whose work nothing on the host waits for, queued as one
     * unit. begin returns 1 when the backend takes this step so (it then collects what the
     * step queues), 0 when it runs as usual; end queues what was collected. */
    int (*step_collect_begin)(struct vs_sim *sim);
    void (*step_collect_end)(struct vs_sim *sim);
    /* One binned profile sample of this rank's owned particles at the finished step (the
     * integers of src/core/profile_bin.h, per set and bin: see vs_cpu_profile_sums); only
     * the bin sums leave the backend. */
    void (*profile_sums)(struct vs_sim *sim, int axis, int bins, int per_species,
                         int64_t *out);
    /* Bring the owned particle state into sim->parts (a no-op where it lives there). */
    void (*sync_host)(struct vs_sim *sim);
    /* Take back owned state that was changed in sim->parts (x, v, vp, f, image, tag,
     * species) and forget every order-dependent counter, as at attach: the canonical
     * re-start after a checkpoint and a restart (CPU: a no-op, the state lives there). */
    void (*reload)(struct vs_sim *sim);
} vs_backend;

extern const vs_backend vs_backend_cpu;
#ifdef VESICA_HAVE_CUDA
extern const vs_backend vs_backend_gpu;
#endif

/* Resolve the configured backend. Returns NULL with one line in err when it cannot run here.
 * `device` receives a description of what will run ("cpu: <model>", "gpu: <name>"). */
const vs_backend *vs_backend_select(vs_backend_kind kind, int n_ranks, char *device,
                                    size_t device_len, char *err, size_t err_len);

#endif
