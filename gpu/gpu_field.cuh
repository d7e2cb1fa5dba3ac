/* The particle-field term (MD-SCF) on the GPU backend (gpu_field.cu): its part of the state
 * and what the rest of the backend calls. The physics is src/core/field_grid.h, the CPU's. */
#ifndef VESICA_GPU_FIELD_CUH
#define VESICA_GPU_FIELD_CUH

#include "gpu_internal.cuh"

/* The term's block of the grid, made at its first evaluation (NULL until then and without a
 * field). */
struct vs_gpu_field;

/* The next evaluation recomputes the fields and recounts the field particles (the owned
 * state was uploaded: attach, the canonical re-start after a checkpoint, a reaction step's
 * reload). A no-op without a field. */
void vs_gpu_field_stale(vs_gpu_state *g);
/* The block's device memory (destroy). */
void vs_gpu_field_free(vs_gpu_state *g);

#endif
