/* Content checks of a checkpoint beyond HDF5's Fletcher32 checksums, which a chunk zeroed
 * together with its checksum passes (the checksum of zeros is zero).
 *
 * Content hash (format 3 on): a 64-bit digest of every dataset a restart reads, stored in
 * /content_hash beside the completion record, one value per dataset in the order of
 * vs_ckpt_digest_names (0 for a dataset the file does not have). A per-particle dataset's
 * digest is the sum (mod 2^64) over its rows of a hash of (dataset, row index, the row's
 * bytes): the row index is the particle's tag, so the value does not depend on how the rows
 * were split among ranks, and a zeroed or moved row changes it. integrator_state and
 * config_text are hashed whole. The writer computes the digests from the buffers it writes,
 * the reader from the buffers it reads; every rank agrees on the verdict.
 *
 * Range and structure checks (every format): partner tags in range, types not negative,
 * every bond listed by both its beads with the same type, every angle (dihedral) by all three
 * (four) of its beads; special-neighbour entries in range. Internal to io/checkpoint.c. */
#ifndef VESICA_CHECKPOINT_VERIFY_H
#define VESICA_CHECKPOINT_VERIFY_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "parallel.h"
#include "particles.h"

/* Digest slots: the particle fields (checkpoint.c's order), the topology datasets
 * (checkpoint_topo.c's order), special, integrator_state, config_text. */
enum {
    VS_DG_PARTICLES = 0,
    VS_DG_TOPO = 7,
    VS_DG_SPECIAL = 14,
    VS_DG_INTEGRATOR,
    VS_DG_CONFIG,
    VS_CKPT_N_DIGESTS
};
extern const char *const vs_ckpt_digest_names[VS_CKPT_N_DIGESTS];

/* The digest of rows [row0, row0 + nrows) of slot `slot`, `row_bytes` bytes each, packed. */
uint64_t vs_ckpt_rows_digest(int slot, const void *buf, int64_t row0, int64_t nrows,
                             size_t row_bytes);

/* Sum every rank's digests and write /content_hash (rank 0's values). Returns 0 or non-zero
 * (the HDF5 error noted). Collective. */
int vs_ckpt_digest_write(const vs_par *par, hid_t f, hid_t dxpl, uint64_t dig[]);

/* Sum every rank's digests of what it read and compare them with /content_hash. A file of
 * format 3 or later must have it; an older one has none and passes (*unhashed = 1). Returns 0,
 * or -1 with one line in err naming the first dataset that differs. Collective. */
int vs_ckpt_digest_check(const vs_par *par, hid_t f, hid_t dxpl, const char *path,
                         int64_t format, uint64_t dig[], int *unhashed, char *err,
                         size_t err_len);

/* The range and structure checks of this rank's slab [lo, lo + n) of a system of n_total
 * particles (ext->topo, ext->dih, ext->special where present). Returns 0, or -1 with one line
 * in err; when a range check fails on some rank only that rank returns -1 (its message is
 * the one to agree on). Collective: the caller's last collective step. */
int vs_ckpt_check_topology(const vs_par *par, const char *path, const vs_particle_ext *ext,
                           int64_t lo, int64_t n, int64_t n_total, char *err, size_t err_len);

/* After every read of a checkpoint (format `format`): config_text (rank 0; the restart itself
 * does not use it, but a damaged one is damage), the content hash, the rows (tag order,
 * species below n_species), the topology's structure. `rc` is this rank's verdict so far
 * (err filled when non-zero); the collective checks run only where every rank read without
 * error, else the failing rank's message is the verdict. Returns 0 or -1 with err. Warns
 * (rank 0) about a file without a content hash. Collective. */
int vs_ckpt_verify(const vs_par *par, hid_t f, hid_t dxpl, const char *path, int64_t format,
                   int n_species, const vs_particle_rec *recs, const vs_particle_ext *ext,
                   int64_t lo, int64_t n, int64_t n_total, uint64_t dig[], int rc, char *err,
                   size_t err_len);

#endif
