/* Disk space for a checkpoint, reserved before its collective write.
 *
 * Parallel HDF5 cannot survive a write that fails on some ranks only: a rank whose part of a
 * collective call fails returns early, its peers wait in that call's MPI-IO for ever (a full
 * disk during a checkpoint write hung two ranks that way). So the writer makes the write
 * unable to fail for lack of room: right after the file is created, rank 0 reserves an upper
 * bound of its size on disk (fallocate, the size unchanged) and every rank checks that bound
 * against its file size limit (RLIMIT_FSIZE); the ranks agree on the verdict before the first
 * dataset, and a refusal is an ordinary failed write (exit 1, the temporary file deleted).
 * Internal to io/checkpoint.c. */
#ifndef VESICA_CHECKPOINT_SPACE_H
#define VESICA_CHECKPOINT_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "parallel.h"
#include "particles.h"

/* An upper bound of the size of a checkpoint of n_total particles with the optional records
 * of `ext` (as rank 0 has them) and the configuration text `config_text`. */
double vs_ckpt_size_bound(int64_t n_total, const vs_particle_ext *ext, const char *config_text);

/* Reserve `bytes` for the file `tmp` (just created) and check every rank's file size limit.
 * Returns 0 on every rank, or on every rank non-zero: -1 with one line in err where this rank
 * found the problem, 1 where another rank did. Collective. */
int vs_ckpt_reserve(const vs_par *par, const char *tmp, double bytes, char *err,
                    size_t err_len);

/* Give back the reserved blocks past the end of the finished file (rank 0). */
void vs_ckpt_release(const vs_par *par, const char *tmp, double bytes);

#endif
