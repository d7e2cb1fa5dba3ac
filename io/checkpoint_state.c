/* The run's global state in a checkpoint: see checkpoint_state.h. */
#include "checkpoint_state.h"

#include <stdio.h>
#include <string.h>

#include "checkpoint_verify.h"
#include "h5util.h"

/* The ensemble's state as the checksummed dataset /integrator_state of float64: chain
 * length, whether 2K is set, 2K, then VS_MAX_CHAIN chain positions and as many velocities
 * (written by rank 0; a collective write, as every filtered dataset). Returns 0 or non-zero. */
#define VS_ENSEMBLE_VALUES (3 + 2 * VS_MAX_CHAIN)
/* npt appends the barostat: whether the virial is set, the virial, v_eps, the box (3), then
 * VS_MAX_CHAIN barostat chain positions and as many velocities */
#define VS_BAROSTAT_VALUES (6 + 2 * VS_MAX_CHAIN)
#define VS_ENSEMBLE_VALUES_NPT (VS_ENSEMBLE_VALUES + VS_BAROSTAT_VALUES)
int vs_ckpt_ensemble_write(const vs_par *par, hid_t f, hid_t dxpl, const vs_ensemble_state *e,
                           uint64_t dig[])
{
    double v[VS_ENSEMBLE_VALUES_NPT];
    v[0] = e->chain;
    v[1] = e->have_ke;
    v[2] = e->ke2;
    for (int k = 0; k < VS_MAX_CHAIN; ++k) {
        v[3 + k] = e->xi[k];
        v[3 + VS_MAX_CHAIN + k] = e->vxi[k];
    }
    double *b = v + VS_ENSEMBLE_VALUES;
    b[0] = e->have_virial;
    b[1] = e->virial;
    b[2] = e->veps;
    for (int d = 0; d < 3; ++d)
        b[3 + d] = e->box[d];
    for (int k = 0; k < VS_MAX_CHAIN; ++k) {
        b[6 + k] = e->bxi[k];
        b[6 + VS_MAX_CHAIN + k] = e->bvxi[k];
    }
    const hsize_t n = e->barostat ? VS_ENSEMBLE_VALUES_NPT : VS_ENSEMBLE_VALUES;
    if (par->rank == 0)
        dig[VS_DG_INTEGRATOR] = vs_ckpt_rows_digest(VS_DG_INTEGRATOR, v, 0, 1, sizeof(double) * n);
    return vs_h5_write_vector(f, "integrator_state", H5T_NATIVE_DOUBLE, dxpl, par->rank == 0, n,
                              v, NULL);
}

/* Files older than the ensembles have no /integrator_state: the zero state. Returns 0, or -1
 * with one line in err (a checksum failure included). */
int vs_ckpt_ensemble_read(hid_t f, hid_t dxpl, const char *path, vs_ensemble_state *e,
                          uint64_t *digest, char *err, size_t err_len)
{
    memset(e, 0, sizeof *e);
    if (H5Lexists(f, "integrator_state", H5P_DEFAULT) <= 0)
        return 0;
    double v[VS_ENSEMBLE_VALUES_NPT];
    hid_t d = H5Dopen2(f, "integrator_state", H5P_DEFAULT);
    const int64_t len = d < 0 ? -1 : (int64_t)vs_h5_extent0(d);
    const int bad = d < 0 || (len != VS_ENSEMBLE_VALUES && len != VS_ENSEMBLE_VALUES_NPT) ||
                    vs_h5_read_rows(d, H5T_NATIVE_DOUBLE, dxpl, 0, 0, 0, (hsize_t)len, 1, v) !=
                        0 ||
                    !(v[0] >= 0 && v[0] <= VS_MAX_CHAIN);
    if (d >= 0)
        H5Dclose(d);
    if (bad) {
        snprintf(err, err_len, "checkpoint %.400s: dataset integrator_state unreadable or "
                 "damaged", path);
        return -1;
    }
    if (digest) /* one rank's share of the sum every rank forms */
        *digest = vs_ckpt_rows_digest(VS_DG_INTEGRATOR, v, 0, 1, sizeof(double) * (size_t)len);
    e->chain = (int)v[0];
    e->have_ke = v[1] != 0.0;
    e->ke2 = v[2];
    for (int k = 0; k < VS_MAX_CHAIN; ++k) {
        e->xi[k] = v[3 + k];
        e->vxi[k] = v[3 + VS_MAX_CHAIN + k];
    }
    if (len != VS_ENSEMBLE_VALUES_NPT)
        return 0;
    const double *b = v + VS_ENSEMBLE_VALUES;
    e->barostat = 1;
    e->have_virial = b[0] != 0.0;
    e->virial = b[1];
    e->veps = b[2];
    for (int q = 0; q < 3; ++q)
        e->box[q] = b[3 + q];
    for (int k = 0; k < VS_MAX_CHAIN; ++k) {
        e->bxi[k] = b[6 + k];
        e->bvxi[k] = b[6 + VS_MAX_CHAIN + k];
    }
    if (!(e->box[0] > 0.0 && e->box[1] > 0.0 && e->box[2] > 0.0)) {
        snprintf(err, err_len, "checkpoint %.400s: dataset integrator_state holds a box that "
                 "is not positive", path);
        return -1;
    }
    return 0;
}

enum { REACTION_SLOT = 33 }; /* its digest's slot (checkpoint_verify.h's are below 32) */

static void to_words(const vs_reaction_state *s, int64_t v[VS_REACTION_STATE_WORDS])
{
    const int64_t w[VS_REACTION_STATE_WORDS] = {s->monomers0,     s->last_step,
                                                s->last_chain,    s->last_created,
                                                s->last_broken,   s->total_chain,
                                                s->total_created, s->total_broken};
    memcpy(v, w, sizeof w);
}

int vs_ckpt_reactions_write(const vs_par *par, hid_t f, hid_t dxpl, const vs_reaction_state *s)
{
    int64_t v[VS_REACTION_STATE_WORDS];
    to_words(s, v);
    hid_t d;
    int rc = vs_h5_write_vector(f, "reaction_state", H5T_NATIVE_INT64, dxpl, par->rank == 0,
                                VS_REACTION_STATE_WORDS, v, &d);
    if (d >= 0) {
        const int64_t dig = (int64_t)vs_ckpt_rows_digest(REACTION_SLOT, v, 0, 1, sizeof v);
        rc |= vs_h5_attr_int64(d, "content_hash", &dig, 1) != 0;
        H5Dclose(d);
    }
    return rc;
}

int vs_ckpt_reactions_present(hid_t f) { return H5Lexists(f, "reaction_state", H5P_DEFAULT) > 0; }

int vs_ckpt_reactions_read(hid_t f, hid_t dxpl, const char *path, vs_reaction_state *s,
                           char *err, size_t err_len)
{
    int64_t v[VS_REACTION_STATE_WORDS], stored = 0;
    hid_t d = H5Dopen2(f, "reaction_state", H5P_DEFAULT);
    const int bad = d < 0 || vs_h5_extent0(d) != VS_REACTION_STATE_WORDS ||
                    vs_h5_read_attr_int64(d, "content_hash", &stored, 1) != 0 ||
                    vs_h5_read_rows(d, H5T_NATIVE_INT64, dxpl, 0, 0, 0,
                                    VS_REACTION_STATE_WORDS, 1, v) != 0;
    if (d >= 0)
        H5Dclose(d);
    if (bad || (uint64_t)stored != vs_ckpt_rows_digest(REACTION_SLOT, v, 0, 1, sizeof v)) {
        snprintf(err, err_len, "checkpoint %.400s: dataset reaction_state unreadable, of the "
                 "wrong size or not matching its content hash (file damaged)", path);
        return -1;
    }
    s->monomers0 = v[0];
    s->last_step = v[1];
    s->last_chain = v[2];
    s->last_created = v[3];
    s->last_broken = v[4];
    s->total_chain = v[5];
    s->total_created = v[6];
    s->total_broken = v[7];
    return 0;
}
