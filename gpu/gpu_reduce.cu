/* The thermo and integrity reductions of the owned particles on the device.
 *
 * Both are exact in any order: the thermo sums are fixed-point (fixed_sum.h), the integrity
 * sums integers, so neither depends on how the particles are ordered or spread over ranks.
 * Each reads back a handful of numbers through the pinned mirror. */
#include <cub/cub.cuh>

#include "gpu_internal.cuh"
#include "gpu_wide_sum.cuh"

#define VS_RED_BLOCKS 256
#define VS_RED_VALUES 6     /* a plain fluid's sums */
#define VS_RED_VALUES_MOL 9 /* with molecules: bond, angle and dihedral energies after them */

/* The bonded terms' per-bead shares (gpu_bonded.cu), NULL where a term is inactive. */
struct vs_bonded_shares {
    const double *e_bond, *w_bond, *e_angle, *w_angle, *e_dihedral, *w_dihedral;
    const double *e_pair, *w_pair; /* the pair styles' (gpu_pair.cu), NULL: none */
};

/* *acc += e exactly; an e out of range (a blown-up run) sets *bad instead. */
__device__ __forceinline__ void vs_add_exact(vs_wide *acc, double e, int *bad)
{
    if (vs_wide_ok(e))
        *acc += vs_wide_from_double(e);
    else
        *bad = 1;
}

/* Momentum and kinetic energy of the n owned particles; the energy and virial of the
 * n_energy entries the forces wrote (the owned particles', and with each pair once, the
 * ghosts' too); with molecules (NV = 9) the owned beads' bonded shares: their virials into
 * the virial, their energies apart. Exact sums of the doubles (fixed_sum.h), in the order of
 * VS_EXACT_* (observables.h). */
template <int NV>
struct vs_thermo_terms {
    int n, n_energy;
    vs_gpu_species sp;
    const double *vx, *vy, *vz;
    const int32_t *species;
    const double *energy, *virial;
    vs_bonded_shares b;
    __device__ void operator()(int i, vs_wide *acc, int *bad) const
    {
        if (i < n) {
            const double m = sp.mass[species[i]];
            const double ux = vx[i], uy = vy[i], uz = vz[i];
            /* the CPU's terms (src/cpu/cpu_backend.c, cpu_local_thermo), unfused */
            vs_add_exact(&acc[0], __dmul_rn(m, ux), bad);
            vs_add_exact(&acc[1], __dmul_rn(m, uy), bad);
            vs_add_exact(&acc[2], __dmul_rn(m, uz), bad);
            vs_add_exact(&acc[3],
                         __dmul_rn(__dmul_rn(0.5, m),
                                   __dadd_rn(__dadd_rn(__dmul_rn(ux, ux), __dmul_rn(uy, uy)),
                                             __dmul_rn(uz, uz))),
                         bad);
        }
        if (i < n_energy) {
            vs_add_exact(&acc[4], energy[i], bad);
            vs_add_exact(&acc[5], virial[i], bad);
        }
        if (b.e_pair && i < n) { /* the pair styles' shares: pair energy and virial */
            vs_add_exact(&acc[4], b.e_pair[i], bad);
            vs_add_exact(&acc[5], b.w_pair[i], bad);
        }
        if (NV > VS_RED_VALUES && i < n) {
            if (b.e_bond) {
                vs_add_exact(&acc[6], b.e_bond[i], bad);
                vs_add_exact(&acc[5], b.w_bond[i], bad);
            }
            if (b.e_angle) {
                vs_add_exact(&acc[7], b.e_angle[i], bad);
                vs_add_exact(&acc[5], b.w_angle[i], bad);
            }
            if (b.e_dihedral) {
                vs_add_exact(&acc[8], b.e_dihedral[i], bad);
                vs_add_exact(&acc[5], b.w_dihedral[i], bad);
            }
        }
    }
};

template <int NV>
__global__ void thermo_partial_kernel(vs_thermo_terms<NV> terms, vs_wide *partials,
                                      unsigned int *bad)
{
    const int end = terms.n > terms.n_energy ? terms.n : terms.n_energy;
    vs_partial_wide_sums<NV>(end, terms, partials, bad);
}

template <int NV>
static void launch_thermo(vs_gpu_state *g, int n, int n_energy, const vs_bonded_shares &b,
                          int blocks, vs_wide *partials, unsigned int *bad)
{
    const vs_thermo_terms<NV> terms = {
        n, n_energy, g->species, g->pt.v[0], g->pt.v[1], g->pt.v[2], g->pt.species_id,
        vs_gpu_energy_buf(g), vs_gpu_virial_buf(g), b};
    thermo_partial_kernel<NV><<<blocks, VS_BLOCK, 0, g->stream>>>(terms, partials, bad);
    VS_CUDA_CHECK(cudaGetLastError());
    vs_wide_final<NV>(blocks, partials, g->stream);
}

extern "C" int vs_gpu_thermo(vs_gpu_state *g, vs_wide out[9])
{
    const int n = (int)g->pt.n_owned;
    for (int q = 0; q < VS_RED_VALUES_MOL; ++q)
        out[q] = 0;
    vs_gpu_bonded_check(g, -1); /* a failed bonded evaluation has no thermo row */
    if (n == 0)
        return 0;
    if (!vs_gpu_energies_current(g))
        vs_log_fatal(__FILE__, __LINE__, "thermo asked for without the energies of this "
                     "step's forces (the step must be run with energies due)");
    const int n_energy = (int)g->fs.energy_count;
    int blocks = ((n > n_energy ? n : n_energy) + VS_BLOCK - 1) / VS_BLOCK;
    if (blocks > VS_RED_BLOCKS)
        blocks = VS_RED_BLOCKS;
    const int nv = g->bd.on ? VS_RED_VALUES_MOL : VS_RED_VALUES;
    /* the pair styles' and the anisotropic style's shares */
    const int pair = (vs_pair_styles_active(g->prm) || g->an.on) && g->ps.energies_on;
    const vs_bonded_shares b = {g->bd.e_bond,      g->bd.w_bond,      g->bd.e_angle,
                                g->bd.w_angle,     g->bd.e_dihedral,  g->bd.w_dihedral,
                                pair ? g->ps.e : NULL, pair ? g->ps.w : NULL};
    /* partials holds 8192 doubles (64 KiB): (256 + 1) * 9 sums of 16 bytes fit */
    vs_wide *partials = (vs_wide *)g->red.partials;
    unsigned int *bad = (unsigned int *)g->red.d_int_sums;
    VS_CUDA_CHECK(cudaMemsetAsync(bad, 0, sizeof(unsigned int), g->stream));
    if (g->bd.on)
        launch_thermo<VS_RED_VALUES_MOL>(g, n, n_energy, b, blocks, partials, bad);
    else
        launch_thermo<VS_RED_VALUES>(g, n, n_energy, b, blocks, partials, bad);
    VS_CUDA_CHECK(cudaGetLastError());
    char *h = (char *)g->red.h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, partials + (size_t)blocks * nv, (size_t)nv * sizeof(vs_wide),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(h + nv * sizeof(vs_wide), bad, sizeof(unsigned int),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    memcpy(out, h, (size_t)nv * sizeof(vs_wide));
    unsigned int flag = 0;
    memcpy(&flag, h + nv * sizeof(vs_wide), sizeof flag);
    return flag != 0;
}

__global__ void integrity_kernel(int n, const int64_t *tag, vs_positions at, const double *vx,
                                 const double *vy, const double *vz, unsigned long long *sums)
{
    typedef cub::BlockReduce<unsigned long long, VS_BLOCK> reduce_t;
    __shared__ typename reduce_t::TempStorage temp[2];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long t = 0, t2 = 0;
    if (i < n) {
        t = (unsigned long long)tag[i];
        t2 = t * t;
        double r[3];
        vs_pos_load(at, i, r);
        if (!isfinite(r[0]) || !isfinite(r[1]) || !isfinite(r[2]) || !isfinite(vx[i]) ||
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
    VS_LAUNCH(integrity_kernel, n, VS_BLOCK, g->stream, n, g->pt.tag, vs_gpu_positions(g),
              g->pt.v[0], g->pt.v[1], g->pt.v[2], g->red.d_int_sums);
    unsigned long long *h = (unsigned long long *)g->red.h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, g->red.d_int_sums, 3 * sizeof(unsigned long long),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    sums[0] = (uint64_t)n;
    sums[1] = h[0];
    sums[2] = h[1];
    *bad_tag = h[2] == ~0ull ? -1 : (int64_t)h[2];
}
