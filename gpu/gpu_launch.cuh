/* Launching kernels, for every .cu file of the GPU backend: the checked CUDA call, the one
 * launch macro, and the counts a kernel may read on the device (with the grid-stride loop
 * that covers them). */
#ifndef VESICA_GPU_LAUNCH_CUH
#define VESICA_GPU_LAUNCH_CUH

#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "log.h"
}

#define VS_CUDA_CHECK(call)                                                                    \
    do {                                                                                       \
        cudaError_t vs_cuda_rc_ = (call);                                                      \
        if (vs_cuda_rc_ != cudaSuccess)                                                        \
            vs_log_fatal(__FILE__, __LINE__, "%s failed: %s", #call,                           \
                         cudaGetErrorString(vs_cuda_rc_));                                     \
    } while (0)

/* Every launch goes through here: empty grids are skipped (a rank with nothing to do), and
 * the launch is checked. */
#define VS_LAUNCH(kernel, n, block, stream, ...)                                               \
    do {                                                                                       \
        const int64_t vs_n_ = (n);                                                             \
        if (vs_n_ > 0) {                                                                       \
            const unsigned vs_grid_ = (unsigned)((vs_n_ + (block) - 1) / (block));             \
            kernel<<<vs_grid_, (block), 0, (stream)>>>(__VA_ARGS__);                           \
            VS_CUDA_CHECK(cudaGetLastError());                                                 \
        }                                                                                      \
    } while (0)

#define VS_BLOCK 256

/* A count of particles that the kernels may have to read on the device: `base`, plus the
 * device word *more where it is set (the ghosts the image pass wrote, when their number stays
 * on the device: vs_gpu_halo.ghosts_on_device). */
struct vs_count {
    int base;
    const int32_t *more;
};

static inline vs_count vs_count_known(int64_t n)
{
    vs_count c = {(int)n, NULL};
    return c;
}

__device__ __forceinline__ int vs_count_get(const vs_count &c)
{
    return c.more ? c.base + *c.more : c.base;
}

/* The sum of `value` over lanes 0 .. lane of the (full) warp. */
__device__ __forceinline__ int vs_warp_inclusive_sum(int value, int lane)
{
    for (int offset = 1; offset < 32; offset <<= 1) {
        const int v = __shfl_up_sync(0xffffffffu, value, offset);
        if (lane >= offset)
            value += v;
    }
    return value;
}

/* Kernels over a vs_count stride over it: their grid covers the host's estimate, which a
 * device-side count may exceed. */
#define VS_FOR_EACH(i, n)                                                                      \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

#endif
