/* fields.h5: see fields_h5.h. */
#include "fields_h5.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"
#include "log.h"

#define VTK_TYPE "ImageData"
#define NAME_LEN 96

static hid_t open_file(const vs_par *par, const char *path, int create)
{
    vs_h5_quiet();
    hid_t fapl = vs_h5_fapl(par);
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                     : H5Fopen(path, H5F_ACC_RDWR, fapl);
    if (f < 0)
        vs_h5_note_error();
    H5Pclose(fapl);
    return f;
}

/* A 32-bit integer attribute of n values (a scalar when n = 1), as VTK's own files have. */
static int attr_int32(hid_t loc, const char *name, const int *v, hsize_t n)
{
    hid_t space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t a = H5Acreate2(loc, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
    const int rc = a < 0 || H5Awrite(a, H5T_NATIVE_INT, v) < 0 ? -1 : 0;
    if (rc)
        vs_h5_note_error();
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return rc;
}

/* A fixed-length ASCII string attribute padded with NULs and no terminator: VTK compares
 * the whole stored string with "ImageData", so its size must be the text's length. */
static int attr_text(hid_t loc, const char *name, const char *v)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, strlen(v));
    H5Tset_strpad(type, H5T_STR_NULLPAD);
    H5Tset_cset(type, H5T_CSET_ASCII);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    const int rc = a < 0 || H5Awrite(a, type, v) < 0 ? -1 : 0;
    if (rc)
        vs_h5_note_error();
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    return rc;
}

static void array_name(const vs_fields_layout *L, int k, char *buf, size_t len)
{
    snprintf(buf, len, "phi_%s", L->names[k]);
}

/* An extendible 1-D dataset of frames. */
static int make_frames(hid_t loc, const char *name, hid_t type)
{
    const hsize_t dims = 0, chunk = 64;
    const int64_t maxd = -1;
    hid_t d = vs_h5_create(loc, name, type, 1, &dims, &maxd, &chunk, 0);
    if (d < 0)
        return -1;
    H5Dclose(d);
    return 0;
}

/* The point array of species k: (frames, n_z, n_y, n_x), a frame's z-planes in chunks of at
 * most about 8 MiB. */
static int make_array(hid_t loc, const vs_fields_layout *L, int k)
{
    const hsize_t plane = (hsize_t)L->n[0] * (hsize_t)L->n[1];
    hsize_t cz = (hsize_t)(1u << 20) / plane;
    cz = cz < 1 ? 1 : (cz > (hsize_t)L->n[2] ? (hsize_t)L->n[2] : cz);
    const hsize_t dims[4] = {0, (hsize_t)L->n[2], (hsize_t)L->n[1], (hsize_t)L->n[0]};
    const hsize_t maxd[4] = {H5S_UNLIMITED, dims[1], dims[2], dims[3]};
    const hsize_t chunk[4] = {1, cz, dims[2], dims[3]};
    char name[NAME_LEN];
    array_name(L, k, name, sizeof name);
    hid_t space = H5Screate_simple(4, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 4, chunk);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    hid_t d = H5Dcreate2(loc, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (d < 0) {
        vs_h5_note_error();
        return -1;
    }
    const int rc = vs_h5_attr_string(d, "units", "density fraction phi_K = n_K / (rho0 h^3): "
                                     "the species' cloud-in-cell count at the vertex over the "
                                     "mean count of all field species per cell");
    H5Dclose(d);
    return rc;
}

/* The VTKHDF group: the image, its point arrays and the (empty) steps. */
static int create_vtk(hid_t f, const vs_fields_layout *L)
{
    hid_t g = H5Gcreate2(f, "VTKHDF", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    const int version[2] = {2, 0}; /* 2.0: temporal ImageData */
    const int extent[6] = {0, L->n[0] - 1, 0, L->n[1] - 1, 0, L->n[2] - 1};
    const double origin[3] = {0.0, 0.0, 0.0};
    const double direction[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    int rc = attr_int32(g, "Version", version, 2);
    rc |= attr_text(g, "Type", VTK_TYPE);
    rc |= attr_int32(g, "WholeExtent", extent, 6);
    rc |= vs_h5_attr_double(g, "Origin", origin, 3);
    rc |= vs_h5_attr_double(g, "Spacing", L->h, 3);
    rc |= vs_h5_attr_double(g, "Direction", direction, 9);
    hid_t pd = H5Gcreate2(g, "PointData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t st = H5Gcreate2(g, "Steps", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t off = st >= 0 ? H5Gcreate2(st, "PointDataOffsets", H5P_DEFAULT, H5P_DEFAULT,
                                     H5P_DEFAULT)
                        : -1;
    rc |= pd < 0 || st < 0 || off < 0;
    char name[NAME_LEN];
    for (int k = 0; k < L->nf && !rc; ++k) {
        array_name(L, k, name, sizeof name);
        rc |= make_array(pd, L, k);
        rc |= make_frames(off, name, H5T_NATIVE_INT64);
    }
    if (!rc) {
        array_name(L, 0, name, sizeof name);
        rc |= attr_text(pd, "Scalars", name);
        const int zero = 0;
        rc |= attr_int32(st, "NSteps", &zero, 1);
        rc |= make_frames(st, "Values", H5T_NATIVE_DOUBLE);
    }
    if (off >= 0)
        H5Gclose(off);
    if (st >= 0)
        H5Gclose(st);
    if (pd >= 0)
        H5Gclose(pd);
    H5Gclose(g);
    return rc ? -1 : 0;
}

/* The group /vesica: the frames' steps and what the file holds. */
static int create_vesica(hid_t f, const vs_fields_layout *L, const char *config_text,
                         int is_root)
{
    hid_t g = H5Gcreate2(f, "vesica", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    const int64_t n[3] = {L->n[0], L->n[1], L->n[2]};
    double box[3];
    for (int d = 0; d < 3; ++d)
        box[d] = L->h[d] * L->n[d];
    int rc = make_frames(g, "step", H5T_NATIVE_INT64);
    rc |= vs_h5_attr_strings(g, "species", L->names, L->nf);
    rc |= vs_h5_attr_int64(g, "grid", n, 3);
    rc |= vs_h5_attr_double(g, "box", box, 3);
    rc |= vs_h5_attr_string(g, "description",
                            "MD-SCF density fractions phi_K of the field species on the "
                            "periodic grid's vertices (vertex (i, j, k) at (i h_x, j h_y, "
                            "k h_z)); VTKHDF/PointData/phi_<species>[frame, k, j, i]; the "
                            "frames' steps in /vesica/step, their times in "
                            "VTKHDF/Steps/Values; sum over the vertices of sum_K phi_K = the "
                            "number of vertices");
    rc |= vs_h5_write_text(g, "configuration", config_text ? config_text : "", is_root);
    H5Gclose(g);
    return rc ? -1 : 0;
}

/* Close f (if open) and agree on the verdict: -1 with one line when any rank failed. */
static int finish(const vs_par *par, hid_t f, int bad, const char *path, const char *what,
                  char *err, size_t err_len)
{
    if (f >= 0 && vs_h5_close_file(f) != 0)
        bad = 1;
    char local[VS_H5_ERR_LEN] = "";
    if (bad) {
        char h5[256];
        vs_h5_error_text(h5, sizeof h5);
        snprintf(local, sizeof local, "%.400s: %s (%s)", path, what, h5);
    }
    if (vs_par_agree_error(par, bad, local, sizeof local)) {
        snprintf(err, err_len, "%s", local);
        return -1;
    }
    return 0;
}

int vs_fields_h5_create(const vs_par *par, const char *path, const vs_fields_layout *L,
                        const char *config_text, char *err, size_t err_len)
{
    hid_t f = open_file(par, path, 1);
    const int bad = f < 0 || create_vtk(f, L) != 0 ||
                    create_vesica(f, L, config_text, par->rank == 0) != 0;
    return finish(par, f, bad, path, "cannot create the density-field file", err, err_len);
}

/* The frames the file holds (Steps' NSteps), or -1. */
static int64_t frames_of(hid_t f)
{
    hid_t a = H5Aopen_by_name(f, "VTKHDF/Steps", "NSteps", H5P_DEFAULT, H5P_DEFAULT);
    int64_t n = -1;
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT64, &n) < 0) {
        vs_h5_note_error();
        n = -1;
    }
    if (a >= 0)
        H5Aclose(a);
    return n;
}

static int set_frames_attr(hid_t f, int64_t frames)
{
    hid_t g = H5Gopen2(f, "VTKHDF/Steps", H5P_DEFAULT);
    hid_t a = g >= 0 ? H5Aopen(g, "NSteps", H5P_DEFAULT) : -1;
    const int v = (int)frames;
    const int rc = a < 0 || H5Awrite(a, H5T_NATIVE_INT, &v) < 0 ? -1 : 0;
    if (rc)
        vs_h5_note_error();
    if (a >= 0)
        H5Aclose(a);
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

/* Grow the 1-D dataset `name` to frame + 1 entries and write entry `frame` (rank 0's). */
static int put_entry(hid_t f, const char *name, hid_t type, hsize_t frame, int root,
                     const void *v)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0) {
        vs_h5_note_error();
        return -1;
    }
    const hsize_t dims = frame + 1;
    int rc = H5Dset_extent(d, &dims) < 0;
    hid_t dxpl = vs_h5_dxpl(1);
    if (!rc)
        rc = vs_h5_write_element(d, type, dxpl, root, frame, 1, v) != 0;
    else
        vs_h5_note_error();
    H5Pclose(dxpl);
    H5Dclose(d);
    return rc ? -1 : 0;
}

/* Species k's frame `frame` from this rank's owned vertices. */
static int put_array(hid_t f, const vs_fields_layout *L, int k, hsize_t frame, const double *v)
{
    char name[2 * NAME_LEN];
    snprintf(name, sizeof name, "VTKHDF/PointData/phi_%s", L->names[k]);
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0) {
        vs_h5_note_error();
        return -1;
    }
    const hsize_t dims[4] = {frame + 1, (hsize_t)L->n[2], (hsize_t)L->n[1], (hsize_t)L->n[0]};
    const hsize_t start[4] = {frame, (hsize_t)L->a[2], (hsize_t)L->a[1], (hsize_t)L->a[0]};
    const hsize_t count[4] = {1, (hsize_t)(L->b[2] - L->a[2]), (hsize_t)(L->b[1] - L->a[1]),
                              (hsize_t)(L->b[0] - L->a[0])};
    int rc = H5Dset_extent(d, dims) < 0;
    hid_t fs = rc ? -1 : H5Dget_space(d);
    const hsize_t n = count[1] * count[2] * count[3];
    hid_t ms = H5Screate_simple(1, &n, NULL);
    hid_t dxpl = vs_h5_dxpl(1);
    rc = rc || fs < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
         H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, dxpl, v) < 0;
    if (rc)
        vs_h5_note_error();
    H5Pclose(dxpl);
    H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    H5Dclose(d);
    return rc ? -1 : 0;
}

static int append_frame(hid_t f, const vs_par *par, const vs_fields_layout *L, int64_t step,
                        double time, const double *phi)
{
    const int64_t frames = frames_of(f);
    if (frames < 0)
        return -1;
    const hsize_t t = (hsize_t)frames;
    const size_t owned = (size_t)(L->b[0] - L->a[0]) * (size_t)(L->b[1] - L->a[1]) *
                         (size_t)(L->b[2] - L->a[2]);
    const int root = par->rank == 0;
    int rc = 0;
    for (int k = 0; k < L->nf && !rc; ++k)
        rc = put_array(f, L, k, t, phi + (size_t)k * owned);
    char name[2 * NAME_LEN];
    for (int k = 0; k < L->nf && !rc; ++k) {
        snprintf(name, sizeof name, "VTKHDF/Steps/PointDataOffsets/phi_%s", L->names[k]);
        rc = put_entry(f, name, H5T_NATIVE_INT64, t, root, &frames);
    }
    if (!rc)
        rc = put_entry(f, "VTKHDF/Steps/Values", H5T_NATIVE_DOUBLE, t, root, &time);
    if (!rc)
        rc = put_entry(f, "vesica/step", H5T_NATIVE_INT64, t, root, &step);
    /* last: a reader sees the frame once everything of it is there */
    if (!rc)
        rc = set_frames_attr(f, frames + 1);
    if (!rc && H5Fflush(f, H5F_SCOPE_GLOBAL) < 0) {
        vs_h5_note_error();
        rc = -1;
    }
    return rc;
}

int vs_fields_h5_append(const vs_par *par, const char *path, const vs_fields_layout *L,
                        int64_t step, double time, const double *phi, char *err,
                        size_t err_len)
{
    hid_t f = open_file(par, path, 0);
    const int bad = f < 0 || append_frame(f, par, L, step, time, phi) != 0;
    char what[96];
    snprintf(what, sizeof what, "cannot append the fields of step %lld", (long long)step);
    return finish(par, f, bad, path, what, err, err_len);
}

/* Cut the 1-D dataset or the point array `name` to `keep` frames. */
static int cut(hid_t f, const char *name, hsize_t keep)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t space = H5Dget_space(d);
    hsize_t dims[4] = {0, 0, 0, 0};
    const int rank = H5Sget_simple_extent_ndims(space);
    H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    dims[0] = keep < dims[0] ? keep : dims[0];
    const int rc = rank < 1 || rank > 4 || H5Dset_extent(d, dims) < 0 ? -1 : 0;
    H5Dclose(d);
    return rc;
}

/* The file holds this layout: the same extent and a point array per species. */
static int same_layout(hid_t f, const vs_fields_layout *L)
{
    int extent[6] = {0, 0, 0, 0, 0, 0};
    hid_t a = H5Aopen_by_name(f, "VTKHDF", "WholeExtent", H5P_DEFAULT, H5P_DEFAULT);
    int ok = a >= 0 && H5Aread(a, H5T_NATIVE_INT, extent) >= 0;
    if (a >= 0)
        H5Aclose(a);
    for (int d = 0; d < 3 && ok; ++d)
        ok = extent[2 * d] == 0 && extent[2 * d + 1] == L->n[d] - 1;
    char name[2 * NAME_LEN];
    for (int k = 0; k < L->nf && ok; ++k) {
        snprintf(name, sizeof name, "VTKHDF/PointData/phi_%s", L->names[k]);
        ok = H5Lexists(f, name, H5P_DEFAULT) > 0;
    }
    return ok;
}

static int64_t trim_file(hid_t f, const vs_fields_layout *L, int64_t max_step)
{
    const int64_t frames = frames_of(f);
    if (frames < 0 || !same_layout(f, L))
        return -1;
    hid_t d = H5Dopen2(f, "vesica/step", H5P_DEFAULT);
    if (d < 0 || vs_h5_extent0(d) < frames) {
        if (d >= 0)
            H5Dclose(d);
        return -1;
    }
    int64_t *steps = VS_MALLOC(sizeof(int64_t) * (size_t)(frames > 0 ? frames : 1));
    hid_t dxpl = vs_h5_dxpl(1);
    int rc = frames > 0 &&
             vs_h5_read_rows(d, H5T_NATIVE_INT64, dxpl, 0, 0, 0, (hsize_t)frames, 1, steps) != 0;
    H5Pclose(dxpl);
    H5Dclose(d);
    int64_t keep = 0;
    while (!rc && keep < frames && steps[keep] <= max_step)
        ++keep;
    free(steps);
    char name[2 * NAME_LEN];
    for (int k = 0; k < L->nf && !rc; ++k) {
        snprintf(name, sizeof name, "VTKHDF/PointData/phi_%s", L->names[k]);
        rc |= cut(f, name, (hsize_t)keep);
        snprintf(name, sizeof name, "VTKHDF/Steps/PointDataOffsets/phi_%s", L->names[k]);
        rc |= cut(f, name, (hsize_t)keep);
    }
    if (!rc)
        rc = cut(f, "VTKHDF/Steps/Values", (hsize_t)keep) || cut(f, "vesica/step", (hsize_t)keep) ||
             set_frames_attr(f, keep);
    return rc ? -1 : keep;
}

int64_t vs_fields_h5_trim(const vs_par *par, const char *path, const vs_fields_layout *L,
                          int64_t max_step, char *err, size_t err_len)
{
    hid_t f = open_file(par, path, 0);
    const int64_t keep = f < 0 ? -1 : trim_file(f, L, max_step);
    if (finish(par, f, keep < 0, path, "not a density-field file of this run's grid and "
               "species, or damaged", err, err_len) != 0)
        return -1;
    return keep;
}
