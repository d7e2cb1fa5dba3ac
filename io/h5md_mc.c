/* The Monte Carlo trajectory: see h5md_mc.h and docs/file-formats.md.
 *
 * The choices of the MD trajectory (h5md.c) where they apply: box/edges as 3 x 3 matrices,
 * every series of a box (and its observables) linking the position's step and time, whose
 * time is the cycle. What differs: the particles' species and ids are time-dependent (a
 * particle may enter or leave a box), each frame lists its box's particles in tag order, and
 * the per-particle series grow in width with the box's largest count, the rows beyond a
 * frame's count holding the fill values (NaN, -1).
 */
#include "h5md_mc.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5md.h"
#include "h5util.h"

#define ROWS_PER_CHUNK 1024   /* particles per chunk of a frame */
#define FRAMES_PER_CHUNK 256  /* frames per chunk of the observables */

static const char *const OBSERVABLES[] = {"particle_number", "volume", "density",
                                          "potential_energy", "pressure"};
enum { N_OBS = sizeof OBSERVABLES / sizeof OBSERVABLES[0] };
/* The per-particle series of a box: name, type, values per particle. */
static const char *const SERIES[] = {"position", "species", "id"};
enum { N_SERIES = 3 };

static void fail(char *err, size_t len, const char *path, const char *what)
{
    char h5[256];
    vs_h5_error_text(h5, sizeof h5);
    snprintf(err, len, "%s: %s (%s)", path, what, h5);
}

static hid_t series_type(int k)
{
    return k == 0 ? H5T_NATIVE_DOUBLE : k == 1 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64;
}

/* An extendable dataset of `rank` dimensions (the first the frames) holding `fill` where
 * nothing was written. */
static hid_t create_filled(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                           const hsize_t *chunk, const void *fill)
{
    hsize_t maxd[3] = {H5S_UNLIMITED, H5S_UNLIMITED, 3};
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    if (fill)
        H5Pset_fill_value(dcpl, type, fill);
    hid_t d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

/* A time series group under parent: its value dataset, and step and time of its own
 * (position < 0) or linked to position's. */
static int make_series(hid_t parent, const char *name, hid_t type, int rank,
                       const hsize_t *dims, const hsize_t *chunk, const void *fill,
                       hid_t position)
{
    hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int rc = vs_h5md_series_clock(g, position);
    hid_t v = create_filled(g, "value", type, rank, dims, chunk, fill);
    rc |= v < 0;
    if (v >= 0)
        H5Dclose(v);
    H5Gclose(g);
    return rc ? -1 : 0;
}

/* /particles/box<b> and /observables/box<b> of a new file. */
static int create_box(hid_t particles, hid_t observables, int b)
{
    char name[16];
    snprintf(name, sizeof name, "box%d", b);
    hid_t g = H5Gcreate2(particles, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    const double nan = NAN;
    const int32_t none32 = -1;
    const int64_t none64 = -1;
    const void *fills[N_SERIES] = {&nan, &none32, &none64};
    const hsize_t rows3[3] = {1, ROWS_PER_CHUNK, 3}, rows[2] = {1, ROWS_PER_CHUNK};
    const hsize_t empty3[3] = {0, 0, 3}, empty[2] = {0, 0};
    int rc = make_series(g, SERIES[0], series_type(0), 3, empty3, rows3, fills[0], -1);
    hid_t position = H5Gopen2(g, "position", H5P_DEFAULT);
    for (int k = 1; k < N_SERIES; ++k)
        rc |= make_series(g, SERIES[k], series_type(k), 2, empty, rows, fills[k], position);
    hid_t box = H5Gcreate2(g, "box", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int64_t dim = 3;
    const char *boundary[3] = {"periodic", "periodic", "periodic"};
    rc |= box < 0 || vs_h5_attr_int64(box, "dimension", &dim, 1) ||
          vs_h5_attr_strings(box, "boundary", boundary, 3);
    const hsize_t matrix[3] = {1, 3, 3}, no_matrix[3] = {0, 3, 3};
    rc |= make_series(box, "edges", H5T_NATIVE_DOUBLE, 3, no_matrix, matrix, NULL, position);
    H5Gclose(box);
    hid_t obs = H5Gcreate2(observables, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t frames = FRAMES_PER_CHUNK, none = 0;
    for (int k = 0; k < N_OBS; ++k)
        rc |= obs < 0 || make_series(obs, OBSERVABLES[k],
                                     k == 0 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, 1, &none,
                                     &frames, NULL, position);
    H5Gclose(obs);
    H5Gclose(position);
    H5Gclose(g);
    return rc ? -1 : 0;
}

static hid_t create_file(const char *path, int n_boxes, hid_t fapl)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0)
        return -1;
    char user[64];
    vs_h5md_user(user, sizeof user);
    int rc = vs_h5md_write_header(f, user);
    hid_t particles = H5Gcreate2(f, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t observables = H5Gcreate2(f, "observables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (int b = 0; b < n_boxes && !rc; ++b)
        rc |= particles < 0 || observables < 0 || create_box(particles, observables, b);
    H5Gclose(particles);
    H5Gclose(observables);
    if (rc) {
        H5Fclose(f);
        return -1;
    }
    return f;
}

/* Frame `frame` of dataset `name`: `count` rows of `cols` values of `type` (count 0: the
 * frame's one value of a 1-D series). The dataset was extended to hold it. */
/* How a rank takes part in a frame: the transfer list, whether it writes the frame's single
 * values (and the fill rows), and its rows [row0, row0 + its count) of each box's n_all. One
 * rank writing a whole file: collective 0, root 1, row0 0, n_all its count. */
typedef struct {
    hid_t dxpl;
    int root;
    int64_t n_all[2], row0[2];
} frame_part;

/* Frame `frame` of dataset `name`: rows [row0, row0 + count) of `cols` values of `type`, or
 * (single) the frame's one value of a 1-D series, written by the root. The dataset was
 * extended to hold it. */
static int write_frame(hid_t f, const char *name, hid_t type, hsize_t frame, int single,
                       const frame_part *fp, hsize_t row0, hsize_t count, hsize_t cols,
                       const void *buf)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return -1;
    const int rc =
        single ? vs_h5_write_element(d, type, fp->dxpl, fp->root, frame, 1, buf)
               : vs_h5_write_rows(d, type, fp->dxpl, 1, frame, row0, count, cols, buf);
    H5Dclose(d);
    return rc;
}

static int by_tag(const void *a, const void *b)
{
    const int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return x < y ? -1 : x > y;
}

/* One box's part of frame `t`: this rank's particles in tag order at its rows, the rows
 * beyond the box's count filled to the series' width (by the root), the edges and the
 * observables. */
static int write_box(hid_t f, int b, hsize_t t, const vs_h5md_mc_box *bx, const frame_part *fp)
{
    const vs_mc_box_data *d = &bx->box;
    const int64_t n_all = fp->n_all[b], row0 = fp->row0[b];
    char name[96];
    snprintf(name, sizeof name, "particles/box%d/position/value", b);
    int64_t width = vs_h5_extend(f, name, t + 1, (hsize_t)n_all);
    for (int k = 1; k < N_SERIES && width >= 0; ++k) {
        snprintf(name, sizeof name, "particles/box%d/%s/value", b, SERIES[k]);
        width = vs_h5_extend(f, name, t + 1, (hsize_t)width) == width ? width : -1;
    }
    if (width < 0)
        return -1;
    const int64_t pad = fp->root ? width - n_all : 0; /* the fill rows, after the count */
    const size_t w = (size_t)(d->n + pad > 0 ? d->n + pad : 1);
    int64_t *order = malloc(sizeof(int64_t) * 2 * (size_t)(d->n > 0 ? d->n : 1));
    double *x = malloc(sizeof(double) * 3 * w);
    int32_t *species = malloc(sizeof(int32_t) * w);
    int64_t *id = malloc(sizeof(int64_t) * w);
    int rc = !order || !x || !species || !id;
    for (int64_t i = 0; i < d->n && !rc; ++i) {
        order[2 * i] = d->tag[i];
        order[2 * i + 1] = i;
    }
    if (!rc)
        qsort(order, (size_t)d->n, 2 * sizeof(int64_t), by_tag);
    for (size_t r = 0; r < (size_t)(d->n + pad) && !rc; ++r) {
        const int64_t i = (int64_t)r < d->n ? order[2 * r + 1] : -1;
        for (int c = 0; c < 3; ++c)
            x[3 * r + c] = i >= 0 ? d->x[3 * i + c] : NAN;
        species[r] = i >= 0 ? d->species[i] : -1;
        id[r] = i >= 0 ? d->tag[i] : -1;
    }
    const void *bufs[N_SERIES] = {x, species, id};
    const size_t sizes[N_SERIES] = {3 * sizeof(double), sizeof(int32_t), sizeof(int64_t)};
    for (int k = 0; k < N_SERIES && width > 0; ++k) { /* every rank takes part in each */
        snprintf(name, sizeof name, "particles/box%d/%s/value", b, SERIES[k]);
        const hsize_t cols = k == 0 ? 3 : 1;
        rc |= write_frame(f, name, series_type(k), t, 0, fp, (hsize_t)row0,
                          rc ? 0 : (hsize_t)d->n, cols, bufs[k]);
        rc |= write_frame(f, name, series_type(k), t, 0, fp, (hsize_t)n_all,
                          rc ? 0 : (hsize_t)pad, cols,
                          (const char *)bufs[k] + (size_t)d->n * sizes[k]);
    }
    free(order);
    free(x);
    free(species);
    free(id);
    const double edges[9] = {d->L[0], 0, 0, 0, d->L[1], 0, 0, 0, d->L[2]};
    snprintf(name, sizeof name, "particles/box%d/box/edges/value", b);
    rc |= vs_h5_extend(f, name, t + 1, 0) < 0;
    rc |= write_frame(f, name, H5T_NATIVE_DOUBLE, t, 0, fp, 0, fp->root ? 3 : 0, 3, edges);
    const double values[N_OBS] = {0.0, bx->volume, bx->density, bx->energy, bx->pressure};
    for (int k = 0; k < N_OBS; ++k) {
        snprintf(name, sizeof name, "observables/box%d/%s/value", b, OBSERVABLES[k]);
        rc |= vs_h5_extend(f, name, t + 1, 0) < 0;
        rc |= write_frame(f, name, k == 0 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, t, 1, fp, 0,
                          0, 0, k == 0 ? (const void *)&n_all : (const void *)&values[k]);
    }
    return rc ? -1 : 0;
}

/* Append a frame, one rank writing the file (par NULL) or every rank of par its rows. */
static int append(const vs_par *par, const char *path, int create, int n_boxes, int64_t cycle,
                  const vs_h5md_mc_box *boxes, const frame_part *fp, char *err, size_t err_len)
{
    vs_h5_quiet();
    hid_t fapl = par ? vs_h5_fapl(par) : H5P_DEFAULT;
    hid_t f = create ? create_file(path, n_boxes, fapl) : H5Fopen(path, H5F_ACC_RDWR, fapl);
    if (par)
        H5Pclose(fapl);
    if (f < 0) {
        fail(err, err_len, path, create ? "cannot create the trajectory"
                                        : "cannot open the trajectory to append to it");
        return -1;
    }
    int rc = 0;
    char name[64];
    hsize_t t = 0;
    for (int b = 0; b < n_boxes && !rc; ++b) {
        snprintf(name, sizeof name, "particles/box%d/position/step", b);
        hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
        const int64_t frames = d >= 0 ? vs_h5_extent0(d) : -1;
        if (d >= 0)
            H5Dclose(d);
        rc |= frames < 0 || (b > 0 && (hsize_t)frames != t);
        t = (hsize_t)(frames > 0 ? frames : 0);
    }
    const double time = (double)cycle;
    for (int b = 0; b < n_boxes && !rc; ++b) {
        snprintf(name, sizeof name, "particles/box%d/position/step", b);
        rc |= vs_h5_extend(f, name, t + 1, 0) < 0 ||
              write_frame(f, name, H5T_NATIVE_INT64, t, 1, fp, 0, 0, 0, &cycle);
        snprintf(name, sizeof name, "particles/box%d/position/time", b);
        rc |= vs_h5_extend(f, name, t + 1, 0) < 0 ||
              write_frame(f, name, H5T_NATIVE_DOUBLE, t, 1, fp, 0, 0, 0, &time);
        if (!rc)
            rc = write_box(f, b, t, &boxes[b], fp);
    }
    if (rc)
        fail(err, err_len, path, "cannot append a frame (not a Vesica Monte Carlo trajectory?)");
    if ((par ? vs_h5_close_file(f) != 0 : H5Fclose(f) < 0) && !rc) {
        fail(err, err_len, path, "cannot close");
        rc = -1;
    }
    return rc ? -1 : 0;
}

int vs_h5md_mc_append(const char *path, int create, int n_boxes, int64_t cycle,
                      const vs_h5md_mc_box *boxes, char *err, size_t err_len)
{
    frame_part fp = {H5P_DEFAULT, 1, {0, 0}, {0, 0}};
    for (int b = 0; b < n_boxes; ++b)
        fp.n_all[b] = boxes[b].box.n;
    return append(NULL, path, create, n_boxes, cycle, boxes, &fp, err, err_len);
}

int vs_h5md_mc_append_rows(const vs_par *par, const char *path, int create, int n_boxes,
                           int64_t cycle, const vs_h5md_mc_box *boxes, const int64_t *n_all,
                           const int64_t *row0, char *err, size_t err_len)
{
    frame_part fp = {vs_h5_dxpl(1), par->rank == 0, {0, 0}, {0, 0}};
    for (int b = 0; b < n_boxes; ++b) {
        fp.n_all[b] = n_all[b];
        fp.row0[b] = row0[b];
    }
    const int failed = append(par, path, create, n_boxes, cycle, boxes, &fp, err, err_len);
    H5Pclose(fp.dxpl);
    return vs_par_agree_error(par, failed, err, err_len) ? -1 : 0;
}

int vs_h5md_mc_parallel_ok(const char *path)
{
    vs_h5_quiet();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return 0;
    hid_t d = H5Dopen2(f, "particles/box0/position/value", H5P_DEFAULT);
    H5D_alloc_time_t when = H5D_ALLOC_TIME_ERROR;
    if (d >= 0) {
        hid_t dcpl = H5Dget_create_plist(d);
        if (dcpl >= 0 && H5Pget_alloc_time(dcpl, &when) < 0)
            when = H5D_ALLOC_TIME_ERROR;
        if (dcpl >= 0)
            H5Pclose(dcpl);
        H5Dclose(d);
    }
    H5Fclose(f);
    return when == H5D_ALLOC_TIME_EARLY;
}

int64_t vs_h5md_mc_trim(const char *path, int64_t max_cycle, char *err, size_t err_len)
{
    vs_h5_quiet();
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) {
        fail(err, err_len, path, "cannot open the trajectory to append to it");
        return -1;
    }
    int64_t keep = -1;
    hid_t d = H5Dopen2(f, "particles/box0/position/step", H5P_DEFAULT);
    const int64_t frames = d >= 0 ? vs_h5_extent0(d) : -1;
    int64_t *steps = malloc(sizeof(int64_t) * (size_t)(frames > 0 ? frames : 1));
    if (frames >= 0 && steps &&
        (frames == 0 ||
         vs_h5_read_rows(d, H5T_NATIVE_INT64, H5P_DEFAULT, 0, 0, 0, (hsize_t)frames, 1, steps) ==
             0)) {
        keep = 0;
        while (keep < frames && steps[keep] <= max_cycle)
            ++keep;
    }
    free(steps);
    if (d >= 0)
        H5Dclose(d);
    char name[96];
    for (int b = 0; b < VS_MC_MAX_BOXES && keep >= 0; ++b) {
        snprintf(name, sizeof name, "particles/box%d", b);
        if (H5Lexists(f, name, H5P_DEFAULT) <= 0)
            break;
        const char *time_series[2] = {"step", "time"};
        for (int k = 0; k < 2 && keep >= 0; ++k) {
            snprintf(name, sizeof name, "particles/box%d/position/%s", b, time_series[k]);
            keep = vs_h5_extend(f, name, (hsize_t)keep, 0) < 0 ? -1 : keep;
        }
        for (int k = 0; k < N_SERIES && keep >= 0; ++k) {
            snprintf(name, sizeof name, "particles/box%d/%s/value", b, SERIES[k]);
            keep = vs_h5_extend(f, name, (hsize_t)keep, 0) < 0 ? -1 : keep;
        }
        snprintf(name, sizeof name, "particles/box%d/box/edges/value", b);
        keep = keep >= 0 && vs_h5_extend(f, name, (hsize_t)keep, 0) < 0 ? -1 : keep;
        for (int k = 0; k < N_OBS && keep >= 0; ++k) {
            snprintf(name, sizeof name, "observables/box%d/%s/value", b, OBSERVABLES[k]);
            keep = vs_h5_extend(f, name, (hsize_t)keep, 0) < 0 ? -1 : keep;
        }
    }
    if (keep < 0)
        fail(err, err_len, path, "not a Vesica Monte Carlo trajectory");
    if (H5Fclose(f) < 0 && keep >= 0) {
        fail(err, err_len, path, "cannot close");
        keep = -1;
    }
    return keep;
}
