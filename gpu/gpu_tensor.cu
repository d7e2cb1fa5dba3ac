/* The pressure tensor's sums on the device (gpu_tensor.cuh says what they hold): their
 * buffers, zeroed when an evaluation asks for the tensor, and this rank's share of the
 * thermo's six columns, exact in any order as the CPU's (src/cpu/cpu_backend.c,
 * cpu_local_tensor): sum m v_a v_b of the owned particles and the sum of their virial
 * shares, both as vs_wide (fixed_sum.h). */
#include "gpu_internal.cuh"
#include "gpu_wide_sum.cuh"

#define VS_TENSOR_RED_BLOCKS 256

/* Room for n owned particles' sums (their contents need not survive: each evaluation that
 * computes them starts from zero). */
static void tensor_reserve(vs_gpu_state *g, int64_t n)
{
    vs_gpu_tensor_part *t = &g->tensor;
    if (!t->out.bad) {
        t->out.bad = (unsigned int *)vs_gpu_alloc(g, sizeof(unsigned int));
        VS_CUDA_CHECK(cudaMemsetAsync(t->out.bad, 0, sizeof(unsigned int), g->stream));
    }
    if (n <= t->cap && t->out.w[0])
        return;
    const int64_t cap = n + n / 4 + 1024;
    for (int k = 0; k < VS_TENSOR; ++k) {
        if (t->out.w[k])
            vs_gpu_free(g, t->out.w[k], sizeof(unsigned long long) * (size_t)t->cap);
        t->out.w[k] = (unsigned long long *)vs_gpu_alloc(g, sizeof(unsigned long long) *
                                                                 (size_t)cap);
    }
    t->cap = cap;
}

extern "C" void vs_gpu_tensor_begin(vs_gpu_state *g, int want)
{
    vs_gpu_tensor_part *t = &g->tensor;
    t->pending = 0;
    if (!(want & VS_WANT_TENSOR))
        return;
    const int64_t n = g->pt.n_owned;
    tensor_reserve(g, n);
    for (int k = 0; k < VS_TENSOR && n > 0; ++k)
        VS_CUDA_CHECK(cudaMemsetAsync(t->out.w[k], 0, sizeof(unsigned long long) * (size_t)n,
                                      g->stream));
    VS_CUDA_CHECK(cudaMemsetAsync(t->out.bad, 0, sizeof(unsigned int), g->stream));
    t->pending = 1;
    t->at_forces = g->ver.forces;
}

vs_tensor_out vs_gpu_tensor_out(vs_gpu_state *g, int want)
{
    vs_tensor_out none;
    memset(&none, 0, sizeof none);
    if (!(want & VS_WANT_TENSOR))
        return none;
    if (!g->tensor.pending)
        vs_log_fatal(__FILE__, __LINE__, "the pressure tensor asked of forces that were not "
                     "started for it (forces_begin)");
    return g->tensor.out;
}

/* The sums hold the last evaluation's shares, and it asked for them. */
static int tensor_current(const vs_gpu_state *g)
{
    return g->tensor.pending && g->ver.forces == g->tensor.at_forces + 1 &&
           vs_gpu_energies_current(g);
}

const vs_tensor_out *vs_gpu_tensor_current(vs_gpu_state *g)
{
    if (!tensor_current(g))
        vs_log_fatal(__FILE__, __LINE__, "the pressure tensor's shares asked for without an "
                     "evaluation of this step that computed them");
    return &g->tensor.out;
}

/* This block's sums of the owned particles: PART 0, m v_a v_b (the CPU's products, unfused);
 * PART 1, the virial shares as exact vs_wide. */
template <int PART>
__global__ void tensor_partial_kernel(int n, vs_gpu_species sp, const int32_t *species,
                                      const double *vx, const double *vy, const double *vz,
                                      vs_tensor_out t, vs_wide *partials, unsigned int *bad)
{
    __shared__ vs_wide s[VS_TENSOR][VS_BLOCK];
    vs_wide acc[VS_TENSOR];
    for (int k = 0; k < VS_TENSOR; ++k)
        acc[k] = 0;
    int out_of_range = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (PART == 0) {
            const double m = sp.mass[species[i]];
            const double v[3] = {vx[i], vy[i], vz[i]};
            for (int k = 0; k < VS_TENSOR; ++k) {
                const double mvv =
                    __dmul_rn(__dmul_rn(m, v[vs_tensor_axis(k, 0)]), v[vs_tensor_axis(k, 1)]);
                if (vs_wide_ok(mvv))
                    acc[k] += vs_wide_from_double(mvv);
                else
                    out_of_range = 1;
            }
        } else {
            for (int k = 0; k < VS_TENSOR; ++k)
                acc[k] += (vs_wide)(long long)t.w[k][i] * ((vs_wide)1 << 48);
        }
    }
    if (out_of_range)
        atomicOr(bad, 1u);
    vs_block_wide_sums<VS_TENSOR>(acc, s, partials);
}

/* This rank's sum m v_a v_b, then the sum of the virial shares (exact), in the order of
 * VS_T_*; non-zero when a term or share was out of range. */
static int tensor_thermo(vs_gpu_state *g, vs_wide out[2 * VS_TENSOR])
{
    const int n = (int)g->pt.n_owned;
    const vs_tensor_out t = *vs_gpu_tensor_current(g);
    int blocks = (n + VS_BLOCK - 1) / VS_BLOCK;
    if (blocks > VS_TENSOR_RED_BLOCKS)
        blocks = VS_TENSOR_RED_BLOCKS;
    if (blocks < 1)
        blocks = 1;
    /* both parts' partials and totals in the partials buffer (64 KiB): 2 (256 + 1) 6 sums
     * of 16 bytes fit */
    vs_wide *part[2] = {(vs_wide *)g->red.partials,
                        (vs_wide *)g->red.partials + (size_t)(blocks + 1) * VS_TENSOR};
    unsigned int *bad = (unsigned int *)g->red.d_int_sums;
    VS_CUDA_CHECK(cudaMemsetAsync(bad, 0, sizeof(unsigned int), g->stream));
    tensor_partial_kernel<0><<<blocks, VS_BLOCK, 0, g->stream>>>(
        n, g->species, g->pt.species_id, g->pt.v[0], g->pt.v[1], g->pt.v[2], t,
        part[0], bad);
    VS_CUDA_CHECK(cudaGetLastError());
    vs_wide_final<VS_TENSOR>(blocks, part[0], g->stream);
    VS_CUDA_CHECK(cudaGetLastError());
    tensor_partial_kernel<1><<<blocks, VS_BLOCK, 0, g->stream>>>(
        n, g->species, g->pt.species_id, g->pt.v[0], g->pt.v[1], g->pt.v[2], t,
        part[1], bad);
    VS_CUDA_CHECK(cudaGetLastError());
    vs_wide_final<VS_TENSOR>(blocks, part[1], g->stream);
    VS_CUDA_CHECK(cudaGetLastError());
    char *h = (char *)g->red.h_pinned;
    const size_t bytes = VS_TENSOR * sizeof(vs_wide);
    for (int p = 0; p < 2; ++p)
        VS_CUDA_CHECK(cudaMemcpyAsync(h + p * bytes, part[p] + (size_t)blocks * VS_TENSOR, bytes,
                                      cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(h + 2 * bytes, bad, sizeof(unsigned int),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(h + 2 * bytes + sizeof(unsigned int), g->tensor.out.bad,
                                  sizeof(unsigned int), cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    memcpy(out, h, 2 * bytes);
    unsigned int flags[2];
    memcpy(flags, h + 2 * bytes, sizeof flags);
    return flags[0] != 0 || flags[1] != 0;
}

extern "C" void vs_gpu_tensor_local(vs_gpu_state *g, vs_thermo_local *out)
{
    if (!g->prm->output.pressure_tensor)
        return;
    vs_wide sums[2 * VS_TENSOR];
    out->tensor_invalid = tensor_thermo(g, sums);
    for (int k = 0; k < 2 * VS_TENSOR; ++k)
        vs_wide_to_limbs(sums[k], out->tensor[k]);
}

void vs_gpu_tensor_free(vs_gpu_state *g)
{
    for (int k = 0; k < VS_TENSOR; ++k)
        if (g->tensor.out.w[k])
            cudaFree(g->tensor.out.w[k]);
    if (g->tensor.out.bad)
        cudaFree(g->tensor.out.bad);
}
