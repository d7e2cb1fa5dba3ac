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

/* v <- s v + shift (s = 1: a shift; shift = 0: a scaling, exactly as the CPU's v *= s); s is
 * *s_dev where s_dev is not NULL (a factor computed on the device). */
template <bool SHIFT>
__global__ void velocity_kernel(int n, double s, double sx, double sy, double sz,
                                const double *s_dev, double *vx, double *vy, double *vz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (s_dev)
        s = *s_dev;
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
              0.0, 0.0, 0.0, NULL, g->pt.v[0], g->pt.v[1], g->pt.v[2]);
}

extern "C" void vs_gpu_shift_velocities(vs_gpu_state *g, const double dv[3])
{
    VS_LAUNCH(velocity_kernel<true>, g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned, 1.0,
              dv[0], dv[1], dv[2], NULL, g->pt.v[0], g->pt.v[1], g->pt.v[2]);
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

/* The oriented species' moments of inertia (0: a point bead). */
struct vs_inertia {
    double of[VS_MAX_SPECIES];
};

/* One particle's kinetic terms; ROT: with the oriented particles' rotation (vs_rotation_sums'
 * terms). */
template <bool ROT>
struct vs_kinetic_terms {
    vs_gpu_species sp;
    vs_inertia in;
    const double *vx, *vy, *vz;
    const int32_t *species;
    const vs_orient *orient;
    __device__ void operator()(int i, vs_wide *acc, int *bad) const
    {
        const int si = species[i];
        vs_kinetic_terms_add(acc, sp.mass[si], sp.inv_mass[si], vx[i], vy[i], vz[i], bad);
        if (ROT && in.of[si] > 0.0)
            vs_rotation_terms_add(acc + VS_SUM_MOMENTUM, in.of[si], orient[i].u, bad);
    }
};

/* Per block: the exact kinetic sums of its particles and an out-of-range flag. */
template <bool ROT>
__global__ void kinetic_partial_kernel(int n, vs_kinetic_terms<ROT> terms, vs_wide *partials,
                                       unsigned int *bad)
{
    vs_partial_wide_sums<VS_KINETIC_SUMS>(n, terms, partials, bad);
}

template <bool ROT>
static void launch_kinetic(vs_gpu_state *g, const vs_inertia &in, int blocks, vs_wide *partials,
                           unsigned int *bad)
{
    const vs_kinetic_terms<ROT> terms = {g->species, in, g->pt.v[0], g->pt.v[1], g->pt.v[2],
                                         g->pt.species_id, g->an.orient};
    kinetic_partial_kernel<ROT><<<blocks, VS_BLOCK, 0, g->stream>>>((int)g->pt.n_owned, terms,
                                                                    partials, bad);
}

extern "C" int vs_gpu_kinetic_sums(vs_gpu_state *g, vs_wide out[VS_KINETIC_SUMS])
{
    const int n = (int)g->pt.n_owned;
    for (int q = 0; q < VS_KINETIC_SUMS; ++q)
        out[q] = 0;
    if (n == 0)
        return 0;
    const int blocks = vs_sum_blocks(n);
    vs_wide *partials = (vs_wide *)g->red.partials;
    unsigned int *bad = (unsigned int *)g->red.d_int_sums;
    VS_CUDA_CHECK(cudaMemsetAsync(bad, 0, sizeof(unsigned int), g->stream));
    vs_inertia in;
    for (int s = 0; s < VS_MAX_SPECIES; ++s)
        in.of[s] = s < g->prm->species.n ? g->prm->species.list[s].inertia : 0.0;
    const int rot = g->an.on;
    if (rot)
        launch_kinetic<true>(g, in, blocks, partials, bad);
    else
        launch_kinetic<false>(g, in, blocks, partials, bad);
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

/* ---- Berendsen's half-steps on the device ------------------------------------------------ */

/* Both factors from the exact sums as the host path's ensemble computes them (ens_berendsen.c:
 * vs_berendsen_scale of 2K over the degrees of freedom, and of 2 K_rot over twice the
 * oriented count), 1 where a term was out of range; rot NULL: no rotation. */
__global__ void berendsen_factor_kernel(const vs_wide *trans, const vs_wide *rot,
                                        const unsigned int *bad, double dt, double tau,
                                        double kT, double dof, double *scale)
{
    const double nan = __longlong_as_double(0x7ff8000000000000ll);
    const bool ok = *bad == 0;
    scale[0] = vs_berendsen_scale(dt, tau, kT, ok ? 2.0 * vs_wide_to_double(trans[3]) : nan, dof);
    scale[1] = rot ? vs_berendsen_scale(dt, tau, kT, ok ? 2.0 * vs_wide_to_double(rot[0]) : nan,
                                        2.0 * vs_wide_to_double(rot[1]))
                   : 1.0;
}

/* The sums of the kicked velocities and rates (not written), their totals on the device,
 * over the ranks through the host where there are several, the factors into red.d_scale,
 * then the kick and the scaling: in the next first half's passes, or on their own. Nothing
 * comes back to the host at one rank, so such a step can run as one graph. */
extern "C" void vs_gpu_berendsen_half_steps(vs_gpu_state *g, int with_first_half, double dof,
                                            void (*sum)(const void *ctx, vs_wide *w, int n),
                                            const void *sum_ctx)
{
    const int n = (int)g->pt.n_owned, rot = g->an.on;
    const int blocks = vs_sum_blocks(n > 0 ? n : 1);
    vs_wide *trans = (vs_wide *)g->red.partials;              /* blocks * 5, then 5 totals */
    vs_wide *rotp = trans + (size_t)(blocks + 1) * VS_SUM_MOMENTUM; /* blocks * 2, then 2 */
    unsigned int *bad = (unsigned int *)g->red.d_int_sums;
    VS_CUDA_CHECK(cudaMemsetAsync(bad, 0, sizeof(unsigned int), g->stream));
    vs_gpu_kicked_kinetic_partials(g, blocks, trans, bad);
    vs_wide_final<VS_SUM_MOMENTUM>(blocks, trans, g->stream);
    vs_wide *trans_total = trans + (size_t)blocks * VS_SUM_MOMENTUM;
    vs_wide *rot_total = rotp + (size_t)blocks * 2;
    if (rot) {
        vs_gpu_kicked_rotation_partials(g, blocks, rotp, bad);
        vs_wide_final<2>(blocks, rotp, g->stream);
    }
    if (sum) { /* several ranks: the totals over all of them, back in the same places */
        vs_wide *h = (vs_wide *)g->red.h_pinned;
        unsigned int flag = 0;
        VS_CUDA_CHECK(cudaMemcpyAsync(h, trans_total, VS_SUM_MOMENTUM * sizeof(vs_wide),
                                      cudaMemcpyDeviceToHost, g->stream));
        if (rot)
            VS_CUDA_CHECK(cudaMemcpyAsync(h + VS_SUM_MOMENTUM, rot_total, 2 * sizeof(vs_wide),
                                          cudaMemcpyDeviceToHost, g->stream));
        VS_CUDA_CHECK(cudaMemcpyAsync(&h[VS_KINETIC_SUMS], bad, sizeof(unsigned int),
                                      cudaMemcpyDeviceToHost, g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        memcpy(&flag, &h[VS_KINETIC_SUMS], sizeof flag);
        vs_wide w[VS_KINETIC_SUMS + 1];
        for (int q = 0; q < VS_KINETIC_SUMS; ++q)
            w[q] = rot || q < VS_SUM_MOMENTUM ? h[q] : 0;
        w[VS_KINETIC_SUMS] = flag != 0;
        sum(sum_ctx, w, VS_KINETIC_SUMS + 1);
        memcpy(h, w, sizeof w);
        flag = w[VS_KINETIC_SUMS] != 0;
        memcpy(&h[VS_KINETIC_SUMS], &flag, sizeof flag);
        VS_CUDA_CHECK(cudaMemcpyAsync(trans_total, h, VS_SUM_MOMENTUM * sizeof(vs_wide),
                                      cudaMemcpyHostToDevice, g->stream));
        if (rot)
            VS_CUDA_CHECK(cudaMemcpyAsync(rot_total, h + VS_SUM_MOMENTUM, 2 * sizeof(vs_wide),
                                          cudaMemcpyHostToDevice, g->stream));
        VS_CUDA_CHECK(cudaMemcpyAsync(bad, &h[VS_KINETIC_SUMS], sizeof(unsigned int),
                                      cudaMemcpyHostToDevice, g->stream));
    }
    const vs_params *p = g->prm;
    berendsen_factor_kernel<<<1, 1, 0, g->stream>>>(trans_total, rot ? rot_total : NULL, bad,
                                                    p->integrator.dt, p->integrator.tau,
                                                    p->dpd.kT, dof, g->red.d_scale);
    VS_CUDA_CHECK(cudaGetLastError());
    if (with_first_half) {
        vs_gpu_scaled_finish_and_first_half(g, g->red.d_scale);
        return;
    }
    vs_gpu_integrate_second_half(g);
    VS_LAUNCH(velocity_kernel<false>, n, VS_BLOCK, g->stream, n, 1.0, 0.0, 0.0, 0.0,
              g->red.d_scale, g->pt.v[0], g->pt.v[1], g->pt.v[2]);
    vs_gpu_scale_rotation_by(g, 1.0, g->red.d_scale + 1);
}
