/* Checkpoints of the Monte Carlo engine: see checkpoint_mc.h. */
#define _POSIX_C_SOURCE 200809L
#include "checkpoint_mc.h"

#include <dirent.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fnv.h"
#include "fsutil.h"
#include "h5util.h"
#include "physics_keys.h"

uint64_t vs_mc_physics_hash(const vs_params *prm)
{
    const vs_mc_params *m = &prm->mc;
    uint64_t h = vs_params_physics_hash(prm);
    h = vs_fnv1a(h, &m->ensemble, sizeof m->ensemble);
    h = vs_fnv1a(h, &m->kT, sizeof m->kT);
    h = vs_fnv1a(h, &m->pressure, sizeof m->pressure);
    h = vs_fnv1a(h, &m->activity, sizeof m->activity);
    h = vs_fnv1a(h, m->box2, sizeof m->box2);
    return vs_fnv1a(h, &m->particles2, sizeof m->particles2);
}

static void ckpt_path(const char *dir, int64_t cycle, char *buf, size_t len)
{
    snprintf(buf, len, "%s/checkpoints/mc-%012lld.h5", dir, (long long)cycle);
}

/* A dataset of rows x cols (rows alone where cols is 1), contiguous. */
static hid_t make_array(hid_t g, const char *name, hid_t type, hsize_t rows, hsize_t cols)
{
    const hsize_t dims[2] = {rows, cols};
    hid_t sp = H5Screate_simple(cols > 1 ? 2 : 1, dims, NULL);
    hid_t d = H5Dcreate2(g, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(sp);
    return d;
}

static int write_array(hid_t g, const char *name, hid_t type, hsize_t rows, hsize_t cols,
                       const void *data)
{
    hid_t d = make_array(g, name, type, rows, cols);
    const int ok = d >= 0 && (rows == 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                                    data) >= 0);
    if (d >= 0)
        H5Dclose(d);
    return ok ? 0 : -1;
}

/* Rows [row0, row0 + n) of a new array of `rows` rows, written by this rank (collective: every
 * rank creates the array and takes part in the write, n = 0 included). Every call is made
 * whatever failed before it, so no rank leaves a collective call the others are in. */
static int write_rows(hid_t g, const char *name, hid_t type, hsize_t rows, hsize_t cols,
                      hid_t dxpl, hsize_t row0, hsize_t n, const void *data)
{
    hid_t d = make_array(g, name, type, rows, cols);
    int bad = d < 0;
    if (d >= 0 && rows > 0)
        bad |= vs_h5_write_rows(d, type, dxpl, 0, 0, row0, n, cols, data) != 0;
    if (d >= 0)
        H5Dclose(d);
    return bad;
}

/* The progress as flat attributes: int64 and double arrays. */
#define N_COUNTS (2 * VS_MC_MOVES * VS_MC_MAX_BOXES)
static int write_progress(hid_t f, const vs_mc_checkpoint *ck)
{
    const int64_t ints[5] = {ck->pr.cycle, ck->pr.next_tag, ck->n_boxes, (int64_t)ck->hash,
                             ck->pr.moves_per_cycle};
    /* mc_steps keeps its three values (box 0's log-volume step last) for the readers that
     * know one step; the steps per box follow in mc_log_volume_steps */
    const double steps[3] = {ck->pr.max_disp[0], ck->pr.max_disp[1], ck->pr.max_dlnv[0]};
    return vs_h5_attr_int64(f, "mc_state", ints, 5) ||
           vs_h5_attr_double(f, "mc_steps", steps, 3) ||
           vs_h5_attr_double(f, "mc_log_volume_steps", ck->pr.max_dlnv, VS_MC_MAX_BOXES) ||
           vs_h5_attr_int64(f, "mc_counts", &ck->pr.total.attempted[0][0], N_COUNTS) ||
           vs_h5_attr_int64(f, "mc_counts_at_tune", &ck->pr.at_tune.attempted[0][0], N_COUNTS);
}

static int write_file(const char *tmp, const vs_mc_checkpoint *ck, const char *config_text)
{
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return -1;
    int bad = write_progress(f, ck) ||
              write_array(f, "config", H5T_NATIVE_UCHAR, strlen(config_text), 1, config_text);
    for (int b = 0; b < ck->n_boxes && !bad; ++b) {
        char name[16];
        snprintf(name, sizeof name, "box%d", b);
        hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const vs_mc_box_data *d = &ck->box[b];
        bad = g < 0 || vs_h5_attr_double(g, "edges", d->L, 3) ||
              vs_h5_attr_int64(g, "n", &d->n, 1) ||
              write_array(g, "position", H5T_NATIVE_DOUBLE, (hsize_t)d->n, 3, d->x) ||
              write_array(g, "species", H5T_NATIVE_INT32, (hsize_t)d->n, 1, d->species) ||
              write_array(g, "tag", H5T_NATIVE_INT64, (hsize_t)d->n, 1, d->tag);
        if (g >= 0)
            H5Gclose(g);
    }
    bad |= H5Fflush(f, H5F_SCOPE_GLOBAL) < 0;
    bad |= H5Fclose(f) < 0;
    return bad ? -1 : 0;
}

/* The same file as write_file, each rank writing its rows of every box (MPI-IO over par). */
static int write_file_rows(const vs_par *par, const char *tmp, const vs_mc_checkpoint *ck,
                           const vs_mc_rows *rows, const char *config_text)
{
    hid_t fapl = vs_h5_fapl(par);
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0)
        return -1;
    hid_t dxpl = vs_h5_dxpl(1);
    const hsize_t len = strlen(config_text);
    int bad = write_progress(f, ck) != 0;
    bad |= write_rows(f, "config", H5T_NATIVE_UCHAR, len, 1, dxpl, 0,
                      par->rank == 0 ? len : 0, config_text);
    for (int b = 0; b < ck->n_boxes; ++b) {
        char name[16];
        snprintf(name, sizeof name, "box%d", b);
        hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const vs_mc_rows *r = &rows[b];
        const hsize_t n = (hsize_t)r->n_all, r0 = (hsize_t)r->row0, m = (hsize_t)r->n;
        bad |= g < 0;
        if (g < 0) /* every rank fails alike here: the group is made collectively */
            continue;
        bad |= vs_h5_attr_double(g, "edges", r->L, 3) != 0;
        bad |= vs_h5_attr_int64(g, "n", &r->n_all, 1) != 0;
        bad |= write_rows(g, "position", H5T_NATIVE_DOUBLE, n, 3, dxpl, r0, m, r->x);
        bad |= write_rows(g, "species", H5T_NATIVE_INT32, n, 1, dxpl, r0, m, r->species);
        bad |= write_rows(g, "tag", H5T_NATIVE_INT64, n, 1, dxpl, r0, m, r->tag);
        H5Gclose(g);
    }
    H5Pclose(dxpl);
    bad |= H5Fflush(f, H5F_SCOPE_GLOBAL) < 0;
    bad |= vs_h5_close_file(f) != 0;
    return bad ? -1 : 0;
}

/* The cycles of the checkpoints in dir/checkpoints (malloc'd), newest first. */
static int list_cycles(const char *dir, int64_t **out)
{
    char path[VS_PATH_LEN + 32];
    snprintf(path, sizeof path, "%s/checkpoints", dir);
    DIR *d = opendir(path);
    int n = 0, cap = 0;
    *out = NULL;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));) {
        long long c;
        char tail[8];
        if (sscanf(e->d_name, "mc-%lld.%7s", &c, tail) != 2 || strcmp(tail, "h5") != 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            int64_t *q = realloc(*out, (size_t)cap * sizeof *q);
            if (!q)
                break;
            *out = q;
        }
        (*out)[n++] = c;
    }
    closedir(d);
    for (int i = 1; i < n; ++i) /* newest first */
        for (int j = i; j > 0 && (*out)[j - 1] < (*out)[j]; --j) {
            const int64_t t = (*out)[j];
            (*out)[j] = (*out)[j - 1];
            (*out)[j - 1] = t;
        }
    return n;
}

/* Delete all but the newest `keep` checkpoints. */
static void prune(const char *output_dir, int64_t keep)
{
    char path[VS_PATH_LEN + 64];
    int64_t *cycles;
    const int n = list_cycles(output_dir, &cycles);
    for (int i = (int)keep; i < n; ++i) {
        ckpt_path(output_dir, cycles[i], path, sizeof path);
        unlink(path);
    }
    free(cycles);
}

int vs_mc_checkpoint_write(const char *output_dir, const vs_mc_checkpoint *ck,
                           const char *config_text, int64_t keep, char *err, size_t err_len)
{
    char dir[VS_PATH_LEN + 32], path[VS_PATH_LEN + 64], tmp[VS_PATH_LEN + 80];
    snprintf(dir, sizeof dir, "%s/checkpoints", output_dir);
    if (vs_mkdir_p(dir, err, err_len))
        return -1;
    ckpt_path(output_dir, ck->pr.cycle, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (write_file(tmp, ck, config_text ? config_text : "")) {
        unlink(tmp);
        snprintf(err, err_len, "%s: cannot write the checkpoint", path);
        return -1;
    }
    if (vs_rename_into_place(tmp, path, err, err_len))
        return -1;
    prune(output_dir, keep);
    return 0;
}

int vs_mc_checkpoint_write_rows(const vs_par *par, const char *output_dir,
                                const vs_mc_checkpoint *ck, const vs_mc_rows *rows,
                                const char *config_text, int64_t keep, char *err,
                                size_t err_len)
{
    char dir[VS_PATH_LEN + 32], path[VS_PATH_LEN + 64], tmp[VS_PATH_LEN + 80];
    snprintf(dir, sizeof dir, "%s/checkpoints", output_dir);
    int failed = par->rank == 0 && vs_mkdir_p(dir, err, err_len);
    if (vs_par_agree_error(par, failed, err, err_len))
        return -1;
    ckpt_path(output_dir, ck->pr.cycle, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    failed = write_file_rows(par, tmp, ck, rows, config_text ? config_text : "") != 0;
    if (vs_par_any(par, failed)) {
        if (par->rank == 0)
            unlink(tmp);
        snprintf(err, err_len, "%s: cannot write the checkpoint", path);
        return -1;
    }
    failed = par->rank == 0 && vs_rename_into_place(tmp, path, err, err_len);
    if (vs_par_agree_error(par, failed, err, err_len))
        return -1;
    if (par->rank == 0)
        prune(output_dir, keep);
    return 0;
}

int vs_mc_checkpoint_latest(const char *output_dir, char *path, size_t len)
{
    int64_t *cycles;
    const int n = list_cycles(output_dir, &cycles);
    if (n > 0)
        ckpt_path(output_dir, cycles[0], path, len);
    free(cycles);
    return n > 0 ? 0 : -1;
}

static int read_array(hid_t g, const char *name, hid_t type, hsize_t n, void *data)
{
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        return -1;
    const int ok = vs_h5_extent0(d) == (int64_t)n &&
                   (n == 0 || H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    H5Dclose(d);
    return ok ? 0 : -1;
}

static int read_box(hid_t f, int b, vs_mc_box_data *d)
{
    char name[16];
    snprintf(name, sizeof name, "box%d", b);
    hid_t g = H5Gopen2(f, name, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int bad = vs_h5_read_attr_double(g, "edges", d->L, 3) || vs_h5_read_attr_int64(g, "n", &d->n, 1) ||
              d->n < 0;
    if (!bad) {
        const size_t n = (size_t)d->n + 1;
        d->x = malloc(3 * n * sizeof *d->x);
        d->species = malloc(n * sizeof *d->species);
        d->tag = malloc(n * sizeof *d->tag);
        bad = !d->x || !d->species || !d->tag ||
              read_array(g, "position", H5T_NATIVE_DOUBLE, (hsize_t)d->n, d->x) ||
              read_array(g, "species", H5T_NATIVE_INT32, (hsize_t)d->n, d->species) ||
              read_array(g, "tag", H5T_NATIVE_INT64, (hsize_t)d->n, d->tag);
    }
    H5Gclose(g);
    return bad ? -1 : 0;
}

/* The progress and the hash (attributes of the file). Returns 0, or -1. */
static int read_progress(hid_t f, vs_mc_checkpoint *ck)
{
    int64_t ints[5];
    double steps[3];
    int bad = vs_h5_read_attr_int64(f, "mc_state", ints, 5) ||
              vs_h5_read_attr_double(f, "mc_steps", steps, 3) ||
              vs_h5_read_attr_int64(f, "mc_counts", &ck->pr.total.attempted[0][0], N_COUNTS) ||
              vs_h5_read_attr_int64(f, "mc_counts_at_tune", &ck->pr.at_tune.attempted[0][0],
                                    N_COUNTS);
    if (bad)
        return -1;
    ck->pr.cycle = ints[0];
    ck->pr.next_tag = ints[1];
    ck->n_boxes = (int)ints[2];
    ck->hash = (uint64_t)ints[3];
    ck->pr.moves_per_cycle = ints[4];
    ck->pr.max_disp[0] = steps[0];
    ck->pr.max_disp[1] = steps[1];
    /* a checkpoint written before the steps per box: both boxes take its one step */
    ck->pr.max_dlnv[0] = ck->pr.max_dlnv[1] = steps[2];
    if (H5Aexists(f, "mc_log_volume_steps") > 0)
        bad = vs_h5_read_attr_double(f, "mc_log_volume_steps", ck->pr.max_dlnv,
                                     VS_MC_MAX_BOXES);
    else
        ck->shared_log_volume_step = 1;
    return bad || ck->n_boxes < 1 || ck->n_boxes > VS_MC_MAX_BOXES || ck->pr.moves_per_cycle < 1
               ? -1
               : 0;
}

int vs_mc_checkpoint_read(const char *path, vs_mc_checkpoint *ck, char *err, size_t err_len)
{
    memset(ck, 0, sizeof *ck);
    vs_h5_quiet();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        snprintf(err, err_len, "%s: cannot open the checkpoint", path);
        return -1;
    }
    int bad = read_progress(f, ck);
    for (int b = 0; b < ck->n_boxes && !bad; ++b)
        bad = read_box(f, b, &ck->box[b]);
    H5Fclose(f);
    if (bad) {
        vs_mc_checkpoint_free(ck);
        snprintf(err, err_len, "%s: not a readable Monte Carlo checkpoint", path);
        return -1;
    }
    return 0;
}

/* This rank's rows of box b: [n r / P, n (r + 1) / P) into d (d->n their number), the box's
 * size into *n_all and the first row into *row0. Collective reads. */
static int read_box_rows(const vs_par *par, hid_t f, hid_t dxpl, int b, vs_mc_box_data *d,
                         int64_t *n_all, int64_t *row0)
{
    char name[16];
    snprintf(name, sizeof name, "box%d", b);
    hid_t g = H5Gopen2(f, name, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int64_t n = 0;
    int bad = vs_h5_read_attr_double(g, "edges", d->L, 3) || vs_h5_read_attr_int64(g, "n", &n, 1) ||
              n < 0;
    const int64_t r0 = bad ? 0 : n * par->rank / par->size;
    const int64_t m = bad ? 0 : n * (par->rank + 1) / par->size - r0;
    d->n = m;
    *n_all = n;
    *row0 = r0;
    d->x = malloc((size_t)(3 * m + 3) * sizeof *d->x);
    d->species = malloc((size_t)(m + 1) * sizeof *d->species);
    d->tag = malloc((size_t)(m + 1) * sizeof *d->tag);
    bad |= !d->x || !d->species || !d->tag;
    const char *names[3] = {"position", "species", "tag"};
    const hid_t types[3] = {H5T_NATIVE_DOUBLE, H5T_NATIVE_INT32, H5T_NATIVE_INT64};
    void *bufs[3] = {d->x, d->species, d->tag};
    for (int k = 0; k < 3 && n > 0; ++k) { /* every rank reads, a failed one too */
        hid_t ds = H5Dopen2(g, names[k], H5P_DEFAULT);
        bad |= ds < 0 || vs_h5_extent0(ds) != n;
        if (ds >= 0)
            bad |= vs_h5_read_rows(ds, types[k], dxpl, 0, 0, (hsize_t)r0, bad ? 0 : (hsize_t)m,
                                   k == 0 ? 3 : 1, bufs[k]) != 0;
        if (ds >= 0)
            H5Dclose(ds);
    }
    H5Gclose(g);
    return bad ? -1 : 0;
}

int vs_mc_checkpoint_read_rows(const vs_par *par, const char *path, vs_mc_checkpoint *ck,
                               int64_t *n_all, int64_t *row0, char *err, size_t err_len)
{
    memset(ck, 0, sizeof *ck);
    vs_h5_quiet();
    hid_t fapl = vs_h5_fapl(par);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    int failed = f < 0 || read_progress(f, ck) != 0;
    if (vs_par_any(par, failed)) {
        if (f >= 0)
            H5Fclose(f);
        snprintf(err, err_len, "%s: not a readable Monte Carlo checkpoint", path);
        return -1;
    }
    hid_t dxpl = vs_h5_dxpl(1);
    for (int b = 0; b < ck->n_boxes; ++b)
        failed |= read_box_rows(par, f, dxpl, b, &ck->box[b], &n_all[b], &row0[b]) != 0;
    H5Pclose(dxpl);
    H5Fclose(f);
    if (vs_par_any(par, failed)) {
        vs_mc_checkpoint_free(ck);
        snprintf(err, err_len, "%s: not a readable Monte Carlo checkpoint", path);
        return -1;
    }
    return 0;
}

void vs_mc_checkpoint_free(vs_mc_checkpoint *ck)
{
    for (int b = 0; b < VS_MC_MAX_BOXES; ++b) {
        free(ck->box[b].x);
        free(ck->box[b].species);
        free(ck->box[b].tag);
        ck->box[b].x = NULL;
        ck->box[b].species = NULL;
        ck->box[b].tag = NULL;
    }
}
