/* H5MD 1.1 writer: see h5md.h and docs/file-formats.md.
 *
 * Choices the H5MD specification leaves open, made for readers such as MDAnalysis:
 * - box/edges is a time series of 3 x 3 matrices (diagonal for the rectangular box): the spec
 *   allows a vector or a matrix, and MDAnalysis's H5MDReader reads only the matrix form.
 * - every time series of /particles/all and /observables shares position's step and time
 *   datasets through hard links, so all series have one frame count and one step list;
 *   /observables are written with each frame (MDAnalysis indexes them by frame).
 * - species and id are time-independent (rows are in tag order, so id[i] = i); in runs with
 *   reactions species, molecule ids and connectivity are time-dependent elements instead
 *   (h5md_reactions.h).
 * - with molecules: particles/all/molecule (time-independent molecule ids, 0: a free bead),
 *   /connectivity/bonds, /connectivity/angles and /connectivity/dihedrals (H5MD 1.1 tuples of
 *   ids, each bond, angle and dihedral once) and their types (1-based, as in a LAMMPS data
 *   file) in /parameters/vesica.
 * - no unit attributes: Vesica works in reduced DPD units.
 */
#include "h5md.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5md_reactions.h"
#include "h5util.h"
#include "log.h"
#include "version.h"

#define VS_H5MD_CHUNK_ROWS 65536 /* particles per chunk of a frame (1.5 MiB of doubles) */
#define VS_H5MD_CHUNK_FRAMES 256 /* frames per chunk of step, time and observables */

/* Time series of /particles/all with one value per particle. */
static const char *const PARTICLE_SERIES[] = {"position", "velocity", "image"};
/* Observables: name, values per frame. */
static const struct {
    const char *name;
    int width;
} OBSERVABLES[] = {{"temperature", 1},      {"pressure", 1},         {"kinetic_energy", 1},
                   {"potential_energy", 1}, {"momentum", 3}};
enum { N_OBS = sizeof OBSERVABLES / sizeof OBSERVABLES[0] };

static void fail(char *err, size_t len, const char *path, const char *what)
{
    char h5[256], sys[128];
    vs_h5_system_reason(path, sys, sizeof sys);
    vs_h5_error_text(h5, sizeof h5);
    snprintf(err, len, "%s: %s (%s%s)", path, what, h5, sys);
}

static hid_t make_group(hid_t loc, const char *name)
{
    return H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

int vs_h5md_series_clock(hid_t g, hid_t position)
{
    if (position >= 0)
        return H5Lcreate_hard(position, "step", g, "step", H5P_DEFAULT, H5P_DEFAULT) < 0 ||
                       H5Lcreate_hard(position, "time", g, "time", H5P_DEFAULT, H5P_DEFAULT) < 0
                   ? -1
                   : 0;
    const hsize_t zero = 0, ch = VS_H5MD_CHUNK_FRAMES;
    const int64_t unl = -1;
    hid_t s = vs_h5_create(g, "step", H5T_NATIVE_INT64, 1, &zero, &unl, &ch, 0);
    hid_t t = vs_h5_create(g, "time", H5T_NATIVE_DOUBLE, 1, &zero, &unl, &ch, 0);
    const int rc = s < 0 || t < 0;
    if (s >= 0)
        H5Dclose(s);
    if (t >= 0)
        H5Dclose(t);
    return rc ? -1 : 0;
}

/* An empty, extendable time series group with its own value dataset of per-frame shape
 * `dims` (rank-1 of them), step and time linked to position's. */
static int make_series(hid_t parent, const char *name, hid_t type, int rank, const hsize_t *dims,
                       const hsize_t *chunk, hid_t position)
{
    hid_t g = make_group(parent, name);
    if (g < 0)
        return -1;
    int rc = vs_h5md_series_clock(g, position);
    hsize_t d[3] = {0, 0, 0}, c[3] = {0, 0, 0};
    int64_t maxd[3] = {-1, -1, -1};
    for (int k = 0; k < rank - 1; ++k) {
        d[k + 1] = dims[k];
        maxd[k + 1] = (int64_t)dims[k];
        c[k + 1] = chunk[k];
    }
    c[0] = rank == 1 ? VS_H5MD_CHUNK_FRAMES : 1;
    hid_t v = vs_h5_create(g, "value", type, rank, d, maxd, c, 0);
    rc |= v < 0;
    if (v >= 0)
        H5Dclose(v);
    H5Gclose(g);
    return rc ? -1 : 0;
}

void vs_h5md_user(char *user, size_t len)
{
    const char *u = getenv("USER");
    if (!u)
        u = getenv("LOGNAME");
    snprintf(user, len, "%s", u && *u ? u : "unknown");
}

int vs_h5md_write_header(hid_t f, const char *user)
{
    int rc = 0;
    hid_t h5md = make_group(f, "h5md");
    const int64_t version[2] = {1, 1};
    rc |= h5md < 0 || vs_h5_attr_int64(h5md, "version", version, 2);
    hid_t author = make_group(h5md, "author");
    rc |= author < 0 || vs_h5_attr_string(author, "name", user);
    H5Gclose(author);
    hid_t creator = make_group(h5md, "creator");
    rc |= creator < 0 || vs_h5_attr_string(creator, "name", "Vesica");
    rc |= vs_h5_attr_string(creator, "version", VESICA_VERSION " (git " VESICA_GIT_COMMIT ")");
    H5Gclose(creator);
    H5Gclose(h5md);
    return rc ? -1 : 0;
}

/* The file skeleton: /h5md, /particles/all (box, species, id, empty series), /observables. */
static int create_layout(hid_t f, const vs_par *par, const vs_params *prm)
{
    int rc = 0;
    char user[64] = "unknown";
    if (par->rank == 0)
        vs_h5md_user(user, sizeof user);
    vs_par_bcast_bytes(par, user, sizeof user, 0); /* attributes must agree on every rank */
    rc |= vs_h5md_write_header(f, user);

    hid_t particles = make_group(f, "particles");
    hid_t all = make_group(particles, "all");
    const hsize_t n = (hsize_t)prm->system.n_particles;
    const hsize_t rows = n < VS_H5MD_CHUNK_ROWS ? n : VS_H5MD_CHUNK_ROWS;
    const hsize_t per_particle[2] = {n, 3}, chunk[2] = {rows, 3};
    rc |= make_series(all, "position", H5T_NATIVE_DOUBLE, 3, per_particle, chunk, -1);
    hid_t position = H5Gopen2(all, "position", H5P_DEFAULT);
    rc |= make_series(all, "velocity", H5T_NATIVE_DOUBLE, 3, per_particle, chunk, position);
    rc |= make_series(all, "image", H5T_NATIVE_INT32, 3, per_particle, chunk, position);
    if (vs_params_oriented(prm)) /* the unit vectors n (point beads: zero rows) */
        rc |= make_series(all, "orientation", H5T_NATIVE_DOUBLE, 3, per_particle, chunk,
                          position);

    hid_t box = make_group(all, "box");
    const int64_t dim = 3;
    rc |= vs_h5_attr_int64(box, "dimension", &dim, 1);
    const char *boundary[3]; /* H5MD: "none" along an axis with walls */
    for (int d = 0; d < 3; ++d)
        boundary[d] = vs_axis_periodic(prm, d) ? "periodic" : "none";
    rc |= vs_h5_attr_strings(box, "boundary", boundary, 3);
    const hsize_t matrix[2] = {3, 3};
    rc |= make_series(box, "edges", H5T_NATIVE_DOUBLE, 3, matrix, matrix, position);
    H5Gclose(box);

    const int64_t fixed = (int64_t)n;
    const hsize_t one = rows;
    hid_t species = prm->reactions.on ? H5I_INVALID_HID /* time-dependent: h5md_reactions.c */
                    : vs_h5_create(all, "species", H5T_NATIVE_INT32, 1, &n, &fixed, &one, 0);
    const char *names[VS_MAX_SPECIES];
    for (int s = 0; s < prm->species.n; ++s)
        names[s] = prm->species.list[s].name;
    rc |= !prm->reactions.on &&
          (species < 0 || vs_h5_attr_strings(species, "names", names, prm->species.n));
    if (species >= 0)
        H5Dclose(species);
    hid_t id = vs_h5_create(all, "id", H5T_NATIVE_INT64, 1, &n, &fixed, &one, 0);
    rc |= id < 0;
    if (id >= 0)
        H5Dclose(id);

    hid_t obs = make_group(f, "observables");
    for (int k = 0; k < N_OBS; ++k) {
        const hsize_t w = (hsize_t)OBSERVABLES[k].width;
        rc |= make_series(obs, OBSERVABLES[k].name, H5T_NATIVE_DOUBLE, w == 1 ? 1 : 2, &w, &w,
                          position);
    }
    H5Gclose(obs);
    H5Gclose(position);
    H5Gclose(all);
    H5Gclose(particles);
    return rc ? -1 : 0;
}

/* species (unless they change: with_species 0) and id of this rank's slab
 * (time-independent, written once at creation). */
static int write_fixed(hid_t f, hid_t dxpl, const vs_particle_rec *slab, int64_t n, int64_t lo,
                       int with_species)
{
    int32_t *sp = VS_MALLOC(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    int64_t *id = VS_MALLOC(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; ++i) {
        sp[i] = slab[i].species;
        id[i] = slab[i].tag;
    }
    hid_t ds = with_species ? H5Dopen2(f, "particles/all/species", H5P_DEFAULT) : 0;
    hid_t di = H5Dopen2(f, "particles/all/id", H5P_DEFAULT);
    int rc = ds < 0 || di < 0;
    if (with_species) {
        rc |= vs_h5_write_rows(ds, H5T_NATIVE_INT32, dxpl, 0, 0, (hsize_t)lo, (hsize_t)n, 1, sp);
        H5Dclose(ds);
    }
    rc |= vs_h5_write_rows(di, H5T_NATIVE_INT64, dxpl, 0, 0, (hsize_t)lo, (hsize_t)n, 1, id);
    H5Dclose(di);
    free(sp);
    free(id);
    return rc ? -1 : 0;
}

/* The slab's bonds (each at its lower tag), angles (each at its vertex) or dihedrals (each at
 * its second bead) as rows of ids, with their 1-based types; returns the count (buffers
 * malloc'd). */
int64_t vs_h5md_local_tuples(const vs_particle_rec *slab, const vs_topo *topo,
                             const vs_dihedrals *dih, int64_t n, int arity, int64_t **ids,
                             int32_t **types)
{
    int64_t count = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            *ids = VS_MALLOC(sizeof(int64_t) * (size_t)(count > 0 ? arity * count : 1));
            *types = VS_MALLOC(sizeof(int32_t) * (size_t)(count > 0 ? count : 1));
            count = 0;
        }
        for (int64_t i = 0; i < n; ++i) {
            const vs_topo *t = &topo[i];
            const vs_dihedrals *dh = dih ? &dih[i] : NULL;
            const int64_t tag = slab[i].tag;
            const int m_end = arity == 2   ? t->n_bond
                              : arity == 3 ? t->n_angle
                                           : (dh ? dh->n_dihedral : 0);
            for (int m = 0; m < m_end; ++m) {
                if (arity == 2   ? t->bond[m] < tag
                    : arity == 3 ? t->angle[m][1] != tag
                                 : dh->dihedral[m][1] != tag)
                    continue;
                if (pass == 1) {
                    for (int a = 0; a < arity; ++a)
                        (*ids)[arity * count + a] = arity == 2   ? (a == 0 ? tag : t->bond[m])
                                                    : arity == 3 ? t->angle[m][a]
                                                                 : dh->dihedral[m][a];
                    (*types)[count] = 1 + (arity == 2   ? t->bond_type[m]
                                           : arity == 3 ? t->angle_type[m]
                                                        : dh->dihedral_type[m]);
                }
                ++count;
            }
        }
    }
    return count;
}

/* /connectivity/bonds, /angles and /dihedrals (H5MD 1.1: tuples of the particles' ids, here the
 * tags, with the particles group as an object reference), their types under /parameters/vesica
 * and the molecule ids as particles/all/molecule. Every dataset is created before any row is
 * written. (Rows once lost here came from Open MPI's ompio on a Cartesian communicator, not
 * from this order: files are opened on vs_par.io_comm, comm/parallel.h.) Collective. */
static int write_connectivity(hid_t f, hid_t dxpl, const vs_par *par,
                              const vs_particle_rec *slab, const vs_topo *topo,
                              const vs_dihedrals *dih, int64_t n, int64_t lo)
{
    int rc = 0;
    const hsize_t rows_chunk = VS_H5MD_CHUNK_ROWS;
    int64_t total = n;
    vs_par_sum_int64(par, &total, 1);
    hid_t all = H5Gopen2(f, "particles/all", H5P_DEFAULT);
    const hsize_t nn = (hsize_t)total;
    const hsize_t one = total < VS_H5MD_CHUNK_ROWS ? (hsize_t)total : rows_chunk;
    const int64_t fixed = total;
    hid_t dm = vs_h5_create(all, "molecule", H5T_NATIVE_INT64, 1, &nn, &fixed, &one, 0);
    rc |= dm < 0;
    hid_t conn = make_group(f, "connectivity");
    hid_t params = make_group(f, "parameters");
    hid_t vesica = make_group(params, "vesica");
    hobj_ref_t ref;
    rc |= H5Rcreate(&ref, f, "/particles/all", H5R_OBJECT, -1) < 0;
    const char *names[3] = {"bonds", "angles", "dihedrals"},
               *type_names[3] = {"bond_type", "angle_type", "dihedral_type"};
    int64_t *ids[3] = {NULL, NULL, NULL}, mine[3], row0[3];
    int32_t *types[3] = {NULL, NULL, NULL};
    hid_t d[3], t[3];
    for (int k = 0; k < 3; ++k) {
        const int arity = 2 + k;
        mine[k] = vs_h5md_local_tuples(slab, topo, dih, n, arity, &ids[k], &types[k]);
        row0[k] = vs_par_exscan_int64(par, mine[k]);
        int64_t count = mine[k];
        vs_par_sum_int64(par, &count, 1);
        const hsize_t dims[2] = {(hsize_t)count, (hsize_t)arity};
        const hsize_t chunk[2] = {count > 0 && count < VS_H5MD_CHUNK_ROWS ? (hsize_t)count
                                                                          : rows_chunk,
                                  (hsize_t)arity};
        const int64_t maxd[2] = {-1, arity};
        d[k] = vs_h5_create(conn, names[k], H5T_NATIVE_INT64, 2, dims, maxd, chunk, 0);
        t[k] = vs_h5_create(vesica, type_names[k], H5T_NATIVE_INT32, 1, dims, maxd, chunk, 0);
        rc |= d[k] < 0 || t[k] < 0;
        if (d[k] >= 0) {
            hid_t sp = H5Screate(H5S_SCALAR);
            hid_t a = H5Acreate2(d[k], "particles_group", H5T_STD_REF_OBJ, sp, H5P_DEFAULT,
                                 H5P_DEFAULT);
            rc |= a < 0 || H5Awrite(a, H5T_STD_REF_OBJ, &ref) < 0;
            if (a >= 0)
                H5Aclose(a);
            H5Sclose(sp);
        }
    }
    /* then the rows */
    int64_t *mol = VS_MALLOC(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; ++i)
        mol[i] = topo[i].mol;
    rc |= dm < 0 || vs_h5_write_rows(dm, H5T_NATIVE_INT64, dxpl, 0, 0, (hsize_t)lo, (hsize_t)n,
                                     1, mol) != 0;
    free(mol);
    for (int k = 0; k < 3; ++k) {
        rc |= d[k] < 0 || vs_h5_write_rows(d[k], H5T_NATIVE_INT64, dxpl, 0, 0, (hsize_t)row0[k],
                                           (hsize_t)mine[k], (hsize_t)(2 + k), ids[k]) != 0;
        rc |= t[k] < 0 || vs_h5_write_rows(t[k], H5T_NATIVE_INT32, dxpl, 0, 0, (hsize_t)row0[k],
                                           (hsize_t)mine[k], 1, types[k]) != 0;
        if (d[k] >= 0)
            H5Dclose(d[k]);
        if (t[k] >= 0)
            H5Dclose(t[k]);
        free(ids[k]);
        free(types[k]);
    }
    if (dm >= 0)
        H5Dclose(dm);
    H5Gclose(vesica);
    H5Gclose(params);
    H5Gclose(conn);
    H5Gclose(all);
    return rc ? -1 : 0;
}

/* Set the frame count of every time series (step and time are shared: once). */
static int set_frames(hid_t f, hsize_t frames)
{
    int rc = 0;
    char name[128];
    hsize_t dims[3];
    const char *series[] = {"position", "velocity", "image", "box/edges", "orientation"};
    for (int k = 0; k < 5; ++k) {
        snprintf(name, sizeof name, "particles/all/%s/value", series[k]);
        if (k == 4 && H5Lexists(f, "particles/all/orientation", H5P_DEFAULT) <= 0)
            break;
        hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
        hid_t s = H5Dget_space(d);
        H5Sget_simple_extent_dims(s, dims, NULL);
        dims[0] = frames;
        rc |= d < 0 || H5Dset_extent(d, dims) < 0;
        H5Sclose(s);
        H5Dclose(d);
    }
    for (int k = 0; k < N_OBS; ++k) {
        snprintf(name, sizeof name, "observables/%s/value", OBSERVABLES[k].name);
        hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
        dims[0] = frames;
        dims[1] = (hsize_t)OBSERVABLES[k].width;
        rc |= d < 0 || H5Dset_extent(d, dims) < 0;
        H5Dclose(d);
    }
    rc |= vs_h5md_rx_set_frames(f, frames) != 0;
    const char *shared[] = {"particles/all/position/step", "particles/all/position/time"};
    for (int k = 0; k < 2; ++k) {
        hid_t d = H5Dopen2(f, shared[k], H5P_DEFAULT);
        dims[0] = frames;
        rc |= d < 0 || H5Dset_extent(d, dims) < 0;
        H5Dclose(d);
    }
    return rc ? -1 : 0;
}

static int write_frame(hid_t f, hid_t dxpl, int root, hsize_t frame, const vs_params *prm,
                       const vs_thermo *t, const vs_frame_fields *ff)
{
    int rc = 0;
    const void *series[3] = {ff->x, ff->v, ff->image};
    for (int k = 0; k < 3; ++k) {
        char name[64];
        snprintf(name, sizeof name, "particles/all/%s/value", PARTICLE_SERIES[k]);
        hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
        rc |= d < 0 || vs_h5_write_rows(d, k == 2 ? H5T_NATIVE_INT32 : H5T_NATIVE_DOUBLE, dxpl,
                                        1, frame, (hsize_t)ff->lo, (hsize_t)ff->n, 3,
                                        series[k]) != 0;
        H5Dclose(d);
    }
    if (ff->orient) {
        hid_t d = H5Dopen2(f, "particles/all/orientation/value", H5P_DEFAULT);
        rc |= d < 0 || vs_h5_write_rows(d, H5T_NATIVE_DOUBLE, dxpl, 1, frame, (hsize_t)ff->lo,
                                        (hsize_t)ff->n, 3, ff->orient) != 0;
        H5Dclose(d);
    }

    const double edges[9] = {prm->system.box[0], 0, 0, 0, prm->system.box[1], 0, 0, 0,
                             prm->system.box[2]};
    hid_t d = H5Dopen2(f, "particles/all/box/edges/value", H5P_DEFAULT);
    rc |= d < 0 ||
          vs_h5_write_rows(d, H5T_NATIVE_DOUBLE, dxpl, 1, frame, 0, root ? 3 : 0, 3, edges);
    H5Dclose(d);
    d = H5Dopen2(f, "particles/all/position/step", H5P_DEFAULT);
    rc |= d < 0 || vs_h5_write_element(d, H5T_NATIVE_INT64, dxpl, root, frame, 1, &t->step);
    H5Dclose(d);
    d = H5Dopen2(f, "particles/all/position/time", H5P_DEFAULT);
    rc |= d < 0 || vs_h5_write_element(d, H5T_NATIVE_DOUBLE, dxpl, root, frame, 1, &t->time);
    H5Dclose(d);
    const double *values[N_OBS] = {&t->temperature, &t->pressure, &t->kinetic, &t->potential,
                                   t->momentum};
    for (int k = 0; k < N_OBS; ++k) {
        char name[64];
        snprintf(name, sizeof name, "observables/%s/value", OBSERVABLES[k].name);
        d = H5Dopen2(f, name, H5P_DEFAULT);
        rc |= d < 0 || vs_h5_write_element(d, H5T_NATIVE_DOUBLE, dxpl, root, frame,
                                           (hsize_t)OBSERVABLES[k].width, values[k]);
        H5Dclose(d);
    }
    return rc ? -1 : 0;
}

void vs_frame_fields_reserve(vs_frame_fields *ff, int64_t n)
{
    if (n <= ff->cap && ff->x)
        return;
    vs_frame_fields_free(ff);
    const size_t m = 3 * (size_t)(n > 0 ? n : 1);
    ff->x = VS_MALLOC(sizeof(double) * m);
    ff->v = VS_MALLOC(sizeof(double) * m);
    ff->image = VS_MALLOC(sizeof(int32_t) * m);
    ff->cap = n;
}

void vs_frame_fields_free(vs_frame_fields *ff)
{
    free(ff->x);
    free(ff->v);
    free(ff->image);
    free(ff->orient);
    memset(ff, 0, sizeof *ff);
}

void vs_frame_fields_orient(vs_frame_fields *ff, const vs_orient *o)
{
    free(ff->orient);
    ff->orient = VS_MALLOC(sizeof(double) * 3 * (size_t)(ff->n > 0 ? ff->n : 1));
    for (int64_t i = 0; i < ff->n; ++i)
        for (int d = 0; d < 3; ++d)
            ff->orient[3 * i + d] = o[i].n[d];
}

void vs_frame_fields_from_slab(vs_frame_fields *ff, const vs_particle_rec *slab, int64_t n,
                               int64_t lo, const double box[3])
{
    vs_frame_fields_reserve(ff, n);
    ff->n = n;
    ff->lo = lo;
    for (int64_t i = 0; i < n; ++i)
        vs_frame_fields_set(ff, i, slab[i].x, slab[i].v, slab[i].image, box);
}

int vs_h5md_append(const vs_par *par, const char *path, int create, const vs_params *prm,
                   const vs_thermo *t, const vs_frame_fields *ff, const vs_particle_rec *slab,
                   const vs_topo *topo, const vs_dihedrals *dih, double *bytes, char *err,
                   size_t err_len)
{
    const int64_t n = ff->n, slab_lo = ff->lo;
    vs_h5_quiet();
    hid_t fapl = vs_h5_fapl(par), dxpl = vs_h5_dxpl(1);
    int rc = 0;
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                     : H5Fopen(path, H5F_ACC_RDWR, fapl);
    if (f < 0)
        vs_h5_note_error();
    char local_err[VS_H5_ERR_LEN] = "";
    if (f < 0) {
        fail(local_err, sizeof local_err, path, create ? "cannot create" : "cannot open");
        rc = -1;
    } else if (create && (create_layout(f, par, prm) != 0 ||
                          (prm->reactions.on && vs_h5md_rx_layout(f, prm) != 0) ||
                          (topo && !prm->reactions.on &&
                           write_connectivity(f, dxpl, par, slab, topo, dih, n, slab_lo) != 0) ||
                          write_fixed(f, dxpl, slab, n, slab_lo, !prm->reactions.on) != 0)) {
        fail(local_err, sizeof local_err, path, "cannot write the trajectory layout");
        rc = -1;
    }
    if (rc == 0) {
        hid_t step = H5Dopen2(f, "particles/all/position/step", H5P_DEFAULT);
        const int64_t frames = step >= 0 ? vs_h5_extent0(step) : -1;
        if (step >= 0)
            H5Dclose(step);
        if (frames < 0 || set_frames(f, (hsize_t)frames + 1) != 0 ||
            write_frame(f, dxpl, par->rank == 0, (hsize_t)frames, prm, t, ff) != 0 ||
            (prm->reactions.on && vs_h5md_rx_frame(f, dxpl, par, (hsize_t)frames, slab, topo,
                                                   dih, n, slab_lo) != 0)) {
            fail(local_err, sizeof local_err, path, "cannot write a trajectory frame");
            rc = -1;
        }
    }
    /* flush first, so that a failure shows here and not inside the close (h5util.h) */
    if (f >= 0 && H5Fflush(f, H5F_SCOPE_LOCAL) < 0 && rc == 0) {
        vs_h5_note_error();
        fail(local_err, sizeof local_err, path, "cannot write a trajectory frame");
        rc = -1;
    }
    if (f >= 0 && vs_h5_close_file(f) != 0 && rc == 0) {
        fail(local_err, sizeof local_err, path, "cannot close");
        rc = -1;
    }
    H5Pclose(dxpl);
    H5Pclose(fapl);
    *bytes = (double)prm->system.n_particles * (2 * 3 * sizeof(double) + 3 * sizeof(int32_t));
    if (vs_par_agree_error(par, rc != 0, local_err, sizeof local_err)) {
        snprintf(err, err_len, "%s", local_err);
        return -1;
    }
    return 0;
}

int64_t vs_h5md_trim(const vs_par *par, const char *path, int64_t max_step, char *err,
                     size_t err_len)
{
    vs_h5_quiet();
    hid_t fapl = vs_h5_fapl(par);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, fapl);
    if (f < 0)
        vs_h5_note_error();
    H5Pclose(fapl);
    char local_err[VS_H5_ERR_LEN] = "";
    int64_t keep = -1;
    if (f < 0) {
        fail(local_err, sizeof local_err, path, "cannot open the trajectory to append to it");
    } else {
        hid_t d = H5Dopen2(f, "particles/all/position/step", H5P_DEFAULT);
        const int64_t frames = d >= 0 ? vs_h5_extent0(d) : -1;
        int64_t *steps = VS_MALLOC(sizeof(int64_t) * (size_t)(frames > 0 ? frames : 1));
        hid_t dxpl = vs_h5_dxpl(1);
        if (frames >= 0 && (frames == 0 || vs_h5_read_rows(d, H5T_NATIVE_INT64, dxpl, 0, 0, 0,
                                                           (hsize_t)frames, 1, steps) == 0)) {
            keep = 0;
            while (keep < frames && steps[keep] <= max_step)
                ++keep;
        }
        H5Pclose(dxpl);
        free(steps);
        if (d >= 0)
            H5Dclose(d);
        if (keep < 0 || set_frames(f, (hsize_t)keep) != 0) {
            fail(local_err, sizeof local_err, path, "not a Vesica H5MD trajectory");
            keep = -1;
        }
        if (vs_h5_close_file(f) != 0 && keep >= 0) {
            fail(local_err, sizeof local_err, path, "cannot close");
            keep = -1;
        }
    }
    if (vs_par_agree_error(par, keep < 0, local_err, sizeof local_err)) {
        snprintf(err, err_len, "%s", local_err);
        return -1;
    }
    return keep;
}
