/* The topology of a checkpoint (molecules): datasets under /particles beside the particle
 * fields, in tag order, one row per particle, -1 where a bead has fewer entries:
 *   molecule     int64 (N)        molecule id, 0 for a free bead
 *   bonds        int64 (N, 4)     partner tags          bond_types   int64 (N, 4)
 *   angles       int64 (N, 8, 3)  tags a, b (vertex), c angle_types  int64 (N, 8)
 *   dihedrals    int64 (N, 4, 4)  tags a, b, c, d       dihedral_types int64 (N, 4)
 *                (only in runs with dihedral records; absent in checkpoints written before
 *                dihedrals: none)
 *   special      int64 (N, 15)    special neighbours, tag * 4 + level (1: 1-2, 2: 1-3,
 *                                 3: 1-4; special.h); only in runs with special lists
 * Internal to io/checkpoint.c; the layout is in docs/file-formats.md. */
#ifndef VESICA_CHECKPOINT_TOPO_H
#define VESICA_CHECKPOINT_TOPO_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "parallel.h"
#include "particles.h"
#include "special.h"
#include "topology.h"

/* Write this rank's rows [lo, lo + n) of every topology dataset into group g (the dihedral
 * ones only with dih; every rank stops after the first dataset that failed on any rank), setting their digests in dig (checkpoint_verify.h; the readers set
 * those of what they read). Returns 0 or non-zero. Collective. */
int vs_ckpt_topo_write(const vs_par *par, hid_t g, hid_t dxpl, const vs_topo *topo,
                       const vs_dihedrals *dih, int64_t n, int64_t lo, int64_t n_total,
                       hsize_t chunk_rows, uint64_t dig[]);
/* Whether file f has topology datasets. */
int vs_ckpt_topo_present(hid_t f);
/* Read rows [lo, lo + n) into *out and, where the file has dihedral datasets, *dih_out
 * (malloc'd; else NULL). Returns 0, or -1 with one line in err. */
int vs_ckpt_topo_read(hid_t f, hid_t dxpl, const char *path, int64_t lo, int64_t n,
                      int64_t n_total, vs_topo **out, vs_dihedrals **dih_out, uint64_t dig[],
                      char *err, size_t err_len);
/* The same for the special-neighbour lists (dataset particles/special). */
int vs_ckpt_special_write(hid_t g, hid_t dxpl, const vs_special *sp, int64_t n, int64_t lo,
                          int64_t n_total, hsize_t chunk_rows, uint64_t dig[]);
int vs_ckpt_special_present(hid_t f);
int vs_ckpt_special_read(hid_t f, hid_t dxpl, const char *path, int64_t lo, int64_t n,
                         int64_t n_total, vs_special **out, uint64_t dig[], char *err,
                         size_t err_len);

/* The orientations (dataset particles/orientation, N x 9: n, u, g; only in runs with oriented
 * species), with their own digest in the dataset's content_hash attribute. Collective. */
int vs_ckpt_orient_write(const vs_par *par, hid_t g, hid_t dxpl, const vs_orient *o, int64_t n,
                         int64_t lo, int64_t n_total, hsize_t chunk_rows);
int vs_ckpt_orient_present(hid_t f);
int vs_ckpt_orient_read(const vs_par *par, hid_t f, hid_t dxpl, const char *path, int64_t lo,
                        int64_t n, int64_t n_total, vs_orient **out, char *err, size_t err_len);

#endif
