/* The GPU backend of the Monte Carlo engine's checkerboard sweep (gpu/gpu_mc.cu): plain C,
 * for src/engine/mc/. One vs_gpu_mc holds one box's particles on the device; a sweep runs
 * the physics of src/core/mc_sweep.h, the CPU reference's, so both make the same trajectory.
 * Without CUDA compiled in (VESICA_HAVE_CUDA undefined) these are not linked. */
#ifndef VESICA_GPU_MC_H
#define VESICA_GPU_MC_H

#include <stddef.h>
#include <stdint.h>

#include "mc_sweep.h"

typedef struct vs_gpu_mc vs_gpu_mc;

/* A device box for these pair coefficients (pp->n_styles x ns x ns of them). NULL with err
 * on failure (no device, out of memory). */
vs_gpu_mc *vs_gpu_mc_create(const vs_mc_sweep_pairs *pp, const vs_pair_coeff *coeff, char *err,
                            size_t len);
void vs_gpu_mc_free(vs_gpu_mc *g);
/* The box's n particles (positions 3 n, in [0, L), and species) onto the device. Returns 0,
 * or -1 with err. */
int vs_gpu_mc_upload(vs_gpu_mc *g, int64_t n, const double *x, const int32_t *species,
                     char *err, size_t len);
/* One sweep of plan p: the positions move on the device; *dU the exact sum of the accepted
 * energy changes (quanta), *accepted their count. Returns 0, or -1 with err. */
int vs_gpu_mc_sweep(vs_gpu_mc *g, const vs_mc_sweep_plan *p, vs_wide *dU, int64_t *accepted,
                    char *err, size_t len);
/* The positions back (3 n). Returns 0, or -1 with err. */
int vs_gpu_mc_download(vs_gpu_mc *g, double *x, char *err, size_t len);

#endif
