/* The thermo and integrity reductions of the owned particles on the device.
 *
 * Both are deterministic: the thermo sums run over a fixed grid, a block tree and one block
 * over the partials (the same order every run); the integrity sums are integers, exact in
 * any order. Each reads back a handful of numbers through the pinned mirror. */
#include <cub/cub.cuh>

#include "gpu_internal.cuh"

/* ---- reductions: fixed grid, block tree, then one block over the partials (deterministic) */

#define VS_RED_BLOCKS 512
#define VS_RED_VALUES 6     /* a plain fluid's sums */
#define VS_RED_VALUES_MOL 9 /* with molecules: bond, angle and dihedral energies after them */

/* The bonded terms' per-bead shares (gpu_bonded.cu), NULL where a term is inactive. */
struct vs_bonded_shares {
    const double *e_bond, *w_bond, *e_angle, *w_angle, *e_dihedral, *w_dihedral;
    const double *e_pair, *w_pair; /* the pair styles' (gpu_pair.cu), NULL: none */
};

/* Momentum and kinetic energy of the n owned particles; the energy and virial of the
 * n_energy entries the forces wrote (the owned particles', and with each pair once, the
 * ghosts' too); with molecules (NV = 9) the owned beads' bonded shares: their virials into
 * the virial, their energies apart. */
template <int NV>
__global__ void thermo_partial_kernel(int n, int n_energy, vs_gpu_species sp, const double *vx,
                                      const double *vy, const double *vz,
                                      const int32_t *species, const double *energy,
                                      const double *virial, vs_bonded_shares b,
                                      double *partials)
{
    __shared__ double s[NV][VS_BLOCK];
    double acc[NV];
    for (int q = 0; q < NV; ++q)
        acc[q] = 0.0;
    const int end = n > n_energy ? n : n_energy;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < end;
         i += gridDim.x * blockDim.x) {
        if (i < n) {
            const double m = sp.mass[species[i]];
            acc[0] += m * vx[i];
            acc[1] += m * vy[i];
            acc[2] += m * vz[i];
            acc[3] += 0.5 * m * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
        }
        if (i < n_energy) {
            acc[4] += energy[i];
            acc[5] += virial[i];
        }
        if (b.e_pair && i < n) { /* the pair styles' shares: pair energy and virial */
            acc[4] += b.e_pair[i];
            acc[5] += b.w_pair[i];
        }
        if (NV > VS_RED_VALUES && i < n) {
            if (b.e_bond) {
                acc[6] += b.e_bond[i];
                acc[5] += b.w_bond[i];
            }
            if (b.e_angle) {
                acc[7] += b.e_angle[i];
                acc[5] += b.w_angle[i];
            }
            if (b.e_dihedral) {
                acc[8] += b.e_dihedral[i];
                acc[5] += b.w_dihedral[i];
            }
        }
    }
    for (int q = 0; q < NV; ++q)
        s[q][threadIdx.x] = acc[q];
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half)
            for (int q = 0; q < NV; ++q)
                s[q][threadIdx.x] += s[q][threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        for (int q = 0; q < NV; ++q)
            partials[blockIdx.x * NV + q] = s[q][0];
}

__global__ void thermo_final_kernel(int blocks, int nv, const double *partials, double *out)
{
    if ((int)threadIdx.x < nv) {
        double sum = 0.0;
        for (int b = 0; b < blocks; ++b)
            sum += partials[b * nv + threadIdx.x];
        out[threadIdx.x] = sum;
    }
}

extern "C" void vs_gpu_thermo(vs_gpu_state *g, double out[9])
{
    const int n = (int)g->pt.n_owned;
    for (int q = 0; q < VS_RED_VALUES_MOL; ++q)
        out[q] = 0.0;
    vs_gpu_bonded_check(g, -1); /* a failed bonded evaluation has no thermo row */
    if (n == 0)
        return;
    if (!vs_gpu_energies_current(g))
        vs_log_fatal(__FILE__, __LINE__, "thermo asked for without the energies of this "
                     "step's forces (the step must be run with energies due)");
    int blocks = (n + VS_BLOCK - 1) / VS_BLOCK;
    if (blocks > VS_RED_BLOCKS)
        blocks = VS_RED_BLOCKS;
    const int nv = g->bd.on ? VS_RED_VALUES_MOL : VS_RED_VALUES;
    const int pair = vs_pair_styles_active(&g->prm) && g->ps.energies_on;
    const vs_bonded_shares b = {g->bd.e_bond,      g->bd.w_bond,      g->bd.e_angle,
                                g->bd.w_angle,     g->bd.e_dihedral,  g->bd.w_dihedral,
                                pair ? g->ps.e : NULL, pair ? g->ps.w : NULL};
    /* partials holds 8192 doubles: (512 blocks + 1) * 9 fit */
    if (g->bd.on)
        thermo_partial_kernel<VS_RED_VALUES_MOL><<<blocks, VS_BLOCK, 0, g->stream>>>(
            n, (int)g->fs.energy_count, g->species, g->pt.v[0], g->pt.v[1], g->pt.v[2],
            g->pt.species_id, vs_gpu_energy_buf(g), vs_gpu_virial_buf(g), b, g->red.partials);
    else
        thermo_partial_kernel<VS_RED_VALUES><<<blocks, VS_BLOCK, 0, g->stream>>>(
            n, (int)g->fs.energy_count, g->species, g->pt.v[0], g->pt.v[1], g->pt.v[2],
            g->pt.species_id, vs_gpu_energy_buf(g), vs_gpu_virial_buf(g), b, g->red.partials);
    VS_CUDA_CHECK(cudaGetLastError());
    double *d_out = g->red.partials + (size_t)blocks * nv;
    thermo_final_kernel<<<1, 32, 0, g->stream>>>(blocks, nv, g->red.partials, d_out);
    VS_CUDA_CHECK(cudaGetLastError());
    VS_CUDA_CHECK(cudaMemcpyAsync(g->red.h_pinned, d_out, (size_t)nv * sizeof(double),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    for (int q = 0; q < nv; ++q)
        out[q] = g->red.h_pinned[q];
}

__global__ void integrity_kernel(int n, const int64_t *tag, const double *x, const double *y,
                                 const double *z, const double *vx, const double *vy,
                                 const double *vz, unsigned long long *sums)
{
    typedef cub::BlockReduce<unsigned long long, VS_BLOCK> reduce_t;
    __shared__ typename reduce_t::TempStorage temp[2];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long t = 0, t2 = 0;
    if (i < n) {
        t = (unsigned long long)tag[i];
        t2 = t * t;
        if (!isfinite(x[i]) || !isfinite(y[i]) || !isfinite(z[i]) || !isfinite(vx[i]) ||
            !isfinite(vy[i]) || !isfinite(vz[i]))
            atomicMin(&sums[2], t);
    }
    /* integer sums wrap modulo 2^64 and are exact in any order: one atomic per block */
    const unsigned long long block_t = reduce_t(temp[0]).Sum(t);
    const unsigned long long block_t2 = reduce_t(temp[1]).Sum(t2);
    if (threadIdx.x == 0) {
        atomicAdd(&sums[0], block_t);
        atomicAdd(&sums[1], block_t2);
    }
}

extern "C" void vs_gpu_integrity(vs_gpu_state *g, uint64_t sums[3], int64_t *bad_tag)
{
    const int n = (int)g->pt.n_owned;
    unsigned long long init[3] = {0ull, 0ull, ~0ull};
    VS_CUDA_CHECK(
        cudaMemcpyAsync(g->red.d_int_sums, init, sizeof init, cudaMemcpyHostToDevice, g->stream));
    VS_LAUNCH(integrity_kernel, n, VS_BLOCK, g->stream, n, g->pt.tag, g->pt.x[0], g->pt.x[1],
              g->pt.x[2], g->pt.v[0], g->pt.v[1], g->pt.v[2], g->red.d_int_sums);
    unsigned long long *h = (unsigned long long *)g->red.h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, g->red.d_int_sums, 3 * sizeof(unsigned long long),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    sums[0] = (uint64_t)n;
    sums[1] = h[0];
    sums[2] = h[1];
    *bad_tag = h[2] == ~0ull ? -1 : (int64_t)h[2];
}
