/* One spelling for functions that both the C11 host code and CUDA kernels compile.
 *
 * The physics headers of src/core (dpd_pair.h: the pair force and its random number,
 * tea_rng.h: the pair RNG, integrator.h: the Verlet steps, wrap.h: the periodic wrap) mark
 * their functions VS_HOST_DEVICE so the CPU reference backend and the GPU backend run the
 * same source, never two copies. These headers must compile as C11 and as CUDA C++: no VLAs,
 * compound literals, _Generic or designated initializers in them.
 *
 * vs_mul_rn(a, b): a product rounded on its own, never fused into a multiply-add with what
 * uses it. The device compiler fuses a product that has one use and not one that has two, so
 * a value that a kernel variant also stores (an energy or virial next to the force) would
 * otherwise round the force differently in that variant, and a trajectory would depend on
 * which steps computed energies.
 */
#ifndef VESICA_HOSTDEVICE_H
#define VESICA_HOSTDEVICE_H

#ifdef __CUDACC__
#define VS_HOST_DEVICE __host__ __device__ __forceinline__
extern "C++" { /* overloads, also where this header is included inside extern "C" */
VS_HOST_DEVICE float vs_mul_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
VS_HOST_DEVICE double vs_mul_rn(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
}
#else
#define VS_HOST_DEVICE static inline
#define vs_mul_rn(a, b) ((a) * (b))
#endif

#endif
