/* Exact sums (fixed_sum.h) over the owned particles: any order, the same bits. A partial
 * kernel adds each block's particles into NV 128-bit sums per block (vs_block_wide_sums),
 * then vs_wide_final adds the blocks' partials. Integer adds commute and associate, so
 * neither the block count nor the tree's shape changes a sum. */
#ifndef VS_GPU_WIDE_SUM_CUH
#define VS_GPU_WIDE_SUM_CUH

#include "gpu_internal.cuh"

/* The block's NV sums (acc per thread, s the block's shared scratch) into partials[blockIdx.x
 * * NV + q]. */
template <int NV>
__device__ __forceinline__ void vs_block_wide_sums(const vs_wide acc[NV],
                                                   vs_wide (*s)[VS_BLOCK], vs_wide *partials)
{
    for (int q = 0; q < NV; ++q)
        s[q][threadIdx.x] = acc[q];
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if ((int)threadIdx.x < half)
            for (int q = 0; q < NV; ++q)
                s[q][threadIdx.x] += s[q][threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        for (int q = 0; q < NV; ++q)
            partials[blockIdx.x * NV + q] = s[q][0];
}

#define VS_WIDE_FINAL_THREADS 256

/* w summed over the warp, in lane 0 (the two 64-bit halves shuffled). */
__device__ __forceinline__ vs_wide vs_warp_wide_sum(vs_wide w)
{
    for (int off = 16; off > 0; off >>= 1) {
        const unsigned long long lo = __shfl_down_sync(0xffffffffu, (unsigned long long)w, off);
        const long long hi = __shfl_down_sync(0xffffffffu, (long long)(w >> 64), off);
        w += (vs_wide)(((unsigned __int128)(unsigned long long)hi << 64) | lo);
    }
    return w;
}

/* The blocks' partials summed into partials[blocks * NV + q]: all threads load partials at
 * once (one thread walking hundreds of them in turn waits on each load). */
template <int NV>
__global__ void vs_wide_final_kernel(int blocks, vs_wide *partials)
{
    __shared__ vs_wide s[VS_WIDE_FINAL_THREADS / 32];
    for (int q = 0; q < NV; ++q) {
        vs_wide sum = 0;
        for (int b = threadIdx.x; b < blocks; b += blockDim.x)
            sum += partials[b * NV + q];
        sum = vs_warp_wide_sum(sum);
        if ((threadIdx.x & 31) == 0)
            s[threadIdx.x >> 5] = sum;
        __syncthreads();
        if (threadIdx.x == 0) {
            vs_wide t = 0;
            for (int w = 0; w < VS_WIDE_FINAL_THREADS / 32; ++w)
                t += s[w];
            partials[blocks * NV + q] = t;
        }
        __syncthreads();
    }
}

template <int NV>
static inline void vs_wide_final(int blocks, vs_wide *partials, cudaStream_t stream)
{
    vs_wide_final_kernel<NV><<<1, VS_WIDE_FINAL_THREADS, 0, stream>>>(blocks, partials);
    VS_CUDA_CHECK(cudaGetLastError());
}

#endif
