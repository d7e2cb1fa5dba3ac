/* Launchers of the GPU backend: a plain C interface over device-resident particle state.
 *
 * The particle data lives on the device for the whole run; the host launches the step's
 * phases and reads back only what it must: one number per step (the largest displacement, for
 * the rebuild decision), the ghost counts on rebuild steps, and the thermo and integrity sums
 * on thermo steps. One rank with a small brick and no skin reads back nothing on a step
 * without thermo (the ghosts' number stays on the device), and runs it as one CUDA graph.
 * Every CUDA call is checked; a failure is fatal with the file, line and the CUDA error. This
 * header includes no CUDA header, so src/ builds without CUDA.
 */
#ifndef VESICA_GPU_BACKEND_H
#define VESICA_GPU_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "backend_table.h"
#include "decomp.h"
#include "ensemble.h"
#include "fixed_sum.h"
#include "particles.h"
#include "params.h"

typedef struct vs_gpu_state vs_gpu_state;

/* The GPU backend's table (backend_table.h), filled in gpu_table.c from the launchers below;
 * its state (st) is a vs_gpu_state. */
extern const vs_backend vs_backend_gpu;

/* Bind device `device`, allocate for about `n_hint` owned particles of the brick [lo, hi)
 * with ghosts out to ghost_width, and bonded beads (molecules) out to bonded_width where
 * that is wider (comm/halo.h's rule). The state keeps prm (not a copy): it must outlive the
 * state, and a change of its box is announced with vs_gpu_set_box. Returns NULL with one line
 * in err on failure. */
vs_gpu_state *vs_gpu_create(const vs_params *prm, const double lo[3], const double hi[3],
                            double ghost_width, double bonded_width, int device,
                            int64_t n_hint, char *err, size_t err_len);
void vs_gpu_destroy(vs_gpu_state *g);

/* Owned state from the host (tags, species, x, v, vp, f, image, the topology with
 * molecules and the orientations of oriented particles); resets the rebuild counter
 * of the periodic Morton reorder. */
void vs_gpu_upload_owned(vs_gpu_state *g, const vs_particles *host);
/* Owned state to the host (tags, species, x, v, vp, f, image, the topology with
 * molecules and the orientations). */
void vs_gpu_download_owned(vs_gpu_state *g, vs_particles *host);

void vs_gpu_integrate_first_half(vs_gpu_state *g);
/* The previous step's second half and this step's first half in one pass. */
void vs_gpu_integrate_finish_and_first_half(vs_gpu_state *g);
/* Largest squared displacement since the last build (synchronises). */
double vs_gpu_max_displacement2(vs_gpu_state *g);
/* Attach the rank grid and choose the transport of each dimension (comm.transport);
 * `describe` receives e.g. "x peer, y self, z self". Collective. Returns 0, or non-zero with
 * one line in err (e.g. mpi-device asked of an MPI that is not CUDA-aware). */
int vs_gpu_set_comm(vs_gpu_state *g, const vs_decomp *dc, vs_transport_kind kind,
                    char *describe, size_t describe_len, char *err, size_t err_len);
/* Migration (periodic wrap where a dimension has one rank, exchange with the neighbours
 * where it is split) and the periodic Morton reordering of owned particles. Returns the number
 * of particles that left this rank. Collective. */
int64_t vs_gpu_migrate(vs_gpu_state *g, int64_t step);
/* Ghosts out to the ghost width (bonded beads: the bonded width), in three stages: border
 * detection, send lists and copies (periodic images) or packed exchanges (neighbouring
 * ranks). Collective. */
void vs_gpu_build_ghosts(vs_gpu_state *g);
/* Positions and predicted velocities of the ghosts again, through the stored send lists. */
void vs_gpu_update_ghosts(vs_gpu_state *g);
/* Bytes this rank sent in the last ghost update. */
int64_t vs_gpu_halo_bytes(const vs_gpu_state *g);
/* Cell list and neighbour list (grows its storage and retries on overflow). */
void vs_gpu_build_neighbors(vs_gpu_state *g);
void vs_gpu_forces(vs_gpu_state *g, int64_t step, int want_energy);
/* The conservative pair style `style` (vs_pair_style; gpu_pair.cu): one thread per owned
 * particle over its partners, added to the forces (or, as the first pair term when DPD is
 * inactive, starting them with the body force). */
void vs_gpu_pair_style_forces(vs_gpu_state *g, int style, int want_energy);
/* The soft anisotropic pair style (gpu_aniso.cu; prm.aniso): one thread per owned particle
 * over its partners, the forces added (or started, as the first pair term), each owned
 * particle's orientation gradient g written, energies and virials beside the pair styles'. */
void vs_gpu_aniso_forces(vs_gpu_state *g, int want_energy);
/* 1 when the ghost update can overlap the forces (comm.overlap on, some dimension split over
 * ranks, a Verlet list). */
int vs_gpu_can_overlap(const vs_gpu_state *g);
/* A non-rebuild step's ghost update and forces, overlapped: interior particles' forces run
 * while the ghosts travel, border particles' after. comm_s: wall seconds of the exchange;
 * hidden_s: how much of it ran under the interior forces. Synchronises. */
void vs_gpu_update_ghosts_and_forces(vs_gpu_state *g, int64_t step, int want_energy,
                                     double *comm_s, double *hidden_s);
/* The flow term (gpu_flow.cu): adds the driving field of prm.flow to the owned particles'
 * forces, in whichever form the force arrays hold them (doubles or fixed-point sums). */
void vs_gpu_flow_forces(vs_gpu_state *g);
/* The wall term (gpu_wall.cu): adds the wall force of prm.boundary (wall.h) to the owned
 * particles within its range of a wall. */
void vs_gpu_wall_forces(vs_gpu_state *g);
/* The particle-field term (gpu_field.cu; prm.field, src/core/field_grid.h): the field forces
 * added to the owned particles of the field species, the fields recomputed first at the
 * multiples of field.interval and after an upload; with want_energy this rank's W of the
 * current positions, which vs_gpu_field_energy returns (1 where a vertex's share was out of
 * range). Collective (the grid's halo exchange). */
void vs_gpu_field_forces(vs_gpu_state *g, int64_t step, int want_energy);
int vs_gpu_field_energy(vs_gpu_state *g, vs_wide *w);
/* The backend table's field_phi (a frame of fields.h5): phi_K on the owned vertices. */
void vs_gpu_field_phi(vs_gpu_state *g, double *out);
/* The bonded terms (gpu_bonded.cu; configurations with molecules): each owned bead's bond
 * (angle, dihedral) forces added to its force, in whichever form the force arrays hold
 * them, and its share of the energy and virial when want_energy is set. A failure (a missing
 * partner, a FENE bond at R0, a bond beyond the bonded reach) stops the run at the next
 * read-back with the CPU's message and this step. */
void vs_gpu_bond_forces(vs_gpu_state *g, int64_t step, int want_energy);
void vs_gpu_angle_forces(vs_gpu_state *g, int64_t step, int want_energy);
void vs_gpu_dihedral_forces(vs_gpu_state *g, int64_t step, int want_energy);
/* One binned profile sample of the owned particles (gpu_profile.cu), reduced on the device
 * in fixed point (order-independent integer adds) and read back as bins only; layout as
 * vs_cpu_profile_sums. Synchronises. */
void vs_gpu_profile_sums(vs_gpu_state *g, int axis, int bins, int per_species, int64_t *out);
void vs_gpu_integrate_second_half(vs_gpu_state *g);
/* The ensembles (gpu_ensemble.cu, gpu_integrate.cu; src/engine/ensemble_step.h): a
 * per-particle operation (op: vs_ensemble_op) at `step`, the Brownian step in place of the
 * first half, v *= s, v -= dv, and the exact local kinetic sums (VS_KINETIC_SUMS: m v,
 * m v^2 / 2, m, and the oriented particles' I |u|^2 / 2 and count, in one pass and one
 * read-back; returns 1 when a term was out of range; synchronises). */
void vs_gpu_ensemble_op(vs_gpu_state *g, int op, int64_t step, const vs_ensemble_consts *c);
void vs_gpu_brownian_step(vs_gpu_state *g, int64_t step, const vs_ensemble_consts *c);
void vs_gpu_scale_velocities(vs_gpu_state *g, double s);
void vs_gpu_shift_velocities(vs_gpu_state *g, const double dv[3]);
int vs_gpu_kinetic_sums(vs_gpu_state *g, vs_wide out[VS_KINETIC_SUMS]);
/* Oriented particles (gpu_aniso.cu): u *= s (a no-op without them). */
void vs_gpu_scale_rotation(vs_gpu_state *g, double s);
/* Berendsen's second half on the device (backend_table.h's berendsen_half_steps). */
void vs_gpu_berendsen_half_steps(vs_gpu_state *g, int with_first_half, double dof,
                                 void (*sum)(const void *ctx, vs_wide *w, int n),
                                 const void *sum_ctx);
/* Langevin's second half of `step` and the next first half in one pass (backend_table.h's
 * langevin_half_steps; gpu_integrate.cu). */
void vs_gpu_langevin_half_steps(vs_gpu_state *g, int64_t step, const vs_ensemble_consts *c);
/* npt (gpu_ensemble.cu): a half-step of the barostat-coupled velocities (and positions in
 * the first); the new box and brick (gpu_state.cu): the fixed-point frame, the cell grid and
 * the periodic images follow, the owned particles' staged inputs become stale. box is the
 * parameters' box (the one vs_gpu_create was given), already changed. */
void vs_gpu_npt_half(vs_gpu_state *g, const vs_npt_coefs *c, int first);
void vs_gpu_set_box(vs_gpu_state *g, const double box[3], const double lo[3],
                    const double hi[3]);

/* Local thermo sums, exact (fixed_sum.h), in the order of VS_EXACT_* (observables.h): px,
 * py, pz, kinetic, pair potential, virial (all terms), bond, angle and dihedral energies (the
 * last three 0 without molecules). Non-zero when a contribution was out of range (a blown-up
 * run). Synchronises. */
int vs_gpu_thermo(vs_gpu_state *g, vs_wide out[9]);
/* output.pressure_tensor (gpu_tensor.cu): a force evaluation starts (want: VS_WANT_*; with
 * VS_WANT_TENSOR the particles' virial tensor sums are zeroed for its terms to add to); and,
 * where the run asks for the tensor, this rank's sums of the last evaluation into out's
 * tensor members (sum m v_a v_b and the virial shares, exact; tensor_invalid where a share
 * was out of range). Synchronises. */
void vs_gpu_tensor_begin(vs_gpu_state *g, int want);
void vs_gpu_tensor_local(vs_gpu_state *g, vs_thermo_local *out);
/* Local integrity sums: count, tag sum, squared tag sum; tag of a non-finite particle. */
void vs_gpu_integrity(vs_gpu_state *g, uint64_t sums[3], int64_t *bad_tag);

/* Phase timing on the device clock: a phase boundary (the phase queued so far ends, `phase`
 * starts; -1: none) puts one mark in the stream (a clock-stamping kernel at one rank, an
 * event across ranks) and returns at once; settle waits for the marked work and adds the
 * seconds of each finished phase times its mark's weight (the steps it stands for), per id
 * (below 16), to seconds[0 .. n_phases). */
void vs_gpu_phase_mark(vs_gpu_state *g, int phase, double weight);
void vs_gpu_phase_settle(vs_gpu_state *g, double *seconds, int n_phases);

/* The step as one CUDA graph (gpu_graph.cu): begin returns 1 when this step's `part`
 * (VS_COLLECT_*) qualifies (one rank, the ghosts' number on the device, no energies due, no
 * reorder due; the caller knows the energies) and its work is being captured; end launches
 * it. counts: the parts launched as graphs, per part, and the executable graphs made, for
 * the log. */
int vs_gpu_graph_begin(vs_gpu_state *g, int part);
void vs_gpu_graph_end(vs_gpu_state *g);
void vs_gpu_graph_counts(const vs_gpu_state *g, int64_t launched[VS_COLLECT_PARTS],
                         int64_t *made);

/* Wait for all work queued on this state's stream. */
void vs_gpu_synchronize(vs_gpu_state *g);
/* The owned particles' number on the host again where the slab path kept it on the device
 * from its migration on (gpu_slab.cu): every launcher outside the step's exchange and forces
 * calls it first (the table does, gpu_table.c). */
void vs_gpu_settle_owned(vs_gpu_state *g);
int64_t vs_gpu_n_owned(vs_gpu_state *g);
int64_t vs_gpu_n_ghost(vs_gpu_state *g); /* waits where the number is on the device */
/* Device bytes allocated by this state. */
size_t vs_gpu_memory_bytes(const vs_gpu_state *g);
/* Device description for logs: "NVIDIA H100 80GB HBM3 (GPU-uuid)". */
void vs_gpu_describe(const vs_gpu_state *g, char *buf, size_t len);
/* The strategy decided at set-up, for the log and perf.json, e.g. "mixed precision, cell-list
 * Newton forces (x reach 2), first half-step stages force inputs, overlap: remote ghosts
 * apart". Complete after vs_gpu_set_comm (the overlap mode needs the rank grid). */
void vs_gpu_plan_describe(const vs_gpu_state *g, char *buf, size_t len);

/* Test hook: the pair random bits and both xi variants evaluated on the device for pairs
 * (tag_a[k], tag_b[k]) at (seed, step). */
int vs_gpu_selftest_pair_bits(uint64_t seed, uint64_t step, int n, const uint64_t *tag_a,
                              const uint64_t *tag_b, uint32_t *bits, double *xi_uniform,
                              double *xi_gauss);

#endif
