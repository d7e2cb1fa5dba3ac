/* The Monte Carlo engine: Metropolis moves of the particles of one box (nvt, npt, gcmc) or
 * two (the NVT and the NPT Gibbs ensembles); the checkerboard sweep also on one GPU (with the
 * volume moves' energies there, and the exchange moves' from a copy on the host or, chosen,
 * on the device too: the boxes live on the device), or on several ranks
 * (mc_ranks.h: its cells split over them, the one-rank run bit for bit).
 *
 * A cycle is mc.moves_per_cycle moves, by default the particles at the start of the run
 * (at least one), then the same in every cycle: a length that followed the state would
 * sample the states of short cycles more often (gcmc: a mean N one below z V). Each move's
 * kind, particle, displacement and acceptance come from counter-based random numbers keyed
 * by (seed, cycle) and (move index in the cycle, draw index) (src/core/tea_rng.h; the top
 * byte of the cycle word is the stream 0x4d, apart from MD's streams), never by a thread or
 * a rank: the state after a cycle is a function of the state before it, so a restart from a
 * checkpoint stores no generator state and continues bit for bit. With mc.sweep =
 * "checkerboard" the displacements are sweeps of a checkerboard of cells whose particles move
 * at once (src/core/mc_sweep.h; mc_sweep.c runs them on the CPU or the GPU), with draws keyed
 * by (seed, cycle, box) and (cell, colour step, draw index).
 *
 * The step sizes (displacement per box, log-volume) are tuned towards mc.target_acceptance
 * every mc.tune_every cycles while cycle < mc.equilibration, never after, so the production
 * cycles sample with fixed moves (detailed balance).
 */
#ifndef VESICA_MC_ENGINE_H
#define VESICA_MC_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "mc_box.h"
#include "mc_state.h"
#include "mc_sweep.h"
#include "params.h"

/* The CPU checkerboard sweep's work arrays (mc_sweep.c). */
typedef struct {
    uint32_t *cell;      /* cap: each particle's cell */
    int64_t *order;      /* cap: the particles by cell */
    double *xs;          /* 3 cap: their positions, by axis */
    int32_t *ss;         /* cap: their species */
    int64_t *start;      /* start_cap: each cell's first slot */
    int64_t cap, start_cap;
} vs_mc_sweep_work;

struct vs_gpu_mc;
struct vs_mc_ranks;
typedef struct vs_mc_domain vs_mc_domain;

typedef struct {
    const vs_params *prm;
    vs_mc_pairs pairs;
    int n_boxes;
    vs_mc_box box[VS_MC_MAX_BOXES];
    vs_mc_progress pr;
    double *scratch;               /* 3 cap: positions saved by a volume move */
    int64_t scratch_cap;
    /* the checkerboard sweep (mc.sweep = "checkerboard", mc_sweep.c) */
    vs_mc_sweep_pairs sweep_pairs;
    vs_pair_coeff *sweep_coeff;    /* its coefficient matrices */
    vs_mc_sweep_work cb;
    struct vs_gpu_mc *gpu[VS_MC_MAX_BOXES]; /* backend = "gpu": the device boxes, else NULL */
    int dev_ahead[VS_MC_MAX_BOXES];  /* the device's positions are newer than the host's */
    int host_ahead[VS_MC_MAX_BOXES]; /* the host's box is not on the device yet */
    int64_t gpu_particle_energies;   /* the other moves' energies computed on the device: */
    int64_t gpu_box_energies;        /* of one particle, of a whole box */
    int64_t gpu_uploads, gpu_downloads; /* whole boxes copied to and from the device */
    int exchange_on_host;  /* the exchange moves' energies on the host, from a copy of the
                              positions taken after each cycle's sweeps (the volume moves'
                              stay on the device); VESICA_MC_GPU_EXCHANGE=device: on the
                              device, the box never brought back within a cycle */
    char err[256];                 /* why vs_mc_cycle failed */
    struct vs_mc_ranks *ranks;     /* more than one rank: the sweep's bricks (mc_ranks.h) */
    vs_mc_domain *dom;             /* mc.decomposition = "domain" on several ranks: box[b]
                                      holds this rank's particles only (mc_domain.h) */
} vs_mc_state;

/* What a thermo row reports of one box. */
typedef struct {
    int64_t n;
    double volume, density, energy, pressure; /* energy: pairs plus tail, total */
    int64_t count[VS_MAX_SPECIES];            /* particles per species */
} vs_mc_box_obs;

/* Empty boxes of the configuration's edges (box 1: mc.box2 in gibbs, gibbs_npt). Returns 0,
 * or -1. */
int vs_mc_init(vs_mc_state *s, const vs_params *prm);
/* The configuration's particles on a simple cubic lattice in each empty box (tags 0.. box by
 * box, species in blocks of tags by their fractions; a split state keeps its part). The
 * caller computes the box energies (vs_mc_refresh). Returns 0, or -1. */
int vs_mc_fill_lattice(vs_mc_state *s);
/* The moves per cycle of a fresh start (the key, or the particles now in the boxes). */
void vs_mc_set_cycle_length(vs_mc_state *s);
/* Recompute every box's pair energy from scratch (after filling a box directly). */
void vs_mc_refresh(vs_mc_state *s);
void vs_mc_free(vs_mc_state *s);

/* One cycle of moves, then the tuning where due; s->pr.cycle grows by one. Returns 0, or -1
 * with s->err (out of memory growing a box, a device error). In checkerboard mode a cycle is
 * one sweep of each box (every particle of a box is tried once on average), then
 * round(moves_per_cycle (1 - p_displacement)) volume and exchange moves, decided on the host
 * (their energies on the GPU where the boxes live there). */
int vs_mc_cycle(vs_mc_state *s);
/* The observables of box b (a full pass for the virial). */
vs_mc_box_obs vs_mc_observe(const vs_mc_state *s, int b);

/* The moves (mc_moves.c): move m of the current cycle. Returns 0, or -1 (out of memory). */
int vs_mc_attempt(vs_mc_state *s, int64_t m);
/* A move m of the kinds other than displacement (volume, exchange; their probabilities
 * renormalised), after a checkerboard sweep; on the device where the boxes live there.
 * Returns 0, or -1 (out of memory, or a device error with s->err). */
int vs_mc_attempt_other(vs_mc_state *s, int64_t m);

/* The checkerboard sweep (mc_sweep.c). The pair coefficients it reads, from the state's
 * parameters (vs_mc_init calls it). Returns 0, or -1 (out of memory). */
int vs_mc_sweep_init(vs_mc_state *s);
/* backend = "gpu": a device box per box, on device `device` (the rank's place on its node)
 * modulo the node's devices. Returns 0, or -1 with err. */
int vs_mc_gpu_open(vs_mc_state *s, int device, char *err, size_t len);
/* The device's positions back into the boxes where they are newer (before the host reads
 * the boxes: a thermo row, a checkpoint, the end). Returns 0, or -1 with err. */
int vs_mc_sync_host(vs_mc_state *s, char *err, size_t len);
/* A cycle's sweeps and its other moves. Returns 0, or -1 with err. */
int vs_mc_checkerboard_moves(vs_mc_state *s, char *err, size_t len);
void vs_mc_sweep_free(vs_mc_state *s);

/* The other moves on a box that lives on the device (s->gpu[bi] set; mc_sweep.c; the
 * particle energies only where exchange_on_host is 0). Each
 * returns 0, or -1 with s->err (a device error). An energy is launched, then read by
 * vs_mc_dev_energy_result (so a move's two boxes work at once), in quanta: the same integers
 * as the host's vs_mc_energy_at and vs_mc_energy_total. */
/* Of a particle of `species` at y (NULL: particle skip where it is) with the box's particles
 * but skip (-1: none). */
int vs_mc_dev_energy_at(vs_mc_state *s, int bi, const double *y, int32_t species, int64_t skip);
/* Of the whole box with its coordinates scaled by f and edges L (the host's L f). */
int vs_mc_dev_energy_scaled(vs_mc_state *s, int bi, double f, const double L[3]);
int vs_mc_dev_energy_result(vs_mc_state *s, int bi, vs_wide *e);
/* Accepted changes, made on the host's box too by the caller: the host's last particle
 * appended, particle i removed (before the host removes it); the box scaled by f to edges L
 * (the host's edges set here, and its positions scaled where they are current: a copy
 * taken for exchange_on_host). */
int vs_mc_dev_append(vs_mc_state *s, int bi);
int vs_mc_dev_remove(vs_mc_state *s, int bi, int64_t i);
int vs_mc_dev_scale(vs_mc_state *s, int bi, double f, const double L[3]);

/* A box as the moves and observables see it, held whole on this rank or split over the ranks
 * (s->dom, mc_domain.c; then each is collective: every rank calls it at the same point, and
 * gets the same answer). Particles are named by their index in the one-rank box. */
int64_t vs_mc_n(const vs_mc_state *s, int bi);
const int64_t *vs_mc_count(const vs_mc_state *s, int bi); /* particles per species */
void vs_mc_particle(const vs_mc_state *s, int bi, int64_t i, double x[3], int32_t *species,
                    int64_t *tag);
/* vs_mc_energy_at and vs_mc_energy_total of box bi (skip: an index, -1 none). */
vs_wide vs_mc_energy_of(const vs_mc_state *s, int bi, const double y[3], int32_t species,
                        int64_t skip);
vs_wide vs_mc_energy_box(const vs_mc_state *s, int bi, double *virial);
/* Append a particle (index N); remove index i of `species` (index N - 1 takes its place).
 * vs_mc_insert returns 0, or -1 (out of memory). */
int vs_mc_insert(vs_mc_state *s, int bi, const double y[3], int32_t species, int64_t tag);
void vs_mc_delete(vs_mc_state *s, int bi, int64_t i, int32_t species);
/* The species of the m indices idx[] into out[]; the index of the j-th particle of `species`
 * in index order. */
void vs_mc_species_at(const vs_mc_state *s, int bi, const int64_t *idx, int m, int32_t *out);
int64_t vs_mc_nth_of_species(const vs_mc_state *s, int bi, int32_t species, int64_t j);

/* The trials of the active cell of coordinates c in colour step `step` of plan p on the CPU,
 * over w's slots (n of them, in cell order): *dU and *acc take its accepted changes. */
void vs_mc_cell_trials(const vs_mc_state *s, const vs_mc_sweep_plan *p, vs_mc_sweep_work *w,
                       int64_t n, const int c[3], uint32_t step, vs_wide *dU, int64_t *acc);

/* The random numbers of draw k of move m in cycle c: two uniform numbers on (0, 1). */
void vs_mc_draw(const vs_params *prm, int64_t c, int64_t m, unsigned k, double u[2]);

#endif
