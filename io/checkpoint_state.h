/* The run's global state in a checkpoint, beside the particles: the ensemble's
 * (/integrator_state, float64, its digest in the file-wide /content_hash) and, in runs with
 * reactions, the reactions' counters (/reaction_state, int64 of VS_REACTION_STATE_WORDS values in the order of vs_reaction_state
 * (src/core/reaction.h), with its own digest in the attribute content_hash, so the file-wide
 * /content_hash keeps its slots and older checkpoints still read. Internal to io/checkpoint.c;
 * the layout is in docs/file-formats.md. */
#ifndef VESICA_CHECKPOINT_STATE_H
#define VESICA_CHECKPOINT_STATE_H

#include <hdf5.h>
#include <stddef.h>

#include "ensemble.h"
#include "parallel.h"
#include "reaction.h"

/* /integrator_state of the ensemble's state e (rank 0's values; a collective write), its
 * digest into dig. Returns 0 or non-zero. */
int vs_ckpt_ensemble_write(const vs_par *par, hid_t f, hid_t dxpl, const vs_ensemble_state *e,
                           uint64_t dig[]);
/* Read it into *e (a file older than the ensembles has none: the zero state), its digest
 * into *digest where not NULL. Returns 0, or -1 with one line in err. */
int vs_ckpt_ensemble_read(hid_t f, hid_t dxpl, const char *path, vs_ensemble_state *e,
                          uint64_t *digest, char *err, size_t err_len);

/* Write the dataset (rank 0's values; a collective write). Returns 0 or non-zero. */
int vs_ckpt_reactions_write(const vs_par *par, hid_t f, hid_t dxpl, const vs_reaction_state *s);
/* Whether file f has the dataset. */
int vs_ckpt_reactions_present(hid_t f);
/* Read it into *s. Returns 0, or -1 with one line in err (damaged, or of the wrong size). */
int vs_ckpt_reactions_read(hid_t f, hid_t dxpl, const char *path, vs_reaction_state *s,
                           char *err, size_t err_len);

#endif
