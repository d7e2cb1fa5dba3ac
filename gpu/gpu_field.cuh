/* The particle-field term (MD-SCF) on the GPU backend (gpu_field.cu): its part of the state
 * and what the rest of the backend calls. The physics is src/core/field_grid.h, the CPU's. */
#ifndef VESICA_GPU_FIELD_CUH
#define VESICA_GPU_FIELD_CUH

#include "gpu_internal.cuh"

extern "C" {
#include "field_grid.h"
}

/* The field index of each species (-1: none), passed to kernels by value, as a
 * __grid_constant__ parameter: indexed by a bead's species, it is read where it lies, not
 * copied to each thread's local memory first. */
struct vs_field_of {
    int k[VS_MAX_SPECIES];
};

/* What one bead's field force reads beside its position (vs_field_bead_force). */
struct vs_field_bead {
    const int32_t *species;
    const int64_t *tag;
    const double *pot;           /* nf * nvert potentials */
    int64_t nvert;
    unsigned long long *escaped; /* the smallest tag of a bead beyond the rank's grid */
    vs_field_grid grid;
    vs_field_of of;
};

/* The field force of scheme SCHEME (field.force) on bead i at x into f: 1, or 0 where its
 * species has no field or x is beyond the rank's grid (its tag recorded: the host stops at
 * the next read of the status). */
template <int SCHEME>
__device__ __forceinline__ int vs_field_bead_force(const vs_field_bead &b, int i,
                                                   const double x[3], double f[3])
{
    const int k = b.of.k[b.species[i]];
    if (k < 0)
        return 0;
    double t[3];
    int c[3];
    if (vs_field_cell(&b.grid, x, 1, c, t) != 0) {
        atomicMin(b.escaped, (unsigned long long)b.tag[i]);
        return 0;
    }
    vs_field_force(&b.grid, SCHEME, b.pot + (int64_t)k * b.nvert, c, t, f);
    return 1;
}

/* The term's block of the grid, made at its first evaluation (NULL until then and without a
 * field). */
struct vs_gpu_field;

/* The bond kernel adds the field force of every bead with a topology record where the run
 * has fields and bonds (the bond term follows the field term on the same stream: forcefield.c's
 * order, never beside the Newton kernel, gpu_state.cu's fork_allowed), so such a bead's
 * position is read and its force written once a step. After this evaluation's
 * vs_gpu_field_forces, whose kernel skipped those beads: 1 and *b with the scheme in *scheme,
 * once; 0 where the field kernel added every bead's force itself. */
int vs_gpu_field_fused(vs_gpu_state *g, vs_field_bead *b, int *scheme);

/* The next evaluation recomputes the fields and recounts the field particles (the owned
 * state was uploaded: attach, the canonical re-start after a checkpoint, a reaction step's
 * reload). A no-op without a field. */
void vs_gpu_field_stale(vs_gpu_state *g);
/* The block's device memory (destroy). */
void vs_gpu_field_free(vs_gpu_state *g);

#endif
