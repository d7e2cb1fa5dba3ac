/* Sorting, cell list and neighbour list on the device (Tang & Karniadakis 2014, section 3).
 *
 * - Owned particles are reordered on every rebuild by the Morton rank of their cell (CUB
 *   radix sort of (cell key, index), then one gather per array), so particles that interact
 *   sit close in memory and threads of a warp read the same cells.
 * - The cell list over owned + ghost particles is a second radix sort by cell; cell bounds
 *   are found by comparing neighbours in the sorted key array (no atomics).
 * - The neighbour list is built one thread per owned particle over the 27 surrounding cells,
 *   in a fixed cell order: deterministic and atomics-free. It is stored column-major (entry m
 *   of particle i at m * stride + i), so the force kernel's loads are coalesced across a warp
 *   and the builder's stores are too. On overflow the builder reports the largest count; the
 *   host grows the table and builds again.
 */
#include <cub/cub.cuh>

#include "gpu_internal.cuh"

/* Single-rank migration: wrap into [0, L) and count the image. */
__global__ void wrap_kernel(int n, double lx, double ly, double lz, double *x, double *y,
                            double *z, int32_t *ix, int32_t *iy, int32_t *iz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double *p[3] = {x, y, z};
    int32_t *img[3] = {ix, iy, iz};
    const double len[3] = {lx, ly, lz};
    for (int d = 0; d < 3; ++d) {
        double u = p[d][i];
        if (u < 0.0) {
            u += len[d];
            if (u >= len[d])
                u = nextafter(len[d], 0.0); /* x + L rounded onto L: stay inside */
            img[d][i] -= 1;
        } else if (u >= len[d]) {
            u -= len[d];
            img[d][i] += 1;
        }
        p[d][i] = u;
    }
}

__global__ void cell_key_kernel(int n, vs_gpu_grid grid, const double *x, const double *y,
                                const double *z, uint32_t *key, uint32_t *idx)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int c[3];
    key[i] = grid.morton_rank[vs_cell_of(grid, x[i], y[i], z[i], c)];
    idx[i] = (uint32_t)i;
}

template <typename T>
__global__ void gather_kernel(int n, const uint32_t *order, const T *in, T *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        out[k] = in[order[k]];
}

/* out-of-place gather through the scratch buffer, copied back */
template <typename T>
static void permute(vs_gpu_state *g, T *field, int n)
{
    T *tmp = (T *)g->scratch;
    VS_LAUNCH(gather_kernel<T>, n, VS_BLOCK, g->stream, n, g->idx_out, field, tmp);
    VS_CUDA_CHECK(cudaMemcpyAsync(field, tmp, sizeof(T) * (size_t)n, cudaMemcpyDeviceToDevice,
                                  g->stream));
}

static void sort_by_cell(vs_gpu_state *g, int n)
{
    VS_LAUNCH(cell_key_kernel, n, VS_BLOCK, g->stream, n, g->grid, g->x[0], g->x[1], g->x[2],
              g->key_in, g->idx_in);
    if (n > 0)
        VS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(g->cub_temp, g->cub_temp_bytes,
                                                      g->key_in, g->key_out, g->idx_in,
                                                      g->idx_out, n, 0, g->key_bits,
                                                      g->stream));
}

extern "C" int64_t vs_gpu_wrap_and_sort(vs_gpu_state *g)
{
    const int n = (int)g->n_owned;
    g->n_ghost = 0;
    VS_LAUNCH(wrap_kernel, n, VS_BLOCK, g->stream, n, g->prm.box[0], g->prm.box[1],
              g->prm.box[2], g->x[0], g->x[1], g->x[2], g->image[0], g->image[1], g->image[2]);
    sort_by_cell(g, n);
    for (int d = 0; d < 3; ++d) {
        permute(g, g->x[d], n);
        permute(g, g->v[d], n);
        permute(g, g->vp[d], n);
        permute(g, g->image[d], n);
    }
    permute(g, g->tag, n);
    permute(g, g->species_id, n);
    return 0;
}

__global__ void cell_bounds_kernel(int n, const uint32_t *key, uint32_t *start, uint32_t *end)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const uint32_t c = key[k];
    if (k == 0 || key[k - 1] != c)
        start[c] = (uint32_t)k;
    if (k == n - 1 || key[k + 1] != c)
        end[c] = (uint32_t)k + 1;
}

__global__ void neighbor_kernel(int n_owned, vs_gpu_grid grid, double cut2, const double *x,
                                const double *y, const double *z, const uint32_t *cell_start,
                                const uint32_t *cell_end, const uint32_t *cell_particles,
                                int max_neighbors, int64_t stride, int32_t *nlist,
                                int32_t *ncount, int32_t *max_count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_owned)
        return;
    const double xi = x[i], yi = y[i], zi = z[i];
    int c[3];
    vs_cell_of(grid, xi, yi, zi, c);
    int count = 0;
    for (int dz = -1; dz <= 1; ++dz) {
        const int cz = c[2] + dz;
        if (cz < 0 || cz >= grid.ncell[2])
            continue;
        for (int dy = -1; dy <= 1; ++dy) {
            const int cy = c[1] + dy;
            if (cy < 0 || cy >= grid.ncell[1])
                continue;
            for (int dx = -1; dx <= 1; ++dx) {
                const int cx = c[0] + dx;
                if (cx < 0 || cx >= grid.ncell[0])
                    continue;
                const uint32_t cell =
                    grid.morton_rank[(cz * grid.ncell[1] + cy) * grid.ncell[0] + cx];
                const uint32_t end = cell_end[cell];
                for (uint32_t k = cell_start[cell]; k < end; ++k) {
                    const int j = (int)cell_particles[k];
                    const double ddx = xi - x[j], ddy = yi - y[j], ddz = zi - z[j];
                    if (j == i || ddx * ddx + ddy * ddy + ddz * ddz >= cut2)
                        continue;
                    if (count < max_neighbors)
                        nlist[(int64_t)count * stride + i] = j;
                    ++count;
                }
            }
        }
    }
    ncount[i] = count;
    if (count > max_neighbors)
        atomicMax(max_count, count);
}

__global__ void mark_built_kernel(int n, const double *x, const double *y, const double *z,
                                  double *bx, double *by, double *bz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    bx[i] = x[i];
    by[i] = y[i];
    bz[i] = z[i];
}

extern "C" void vs_gpu_build_neighbors(vs_gpu_state *g)
{
    const int n_all = (int)(g->n_owned + g->n_ghost), n = (int)g->n_owned;
    /* cell list over owned + ghosts */
    VS_CUDA_CHECK(cudaMemsetAsync(g->cell_start, 0, sizeof(uint32_t) * (size_t)g->n_cells,
                                  g->stream));
    VS_CUDA_CHECK(cudaMemsetAsync(g->cell_end, 0, sizeof(uint32_t) * (size_t)g->n_cells,
                                  g->stream));
    sort_by_cell(g, n_all);
    VS_LAUNCH(cell_bounds_kernel, n_all, VS_BLOCK, g->stream, n_all, g->key_out, g->cell_start,
              g->cell_end);
    /* cell_particles aliases nothing the next sort overwrites: keep a copy */
    if (n_all > 0)
        VS_CUDA_CHECK(cudaMemcpyAsync(g->cell_particles, g->idx_out,
                                      sizeof(uint32_t) * (size_t)n_all,
                                      cudaMemcpyDeviceToDevice, g->stream));
    const double cut2 = g->list_cutoff * g->list_cutoff;
    for (;;) {
        VS_CUDA_CHECK(cudaMemsetAsync(g->d_max_count, 0, sizeof(int32_t), g->stream));
        VS_LAUNCH(neighbor_kernel, n, 128, g->stream, n, g->grid, cut2, g->x[0], g->x[1],
                  g->x[2], g->cell_start, g->cell_end, g->cell_particles, g->max_neighbors,
                  g->nl_stride, g->nlist, g->ncount, g->d_max_count);
        int32_t *h = (int32_t *)g->h_pinned;
        VS_CUDA_CHECK(cudaMemcpyAsync(h, g->d_max_count, sizeof(int32_t),
                                      cudaMemcpyDeviceToHost, g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (*h <= g->max_neighbors)
            break;
        /* overflow: grow the table to the largest count seen plus a margin, and rebuild */
        vs_gpu_free(g, g->nlist, sizeof(int32_t) * (size_t)g->max_neighbors * (size_t)g->nl_stride);
        g->max_neighbors = *h + *h / 8 + 4;
        g->nlist = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t) * (size_t)g->max_neighbors *
                                                  (size_t)g->nl_stride);
    }
    VS_LAUNCH(mark_built_kernel, n, VS_BLOCK, g->stream, n, g->x[0], g->x[1], g->x[2],
              g->x_build[0], g->x_build[1], g->x_build[2]);
}
