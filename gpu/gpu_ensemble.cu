/* The ensembles' per-particle operations on the device (src/core/integrator.h, the same
 * source as the CPU's src/cpu/integrate.c), the velocity scaling and shift, and the exact
 * local sums of momentum, kinetic energy and mass that the thermostats and the removal of
 * the centre-of-mass velocity reduce over ranks (src/engine/ensemble_step.c). The sums are
 * the 128-bit fixed-point sums of src/core/fixed_sum.h: integers, the same in any order, so
 * every rank and every run gets the same thermostat from the same velocities. */
#include "gpu_internal.cuh"
#include "gpu_wide_sum.cuh"

#include "fixed_sum.h"

extern "C" {
#include "ensemble.h"
#include "integrator.h"
}

template <int OP>
__global__ void ensemble_op_kernel(int n, uint64_t seed, uint64_t step, vs_ensemble_consts c,
                                   const int64_t *tag, const int32_t *species, double *vx,
                                   double *vy, double *vz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int s = species[i];
    const uint64_t t = (uint64_t)tag[i];
    double g[3];
    if (OP == VS_ENSEMBLE_OP_ANDERSEN) {
        if (!vs_andersen_collides(seed, step, t, c.collide_p))
            return;
        vs_particle_gauss3(seed, step, VS_STREAM_ANDERSEN, 1, t, g);
        vx[i] = c.mb_sigma[s] * g[0];
        vy[i] = c.mb_sigma[s] * g[1];
        vz[i] = c.mb_sigma[s] * g[2];
        return;
    }
    const int stream =
        OP == VS_ENSEMBLE_OP_LANGEVIN_FIRST ? VS_STREAM_LANGEVIN_FIRST : VS_STREAM_LANGEVIN_SECOND;
    vs_particle_gauss3(seed, step, stream, 0, t, g);
    vx[i] = vs_ou_step(vx[i], c.ou_c[s], c.ou_sigma[s], g[0]);
    vy[i] = vs_ou_step(vy[i], c.ou_c[s], c.ou_sigma[s], g[1]);
    vz[i] = vs_ou_step(vz[i], c.ou_c[s], c.ou_sigma[s], g[2]);
}

extern "C" void vs_gpu_ensemble_op(vs_gpu_state *g, int op, int64_t step,
                                   const vs_ensemble_consts *c)
{
    const int n = (int)g->pt.n_owned;
#define VS_ENSEMBLE_OP(OP)                                                                         \
    VS_LAUNCH(ensemble_op_kernel<OP>, n, VS_BLOCK, g->stream, n, g->prm->system.seed,              \
              (uint64_t)step, *c, g->pt.tag, g->pt.species_id, g->pt.v[0], g->pt.v[1], g->pt.v[2])
    if (op == VS_ENSEMBLE_OP_ANDERSEN)
        VS_ENSEMBLE_OP(VS_ENSEMBLE_OP_ANDERSEN);
    else if (op == VS_ENSEMBLE_OP_LANGEVIN_FIRST)
        VS_ENSEMBLE_OP(VS_ENSEMBLE_OP_LANGEVIN_FIRST);
    else
        VS_ENSEMBLE_OP(VS_ENSEMBLE_OP_LANGEVIN_SECOND);
#undef VS_ENSEMBLE_OP
    vs_gpu_rotation_ou(g, op, step, c); /* oriented particles' rates too (gpu_aniso.cu) */
}

/* v <- s v + shift (s = 1: a shift; shift = 0: a scaling, exactly as the CPU's v *= s). */
template <bool SHIFT>
__global__ void velocity_kernel(int n, double s, double sx, double sy, double sz, double *vx,
                                double *vy, double *vz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (SHIFT) {
        vx[i] -= sx;
        vy[i] -= sy;
        vz[i] -= sz;
    } else {
        vx[i] *= s;
        vy[i] *= s;
        vz[i] *= s;
    }
}

extern "C" void vs_gpu_scale_velocities(vs_gpu_state *g, double s)
{
    VS_LAUNCH(velocity_kernel<false>, g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned, s,
              0.0, 0.0, 0.0, g->pt.v[0], g->pt.v[1], g->pt.v[2]);
}

extern "C" void vs_gpu_shift_velocities(vs_gpu_state *g, const double dv[3])
{
    VS_LAUNCH(velocity_kernel<true>, g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned, 1.0,
              dv[0], dv[1], dv[2], g->pt.v[0], g->pt.v[1], g->pt.v[2]);
}

/* The npt half-step (integrator.h, as src/cpu/integrate.c's vs_integrate_npt). The positions
 * change without staging or a wrap: the box changes next (vs_gpu_set_box), and the
 * rebuild that follows wraps and stages them in the new frame. */
template <bool FIRST>
__global__ void npt_half_kernel(int n, vs_npt_coefs c, vs_gpu_species sp, double *x, double *y,
                                double *z, double *vx, double *vy, double *vz, double *px,
                                double *py, double *pz, const double *fx, const double *fy,
                                const double *fz, const int32_t *fixed_bad,
                                const int32_t *species, float4 *vel_f)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double inv_m = sp.inv_mass[species[i]];
    const double ux = vs_npt_kick(vx[i], vs_force_at(fx, i, fixed_bad) * inv_m, c.cv, c.cf);
    const double uy = vs_npt_kick(vy[i], vs_force_at(fy, i, fixed_bad) * inv_m, c.cv, c.cf);
    const double uz = vs_npt_kick(vz[i], vs_force_at(fz, i, fixed_bad) * inv_m, c.cv, c.cf);
    vx[i] = ux;
    vy[i] = uy;
    vz[i] = uz;
    if (FIRST) {
        x[i] = vs_npt_drift(x[i], ux, c.cx, c.cxv);
        y[i] = vs_npt_drift(y[i], uy, c.cx, c.cxv);
        z[i] = vs_npt_drift(z[i], uz, c.cx, c.cxv);
        if (px) {
            px[i] = ux;
            py[i] = uy;
            pz[i] = uz;
        } else { /* vp_in_vel_f */
            vs_store_vp(i, ux, uy, uz, vel_f);
        }
    }
}

extern "C" void vs_gpu_npt_half(vs_gpu_state *g, const vs_npt_coefs *c, int first)
{
    const int n = (int)g->pt.n_owned;
    if (g->plan.pos_q_only) /* the box moves: positions are off any fixed grid */
        vs_log_fatal(__FILE__, __LINE__, "npt needs fp64 positions (no position grid)");
    if (first) { /* a new step's positions, not staged (vs_gpu_owned_staged) */
        ++g->ver.step;
        ++g->ver.owned;
    }
#define VS_NPT_HALF(F)                                                                             \
    VS_LAUNCH(npt_half_kernel<F>, n, VS_BLOCK, g->stream, n, *c, g->species, g->pt.x[0],          \
              g->pt.x[1], g->pt.x[2], g->pt.v[0], g->pt.v[1], g->pt.v[2], g->pt.vp[0],             \
              g->pt.vp[1], g->pt.vp[2], g->pt.f[0], g->pt.f[1], g->pt.f[2], vs_gpu_fixed_bad(g),   \
              g->pt.species_id, g->fs.vel_f)
    if (first)
        VS_NPT_HALF(true);
    else
        VS_NPT_HALF(false);
#undef VS_NPT_HALF
}

/* 512 blocks of 256 threads fill the device (a grid-stride loop each), and their partials,
 * (512 + 1) * 7 sums of 16 bytes, fit the partials buffer (8192 doubles) */
#define VS_SUM_BLOCKS 512
#define VS_SUM_MOMENTUM 5 /* m vx, m vy, m vz, m v^2 / 2, m; then I |u|^2 / 2, count */

/* The oriented species' moments of inertia (0: a point bead). */
struct vs_inertia {
    double of[VS_MAX_SPECIES];
};

/* Per block: the exact kinetic sums of its particles (grid-stride), and an out-of-range
 * flag; ROT: with the oriented particles' rotation (vs_rotation_sums' terms). */
template <bool ROT>
__global__ void kinetic_partial_kernel(int n, vs_gpu_species sp, vs_inertia in,
                                       const double *vx, const double *vy, const double *vz,
                                       const int32_t *species, const vs_orient *orient,
                                       vs_wide *partials, unsigned int *bad)
{
    __shared__ vs_wide s[VS_KINETIC_SUMS][VS_BLOCK];
    vs_wide acc[VS_KINETIC_SUMS];
    for (int q = 0; q < VS_KINETIC_SUMS; ++q)
        acc[q] = 0;
    int out_of_range = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int si = species[i];
        const double m = sp.mass[si];
        const double ux = vx[i], uy = vy[i], uz = vz[i];
        /* the CPU's terms (src/cpu/integrate.c, vs_momentum_sums), unfused */
        const double term[VS_SUM_MOMENTUM] = {
            __dmul_rn(m, ux), __dmul_rn(m, uy), __dmul_rn(m, uz),
            __dmul_rn(__dmul_rn(0.5, m),
                      __dadd_rn(__dadd_rn(__dmul_rn(ux, ux), __dmul_rn(uy, uy)),
                                __dmul_rn(uz, uz))),
            sp.inv_mass[si] == 0.0 ? 0.0 : m}; /* frozen: not moving mass */
        for (int q = 0; q < VS_SUM_MOMENTUM; ++q) {
            if (vs_wide_ok(term[q]))
                acc[q] += vs_wide_from_double(term[q]);
            else
                out_of_range = 1;
        }
        if (ROT && in.of[si] > 0.0) { /* vs_rotation_sums' terms */
            const double *u = orient[i].u;
            const double k = __dmul_rn(
                __dmul_rn(0.5, in.of[si]),
                __dadd_rn(__dadd_rn(__dmul_rn(u[0], u[0]), __dmul_rn(u[1], u[1])),
                          __dmul_rn(u[2], u[2])));
            if (vs_wide_ok(k))
                acc[VS_SUM_MOMENTUM] += vs_wide_from_double(k);
            else
                out_of_range = 1;
            acc[VS_SUM_MOMENTUM + 1] += vs_wide_from_double(1.0);
        }
    }
    if (out_of_range)
        atomicOr(bad, 1u);
    vs_block_wide_sums<VS_KINETIC_SUMS>(acc, s, partials);
}

extern "C" int vs_gpu_kinetic_sums(vs_gpu_state *g, vs_wide out[VS_KINETIC_SUMS])
{
    const int n = (int)g->pt.n_owned;
    for (int q = 0; q < VS_KINETIC_SUMS; ++q)
        out[q] = 0;
    if (n == 0)
        return 0;
    int blocks = (n + VS_BLOCK - 1) / VS_BLOCK;
    if (blocks > VS_SUM_BLOCKS)
        blocks = VS_SUM_BLOCKS;
    vs_wide *partials = (vs_wide *)g->red.partials;
    unsigned int *bad = (unsigned int *)g->red.d_int_sums;
    VS_CUDA_CHECK(cudaMemsetAsync(bad, 0, sizeof(unsigned int), g->stream));
    vs_inertia in;
    for (int s = 0; s < VS_MAX_SPECIES; ++s)
        in.of[s] = s < g->prm->species.n ? g->prm->species.list[s].inertia : 0.0;
    const int rot = g->an.on;
#define VS_KINETIC(ROT)                                                                            \
    kinetic_partial_kernel<ROT><<<blocks, VS_BLOCK, 0, g->stream>>>(                               \
        n, g->species, in, g->pt.v[0], g->pt.v[1], g->pt.v[2], g->pt.species_id, g->an.orient,     \
        partials, bad)
    if (rot)
        VS_KINETIC(true);
    else
        VS_KINETIC(false);
#undef VS_KINETIC
    VS_CUDA_CHECK(cudaGetLastError());
    vs_wide_final<VS_KINETIC_SUMS>(blocks, partials, g->stream);
    char *h = (char *)g->red.h_pinned;
    const int nv = rot ? VS_KINETIC_SUMS : VS_SUM_MOMENTUM; /* without rotation: zeros */
    VS_CUDA_CHECK(cudaMemcpyAsync(h, partials + (size_t)blocks * VS_KINETIC_SUMS,
                                  nv * sizeof(vs_wide), cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(h + VS_KINETIC_SUMS * sizeof(vs_wide), bad,
                                  sizeof(unsigned int), cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    memcpy(out, h, nv * sizeof(vs_wide));
    unsigned int flag = 0;
    memcpy(&flag, h + VS_KINETIC_SUMS * sizeof(vs_wide), sizeof flag);
    return flag != 0;
}
