/* Checkpoint topology datasets: see checkpoint_topo.h. */
#include "checkpoint_topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint_verify.h"
#include "h5util.h"
#include "log.h"

enum {
    T_MOL,
    T_BONDS,
    T_BOND_TYPES,
    T_ANGLES,
    T_ANGLE_TYPES,
    T_DIHEDRALS,
    T_DIHEDRAL_TYPES,
    N_TFIELDS
};
static const struct {
    const char *name;
    int cols;
} TFIELDS[N_TFIELDS] = {
    [T_MOL] = {"molecule", 1},
    [T_BONDS] = {"bonds", VS_MAX_BONDS},
    [T_BOND_TYPES] = {"bond_types", VS_MAX_BONDS},
    [T_ANGLES] = {"angles", 3 * VS_MAX_ANGLES},
    [T_ANGLE_TYPES] = {"angle_types", VS_MAX_ANGLES},
    [T_DIHEDRALS] = {"dihedrals", 4 * VS_MAX_DIHEDRALS},
    [T_DIHEDRAL_TYPES] = {"dihedral_types", VS_MAX_DIHEDRALS},
};
_Static_assert(4 * VS_MAX_DIHEDRALS <= 3 * VS_MAX_ANGLES, "the row buffer holds the widest");

static void gather(int k, const vs_topo *t, const vs_dihedrals *dh, int64_t *out)
{
    const int cols = TFIELDS[k].cols;
    for (int c = 0; c < cols; ++c) {
        int64_t v = -1;
        switch (k) {
        case T_MOL: v = t->mol; break;
        case T_BONDS: v = c < t->n_bond ? t->bond[c] : -1; break;
        case T_BOND_TYPES: v = c < t->n_bond ? t->bond_type[c] : -1; break;
        case T_ANGLES: v = c / 3 < t->n_angle ? t->angle[c / 3][c % 3] : -1; break;
        case T_ANGLE_TYPES: v = c < t->n_angle ? t->angle_type[c] : -1; break;
        case T_DIHEDRALS: v = c / 4 < dh->n_dihedral ? dh->dihedral[c / 4][c % 4] : -1; break;
        case T_DIHEDRAL_TYPES: v = c < dh->n_dihedral ? dh->dihedral_type[c] : -1; break;
        }
        out[c] = v;
    }
}

/* One row back into a record; the counts come from the padding. */
static void scatter(int k, vs_topo *t, vs_dihedrals *dh, const int64_t *in)
{
    const int cols = TFIELDS[k].cols;
    for (int c = 0; c < cols; ++c) {
        const int64_t v = in[c];
        switch (k) {
        case T_MOL: t->mol = v; break;
        case T_BONDS:
            t->bond[c] = v;
            if (v >= 0)
                t->n_bond = c + 1;
            break;
        case T_BOND_TYPES: t->bond_type[c] = (int32_t)v; break;
        case T_ANGLES:
            t->angle[c / 3][c % 3] = v;
            if (v >= 0)
                t->n_angle = c / 3 + 1;
            break;
        case T_ANGLE_TYPES: t->angle_type[c] = (int32_t)v; break;
        case T_DIHEDRALS:
            dh->dihedral[c / 4][c % 4] = v;
            if (v >= 0)
                dh->n_dihedral = c / 4 + 1;
            break;
        case T_DIHEDRAL_TYPES: dh->dihedral_type[c] = (int32_t)v; break;
        }
    }
}

int vs_ckpt_topo_write(const vs_par *par, hid_t g, hid_t dxpl, const vs_topo *topo,
                       const vs_dihedrals *dih, int64_t n, int64_t lo, int64_t n_total,
                       hsize_t chunk_rows, uint64_t dig[])
{
    int rc = 0;
    int64_t *buf = VS_MALLOC(sizeof(int64_t) * 3 * VS_MAX_ANGLES * (size_t)(n > 0 ? n : 1));
    /* after a failure on any rank every rank stops here (checkpoint.c: phase_failed) */
    for (int k = 0; k < (dih ? N_TFIELDS : T_DIHEDRALS) && !vs_par_any(par, rc); ++k) {
        const int cols = TFIELDS[k].cols;
        const hsize_t dims[2] = {(hsize_t)n_total, (hsize_t)cols};
        const int64_t maxd[2] = {n_total, cols};
        const hsize_t chunk[2] = {chunk_rows, (hsize_t)cols};
        hid_t d = vs_h5_create(g, TFIELDS[k].name, H5T_NATIVE_INT64, cols == 1 ? 1 : 2, dims,
                               maxd, chunk, 1);
        for (int64_t i = 0; i < n; ++i)
            gather(k, &topo[i], dih ? &dih[i] : NULL, buf + (size_t)i * (size_t)cols);
        dig[VS_DG_TOPO + k] = vs_ckpt_rows_digest(VS_DG_TOPO + k, buf, lo, n,
                                                  sizeof(int64_t) * (size_t)cols);
        rc |= d < 0 || vs_h5_write_rows(d, H5T_NATIVE_INT64, dxpl, 0, 0, (hsize_t)lo,
                                        (hsize_t)n, (hsize_t)cols, buf) != 0;
        if (d >= 0)
            H5Dclose(d);
    }
    free(buf);
    return rc;
}

int vs_ckpt_topo_present(hid_t f)
{
    return H5Lexists(f, "particles", H5P_DEFAULT) > 0 &&
           H5Lexists(f, "particles/molecule", H5P_DEFAULT) > 0;
}

int vs_ckpt_topo_read(hid_t f, hid_t dxpl, const char *path, int64_t lo, int64_t n,
                      int64_t n_total, vs_topo **out, vs_dihedrals **dih_out, uint64_t dig[],
                      char *err, size_t err_len)
{
    int rc = 0;
    vs_topo *t = VS_MALLOC(sizeof(vs_topo) * (size_t)(n > 0 ? n : 1));
    memset(t, 0, sizeof(vs_topo) * (size_t)(n > 0 ? n : 1));
    /* the dihedral lists where the file has them (every checkpoint written before they were
     * a record of their own has them, empty without dihedrals: the run decides) */
    vs_dihedrals *dh = NULL;
    if (H5Lexists(f, "particles/dihedrals", H5P_DEFAULT) > 0) {
        dh = VS_MALLOC(sizeof(vs_dihedrals) * (size_t)(n > 0 ? n : 1));
        memset(dh, 0, sizeof(vs_dihedrals) * (size_t)(n > 0 ? n : 1));
    }
    int64_t *buf = VS_MALLOC(sizeof(int64_t) * 3 * VS_MAX_ANGLES * (size_t)(n > 0 ? n : 1));
    for (int k = 0; k < N_TFIELDS; ++k) { /* every rank opens every dataset */
        char name[64];
        snprintf(name, sizeof name, "particles/%s", TFIELDS[k].name);
        const int cols = TFIELDS[k].cols;
        const int exists = H5Lexists(f, name, H5P_DEFAULT) > 0;
        hid_t d = exists ? H5Dopen2(f, name, H5P_DEFAULT) : -1;
        if (rc != 0 || (!exists && k >= T_DIHEDRALS) || (k >= T_DIHEDRALS && !dh)) {
            /* a checkpoint written before dihedrals, or of a run without: none */
        } else if (d < 0 || vs_h5_extent0(d) != n_total) {
            snprintf(err, err_len, "checkpoint %.400s: dataset %s missing or of the wrong size",
                     path, name);
            rc = -1;
        } else if (vs_h5_read_rows(d, H5T_NATIVE_INT64, dxpl, 0, 0, (hsize_t)lo, (hsize_t)n,
                                   (hsize_t)cols, buf) != 0) {
            snprintf(err, err_len, "checkpoint %.400s: dataset %s: cannot read (checksum or "
                     "I/O error)", path, name);
            rc = -1;
        } else {
            for (int64_t i = 0; i < n; ++i)
                scatter(k, &t[i], dh ? &dh[i] : NULL, buf + (size_t)i * (size_t)cols);
            dig[VS_DG_TOPO + k] = vs_ckpt_rows_digest(VS_DG_TOPO + k, buf, lo, n,
                                                      sizeof(int64_t) * (size_t)cols);
        }
        if (d >= 0)
            H5Dclose(d);
    }
    free(buf);
    if (rc) {
        free(t);
        free(dh);
        return -1;
    }
    *out = t;
    *dih_out = dh;
    return 0;
}

/* ---- special-neighbour lists: one row of VS_MAX_SPECIAL entries per particle, -1 beyond
 * its count ---- */

int vs_ckpt_special_write(hid_t g, hid_t dxpl, const vs_special *sp, int64_t n, int64_t lo,
                          int64_t n_total, hsize_t chunk_rows, uint64_t dig[])
{
    const int cols = VS_MAX_SPECIAL;
    int64_t *buf = VS_MALLOC(sizeof(int64_t) * cols * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; ++i)
        for (int c = 0; c < cols; ++c)
            buf[i * cols + c] = c < sp[i].n ? sp[i].e[c] : -1;
    dig[VS_DG_SPECIAL] = vs_ckpt_rows_digest(VS_DG_SPECIAL, buf, lo, n, sizeof(int64_t) * cols);
    const hsize_t dims[2] = {(hsize_t)n_total, (hsize_t)cols};
    const int64_t maxd[2] = {n_total, cols};
    const hsize_t chunk[2] = {chunk_rows, (hsize_t)cols};
    hid_t d = vs_h5_create(g, "special", H5T_NATIVE_INT64, 2, dims, maxd, chunk, 1);
    const int rc = d < 0 || vs_h5_write_rows(d, H5T_NATIVE_INT64, dxpl, 0, 0, (hsize_t)lo,
                                             (hsize_t)n, (hsize_t)cols, buf) != 0;
    if (d >= 0)
        H5Dclose(d);
    free(buf);
    return rc;
}

/* The second dimension of a 2-D dataset, or -1. */
static int64_t columns(hid_t d)
{
    hid_t space = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    const int ok = space >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
                   H5Sget_simple_extent_dims(space, dims, NULL) == 2;
    if (space >= 0)
        H5Sclose(space);
    return ok ? (int64_t)dims[1] : -1;
}

int vs_ckpt_special_present(hid_t f)
{
    return H5Lexists(f, "particles", H5P_DEFAULT) > 0 &&
           H5Lexists(f, "particles/special", H5P_DEFAULT) > 0;
}

int vs_ckpt_special_read(hid_t f, hid_t dxpl, const char *path, int64_t lo, int64_t n,
                         int64_t n_total, vs_special **out, uint64_t dig[], char *err,
                         size_t err_len)
{
    const int cols = VS_MAX_SPECIAL;
    int rc = 0;
    hid_t d = H5Dopen2(f, "particles/special", H5P_DEFAULT);
    int64_t *buf = VS_MALLOC(sizeof(int64_t) * cols * (size_t)(n > 0 ? n : 1));
    if (d < 0 || vs_h5_extent0(d) != n_total || columns(d) != cols) {
        snprintf(err, err_len, "checkpoint %.400s: dataset particles/special of the wrong "
                 "size (expected %lld rows of %d)", path, (long long)n_total, cols);
        rc = -1;
    } else if (vs_h5_read_rows(d, H5T_NATIVE_INT64, dxpl, 0, 0, (hsize_t)lo, (hsize_t)n,
                               (hsize_t)cols, buf) != 0) {
        snprintf(err, err_len, "checkpoint %.400s: dataset particles/special: cannot read "
                 "(checksum or I/O error)", path);
        rc = -1;
    } else {
        dig[VS_DG_SPECIAL] = vs_ckpt_rows_digest(VS_DG_SPECIAL, buf, lo, n,
                                                 sizeof(int64_t) * cols);
    }
    if (d >= 0)
        H5Dclose(d);
    vs_special *sp = VS_MALLOC(sizeof(vs_special) * (size_t)(n > 0 ? n : 1));
    memset(sp, 0, sizeof(vs_special) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n && rc == 0; ++i)
        for (int c = 0; c < cols; ++c)
            if (buf[i * cols + c] >= 0)
                sp[i].e[sp[i].n++] = buf[i * cols + c];
    free(buf);
    if (rc) {
        free(sp);
        return -1;
    }
    *out = sp;
    return 0;
}

/* ---- orientations: one row of 9 doubles per particle (n, u, g), with their own digest in
 * the dataset's attribute content_hash (the sum of the row digests over ranks), so the
 * file-wide /content_hash keeps its slots and older checkpoints still read ---- */

enum { ORIENT_SLOT = 32, ORIENT_COLS = 9 };

int vs_ckpt_orient_write(const vs_par *par, hid_t g, hid_t dxpl, const vs_orient *o, int64_t n,
                         int64_t lo, int64_t n_total, hsize_t chunk_rows)
{
    uint64_t dig = vs_ckpt_rows_digest(ORIENT_SLOT, o, lo, n, sizeof(vs_orient));
    vs_par_sum_uint64(par, &dig, 1);
    const hsize_t dims[2] = {(hsize_t)n_total, ORIENT_COLS};
    const int64_t maxd[2] = {n_total, ORIENT_COLS};
    const hsize_t chunk[2] = {chunk_rows, ORIENT_COLS};
    hid_t d = vs_h5_create(g, "orientation", H5T_NATIVE_DOUBLE, 2, dims, maxd, chunk, 1);
    int rc = d < 0 || vs_h5_write_rows(d, H5T_NATIVE_DOUBLE, dxpl, 0, 0, (hsize_t)lo,
                                       (hsize_t)n, ORIENT_COLS, o) != 0;
    if (d >= 0) {
        const int64_t stored = (int64_t)dig;
        rc |= vs_h5_attr_int64(d, "content_hash", &stored, 1) != 0;
        H5Dclose(d);
    }
    return rc;
}

int vs_ckpt_orient_present(hid_t f)
{
    return H5Lexists(f, "particles", H5P_DEFAULT) > 0 &&
           H5Lexists(f, "particles/orientation", H5P_DEFAULT) > 0;
}

int vs_ckpt_orient_read(const vs_par *par, hid_t f, hid_t dxpl, const char *path, int64_t lo,
                        int64_t n, int64_t n_total, vs_orient **out, char *err, size_t err_len)
{
    int rc = 0;
    hid_t d = H5Dopen2(f, "particles/orientation", H5P_DEFAULT);
    vs_orient *o = VS_MALLOC(sizeof(vs_orient) * (size_t)(n > 0 ? n : 1));
    int64_t stored = 0;
    if (d < 0 || vs_h5_extent0(d) != n_total || columns(d) != ORIENT_COLS ||
        vs_h5_read_attr_int64(d, "content_hash", &stored, 1) != 0) {
        snprintf(err, err_len, "checkpoint %.400s: dataset particles/orientation of the wrong "
                 "size or without its content_hash (expected %lld rows of %d)", path,
                 (long long)n_total, ORIENT_COLS);
        rc = -1;
    } else if (vs_h5_read_rows(d, H5T_NATIVE_DOUBLE, dxpl, 0, 0, (hsize_t)lo, (hsize_t)n,
                               ORIENT_COLS, o) != 0) {
        snprintf(err, err_len, "checkpoint %.400s: dataset particles/orientation: cannot read "
                 "(checksum or I/O error)", path);
        rc = -1;
    }
    if (d >= 0)
        H5Dclose(d);
    uint64_t dig = rc ? 0 : vs_ckpt_rows_digest(ORIENT_SLOT, o, lo, n, sizeof(vs_orient));
    vs_par_sum_uint64(par, &dig, 1);
    if (vs_par_any(par, rc != 0)) {
        if (!rc)
            snprintf(err, err_len, "checkpoint %.400s: dataset particles/orientation "
                     "unreadable on another rank", path);
        free(o);
        return -1;
    }
    if (dig != (uint64_t)stored) {
        snprintf(err, err_len, "checkpoint %.400s: dataset particles/orientation does not "
                 "match its content hash (file damaged)", path);
        free(o);
        return -1;
    }
    *out = o;
    return 0;
}
