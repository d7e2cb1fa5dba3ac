/* GPU backend state: device selection, allocation, growth, upload and download.
 *
 * All buffers that scale with the particle count grow together in vs_gpu_reserve, never in
 * the steady-state step. The footprint is tracked so perf.json can report device bytes per
 * particle. */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.cuh"
#include "gpu_field.cuh"

extern "C" {
#include "position_grid.h"
}

void *vs_gpu_alloc(vs_gpu_state *g, size_t bytes)
{
    void *p = NULL;
    if (bytes == 0)
        return NULL;
    cudaError_t rc = cudaMalloc(&p, bytes);
    if (rc != cudaSuccess)
        vs_log_fatal(__FILE__, __LINE__,
                     "out of device memory allocating %zu bytes (%zu already held): %s", bytes,
                     g->bytes_allocated, cudaGetErrorString(rc));
    g->bytes_allocated += bytes;
    return p;
}

void vs_gpu_free(vs_gpu_state *g, void *p, size_t bytes)
{
    if (!p)
        return;
    if (g->graph.capturing) { /* the captured work, launched later, may still use it */
        vs_gpu_graph_retire(g, p, bytes, 0);
        return;
    }
    VS_CUDA_CHECK(cudaFree(p));
    g->bytes_allocated -= bytes;
}

void vs_gpu_drain(vs_gpu_state *g)
{
    if (!g->graph.capturing)
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
}

/* Replace *p (holding `keep` elements of `elem` bytes, allocated for `old_cap`) by a buffer
 * of new_cap elements. */
static void grow(vs_gpu_state *g, void **p, size_t elem, int64_t old_cap, int64_t new_cap,
                 int64_t keep)
{
    void *q = vs_gpu_alloc(g, elem * (size_t)new_cap);
    if (*p && keep > 0)
        VS_CUDA_CHECK(cudaMemcpyAsync(q, *p, elem * (size_t)keep, cudaMemcpyDeviceToDevice,
                                      g->stream));
    vs_gpu_drain(g);
    vs_gpu_free(g, *p, elem * (size_t)old_cap);
    *p = q;
}

static void size_cub_temp(vs_gpu_state *g, int64_t cap)
{
    size_t sort_bytes = 0;
    cub::DoubleBuffer<uint32_t> keys(g->sort.key_in, g->sort.key_out),
        values(g->sort.idx_in, g->sort.idx_out);
    const int bits =
        g->sort.key_bits > g->cells.morton_bits ? g->sort.key_bits : g->cells.morton_bits;
    VS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, keys, values, (int)cap, 0,
                                                  bits, g->stream));
    size_t if_bytes = 0, partition_bytes = 0;
    const vs_leaver_pred pred = {vs_gpu_positions(g), 0, 0.0, 0.0};
    VS_CUDA_CHECK(cub::DeviceSelect::If(NULL, if_bytes, thrust::counting_iterator<int32_t>(0),
                                        g->halo.send_idx[0][0], g->halo.d_select_count, (int)cap,
                                        pred, g->stream));
    VS_CUDA_CHECK(cub::DevicePartition::Flagged(
        NULL, partition_bytes, thrust::counting_iterator<int32_t>(0), g->ovl.interior_flag,
        g->halo.send_idx[0][0], g->halo.d_select_count, (int)cap, g->stream));
    size_t flagged_bytes = 0;
    VS_CUDA_CHECK(
        cub::DeviceSelect::Flagged(NULL, flagged_bytes, thrust::counting_iterator<int32_t>(0),
                                   (const uint8_t *)g->sort.sort_keys, g->halo.send_idx[0][0],
                                   g->halo.d_select_count, (int)cap, g->stream));
    partition_bytes = partition_bytes > flagged_bytes ? partition_bytes : flagged_bytes;
    size_t scan_bytes = 0, image_bytes = 0;
    VS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, (int32_t *)g->sort.key_in,
                                                (int32_t *)g->sort.key_out, (int)cap, g->stream));
    VS_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(NULL, image_bytes, g->halo.img_counts,
                                                 g->halo.img_offsets, vs_int4_sum(),
                                                 make_int4(0, 0, 0, 0), (int)cap + 1, g->stream));
    scan_bytes = scan_bytes > image_bytes ? scan_bytes : image_bytes;
    size_t need = sort_bytes > if_bytes ? sort_bytes : if_bytes;
    need = need > partition_bytes ? need : partition_bytes;
    need = need > scan_bytes ? need : scan_bytes;
    if (need > g->sort.cub_temp_bytes) {
        vs_gpu_free(g, g->sort.cub_temp, g->sort.cub_temp_bytes);
        g->sort.cub_temp_bytes = need + need / 4;
        g->sort.cub_temp = vs_gpu_alloc(g, g->sort.cub_temp_bytes);
    }
}

void vs_gpu_reserve(vs_gpu_state *g, int64_t needed)
{
    if (needed <= g->pt.capacity)
        return;
    vs_gpu_settle_ghosts(g); /* the ghosts are kept */
    /* 2% headroom: ghost counts fluctuate a little between rebuilds */
    const int64_t cap = needed + needed / 50 + 256;
    const int64_t old = g->pt.capacity, keep = g->pt.n_owned + g->pt.n_ghost;
#define VS_GROW(ptr, type, kept) grow(g, (void **)&(ptr), sizeof(type), old, cap, kept)
    for (int d = 0; d < 3; ++d) {
        if (!g->plan.pos_q_only)
            VS_GROW(g->pt.x[d], double, keep);
        if (!g->plan.vp_in_vel_f)
            VS_GROW(g->pt.vp[d], double, keep);
        if (g->plan.reuse_list) /* without a skin there is no displacement to check */
            VS_GROW(g->pt.x_build[d], double, g->pt.n_owned);
    }
    VS_GROW(g->pt.tag, int64_t, keep);
    VS_GROW(g->pt.species_id, int32_t, keep);
    VS_GROW(g->sort.sort_keys, uint64_t, 0);
    g->stamp.faces = 0; /* the face flags lived there */
    g->sort.key_in = (uint32_t *)g->sort.sort_keys;
    g->sort.key_out = g->sort.key_in + cap;
    if (g->plan.forces == VS_GPU_FORCES_NEWTON) { /* the energy buffer too */
        VS_GROW(g->sort.idx_block, uint64_t, 0);
        g->sort.idx_in = (uint32_t *)g->sort.idx_block;
        g->sort.idx_out = g->sort.idx_in + cap;
    } else {
        VS_GROW(g->sort.idx_in, uint32_t, 0);
        VS_GROW(g->sort.idx_out, uint32_t, 0);
        VS_GROW(g->sort.scratch, double, 0);
    }
    if (g->plan.forces != VS_GPU_FORCES_NEWTON) /* the Newton path bins without it */
        VS_GROW(g->cells.cell_particles, uint32_t, 0);
    VS_GROW(g->cells.cell_pos, int4, 0);
    if (g->plan.forces == VS_GPU_FORCES_NEWTON)
        VS_GROW(g->cells.cell_rank, int32_t, 0);
    /* kept with the owned particles; all of them where they are the only positions */
    const int64_t staged = vs_gpu_owned_staged(g) ? g->pt.n_owned : 0;
    VS_GROW(g->fs.pos_q, int4, g->plan.pos_q_only ? keep : staged);
    VS_GROW(g->fs.vel_f, float4, g->plan.vp_in_vel_f ? keep : staged);
    VS_GROW(g->fs.sig, uint64_t, 0);
    if (g->plan.builder != VS_GPU_BUILDER_CELLS) /* a neighbour list's counts */
        VS_GROW(g->cells.ncount, int32_t, 0);
    if (g->ps.special_on) /* special lists move with the owned particles */
        VS_GROW(g->ps.special, vs_special, g->pt.n_owned);
    if (g->an.on) /* orientations: owned and ghosts (a ghost build may grow midway) */
        VS_GROW(g->an.orient, vs_orient, keep);
    if (g->bd.on) { /* molecules: the topology moves with the owned particles */
        VS_GROW(g->bd.slot_rec, int32_t, g->pt.n_owned); /* the records: gpu_topo.cu */
        VS_GROW(g->bd.mark, uint8_t, keep); /* a ghost build may grow the arrays midway */
        if (g->prm->molecules.n_bond_types > 0) {
            VS_GROW(g->bd.e_bond, double, 0);
            VS_GROW(g->bd.w_bond, double, 0);
        }
        if (g->prm->molecules.n_angle_types > 0) {
            VS_GROW(g->bd.e_angle, double, 0);
            VS_GROW(g->bd.w_angle, double, 0);
        }
        if (g->prm->molecules.n_dihedral_types > 0) {
            VS_GROW(g->bd.e_dihedral, double, 0);
            VS_GROW(g->bd.w_dihedral, double, 0);
        }
    }
#undef VS_GROW
    g->pt.capacity = cap;
    size_cub_temp(g, cap);
}

void vs_gpu_reserve_owned(vs_gpu_state *g, int64_t owned)
{
    vs_gpu_reserve(g, owned);
    if (owned <= g->pt.capacity_owned)
        return;
    const int64_t cap = owned + owned / 50 + 256, old = g->pt.capacity_owned;
    for (int d = 0; d < 3; ++d) {
        grow(g, (void **)&g->pt.v[d], sizeof(double), old, cap, g->pt.n_owned);
        grow(g, (void **)&g->pt.f[d], sizeof(double), old, cap, g->pt.n_owned);
        grow(g, (void **)&g->pt.image[d], sizeof(int32_t), old, cap, g->pt.n_owned);
    }
    g->pt.capacity_owned = cap;
}

/* Significant bits of values below n (at least 1). */
static int bits_for(uint64_t n)
{
    int bits = 1;
    while (bits < 32 && ((uint64_t)1 << bits) < n)
        ++bits;
    return bits;
}

/* The cell grid over the brick and its ghost layer (cells at least the list radius wide),
 * its offsets table, and the bits of the two sort keys. */
static void make_grid(vs_gpu_state *g, double ghost_width)
{
    vs_gpu_grid *grid = &g->cells.grid;
    grid->x_reach = g->plan.x_reach;
    grid->yz_reach = g->plan.yz_reach;
    int largest = 1;
    for (int d = 0; d < 3; ++d) {
        const double extent = g->hi[d] - g->lo[d] + 2.0 * ghost_width;
        const int per_radius = d == 0 ? grid->x_reach : grid->yz_reach;
        const int n = (int)(extent * per_radius / g->list_cutoff);
        grid->ncell[d] = n < 1 ? 1 : n;
        grid->origin[d] = g->lo[d] - ghost_width;
        grid->inv_cell[d] = grid->ncell[d] / extent;
        grid->cell[d] = (float)(extent / grid->ncell[d]);
        grid->q_scale[d] = (double)g->fs.frame.quantum * grid->inv_cell[d];
        grid->q_offset[d] = (g->fs.frame.center[d] - grid->origin[d]) * grid->inv_cell[d];
        const int morton_extent = (grid->ncell[d] - 1) / per_radius + 1;
        largest = morton_extent > largest ? morton_extent : largest;
    }
    /* Morton codes of 10 bits per axis: coarser cells (a shift) for grids wider than 1024 */
    grid->morton_shift = 0;
    while (((largest - 1) >> grid->morton_shift) >= 1024)
        ++grid->morton_shift;
    g->cells.morton_bits = 3 * bits_for((uint64_t)((largest - 1) >> grid->morton_shift) + 1);
    g->cells.n_cells = (int64_t)grid->ncell[0] * grid->ncell[1] * grid->ncell[2];
    /* cell indices are 32-bit ints in the kernels (at rho = 3, 6e9 particles) */
    if (g->cells.n_cells >= INT32_MAX)
        vs_log_fatal(__FILE__, __LINE__, "a brick of %d x %d x %d cells: more than 2^31 cells "
                     "(use more ranks)", grid->ncell[0], grid->ncell[1], grid->ncell[2]);
    g->sort.key_bits = bits_for((uint64_t)g->cells.n_cells);
    /* the layers below z_first stored last (any layer gives the same lists, walks and bits) */
    const int first = g->cells.z_first_switch;
    grid->z_first = first > 0 && first < grid->ncell[2] ? first : 0;
    /* npt makes the grid again on every step: kept while it is large enough */
    if (g->cells.n_cells + 1 > g->cells.cell_start_cap) {
        vs_gpu_free(g, g->cells.cell_start, sizeof(uint32_t) * (size_t)g->cells.cell_start_cap);
        const int64_t spare = g->prm->integrator.kind == VS_INTEGRATOR_NPT ? 2 : 1;
        g->cells.cell_start_cap = spare * (g->cells.n_cells + 1);
        g->cells.cell_start =
            (uint32_t *)vs_gpu_alloc(g, sizeof(uint32_t) * (size_t)g->cells.cell_start_cap);
    }
}

/* The brick [lo, hi), its centre, the fixed-point frame and the cell grid (allocated). */
static void set_brick(vs_gpu_state *g, const double lo[3], const double hi[3])
{
    for (int d = 0; d < 3; ++d) {
        g->lo[d] = lo[d];
        g->hi[d] = hi[d];
        g->center[d] = 0.5 * (lo[d] + hi[d]);
    }
    /* the fixed-point range covers the brick, its ghosts and particles that left it since the
     * last rebuild, with a factor of two to spare: |x - centre| < 2^31 quanta */
    double reach = 0.0;
    for (int d = 0; d < 3; ++d) {
        g->fs.frame.center[d] = g->center[d];
        const double r = 0.5 * (hi[d] - lo[d]) + g->bonded_width + g->list_cutoff;
        reach = r > reach ? r : reach;
    }
    int e = 0;
    frexp(2.0 * reach, &e); /* 2 reach < 2^e */
    double quantum = ldexp(1.0, e - 31);
    /* the whole box's grid (src/core/position_grid.h), no finer than this brick needs: the
     * centre on it too, so that every staged position is an exact integer */
    const double grid = g->prm->exec.position_quantum;
    if (grid > 0.0) {
        if (grid < quantum)
            vs_log_fatal(__FILE__, __LINE__, "the position grid's quantum %g is finer than "
                         "the brick's frame allows (%g)", grid, quantum);
        quantum = grid;
        for (int d = 0; d < 3; ++d)
            g->fs.frame.center[d] = vs_grid_step(g->center[d], grid);
    }
    g->fs.frame.inv_quantum = 1.0 / quantum;
    g->fs.frame.quantum = (float)quantum;
    make_grid(g, g->bonded_width); /* the outermost ghost (bonded beads with molecules) */
}

/* npt: everything derived from the box follows it. The cell grid is made again (its cell
 * count may change), the owned particles' staged inputs are stale (another frame); the
 * rebuild that follows migrates, wraps with the new box, builds the ghosts (their shifts
 * and the image path's come from the box and the brick) and stages every particle. */
extern "C" void vs_gpu_set_box(vs_gpu_state *g, const double box[3], const double lo[3],
                               const double hi[3])
{
    (void)box; /* the parameters' box, which g->prm already shows */
    set_brick(g, lo, hi);
    ++g->ver.owned;
    ++g->ver.step;
}

/* The tests' and benchmarks' switches in the environment, read once. */
static void read_switches(vs_gpu_state *g)
{
    const char *select_above = getenv("VESICA_GPU_IMAGE_SELECT_ABOVE");
    g->halo.image_select_above = select_above ? atoll(select_above) : (1 << 18);
    const char *from = getenv("VESICA_GPU_IMAGE_CANDIDATES_FROM");
    g->halo.candidates_from = from ? atoll(from) : (1 << 19);
    const char *on_device = getenv("VESICA_GPU_GHOSTS_ON_DEVICE");
    g->halo.on_device_allowed = !(on_device && strcmp(on_device, "0") == 0);
    const char *estimate = getenv("VESICA_GPU_GHOST_ESTIMATE");
    g->halo.fixed_estimate = estimate ? atoll(estimate) : -1;
    const char *every = getenv("VESICA_GPU_REORDER_EVERY");
    g->sort.every = every ? atoi(every) : 0;
    const char *z_first = getenv("VESICA_GPU_Z_FIRST");
    g->cells.z_first_switch = z_first ? atoi(z_first) : 0;
}

extern "C" vs_gpu_state *vs_gpu_create(const vs_params *prm, const double lo[3],
                                       const double hi[3], double ghost_width,
                                       double bonded_width, int device, int64_t n_hint,
                                       char *err, size_t err_len)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        snprintf(err, err_len, "no usable CUDA device");
        return NULL;
    }
    if (cudaSetDevice(device % count) != cudaSuccess) {
        snprintf(err, err_len, "cannot select CUDA device %d", device % count);
        return NULL;
    }
    vs_gpu_state *g = (vs_gpu_state *)calloc(1, sizeof(vs_gpu_state));
    if (!g) {
        snprintf(err, err_len, "out of host memory");
        return NULL;
    }
    g->prm = prm;
    g->plan = vs_gpu_plan_decide(prm);
    g->ver.owned = g->ver.step = g->ver.forces = g->ver.list = g->ver.slots = 1; /* stamps 0:
                                                                                  nothing made */
    g->device = device % count;
    /* the step's stream outranks the bulk stream of overlapped interior forces, so packing
     * and unpacking kernels of the ghost exchange are not queued behind them */
    int least = 0, greatest = 0;
    VS_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    VS_CUDA_CHECK(cudaStreamCreateWithPriority(&g->stream, cudaStreamNonBlocking, greatest));
    VS_CUDA_CHECK(cudaStreamCreateWithPriority(&g->ovl.bulk, cudaStreamNonBlocking, least));
    VS_CUDA_CHECK(cudaEventCreate(&g->ovl.ev_start));
    VS_CUDA_CHECK(cudaEventCreate(&g->ovl.ev_local));
    VS_CUDA_CHECK(cudaEventCreate(&g->ovl.ev_go));
    VS_CUDA_CHECK(cudaEventCreate(&g->ovl.ev_interior));
    VS_CUDA_CHECK(cudaEventCreate(&g->ovl.ev_comm));
    vs_gpu_timing_create(g);
    vs_gpu_graph_init(g);
    if (prm->field.on) /* its updates read back (gpu_field.cu): no step is one graph */
        g->graph.allowed = 0;
    g->species.n = prm->species.n;
    for (int s = 0; s < prm->species.n; ++s) {
        g->species.mass[s] = prm->species.list[s].mass;
        /* a frozen species (wall particles) never moves: no acceleration, v stays 0 */
        g->species.inv_mass[s] = prm->species.list[s].frozen ? 0.0 : 1.0 / prm->species.list[s].mass;
        for (int d = 0; d < 3; ++d)
            g->species.body_force[s][d] = prm->species.list[s].body_force[d];
        for (int t = 0; t < prm->species.n; ++t)
            g->species.a[s][t] = prm->dpd.a[s][t];
    }
    g->dpd = vs_dpd_make_consts(prm->dpd.rc, prm->dpd.gamma.v, prm->dpd.kT, prm->dpd.s,
                                prm->integrator.dt);
    g->dpd_f = vs_dpd_consts_to_float(&g->dpd);
    g->dpd_pairs = !vs_pair_real_uniform(&prm->dpd.gamma, prm->species.n);
    if (g->dpd_pairs) {
        const vs_dpd_pair_table t = vs_dpd_make_pair_table(&prm->dpd.gamma, prm->species.n,
                                                           prm->dpd.kT, prm->integrator.dt);
        g->d_dpd_pairs = (double *)vs_gpu_alloc(g, sizeof t);
        VS_CUDA_CHECK(cudaMemcpy(g->d_dpd_pairs, &t, sizeof t, cudaMemcpyHostToDevice));
    }
    g->bd.on = vs_params_molecular(prm);
    g->bd.dih_on = g->bd.on && vs_params_dihedrals(prm);
    g->ghost_width = ghost_width;
    /* bonded beads go farther only with molecules, and only where their reach is wider */
    g->bonded_width = g->bd.on && bonded_width > ghost_width ? bonded_width : ghost_width;
    g->list_cutoff = vs_list_radius(prm);
    read_switches(g); /* before the brick's grid, which takes z_first from them */
    set_brick(g, lo, hi);
    /* a first guess from the density of the list sphere; grown on overflow */
    const double sphere = 4.18879 * g->list_cutoff * g->list_cutoff * g->list_cutoff;
    const double share = g->plan.half_list ? 0.75 : 1.4; /* the half list: half the sphere */
    g->cells.max_neighbors = vs_list_width((int)(sphere * prm->system.density * share) + 8);
    g->halo.d_select_count = (int32_t *)vs_gpu_alloc(g, 16 * sizeof(int32_t));
    g->cells.d_max_count = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t));
    g->fs.d_bad_force = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t));
    g->red.d_max_disp2 = (unsigned int *)vs_gpu_alloc(g, 2 * sizeof(unsigned int));
    VS_CUDA_CHECK(cudaMemsetAsync(g->red.d_max_disp2, 0, 2 * sizeof(unsigned int), g->stream));
    g->ps.special_on = vs_special_depth(prm) > 0;
    g->an.on = vs_params_oriented(prm);
    vs_gpu_aniso_create(g);
    if (g->bd.on) {
        g->bd.d_error = (vs_gpu_bonded_error *)vs_gpu_alloc(g, sizeof(vs_gpu_bonded_error));
        vs_gpu_bonded_tables(g);
    }
    /* no term between the DPD term and the bonded ones (forcefield.c's order), the bond term
     * first of those (it takes the fork: vs_gpu_bonded_fork) */
    g->bd.fork_allowed = g->bd.on && prm->molecules.n_bond_types > 0 &&
                         g->plan.forces == VS_GPU_FORCES_NEWTON &&
                         vs_dpd_active(prm) && !vs_pair_styles_active(prm) &&
                         prm->aniso.style == VS_ANISO_NONE && prm->flow.kind == VS_FLOW_NONE &&
                         !vs_has_walls(prm) && !prm->field.on;
    g->wall.on = vs_has_walls(prm);
    g->wall.w = vs_walls_of(prm);
    if (g->wall.on) {
        g->wall.d_escaped = (unsigned long long *)vs_gpu_alloc(g, sizeof(unsigned long long));
        VS_CUDA_CHECK(cudaMemsetAsync(g->wall.d_escaped, 0xff, sizeof(unsigned long long),
                                      g->stream));
    }
    g->red.d_int_sums = (unsigned long long *)vs_gpu_alloc(g, 4 * sizeof(unsigned long long));
    g->red.partials = (double *)vs_gpu_alloc(g, 8192 * sizeof(double)); /* reduction partials */
    g->red.d_scale = (double *)vs_gpu_alloc(g, 2 * sizeof(double));
    VS_CUDA_CHECK(cudaMallocHost((void **)&g->red.h_pinned, 64 * sizeof(double)));
    g->halo.d_outside = (unsigned long long *)vs_gpu_alloc(g, sizeof(unsigned long long));
    g->halo.d_ghost_words = (int32_t *)vs_gpu_alloc(g, 4 * sizeof(int32_t));
    g->halo.d_ghosts = g->halo.d_ghost_words;
    g->halo.ghost_estimate = -1;
    VS_CUDA_CHECK(cudaMallocHost((void **)&g->halo.h_outside, sizeof(unsigned long long)));
    vs_gpu_slab_init(g);
    vs_gpu_reserve_owned(g, n_hint > 1024 ? n_hint : 1024);

    cudaDeviceProp prop;
    VS_CUDA_CHECK(cudaGetDeviceProperties(&prop, g->device));
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(g->description, sizeof g->description,
             "%s (GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x)",
             prop.name, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
             u[12], u[13], u[14], u[15]);
    return g;
}

extern "C" void vs_gpu_destroy(vs_gpu_state *g)
{
    if (!g)
        return;
    cudaStreamSynchronize(g->stream);
    vs_gpu_graph_free_retired(g);
    vs_gpu_bonded_free(g);
    vs_gpu_pair_free(g);
    vs_gpu_tensor_free(g);
    vs_gpu_aniso_free(g);
    vs_gpu_field_free(g);
    /* freeing the context's allocations one by one is not needed at exit, but a test that
     * creates several states in one process must not leak device memory */
    void *ptrs[] = {g->pt.x[0],
                    g->pt.x[1],
                    g->pt.x[2],
                    g->pt.vp[0],
                    g->pt.vp[1],
                    g->pt.vp[2],
                    g->pt.v[0],
                    g->pt.v[1],
                    g->pt.v[2],
                    g->pt.f[0],
                    g->pt.f[1],
                    g->pt.f[2],
                    g->pt.x_build[0],
                    g->pt.x_build[1],
                    g->pt.x_build[2],
                    g->pt.image[0],
                    g->pt.image[1],
                    g->pt.image[2],
                    g->pt.tag,
                    g->pt.species_id,
                    g->sort.sort_keys,
                    g->sort.idx_block ? NULL : g->sort.idx_in, /* else halves of the block */
                    g->sort.idx_block ? NULL : g->sort.idx_out,
                    g->sort.idx_block,
                    g->sort.scratch,
                    g->cells.cell_particles,
                    g->cells.cell_pos,
                    g->cells.cell_rank,
                    g->fs.pos_q,
                    g->fs.vel_f,
                    g->fs.sig,
                    g->cells.ncount,
                    g->red.partials,
                    g->cells.nlist,
                    g->sort.cub_temp,
                    g->cells.cell_start,
                    g->halo.d_select_count,
                    g->cells.d_max_count,
                    g->fs.d_bad_force,
                    g->red.d_max_disp2,
                    g->red.d_int_sums,
                    g->red.d_scale,
                    g->red.d_profile,
                    g->d_dpd_pairs};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k)
        if (ptrs[k])
            cudaFree(ptrs[k]);
    for (int d = 0; d < 3; ++d)
        for (int s = 0; s < 2; ++s)
            if (g->halo.send_idx[d][s])
                cudaFree(g->halo.send_idx[d][s]);
    vs_gpu_comm_free(g);
    if (g->ovl.interior_flag)
        cudaFree(g->ovl.interior_flag);
    if (g->halo.ghost_cand)
        cudaFree(g->halo.ghost_cand);
    if (g->ovl.split_idx)
        cudaFree(g->ovl.split_idx);
    void *images[] = {g->halo.img_counts,   g->halo.img_offsets, g->halo.img_src,
                      g->halo.img_send_src, g->halo.img_code,    g->halo.img_send_code,
                      g->halo.d_outside,    g->halo.d_ghost_words, g->wall.d_escaped};
    for (size_t k = 0; k < sizeof images / sizeof images[0]; ++k)
        if (images[k])
            cudaFree(images[k]);
    cudaFreeHost(g->halo.h_outside);
    vs_gpu_slab_free(g);
    cudaEventDestroy(g->ovl.ev_start);
    cudaEventDestroy(g->ovl.ev_local);
    cudaEventDestroy(g->ovl.ev_go);
    cudaEventDestroy(g->ovl.ev_interior);
    cudaEventDestroy(g->ovl.ev_comm);
    vs_gpu_graph_destroy(g);
    vs_gpu_timing_destroy(g);
    cudaFreeHost(g->red.h_pinned);
    cudaStreamDestroy(g->ovl.bulk);
    cudaStreamDestroy(g->stream);
    free(g);
}

/* Copies on the state's stream, then a synchronisation: the stream is non-blocking, so a
 * plain cudaMemcpy (legacy default stream) would not be ordered with its kernels, and a
 * pageable host-to-device cudaMemcpy may return before the data has landed. */
static void copy_on_stream(vs_gpu_state *g, void *to, const void *from, size_t bytes,
                           cudaMemcpyKind kind)
{
    if (bytes)
        VS_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, kind, g->stream));
}

/* n 16-byte records (room for one at least) in host memory, or a fatal error naming them. */
static void *host_records(size_t n, const char *what)
{
    void *p = malloc((n ? n : 1) * 16);
    if (!p)
        vs_log_fatal(__FILE__, __LINE__, "out of host memory (%zu %s)", n, what);
    return p;
}

/* A host copy of the owned particles' 16-byte records at `dev` (free it). */
static void *download_records(vs_gpu_state *g, const void *dev, const char *what)
{
    const size_t n = (size_t)g->pt.n_owned;
    void *h = host_records(n, what);
    copy_on_stream(g, h, dev, n * 16, cudaMemcpyDeviceToHost);
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    return h;
}

/* Where the device keeps the predicted velocities in fp32 only (vp_in_vel_f), they travel
 * as float4 and are converted on the host: the host state stays fp64, and a value that went
 * down and up again is the same float. */
static float4 *vp_to_host_floats(const vs_particles *h)
{
    const size_t n = (size_t)h->n_owned;
    float4 *vel = (float4 *)host_records(n, "predicted velocities");
    for (size_t i = 0; i < n; ++i)
        vel[i] = make_float4((float)h->vp[0][i], (float)h->vp[1][i], (float)h->vp[2][i], 0.0f);
    return vel;
}

/* Where pos_q is the only store of the positions (pos_q_only), they travel as it is and are
 * converted on the host with the device's arithmetic (vs_quantize, vs_dequantize): exact both
 * ways for positions on the grid. */
static int4 *positions_to_host_quanta(const vs_gpu_state *g, const vs_particles *h)
{
    const size_t n = (size_t)h->n_owned;
    int4 *q = (int4 *)host_records(n, "positions");
    const vs_fixed_frame &f = g->fs.frame;
    for (size_t i = 0; i < n; ++i)
        q[i] = make_int4(vs_quantize(f, 0, h->x[0][i]), vs_quantize(f, 1, h->x[1][i]),
                         vs_quantize(f, 2, h->x[2][i]), h->species[i]);
    return q;
}

static void positions_from_device_quanta(vs_gpu_state *g, vs_particles *h)
{
    const int4 *q = (const int4 *)download_records(g, g->fs.pos_q, "positions");
    const vs_fixed_frame &f = g->fs.frame;
    for (int64_t i = 0; i < g->pt.n_owned; ++i) {
        h->x[0][i] = vs_dequantize(f, 0, q[i].x);
        h->x[1][i] = vs_dequantize(f, 1, q[i].y);
        h->x[2][i] = vs_dequantize(f, 2, q[i].z);
    }
    free((void *)q);
}

static void vp_from_device_floats(vs_gpu_state *g, vs_particles *h)
{
    const float4 *vel = (const float4 *)download_records(g, g->fs.vel_f, "predicted velocities");
    for (int64_t i = 0; i < g->pt.n_owned; ++i) {
        h->vp[0][i] = vel[i].x;
        h->vp[1][i] = vel[i].y;
        h->vp[2][i] = vel[i].z;
    }
    free((void *)vel);
}

extern "C" void vs_gpu_upload_owned(vs_gpu_state *g, const vs_particles *h)
{
    vs_gpu_reserve_owned(g, h->n_owned + 16);
    const size_t n = (size_t)h->n_owned;
    const cudaMemcpyKind up = cudaMemcpyHostToDevice;
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream)); /* nothing still reads the old state */
    for (int d = 0; d < 3; ++d) {
        if (!g->plan.pos_q_only)
            copy_on_stream(g, g->pt.x[d], h->x[d], n * sizeof(double), up);
        copy_on_stream(g, g->pt.v[d], h->v[d], n * sizeof(double), up);
        if (!g->plan.vp_in_vel_f)
            copy_on_stream(g, g->pt.vp[d], h->vp[d], n * sizeof(double), up);
        copy_on_stream(g, g->pt.f[d], h->f[d], n * sizeof(double), up);
        copy_on_stream(g, g->pt.image[d], h->image[d], n * sizeof(int32_t), up);
    }
    float4 *vel = g->plan.vp_in_vel_f ? vp_to_host_floats(h) : NULL;
    if (vel)
        copy_on_stream(g, g->fs.vel_f, vel, n * sizeof(float4), up);
    int4 *quanta = g->plan.pos_q_only ? positions_to_host_quanta(g, h) : NULL;
    if (quanta)
        copy_on_stream(g, g->fs.pos_q, quanta, n * sizeof(int4), up);
    copy_on_stream(g, g->pt.tag, h->tag, n * sizeof(int64_t), up);
    copy_on_stream(g, g->pt.species_id, h->species, n * sizeof(int32_t), up);
    vs_gpu_topo_upload(g, h); /* molecules: the records of the beads that have one */
    if (g->ps.special_on) {
        if (h->special)
            copy_on_stream(g, g->ps.special, h->special, n * sizeof(vs_special), up);
        else if (n)
            VS_CUDA_CHECK(cudaMemsetAsync(g->ps.special, 0, n * sizeof(vs_special), g->stream));
    }
    vs_gpu_aniso_upload(g, h); /* orientations: n, u and g */
    vs_gpu_field_stale(g); /* the fields of the new state (gpu_field.cu) */
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    free(vel);
    free(quanta);
    g->pt.n_owned = h->n_owned;
    g->pt.owned_on_device = 0;
    g->slab.slot_queued = 0;
    g->slab.lag_valid = 0; /* new particles: the next slab step counts its own bounds */
    g->pt.n_ghost = 0;
    g->halo.ghosts_on_device = 0;
    ++g->ver.owned;
    ++g->ver.step;
    ++g->ver.slots;
    g->fs.forces_fixed = 0;
    /* a fresh state: the periodic Morton reorder counts from here, as after attach, so a
     * restarted run and the run it continues reorder on the same builds */
    g->sort.n_rebuilds = 0;
}

extern "C" void vs_gpu_download_owned(vs_gpu_state *g, vs_particles *h)
{
    vs_gpu_bonded_check(g, -1); /* never hand out the state of a failed bonded evaluation */
    if (g->bd.on)
        vs_particles_enable_topology(h);
    if (g->ps.special_on)
        vs_particles_enable_special(h);
    if (g->bd.dih_on)
        vs_particles_enable_dihedrals(h);
    vs_particles_reserve(h, g->pt.n_owned);
    vs_gpu_forces_to_double(g);
    const size_t n = (size_t)g->pt.n_owned;
    const cudaMemcpyKind down = cudaMemcpyDeviceToHost;
    for (int d = 0; d < 3; ++d) {
        if (!g->plan.pos_q_only)
            copy_on_stream(g, h->x[d], g->pt.x[d], n * sizeof(double), down);
        copy_on_stream(g, h->v[d], g->pt.v[d], n * sizeof(double), down);
        if (!g->plan.vp_in_vel_f)
            copy_on_stream(g, h->vp[d], g->pt.vp[d], n * sizeof(double), down);
        copy_on_stream(g, h->f[d], g->pt.f[d], n * sizeof(double), down);
        copy_on_stream(g, h->image[d], g->pt.image[d], n * sizeof(int32_t), down);
    }
    copy_on_stream(g, h->tag, g->pt.tag, n * sizeof(int64_t), down);
    copy_on_stream(g, h->species, g->pt.species_id, n * sizeof(int32_t), down);
    if (g->ps.special_on)
        copy_on_stream(g, h->special, g->ps.special, n * sizeof(vs_special), down);
    if (g->plan.vp_in_vel_f)
        vp_from_device_floats(g, h);
    if (g->plan.pos_q_only)
        positions_from_device_quanta(g, h);
    vs_gpu_aniso_download(g, h);
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    vs_gpu_topo_download(g, h); /* molecules: per slot again */
    h->n_owned = g->pt.n_owned;
    h->n_ghost = 0;
}

extern "C" void vs_gpu_synchronize(vs_gpu_state *g)
{
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
}

extern "C" int64_t vs_gpu_n_owned(vs_gpu_state *g)
{
    vs_gpu_settle_owned(g);
    return g->pt.n_owned;
}
extern "C" int64_t vs_gpu_n_ghost(vs_gpu_state *g)
{
    vs_gpu_settle_ghosts(g);
    return g->pt.n_ghost;
}
extern "C" int64_t vs_gpu_halo_bytes(const vs_gpu_state *g)
{
    return g->tr.halo_bytes_last;
}
extern "C" size_t vs_gpu_memory_bytes(const vs_gpu_state *g) { return g->bytes_allocated; }
extern "C" void vs_gpu_describe(const vs_gpu_state *g, char *buf, size_t len)
{
    snprintf(buf, len, "%s", g->description);
}
