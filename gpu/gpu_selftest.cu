/* Device-side evaluation of the shared physics headers, for the tests that compare the GPU
 * with the CPU bit for bit (the pair random numbers). */
#include "gpu_internal.cuh"

extern "C" {
#include "tea_rng.h"
}

__global__ void pair_bits_kernel(int n, vs_tea_key key, const uint64_t *a, const uint64_t *b,
                                 uint32_t *out, double *xi_uniform, double *xi_gauss)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const vs_tea_block bits = vs_pair_bits(key, a[k], b[k]);
    out[2 * k] = bits.v0;
    out[2 * k + 1] = bits.v1;
    xi_uniform[k] = vs_xi_uniform(bits);
    xi_gauss[k] = vs_xi_gaussian(bits);
}

extern "C" int vs_gpu_selftest_pair_bits(uint64_t seed, uint64_t step, int n,
                                         const uint64_t *tag_a, const uint64_t *tag_b,
                                         uint32_t *bits, double *xi_uniform, double *xi_gauss)
{
    uint64_t *d_a, *d_b;
    uint32_t *d_bits;
    double *d_u, *d_g;
    VS_CUDA_CHECK(cudaMalloc((void **)&d_a, sizeof(uint64_t) * (size_t)n));
    VS_CUDA_CHECK(cudaMalloc((void **)&d_b, sizeof(uint64_t) * (size_t)n));
    VS_CUDA_CHECK(cudaMalloc((void **)&d_bits, 2 * sizeof(uint32_t) * (size_t)n));
    VS_CUDA_CHECK(cudaMalloc((void **)&d_u, sizeof(double) * (size_t)n));
    VS_CUDA_CHECK(cudaMalloc((void **)&d_g, sizeof(double) * (size_t)n));
    VS_CUDA_CHECK(cudaMemcpy(d_a, tag_a, sizeof(uint64_t) * (size_t)n, cudaMemcpyHostToDevice));
    VS_CUDA_CHECK(cudaMemcpy(d_b, tag_b, sizeof(uint64_t) * (size_t)n, cudaMemcpyHostToDevice));
    VS_LAUNCH(pair_bits_kernel, n, VS_BLOCK, 0, n, vs_tea_make_key(seed, step), d_a, d_b,
              d_bits, d_u, d_g);
    VS_CUDA_CHECK(cudaMemcpy(bits, d_bits, 2 * sizeof(uint32_t) * (size_t)n,
                             cudaMemcpyDeviceToHost));
    VS_CUDA_CHECK(cudaMemcpy(xi_uniform, d_u, sizeof(double) * (size_t)n,
                             cudaMemcpyDeviceToHost));
    VS_CUDA_CHECK(cudaMemcpy(xi_gauss, d_g, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost));
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_bits);
    cudaFree(d_u);
    cudaFree(d_g);
    return 0;
}
