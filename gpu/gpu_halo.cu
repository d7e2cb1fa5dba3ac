/* Ghosts on the device: border detection, send lists and the copy of ghosts, for the
 * periodic images of a single rank (the self exchange of comm/halo.h).
 *
 * The protocol is the CPU one: three stages (x, y, z); in each, particles within the ghost
 * width of the lower or upper face (owned, or ghosts of earlier stages) are flagged, the
 * flags compacted into a send list with CUB DeviceSelect, and the copies appended as ghosts,
 * shifted by the box. Send lists are built on rebuild steps and reused on the other steps,
 * when only positions and predicted velocities are copied again.
 */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpu_internal.cuh"

__global__ void border_flag_kernel(int n, const double *x, double edge, int upper,
                                   uint8_t *flags)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        flags[i] = upper ? (x[i] >= edge) : (x[i] < edge);
}

/* Ghost copy: position (shifted along d) and predicted velocity; on rebuild steps also tag
 * and species (tag != NULL), on the other steps only what moves. */
__global__ void ghost_copy_kernel(int n, const int32_t *send, int64_t start, int d,
                                  double shift, double *x, double *y, double *z, double *vx,
                                  double *vy, double *vz, int64_t *tag, int32_t *species)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = send[k];
    const int64_t j = start + k;
    x[j] = x[i] + (d == 0 ? shift : 0.0);
    y[j] = y[i] + (d == 1 ? shift : 0.0);
    z[j] = z[i] + (d == 2 ? shift : 0.0);
    vx[j] = vx[i];
    vy[j] = vy[i];
    vz[j] = vz[i];
    if (tag) {
        tag[j] = tag[i];
        species[j] = species[i];
    }
}

static void reserve_send(vs_gpu_state *g, int d, int dir, int64_t n)
{
    if (n <= g->cap_send[d][dir])
        return;
    const int64_t cap = n + n / 2 + 1024;
    vs_gpu_free(g, g->send_idx[d][dir], sizeof(int32_t) * (size_t)g->cap_send[d][dir]);
    g->send_idx[d][dir] = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t) * (size_t)cap);
    g->cap_send[d][dir] = cap;
}

extern "C" void vs_gpu_build_ghosts_self(vs_gpu_state *g)
{
    g->n_ghost = 0;
    for (int d = 0; d < 3; ++d) {
        const double len = g->prm.box[d];
        g->shift[d][0] = len;  /* lower face -> image above the upper face */
        g->shift[d][1] = -len; /* upper face -> image below the lower face */
        const int base = (int)(g->n_owned + g->n_ghost);
        /* both directions select from what is present before this stage's ghosts arrive;
         * one synchronisation per stage brings both counts to the host */
        int32_t *h = (int32_t *)g->h_pinned;
        h[0] = h[1] = 0;
        for (int dir = 0; dir < 2; ++dir) {
            const double edge = dir == 0 ? g->lo[d] + g->ghost_width : g->hi[d] - g->ghost_width;
            reserve_send(g, d, dir, base);
            if (base == 0)
                continue;
            VS_LAUNCH(border_flag_kernel, base, VS_BLOCK, g->stream, base, g->x[d], edge, dir,
                      g->flags);
            VS_CUDA_CHECK(cub::DeviceSelect::Flagged(
                g->cub_temp, g->cub_temp_bytes, thrust::counting_iterator<int32_t>(0), g->flags,
                g->send_idx[d][dir], g->d_select_count + dir, base, g->stream));
        }
        if (base > 0) {
            VS_CUDA_CHECK(cudaMemcpyAsync(h, g->d_select_count, 2 * sizeof(int32_t),
                                          cudaMemcpyDeviceToHost, g->stream));
            VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        }
        g->n_send[d][0] = h[0];
        g->n_send[d][1] = h[1];
        const int64_t n0 = g->n_send[d][0], n1 = g->n_send[d][1];
        vs_gpu_reserve(g, base + n0 + n1);
        g->recv_start[d][0] = base;
        g->recv_start[d][1] = base + n0;
        for (int dir = 0; dir < 2; ++dir)
            VS_LAUNCH(ghost_copy_kernel, g->n_send[d][dir], VS_BLOCK, g->stream,
                      (int)g->n_send[d][dir], g->send_idx[d][dir], g->recv_start[d][dir], d,
                      g->shift[d][dir], g->x[0], g->x[1], g->x[2], g->vp[0], g->vp[1],
                      g->vp[2], g->tag, g->species_id);
        g->n_ghost += n0 + n1;
    }
}

extern "C" void vs_gpu_update_ghosts_self(vs_gpu_state *g)
{
    for (int d = 0; d < 3; ++d)
        for (int dir = 0; dir < 2; ++dir)
            VS_LAUNCH(ghost_copy_kernel, g->n_send[d][dir], VS_BLOCK, g->stream,
                      (int)g->n_send[d][dir], g->send_idx[d][dir], g->recv_start[d][dir], d,
                      g->shift[d][dir], g->x[0], g->x[1], g->x[2], g->vp[0], g->vp[1],
                      g->vp[2], (int64_t *)NULL, (int32_t *)NULL);
}
