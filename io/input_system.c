/* A system read from a file: see input_system.h. */
#define _POSIX_C_SOURCE 200809L
#include "input_system.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void vs_input_system_free(vs_input_system *sys)
{
    free(sys->recs);
    free(sys->topo);
    free(sys->special);
    free(sys->dih);
    free(sys->orient);
    memset(sys, 0, sizeof *sys);
}

/* The unwrapped separation x_b - x_a of two records along d. */
static double unwrapped_dx(const vs_particle_rec *a, const vs_particle_rec *b, const double box[3],
                           int d)
{
    return (b->x[d] + b->image[d] * box[d]) - (a->x[d] + a->image[d] * box[d]);
}

/* Every bond shorter than half the box in the file's unwrapped positions (its image counts):
 * the copies of a molecule are then whole. Returns 0 or -1 (err). */
static int check_whole(const vs_params *prm, const vs_input_system *sys, char *err,
                       size_t err_len)
{
    if (!sys->topo)
        return 0;
    for (int64_t i = 0; i < sys->n; ++i)
        for (int k = 0; k < sys->topo[i].n_bond; ++k) {
            const int64_t j = sys->topo[i].bond[k];
            for (int d = 0; d < 3; ++d) {
                const double dx = unwrapped_dx(&sys->recs[i], &sys->recs[j], sys->box, d);
                if (!(fabs(dx) < 0.5 * sys->box[d])) {
                    snprintf(err, err_len, "%s: input.replicate: the bond of atoms %lld and "
                             "%lld spans %g along %c in the file's unwrapped positions (its "
                             "image counts), expected less than half the box (%g)",
                             prm->input.file, (long long)i + 1, (long long)j + 1, fabs(dx),
                             "xyz"[d], 0.5 * sys->box[d]);
                    return -1;
                }
            }
        }
    return 0;
}

static void offset_tags(vs_topo *t, vs_dihedrals *dh, int64_t offset, int64_t mol_offset)
{
    if (t->mol != 0)
        t->mol += mol_offset;
    for (int k = 0; k < t->n_bond; ++k)
        t->bond[k] += offset;
    for (int k = 0; k < t->n_angle; ++k)
        for (int q = 0; q < 3; ++q)
            t->angle[k][q] += offset;
    if (dh)
        for (int k = 0; k < dh->n_dihedral; ++k)
            for (int q = 0; q < 4; ++q)
                dh->dihedral[k][q] += offset;
}

/* input.replicate: copy (a, b, c) of particle i is the file's particle shifted by (a Lx, b Ly,
 * c Lz) in unwrapped coordinates, then wrapped into the larger box, with tag t N + i (t = a +
 * nx (b + ny c)) and molecule id mol + t max_mol; its bonds, angles and dihedrals name the
 * partners of the same copy, which are then where the file's bonds put them. */
static int replicate(const vs_params *prm, vs_input_system *sys, char *err, size_t err_len)
{
    int n[3];
    for (int d = 0; d < 3; ++d)
        n[d] = prm->input.replicate[d] > 1 ? prm->input.replicate[d] : 1;
    const int64_t tiles = (int64_t)n[0] * n[1] * n[2], N = sys->n;
    if (tiles == 1)
        return 0;
    const double small[3] = {sys->box[0], sys->box[1], sys->box[2]};
    for (int d = 0; d < 3; ++d)
        sys->box[d] *= n[d];
    sys->n *= tiles;
    sys->n_bonds *= tiles;
    sys->n_angles *= tiles;
    sys->n_dihedrals *= tiles;
    if (!sys->recs)
        return 0; /* header only */
    vs_input_system file = *sys;
    for (int d = 0; d < 3; ++d)
        file.box[d] = small[d];
    file.n = N;
    if (check_whole(prm, &file, err, err_len))
        return -1;
    int64_t max_mol = 0;
    for (int64_t i = 0; file.topo && i < N; ++i)
        max_mol = file.topo[i].mol > max_mol ? file.topo[i].mol : max_mol;
    sys->recs = malloc(sizeof(vs_particle_rec) * (size_t)sys->n);
    sys->topo = file.topo ? malloc(sizeof(vs_topo) * (size_t)sys->n) : NULL;
    sys->dih = file.dih ? malloc(sizeof(vs_dihedrals) * (size_t)sys->n) : NULL;
    sys->orient = file.orient ? malloc(sizeof(vs_orient) * (size_t)sys->n) : NULL;
    if (!sys->recs || (file.topo && !sys->topo) || (file.dih && !sys->dih) ||
        (file.orient && !sys->orient)) {
        free(sys->recs);
        free(sys->topo);
        free(sys->dih);
        free(sys->orient);
        *sys = file; /* freed by the caller */
        snprintf(err, err_len, "%s: input.replicate: no memory for %lld particles",
                 prm->input.file, (long long)(N * tiles));
        return -1;
    }
    for (int64_t t = 0; t < tiles; ++t) {
        const int64_t shift[3] = {t % n[0], t / n[0] % n[1], t / ((int64_t)n[0] * n[1])};
        for (int64_t i = 0; i < N; ++i) {
            vs_particle_rec r = file.recs[i];
            for (int d = 0; d < 3; ++d) {
                const double u = r.x[d] + (r.image[d] + (double)shift[d]) * small[d];
                const double q = floor(u / sys->box[d]);
                r.x[d] = u - q * sys->box[d];
                r.image[d] = (int32_t)q;
            }
            r.tag = t * N + file.recs[i].tag;
            const int64_t j = t * N + i;
            sys->recs[j] = r;
            if (sys->orient)
                sys->orient[j] = file.orient[i];
            if (sys->topo) {
                sys->topo[j] = file.topo[i];
                if (sys->dih)
                    sys->dih[j] = file.dih[i];
                offset_tags(&sys->topo[j], sys->dih ? &sys->dih[j] : NULL, t * N, t * max_mol);
            }
        }
    }
    free(file.recs);
    free(file.topo);
    free(file.dih);
    free(file.orient);
    return 0;
}

int vs_input_read(const vs_params *prm, int header_only, vs_input_system *sys, char *err,
                  size_t err_len)
{
    memset(sys, 0, sizeof *sys);
    int rc = prm->input.format == VS_INPUT_H5MD
                 ? vs_h5md_input_read(prm, header_only, sys, err, err_len)
                 : vs_lammps_data_read(prm, header_only, sys, err, err_len);
    if (rc == 0)
        rc = replicate(prm, sys, err, err_len);
    if (rc != 0)
        vs_input_system_free(sys);
    return rc;
}

int vs_input_add_bond(vs_topo *topo, int64_t a, int64_t b, int type, char *err, size_t len)
{
    if (a == b) {
        snprintf(err, len, "bond of atom %lld to itself", (long long)a + 1);
        return -1;
    }
    const vs_topo *ta = &topo[a];
    for (int k = 0; k < ta->n_bond; ++k)
        if (ta->bond[k] == b) {
            snprintf(err, len, "duplicate bond: atoms %lld and %lld are bonded already",
                     (long long)a + 1, (long long)b + 1);
            return -1;
        }
    const int64_t ends[2] = {a, b};
    for (int e = 0; e < 2; ++e)
        if (topo[ends[e]].n_bond >= VS_MAX_BONDS) {
            snprintf(err, len, "atom %lld has more than %d bonds (the most a bead may have)",
                     (long long)ends[e] + 1, VS_MAX_BONDS);
            return -1;
        }
    vs_topo_add_bond(&topo[a], b, type);
    vs_topo_add_bond(&topo[b], a, type);
    return 0;
}

int vs_input_add_angle(vs_topo *topo, int64_t a, int64_t b, int64_t c, int type, char *err,
                       size_t len)
{
    if (a == b || b == c || a == c) {
        snprintf(err, len, "angle %lld-%lld-%lld names an atom twice", (long long)a + 1,
                 (long long)b + 1, (long long)c + 1);
        return -1;
    }
    const vs_topo *tb = &topo[b];
    for (int k = 0; k < tb->n_angle; ++k) {
        const int64_t *q = tb->angle[k];
        if (q[1] == b && ((q[0] == a && q[2] == c) || (q[0] == c && q[2] == a))) {
            snprintf(err, len, "duplicate angle %lld-%lld-%lld", (long long)a + 1,
                     (long long)b + 1, (long long)c + 1);
            return -1;
        }
    }
    const int64_t beads[3] = {a, b, c};
    for (int e = 0; e < 3; ++e)
        if (topo[beads[e]].n_angle >= VS_MAX_ANGLES) {
            snprintf(err, len, "atom %lld is in more than %d angles (the most a bead may have)",
                     (long long)beads[e] + 1, VS_MAX_ANGLES);
            return -1;
        }
    for (int e = 0; e < 3; ++e)
        vs_topo_add_angle(&topo[beads[e]], a, b, c, type);
    return 0;
}

int vs_input_add_dihedral(vs_dihedrals *dih, const int64_t q[4], int type, char *err,
                          size_t len)
{
    for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b)
            if (q[a] == q[b]) {
                snprintf(err, len, "dihedral %lld-%lld-%lld-%lld names an atom twice",
                         (long long)q[0] + 1, (long long)q[1] + 1, (long long)q[2] + 1,
                         (long long)q[3] + 1);
                return -1;
            }
    const vs_dihedrals *tb = &dih[q[1]];
    for (int k = 0; k < tb->n_dihedral; ++k) { /* the same quadruple, either way round */
        const int64_t *d = tb->dihedral[k];
        int same = 1, reversed = 1;
        for (int a = 0; a < 4; ++a) {
            same &= d[a] == q[a];
            reversed &= d[a] == q[3 - a];
        }
        if (same || reversed) {
            snprintf(err, len, "duplicate dihedral %lld-%lld-%lld-%lld", (long long)q[0] + 1,
                     (long long)q[1] + 1, (long long)q[2] + 1, (long long)q[3] + 1);
            return -1;
        }
    }
    for (int e = 0; e < 4; ++e)
        if (dih[q[e]].n_dihedral >= VS_MAX_DIHEDRALS) {
            snprintf(err, len, "atom %lld is in more than %d dihedrals (the most a bead may "
                     "have: VS_MAX_DIHEDRALS, src/core/topology.h)", (long long)q[e] + 1,
                     VS_MAX_DIHEDRALS);
            return -1;
        }
    for (int e = 0; e < 4; ++e)
        vs_topo_add_dihedral(&dih[q[e]], q, type);
    return 0;
}

/* Into [0, L) with the image counts, from any finite coordinate. */
static void wrap_record(vs_particle_rec *r, const double box[3])
{
    for (int d = 0; d < 3; ++d) {
        const double q = floor(r->x[d] / box[d]);
        if (q != 0.0) {
            r->x[d] -= q * box[d];
            r->image[d] += (int32_t)q;
        }
    }
    vs_particle_rec_wrap(r, box); /* the round-off at the faces, as migration does */
}

/* Every coordinate finite and within VS_INPUT_IMAGE_LIMIT box lengths of the box, counting
 * its image flags: the wrap below turns the distance into an int32 image count, and a run
 * moves particles by further box lengths. Returns 0 or -1 (err). */
static int check_coordinates(const vs_input_system *sys, const char *where, char *err,
                             size_t err_len)
{
    for (int64_t i = 0; i < sys->n; ++i) {
        const vs_particle_rec *r = &sys->recs[i];
        for (int d = 0; d < 3; ++d) {
            if (!isfinite(r->x[d]) || !isfinite(r->v[d])) {
                snprintf(err, err_len, "%s: atom %lld has a non-finite %s (%g along %c)", where,
                         (long long)r->tag + 1, isfinite(r->x[d]) ? "velocity" : "position",
                         isfinite(r->x[d]) ? r->v[d] : r->x[d], "xyz"[d]);
                return -1;
            }
            const double images = floor(r->x[d] / sys->box[d]) + (double)r->image[d];
            if (!(fabs(images) <= VS_INPUT_IMAGE_LIMIT)) {
                snprintf(err, err_len, "%s: atom %lld is %.3g box lengths from the box along %c "
                         "(position %g, image flag %d); at most %.0f are accepted", where,
                         (long long)r->tag + 1, images, "xyz"[d], r->x[d], (int)r->image[d],
                         (double)VS_INPUT_IMAGE_LIMIT);
                return -1;
            }
        }
    }
    return 0;
}

/* Along an axis with walls every particle lies inside the box: [0, L) and no image flag.
 * Returns 0 or -1 (err). */
static int check_walls(const vs_params *prm, const vs_input_system *sys, const char *where,
                       char *err, size_t err_len)
{
    for (int64_t i = 0; i < sys->n; ++i)
        for (int d = 0; d < 3; ++d) {
            const vs_particle_rec *r = &sys->recs[i];
            if (vs_axis_periodic(prm, d) ||
                (r->x[d] >= 0.0 && r->x[d] < sys->box[d] && r->image[d] == 0))
                continue;
            snprintf(err, err_len, "%s: atom %lld lies outside the walls along %c (position %g, "
                     "image flag %d; the box is [0, %g) with boundary.%c.kind a wall)", where,
                     (long long)r->tag + 1, "xyz"[d], r->x[d], (int)r->image[d], sys->box[d],
                     "xyz"[d]);
            return -1;
        }
    return 0;
}

/* Frozen particles never move: a file that gives one a velocity other than zero is refused
 * rather than silently stopped. Returns 0 or -1 (err). */
static int check_frozen(const vs_params *prm, const vs_input_system *sys, const char *where,
                        char *err, size_t err_len)
{
    for (int64_t i = 0; sys->has_velocities && i < sys->n; ++i) {
        const vs_particle_rec *r = &sys->recs[i];
        if (!prm->species.list[r->species].frozen ||
            (r->v[0] == 0.0 && r->v[1] == 0.0 && r->v[2] == 0.0))
            continue;
        snprintf(err, err_len, "%s: atom %lld of frozen species %s has velocity (%g, %g, %g), "
                 "expected 0 0 0 (species.[%d].frozen: frozen particles never move)", where,
                 (long long)r->tag + 1, prm->species.list[r->species].name, r->v[0], r->v[1],
                 r->v[2], (int)r->species);
        return -1;
    }
    return 0;
}

int vs_input_finish(const vs_params *prm, vs_input_system *sys, const char *where, char *err,
                    size_t err_len)
{
    const double reach = vs_pair_reach(prm); /* dpd.rc unless a pair style reaches farther */
    for (int d = 0; d < 3; ++d)
        if (!isfinite(sys->box[d])) {
            snprintf(err, err_len, "%s: box side %g is not finite", where, sys->box[d]);
            return -1;
        } else if (!(sys->box[d] >= 2.0 * reach)) {
            snprintf(err, err_len, "%s: box side %g below 2 * %s = %g", where, sys->box[d],
                     reach == prm->dpd.rc ? "dpd.rc" : "the largest pair cut-off", 2.0 * reach);
            return -1;
        }
    if (!sys->recs)
        return 0;
    if (check_coordinates(sys, where, err, err_len) != 0 ||
        check_walls(prm, sys, where, err, err_len) != 0 ||
        check_frozen(prm, sys, where, err, err_len) != 0)
        return -1;
    for (int64_t i = 0; i < sys->n; ++i) {
        wrap_record(&sys->recs[i], sys->box);
        for (int d = 0; d < 3; ++d)
            sys->recs[i].vp[d] = sys->recs[i].v[d]; /* the predicted velocity at step 0 */
    }
    if (!sys->topo)
        return 0;
    for (int64_t i = 0; i < sys->n; ++i) {
        const vs_topo *t = &sys->topo[i];
        for (int k = 0; k < t->n_bond; ++k) {
            const int64_t j = t->bond[k];
            if (j < i)
                continue; /* each bond once */
            double r2 = 0.0;
            for (int d = 0; d < 3; ++d) {
                double dx = sys->recs[i].x[d] - sys->recs[j].x[d];
                dx -= sys->box[d] * nearbyint(dx / sys->box[d]);
                r2 += dx * dx;
            }
            const double r = sqrt(r2);
            const vs_bond_type *bt = &prm->molecules.bond_types[t->bond_type[k]];
            if (bt->style == VS_BOND_FENE && !(r < bt->r0)) {
                snprintf(err, err_len, "%s: the bond of atoms %lld and %lld is %g long, not "
                         "below its FENE R0 = %g", where, (long long)i + 1, (long long)j + 1, r,
                         bt->r0);
                return -1;
            }
            if (!(r < prm->molecules.bond_reach)) {
                snprintf(err, err_len, "%s: the bond of atoms %lld and %lld is %g long, beyond "
                         "bonded.reach = %g (raise it)", where, (long long)i + 1,
                         (long long)j + 1, r, prm->molecules.bond_reach);
                return -1;
            }
        }
    }
    return 0;
}

int vs_input_check_memory(int64_t n, double bytes_per_particle, const char *where, char *err,
                          size_t err_len)
{
    const double need = (double)n * bytes_per_particle;
    const double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (!(have > 0.0) || need <= have)
        return 0;
    snprintf(err, err_len, "%s: %lld particles need about %.1f GiB to read, more than this "
             "machine's %.1f GiB of memory", where, (long long)n, need / 1073741824.0,
             have / 1073741824.0);
    return -1;
}
