/* The checkerboard sweep over several ranks (mc.sweep = "checkerboard", the CPU): every rank
 * holds the whole state (replicated data; mc.decomposition = "domain" splits it instead, with
 * these bricks: mc_domain.h), and the sweep's work is cut into bricks of whole cells of the
 * sweep's grid, one brick per rank.
 *
 * A sweep's grid (src/core/mc_sweep.h) is laid afresh every cycle, shifted by a random offset
 * and remade when a volume move changes the edges, so a brick is a block of cell coordinates
 * (cells c with lo <= c < hi along each axis, from the rank's coordinates in a grid of
 * ranks), not a region of space: a particle belongs to whichever rank holds its cell in this
 * sweep. In each colour step a rank runs the trials of its own cells of that colour with the
 * same function and the same draws as the one-rank sweep (the draws are keyed by the global
 * cell, never by a rank), then an all-gather hands every rank the positions of every cell of
 * that colour: the cells of one colour never see each other's moves, so the sweep is the
 * one-rank sweep whatever the split, bit for bit. The energy changes are 128-bit fixed-point
 * integers, summed over the ranks exactly, and the accepted counts are integers too.
 *
 * The whole-box energy (a volume move, a thermo row's energy and virial) is split over the
 * ranks too, by particle index, each pair once from its lower index and the integer sums
 * added over the ranks: the same integers as on one rank.
 *
 * Trade-off: the whole state on every rank makes the other moves (volume, insertion and
 * deletion, Gibbs transfers), the thermo rows, the checkpoints (rank 0 writes the one-rank
 * file) and restarts on another rank count the one-rank code unchanged, at the price of the
 * memory of the whole system per rank and an all-gather of every particle's position per
 * sweep (24 bytes a particle), which bounds the speed-up to ranks of one node or a few.
 *
 * The grid of ranks is chosen once, at the start, for the boxes' sweep grids then: at least
 * two cells per rank along each axis on a fresh start (else the run is refused: more ranks
 * would wait than work); a volume move may later make a sweep's grid coarser, and a rank
 * whose brick is then empty just waits (the split stays exact), as on a restart of such a
 * run.
 */
#ifndef VESICA_MC_RANKS_H
#define VESICA_MC_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "mc_engine.h"
#include "parallel.h"

/* One rank's part of a sum over the ranks. */
typedef struct {
    vs_wide w[2];  /* energies (quanta) or virials */
    int64_t count; /* accepted trials */
    int64_t failed; /* ranks that failed */
} vs_mc_part;

typedef struct vs_mc_ranks {
    vs_par par;
    int dims[3];          /* ranks along each axis; rank r has coordinates r = x + dx (y + dy z) */
    uint32_t *cells;      /* cells_cap: the cells of one colour in one brick */
    int64_t cells_cap;
    double *send, *recv;  /* xyz_cap: the positions of the cells of one colour */
    int64_t xyz_cap;
    int *counts, *displs; /* size: bytes of each rank's share of a colour step */
    vs_mc_part *parts;    /* size: each rank's part of a sweep's sums */
} vs_mc_ranks;

/* The grid of ranks on comm for the state's boxes as they are now: on a fresh start (`fresh`)
 * at least two cells per rank along each axis, else refused; a restart takes any grid (a run
 * whose box shrank continues on its rank count). Collective. Returns 0, or an exit status
 * (VS_EXIT_BAD_INPUT: too few cells per rank) with one line in err, the same on every rank. */
int vs_mc_ranks_open(vs_mc_ranks *r, MPI_Comm comm, const vs_mc_state *s, int fresh,
                     char *err, size_t len);
void vs_mc_ranks_close(vs_mc_ranks *r);

/* Room for a sweep of n particles in ncell cells. Collective: returns -1 on every rank when
 * any rank has `failed` or is out of memory (or a colour's share is beyond an MPI count),
 * else 0. */
int vs_mc_ranks_reserve(vs_mc_ranks *r, int64_t n, int64_t ncell, int failed);
/* The cells of `colour` in rank k's brick of plan p's grid, in index order, into r->cells.
 * Returns their count. */
int64_t vs_mc_ranks_cells(vs_mc_ranks *r, int k, const vs_mc_sweep_plan *p, int colour);
/* After a colour step: this rank's cells of `colour` sent to every rank, every other rank's
 * received into xs (the sweep's positions by axis, n particles; start: each cell's first
 * slot). Collective. */
void vs_mc_ranks_share(vs_mc_ranks *r, const vs_mc_sweep_plan *p, int colour,
                       const int64_t *start, double *xs, int64_t n);
/* The sweep's energy change and accepted count summed over the ranks (exact), and *failed
 * non-zero on every rank when it is on any. Collective. */
void vs_mc_ranks_sum(const vs_mc_ranks *r, vs_wide *dU, int64_t *acc, int *failed);
/* Rank k's brick of a grid of nc cells per axis: cells lo[d] <= c < hi[d] (empty where the
 * grid has fewer cells than ranks along an axis). */
void vs_mc_ranks_brick(const vs_mc_ranks *r, int k, const int nc[3], int lo[3], int hi[3]);
/* The rank whose brick holds the cell of coordinates c in a grid of nc cells per axis. */
int vs_mc_ranks_owner(const vs_mc_ranks *r, const int nc[3], const int c[3]);
/* A box's whole-box energy split over the ranks (vs_mc_energy_total, when vs_mc_pairs's
 * ranks is set): this rank's particles [*i0, *i1) of n, and the two sums over the ranks
 * (exact). The sum is collective: every rank calls vs_mc_energy_total at the same points. */
void vs_mc_ranks_split(const vs_mc_ranks *r, int64_t n, int64_t *i0, int64_t *i1);
void vs_mc_ranks_sum_wide(const vs_mc_ranks *r, vs_wide w[2]);

#endif
