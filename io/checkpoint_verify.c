/* Checkpoint content hash and structure checks: see checkpoint_verify.h. */
#include "checkpoint_verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"
#include "log.h"

const char *const vs_ckpt_digest_names[VS_CKPT_N_DIGESTS] = {
    "particles/tag", "particles/species", "particles/position", "particles/velocity",
    "particles/predicted_velocity", "particles/force", "particles/image",
    "particles/molecule", "particles/bonds", "particles/bond_types", "particles/angles",
    "particles/angle_types", "particles/dihedrals", "particles/dihedral_types",
    "particles/special", "integrator_state", "config_text"};

/* MurmurHash3's 64-bit finalizer: a bijection in which every input bit flips about half of
 * the output bits. */
static uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

#define GOLDEN 0x9e3779b97f4a7c15ULL

static uint64_t row_hash(int slot, int64_t index, const unsigned char *row, size_t bytes)
{
    uint64_t h = fmix64(((uint64_t)(slot + 1) << 56) ^ (uint64_t)index ^ GOLDEN);
    for (size_t o = 0; o < bytes; o += 8) {
        uint64_t w = 0;
        memcpy(&w, row + o, bytes - o < 8 ? bytes - o : 8);
        h = fmix64(h ^ w) + GOLDEN;
    }
    return fmix64(h ^ (uint64_t)bytes);
}

uint64_t vs_ckpt_rows_digest(int slot, const void *buf, int64_t row0, int64_t nrows,
                             size_t row_bytes)
{
    const unsigned char *b = buf;
    uint64_t sum = 0;
    for (int64_t i = 0; i < nrows; ++i)
        sum += row_hash(slot, row0 + i, b + (size_t)i * row_bytes, row_bytes);
    return sum;
}

int vs_ckpt_digest_write(const vs_par *par, hid_t f, hid_t dxpl, uint64_t dig[])
{
    vs_par_sum_uint64(par, dig, VS_CKPT_N_DIGESTS);
    hid_t d;
    int rc = vs_h5_write_vector(f, "content_hash", H5T_NATIVE_UINT64, dxpl, par->rank == 0,
                                VS_CKPT_N_DIGESTS, dig, &d);
    if (d >= 0) {
        rc |= vs_h5_attr_strings(d, "datasets", vs_ckpt_digest_names, VS_CKPT_N_DIGESTS) != 0;
        H5Dclose(d);
    }
    return rc;
}

int vs_ckpt_digest_check(const vs_par *par, hid_t f, hid_t dxpl, const char *path,
                         int64_t format, uint64_t dig[], int *unhashed, char *err,
                         size_t err_len)
{
    vs_par_sum_uint64(par, dig, VS_CKPT_N_DIGESTS);
    *unhashed = 0;
    const int exists = H5Lexists(f, "content_hash", H5P_DEFAULT) > 0;
    if (!exists && format < 3) {
        *unhashed = 1;
        return 0;
    }
    uint64_t stored[VS_CKPT_N_DIGESTS];
    hid_t d = exists ? H5Dopen2(f, "content_hash", H5P_DEFAULT) : -1;
    const int bad = d < 0 || vs_h5_extent0(d) != VS_CKPT_N_DIGESTS ||
                    vs_h5_read_rows(d, H5T_NATIVE_UINT64, dxpl, 0, 0, 0, VS_CKPT_N_DIGESTS, 1,
                                    stored) != 0;
    if (d >= 0)
        H5Dclose(d);
    if (bad) {
        snprintf(err, err_len, "checkpoint %.400s: dataset content_hash missing or unreadable "
                 "(file damaged)", path);
        return -1;
    }
    for (int k = 0; k < VS_CKPT_N_DIGESTS; ++k)
        if (stored[k] != dig[k]) {
            snprintf(err, err_len, "checkpoint %.400s: dataset %s does not match its content "
                     "hash (file damaged)", path, vs_ckpt_digest_names[k]);
            return -1;
        }
    return 0;
}

/* ---- structure ---------------------------------------------------------------------------- */

/* One bonded entry as seen from one of its beads, to be summed per role. */
static uint64_t tuple_key(const int64_t *tags, int arity, int32_t type)
{
    uint64_t h = fmix64((uint64_t)arity * GOLDEN ^ (uint64_t)(uint32_t)type);
    for (int a = 0; a < arity; ++a)
        h = fmix64(h ^ (uint64_t)tags[a]) + GOLDEN;
    return h;
}

/* Sums over the slab: [0, 1] bonds seen from the lower and the higher tag, [2, 4] angles from
 * bead a, b, c, [5, 8] dihedrals from a, b, c, d. Returns 0, or -1 with err (a range error). */
static int role_sums(const char *path, const vs_particle_ext *ext, int64_t lo, int64_t n,
                     int64_t n_total, uint64_t s[9], char *err, size_t err_len)
{
    for (int64_t i = 0; i < n; ++i) {
        const int64_t t = lo + i;
        const vs_topo *tp = &ext->topo[i];
        int ok = tp->mol >= 0 && tp->n_bond >= 0 && tp->n_bond <= VS_MAX_BONDS &&
                 tp->n_angle >= 0 && tp->n_angle <= VS_MAX_ANGLES;
        for (int k = 0; ok && k < tp->n_bond; ++k) {
            const int64_t p = tp->bond[k];
            ok = p >= 0 && p < n_total && p != t && tp->bond_type[k] >= 0;
            const int64_t pair[2] = {t < p ? t : p, t < p ? p : t};
            s[t < p ? 0 : 1] += tuple_key(pair, 2, tp->bond_type[k]);
        }
        for (int k = 0; ok && k < tp->n_angle; ++k) {
            const int64_t *q = tp->angle[k];
            int role = -1;
            for (int a = 0; a < 3; ++a) {
                ok &= q[a] >= 0 && q[a] < n_total;
                role = q[a] == t ? a : role;
            }
            ok &= role >= 0 && tp->angle_type[k] >= 0;
            s[2 + (role >= 0 ? role : 0)] += tuple_key(q, 3, tp->angle_type[k]);
        }
        const vs_dihedrals *dh = ext->dih ? &ext->dih[i] : NULL;
        ok &= !dh || (dh->n_dihedral >= 0 && dh->n_dihedral <= VS_MAX_DIHEDRALS);
        for (int k = 0; ok && dh && k < dh->n_dihedral; ++k) {
            const int64_t *q = dh->dihedral[k];
            int role = -1;
            for (int a = 0; a < 4; ++a) {
                ok &= q[a] >= 0 && q[a] < n_total;
                role = q[a] == t ? a : role;
            }
            ok &= role >= 0 && dh->dihedral_type[k] >= 0;
            s[5 + (role >= 0 ? role : 0)] += tuple_key(q, 4, dh->dihedral_type[k]);
        }
        if (!ok) {
            snprintf(err, err_len, "checkpoint %.400s: particle %lld has a molecule id, bond, "
                     "angle or dihedral out of range (file damaged)", path, (long long)t);
            return -1;
        }
    }
    return 0;
}

static int special_in_range(const char *path, const vs_special *sp, int64_t lo, int64_t n,
                            int64_t n_total, char *err, size_t err_len)
{
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < sp[i].n; ++k) {
            const int64_t e = sp[i].e[k], level = e & 3, tag = e >> 2;
            if (e < 0 || level < 1 || tag >= n_total || tag == lo + i) {
                snprintf(err, err_len, "checkpoint %.400s: particle %lld has a special "
                         "neighbour out of range (file damaged)", path, (long long)(lo + i));
                return -1;
            }
        }
    return 0;
}

int vs_ckpt_check_topology(const vs_par *par, const char *path, const vs_particle_ext *ext,
                           int64_t lo, int64_t n, int64_t n_total, char *err, size_t err_len)
{
    uint64_t s[9] = {0};
    int failed = 0;
    if (ext->topo)
        failed = role_sums(path, ext, lo, n, n_total, s, err, err_len) != 0;
    if (!failed && ext->special)
        failed = special_in_range(path, ext->special, lo, n, n_total, err, err_len) != 0;
    if (vs_par_any(par, failed)) /* the failing rank's message is the verdict */
        return failed ? -1 : 0;
    vs_par_sum_uint64(par, s, 9);
    const char *what = s[0] != s[1]                   ? "a bond is not listed by both its beads"
                       : s[2] != s[3] || s[3] != s[4] ? "an angle is not listed by its three "
                                                        "beads"
                       : s[5] != s[6] || s[6] != s[7] || s[7] != s[8]
                           ? "a dihedral is not listed by its four beads"
                           : NULL;
    if (!what)
        return 0;
    snprintf(err, err_len, "checkpoint %.400s: %s (file damaged)", path, what);
    return -1;
}

/* ---- the reader's checks ------------------------------------------------------------------ */

/* Rows in tag order, species in range. Returns 0, or -1 with one line in err. */
static int check_rows(const char *path, const vs_particle_rec *recs, int64_t lo, int64_t n,
                      int n_species, char *err, size_t err_len)
{
    for (int64_t i = 0; i < n; ++i)
        if (recs[i].tag != lo + i || recs[i].species < 0 || recs[i].species >= n_species) {
            snprintf(err, err_len, "checkpoint %.400s: particle row %lld has tag %lld, species %d "
                     "(expected tag %lld: rows are in tag order; species below %d)", path,
                     (long long)(lo + i), (long long)recs[i].tag, recs[i].species,
                     (long long)(lo + i), n_species);
            return -1;
        }
    return 0;
}

int vs_ckpt_verify(const vs_par *par, hid_t f, hid_t dxpl, const char *path, int64_t format,
                   int n_species, const vs_particle_rec *recs, const vs_particle_ext *ext,
                   int64_t lo, int64_t n, int64_t n_total, uint64_t dig[], int rc, char *err,
                   size_t err_len)
{
    if (rc == 0 && par->rank == 0 && format >= 2) {
        char *text = vs_h5_read_text(f, "config_text");
        if (!text) {
            snprintf(err, err_len, "checkpoint %.400s: dataset config_text missing or "
                     "unreadable (checksum mismatch: file corrupt)", path);
            rc = -1;
        } else {
            dig[VS_DG_CONFIG] = vs_ckpt_rows_digest(VS_DG_CONFIG, text, 0, 1, strlen(text));
        }
        free(text);
    }
    if (vs_par_any(par, rc != 0))
        return rc;
    int unhashed = 0;
    rc = vs_ckpt_digest_check(par, f, dxpl, path, format, dig, &unhashed, err, err_len);
    if (rc == 0)
        rc = check_rows(path, recs, lo, n, n_species, err, err_len);
    if (vs_par_any(par, rc != 0))
        return rc;
    rc = vs_ckpt_check_topology(par, path, ext, lo, n, n_total, err, err_len);
    if (rc == 0 && unhashed && par->rank == 0)
        vs_log_warn("checkpoint %s (format %lld) has no content hash: its data are checked "
                    "by their checksums and range checks only", path, (long long)format);
    return rc;
}
