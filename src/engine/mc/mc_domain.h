/* The Monte Carlo boxes split over the ranks (mc.decomposition = "domain", the CPU
 * checkerboard on several ranks): each rank holds only some particles of each box, and the
 * run stays the one-rank run bit for bit.
 *
 * Every particle carries its index in the one-rank box (its global index, gid). A rank holds
 * a particle between sweeps; each sweep begins with a migration of every particle to the
 * rank whose brick (mc_ranks.h) holds its cell in that sweep's grid, then a ghost layer of
 * the neighbouring bricks' cells one deep (cells are at least the reach wide), which after
 * each colour step takes the moved positions of that colour's cells from the peers that hold
 * them (a halo exchange with the neighbouring bricks, not a gather of the box). Within a
 * cell the particles are in gid order, so every trial picks, draws and sums as on one rank.
 *
 * The other moves: a pick by index asks the index's holder (one sum over the ranks); an
 * energy of one particle is each rank's part over the particles it holds, summed exactly
 * (128-bit integers); a whole-box energy lays the particles out over a grid with ghosts, as
 * a sweep does, on a copy, and sums each pair once from its lower gid; an insertion goes to
 * the rank that holds its cell in the last sweep's grid; a removal of index i makes the
 * holder of index N - 1 relabel it i, as one rank moves the last particle into the hole.
 * Every rank knows every decision, N and the counts per species.
 *
 * Files stay in the one-rank layout. A checkpoint is written and read by every rank through
 * MPI-IO, each its contiguous range of indices (regrouped by index first), and a trajectory
 * frame is written so (regrouped by tag: its rows are in tag order), except to a file one
 * rank began; that, and an input file, go through rank 0 (gathered and scattered), whose
 * memory then holds a whole box.
 */
#ifndef VESICA_MC_DOMAIN_H
#define VESICA_MC_DOMAIN_H

#include <stdint.h>

#include "mc_engine.h"
#include "mc_state.h"
#include "parallel.h"

struct vs_mc_ranks;

/* The split of a state over the ranks of par (s->dom): the boxes this rank holds are empty.
 * The brick grid comes later (vs_mc_domain_attach), once the boxes' edges are known. Returns
 * 0, or -1 (out of memory). */
int vs_mc_domain_open(vs_mc_state *s, const vs_par *par);
void vs_mc_domain_attach(vs_mc_state *s, struct vs_mc_ranks *ranks);
void vs_mc_domain_close(vs_mc_state *s);

/* A fresh start keeps index i of a box of n on the rank r with n r / size <= i < n (r + 1) /
 * size. */
int vs_mc_domain_keeps(const vs_mc_state *s, int64_t i, int64_t n);
/* Append a particle of index `gid` to the rank's part of box bi (a start). */
int vs_mc_domain_append(vs_mc_state *s, int bi, const double x[3], int32_t species,
                        int64_t tag, int64_t gid);
/* The counts over the ranks after a start. Collective. */
void vs_mc_domain_recount(vs_mc_state *s);
/* Rank 0's whole boxes (a file it read) split over the ranks, the edges and progress too.
 * Collective. Returns 0, or -1 (out of memory). */
int vs_mc_domain_scatter(vs_mc_state *s);
/* Box bi gathered on rank 0 in index order into d (malloc'd arrays; vs_mc_box_data_free);
 * the other ranks' d is left empty. Collective. */
void vs_mc_domain_gather(const vs_mc_state *s, int bi, vs_mc_box_data *d);
void vs_mc_box_data_free(vs_mc_box_data *d);
/* Box bi regrouped by index for a parallel file: this rank's rows [n r / P, n (r + 1) / P) in
 * index order into d (malloc'd arrays, d->n of them), the first into *row0. Collective. */
void vs_mc_domain_rows(const vs_mc_state *s, int bi, vs_mc_box_data *d, int64_t *row0);
/* Box bi regrouped by tag for a parallel trajectory frame: this rank's particles of the tags
 * [T r / P, T (r + 1) / P) (T the next tag), sorted by tag, into d, and their first row in the
 * box's tag order into *row0. Collective. */
void vs_mc_domain_tag_rows(const vs_mc_state *s, int bi, vs_mc_box_data *d, int64_t *row0);
/* The rank's part of box bi (of edges d->L) replaced by the rows [row0, row0 + d->n) of a
 * file, in index order (vs_mc_domain_recount after every box). Returns 0, or -1 (out of
 * memory). */
int vs_mc_domain_hold_rows(vs_mc_state *s, int bi, const vs_mc_box_data *d, int64_t row0);

/* One sweep of box bi with plan p, on the CPU or (backend = "gpu") the rank's device: *dU
 * and *acc take the accepted changes summed over the ranks. Collective. Returns 0, or -1 with
 * err (a device error, on every rank). */
int vs_mc_domain_sweep(vs_mc_state *s, int bi, const vs_mc_sweep_plan *p, vs_wide *dU,
                       int64_t *acc, char *err, size_t len);
/* backend = "gpu": the device boxes vs_mc_gpu_open made become the split's (the sweeps run
 * there over the rank's brick and ghosts; every other move on the host). */
void vs_mc_domain_take_gpu(vs_mc_state *s);

#endif
