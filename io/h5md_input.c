/* H5MD input reader (input.format = "h5md"): see input_system.h.
 *
 * From the particles group `all` (or the file's only particles group), at frame input.frame
 * (-1: the last) of the time series: position (required), velocity and image (optional),
 * box/edges (a vector or a diagonal matrix, fixed or a time series), species (fixed or a time
 * series; absent: every particle is species.[0]), id (optional: a permutation of 0..N-1 or of
 * 1..N; absent: the row is the id) and Vesica's molecule (optional). Connectivity: the tuple
 * datasets /connectivity/bonds (N x 2), /connectivity/angles (N x 3) and
 * /connectivity/dihedrals (N x 4), whose values are ids (rows where there is no id); their
 * types, numbered from 1 as in a LAMMPS data file, come from /parameters/vesica/bond_type,
 * angle_type and dihedral_type when present, else type 1. Species by
 * number: value s is species.[s]; by name: through the species dataset's `names` attribute
 * (which Vesica's trajectories carry). Orientation (optional, N x 3, fixed or a time series, read
 * only where the configuration has oriented species): the direction n of each oriented
 * particle, normalised on reading (zero length: an error); rows of point beads are ignored.
 */
#include "input_system.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"
#include "log.h"

typedef struct {
    hid_t f;
    const vs_params *prm;
    const char *path;
    char group[160]; /* particles/<name> */
    int64_t frame;   /* the frame read from time series */
    int64_t n;
    char *err;
    size_t err_len;
} h5in;

static int fail(h5in *h, const char *dataset, const char *what)
{
    snprintf(h->err, h->err_len, "%s: dataset /%s: %s", h->path, dataset, what);
    return -1;
}

static int exists(hid_t loc, const char *path) { return H5Lexists(loc, path, H5P_DEFAULT) > 0; }

/* Element `name` of the particles group: a dataset, or a time series (name/value). Returns
 * the open dataset (or -1 when absent) with its path, rank and dims. */
static hid_t open_element(h5in *h, const char *name, int *series, char *path, size_t len,
                          int *rank, hsize_t dims[4])
{
    snprintf(path, len, "%s/%s/value", h->group, name);
    *series = 1;
    if (!exists(h->f, h->group) || !exists(h->f, path)) {
        snprintf(path, len, "%s/%s", h->group, name);
        *series = 0;
        char parent[200];
        snprintf(parent, sizeof parent, "%s/%s", h->group, name);
        if (strchr(name, '/')) { /* box/edges: the box group first */
            snprintf(parent, sizeof parent, "%s/%.*s", h->group, (int)(strchr(name, '/') - name),
                     name);
            if (!exists(h->f, parent))
                return -1;
        }
        if (!exists(h->f, path))
            return -1;
        H5O_info_t info;
        if (H5Oget_info_by_name(h->f, path, &info, H5P_DEFAULT) < 0 || info.type != H5O_TYPE_DATASET)
            return -1;
    }
    hid_t d = H5Dopen2(h->f, path, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t s = H5Dget_space(d);
    *rank = H5Sget_simple_extent_ndims(s);
    if (*rank < 0 || *rank > 4)
        *rank = 4;
    else
        H5Sget_simple_extent_dims(s, dims, NULL);
    H5Sclose(s);
    return d;
}

/* A per-particle element with `cols` values per particle (cols 1: none) into buf, of memory
 * type `type`. Returns 1 (read), 0 (absent and not required) or -1. Fixes h->n and the frame
 * from position (read first). */
static int read_particles(h5in *h, const char *name, hid_t type, int cols, int required,
                          void *buf)
{
    char path[256], what[256];
    int series, rank;
    hsize_t dims[4] = {0, 0, 0, 0};
    hid_t d = open_element(h, name, &series, path, sizeof path, &rank, dims);
    if (d < 0) {
        if (!required)
            return 0;
        snprintf(path, sizeof path, "%s/%s/value", h->group, name);
        return fail(h, path, "missing (expected the positions)");
    }
    const int want = series + (cols > 1 ? 2 : 1);
    if (h->n < 0 && rank == want) { /* position: the particle count and the frame */
        h->n = (int64_t)dims[series];
        const int64_t frames = series ? (int64_t)dims[0] : 1;
        if (h->frame >= frames) {
            snprintf(what, sizeof what, "input.frame = %lld, but the file has %lld frame(s)",
                     (long long)h->frame, (long long)frames);
            H5Dclose(d);
            return fail(h, path, what);
        }
        if (h->frame < 0)
            h->frame = frames - 1;
    }
    int ok = rank == want && (int64_t)dims[series] == h->n &&
             (cols == 1 || (int)dims[series + 1] == cols) &&
             (!series || (int64_t)dims[0] > h->frame);
    if (!ok) {
        snprintf(what, sizeof what, "expected %s%lld%s values (got rank %d, %llu x %llu ...)",
                 series ? "frames x " : "", (long long)h->n, cols > 1 ? " x 3" : "", rank,
                 (unsigned long long)dims[0], (unsigned long long)dims[1]);
        H5Dclose(d);
        return fail(h, path, what);
    }
    if (buf && h->n > 0 &&
        vs_h5_read_rows(d, type, H5P_DEFAULT, series, series ? (hsize_t)h->frame : 0, 0,
                        (hsize_t)h->n, (hsize_t)cols, buf) != 0) {
        H5Dclose(d);
        return fail(h, path, "cannot be read");
    }
    H5Dclose(d);
    return 1;
}

/* box/edges: a vector of 3 or a diagonal 3 x 3 matrix, fixed or at the frame. */
static int read_box(h5in *h, double box[3])
{
    char path[256];
    int series, rank;
    hsize_t dims[4] = {0, 0, 0, 0};
    hid_t d = open_element(h, "box/edges", &series, path, sizeof path, &rank, dims);
    if (d < 0) {
        snprintf(path, sizeof path, "%s/box/edges", h->group);
        return fail(h, path, "missing (expected the box)");
    }
    const int matrix = rank == series + 2;
    double v[9] = {0};
    int ok = (rank == series + 1 || matrix) && dims[series] == 3 && (!matrix || dims[series + 1] == 3)
             && (!series || (int64_t)dims[0] > h->frame);
    ok = ok && vs_h5_read_rows(d, H5T_NATIVE_DOUBLE, H5P_DEFAULT, series,
                               series ? (hsize_t)h->frame : 0, 0, 3, matrix ? 3 : 1, v) == 0;
    H5Dclose(d);
    if (!ok)
        return fail(h, path, "expected 3 edges or a 3 x 3 matrix");
    for (int i = 0; i < 3; ++i) {
        box[i] = matrix ? v[4 * i] : v[i];
        for (int j = 0; matrix && j < 3; ++j)
            if (i != j && v[3 * i + j] != 0.0)
                return fail(h, path, "a triclinic box is not supported (off-diagonal edges)");
        if (!(box[i] > 0.0) || !isfinite(box[i]))
            return fail(h, path, "expected finite edges > 0");
    }
    return 0;
}

/* Species: by number, or by name through the `names` attribute. */
static int map_species(h5in *h, int32_t *sp)
{
    char path[256];
    snprintf(path, sizeof path, "%s/species", h->group);
    int32_t map[VS_MAX_SPECIES * 4];
    int n_map = 0;
    if (h->prm->input.species_by_name) {
        hid_t d = H5Dopen2(h->f, exists(h->f, path) ? path : strcat(path, "/value"), H5P_DEFAULT);
        hid_t a = d >= 0 && H5Aexists(d, "names") > 0 ? H5Aopen(d, "names", H5P_DEFAULT) : -1;
        hid_t t = a >= 0 ? H5Aget_type(a) : -1, s = a >= 0 ? H5Aget_space(a) : -1;
        const hssize_t count = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
        const size_t width = t >= 0 ? H5Tget_size(t) : 0;
        char *names = count > 0 && count <= VS_MAX_SPECIES * 4 && H5Tis_variable_str(t) == 0
                          ? calloc((size_t)count, width + 1) : NULL;
        hid_t mt = names ? H5Tcopy(H5T_C_S1) : -1;
        if (mt >= 0)
            H5Tset_size(mt, width + 1);
        int ok = names && H5Aread(a, mt, names) >= 0;
        for (hssize_t k = 0; ok && k < count; ++k) {
            map[k] = -1;
            for (int q = 0; q < h->prm->species.n; ++q)
                if (strcmp(names + (size_t)k * (width + 1), h->prm->species.list[q].name) == 0)
                    map[k] = q;
        }
        n_map = ok ? (int)count : 0;
        free(names);
        if (mt >= 0)
            H5Tclose(mt);
        if (t >= 0)
            H5Tclose(t);
        if (s >= 0)
            H5Sclose(s);
        if (a >= 0)
            H5Aclose(a);
        if (d >= 0)
            H5Dclose(d);
        if (!ok)
            return fail(h, path, "input.species = \"name\" needs a `names` attribute of fixed-"
                        "length strings");
    }
    for (int64_t i = 0; i < h->n; ++i) {
        const int32_t s = sp[i];
        const int32_t q = h->prm->input.species_by_name ? (s >= 0 && s < n_map ? map[s] : -1)
                                                        : (s < h->prm->species.n ? s : -1);
        if (s < 0 || q < 0) {
            char what[200];
            snprintf(what, sizeof what, "particle %lld has species %d, which maps onto no "
                     "species of the configuration", (long long)i, s);
            return fail(h, path, what);
        }
        sp[i] = q;
    }
    return 0;
}

/* Tags from the id element: a permutation of 0..N-1 or 1..N. tag_of_id[id - base] = row. */
static int read_ids(h5in *h, int64_t *id_to_row, int *have_ids)
{
    int64_t *id = VS_MALLOC(sizeof(int64_t) * (size_t)(h->n > 0 ? h->n : 1));
    const int rc = read_particles(h, "id", H5T_NATIVE_INT64, 1, 0, id);
    *have_ids = rc == 1;
    int64_t base = 0;
    for (int64_t i = 0; i < h->n; ++i)
        id_to_row[i] = -1;
    if (rc == 1 && h->n > 0) {
        int64_t lo = id[0];
        for (int64_t i = 1; i < h->n; ++i)
            lo = id[i] < lo ? id[i] : lo;
        base = lo == 1 ? 1 : 0;
        for (int64_t i = 0; i < h->n; ++i) {
            const int64_t k = id[i] - base;
            if (k < 0 || k >= h->n || id_to_row[k] >= 0) {
                char path[256], what[200];
                snprintf(path, sizeof path, "%s/id", h->group);
                snprintf(what, sizeof what, "id %lld of row %lld is out of range or repeated "
                         "(expected a permutation of 0..N-1 or 1..N)", (long long)id[i],
                         (long long)i);
                free(id);
                return fail(h, path, what);
            }
            id_to_row[k] = i;
        }
    } else {
        for (int64_t i = 0; i < h->n; ++i)
            id_to_row[i] = i;
    }
    free(id);
    if (rc < 0)
        return -1;
    return (int)base;
}

/* /connectivity/<name> (arity 2: bonds, 3: angles, 4: dihedrals) onto the topology. Tuple
 * values are ids (minus `base`), i.e. tags. */
static int read_tuples(h5in *h, vs_input_system *sys, const char *name, int arity, int64_t base)
{
    char path[128], tpath[128], what[256];
    snprintf(path, sizeof path, "connectivity/%s", name);
    if (!exists(h->f, "connectivity") || !exists(h->f, path))
        return 0;
    static const char *const kinds[3] = {"bond", "angle", "dihedral"};
    snprintf(tpath, sizeof tpath, "parameters/vesica/%s_type", kinds[arity - 2]);
    hid_t d = H5Dopen2(h->f, path, H5P_DEFAULT);
    hid_t s = d >= 0 ? H5Dget_space(d) : -1;
    hsize_t dims[2] = {0, 0};
    const int rank = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
    if (rank == 2)
        H5Sget_simple_extent_dims(s, dims, NULL);
    if (s >= 0)
        H5Sclose(s);
    if (rank != 2 || (int)dims[1] != arity) {
        if (d >= 0)
            H5Dclose(d);
        snprintf(what, sizeof what, "expected tuples of %d ids", arity);
        return fail(h, path, what);
    }
    const int64_t nt = (int64_t)dims[0];
    int64_t *v = VS_MALLOC(sizeof(int64_t) * (size_t)(nt > 0 ? nt * arity : 1));
    int32_t *type = VS_MALLOC(sizeof(int32_t) * (size_t)(nt > 0 ? nt : 1));
    int rc = nt > 0 && vs_h5_read_rows(d, H5T_NATIVE_INT64, H5P_DEFAULT, 0, 0, 0, (hsize_t)nt,
                                       (hsize_t)arity, v) != 0
                 ? fail(h, path, "cannot be read") : 0;
    H5Dclose(d);
    for (int64_t k = 0; k < nt; ++k)
        type[k] = 1;
    if (rc == 0 && exists(h->f, "parameters") && exists(h->f, "parameters/vesica") &&
        exists(h->f, tpath)) {
        hid_t t = H5Dopen2(h->f, tpath, H5P_DEFAULT);
        if (t < 0 || vs_h5_extent0(t) != nt ||
            (nt > 0 && vs_h5_read_rows(t, H5T_NATIVE_INT32, H5P_DEFAULT, 0, 0, 0, (hsize_t)nt, 1,
                                       type) != 0))
            rc = fail(h, tpath, "expected one type per tuple of the connectivity");
        if (t >= 0)
            H5Dclose(t);
    }
    const int configured = arity == 2   ? h->prm->molecules.n_bond_types
                           : arity == 3 ? h->prm->molecules.n_angle_types
                                        : h->prm->molecules.n_dihedral_types;
    for (int64_t k = 0; k < nt && rc == 0; ++k) {
        int64_t tag[4];
        for (int a = 0; a < arity; ++a)
            tag[a] = v[arity * k + a] - base;
        int bad = 0;
        for (int a = 0; a < arity; ++a)
            bad |= tag[a] < 0 || tag[a] >= h->n;
        char why[200];
        if (bad) {
            snprintf(what, sizeof what, "tuple %lld names an id out of range (the particles "
                     "have %lld)", (long long)k, (long long)h->n);
            rc = fail(h, path, what);
        } else if (type[k] < 1 || type[k] > configured) {
            snprintf(what, sizeof what, "tuple %lld has type %d; bonded.%ss has %d type(s)",
                     (long long)k, type[k], kinds[arity - 2], configured);
            rc = fail(h, tpath, what);
        } else if ((arity == 2   ? vs_input_add_bond(sys->topo, tag[0], tag[1], type[k] - 1, why,
                                                     sizeof why)
                    : arity == 3 ? vs_input_add_angle(sys->topo, tag[0], tag[1], tag[2],
                                                      type[k] - 1, why, sizeof why)
                                 : vs_input_add_dihedral(sys->dih, tag, type[k] - 1, why,
                                                         sizeof why)) != 0) {
            snprintf(what, sizeof what, "tuple %lld: %s", (long long)k, why);
            rc = fail(h, path, what);
        }
    }
    if (arity == 2)
        sys->n_bonds = nt;
    else if (arity == 3)
        sys->n_angles = nt;
    else
        sys->n_dihedrals = nt;
    free(v);
    free(type);
    return rc;
}

/* The particles group: `all`, else the only one. */
static int find_group(h5in *h)
{
    if (!exists(h->f, "particles")) {
        snprintf(h->err, h->err_len, "%s: no /particles group (not an H5MD file?)", h->path);
        return -1;
    }
    if (exists(h->f, "particles/all")) {
        snprintf(h->group, sizeof h->group, "particles/all");
        return 0;
    }
    hid_t g = H5Gopen2(h->f, "particles", H5P_DEFAULT);
    H5G_info_t info;
    char name[128] = "";
    if (g >= 0 && H5Gget_info(g, &info) >= 0 && info.nlinks == 1)
        H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, 0, name, sizeof name,
                           H5P_DEFAULT);
    if (g >= 0)
        H5Gclose(g);
    if (!name[0]) {
        snprintf(h->err, h->err_len, "%s: /particles: expected a group `all` or exactly one "
                 "particles group", h->path);
        return -1;
    }
    snprintf(h->group, sizeof h->group, "particles/%s", name);
    return 0;
}

/* Every value of element `name` (3 per particle) finite: a NaN or an infinity would stop the
 * run only when the particles are first sent to their bricks. Returns 0 or -1. */
static int check_finite(h5in *h, const char *name, const double *x)
{
    for (int64_t i = 0; i < 3 * h->n; ++i)
        if (!isfinite(x[i])) {
            char path[256], what[160];
            snprintf(path, sizeof path, "%s/%s", h->group, name);
            snprintf(what, sizeof what, "row %lld has a non-finite value (%g along %c)",
                     (long long)(i / 3), x[i], "xyz"[i % 3]);
            return fail(h, path, what);
        }
    return 0;
}

/* The orientations (N x 3) where the configuration has oriented species and the file gives
 * them, in tag order (row[k]: the file row of tag k), each normalised: the same dataset a
 * trajectory writes, so a run can start from another run's frame. A point bead's row is not
 * read (trajectories write zeros there); an oriented particle's must be finite and of
 * nonzero length. Returns 0 (read, or nothing to read) or -1. */
static int read_orient(h5in *h, vs_input_system *sys, const int32_t *sp, const int64_t *row)
{
    if (!vs_params_oriented(h->prm))
        return 0;
    const size_t n = (size_t)(h->n > 0 ? h->n : 1);
    double *o = VS_MALLOC(sizeof(double) * 3 * n);
    const int got = read_particles(h, "orientation", H5T_NATIVE_DOUBLE, 3, 0, o);
    int rc = got < 0 || (got == 1 && check_finite(h, "orientation", o) != 0);
    if (got == 1 && !rc) {
        sys->orient = VS_MALLOC(sizeof(vs_orient) * n);
        memset(sys->orient, 0, sizeof(vs_orient) * n);
    }
    for (int64_t k = 0; got == 1 && !rc && k < h->n; ++k) {
        const int64_t i = row[k];
        const vs_species *s = &h->prm->species.list[sp[i]];
        if (!(s->inertia > 0.0))
            continue;
        const double *u = &o[3 * i];
        const double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        if (!(len > 0.0)) {
            char path[256], what[200];
            snprintf(path, sizeof path, "%s/orientation", h->group);
            snprintf(what, sizeof what, "row %lld (particle %lld, species %s) has length 0 "
                     "(expected a direction of nonzero length for an oriented species)",
                     (long long)i, (long long)k, s->name);
            rc = fail(h, path, what);
        }
        /* a unit vector to rounding is kept bit for bit: a frame continues exactly */
        const double scale = fabs(len * len - 1.0) < 1e-14 ? 1.0 : 1.0 / len;
        for (int d = 0; d < 3 && !rc; ++d)
            sys->orient[k].n[d] = u[d] * scale;
    }
    free(o);
    return rc ? -1 : 0;
}

/* Per-particle data in file rows, then moved to tag order. */
static int read_state(h5in *h, vs_input_system *sys)
{
    const size_t n = (size_t)(h->n > 0 ? h->n : 1);
    double *x = VS_MALLOC(sizeof(double) * 3 * n), *v = VS_MALLOC(sizeof(double) * 3 * n);
    int32_t *img = VS_MALLOC(sizeof(int32_t) * 3 * n), *sp = VS_MALLOC(sizeof(int32_t) * n);
    int64_t *mol = VS_MALLOC(sizeof(int64_t) * n), *row = VS_MALLOC(sizeof(int64_t) * n);
    memset(img, 0, sizeof(int32_t) * 3 * n);
    memset(sp, 0, sizeof(int32_t) * n);
    memset(mol, 0, sizeof(int64_t) * n);
    int rc = read_particles(h, "position", H5T_NATIVE_DOUBLE, 3, 1, x) < 0 ||
             check_finite(h, "position", x) != 0;
    int have_v = 0, have_ids = 0, base = 0;
    if (!rc)
        rc = (have_v = read_particles(h, "velocity", H5T_NATIVE_DOUBLE, 3, 0, v)) < 0 ||
             (have_v == 1 && check_finite(h, "velocity", v) != 0);
    if (!rc)
        rc = read_particles(h, "image", H5T_NATIVE_INT32, 3, 0, img) < 0;
    if (!rc) {
        const int got = read_particles(h, "species", H5T_NATIVE_INT32, 1, 0, sp);
        rc = got < 0 || (got == 1 && map_species(h, sp) != 0);
    }
    if (!rc)
        rc = read_particles(h, "molecule", H5T_NATIVE_INT64, 1, 0, mol) < 0;
    if (!rc)
        rc = (base = read_ids(h, row, &have_ids)) < 0;
    if (!rc)
        rc = read_orient(h, sys, sp, row) != 0;
    if (!rc) {
        sys->n = h->n;
        sys->has_velocities = have_v == 1;
        sys->recs = VS_MALLOC(sizeof(vs_particle_rec) * n);
        memset(sys->recs, 0, sizeof(vs_particle_rec) * n);
        if (sys->topology) {
            sys->topo = VS_MALLOC(sizeof(vs_topo) * n);
            memset(sys->topo, 0, sizeof(vs_topo) * n);
            if (h->prm->molecules.n_dihedral_types > 0) { /* else a dihedral is an unknown type */
                sys->dih = VS_MALLOC(sizeof(vs_dihedrals) * n);
                memset(sys->dih, 0, sizeof(vs_dihedrals) * n);
            }
        }
        for (int64_t k = 0; k < h->n; ++k) {
            const int64_t i = row[k];
            vs_particle_rec *p = &sys->recs[k];
            p->tag = k;
            p->species = sp[i];
            for (int d = 0; d < 3; ++d) {
                p->x[d] = x[3 * i + d];
                p->v[d] = have_v == 1 ? v[3 * i + d] : 0.0;
                p->image[d] = img[3 * i + d];
            }
            if (sys->topo)
                sys->topo[k].mol = mol[i] > 0 ? mol[i] : 0;
        }
    }
    free(x);
    free(v);
    free(img);
    free(sp);
    free(mol);
    free(row);
    if (rc)
        return -1;
    if (sys->topo && (read_tuples(h, sys, "bonds", 2, base) != 0 ||
                      read_tuples(h, sys, "angles", 3, base) != 0 ||
                      read_tuples(h, sys, "dihedrals", 4, base) != 0))
        return -1;
    return 0;
}

int vs_h5md_input_read(const vs_params *prm, int header_only, vs_input_system *sys, char *err,
                       size_t err_len)
{
    vs_h5_quiet();
    h5in h = {-1, prm, prm->input.file, "", prm->input.frame, -1, err, err_len};
    h.f = H5Fopen(h.path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (h.f < 0) {
        snprintf(err, err_len, "%s: cannot open the input file as HDF5", h.path);
        return -1;
    }
    int rc = find_group(&h);
    if (rc == 0)
        rc = read_particles(&h, "position", H5T_NATIVE_DOUBLE, 3, 1, NULL) < 0;
    if (rc == 0)
        rc = read_box(&h, sys->box);
    if (rc == 0) {
        char mol[200];
        snprintf(mol, sizeof mol, "%s/molecule", h.group);
        sys->n = h.n;
        sys->topology = exists(h.f, mol) ||
                        (exists(h.f, "connectivity") && (exists(h.f, "connectivity/bonds") ||
                                                         exists(h.f, "connectivity/angles")));
        if (h.n < 1)
            rc = fail(&h, "particles", "expected at least one particle");
        else if (!header_only) /* read_state's arrays, before it allocates them */
            rc = vs_input_check_memory(h.n, (double)(sizeof(vs_particle_rec) + sizeof(vs_topo) +
                                                     sizeof(vs_dihedrals) + sizeof(vs_orient) + 80),
                                       h.path, err, err_len);
    }
    if (rc == 0 && !header_only)
        rc = read_state(&h, sys);
    if (rc == 0)
        rc = vs_input_finish(prm, sys, h.path, err, err_len);
    H5Fclose(h.f);
    return rc ? -1 : 0;
}
