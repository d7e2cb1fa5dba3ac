/* Oriented particles on the device (gpu_aniso.cu): their part of the GPU state and what the
 * rest of the backend calls. The soft anisotropic pair style (src/core/pair_aniso.h) and the
 * rotation of the ensembles (src/core/integrator.h) read and move one record per particle,
 * vs_orient (src/core/particles.h: the unit vector n, its rate u and the orientation
 * gradient g = -dU/dn of the last forces), the host's record as it is. Nothing here is
 * allocated or launched unless some species is oriented (an.on), so a plain run's memory,
 * records and kernels are those of before. */
#ifndef VESICA_GPU_ANISO_CUH
#define VESICA_GPU_ANISO_CUH

extern "C" {
#include "ensemble.h"
#include "fixed_sum.h"
#include "pair_aniso.h"
#include "particles.h"
}

/* Oriented particles: one vs_orient per slot (pt.capacity of them, grown with the particle
 * arrays by vs_gpu_reserve): an owned slot's n, u and g; a ghost slot's n alone, which
 * travels with the ghost (gpu_halo.cuh's records carry it after theirs). d_coeff: the
 * style's coefficients per species pair (VS_MAX_SPECIES^2), uploaded at create. */
struct vs_gpu_aniso {
    int on; /* vs_params_oriented */
    vs_orient *orient;
    vs_aniso_coeff *d_coeff;
};

/* The bytes of n that a ghost record carries after its own (0 without orientations). */
#define VS_GHOST_ORIENT_BYTES (3 * sizeof(double))

/* At create (an.on set): the coefficients to the device; at destroy: free. */
void vs_gpu_aniso_create(vs_gpu_state *g);
void vs_gpu_aniso_free(vs_gpu_state *g);
/* The owned particles' records from the host and back (the host's vs_orient, enabled there
 * on the way down); queued on the state's stream before the caller's synchronisation. */
void vs_gpu_aniso_upload(vs_gpu_state *g, const vs_particles *h);
void vs_gpu_aniso_download(vs_gpu_state *g, vs_particles *h);
/* The Morton reorder: the owned records follow their particles (g->sort.idx_out). */
void vs_gpu_aniso_permute(vs_gpu_state *g, int n);
/* The rotation's part of the Verlet half-steps (integrator.h, as src/cpu/integrate.c's
 * vs_integrate_rotation): `finish` the previous step's second half (a kick, then u scaled by
 * *scale where scale is not NULL: Berendsen's factor on the device), `first` this step's
 * first half (a kick, then the drift on the sphere). */
void vs_gpu_rotate(vs_gpu_state *g, int finish, int first, const double *scale);
/* Berendsen's rotational sums: per block (`blocks` of VS_BLOCK, grid-stride) the two rotation
 * terms of the rates finish's kick would give, into partials[2 * block + q]; bad: a term out
 * of range. And every u scaled by s, or by *s_dev where s_dev is not NULL. */
void vs_gpu_kicked_rotation_partials(vs_gpu_state *g, int blocks, vs_wide *partials,
                                     unsigned int *bad);
void vs_gpu_scale_rotation_by(vs_gpu_state *g, double s, const double *s_dev);
/* Langevin's O-step of the rotation rates (op: VS_ENSEMBLE_OP_LANGEVIN_*), as
 * vs_integrate_rotation_ou. */
void vs_gpu_rotation_ou(vs_gpu_state *g, int op, int64_t step, const vs_ensemble_consts *c);
/* The pair styles' per-particle energy and virial buffers (gpu_pair.cu), grown to the owned
 * particles: the anisotropic walk writes or adds its shares there. */
void vs_gpu_pair_energy_reserve(vs_gpu_state *g);

#endif
