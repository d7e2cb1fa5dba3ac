/* Binned profile samples on the device: each owned particle's share (vs_profile_share,
 * src/core/profile_bin.h, the CPU's source; with output.pressure_tensor its m v_a v_b and
 * its virial tensor shares, gpu_tensor.cuh) added to per-bin 64-bit integer sums with
 * atomics, first in shared memory per block, then once per block and entry to the global
 * sums. Integer adds commute, so the sums are the same whatever order the atomics land in,
 * bit-identical to the CPU's; only the bins (a few KiB) are read back, never the particles.
 * A frozen particle (zero inverse mass on the device) enters the set of all particles with
 * its virial shares only (vs_profile_all_first), its own species' set with everything. */
#include "gpu_internal.cuh"

extern "C" {
#include "profile_bin.h"
}

#define VS_PROFILE_SHARED_MAX 4096 /* entries (32 KiB) a block sums in shared memory */

/* Fields [from, nf) of a particle's integers q into bin b of `set`. */
__device__ __forceinline__ void vs_profile_add(unsigned long long *sums, int set, int bins,
                                               int b, int nf, int from, const int64_t *q)
{
    unsigned long long *at = sums + (size_t)nf * ((size_t)set * bins + b);
    for (int k = from; k < nf; ++k)
        if (q[k])
            atomicAdd(at + k, (unsigned long long)q[k]);
}

/* tensor: output.pressure_tensor's fields, from the shares t of the last evaluation */
__global__ void profile_kernel(int n, vs_positions at, int axis, double len, int bins,
                               int per_species, int entries, const int32_t *species,
                               vs_gpu_species sp, const double *vx, const double *vy,
                               const double *vz, int tensor, vs_tensor_out t,
                               unsigned long long *global_sums)
{
    __shared__ unsigned long long block_sums[VS_PROFILE_SHARED_MAX];
    const int shared = entries <= VS_PROFILE_SHARED_MAX;
    unsigned long long *sums = shared ? block_sums : global_sums;
    if (shared)
        for (int k = threadIdx.x; k < entries; k += blockDim.x)
            block_sums[k] = 0ull;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const int s = species[i];
        const int nf = vs_profile_fields(tensor);
        int64_t q[VS_PROFILE_FIELDS + VS_PROFILE_TENSOR_FIELDS];
        const double m = sp.mass[s], ux = vx[i], uy = vy[i], uz = vz[i];
        vs_profile_share(m, ux, uy, uz, q);
        if (tensor) {
            vs_profile_kinetic_tensor(m, ux, uy, uz, q + VS_PROFILE_FIELDS);
            for (int k = 0; k < VS_TENSOR; ++k)
                q[VS_PROFILE_FIELDS + VS_TENSOR + k] = (int64_t)t.w[k][i];
        }
        const int b = vs_profile_bin(vs_pos_get(at, axis, i), len, bins);
        vs_profile_add(sums, 0, bins, b, nf, vs_profile_all_first(sp.inv_mass[s] == 0.0), q);
        if (per_species)
            vs_profile_add(sums, 1 + s, bins, b, nf, 0, q);
    }
    __syncthreads();
    if (shared)
        for (int k = threadIdx.x; k < entries; k += blockDim.x)
            if (block_sums[k])
                atomicAdd(global_sums + k, block_sums[k]);
}

extern "C" void vs_gpu_profile_sums(vs_gpu_state *g, int axis, int bins, int per_species,
                                    int64_t *out)
{
    const int n_sets = per_species ? 1 + g->species.n : 1;
    const int tensor = g->prm->output.pressure_tensor;
    const int entries = vs_profile_fields(tensor) * bins * n_sets;
    vs_tensor_out t;
    memset(&t, 0, sizeof t);
    if (tensor)
        t = *vs_gpu_tensor_current(g);
    const size_t bytes = sizeof(unsigned long long) * (size_t)entries;
    if (bytes > g->red.profile_bytes) { /* once per run: the layout does not change */
        if (g->red.d_profile)
            vs_gpu_free(g, g->red.d_profile, g->red.profile_bytes);
        g->red.d_profile = (unsigned long long *)vs_gpu_alloc(g, bytes);
        g->red.profile_bytes = bytes;
    }
    unsigned long long *d = g->red.d_profile;
    VS_CUDA_CHECK(cudaMemsetAsync(d, 0, bytes, g->stream));
    const int n = (int)g->pt.n_owned;
    VS_LAUNCH(profile_kernel, n, VS_BLOCK, g->stream, n, vs_gpu_positions(g), axis, g->prm->system.box[axis], bins,
              per_species, entries, g->pt.species_id, g->species, g->pt.v[0], g->pt.v[1],
              g->pt.v[2], tensor, t, d);
    VS_CUDA_CHECK(cudaMemcpyAsync(out, d, bytes, cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
}
