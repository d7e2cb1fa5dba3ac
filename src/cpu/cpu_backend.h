/* The CPU reference backend: double precision, any number of MPI ranks, the particles in
 * host memory.
 *
 * Its state (vs_cpu_state) is the host particle arrays of the engine, worked on in place, plus
 * what only this backend keeps: the ghost send lists (comm/halo.h), the cell and Verlet lists
 * (neighbor.h) and the energy and virial of the last force evaluation. The engine reaches it
 * through the table it fills (vs_backend_cpu, backend_table.h); force terms reach it through
 * their CPU loops (vs_cpu_dpd_forces for DPD). Each step's phases are plain loops: this
 * backend is the one the GPU must agree with.
 */
#ifndef VESICA_CPU_BACKEND_H
#define VESICA_CPU_BACKEND_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "backend_table.h"
#include "decomp.h"
#include "dpd_pair.h"
#include "fixed_sum.h"
#include "halo.h"
#include "neighbor.h"
#include "observables.h"
#include "params.h"
#include "particles.h"
#include "reaction.h"

typedef struct vs_cpu_state {
    const vs_params *prm;
    const vs_decomp *dc;
    vs_particles *parts;  /* the engine's host particles, owned then ghosts */
    double list_radius;   /* the lists' radius and the ghost shell's width (vs_list_radius) */
    vs_halo halo;
    vs_neighbor nl;
    vs_dpd_consts dpd;
    vs_dpd_pair_table dpd_pair; /* gamma_ij and sigma_ij / sqrt(dt) per species pair */
    vs_force_sums sums;   /* energy and virial of the last force evaluation */
    vs_tagmap tagmap;     /* molecules: tag -> index of bonded owned beads and ghosts */
    /* The owned particles' forces while the terms add them: fixed-point sums (fixed_sum.h),
     * so that a force does not depend on the order of its contributions; the table's
     * forces_end turns them into parts->f. */
    int64_t *fq[3];
    int64_t *gq[3];       /* oriented particles: the orientation gradients' sums, as fq
                           * (NULL without orientations); forces_end writes orient[i].g */
    uint8_t *fq_bad;      /* a particle with a contribution that is not finite or too large */
    int64_t fq_capacity;
    int any_bad;          /* some fq_bad is set */
    uint64_t fq_overflow; /* sign bit: a sum left the fixed-point range */
    /* output.pressure_tensor: the owned particles' shares of the virial tensor of the last
     * evaluation that asked for it (VS_WANT_TENSOR), fixed point (observables.h), in the
     * order of VS_T_*; zero after one that did not. wq_overflow: sign bit, a sum left
     * int64; wq_bad: a share was not finite or beyond VS_TENSOR_LIMIT (the tensor is NaN). */
    int64_t *wq[VS_TENSOR];
    uint64_t wq_overflow;
    int wq_bad;
    struct vs_field_cpu *field; /* the particle-field term's grid (field_cpu.c; NULL: none) */
    vs_wide field_energy;       /* its W on this rank's vertices, at the last energy step */
} vs_cpu_state;

/* The CPU backend's table (backend_table.h), filled in cpu_backend.c: attach makes the
 * state over the engine's host particles, and each phase is a loop over them. A force
 * evaluation: forces_begin sets every owned particle's force to its species' constant body
 * force and the energy and virial sums to zero; the terms then add theirs (to s->fq, through
 * vs_cpu_add_force), and forces_end writes the forces to parts->f: the force of a particle
 * with a contribution that is not finite or beyond VS_FIXED_FORCE_LIMIT is NaN (the integrity
 * check reports it); a sum beyond the fixed-point range stops the run (exit 1). */
extern const vs_backend vs_backend_cpu;

/* This rank's share of the integrity check over host particles (thermo.h). */
void vs_cpu_integrity_local(const vs_particles *p, vs_integrity_local *out);

/* Add the force (gx, gy, gz) to owned particle i's fixed-point sums, each component rounded
 * once (the bonded and flow terms; the pair loops use vs_cpu_pair_add for their +q, -q). */
void vs_cpu_mark_bad(vs_cpu_state *s, int64_t i);
static inline void vs_cpu_add_force(vs_cpu_state *s, int64_t i, double gx, double gy,
                                    double gz)
{
    if (!(vs_fixed_force_ok(gx) && vs_fixed_force_ok(gy) && vs_fixed_force_ok(gz))) {
        vs_cpu_mark_bad(s, i);
        return;
    }
    vs_fixed_add(&s->fq[0][i], vs_fixed_force(gx), &s->fq_overflow);
    vs_fixed_add(&s->fq[1][i], vs_fixed_force(gy), &s->fq_overflow);
    vs_fixed_add(&s->fq[2][i], vs_fixed_force(gz), &s->fq_overflow);
}
/* Add e to an energy or virial sum (out of range: the sums are marked invalid). */
static inline void vs_cpu_add_wide(vs_force_sums *sums, vs_wide *sum, double e)
{
    if (vs_wide_ok(e))
        *sum += vs_wide_from_double(e);
    else
        sums->out_of_range = 1;
}
/* Add the share t (in the order of VS_T_*) of a virial tensor to owned particle i, each
 * component rounded once (output.pressure_tensor, on evaluations with VS_WANT_TENSOR). */
static inline void vs_cpu_add_tensor(vs_cpu_state *s, int64_t i, const double t[VS_TENSOR])
{
    for (int k = 0; k < VS_TENSOR; ++k) {
        if (!(fabs(t[k]) < VS_TENSOR_LIMIT)) {
            s->wq_bad = 1;
            return;
        }
        vs_fixed_add(&s->wq[k][i], (int64_t)llrint(t[k] * VS_TENSOR_QUANTUM), &s->wq_overflow);
    }
}
/* The tensor of a force g acting along the separation d, times `share`: share g_a d_b. */
static inline void vs_tensor_of(double share, const double g[3], const double d[3],
                                double t[VS_TENSOR])
{
    for (int k = 0; k < VS_TENSOR; ++k)
        t[k] = share * (g[vs_tensor_axes[k][0]] * d[vs_tensor_axes[k][1]]);
}
/* The DPD pair term (dpd_cpu.c): adds the pair forces at `step` (which keys the pair random
 * stream) over the half Verlet list, and with want_energy their energy and virial to
 * s->sums; owned-ghost pairs count half, since the rank that owns the ghost counts the other
 * half. */
void vs_cpu_dpd_forces(vs_cpu_state *s, int64_t step, int want_energy);
/* A conservative pair style (pair_cpu.c; style: vs_pair_style): its pair forces over the
 * half Verlet list, each pair within its species pair's cut-off, and with want_energy their
 * energy and virial to s->sums, owned-ghost pairs counting half as in the DPD loop. */
void vs_cpu_pair_style_forces(vs_cpu_state *s, int style, int want_energy);
/* The anisotropic pair style (aniso_cpu.c; prm->aniso): forces and orientation gradients
 * over the half Verlet list, as vs_cpu_pair_style_forces. */
void vs_cpu_aniso_forces(vs_cpu_state *s, int want_energy);
/* The flow term (flow_cpu.c): adds the driving field of prm->flow (flow.h) to the owned
 * particles' forces. */
void vs_cpu_flow_forces(vs_cpu_state *s);
/* The wall term (wall_cpu.c): adds the wall force of prm->boundary (wall.h) to the owned
 * particles within its range of a wall. */
void vs_cpu_wall_forces(vs_cpu_state *s);
/* The particle-field term (field_cpu.c; prm->field, src/core/field_grid.h): adds the
 * field forces to the owned particles of the field species, recomputing the fields first at
 * the steps that are multiples of field.interval and at the first evaluation after the state
 * was made or reloaded; with want_energy the field energy of the current positions into
 * s->field_energy. vs_cpu_field_stale: the next evaluation recomputes the fields (a reload);
 * vs_cpu_field_free: the grid's memory (detach). */
void vs_cpu_field_forces(vs_cpu_state *s, int64_t step, int want_energy);
void vs_cpu_field_stale(vs_cpu_state *s);
void vs_cpu_field_free(vs_cpu_state *s);
/* The density fractions of the current positions on the owned vertices (field_cpu.c; the
 * table's field_phi): the counts spread and folded afresh, which the fields the particles
 * feel do not depend on. */
void vs_cpu_field_phi(void *st, double *out);
/* One binned profile sample of the owned particles (profile_cpu.c; the table's profile_sums,
 * st: a vs_cpu_state): per set (all, then each species when per_species) and bin along
 * `axis`, the integers of profile_bin.h (nf = vs_profile_fields(output.pressure_tensor) of
 * them), in out[(set * bins + bin) * nf + field]. */
void vs_cpu_profile_sums(void *st, int axis, int bins, int per_species, int64_t *out);

/* The bonded terms (bonded_cpu.c; molecules only): bonds, angles and dihedrals of the owned
 * beads, each
 * computed by every rank that owns one of its beads, which adds its own bead's force only.
 * Their partners are found through s->tagmap, which vs_cpu_build_ghosts rebuilds. */
void vs_cpu_build_tagmap(vs_cpu_state *s);
void vs_cpu_bond_forces(vs_cpu_state *s, int64_t step, int want);
void vs_cpu_angle_forces(vs_cpu_state *s, int64_t step, int want);
void vs_cpu_dihedral_forces(vs_cpu_state *s, int64_t step, int want);
/* The reactions' claims of this rank's beads at reaction step `step` (reaction_cpu.c;
 * reaction.h): bonds to break, each creation rule's nearest partners, the active ends'
 * monomers, from the cell list and the ghosts of the neighbour build of this step. */
void vs_cpu_reaction_claims(vs_cpu_state *s, int64_t step, vs_claim_list *out);
/* A device backend's reaction step on the host mirror (a state attached over the host
 * particles, the owned ones current): their ghosts (the shell of list_radius, bonded beads'
 * out to bonded_width), the tag map and the cell list, what vs_cpu_reaction_claims reads. */
void vs_cpu_reaction_mirror(vs_cpu_state *s, double list_radius, double bonded_width);



/* The sums of one pass over the pairs of the neighbour list (the DPD and pair-style loops):
 * the current owned particle's force, and the pass's energy and virial. */
typedef struct {
    int64_t qi[3];
    vs_wide energy, virial;
    uint64_t overflow;
    int wide_bad;
} vs_cpu_pair_sums;

/* One pair (i owned, j owned when j < n, else a ghost) with force f_over_r (dx, dy, dz) on i:
 * +q to i's running sum, -q to an owned j, each component rounded once (odd rounding, so the
 * two are exact opposites). A contribution that is not finite or out of range marks both
 * particles (the table's forces_end then stops the run, naming one); an owned-ghost pair's energy
 * and virial count half, the ghost's owner counting the other half. With VS_WANT_TENSOR in
 * want_energy each owned particle of the pair takes half of the pair's virial tensor (the
 * same half seen from either side: r_ij and F_ij both flip sign exactly). */
static inline void vs_cpu_pair_add(vs_cpu_state *s, vs_cpu_pair_sums *a, int64_t i, int64_t j,
                                   int64_t n, double f_over_r, double dx, double dy,
                                   double dz, int want_energy, double energy, double virial)
{
    const double g[3] = {f_over_r * dx, f_over_r * dy, f_over_r * dz};
    if (!(vs_fixed_force_ok(g[0]) && vs_fixed_force_ok(g[1]) && vs_fixed_force_ok(g[2]))) {
        vs_cpu_mark_bad(s, i); /* cold: overlapping particles, below a table, a blown-up run */
        if (j < n)
            vs_cpu_mark_bad(s, j);
        return;
    }
    for (int d = 0; d < 3; ++d) {
        const int64_t q = vs_fixed_force(g[d]);
        vs_fixed_add(&a->qi[d], q, &a->overflow);
        if (j < n)
            vs_fixed_add(&s->fq[d][j], -q, &a->overflow);
    }
    if (!want_energy)
        return;
    if (want_energy & VS_WANT_TENSOR) {
        const double d[3] = {dx, dy, dz};
        double t[VS_TENSOR];
        vs_tensor_of(0.5, g, d, t);
        vs_cpu_add_tensor(s, i, t);
        if (j < n)
            vs_cpu_add_tensor(s, j, t);
    }
    if (!(vs_wide_ok(energy) && vs_wide_ok(virial))) {
        a->wide_bad = 1;
        return;
    }
    const double share = j < n ? 1.0 : 0.5;
    a->energy += vs_wide_from_double(share * energy);
    a->virial += vs_wide_from_double(share * virial);
}

/* Owned particle i's pairs are done: its running sum into its force. */
static inline void vs_cpu_pair_end_particle(vs_cpu_state *s, vs_cpu_pair_sums *a, int64_t i)
{
    for (int d = 0; d < 3; ++d) {
        vs_fixed_add(&s->fq[d][i], a->qi[d], &a->overflow);
        a->qi[d] = 0;
    }
}

/* The pass is done: its energy, virial and range flags into the evaluation's. */
static inline void vs_cpu_pair_finish(vs_cpu_state *s, const vs_cpu_pair_sums *a)
{
    s->fq_overflow |= a->overflow;
    s->sums.energy += a->energy;
    s->sums.virial += a->virial;
    s->sums.out_of_range |= a->wide_bad;
}

#endif
