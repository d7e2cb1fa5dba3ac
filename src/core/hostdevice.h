/* One spelling for functions that both the C11 host code and CUDA kernels compile.
 *
 * The physics headers of src/core (dpd_pair.h: the pair force and its random number,
 * tea_rng.h: the pair RNG, integrator.h: the Verlet steps, wrap.h: the periodic wrap) mark
 * their functions VS_HOST_DEVICE so the CPU reference backend and the GPU backend run the
 * same source, never two copies. These headers must compile as C11 and as CUDA C++: no VLAs, compound literals,
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
