/* The pressure tensor on the GPU backend (output.pressure_tensor; gpu_tensor.cu): each owned
 * particle's share of the virial tensor W_ab = sum r_a F_b, as on the CPU (cpu_backend.h,
 * observables.h), summed on the evaluations that ask for it (VS_WANT_TENSOR: thermo rows
 * and profile samples) and never on the others.
 *
 * A pair gives each of its two particles half of its tensor, 0.5 g_a d_b (g the force on i,
 * d = r_i - r_j), each component rounded once to VS_TENSOR_QUANTUM quanta; seen from j both
 * g and d flip sign exactly, so the two halves are the same integer whichever side, thread
 * or rank evaluates the pair. A bonded term gives each bead its share (a bond's half, an
 * angle's third, a dihedral's quarter: vs_bonded_tensor). The shares go to six 64-bit
 * integer sums per owned particle: integer adds commute, so a particle's sum, a profile
 * bin's and the thermo's total do not depend on the order of the adds (atomics in the
 * Newton walk, plain adds where one thread owns the particle) or on the decomposition. A
 * ghost's half is its owner's to add.
 *
 * The pair walks take the tensor as a compile-time choice (TENSOR: the Newton walk's variants
 * and the sides of the walk from both sides), so a step without it runs the kernels it ran
 * before; the bonded kernels test it at run time, as they test the energies; the sums are
 * allocated only when the configuration asks for the tensor, and zeroed by the table's
 * forces_begin on the evaluations that compute them. */
#ifndef VESICA_GPU_TENSOR_CUH
#define VESICA_GPU_TENSOR_CUH

extern "C" {
#include "gpu_backend.h"
#include "observables.h"
}

/* Where a force kernel puts its tensor shares: six sums per owned particle (xx, yy, zz, xy,
 * xz, yz, observables.h's VS_T_*) as 64-bit two's-complement integers, and a word set when
 * a share was beyond VS_TENSOR_LIMIT or not finite (the thermo's columns are then NaN).
 * Unlike the CPU's sums, a particle's sum that leaves int64 (2^31 units) is not detected
 * here; a pair's share below 2^24 r_c passes, a larger force is caught as blown up (the walks'
 * bad index, the integrity check). w[0] NULL: this evaluation computes no tensor. */
struct vs_tensor_out {
    unsigned long long *w[VS_TENSOR];
    unsigned int *bad;
};

/* The tensor's part of the GPU state (allocated on first use, only with
 * output.pressure_tensor). */
struct vs_gpu_tensor_part {
    int on;              /* output.pressure_tensor */
    vs_tensor_out out;   /* the sums of the owned slots, cap of each */
    int64_t cap;
    int pending;         /* forces_begin zeroed the sums for the evaluation after forces
                            counter `at_forces`: they are current while ver.forces is one on */
    uint64_t at_forces;
};

#ifdef __CUDACC__
/* Axis `which` (0: a, 1: b) of component k (observables.h's vs_tensor_axes, for the device). */
__device__ __forceinline__ int vs_tensor_axis(int k, int which)
{
    return k < 3 ? k : (which == 0 ? (k == 5 ? 1 : 0) : (k == 3 ? 1 : 2));
}

/* A tensor contribution t (in the order of VS_T_*) as fixed-point shares, each component
 * rounded once (the CPU's vs_cpu_add_tensor); one out of range sets *bad and gives zeros. */
__device__ __forceinline__ void vs_tensor_fixed(const double t[VS_TENSOR], long long q[VS_TENSOR],
                                                unsigned int *bad)
{
    bool ok = true;
#pragma unroll
    for (int k = 0; k < VS_TENSOR; ++k)
        ok = ok && fabs(t[k]) < VS_TENSOR_LIMIT;
    if (!ok)
        atomicOr(bad, 1u); /* rare: a blown-up run */
#pragma unroll
    for (int k = 0; k < VS_TENSOR; ++k)
        q[k] = ok ? __double2ll_rn(t[k] * VS_TENSOR_QUANTUM) : 0ll;
}

/* The shares of share g_a d_b (the CPU's vs_tensor_of): a pair's half (share 0.5) of the
 * tensor of a force g on i at separation d = r_i - r_j. */
__device__ __forceinline__ void vs_tensor_shares(double share, double gx, double gy, double gz,
                                                 double dx, double dy, double dz,
                                                 long long q[VS_TENSOR], unsigned int *bad)
{
    const double t[VS_TENSOR] = {share * (gx * dx), share * (gy * dy), share * (gz * dz),
                                 share * (gx * dy), share * (gx * dz), share * (gy * dz)};
    vs_tensor_fixed(t, q, bad);
}

/* The fp32 pair of the mixed-precision walks: g = f_over_r d, both in fp32; their products
 * are exact in fp64, so the share is the same integer from either side of the pair. */
__device__ __forceinline__ void vs_tensor_pair_shares_f(float gx, float gy, float gz, float dx,
                                                        float dy, float dz,
                                                        long long q[VS_TENSOR],
                                                        unsigned int *bad)
{
    vs_tensor_shares(0.5, (double)gx, (double)gy, (double)gz, (double)dx, (double)dy,
                     (double)dz, q, bad);
}

/* q added to particle i's sums: atomically (several threads may add to i), or plainly
 * (one thread owns i's sums in this kernel). */
__device__ __forceinline__ void vs_tensor_add_atomic(const vs_tensor_out &t, int i,
                                                     const long long q[VS_TENSOR])
{
#pragma unroll
    for (int k = 0; k < VS_TENSOR; ++k)
        if (q[k])
            atomicAdd(t.w[k] + i, (unsigned long long)q[k]);
}
__device__ __forceinline__ void vs_tensor_add_own(const vs_tensor_out &t, int i,
                                                  const long long q[VS_TENSOR])
{
#pragma unroll
    for (int k = 0; k < VS_TENSOR; ++k)
        t.w[k][i] += (unsigned long long)q[k];
}
#endif

/* The sums of this evaluation (want: VS_WANT_*): the arrays when it computes the tensor,
 * else w[0] NULL. */
vs_tensor_out vs_gpu_tensor_out(vs_gpu_state *g, int want);
/* The sums of this step's last evaluation, which computed them (else a fatal error): for
 * the thermo and the profiles. */
const vs_tensor_out *vs_gpu_tensor_current(vs_gpu_state *g);
void vs_gpu_tensor_free(vs_gpu_state *g);

#endif
