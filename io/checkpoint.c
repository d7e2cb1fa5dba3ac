/* Checkpoint writer and reader: see checkpoint.h and docs/file-formats.md. */
#define _POSIX_C_SOURCE 200809L
#include "checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_codes.h"
#include "physics_keys.h"
#include "checkpoint_space.h"
#include "checkpoint_state.h"
#include "checkpoint_topo.h"
#include "checkpoint_verify.h"
#include "fsutil.h"
#include "h5util.h"
#include "log.h"
#include "version.h"

/* 2: the configuration text as a dataset (any size), the code version in /complete. Version 1
 * files are still read (the restart reads neither). 3: /content_hash (checkpoint_verify.h);
 * files of versions 1 and 2 are read without it, with a warning. */
#define VS_CKPT_FORMAT_VERSION 3
#define VS_CKPT_CHUNK_ROWS 65536 /* particles per chunk: 1.5 MiB of a 3-vector of doubles */

/* The per-particle datasets under /particles: name, type, values per particle. */
typedef enum { F_TAG, F_SPECIES, F_X, F_V, F_VP, F_F, F_IMAGE, N_FIELDS } field_id;
static const struct {
    const char *name;
    int is_int, cols;
} FIELDS[N_FIELDS] = {
    [F_TAG] = {"tag", 2, 1},
    [F_SPECIES] = {"species", 1, 1},
    [F_X] = {"position", 0, 3},
    [F_V] = {"velocity", 0, 3},
    [F_VP] = {"predicted_velocity", 0, 3},
    [F_F] = {"force", 0, 3},
    [F_IMAGE] = {"image", 1, 3},
};

static hid_t field_type(int k)
{
    return FIELDS[k].is_int == 2 ? H5T_NATIVE_INT64
                                 : (FIELDS[k].is_int ? H5T_NATIVE_INT32 : H5T_NATIVE_DOUBLE);
}

/* Bytes of one particle's row of field k in the packed buffers. */
static size_t field_bytes(int k)
{
    return (size_t)FIELDS[k].cols * (FIELDS[k].is_int == 1 ? sizeof(int32_t) : sizeof(double));
}

/* Records <-> one field as a packed buffer of `cols` values per particle. */
static void gather_field(int k, const vs_particle_rec *r, int64_t n, void *buf)
{
    double *d = buf;
    int32_t *i32 = buf;
    int64_t *i64 = buf;
    for (int64_t i = 0; i < n; ++i)
        for (int c = 0; c < FIELDS[k].cols; ++c) {
            const size_t o = (size_t)i * (size_t)FIELDS[k].cols + (size_t)c;
            switch ((field_id)k) {
            case F_TAG: i64[o] = r[i].tag; break;
            case F_SPECIES: i32[o] = r[i].species; break;
            case F_X: d[o] = r[i].x[c]; break;
            case F_V: d[o] = r[i].v[c]; break;
            case F_VP: d[o] = r[i].vp[c]; break;
            case F_F: d[o] = r[i].f[c]; break;
            case F_IMAGE: i32[o] = r[i].image[c]; break;
            case N_FIELDS: break;
            }
        }
}

static void scatter_field(int k, vs_particle_rec *r, int64_t n, const void *buf)
{
    const double *d = buf;
    const int32_t *i32 = buf;
    const int64_t *i64 = buf;
    for (int64_t i = 0; i < n; ++i)
        for (int c = 0; c < FIELDS[k].cols; ++c) {
            const size_t o = (size_t)i * (size_t)FIELDS[k].cols + (size_t)c;
            switch ((field_id)k) {
            case F_TAG: r[i].tag = i64[o]; break;
            case F_SPECIES: r[i].species = i32[o]; break;
            case F_X: r[i].x[c] = d[o]; break;
            case F_V: r[i].v[c] = d[o]; break;
            case F_VP: r[i].vp[c] = d[o]; break;
            case F_F: r[i].f[c] = d[o]; break;
            case F_IMAGE: r[i].image[c] = i32[o]; break;
            case N_FIELDS: break;
            }
        }
}

void vs_checkpoint_path(const char *output_dir, int64_t step, char *buf, size_t len)
{
    snprintf(buf, len, "%s/checkpoints/ckpt_%lld.h5", output_dir, (long long)step);
}

/* Step of a file name ckpt_<digits>.h5, or -1. */
static int64_t step_of_name(const char *name)
{
    if (strncmp(name, "ckpt_", 5) != 0)
        return -1;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(name + 5, &end, 10);
    if (errno || end == name + 5 || name[5] < '0' || name[5] > '9' || strcmp(end, ".h5") != 0)
        return -1;
    return v;
}

static int compare_desc(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* Rank 0's view of the directory: steps, newest first. */
static int list_local(const char *output_dir, int64_t **steps)
{
    char dir[VS_PATH_LEN + 16];
    snprintf(dir, sizeof dir, "%s/checkpoints", output_dir);
    *steps = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const int64_t s = step_of_name(e->d_name);
        if (s < 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            *steps = VS_REALLOC(*steps, sizeof(int64_t) * (size_t)cap);
        }
        (*steps)[n++] = s;
    }
    closedir(d);
    if (n > 1)
        qsort(*steps, (size_t)n, sizeof(int64_t), compare_desc);
    return n;
}

int vs_checkpoint_list(const vs_par *par, const char *output_dir, int64_t **steps)
{
    int n = 0;
    *steps = NULL;
    if (par->rank == 0)
        n = list_local(output_dir, steps);
    vs_par_bcast_bytes(par, &n, sizeof n, 0);
    if (par->rank != 0 && n > 0)
        *steps = VS_MALLOC(sizeof(int64_t) * (size_t)n);
    if (n > 0)
        vs_par_bcast_bytes(par, *steps, sizeof(int64_t) * (size_t)n, 0);
    return n;
}

int vs_checkpoint_clean(const char *output_dir, int all)
{
    char dir[VS_PATH_LEN + 16];
    snprintf(dir, sizeof dir, "%s/checkpoints", output_dir);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *e;
    char path[2 * VS_PATH_LEN];
    while ((e = readdir(d))) {
        const size_t len = strlen(e->d_name);
        const int tmp = strncmp(e->d_name, "ckpt_", 5) == 0 && len > 4 &&
                        strcmp(e->d_name + len - 4, ".tmp") == 0;
        const int ckpt = step_of_name(e->d_name) >= 0;
        if (tmp || (all && ckpt)) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (unlink(path) == 0 && ckpt)
                ++removed;
        }
    }
    closedir(d);
    return removed;
}

/* The physics keys (physics_keys.h) as attributes of /parameters, readable back into a
 * vs_params: one attribute per key, per-species keys as one array over the species, a_ij
 * row-major, integers and enums as 64-bit integers. */

/* Largest number of doubles one attribute holds. */
#define VS_PARAM_VALUES_MAX \
    (VS_MAX_SPECIES * VS_MAX_SPECIES > 3 * VS_MAX_SPECIES ? VS_MAX_SPECIES * VS_MAX_SPECIES \
                                                          : 3 * VS_MAX_SPECIES)

static int write_key(hid_t g, const vs_physics_key *k, const vs_params *p)
{
    const int ns = p->species.n;
    const void *v = vs_physics_value(p, k, 0);
    double buf[VS_PARAM_VALUES_MAX];
    int64_t i64 = 0;
    switch (k->kind) {
    case VS_PHYS_REAL:
        if (!k->per_species)
            return vs_h5_attr_double(g, k->stored, v, (hsize_t)k->count);
        for (int i = 0; i < ns; ++i)
            for (int c = 0; c < k->count; ++c)
                buf[k->count * i + c] = ((const double *)vs_physics_value(p, k, i))[c];
        return vs_h5_attr_double(g, k->stored, buf, (hsize_t)k->count * (hsize_t)ns);
    case VS_PHYS_INT64:
        i64 = *(const int64_t *)v;
        return vs_h5_attr_int64(g, k->stored, &i64, 1);
    case VS_PHYS_SEED:
        i64 = (int64_t)*(const uint64_t *)v;
        return vs_h5_attr_int64(g, k->stored, &i64, 1);
    case VS_PHYS_ENUM: {
        if (!k->per_species) {
            i64 = *(const int *)v;
            return vs_h5_attr_int64(g, k->stored, &i64, 1);
        }
        int64_t each[VS_MAX_SPECIES];
        for (int i = 0; i < ns; ++i)
            each[i] = *(const int *)vs_physics_value(p, k, i);
        return vs_h5_attr_int64(g, k->stored, each, (hsize_t)ns);
    }
    case VS_PHYS_NAME: {
        const char *names[VS_MAX_SPECIES];
        for (int i = 0; i < ns; ++i)
            names[i] = vs_physics_value(p, k, i);
        return vs_h5_attr_strings(g, k->stored, names, ns);
    }
    case VS_PHYS_MATRIX: {
        const double(*m)[VS_MAX_SPECIES] = v;
        for (int i = 0; i < ns; ++i)
            for (int j = 0; j < ns; ++j)
                buf[i * ns + j] = m[i][j];
        return vs_h5_attr_double(g, k->stored, buf, (hsize_t)(ns * ns));
    }
    case VS_PHYS_PAIR_REAL: {
        const vs_pair_real *x = v;
        if (vs_pair_real_uniform(x, ns))
            return vs_h5_attr_double(g, k->stored, &x->v, 1);
        for (int i = 0; i < ns; ++i)
            for (int j = 0; j < ns; ++j)
                buf[i * ns + j] = x->ij[i][j];
        return vs_h5_attr_double(g, k->stored, buf, (hsize_t)(ns * ns));
    }
    case VS_PHYS_COUNT:
        break;
    }
    return 0;
}

static int write_parameters(hid_t f, const vs_params *p)
{
    hid_t g = H5Gcreate2(f, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int rc = 0;
    int n;
    const vs_physics_key *keys = vs_physics_key_list(&n);
    for (int k = 0; k < n; ++k)
        if (keys[k].stored)
            rc |= write_key(g, &keys[k], p);
    H5Gclose(g);
    return rc ? -1 : 0;
}

/* The species names attribute; its length is the species count. Returns 0 or -1. */
static int read_names(hid_t g, const vs_physics_key *k, vs_params *p)
{
    hid_t a = H5Aexists(g, k->stored) > 0 ? H5Aopen(g, k->stored, H5P_DEFAULT) : -1;
    if (a < 0)
        return -1;
    int rc = 0;
    hid_t space = H5Aget_space(a), type = H5Aget_type(a);
    const int ns = (int)H5Sget_simple_extent_npoints(space);
    const size_t width = H5Tget_size(type);
    if (ns >= 1 && ns <= VS_MAX_SPECIES && width >= 1) {
        char *buf = calloc((size_t)ns, width + 1);
        hid_t mtype = H5Tcopy(H5T_C_S1);
        H5Tset_size(mtype, width);
        if (buf && H5Aread(a, mtype, buf) >= 0)
            for (int i = 0; i < ns; ++i)
                snprintf(vs_physics_value_mut(p, k, i), VS_NAME_LEN, "%.*s", (int)width,
                         buf + (size_t)i * width);
        else
            rc = -1;
        H5Tclose(mtype);
        free(buf);
    } else {
        rc = -1;
    }
    H5Tclose(type);
    H5Sclose(space);
    H5Aclose(a);
    if (rc == 0)
        p->species.n = ns;
    return rc;
}

/* A vs_pair_real: one double (one value for every pair) or the n x n matrix, row-major. */
static int read_pair_real(hid_t g, const vs_physics_key *k, int ns, vs_pair_real *x)
{
    hid_t a = H5Aexists(g, k->stored) > 0 ? H5Aopen(g, k->stored, H5P_DEFAULT) : -1;
    if (a < 0)
        return -1;
    hid_t space = H5Aget_space(a);
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    H5Aclose(a);
    memset(x, 0, sizeof *x);
    if (n == 1)
        return vs_h5_read_attr_double(g, k->stored, &x->v, 1);
    double buf[VS_MAX_SPECIES * VS_MAX_SPECIES];
    if (n != (hssize_t)ns * ns || vs_h5_read_attr_double(g, k->stored, buf, (hsize_t)n) != 0)
        return -1;
    x->per_pair = 1;
    x->v = buf[0];
    for (int i = 0; i < ns; ++i)
        for (int j = 0; j < ns; ++j) {
            x->ij[i][j] = buf[i * ns + j];
            x->v = x->ij[i][j] > x->v ? x->ij[i][j] : x->v;
        }
    return 0;
}

static int read_key(hid_t g, const vs_physics_key *k, vs_params *p)
{
    const int ns = p->species.n;
    void *v = vs_physics_value_mut(p, k, 0);
    double buf[VS_PARAM_VALUES_MAX];
    int64_t i64 = 0;
    int rc = 0;
    switch (k->kind) {
    case VS_PHYS_REAL:
        if (!k->per_species)
            return vs_h5_read_attr_double(g, k->stored, v, (hsize_t)k->count);
        rc = vs_h5_read_attr_double(g, k->stored, buf, (hsize_t)k->count * (hsize_t)ns);
        for (int i = 0; rc == 0 && i < ns; ++i)
            for (int c = 0; c < k->count; ++c)
                ((double *)vs_physics_value_mut(p, k, i))[c] = buf[k->count * i + c];
        return rc;
    case VS_PHYS_INT64:
        rc = vs_h5_read_attr_int64(g, k->stored, &i64, 1);
        *(int64_t *)v = i64;
        return rc;
    case VS_PHYS_SEED:
        rc = vs_h5_read_attr_int64(g, k->stored, &i64, 1);
        *(uint64_t *)v = (uint64_t)i64;
        return rc;
    case VS_PHYS_ENUM: {
        if (!k->per_species) {
            rc = vs_h5_read_attr_int64(g, k->stored, &i64, 1);
            *(int *)v = (int)i64;
            return rc;
        }
        /* one value per species; checkpoints written before 2026-11-29 hold species 0's
         * alone (the others were not stored: their restart refused a run with any other
         * species frozen as damaged) */
        int64_t each[VS_MAX_SPECIES] = {0};
        if (vs_h5_read_attr_int64(g, k->stored, each, (hsize_t)ns) != 0 &&
            vs_h5_read_attr_int64(g, k->stored, each, 1) != 0)
            return -1;
        for (int i = 0; i < ns; ++i)
            *(int *)vs_physics_value_mut(p, k, i) = (int)each[i];
        return 0;
    }
    case VS_PHYS_NAME:
        return read_names(g, k, p);
    case VS_PHYS_MATRIX: {
        double(*m)[VS_MAX_SPECIES] = v;
        rc = vs_h5_read_attr_double(g, k->stored, buf, (hsize_t)(ns * ns));
        for (int i = 0; rc == 0 && i < ns; ++i)
            for (int j = 0; j < ns; ++j)
                m[i][j] = buf[i * ns + j];
        return rc;
    }
    case VS_PHYS_PAIR_REAL:
        return read_pair_real(g, k, ns, v);
    case VS_PHYS_COUNT:
        break;
    }
    return 0;
}

static int read_parameters(hid_t f, vs_params *p)
{
    memset(p, 0, sizeof *p);
    hid_t g = H5Gopen2(f, "parameters", H5P_DEFAULT);
    if (g < 0)
        return -1;
    int rc = 0;
    int n;
    const vs_physics_key *keys = vs_physics_key_list(&n);
    for (int k = 0; k < n; ++k) {
        const vs_physics_key *key = &keys[k];
        const int sized = key->per_species || key->kind == VS_PHYS_MATRIX ||
                          key->kind == VS_PHYS_PAIR_REAL;
        if (!key->stored)
            continue;
        /* checkpoints older than the flow term or the ensembles lack their keys: no flow, the
         * DPD integrator, all of them zero */
        const int late = strncmp(key->key, "flow.", 5) == 0 ||
                         strncmp(key->key, "boundary.", 9) == 0 ||
                         strcmp(key->key, "frozen") == 0 ||
                         (strncmp(key->key, "integrator.", 11) == 0 &&
                          strcmp(key->key, "integrator.dt") != 0 &&
                          strcmp(key->key, "integrator.lambda") != 0);
        if (late && H5Aexists(g, key->stored) <= 0)
            continue;
        /* and those older than the pair styles, the anisotropic style, the reactions or the
         * field their code: none, 0 */
        if ((strcmp(key->key, "pair") == 0 || strcmp(key->key, "aniso") == 0 ||
             strcmp(key->key, "reactions") == 0 || strcmp(key->key, "field") == 0) &&
            H5Aexists(g, key->stored) <= 0)
            continue;
        /* and those older than the bonded types' code theirs: not known, not compared */
        if (strcmp(key->key, "bonded") == 0 && H5Aexists(g, key->stored) <= 0) {
            p->molecules.code = -1;
            continue;
        }
        if (sized && key->kind != VS_PHYS_NAME && p->species.n == 0)
            rc = -1; /* sized by the species count, which the names did not give */
        else
            rc |= read_key(g, key, p);
    }
    H5Gclose(g);
    return rc ? -1 : 0;
}

/* Test hooks (tests/io). VESICA_TEST_CHECKPOINT_PAUSE=STEP:SECONDS makes the writer of the
 * checkpoint of STEP sleep after the data and before the completion record, so a test can
 * kill the run, or fill the disk, in the middle of that write. VESICA_TEST_CHECKPOINT_LIMIT=
 * STEP:BYTES limits the size of any file this process writes (RLIMIT_FSIZE) from the
 * checkpoint of STEP on, so that its writes fail as on a full disk, without root. */
static void test_pause(int64_t step)
{
    const char *s = getenv("VESICA_TEST_CHECKPOINT_PAUSE");
    long long at = -1;
    unsigned seconds = 0;
    if (s && sscanf(s, "%lld:%u", &at, &seconds) == 2 && at == step)
        sleep(seconds);
}

static void test_limit(int64_t step)
{
    const char *s = getenv("VESICA_TEST_CHECKPOINT_LIMIT");
    long long at = -1, bytes = 0;
    if (s && sscanf(s, "%lld:%lld", &at, &bytes) == 2 && at == step) {
        struct rlimit lim;
        getrlimit(RLIMIT_FSIZE, &lim);
        lim.rlim_cur = (rlim_t)bytes;
        signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead */
        setrlimit(RLIMIT_FSIZE, &lim);
    }
}

/* FNV-1a of a string: the code version in the completion record. */
static int64_t text_hash(const char *s)
{
    uint64_t h = 14695981039346656037ULL;
    for (; *s; ++s)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (int64_t)h;
}

#define VS_CODE_VERSION VESICA_VERSION " (git " VESICA_GIT_COMMIT ")"

/* Whether any rank failed the collective phase just done (*own: this rank did, its HDF5
 * error noted). After a failure the ranks leave the collective sequence together: a rank
 * that went on alone would wait forever in the next collective call, its peers in this one's
 * MPI-IO. Collective. */
static int phase_failed(const vs_par *par, int *own, int rc)
{
    *own |= rc != 0;
    return vs_par_any(par, *own);
}

/* The root attributes, /parameters, /integrator_state and /config_text. */
static int write_header(const vs_par *par, hid_t f, hid_t dxpl, int64_t step,
                        const vs_params *prm, const vs_ckpt_global *glob,
                        const char *config_text, uint64_t dig[], int *own)
{
    int rc = 0;
    const int64_t format = VS_CKPT_FORMAT_VERSION, n_total = prm->system.n_particles;
    const int64_t hash_i = (int64_t)vs_params_physics_hash(prm);
    const double time = (double)step * prm->integrator.dt;
    rc |= vs_h5_attr_string(f, "format", "vesica checkpoint");
    rc |= vs_h5_attr_int64(f, "format_version", &format, 1);
    rc |= vs_h5_attr_string(f, "code_version", VS_CODE_VERSION);
    rc |= vs_h5_attr_int64(f, "step", &step, 1);
    rc |= vs_h5_attr_double(f, "time", &time, 1);
    const int64_t seed = (int64_t)prm->system.seed;
    rc |= vs_h5_attr_int64(f, "seed", &seed, 1);
    rc |= vs_h5_attr_int64(f, "particles", &n_total, 1);
    rc |= vs_h5_attr_int64(f, "physics_hash", &hash_i, 1);
    rc |= write_parameters(f, prm);
    if (phase_failed(par, own, rc))
        return 1;
    if (phase_failed(par, own, vs_ckpt_ensemble_write(par, f, dxpl, glob->ens, dig)))
        return 1;
    if (glob->rx && phase_failed(par, own, vs_ckpt_reactions_write(par, f, dxpl, glob->rx)))
        return 1;
    const char *text = config_text ? config_text : "";
    rc = vs_h5_write_text(f, "config_text", text, par->rank == 0);
    if (par->rank == 0)
        dig[VS_DG_CONFIG] = vs_ckpt_rows_digest(VS_DG_CONFIG, text, 0, 1, strlen(text));
    return phase_failed(par, own, rc);
}

/* Everything but the content hash and the completion record. Returns 1 when any rank failed
 * (*own: this rank, with the HDF5 error noted), else 0. Collective. */
static int write_contents(const vs_par *par, hid_t f, hid_t dxpl, int64_t step,
                          const vs_params *prm, const vs_ckpt_global *ens,
                          const char *config_text,
                          const vs_particle_rec *slab, const vs_particle_ext *ext,
                          int64_t n, int64_t lo, uint64_t dig[], int *own)
{
    if (write_header(par, f, dxpl, step, prm, ens, config_text, dig, own))
        return 1;
    const int64_t n_total = prm->system.n_particles;
    hid_t g = H5Gcreate2(f, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        vs_h5_note_error();
    if (phase_failed(par, own, g < 0)) {
        if (g >= 0)
            H5Gclose(g);
        return 1;
    }
    const hsize_t rows = n_total < VS_CKPT_CHUNK_ROWS ? (hsize_t)n_total : VS_CKPT_CHUNK_ROWS;
    void *buf = VS_MALLOC(sizeof(double) * 3 * (size_t)(n > 0 ? n : 1));
    int stop = 0;
    for (int k = 0; k < N_FIELDS && !stop; ++k) {
        const hsize_t dims[2] = {(hsize_t)n_total, (hsize_t)FIELDS[k].cols};
        const int64_t maxd[2] = {n_total, FIELDS[k].cols};
        const hsize_t chunk[2] = {rows, (hsize_t)FIELDS[k].cols};
        const int rank = FIELDS[k].cols == 1 ? 1 : 2;
        hid_t d = vs_h5_create(g, FIELDS[k].name, field_type(k), rank, dims, maxd, chunk, 1);
        if (d < 0)
            vs_h5_note_error();
        gather_field(k, slab, n, buf);
        dig[VS_DG_PARTICLES + k] = vs_ckpt_rows_digest(VS_DG_PARTICLES + k, buf, lo, n,
                                                       field_bytes(k));
        const int rc = d < 0 || vs_h5_write_rows(d, field_type(k), dxpl, 0, 0, (hsize_t)lo,
                                                 (hsize_t)n, (hsize_t)FIELDS[k].cols, buf) != 0;
        if (d >= 0)
            H5Dclose(d);
        stop = phase_failed(par, own, rc);
    }
    free(buf);
    if (!stop && ext && ext->topo)
        stop = phase_failed(par, own, vs_ckpt_topo_write(par, g, dxpl, ext->topo, ext->dih, n,
                                                         lo, n_total, rows, dig));
    if (!stop && ext && ext->special)
        stop = phase_failed(par, own, vs_ckpt_special_write(g, dxpl, ext->special, n, lo,
                                                            n_total, rows, dig));
    if (!stop && ext && ext->orient) /* n, u, g: the rotation restarts exactly */
        stop = phase_failed(par, own, vs_ckpt_orient_write(par, g, dxpl, ext->orient, n, lo, n_total, rows));
    H5Gclose(g);
    return stop;
}

/* The completion record, last: step, particle count, physics hash, code version. Returns 0
 * or 1 (this rank failed, the HDF5 error noted). */
static int write_completion(const vs_par *par, hid_t f, hid_t dxpl, int64_t step,
                            const vs_params *prm)
{
    const int64_t record[4] = {step, prm->system.n_particles, (int64_t)vs_params_physics_hash(prm),
                               text_hash(VS_CODE_VERSION)};
    return vs_h5_write_vector(f, "complete", H5T_NATIVE_INT64, dxpl, par->rank == 0, 4, record,
                              NULL);
}

/* Write everything into the temporary file. Returns 0, or -1 with err filled on the ranks
 * whose own HDF5 calls failed (every rank has then stopped at the same phase; the caller
 * agrees on the message). Collective. */
static int write_file(const vs_par *par, const char *tmp, int64_t step, const vs_params *prm,
                      const vs_ckpt_global *ens, const char *config_text,
                      const vs_particle_rec *slab, const vs_particle_ext *ext, int64_t n,
                      int64_t lo, char *err, size_t err_len)
{
    test_limit(step);
    hid_t fapl = vs_h5_fapl(par);
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0)
        vs_h5_note_error();
    H5Pclose(fapl);
    char h5[256] = "", sys[128] = "";
    if (f < 0) {
        vs_h5_system_reason(tmp, sys, sizeof sys);
        vs_h5_error_text(h5, sizeof h5);
        snprintf(err, err_len, "%.400s: cannot create (%s%s)", tmp, h5, sys);
        return -1;
    }
    hid_t dxpl = vs_h5_dxpl(1); /* filtered (checksummed) datasets need collective writes */
    uint64_t dig[VS_CKPT_N_DIGESTS] = {0};
    /* room first: no collective write may then fail for a full disk (checkpoint_space.h) */
    const double bound = vs_ckpt_size_bound(prm->system.n_particles, ext, config_text);
    const int refused = vs_ckpt_reserve(par, tmp, bound, err, err_len);
    int own = 0, stop = refused != 0;
    if (!stop)
        stop = write_contents(par, f, dxpl, step, prm, ens, config_text, slab, ext, n, lo, dig,
                              &own);
    if (!stop)
        stop = phase_failed(par, &own, vs_ckpt_digest_write(par, f, dxpl, dig));
    if (!stop) {
        test_pause(step);
        stop = phase_failed(par, &own, write_completion(par, f, dxpl, step, prm));
    }
    H5Pclose(dxpl);
    /* flush here, so that a failure shows here and not inside H5Fclose (see h5util.h) */
    if (!stop) {
        const int flush_failed = H5Fflush(f, H5F_SCOPE_LOCAL) < 0;
        if (flush_failed)
            vs_h5_note_error();
        stop = phase_failed(par, &own, flush_failed);
    }
    if (own) {
        vs_h5_system_reason(tmp, sys, sizeof sys);
        vs_h5_error_text(h5, sizeof h5);
    }
    /* A full disk is the usual failure, and the space this file took is what its close needs
     * to write the metadata still cached: empty the file first (it is deleted anyway). */
    if (stop) {
        if (par->rank == 0 && truncate(tmp, 0) != 0) {
            /* nothing more to free: the close may still fail (vs_h5_close_file) */
        }
        vs_par_barrier(par);
    }
    if (vs_h5_close_file(f) != 0 && !own) {
        vs_h5_system_reason(tmp, sys, sizeof sys);
        vs_h5_error_text(h5, sizeof h5);
        own = 1;
    }
    if (own && refused >= 0)
        snprintf(err, err_len, "%.400s: write failed (%s%s)", tmp, h5, sys);
    if (own || refused < 0)
        return -1;
    vs_ckpt_release(par, tmp, bound);
    return 0;
}

int vs_checkpoint_write(const vs_par *par, const char *output_dir, int64_t step,
                        const vs_params *prm, const vs_ckpt_global *ens,
                        const char *config_text,
                        const vs_particle_rec *slab, const vs_particle_ext *ext, int64_t n,
                        int64_t slab_lo, int64_t keep, char *path_out, size_t path_len,
                        double *bytes, char *err, size_t err_len)
{
    vs_h5_quiet();
    char final_path[VS_PATH_LEN + 64], tmp[VS_PATH_LEN + 80];
    vs_checkpoint_path(output_dir, step, final_path, sizeof final_path);
    snprintf(tmp, sizeof tmp, "%s.tmp", final_path);
    char local_err[VS_H5_ERR_LEN] = "";
    int failed = write_file(par, tmp, step, prm, ens, config_text, slab, ext, n, slab_lo,
                            local_err, sizeof local_err) != 0;
    if (vs_par_agree_error(par, failed, local_err, sizeof local_err)) {
        if (par->rank == 0)
            unlink(tmp);
        snprintf(err, err_len, "%s", local_err);
        return -1;
    }
    /* rank 0 makes it durable and visible under its final name */
    double size = 0.0;
    if (par->rank == 0) {
        struct stat st;
        if (vs_fsync_path(tmp) != 0 || stat(tmp, &st) != 0) {
            snprintf(local_err, sizeof local_err, "%.400s: cannot flush to disk: %s", tmp,
                     strerror(errno));
            failed = 1;
        } else if (rename(tmp, final_path) != 0) {
            snprintf(local_err, sizeof local_err, "%.400s: cannot rename into place: %s",
                     final_path, strerror(errno));
            failed = 1;
        } else {
            size = (double)st.st_size;
            char dir[VS_PATH_LEN + 16];
            snprintf(dir, sizeof dir, "%s/checkpoints", output_dir);
            vs_fsync_path(dir);
            int64_t *steps = NULL;
            const int count = list_local(output_dir, &steps);
            for (int i = (int)keep; i < count; ++i) {
                char old[VS_PATH_LEN + 64];
                vs_checkpoint_path(output_dir, steps[i], old, sizeof old);
                unlink(old);
            }
            free(steps);
        }
        if (failed)
            unlink(tmp);
    }
    if (vs_par_agree_error(par, failed, local_err, sizeof local_err)) {
        snprintf(err, err_len, "%s", local_err);
        return -1;
    }
    vs_par_bcast_bytes(par, &size, sizeof size, 0);
    *bytes = size;
    snprintf(path_out, path_len, "%s", final_path);
    return 0;
}

/* The completion record, written last, must exist and match the file's step, particle count,
 * physics hash and (version 2) code version. Returns 0, or -1 with one line in err. */
static int check_completion(hid_t f, hid_t dxpl, const char *path, int64_t format,
                            int64_t step, int64_t n_total, int64_t hash, const char *version,
                            char *err, size_t err_len)
{
    int rc = 0;
    const int64_t len = format >= 2 ? 4 : 3;
    int64_t record[4] = {-1, -1, -1, -1};
    /* only a record that is absent means an unfinished write; one that cannot be looked up
     * or read is damage (a broken superblock or group) */
    const htri_t exists = H5Lexists(f, "complete", H5P_DEFAULT);
    hid_t c = exists > 0 ? H5Dopen2(f, "complete", H5P_DEFAULT) : -1;
    if (exists == 0) {
        snprintf(err, err_len, "checkpoint %.400s: no completion record (the write did not "
                 "finish)", path);
        rc = -1;
    } else if (c < 0 || vs_h5_extent0(c) != len ||
               vs_h5_read_rows(c, H5T_NATIVE_INT64, dxpl, 0, 0, 0, (hsize_t)len, 1, record) !=
                   0) {
        snprintf(err, err_len, "checkpoint %.400s: completion record unreadable (file "
                 "damaged)", path);
        rc = -1;
    } else if (record[0] != step || record[1] != n_total || record[2] != hash ||
               (len == 4 && (!version || record[3] != text_hash(version)))) {
        snprintf(err, err_len, "checkpoint %.400s: completion record does not match the "
                 "file (step %lld, particles %lld; file damaged)", path, (long long)record[0],
                 (long long)record[1]);
        rc = -1;
    }
    if (c >= 0)
        H5Dclose(c);
    return rc;
}

/* The attributes the restart reads, checked against each other: the physics parameters
 * against their stored hash (computed again here), the time against step * dt. Attributes
 * carry no checksum; together with the completion record (which has one) these cover every
 * value read. Returns 0, or -1 with one line in err. */
static int check_metadata(const char *path, const vs_checkpoint_info *info, int64_t hash,
                          int64_t n_total, char *err, size_t err_len)
{
    if (vs_params_physics_hash(&info->physics) != (uint64_t)hash) {
        snprintf(err, err_len, "checkpoint %.400s: the stored physics parameters do not match "
                 "their hash (file damaged)", path);
        return -1;
    }
    if (n_total != info->physics.system.n_particles) {
        snprintf(err, err_len, "checkpoint %.400s: %lld particles, its parameters say %lld (file "
                 "damaged)", path, (long long)n_total, (long long)info->physics.system.n_particles);
        return -1;
    }
    const double time = (double)info->step * info->physics.integrator.dt;
    if (memcmp(&time, &info->time, sizeof time) != 0) {
        snprintf(err, err_len, "checkpoint %.400s: time %.17g is not step * dt = %.17g (file "
                 "damaged)", path, info->time, time);
        return -1;
    }
    return 0;
}

/* This rank's rows [lo, lo + n) of every particle field into recs, their digests into dig.
 * Every rank opens and closes every dataset, whatever its own reads gave. Returns 0, or -1
 * with one line in err. */
static int read_fields(hid_t f, hid_t dxpl, const char *path, int64_t lo, int64_t n,
                       int64_t n_total, vs_particle_rec *recs, uint64_t dig[], char *err,
                       size_t err_len)
{
    char h5[256];
    int rc = 0;
    void *buf = VS_MALLOC(sizeof(double) * 3 * (size_t)(n > 0 ? n : 1));
    for (int k = 0; k < N_FIELDS; ++k) {
        char name[64];
        snprintf(name, sizeof name, "particles/%s", FIELDS[k].name);
        hid_t d = H5Lexists(f, "particles", H5P_DEFAULT) > 0 &&
                          H5Lexists(f, name, H5P_DEFAULT) > 0
                      ? H5Dopen2(f, name, H5P_DEFAULT)
                      : -1;
        if (rc != 0) {
            /* an earlier failure already decided */
        } else if (d < 0 || vs_h5_extent0(d) != n_total) {
            snprintf(err, err_len, "checkpoint %.400s: dataset %s missing or of the wrong size",
                     path, name);
            rc = -1;
        } else if (vs_h5_read_rows(d, field_type(k), dxpl, 0, 0, (hsize_t)lo, (hsize_t)n,
                                   (hsize_t)FIELDS[k].cols, buf) != 0) {
            if (vs_h5_error_is_checksum())
                snprintf(err, err_len, "checkpoint %.400s: dataset %s: checksum mismatch (file "
                         "corrupt)", path, name);
            else {
                vs_h5_error_text(h5, sizeof h5);
                snprintf(err, err_len, "checkpoint %.400s: dataset %s: cannot read (%s)", path,
                         name, h5);
            }
            rc = -1;
        } else {
            scatter_field(k, recs, n, buf);
            dig[VS_DG_PARTICLES + k] =
                vs_ckpt_rows_digest(VS_DG_PARTICLES + k, buf, lo, n, field_bytes(k));
        }
        if (d >= 0)
            H5Dclose(d);
    }
    free(buf);
    return rc;
}

/* The reading half; fills err with one line on failure. */
static int read_file(const vs_par *par, const char *path, vs_checkpoint_info *info,
                     vs_particle_rec **slab, vs_particle_ext *ext, int64_t *n_out, char *err,
                     size_t err_len)
{
    char h5[256];
    hid_t fapl = vs_h5_fapl(par);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        vs_h5_note_error();
    H5Pclose(fapl);
    if (f < 0) {
        vs_h5_error_text(h5, sizeof h5);
        snprintf(err, err_len, "checkpoint %.400s: not a readable HDF5 file, truncated or corrupt "
                 "(%s)", path, h5);
        return -1;
    }
    int rc = 0;
    int64_t format = 0, step = -1, n_total = -1, hash = 0;
    if (vs_h5_read_attr_int64(f, "format_version", &format, 1) != 0 ||
        vs_h5_read_attr_int64(f, "step", &step, 1) != 0 ||
        vs_h5_read_attr_int64(f, "particles", &n_total, 1) != 0 ||
        vs_h5_read_attr_int64(f, "physics_hash", &hash, 1) != 0 ||
        vs_h5_read_attr_double(f, "time", &info->time, 1) != 0 ||
        read_parameters(f, &info->physics) != 0) {
        snprintf(err, err_len, "checkpoint %.400s: not a Vesica checkpoint (metadata missing)", path);
        rc = -1;
    } else if (format < 1 || format > VS_CKPT_FORMAT_VERSION) {
        snprintf(err, err_len, "checkpoint %.400s: format version %lld, this Vesica reads 1 to "
                 "%d", path, (long long)format, VS_CKPT_FORMAT_VERSION);
        rc = -1;
    }
    char *version = rc == 0 ? vs_h5_read_attr_string(f, "code_version") : NULL;
    snprintf(info->version, sizeof info->version, "%s", version ? version : "unknown");
    info->step = step;
    info->physics_hash = (uint64_t)hash;

    /* independent reads: a checksum failure on one rank must not stall a collective read */
    hid_t dxpl = vs_h5_dxpl(0);
    uint64_t dig[VS_CKPT_N_DIGESTS] = {0};
    if (rc == 0)
        rc = check_completion(f, dxpl, path, format, step, n_total, hash, version, err,
                              err_len);
    free(version);
    if (rc == 0)
        rc = check_metadata(path, info, hash, n_total, err, err_len);
    if (rc == 0)
        rc = vs_ckpt_ensemble_read(f, dxpl, path, &info->ensemble,
                                   par->rank == 0 ? &dig[VS_DG_INTEGRATOR] : NULL, err, err_len);
    info->has_reactions = rc == 0 && vs_ckpt_reactions_present(f);
    if (info->has_reactions)
        rc = vs_ckpt_reactions_read(f, dxpl, path, &info->reactions, err, err_len);
    int64_t lo = 0, hi = 0;
    if (rc == 0 && n_total > 0) {
        /* this rank's tag slab, the same split as redistribute.h */
        const int64_t base = n_total / par->size, extra = n_total % par->size;
        lo = par->rank * base + (par->rank < extra ? par->rank : extra);
        hi = lo + base + (par->rank < extra ? 1 : 0);
    }
    const int64_t n = hi - lo;
    vs_particle_rec *recs = VS_MALLOC(sizeof(vs_particle_rec) * (size_t)(n > 0 ? n : 1));
    memset(recs, 0, sizeof(vs_particle_rec) * (size_t)(n > 0 ? n : 1));
    const int fields_rc = read_fields(f, dxpl, path, lo, n, n_total, recs, dig,
                                      rc == 0 ? err : h5, rc == 0 ? err_len : sizeof h5);
    rc = rc ? rc : fields_rc;
    if (rc == 0 && vs_ckpt_topo_present(f))
        rc = vs_ckpt_topo_read(f, dxpl, path, lo, n, n_total, &ext->topo, &ext->dih, dig, err,
                               err_len);
    if (rc == 0 && vs_ckpt_special_present(f))
        rc = vs_ckpt_special_read(f, dxpl, path, lo, n, n_total, &ext->special, dig, err,
                                  err_len);
    if (!vs_par_any(par, rc != 0) && vs_ckpt_orient_present(f))
        rc = vs_ckpt_orient_read(par, f, dxpl, path, lo, n, n_total, &ext->orient, err, err_len);
    rc = vs_ckpt_verify(par, f, dxpl, path, format, info->physics.species.n, recs, ext, lo, n,
                        n_total, dig, rc, err, err_len);
    H5Pclose(dxpl);
    H5Fclose(f);
    if (rc) {
        free(recs);
        vs_particle_ext_free(ext);
        return -1;
    }
    *slab = recs;
    *n_out = n;
    return 0;
}

int vs_checkpoint_read(const vs_par *par, const char *path, vs_checkpoint_info *info,
                       vs_particle_rec **slab, vs_particle_ext *ext, int64_t *n, char *err,
                       size_t err_len)
{
    vs_h5_quiet();
    memset(info, 0, sizeof *info);
    *slab = NULL;
    memset(ext, 0, sizeof *ext);
    *n = 0;
    char local_err[VS_H5_ERR_LEN] = "";
    const int failed =
        read_file(par, path, info, slab, ext, n, local_err, sizeof local_err) != 0;
    if (vs_par_agree_error(par, failed, local_err, sizeof local_err)) {
        free(*slab);
        vs_particle_ext_free(ext);
        *slab = NULL;
        *n = 0;
        snprintf(err, err_len, "%s", local_err);
        return -1;
    }
    return 0;
}
