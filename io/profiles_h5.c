/* profiles.h5: see profiles_h5.h. */
#include "profiles_h5.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"
#include "log.h"

static const char *const QUANTITY[4] = {"density", "velocity", "temperature",
                                        "pressure_tensor"};
static const char *const UNITS[4] = {
    "particles per unit volume (reduced units)",
    "length / time (reduced units), mass-weighted mean",
    "k_B T (energy units): sum m (v - u)^2 / (3 (n - 1))",
    "energy / volume: P_ab = (sum m (v_a - u_a) (v_b - u_b) + W_ab) / V_bin, components xx, "
    "yy, zz, xy, xz, yz; W_ab: half of each pair's r_a F_b to each particle's bin"};
static const int WIDTH[4] = {1, 3, 1, 6};   /* components per bin */
static const int OFFSET[4] = {0, 1, 4, 5};  /* in the vs_profile_q quantities */

/* The datasets of a set: the tensor's only with output.pressure_tensor. */
static int n_quantities(const vs_params *prm) { return prm->output.pressure_tensor ? 4 : 3; }

static int n_sets(const vs_params *prm)
{
    return prm->output.profiles.per_species ? 1 + prm->species.n : 1;
}

static const char *set_name(const vs_params *prm, int s)
{
    return s == 0 ? "all" : prm->species.list[s - 1].name;
}

static hid_t open_file(const vs_par *par, const char *path, int create)
{
    vs_h5_quiet();
    hid_t fapl = vs_h5_fapl(par);
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                     : H5Fopen(path, H5F_ACC_RDWR, fapl);
    H5Pclose(fapl);
    return f;
}

/* An extendible dataset of rows: [0, inner...] with an unlimited first dimension. */
static int make_rows(hid_t loc, const char *name, hid_t type, int rank, hsize_t bins,
                     hsize_t width)
{
    const hsize_t dims[3] = {0, bins, width}, chunk[3] = {16, bins, width};
    const int64_t maxd[3] = {-1, (int64_t)bins, (int64_t)width};
    hid_t d = vs_h5_create(loc, name, type, rank, dims, maxd, chunk, 0);
    if (d < 0)
        return -1;
    H5Dclose(d);
    return 0;
}

static int create_layout(hid_t f, const vs_params *prm, const char *config_text)
{
    const vs_profiles_params *q = &prm->output.profiles;
    const double len = prm->system.box[q->axis], width = len / q->bins;
    double *centres = VS_MALLOC(sizeof(double) * (size_t)q->bins);
    for (int b = 0; b < q->bins; ++b)
        centres[b] = (b + 0.5) * width;
    int rc = 0;
    const hsize_t nb = (hsize_t)q->bins;
    const int64_t maxb = q->bins;
    hid_t d = vs_h5_create(f, "bin_centers", H5T_NATIVE_DOUBLE, 1, &nb, &maxb, &nb, 0);
    hid_t dxpl = vs_h5_dxpl(1);
    rc |= d < 0;
    if (d >= 0) {
        rc |= vs_h5_write_rows(d, H5T_NATIVE_DOUBLE, dxpl, 0, 0, 0, nb, 1, centres);
        rc |= vs_h5_attr_string(d, "units", "length (reduced units), along the profile axis");
        H5Dclose(d);
    }
    H5Pclose(dxpl);
    free(centres);
    const char axis[2] = {"xyz"[q->axis], 0};
    const int64_t ints[4] = {q->bins, q->every, q->window, q->per_species};
    rc |= vs_h5_attr_string(f, "axis", axis);
    rc |= vs_h5_attr_int64(f, "bins", &ints[0], 1);
    rc |= vs_h5_attr_int64(f, "every", &ints[1], 1);
    rc |= vs_h5_attr_int64(f, "window", &ints[2], 1);
    rc |= vs_h5_attr_double(f, "box", prm->system.box, 3);
    rc |= vs_h5_attr_double(f, "bin_width", &width, 1);
    rc |= vs_h5_attr_double(f, "dt", &prm->integrator.dt, 1);
    rc |= vs_h5_attr_double(f, "half_width", &q->half_width, 1);
    if (q->window == 0)
        rc |= vs_h5_attr_double(f, "times", q->times, (hsize_t)q->n_times);
    rc |= vs_h5_attr_string(f, "configuration", config_text ? config_text : "");
    hid_t g = H5Gcreate2(f, "windows", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    rc |= g < 0;
    const char *wi[3] = {"step_first", "step_last", "samples"};
    const char *wd[2] = {"time_first", "time_last"};
    for (int k = 0; k < 3 && g >= 0; ++k)
        rc |= make_rows(g, wi[k], H5T_NATIVE_INT64, 1, 1, 1);
    for (int k = 0; k < 2 && g >= 0; ++k)
        rc |= make_rows(g, wd[k], H5T_NATIVE_DOUBLE, 1, 1, 1);
    if (g >= 0)
        H5Gclose(g);
    for (int s = 0; s < n_sets(prm); ++s) {
        hid_t gs = H5Gcreate2(f, set_name(prm, s), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        rc |= gs < 0;
        for (int k = 0; k < n_quantities(prm) && gs >= 0; ++k) {
            char name[64];
            const int rank = WIDTH[k] > 1 ? 3 : 2;
            rc |= make_rows(gs, QUANTITY[k], H5T_NATIVE_DOUBLE, rank, nb, (hsize_t)WIDTH[k]);
            snprintf(name, sizeof name, "%s_stderr", QUANTITY[k]);
            rc |= make_rows(gs, name, H5T_NATIVE_DOUBLE, rank, nb, (hsize_t)WIDTH[k]);
            hid_t dq = H5Dopen2(gs, QUANTITY[k], H5P_DEFAULT);
            if (dq >= 0) {
                rc |= vs_h5_attr_string(dq, "units", UNITS[k]);
                H5Dclose(dq);
            }
        }
        if (gs >= 0)
            H5Gclose(gs);
    }
    return rc ? -1 : 0;
}

/* Close f (if open) and agree on the verdict: -1 with one line when any rank failed. */
static int finish(const vs_par *par, hid_t f, int bad, const char *path, const char *what,
                  char *err, size_t err_len)
{
    if (f >= 0 && H5Fclose(f) < 0)
        bad = 1;
    char local[VS_H5_ERR_LEN] = "";
    if (bad) {
        char h5[256];
        vs_h5_error_text(h5, sizeof h5);
        snprintf(local, sizeof local, "%s: %s (%s)", path, what, h5);
    }
    if (vs_par_agree_error(par, bad, local, sizeof local)) {
        snprintf(err, err_len, "%s", local);
        return -1;
    }
    return 0;
}

int vs_profiles_h5_create(const vs_par *par, const char *path, const vs_params *prm,
                          const char *config_text, char *err, size_t err_len)
{
    hid_t f = open_file(par, path, 1);
    const int bad = f < 0 || create_layout(f, prm, config_text) != 0;
    return finish(par, f, bad, path, "cannot create the profiles file", err, err_len);
}

/* Grow dataset `name` to rows + 1 rows and write row `rows` (rank 0's data) from buf. */
static int put_row(hid_t loc, const char *name, hid_t type, hsize_t rows, hsize_t bins,
                   hsize_t width, int root, const void *buf)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t space = H5Dget_space(d);
    const int rank = H5Sget_simple_extent_ndims(space);
    H5Sclose(space);
    const hsize_t dims[3] = {rows + 1, bins, width};
    int rc = H5Dset_extent(d, dims) < 0;
    hid_t dxpl = vs_h5_dxpl(1);
    if (!rc && rank == 1)
        rc = vs_h5_write_element(d, type, dxpl, root, rows, 1, buf) != 0;
    else if (!rc)
        rc = vs_h5_write_rows(d, type, dxpl, 1, rows, 0, root ? bins : 0, width, buf) != 0;
    H5Pclose(dxpl);
    H5Dclose(d);
    return rc ? -1 : 0;
}

static int append_window(hid_t f, const vs_par *par, const vs_params *prm,
                         const vs_profile_window *w)
{
    const int root = par->rank == 0;
    hid_t d = H5Dopen2(f, "windows/step_last", H5P_DEFAULT);
    const int64_t rows = d >= 0 ? vs_h5_extent0(d) : -1;
    if (d >= 0)
        H5Dclose(d);
    if (rows < 0)
        return -1;
    const hsize_t r = (hsize_t)rows, nb = (hsize_t)prm->output.profiles.bins;
    int rc = put_row(f, "windows/step_first", H5T_NATIVE_INT64, r, 1, 1, root, &w->step_first);
    rc |= put_row(f, "windows/step_last", H5T_NATIVE_INT64, r, 1, 1, root, &w->step_last);
    rc |= put_row(f, "windows/samples", H5T_NATIVE_INT64, r, 1, 1, root, &w->samples);
    rc |= put_row(f, "windows/time_first", H5T_NATIVE_DOUBLE, r, 1, 1, root, &w->time_first);
    rc |= put_row(f, "windows/time_last", H5T_NATIVE_DOUBLE, r, 1, 1, root, &w->time_last);
    const hsize_t nq = (hsize_t)vs_profile_q(prm);
    double *buf = VS_MALLOC(sizeof(double) * 6 * nb);
    for (int s = 0; s < n_sets(prm) && !rc; ++s)
        for (int k = 0; k < n_quantities(prm) && !rc; ++k)
            for (int e = 0; e < 2 && !rc; ++e) {
                const double *src = (e ? w->stderr_mean : w->mean) + (size_t)s * nb * nq;
                for (hsize_t b = 0; b < nb; ++b)
                    for (int c = 0; c < WIDTH[k]; ++c)
                        buf[b * (hsize_t)WIDTH[k] + (hsize_t)c] =
                            src[b * nq + (hsize_t)(OFFSET[k] + c)];
                char name[96];
                snprintf(name, sizeof name, "%s/%s%s", set_name(prm, s), QUANTITY[k],
                         e ? "_stderr" : "");
                rc |= put_row(f, name, H5T_NATIVE_DOUBLE, r, nb, (hsize_t)WIDTH[k], root, buf);
            }
    free(buf);
    return rc ? -1 : 0;
}

int vs_profiles_h5_append(const vs_par *par, const char *path, const vs_params *prm,
                          const vs_profile_window *w, char *err, size_t err_len)
{
    hid_t f = open_file(par, path, 0);
    const int bad = f < 0 || append_window(f, par, prm, w) != 0;
    return finish(par, f, bad, path, "cannot append a window", err, err_len);
}

/* Cut dataset `name` to at most `keep` rows. */
static int cut_rows(hid_t f, const char *name, hsize_t keep)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t space = H5Dget_space(d);
    hsize_t dims[3] = {0, 0, 0};
    H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    dims[0] = keep < dims[0] ? keep : dims[0];
    const herr_t rc = H5Dset_extent(d, dims);
    H5Dclose(d);
    return rc < 0 ? -1 : 0;
}

/* Every row dataset of the file to `keep` rows. */
static int cut_all(hid_t f, const vs_params *prm, hsize_t keep)
{
    static const char *const wn[5] = {"step_first", "step_last", "samples", "time_first",
                                      "time_last"};
    int rc = 0;
    char name[96];
    for (int k = 0; k < 5; ++k) {
        snprintf(name, sizeof name, "windows/%s", wn[k]);
        rc |= cut_rows(f, name, keep);
    }
    for (int s = 0; s < n_sets(prm); ++s)
        for (int k = 0; k < n_quantities(prm); ++k)
            for (int e = 0; e < 2; ++e) {
                snprintf(name, sizeof name, "%s/%s%s", set_name(prm, s), QUANTITY[k],
                         e ? "_stderr" : "");
                rc |= cut_rows(f, name, keep);
            }
    return rc;
}

/* Windows closed by `step` are kept, the pending sums of `step` read (those of later steps
 * stay: the run rewrites each before it could be restarted from). */
static int restart_file(hid_t f, const vs_params *prm, int64_t step, double *state, size_t n,
                        int *found)
{
    hid_t d = H5Dopen2(f, "windows/step_last", H5P_DEFAULT);
    const int64_t rows = d >= 0 ? vs_h5_extent0(d) : -1;
    if (rows < 0)
        return -1;
    int64_t *last = VS_MALLOC(sizeof(int64_t) * (size_t)(rows + 1));
    hid_t dxpl = vs_h5_dxpl(1);
    int rc = rows > 0 && vs_h5_read_rows(d, H5T_NATIVE_INT64, dxpl, 0, 0, 0, (hsize_t)rows, 1,
                                         last) != 0;
    H5Dclose(d);
    hsize_t keep = 0;
    while (!rc && (int64_t)keep < rows && last[keep] <= step)
        ++keep;
    free(last);
    if (!rc)
        rc = cut_all(f, prm, keep) != 0;
    char name[64];
    snprintf(name, sizeof name, "pending/step_%lld", (long long)step);
    *found = !rc && H5Lexists(f, "pending", H5P_DEFAULT) > 0 &&
             H5Lexists(f, name, H5P_DEFAULT) > 0;
    if (*found) {
        hid_t p = H5Dopen2(f, name, H5P_DEFAULT);
        rc = p < 0 || vs_h5_extent0(p) != (int64_t)n ||
             vs_h5_read_rows(p, H5T_NATIVE_DOUBLE, dxpl, 0, 0, 0, (hsize_t)n, 1, state) != 0;
        if (p >= 0)
            H5Dclose(p);
    }
    H5Pclose(dxpl);
    return rc ? -1 : 0;
}

int vs_profiles_h5_restart(const vs_par *par, const char *path, const vs_params *prm,
                           int64_t step, double *state, size_t n, int *found, char *err,
                           size_t err_len)
{
    hid_t f = open_file(par, path, 0);
    const int bad = f < 0 || restart_file(f, prm, step, state, n, found) != 0;
    return finish(par, f, bad, path, "cannot continue the profiles of the checkpoint (move "
                  "the file away to start new profiles)", err, err_len);
}

int vs_profiles_h5_save_pending(const vs_par *par, const char *path, int64_t step,
                                const double *state, size_t n, char *err, size_t err_len)
{
    hid_t f = open_file(par, path, 0);
    int bad = f < 0;
    if (!bad && H5Lexists(f, "pending", H5P_DEFAULT) <= 0) {
        hid_t g = H5Gcreate2(f, "pending", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        bad = g < 0;
        if (g >= 0)
            H5Gclose(g);
    }
    char name[64];
    snprintf(name, sizeof name, "pending/step_%lld", (long long)step);
    if (!bad && H5Lexists(f, name, H5P_DEFAULT) > 0)
        bad = H5Ldelete(f, name, H5P_DEFAULT) < 0; /* a run that went past it and came back */
    if (!bad) {
        const hsize_t dims = n;
        const int64_t maxd = (int64_t)n;
        hid_t d = vs_h5_create(f, name, H5T_NATIVE_DOUBLE, 1, &dims, &maxd, &dims, 0);
        hid_t dxpl = vs_h5_dxpl(1);
        bad = d < 0 || vs_h5_write_rows(d, H5T_NATIVE_DOUBLE, dxpl, 0, 0, 0,
                                         par->rank == 0 ? n : 0, 1, state) != 0;
        H5Pclose(dxpl);
        if (d >= 0)
            H5Dclose(d);
    }
    return finish(par, f, bad, path, "cannot store the open window's sums", err, err_len);
}
