/* One spelling for functions that both the C11 host code and CUDA kernels compile.
 *
 * Physics headers (pair force, pair RNG, periodic wrapping) mark their functions
 * VS_HOST_DEVICE so the CPU reference backend and the GPU backend run the same source, never
 * two copies. These headers must compile as C11 and as CUDA C++: no VLAs, compound literals,
 * _Generic or designated initializers in them.
 */
#ifndef VESICA_HOSTDEVICE_H
#define VESICA_HOSTDEVICE_H

#ifdef __CUDACC__
#define VS_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define VS_HOST_DEVICE static inline
#endif

#endif
