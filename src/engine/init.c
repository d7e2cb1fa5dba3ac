/* Initial state: see init.h. */
#include "init.h"

#include "ensemble.h"

#include <math.h>
#include <string.h>

#include "fixed_sum.h"
#include "molecules.h"
#include "thermo.h"
#include "tea_rng.h"

/* Keys for the initial state: step words far beyond any run length (2^63 + k). */
#define VS_INIT_STREAM_POSITION 0x8000000000000001ull
#define VS_INIT_STREAM_VELOCITY 0x8000000000000002ull
#define VS_INIT_STREAM_ORIENTATION 0x8000000000000003ull
#define VS_INIT_STREAM_SPIN 0x8000000000000004ull

/* A uniform double in [0, 1) with 53 random bits from one 64-bit block. */
static double unit53(vs_tea_block b)
{
    uint64_t bits = ((uint64_t)b.v0 << 21) ^ (uint64_t)(b.v1 >> 11);
    return (double)(bits & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
}

int vs_init_species_of_tag(const vs_params *prm, int64_t tag)
{
    if (tag < prm->molecules.n_molecule_beads)
        return vs_mol_species_of_tag(prm, tag);
    /* free beads: the fractions share out the tags after the molecules' */
    const int64_t n_free = prm->system.n_particles - prm->molecules.n_molecule_beads;
    tag -= prm->molecules.n_molecule_beads;
    double cumulative = 0.0;
    for (int s = 0; s < prm->species.n - 1; ++s) {
        cumulative += prm->species.list[s].fraction;
        if (tag < llround(cumulative * (double)n_free))
            return s;
    }
    return prm->species.n - 1;
}

/* Maxwell-Boltzmann velocity of particle i, a function of its tag. */
static void set_velocity(vs_particles *p, int64_t i, const vs_params *prm, vs_tea_key kvel)
{
    const int64_t tag = p->tag[i];
    const uint32_t lo = (uint32_t)tag, hi = (uint32_t)((uint64_t)tag >> 32);
    const double scale = sqrt(prm->dpd.kT / prm->species.list[p->species[i]].mass);
    for (uint32_t d = 0; d < 3; ++d)
        p->v[d][i] = scale * vs_xi_gaussian(vs_tea_encrypt(kvel, lo, (hi << 2) | d));
}

static void thermalize(vs_particles *p, const vs_params *prm, const vs_decomp *dc);

void vs_init_particles(vs_particles *p, const vs_params *prm, const vs_decomp *dc)
{
    const vs_tea_key kpos = vs_tea_make_key(prm->system.seed, VS_INIT_STREAM_POSITION);
    const vs_tea_key kvel = vs_tea_make_key(prm->system.seed, VS_INIT_STREAM_VELOCITY);
    p->n_owned = p->n_ghost = 0;
    if (vs_params_molecular(prm)) { /* molecules, or reactions that will make them */
        vs_particles_enable_topology(p);
        if (vs_special_depth(prm) > 0)
            vs_particles_enable_special(p);
        if (vs_params_dihedrals(prm))
            vs_particles_enable_dihedrals(p);
    }
    if (prm->molecules.n_moltypes > 0) {
        vs_mol_build(p, prm, dc);
        for (int64_t i = 0; i < p->n_owned; ++i)
            set_velocity(p, i, prm, kvel);
    }
    for (int64_t tag = prm->molecules.n_molecule_beads; tag < prm->system.n_particles; ++tag) {
        const uint32_t lo = (uint32_t)tag, hi = (uint32_t)((uint64_t)tag >> 32);
        double x[3];
        int inside = 1;
        for (uint32_t d = 0; d < 3; ++d) {
            /* the high tag word and the component share the second block word */
            x[d] = dc->box[d] * unit53(vs_tea_encrypt(kpos, lo, (hi << 2) | d));
            inside &= x[d] >= dc->lo[d] && x[d] < dc->hi[d];
        }
        if (!inside)
            continue;
        vs_particles_reserve(p, p->n_owned + 1);
        const int64_t i = p->n_owned++;
        p->tag[i] = tag;
        p->species[i] = vs_init_species_of_tag(prm, tag);
        if (p->topo)
            memset(&p->topo[i], 0, sizeof p->topo[i]);
        if (p->special)
            memset(&p->special[i], 0, sizeof p->special[i]);
        if (p->dih)
            memset(&p->dih[i], 0, sizeof p->dih[i]);
        for (uint32_t d = 0; d < 3; ++d) {
            p->x[d][i] = x[d];
            p->image[d][i] = 0;
            p->f[d][i] = 0.0;
        }
        set_velocity(p, i, prm, kvel);
    }

    thermalize(p, prm, dc);
    if (vs_params_oriented(prm))
        vs_init_orientations(p, prm, 1, 1);
}

/* Two unit vectors t1, t2 that complete the unit vector n to an orthonormal frame. */
static void tangent_frame(const double n[3], double t1[3], double t2[3])
{
    /* the axis least aligned with n keeps the cross product well away from zero */
    const int k = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0
                  : fabs(n[1]) <= fabs(n[2])                          ? 1
                                                                      : 2;
    double a[3] = {0, 0, 0};
    a[k] = 1.0;
    t1[0] = n[1] * a[2] - n[2] * a[1];
    t1[1] = n[2] * a[0] - n[0] * a[2];
    t1[2] = n[0] * a[1] - n[1] * a[0];
    const double l = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
    for (int q = 0; q < 3; ++q)
        t1[q] /= l;
    t2[0] = n[1] * t1[2] - n[2] * t1[1];
    t2[1] = n[2] * t1[0] - n[0] * t1[2];
    t2[2] = n[0] * t1[1] - n[1] * t1[0];
}

void vs_init_orientations(vs_particles *p, const vs_params *prm, int draw_n, int draw_u)
{
    const vs_tea_key kn = vs_tea_make_key(prm->system.seed, VS_INIT_STREAM_ORIENTATION);
    const vs_tea_key ku = vs_tea_make_key(prm->system.seed, VS_INIT_STREAM_SPIN);
    vs_particles_enable_orient(p);
    for (int64_t i = 0; i < p->n_owned; ++i) {
        vs_orient *o = &p->orient[i];
        const double inertia = prm->species.list[p->species[i]].inertia;
        if (!(inertia > 0.0)) {
            memset(o, 0, sizeof *o);
            continue;
        }
        const int64_t tag = p->tag[i];
        const uint32_t lo = (uint32_t)tag, hi = (uint32_t)((uint64_t)tag >> 32);
        if (draw_n) { /* uniform on the sphere: z uniform in [-1, 1), phi in [0, 2 pi) */
            const double z = 2.0 * unit53(vs_tea_encrypt(kn, lo, hi << 2)) - 1.0;
            const double phi = 6.283185307179586 * unit53(vs_tea_encrypt(kn, lo, (hi << 2) | 1));
            const double s = sqrt(fmax(0.0, 1.0 - z * z));
            o->n[0] = s * cos(phi);
            o->n[1] = s * sin(phi);
            o->n[2] = z;
        }
        if (draw_u) { /* Maxwell-Boltzmann in the plane perpendicular to n: kT/2 per dof */
            double t1[3], t2[3];
            tangent_frame(o->n, t1, t2);
            const double scale = sqrt(prm->dpd.kT / inertia);
            const double g1 = vs_xi_gaussian(vs_tea_encrypt(ku, lo, hi << 2));
            const double g2 = vs_xi_gaussian(vs_tea_encrypt(ku, lo, (hi << 2) | 1));
            for (int q = 0; q < 3; ++q)
                o->u[q] = scale * (g1 * t1[q] + g2 * t2[q]);
        }
        for (int q = 0; q < 3; ++q)
            o->g[q] = 0.0;
    }
}

void vs_init_velocities(vs_particles *p, const vs_params *prm, const vs_decomp *dc)
{
    const vs_tea_key kvel = vs_tea_make_key(prm->system.seed, VS_INIT_STREAM_VELOCITY);
    for (int64_t i = 0; i < p->n_owned; ++i)
        set_velocity(p, i, prm, kvel);
    thermalize(p, prm, dc);
}

/* Zero total momentum, then exact temperature; vp = v. Collective. The sums are exact
 * (fixed_sum.h), so the initial velocities are the same bits on any rank count. */
static void thermalize(vs_particles *p, const vs_params *prm, const vs_decomp *dc)
{
    vs_wide sums[4] = {0, 0, 0, 0}; /* momentum, mass */
    int64_t n_frozen = 0;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const vs_species *sp = &prm->species.list[p->species[i]];
        if (sp->frozen) { /* wall particles stand still */
            for (int d = 0; d < 3; ++d)
                p->v[d][i] = 0.0;
            n_frozen++;
            continue;
        }
        for (int d = 0; d < 3; ++d)
            sums[d] += vs_wide_from_double(sp->mass * p->v[d][i]);
        sums[3] += vs_wide_from_double(sp->mass);
    }
    vs_par_sum_wide(&dc->cart, sums, 4);
    vs_par_sum_int64(&dc->cart, &n_frozen, 1);
    const double mass = vs_wide_to_double(sums[3]);
    double drift[3];
    for (int d = 0; d < 3; ++d)
        drift[d] = mass > 0.0 ? vs_wide_to_double(sums[d]) / mass : 0.0;
    vs_wide twice_kinetic_sum = 0;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const double m = prm->species.list[p->species[i]].mass;
        for (int d = 0; d < 3 && !prm->species.list[p->species[i]].frozen; ++d) {
            p->v[d][i] -= drift[d];
            twice_kinetic_sum += vs_wide_from_double(m * p->v[d][i] * p->v[d][i]);
        }
    }
    vs_par_sum_wide(&dc->cart, &twice_kinetic_sum, 1);
    const double twice_kinetic = vs_wide_to_double(twice_kinetic_sum);
    vs_params counted = *prm; /* the degrees of freedom without the frozen particles */
    counted.boundary.n_frozen = n_frozen;
    const double dof = vs_ensemble_dof(&counted);
    const double scale =
        (dof > 0.0 && twice_kinetic > 0.0) ? sqrt(prm->dpd.kT * dof / twice_kinetic) : 0.0;
    for (int64_t i = 0; i < p->n_owned; ++i)
        for (int d = 0; d < 3; ++d) {
            p->v[d][i] *= scale;
            p->vp[d][i] = p->v[d][i];
        }
}
