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

/* The kinetic sums (VS_KINETIC_SUMS): grid-stride partial kernels of at most VS_SUM_BLOCKS
 * blocks of VS_BLOCK threads fill the device, and their partials fit red.partials. */
#define VS_SUM_BLOCKS 512
#define VS_SUM_MOMENTUM 5 /* m vx, m vy, m vz, m v^2 / 2, m; then I |u|^2 / 2, count */

static inline int vs_sum_blocks(int n)
{
    const int blocks = (n + VS_BLOCK - 1) / VS_BLOCK;
    return blocks < VS_SUM_BLOCKS ? blocks : VS_SUM_BLOCKS;
}

/* One particle's kinetic terms into acc[0 .. VS_SUM_MOMENTUM): the CPU's (src/cpu/integrate.c,
 * vs_momentum_sums) with every product and sum rounded apart, so that any kernel of any file
 * gives the same bits; a frozen particle (inv_m 0) is no moving mass. *bad: a term out of
 * range. */
__device__ __forceinline__ void vs_kinetic_terms_add(vs_wide *acc, double m, double inv_m,
                                                     double ux, double uy, double uz, int *bad)
{
    const double term[VS_SUM_MOMENTUM] = {
        __dmul_rn(m, ux), __dmul_rn(m, uy), __dmul_rn(m, uz),
        __dmul_rn(__dmul_rn(0.5, m),
                  __dadd_rn(__dadd_rn(__dmul_rn(ux, ux), __dmul_rn(uy, uy)), __dmul_rn(uz, uz))),
        inv_m == 0.0 ? 0.0 : m};
    for (int q = 0; q < VS_SUM_MOMENTUM; ++q) {
        if (vs_wide_ok(term[q]))
            acc[q] += vs_wide_from_double(term[q]);
        else
            *bad = 1;
    }
}

/* An oriented particle's rotation terms (vs_rotation_sums'): I |u|^2 / 2 and one, into
 * acc[0 .. 2). */
__device__ __forceinline__ void vs_rotation_terms_add(vs_wide *acc, double inertia,
                                                      const double u[3], int *bad)
{
    const double k = __dmul_rn(
        __dmul_rn(0.5, inertia),
        __dadd_rn(__dadd_rn(__dmul_rn(u[0], u[0]), __dmul_rn(u[1], u[1])), __dmul_rn(u[2], u[2])));
    if (vs_wide_ok(k))
        acc[0] += vs_wide_from_double(k);
    else
        *bad = 1;
    acc[1] += vs_wide_from_double(1.0);
}

/* The frame of a partial kernel: each thread adds terms(i, acc, &bad) of its particles
 * (grid-stride) into NV sums, an out-of-range term sets *bad, and the block's sums go to
 * partials. TERMS is a functor of the kernel's own file, so its arithmetic rounds as that
 * file's other kernels do (the kick of a kicked sum as the half-step's). */
template <int NV, class TERMS>
__device__ __forceinline__ void vs_partial_wide_sums(int n, const TERMS &terms,
                                                     vs_wide *partials, unsigned int *bad)
{
    __shared__ vs_wide s[NV][VS_BLOCK];
    vs_wide acc[NV];
    for (int q = 0; q < NV; ++q)
        acc[q] = 0;
    int out_of_range = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        terms(i, acc, &out_of_range);
    if (out_of_range)
        atomicOr(bad, 1u);
    vs_block_wide_sums<NV>(acc, s, partials);
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
