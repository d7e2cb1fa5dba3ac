/* Device memory copy bandwidth, the yardstick of docs/performance.md's kernel table (a
 * benchmark, not a test). A grid-stride kernel copies an array of doubles (the access pattern
 * of the integrator and the staging kernels), and cudaMemcpy copies device to device; both
 * count the bytes read plus the bytes written.
 * Usage: vesica_copy_bandwidth [GiB per array, default 2]
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t rc_ = (call);                                                               \
        if (rc_ != cudaSuccess) {                                                               \
            fprintf(stderr, "copy_bandwidth: %s: %s\n", #call, cudaGetErrorString(rc_));      \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

__global__ void copy_kernel(size_t n, const double2 *in, double2 *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

int main(int argc, char **argv)
{
    const double gib = argc > 1 ? atof(argv[1]) : 2.0;
    const size_t bytes = (size_t)(gib * 1073741824.0) / 16 * 16, n = bytes / 16;
    if (n == 0) {
        fprintf(stderr, "copy_bandwidth: array size must be positive\n");
        return 1;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    double2 *a, *b;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMemset(a, 1, bytes));
    CHECK(cudaMemset(b, 0, bytes));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    const int reps = 20, blocks = 4 * prop.multiProcessorCount * 8;
    float best_kernel = 1e30f, best_memcpy = 1e30f;
    for (int r = 0; r < reps; ++r) {
        float ms;
        CHECK(cudaEventRecord(t0));
        copy_kernel<<<blocks, 256>>>(n, a, b);
        CHECK(cudaEventRecord(t1));
        CHECK(cudaEventSynchronize(t1));
        CHECK(cudaEventElapsedTime(&ms, t0, t1));
        if (r > 0 && ms < best_kernel)
            best_kernel = ms;
        CHECK(cudaEventRecord(t0));
        CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
        CHECK(cudaEventRecord(t1));
        CHECK(cudaEventSynchronize(t1));
        CHECK(cudaEventElapsedTime(&ms, t0, t1));
        if (r > 0 && ms < best_memcpy)
            best_memcpy = ms;
    }
    printf("%s (%d SMs): %.2f GiB per array; copy kernel %.0f GB/s, cudaMemcpy D2D %.0f GB/s "
           "(read + write, best of %d)\n",
           prop.name, prop.multiProcessorCount, gib,
           2.0 * (double)bytes / (best_kernel * 1e-3) / 1e9,
           2.0 * (double)bytes / (best_memcpy * 1e-3) / 1e9, reps - 1);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    return 0;
}
