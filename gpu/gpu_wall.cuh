/* The walls on the GPU backend (gpu_wall.cu, gpu_integrate.cu): their part of the state and
 * the escape check. */
#ifndef VESICA_GPU_WALL_CUH
#define VESICA_GPU_WALL_CUH

#include "gpu_backend.h"
#include "wrap.h"

/* The walls (boundary.*; gpu_integrate.cu): the reflection's constants, and the smallest tag
 * the first half-step found still outside a wall (~0: none), read back on rebuild steps. */
struct vs_gpu_walls_part {
    int on;
    vs_walls w;
    unsigned long long *d_escaped;
};

/* A particle the first half-step left outside a wall (vs_walls_reflect): a fatal fault with
 * its tag (gpu_integrate.cu); nothing without walls, or while the stream is captured as the
 * step's graph. Synchronises the stream. */
void vs_gpu_walls_check(vs_gpu_state *g);

#endif
