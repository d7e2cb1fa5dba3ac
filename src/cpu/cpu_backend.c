/* The CPU reference backend: see cpu_backend.h. */
#include "cpu_backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrate.h"
#include "log.h"

static int cpu_attach(const vs_backend_setup *in, void **st, char *err, size_t err_len)
{
    (void)err;
    (void)err_len;
    const vs_params *prm = in->prm;
    vs_cpu_state *s = VS_MALLOC(sizeof *s);
    memset(s, 0, sizeof *s);
    s->prm = prm;
    s->dc = in->dc;
    s->parts = in->parts;
    s->list_radius = in->list_radius;
    vs_halo_init(&s->halo);
    s->halo.bonded_width = in->bonded_width;
    vs_neighbor_init(&s->nl);
    vs_tagmap_init(&s->tagmap);
    s->dpd = vs_dpd_make_consts(prm->dpd.rc, prm->dpd.gamma.v, prm->dpd.kT, prm->dpd.s,
                                prm->integrator.dt);
    s->dpd_pair = vs_dpd_make_pair_table(&prm->dpd.gamma, prm->species.n, prm->dpd.kT,
                                         prm->integrator.dt);
    snprintf(in->plan, in->plan_len, "double precision, forces summed in 2^-41 fixed point, "
             "half Verlet list of radius %g from a cell list, each pair once, ghosts through "
             "host staged exchanges", s->list_radius);
    *st = s;
    return 0;
}

static void cpu_detach(void *st)
{
    vs_cpu_state *s = st;
    if (!s)
        return;
    vs_neighbor_free(&s->nl);
    vs_halo_free(&s->halo);
    vs_tagmap_free(&s->tagmap);
    vs_cpu_field_free(s);
    for (int d = 0; d < 3; ++d) {
        free(s->fq[d]);
        free(s->gq[d]);
    }
    for (int k = 0; k < VS_TENSOR; ++k)
        free(s->wq[k]);
    free(s->fq_bad);
    free(s);
}

static void cpu_first_half(void *st)
{
    vs_cpu_state *s = st;
    vs_integrate_first_half(s->parts, s->prm);
    if (s->parts->orient)
        vs_integrate_rotation(s->parts, s->prm, 1);
}

static void cpu_second_half(void *st)
{
    vs_cpu_state *s = st;
    vs_integrate_second_half(s->parts, s->prm);
    if (s->parts->orient)
        vs_integrate_rotation(s->parts, s->prm, 0);
}

static void cpu_scale_rotation(void *st, double f)
{
    vs_cpu_state *s = st;
    vs_scale_rotation(s->parts, f);
}

static double cpu_max_displacement2(void *st)
{
    const vs_cpu_state *s = st;
    return vs_neighbor_max_displacement2(s->parts);
}

static int64_t cpu_migrate(void *st, int64_t step)
{
    vs_cpu_state *s = st;
    const int64_t moved = vs_halo_migrate(&s->halo, s->dc, s->parts, step);
    vs_neighbor_sort_owned(&s->nl, s->parts, s->dc->lo, s->dc->hi, s->list_radius);
    return moved;
}

static void cpu_build_ghosts(void *st)
{
    vs_cpu_state *s = st;
    vs_halo_build_ghosts(&s->halo, s->dc, s->parts, s->list_radius);
    if (s->parts->topo)
        vs_cpu_build_tagmap(s);
}

static void cpu_update_ghosts(void *st)
{
    vs_cpu_state *s = st;
    vs_halo_update_ghosts(&s->halo, s->dc, s->parts);
}

static void cpu_build_neighbors(void *st)
{
    vs_cpu_state *s = st;
    if (vs_dpd_inert(s->prm)) /* no term walks pairs (term_dpd.c) */
        vs_neighbor_build_no_pairs(&s->nl, s->parts, s->dc->lo, s->dc->hi, s->list_radius,
                                   s->list_radius);
    else
        vs_neighbor_build(&s->nl, s->parts, s->dc->lo, s->dc->hi, s->list_radius,
                          s->list_radius);
    vs_neighbor_mark_built(s->parts);
}

static void cpu_forces_begin(void *st, int want)
{
    vs_cpu_state *s = st;
    const vs_particles *p = s->parts;
    const int64_t n = p->n_owned;
    const int tensor = s->prm->output.pressure_tensor;
    if (n > s->fq_capacity || (tensor && !s->wq[0]) || (p->orient && !s->gq[0])) {
        const int64_t cap = n + n / 4 + 64;
        for (int d = 0; d < 3; ++d) {
            free(s->fq[d]);
            s->fq[d] = VS_MALLOC(sizeof(int64_t) * (size_t)cap);
            free(s->gq[d]);
            s->gq[d] = p->orient ? VS_MALLOC(sizeof(int64_t) * (size_t)cap) : NULL;
        }
        for (int k = 0; k < VS_TENSOR && tensor; ++k) {
            free(s->wq[k]);
            s->wq[k] = VS_MALLOC(sizeof(int64_t) * (size_t)cap);
        }
        free(s->fq_bad);
        s->fq_bad = VS_MALLOC((size_t)cap);
        memset(s->fq_bad, 0, (size_t)cap);
        s->fq_capacity = cap;
    }
    s->fq_overflow = 0;
    memset(&s->sums, 0, sizeof s->sums);
    if (tensor) { /* zero also where this evaluation adds none: no stale shares */
        for (int k = 0; k < VS_TENSOR; ++k)
            memset(s->wq[k], 0, sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
        s->wq_overflow = 0;
        s->wq_bad = 0;
    }
    (void)want;
    int64_t body[VS_MAX_SPECIES][3];
    int body_bad[VS_MAX_SPECIES];
    for (int sp = 0; sp < s->prm->species.n; ++sp) {
        const double *bf = s->prm->species.list[sp].body_force;
        body_bad[sp] = !(vs_fixed_force_ok(bf[0]) && vs_fixed_force_ok(bf[1]) &&
                         vs_fixed_force_ok(bf[2]));
        for (int d = 0; d < 3; ++d)
            body[sp][d] = body_bad[sp] ? 0 : vs_fixed_force(bf[d]);
    }
    for (int d = 0; d < 3; ++d) {
        int64_t *q = s->fq[d];
        for (int64_t i = 0; i < n; ++i)
            q[i] = body[p->species[i]][d];
    }
    for (int64_t i = 0; i < n; ++i)
        if (body_bad[p->species[i]])
            vs_cpu_mark_bad(s, i);
    for (int d = 0; p->orient && d < 3; ++d)
        memset(s->gq[d], 0, sizeof(int64_t) * (size_t)n);
}

void vs_cpu_mark_bad(vs_cpu_state *s, int64_t i)
{
    s->fq_bad[i] = 1;
    s->any_bad = 1;
    s->sums.out_of_range = 1;
}

/* The closest pair of the neighbour list, or with only >= 0 the closest pair that has
 * particle `only` in it: the likely culprit of a force out of range (the slow path of a run
 * that is stopping anyway). */
static void closest_pair(const vs_cpu_state *s, int64_t only, int64_t *tag_a, int64_t *tag_b,
                         double *r)
{
    const vs_particles *p = s->parts;
    const vs_neighbor *nl = &s->nl;
    double best = INFINITY;
    *tag_a = *tag_b = -1;
    for (int64_t i = 0; i < p->n_owned; ++i)
        for (int64_t k = nl->start[i]; k < nl->start[i + 1]; ++k) {
            const int64_t j = nl->partners[k];
            if (only >= 0 && i != only && j != only)
                continue;
            double r2 = 0.0;
            for (int d = 0; d < 3; ++d) {
                const double dx = p->x[d][i] - p->x[d][j];
                r2 += dx * dx;
            }
            if (r2 < best) {
                best = r2;
                *tag_a = p->tag[i];
                *tag_b = p->tag[j];
            }
        }
    *r = sqrt(best);
}

/* What puts a force out of range, for both messages below. */
static const char out_of_range_causes[] =
    "overlapping particles (a random start with a hard pair potential needs a lattice or a "
    "soft push-off first), a pair closer than its table starts, or a time step too large";

static void cpu_forces_end(void *st, int64_t step)
{
    vs_cpu_state *s = st;
    vs_particles *p = s->parts;
    const int64_t n = p->n_owned;
    if (s->fq_overflow >> 63) {
        int64_t a, b;
        double r;
        closest_pair(s, -1, &a, &b, &r);
        VS_FATAL("step %lld: a particle's force left the fixed-point range of the CPU force "
                 "sums (+-%g per component); the closest pair on this rank is tags %lld and "
                 "%lld at r = %g: %s", (long long)step, VS_FIXED_FORCE_RANGE, (long long)a,
                 (long long)b, r, out_of_range_causes);
    }
    if (s->any_bad)
        for (int64_t i = 0; i < n; ++i)
            if (s->fq_bad[i]) {
                int64_t a, b;
                double r;
                closest_pair(s, i, &a, &b, &r);
                char near[96] = "no neighbour in its list";
                if (a >= 0)
                    snprintf(near, sizeof near, "its closest neighbour is tag %lld at r = %g",
                             (long long)(a == p->tag[i] ? b : a), r);
                VS_FATAL("step %lld: a force contribution on particle %lld is not finite or "
                         "beyond +-%g (the fixed-point range of the CPU force sums); %s: %s",
                         (long long)step, (long long)p->tag[i], VS_FIXED_FORCE_LIMIT, near,
                         out_of_range_causes);
            }
    for (int d = 0; d < 3; ++d) {
        const int64_t *q = s->fq[d];
        double *f = p->f[d];
        for (int64_t i = 0; i < n; ++i)
            f[i] = vs_fixed_force_to_double(q[i]);
    }
    for (int d = 0; p->orient && d < 3; ++d)
        for (int64_t i = 0; i < n; ++i)
            p->orient[i].g[d] = vs_fixed_force_to_double(s->gq[d][i]);
}

static int64_t cpu_halo_bytes(void *st)
{
    const vs_cpu_state *s = st;
    return s->halo.bytes_last_exchange;
}

static double cpu_memory_bytes(void *st)
{
    const vs_cpu_state *s = st;
    const vs_neighbor *nl = &s->nl;
    const double topo = (s->parts->topo ? (double)sizeof(vs_topo) : 0.0) +
                        (s->parts->special ? (double)sizeof(vs_special) : 0.0) +
                        (s->parts->dih ? (double)sizeof(vs_dihedrals) : 0.0);
    return (double)s->parts->capacity * ((double)vs_particles_bytes_per_slot() + topo) +
           (25.0 + (s->wq[0] ? 8.0 * VS_TENSOR : 0.0)) * (double)s->fq_capacity +
           16.0 * (double)(s->tagmap.mask + 1) +
           8.0 * (double)(nl->cap_partners + nl->cap_start + nl->cap_cells +
                          2 * nl->cap_particles + 2 * nl->cap_sort);
}

/* ---- the ensembles' operations (integrate.c) ------------------------------------------ */

static void cpu_ensemble_op(void *st, int op, int64_t step, const vs_ensemble_consts *c)
{
    vs_cpu_state *s = st;
    vs_integrate_ensemble_op(s->parts, s->prm, c, (vs_ensemble_op)op, step);
}

static void cpu_brownian_step(void *st, int64_t step, const vs_ensemble_consts *c)
{
    vs_cpu_state *s = st;
    vs_integrate_brownian(s->parts, s->prm, c, step);
}

static void cpu_scale_velocities(void *st, double f)
{
    vs_cpu_state *s = st;
    vs_scale_velocities(s->parts, s->prm, f);
}

static void cpu_shift_velocities(void *st, const double dv[3])
{
    vs_cpu_state *s = st;
    vs_shift_velocities(s->parts, s->prm, dv);
}

static int cpu_kinetic_sums(void *st, vs_wide out[VS_KINETIC_SUMS])
{
    vs_cpu_state *s = st;
    const int bad = vs_momentum_sums(s->parts, s->prm, out);
    return vs_rotation_sums(s->parts, s->prm, out + 5) | bad;
}

static void cpu_npt_half(void *st, const vs_npt_coefs *c, int first)
{
    vs_cpu_state *s = st;
    vs_integrate_npt(s->parts, s->prm, c, first);
}

/* the cells and bricks come from s->prm and s->dc at every build, which hold the new box */
static void cpu_set_box(void *st, const double box[3], const double lo[3], const double hi[3])
{
    (void)st;
    (void)box;
    (void)lo;
    (void)hi;
}

/* ---- thermo and integrity: this rank's shares ----------------------------------------- */

/* output.pressure_tensor: this rank's sum m v_a v_b and virial tensor, exact sums. */
static void cpu_local_tensor(const vs_cpu_state *s, vs_thermo_local *out)
{
    const vs_particles *p = s->parts;
    vs_wide acc[2 * VS_TENSOR];
    memset(acc, 0, sizeof acc);
    int ok = !s->wq_bad && !(s->wq_overflow >> 63);
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const double m = s->prm->species.list[p->species[i]].mass;
        for (int k = 0; k < VS_TENSOR; ++k) {
            const double mvv = m * p->v[vs_tensor_axes[k][0]][i] * p->v[vs_tensor_axes[k][1]][i];
            if (vs_wide_ok(mvv))
                acc[k] += vs_wide_from_double(mvv);
            else
                ok = 0;
            acc[VS_TENSOR + k] += vs_tensor_wide(s->wq[k][i]);
        }
    }
    for (int k = 0; k < 2 * VS_TENSOR; ++k)
        vs_wide_to_limbs(acc[k], out->tensor[k]);
    out->tensor_invalid = !ok;
}

static void cpu_local_thermo(void *st, vs_thermo_local *out)
{
    const vs_cpu_state *s = st;
    const vs_particles *p = s->parts;
    const vs_force_sums *sums = &s->sums;
    /* exact sums (fixed_sum.h): a row does not depend on the order of the particles */
    vs_wide acc[4] = {0, 0, 0, 0};
    int exact = !sums->out_of_range;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const double m = s->prm->species.list[p->species[i]].mass;
        const double vx = p->v[0][i], vy = p->v[1][i], vz = p->v[2][i];
        const double term[4] = {m * vx, m * vy, m * vz, 0.5 * m * (vx * vx + vy * vy + vz * vz)};
        for (int k = 0; k < 4; ++k) {
            if (vs_wide_ok(term[k]))
                acc[k] += vs_wide_from_double(term[k]);
            else
                exact = 0; /* a blown-up run: its non-finite doubles tell */
        }
    }
    const vs_wide all[VS_EXACT_SUMS] = {acc[0],
                                        acc[1],
                                        acc[2],
                                        acc[3],
                                        sums->energy,
                                        sums->virial,
                                        sums->bond_energy,
                                        sums->angle_energy,
                                        sums->dihedral_energy};
    vs_thermo_local_exact(all, exact, out);
    if (s->prm->output.pressure_tensor)
        cpu_local_tensor(s, out);
}

void vs_cpu_integrity_local(const vs_particles *p, vs_integrity_local *out)
{
    out->count = (uint64_t)p->n_owned;
    out->tag_sum = out->tag_square_sum = 0;
    out->bad_tag = -1;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const uint64_t t = (uint64_t)p->tag[i];
        out->tag_sum += t;
        out->tag_square_sum += t * t;
        if (out->bad_tag < 0)
            for (int d = 0; d < 3; ++d)
                if (!isfinite(p->x[d][i]) || !isfinite(p->v[d][i]))
                    out->bad_tag = p->tag[i];
    }
}

static void cpu_local_integrity(void *st, vs_integrity_local *out)
{
    const vs_cpu_state *s = st;
    vs_cpu_integrity_local(s->parts, out);
}

/* the state lives in the host particles: nothing to move or wait for */
static void cpu_nothing(void *st) { (void)st; }
static void cpu_sync_host(void *st, vs_particles *host)
{
    (void)st;
    (void)host;
}
static void cpu_reload(void *st, const vs_particles *host)
{
    (void)host;
    vs_cpu_field_stale(st); /* the run goes on as a restart from here would (field_cpu.c) */
}

const vs_backend vs_backend_cpu = {
    .name = "cpu",
    .memory_kind = "host",
    .attach = cpu_attach,
    .detach = cpu_detach,
    .integrate_first_half = cpu_first_half,
    .integrate_second_half = cpu_second_half,
    .max_displacement2 = cpu_max_displacement2,
    .ensemble_op = cpu_ensemble_op,
    .brownian_step = cpu_brownian_step,
    .scale_velocities = cpu_scale_velocities,
    .shift_velocities = cpu_shift_velocities,
    .kinetic_sums = cpu_kinetic_sums,
    .scale_rotation = cpu_scale_rotation,
    .npt_half = cpu_npt_half,
    .set_box = cpu_set_box,
    .migrate = cpu_migrate,
    .build_ghosts = cpu_build_ghosts,
    .update_ghosts = cpu_update_ghosts,
    .build_neighbors = cpu_build_neighbors,
    .forces_begin = cpu_forces_begin,
    .forces_end = cpu_forces_end,
    .halo_bytes = cpu_halo_bytes,
    .local_thermo = cpu_local_thermo,
    .local_integrity = cpu_local_integrity,
    .memory_bytes = cpu_memory_bytes,
    .profile_sums = vs_cpu_profile_sums,
    .field_phi = vs_cpu_field_phi,
    .sync = cpu_nothing,
    .sync_host = cpu_sync_host,
    .reload = cpu_reload,
};
