/* The GPU backend of the Monte Carlo engine (gpu/gpu_mc.cu): plain C, for src/engine/mc/. One
 * vs_gpu_mc holds one box's particles on the device, in the host's order, from the first
 * upload to the end of the run: a sweep runs the physics of src/core/mc_sweep.h, the CPU
 * reference's; the volume moves' energies, and where the engine chooses so the insertion,
 * deletion and transfer moves' too, are computed here (src/core/mc_energy.h: the same
 * integers as the host's sums), and every accepted change is made here, so both backends make
 * the same trajectory and the box travels back to the host only as a copy (for outputs, or
 * for the host's exchange energies). Without CUDA compiled in (VESICA_HAVE_CUDA undefined)
 * these are not linked. */
#ifndef VESICA_GPU_MC_H
#define VESICA_GPU_MC_H

#include <stddef.h>
#include <stdint.h>

#include "mc_energy.h"

typedef struct vs_gpu_mc vs_gpu_mc;

/* A device box for these pair coefficients (pp->n_styles x ns x ns of them), on device
 * `device` modulo the devices there are. NULL with err on failure (no device, out of
 * memory). */
vs_gpu_mc *vs_gpu_mc_create(const vs_mc_sweep_pairs *pp, const vs_pair_coeff *coeff, int device,
                            char *err, size_t len);
void vs_gpu_mc_free(vs_gpu_mc *g);
/* The box's n particles (positions 3 n, in [0, L), and species) onto the device. Returns 0,
 * or -1 with err. */
int vs_gpu_mc_upload(vs_gpu_mc *g, int64_t n, const double *x, const int32_t *species,
                     char *err, size_t len);
/* A sweep split over ranks (src/engine/mc/mc_ranks.h), each holding the whole box: `cells`
 * gives the cells of a colour this rank runs (*list, their count returned); after each
 * colour step `share` gets the sweep's positions on the host, by axis (x of every slot, then
 * y, then z: 3 n), each cell's first slot in start (ncell + 1), and puts every other rank's
 * cells of the colour into them (collective). A device error inside a split sweep returns at
 * once and leaves the other ranks in that all-gather: the job ends when mpiexec ends it, the
 * checkpoints written before intact. */
typedef struct {
    int64_t (*cells)(void *ctx, int colour, const uint32_t **list);
    void (*share)(void *ctx, int colour, const int64_t *start, double *xs, int64_t n);
    void *ctx;
} vs_gpu_mc_split;

/* One sweep of plan p: the positions move on the device; *dU the exact sum of the accepted
 * energy changes (quanta), *accepted their count (this rank's cells only where split is not
 * NULL). Returns 0, or -1 with err. */
int vs_gpu_mc_sweep(vs_gpu_mc *g, const vs_mc_sweep_plan *p, const vs_gpu_mc_split *split,
                    vs_wide *dU, int64_t *accepted, char *err, size_t len);
/* The positions back (3 n). Returns 0, or -1 with err. */
int vs_gpu_mc_download(vs_gpu_mc *g, double *x, char *err, size_t len);

/* The energies of the other moves: launched here, read by vs_gpu_mc_energy_result (so the
 * two boxes of a transfer or a volume exchange work at once). One at a time per box.
 * The pair energy of a particle of `species` at y (NULL: particle skip where it is, its own
 * species) with every particle of the box but skip (-1: none), in a box of edges L. */
int vs_gpu_mc_energy_at(vs_gpu_mc *g, const double L[3], const double *y, int32_t species,
                        int64_t skip, char *err, size_t len);
/* The whole box's pair energy (each pair once) with every coordinate scaled by f, in a box of
 * edges L (the scaled edges) over a grid of cells at least reach wide. */
int vs_gpu_mc_energy_scaled(vs_gpu_mc *g, const double L[3], double f, double reach, char *err,
                            size_t len);
/* The launched energy, in quanta (waits for it). Returns 0, or -1 with err. */
int vs_gpu_mc_energy_result(vs_gpu_mc *g, vs_wide *e, char *err, size_t len);
/* An accepted move's change of the box: a particle of `species` appended at x (in [0, L)),
 * particle i removed (the last takes its slot, as on the host), every coordinate scaled by f.
 * Returns 0, or -1 with err. */
int vs_gpu_mc_append(vs_gpu_mc *g, const double x[3], int32_t species, char *err, size_t len);
int vs_gpu_mc_remove(vs_gpu_mc *g, int64_t i, char *err, size_t len);
int vs_gpu_mc_scale(vs_gpu_mc *g, double f, char *err, size_t len);

#endif
