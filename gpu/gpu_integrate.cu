/* Groot-Warren velocity Verlet on the device (src/core/integrator.h), fused with
 * the displacement check that decides the neighbour-list rebuild (none without a skin), and
 * with the previous step's second half when nothing read the state in between (one pass
 * over x, v, f instead of two; the same arithmetic as the separate kernels). Without a skin
 * every step migrates, so the first half also wraps the dimensions periodic within the rank,
 * as the migration's wrap kernel would (one pass over x fewer). In mixed precision it also
 * stages the owned particles' force inputs (below). */
#include <string.h>

#include "gpu_internal.cuh"
#include "gpu_wide_sum.cuh"

extern "C" {
#include "ensemble.h"
#include "integrator.h"
#include "position_grid.h"
}

struct vs_box_lengths {
    double len[3];
};

/* The walls as the moving kernels read them (vs_gpu_walls_part): off in a periodic box. */
struct vs_gpu_wall_args {
    int on;
    vs_walls w;
    const int64_t *tag;
    unsigned long long *escaped;
};

static vs_gpu_wall_args wall_args(const vs_gpu_state *g)
{
    vs_gpu_wall_args a;
    a.on = g->wall.on;
    a.w = g->wall.w;
    a.tag = g->pt.tag;
    a.escaped = g->wall.d_escaped;
    return a;
}

/* A particle past a wall after the drift: reflected (wrap.h, vs_walls_reflect), the new
 * position kept on the position grid (a reflection at the edge itself lands just below it,
 * which the grid rounds down to the quantum below); one still outside leaves its tag. */
__device__ __forceinline__ void vs_gpu_reflect(const vs_gpu_wall_args &a, int i, double quantum,
                                               double *nx, double *ny, double *nz, double *kx,
                                               double *ky, double *kz, double *qx, double *qy,
                                               double *qz)
{
    double x[3] = {*nx, *ny, *nz}, v[3] = {*kx, *ky, *kz}, vp[3] = {*qx, *qy, *qz};
    bool inside = true;
    for (int d = 0; d < 3; ++d)
        inside &= a.w.kind[d] == 0 || (x[d] >= 0.0 && x[d] < a.w.len[d]);
    if (inside)
        return;
    if (vs_walls_reflect(&a.w, x, v, vp))
        atomicMin(a.escaped, (unsigned long long)a.tag[i]);
    for (int d = 0; d < 3; ++d)
        if (quantum > 0.0 && a.w.kind[d] != 0)
            x[d] = vs_grid_floor(x[d], quantum);
    *nx = x[0];
    *ny = x[1];
    *nz = x[2];
    *kx = v[0];
    *ky = v[1];
    *kz = v[2];
    *qx = vp[0];
    *qy = vp[1];
    *qz = vp[2];
}

void vs_gpu_walls_check(vs_gpu_state *g)
{
    if (!g->wall.on)
        return;
    /* a step captured as a graph (gpu_graph.cu) reads nothing back: the word keeps the
     * smallest tag, and the next step run eagerly (every thermo step) reports it; until then
     * nothing drops the particle (one rank, no exchange) */
    if (g->graph.capturing)
        return;
    unsigned long long *h = (unsigned long long *)(g->red.h_pinned + 62); /* a slot of its own */
    VS_CUDA_CHECK(cudaMemcpyAsync(h, g->wall.d_escaped, sizeof(unsigned long long),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    if (*h != ~0ull)
        VS_FATAL("particle %llu left the box through a wall (still outside after the "
                 "reflection): it moved more than a box edge in one step; the forces blew up "
                 "or integrator.dt is too large", *h);
}

/* Langevin's two Ornstein-Uhlenbeck half-steps between the previous step's kick and this
 * step's first half (vs_gpu_langevin_half_steps): the previous step's O(dt/2) after its kick
 * (stream VS_STREAM_LANGEVIN_SECOND at `step`) and this step's before its first half-kick
 * (VS_STREAM_LANGEVIN_FIRST at step + 1), the keys and factors of ensemble_op_kernel. */
struct vs_ou_pair {
    uint64_t seed, step;
    const int64_t *tag;
    double c[VS_MAX_SPECIES], sigma[VS_MAX_SPECIES];
};

template <bool CHECK, bool FINISH, bool WRAP, bool OU>
__global__ void first_half_kernel(int n, double dt, double lambda_dt, vs_gpu_species sp,
                                  vs_positions at, double *vx, double *vy,
                                  double *vz, double *px, double *py, double *pz,
                                  const double *fx, const double *fy, const double *fz,
                                  const int32_t *fixed_bad,
                                  const int32_t *species, const double *bx, const double *by,
                                  const double *bz, unsigned int *max_disp2, int wrap_dims,
                                  vs_box_lengths box, int32_t *imx, int32_t *imy, int32_t *imz,
                                  double quantum, vs_fixed_frame frame, int4 *pos_q,
                                  float4 *vel_f, vs_face_marks faces, vs_gpu_wall_args walls,
                                  const double *scale, vs_ou_pair ou)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float d2 = 0.0f;
    if (i < n) {
        const int32_t si = species[i];
        const double inv_m = sp.inv_mass[si], half_dt = 0.5 * dt;
        const double gx = vs_force_at(fx, i, fixed_bad), gy = vs_force_at(fy, i, fixed_bad),
                     gz = vs_force_at(fz, i, fixed_bad);
        const double ax = gx * inv_m, ay = gy * inv_m, az = gz * inv_m;
        double ux = vx[i], uy = vy[i], uz = vz[i];
        if (FINISH) { /* the previous step's second half, as second_half_kernel does it */
            const double s = half_dt * inv_m;
            ux = vs_vv_kick_scaled(ux, s, gx);
            uy = vs_vv_kick_scaled(uy, s, gy);
            uz = vs_vv_kick_scaled(uz, s, gz);
            if (scale) { /* Berendsen's factor, as vs_gpu_scale_velocities applies it */
                const double l = *scale;
                ux *= l;
                uy *= l;
                uz *= l;
            }
        }
        if (OU) { /* as the two ensemble_op_kernel passes do it, between the halves */
            const uint64_t t = (uint64_t)ou.tag[i];
            const double c = ou.c[si], sg = ou.sigma[si];
            double g2[3], g1[3];
            vs_particle_gauss3(ou.seed, ou.step, VS_STREAM_LANGEVIN_SECOND, 0, t, g2);
            vs_particle_gauss3(ou.seed, ou.step + 1, VS_STREAM_LANGEVIN_FIRST, 0, t, g1);
            ux = vs_ou_step(vs_ou_step(ux, c, sg, g2[0]), c, sg, g1[0]);
            uy = vs_ou_step(vs_ou_step(uy, c, sg, g2[1]), c, sg, g1[1]);
            uz = vs_ou_step(vs_ou_step(uz, c, sg, g2[2]), c, sg, g1[2]);
        }
        double r[3];
        vs_pos_load(at, i, r);
        double nx = vs_grid_move(r[0], vs_vv_displacement(ux, ax, dt, half_dt), quantum);
        double ny = vs_grid_move(r[1], vs_vv_displacement(uy, ay, dt, half_dt), quantum);
        double nz = vs_grid_move(r[2], vs_vv_displacement(uz, az, dt, half_dt), quantum);
        if (WRAP) {
            if (wrap_dims & 1)
                vs_wrap_periodic(&nx, &imx[i], box.len[0]);
            if (wrap_dims & 2)
                vs_wrap_periodic(&ny, &imy[i], box.len[1]);
            if (wrap_dims & 4)
                vs_wrap_periodic(&nz, &imz[i], box.len[2]);
        }
        double qx = vs_vv_predict(ux, ax, lambda_dt), qy = vs_vv_predict(uy, ay, lambda_dt),
               qz = vs_vv_predict(uz, az, lambda_dt);
        double kx = vs_vv_kick(ux, ax, half_dt), ky = vs_vv_kick(uy, ay, half_dt),
               kz = vs_vv_kick(uz, az, half_dt);
        if (walls.on)
            vs_gpu_reflect(walls, i, quantum, &nx, &ny, &nz, &kx, &ky, &kz, &qx, &qy, &qz);
        if (at.x[0]) { /* else pos_q, written below, holds them */
            at.x[0][i] = nx;
            at.x[1][i] = ny;
            at.x[2][i] = nz;
        }
        double held[3] = {nx, ny, nz}; /* the position as the state holds it */
        if (pos_q) { /* mixed precision: the force inputs (vs_gpu_owned_staged), vel_f the
                        only copy of the predicted velocity (vp_in_vel_f) */
            const int4 q = vs_stage_values(frame, i, nx, ny, nz, si, qx, qy, qz, pos_q, vel_f);
            if (!at.x[0]) {
                held[0] = vs_dequantize(frame, 0, q.x);
                held[1] = vs_dequantize(frame, 1, q.y);
                held[2] = vs_dequantize(frame, 2, q.z);
            }
        } else {
            px[i] = qx;
            py[i] = qy;
            pz[i] = qz;
        }
        if (faces.near)
            vs_mark_faces(faces, i, held);
        vx[i] = kx;
        vy[i] = ky;
        vz[i] = kz;
        if (CHECK) {
            const double dx = nx - bx[i], dy = ny - by[i], dz = nz - bz[i];
            d2 = (float)(dx * dx + dy * dy + dz * dz);
            if (!(d2 <= 3.0e38f))
                d2 = 3.0e38f; /* NaN or huge: force a rebuild, where the integrity check
                                 finds it */
        }
    }
    if (CHECK) {
        /* non-negative floats order like their bit patterns: an unsigned max is a float max */
        for (int off = 16; off > 0; off >>= 1)
            d2 = fmaxf(d2, __shfl_down_sync(0xffffffffu, d2, off));
        if ((threadIdx.x & 31) == 0 && d2 > 0.0f)
            atomicMax(max_disp2, __float_as_uint(d2));
    }
}

/* Per block: the kinetic terms (vs_kinetic_terms_add) of the velocities second_half_kernel's
 * kick gives, not written (Berendsen's sums, vs_gpu_berendsen_half_steps). */
/* The kinetic terms of the velocities a second half-step would give, without writing them. */
struct vs_kicked_terms {
    double half_dt;
    vs_gpu_species sp;
    const double *vx, *vy, *vz, *fx, *fy, *fz;
    const int32_t *fixed_bad, *species;
    __device__ void operator()(int i, vs_wide *acc, int *bad) const
    {
        const int si = species[i];
        const double k = half_dt * sp.inv_mass[si];
        const double ux = vs_vv_kick_scaled(vx[i], k, vs_force_at(fx, i, fixed_bad));
        const double uy = vs_vv_kick_scaled(vy[i], k, vs_force_at(fy, i, fixed_bad));
        const double uz = vs_vv_kick_scaled(vz[i], k, vs_force_at(fz, i, fixed_bad));
        vs_kinetic_terms_add(acc, sp.mass[si], sp.inv_mass[si], ux, uy, uz, bad);
    }
};

__global__ void kicked_kinetic_kernel(int n, vs_kicked_terms terms, vs_wide *partials,
                                      unsigned int *bad)
{
    vs_partial_wide_sums<VS_SUM_MOMENTUM>(n, terms, partials, bad);
}

void vs_gpu_kicked_kinetic_partials(vs_gpu_state *g, int blocks, vs_wide *partials,
                                    unsigned int *bad)
{
    const vs_kicked_terms terms = {0.5 * g->prm->integrator.dt, g->species, g->pt.v[0],
                                   g->pt.v[1], g->pt.v[2], g->pt.f[0], g->pt.f[1], g->pt.f[2],
                                   vs_gpu_fixed_bad(g), g->pt.species_id};
    kicked_kinetic_kernel<<<blocks, VS_BLOCK, 0, g->stream>>>((int)g->pt.n_owned, terms,
                                                              partials, bad);
    VS_CUDA_CHECK(cudaGetLastError());
}

__global__ void second_half_kernel(int n, double half_dt, vs_gpu_species sp, double *vx,
                                   double *vy, double *vz, const double *fx, const double *fy,
                                   const double *fz, const int32_t *fixed_bad,
                                   const int32_t *species)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double s = half_dt * sp.inv_mass[species[i]];
    /* each force read before its velocity, as `v += s * f` reads them */
    const double gx = vs_force_at(fx, i, fixed_bad);
    vx[i] = vs_vv_kick_scaled(vx[i], s, gx);
    const double gy = vs_force_at(fy, i, fixed_bad);
    vy[i] = vs_vv_kick_scaled(vy[i], s, gy);
    const double gz = vs_force_at(fz, i, fixed_bad);
    vz[i] = vs_vv_kick_scaled(vz[i], s, gz);
}

/* The bookkeeping of a first half-step, whichever kernel runs it: a new step, positions
 * changed (inputs staged before, e.g. by a list built at a checkpoint, are stale) and its
 * forces will write the energies if due. Returns the kernel's switches. */
struct vs_first_half_switches {
    int mixed, check, wrap_dims;
    vs_box_lengths box;
};

static vs_first_half_switches first_half_begin(vs_gpu_state *g)
{
    ++g->ver.step;
    ++g->ver.owned;
    vs_first_half_switches sw;
    /* the owned particles' force inputs too (pos_q, vel_f; vs_gpu_owned_staged), which the
     * cell list's pass then reads instead of staging them again */
    sw.mixed = g->plan.stage_in_first_half;
    if (sw.mixed)
        g->stamp.owned_staged = g->ver.owned;
    sw.check = g->plan.reuse_list; /* without a skin: rebuilt on every step */
    if (sw.check)
        VS_CUDA_CHECK(cudaMemsetAsync(g->red.d_max_disp2, 0, sizeof(unsigned int), g->stream));
    /* the dimensions periodic within this rank, wrapped here at skin 0 */
    sw.wrap_dims = g->plan.wrap_dims;
    if (sw.wrap_dims)
        g->stamp.wrapped = g->ver.step;
    for (int d = 0; d < 3; ++d)
        sw.box.len[d] = g->prm->system.box[d];
    return sw;
}

static void first_half(vs_gpu_state *g, int finish_previous, const double *scale,
                       const vs_ou_pair *ou)
{
    const vs_first_half_switches sw = first_half_begin(g);
    const int mixed = sw.mixed, check = sw.check, wrap_dims = sw.wrap_dims;
    const vs_box_lengths box = sw.box;
    /* every step rebuilds: the face flags now, while the positions are in registers (the
     * bonded beads' wider shell is left to vs_gpu_select_near_face's own pass) */
    vs_face_marks faces = vs_gpu_face_marks(g);
    const vs_gpu_wall_args walls = wall_args(g);
    if (!g->plan.reuse_list && !g->bd.on)
        g->stamp.faces = g->ver.owned;
    else
        faces.near = faces.leaver = NULL;
    vs_ou_pair no_ou;
    memset(&no_ou, 0, sizeof no_ou);
    const vs_ou_pair &oup = ou ? *ou : no_ou;
#define VS_FIRST_HALF(C, F, W, O)                                                                  \
    VS_LAUNCH((first_half_kernel<C, F, W, O>), g->pt.n_owned, VS_BLOCK, g->stream,                 \
              (int)g->pt.n_owned, g->prm->integrator.dt,                                           \
              g->prm->integrator.lambda * g->prm->integrator.dt, g->species, vs_gpu_positions(g),  \
              g->pt.v[0], g->pt.v[1], g->pt.v[2], g->pt.vp[0], g->pt.vp[1], g->pt.vp[2],           \
              g->pt.f[0], g->pt.f[1], g->pt.f[2], vs_gpu_fixed_bad(g), g->pt.species_id,           \
              g->pt.x_build[0], g->pt.x_build[1], g->pt.x_build[2], g->red.d_max_disp2, wrap_dims, \
              box, g->pt.image[0], g->pt.image[1], g->pt.image[2], g->prm->exec.position_quantum,  \
              g->fs.frame, mixed ? g->fs.pos_q : NULL, g->fs.vel_f, faces, walls, scale, oup)
    if (ou && check)
        VS_FIRST_HALF(true, true, false, true);
    else if (ou && wrap_dims)
        VS_FIRST_HALF(false, true, true, true);
    else if (ou)
        VS_FIRST_HALF(false, true, false, true);
    else if (check && finish_previous)
        VS_FIRST_HALF(true, true, false, false);
    else if (check)
        VS_FIRST_HALF(true, false, false, false);
    else if (finish_previous && wrap_dims)
        VS_FIRST_HALF(false, true, true, false);
    else if (finish_previous)
        VS_FIRST_HALF(false, true, false, false);
    else if (wrap_dims)
        VS_FIRST_HALF(false, false, true, false);
    else
        VS_FIRST_HALF(false, false, false, false);
#undef VS_FIRST_HALF
}

/* With oriented particles their rotation's half-steps follow the translation's (gpu_aniso.cu;
 * no-ops without them). */
extern "C" void vs_gpu_integrate_first_half(vs_gpu_state *g)
{
    first_half(g, 0, NULL, NULL);
    vs_gpu_rotate(g, 0, 1, NULL);
}

extern "C" void vs_gpu_integrate_finish_and_first_half(vs_gpu_state *g)
{
    first_half(g, 1, NULL, NULL);
    vs_gpu_rotate(g, 1, 1, NULL);
}

void vs_gpu_scaled_finish_and_first_half(vs_gpu_state *g, const double *scale)
{
    first_half(g, 1, scale, NULL);
    vs_gpu_rotate(g, 1, 1, scale + 1);
}

/* One pass over x, v and f instead of four (the second half, two ensemble_op passes, the
 * first half). Oriented particles' rotation has Ornstein-Uhlenbeck steps of its own between
 * the halves (gpu_aniso.cu): with them the four calls run as they are. */
extern "C" void vs_gpu_langevin_half_steps(vs_gpu_state *g, int64_t step,
                                           const vs_ensemble_consts *c)
{
    if (g->an.on) {
        vs_gpu_integrate_second_half(g);
        vs_gpu_ensemble_op(g, VS_ENSEMBLE_OP_LANGEVIN_SECOND, step, c);
        vs_gpu_ensemble_op(g, VS_ENSEMBLE_OP_LANGEVIN_FIRST, step + 1, c);
        vs_gpu_integrate_first_half(g);
        return;
    }
    vs_ou_pair ou;
    ou.seed = g->prm->system.seed;
    ou.step = (uint64_t)step;
    ou.tag = g->pt.tag;
    memcpy(ou.c, c->ou_c, sizeof ou.c);
    memcpy(ou.sigma, c->ou_sigma, sizeof ou.sigma);
    first_half(g, 1, NULL, &ou);
}

/* The Brownian step (integrator.kind = brownian) in place of the first half: positions from
 * the forces and noise, velocities a Maxwell-Boltzmann draw (integrator.h), with the first
 * half's displacement check, wrap and mixed-precision staging. */
template <bool CHECK, bool WRAP>
__global__ void brownian_kernel(int n, uint64_t seed, uint64_t step, vs_ensemble_consts c,
                                const int64_t *tag, vs_positions at,
                                double *vx, double *vy, double *vz, double *px, double *py,
                                double *pz, const double *fx, const double *fy,
                                const double *fz, const int32_t *fixed_bad,
                                const int32_t *species, const double *bx, const double *by,
                                const double *bz, unsigned int *max_disp2, int wrap_dims,
                                vs_box_lengths box, int32_t *imx, int32_t *imy, int32_t *imz,
                                double quantum, vs_fixed_frame frame, int4 *pos_q,
                                float4 *vel_f, vs_gpu_wall_args walls)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float d2 = 0.0f;
    if (i < n) {
        const int32_t si = species[i];
        double ga[3], gb[3];
        vs_particle_gauss3(seed, step, VS_STREAM_BROWNIAN, 0, (uint64_t)tag[i], ga);
        vs_particle_gauss3(seed, step, VS_STREAM_BROWNIAN, 2, (uint64_t)tag[i], gb);
        const double mob = c.mobility_dt[si], noise = c.bd_noise[si], mb = c.mb_sigma[si];
        const double gx = vs_force_at(fx, i, fixed_bad), gy = vs_force_at(fy, i, fixed_bad),
                     gz = vs_force_at(fz, i, fixed_bad);
        double r[3];
        vs_pos_load(at, i, r);
        double nx = vs_grid_move(r[0], vs_brownian_displacement(gx, mob, noise, ga[0]), quantum);
        double ny = vs_grid_move(r[1], vs_brownian_displacement(gy, mob, noise, ga[1]), quantum);
        double nz = vs_grid_move(r[2], vs_brownian_displacement(gz, mob, noise, ga[2]), quantum);
        if (WRAP) {
            if (wrap_dims & 1)
                vs_wrap_periodic(&nx, &imx[i], box.len[0]);
            if (wrap_dims & 2)
                vs_wrap_periodic(&ny, &imy[i], box.len[1]);
            if (wrap_dims & 4)
                vs_wrap_periodic(&nz, &imz[i], box.len[2]);
        }
        double ux = mb * gb[0], uy = mb * gb[1], uz = mb * gb[2];
        if (walls.on) {
            double wx = ux, wy = uy, wz = uz;
            vs_gpu_reflect(walls, i, quantum, &nx, &ny, &nz, &ux, &uy, &uz, &wx, &wy, &wz);
        }
        if (at.x[0]) { /* else pos_q, written below, holds them */
            at.x[0][i] = nx;
            at.x[1][i] = ny;
            at.x[2][i] = nz;
        }
        vx[i] = ux;
        vy[i] = uy;
        vz[i] = uz;
        if (pos_q) {
            vs_stage_values(frame, i, nx, ny, nz, si, ux, uy, uz, pos_q, vel_f);
        } else {
            px[i] = ux;
            py[i] = uy;
            pz[i] = uz;
        }
        if (CHECK) {
            const double dx = nx - bx[i], dy = ny - by[i], dz = nz - bz[i];
            d2 = (float)(dx * dx + dy * dy + dz * dz);
            if (!(d2 <= 3.0e38f))
                d2 = 3.0e38f;
        }
    }
    if (CHECK) {
        for (int off = 16; off > 0; off >>= 1)
            d2 = fmaxf(d2, __shfl_down_sync(0xffffffffu, d2, off));
        if ((threadIdx.x & 31) == 0 && d2 > 0.0f)
            atomicMax(max_disp2, __float_as_uint(d2));
    }
}

extern "C" void vs_gpu_brownian_step(vs_gpu_state *g, int64_t step, const vs_ensemble_consts *c)
{
    const vs_first_half_switches sw = first_half_begin(g);
#define VS_BROWNIAN(C, W)                                                                          \
    VS_LAUNCH((brownian_kernel<C, W>), g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned,     \
              g->prm->system.seed, (uint64_t)step, *c, g->pt.tag, vs_gpu_positions(g), g->pt.v[0], \
              g->pt.v[1], g->pt.v[2], g->pt.vp[0], g->pt.vp[1], g->pt.vp[2], g->pt.f[0],           \
              g->pt.f[1], g->pt.f[2], vs_gpu_fixed_bad(g), g->pt.species_id, g->pt.x_build[0],     \
              g->pt.x_build[1], g->pt.x_build[2], g->red.d_max_disp2, sw.wrap_dims, sw.box,        \
              g->pt.image[0], g->pt.image[1], g->pt.image[2], g->prm->exec.position_quantum,       \
              g->fs.frame, sw.mixed ? g->fs.pos_q : NULL, g->fs.vel_f, wall_args(g))
    if (sw.check)
        VS_BROWNIAN(true, false);
    else if (sw.wrap_dims)
        VS_BROWNIAN(false, true);
    else
        VS_BROWNIAN(false, false);
#undef VS_BROWNIAN
}

extern "C" double vs_gpu_max_displacement2(vs_gpu_state *g)
{
    /* with it, the bonded kernels' failure word: their verdict costs no read-back of its own */
    unsigned int *h = (unsigned int *)g->red.h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, g->red.d_max_disp2, 2 * sizeof(unsigned int),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    vs_gpu_bonded_check(g, (int)h[1]);
    float f;
    memcpy(&f, h, sizeof f);
    return (double)f;
}

extern "C" void vs_gpu_integrate_second_half(vs_gpu_state *g)
{
    VS_LAUNCH(second_half_kernel, g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned,
              0.5 * g->prm->integrator.dt, g->species, g->pt.v[0], g->pt.v[1], g->pt.v[2],
              g->pt.f[0], g->pt.f[1], g->pt.f[2], vs_gpu_fixed_bad(g), g->pt.species_id);
    vs_gpu_rotate(g, 1, 0, NULL);
}
