/* Oriented particles and the soft anisotropic pair style on the device (gpu_aniso.cuh): the
 * pair walk, the rotation's steps (its kinetic sums are gpu_ensemble.cu's), and the records'
 * upload, download and reorder.
 * Their travel between ranks and slots is the exchange kinds' (gpu_halo.cuh, gpu_images.cu,
 * gpu_slab.cu), which move a record with its particle and a ghost's n with its ghost.
 *
 * The pair walk is the walk from both sides (gpu_both_sides.cuh): one thread per owned
 * particle walks its partners (its column of the Verlet list, or the cell list's stencil)
 * and evaluates each pair from its own side with the CPU loop's evaluator
 * (src/core/pair_aniso.h): separations in fp64 from the positions as the state holds them
 * (on the position grid an exact difference), then in double precision the pair's force,
 * orientation gradient, energy and virial in fp64 (vs_aniso_eval), in mixed precision in
 * fp32 from the separation and orientations rounded to fp32 (vs_aniso_eval_f, the same
 * body), as DPD's pairs are fp32 there. Each component is rounded once to
 * fixed point (src/core/fixed_sum.h, as the CPU loop src/cpu/aniso_cpu.c rounds it) and
 * added in integers, energies and virials as half a pair per side: a particle's sums do not
 * depend on the order of its partners, nor on which rank holds them, because the evaluator
 * gives the pair seen from j the exact opposite force and the swapped gradients (its
 * comment says how; this file is compiled without fused multiply-adds, as the CPU rounds).
 * So a run in mixed precision on the position grid is the same bits on any rank count. The
 * force sum joins the particle's force as the other pair terms' walk does
 * (vs_both_sides_store: starting it where no DPD or other style acts, added to doubles, or
 * to the Newton walk's fixed-point sums); the gradient sum is the particle's g, which only
 * this style writes. The energy and virial shares go to the pair styles' per-particle
 * buffers, which the thermo reduction adds (gpu_reduce.cu); with the pressure tensor each
 * pair's half of its tensor goes to the particle's six sums (gpu_tensor.cuh), rounded as the
 * CPU loop rounds it.
 *
 * The rotation (integrator.h: vs_rot_kick, vs_rot_drift, vs_rot_ou_step) runs as kernels of
 * its own beside the translation's, over the owned particles of oriented species, with the
 * per-species constants computed on the host as src/cpu/integrate.c computes them. */
#include "gpu_both_sides.cuh"
#include "gpu_dispatch.cuh"
#include "gpu_internal.cuh"
#include "gpu_partners.cuh"
#include "gpu_wide_sum.cuh"

extern "C" {
#include "fixed_sum.h"
#include "integrator.h"
}

static_assert(sizeof(vs_orient) % sizeof(uint64_t) == 0, "vs_orient is permuted in words");

/* ---- the pair walk ------------------------------------------------------------------------ */

struct vs_aniso_self {
    int i, si;
    double r[3], n[3];
    float nf[3]; /* mixed precision: n in fp32 */
    const vs_aniso_coeff *row; /* i's species row of the coefficients, in shared memory */
};

/* A particle's sums in fixed point (VS_FIXED_FORCE_QUANTA per unit); `bad`: a contribution
 * out of range or not finite (overlapping particles, a model edge), `overflow` a sum that
 * left int64 (its sign bit), each for the forces and gradients and for the energies; t: its
 * tensor shares (output.pressure_tensor; gpu_tensor.cuh). */
struct vs_aniso_sum {
    int64_t f[3], g[3], e, w;
    uint64_t overflow, e_overflow;
    int bad, e_bad;
    long long t[VS_TENSOR];
};

/* MIXED: the pair in fp32 (vs_aniso_eval_f) from the separation computed in fp64 and rounded
 * to fp32 (R from j's side is exactly -R from i's, in either precision) and the orientations
 * rounded to fp32; else the pair in fp64 (vs_aniso_eval, the CPU loop's). Both are rounded
 * from doubles to the fixed-point sums.
 * TENSOR (with ENERGY: output.pressure_tensor's evaluations): each pair's half of its tensor
 * R_a F_b (the force on i need not lie along R) to the particle's own sums, the CPU loop's
 * rounding (vs_tensor_of, vs_cpu_add_tensor); seen from j both R and F flip exactly (a
 * product of two floats is exact in fp64), so the half is the same integer on either side. */
template <bool MIXED, bool TENSOR>
struct vs_side_aniso {
    typedef vs_aniso_coeff shared_t;
    typedef vs_aniso_self self_t;
    typedef vs_aniso_sum sum_t;
    static constexpr int queue = 32;
    static constexpr bool subsets = false;
    int style, n_species, mode; /* mode: vs_both_sides_store's MODE */
    double reach2;              /* the largest cut-off squared */
    const vs_aniso_coeff *coeff;
    vs_positions at;
    const int32_t *species;
    vs_orient *orient;
    vs_tensor_out tensor; /* TENSOR: the sums */

    __device__ __forceinline__ shared_t &load_shared(const vs_gpu_species &) const
    {
        extern __shared__ vs_aniso_coeff shared_aniso[];
        for (int k = threadIdx.x; k < n_species * VS_MAX_SPECIES; k += blockDim.x)
            shared_aniso[k] = coeff[k];
        return shared_aniso[0];
    }

    __device__ __forceinline__ self_t self(const shared_t &s, int i) const
    {
        self_t me;
        me.i = i;
        me.si = species[i];
        me.row = &s + me.si * VS_MAX_SPECIES;
        vs_pos_load(at, i, me.r);
        for (int d = 0; d < 3; ++d) {
            me.n[d] = orient[i].n[d];
            me.nf[d] = (float)me.n[d];
        }
        return me;
    }

    /* R = r_i - r_j and |R|^2 with the CPU loop's rounding (vs_norm2: unfused) */
    __device__ __forceinline__ double separation(const self_t &me, int j, double R[3]) const
    {
        double rj[3];
        vs_pos_load(at, j, rj);
        for (int d = 0; d < 3; ++d)
            R[d] = me.r[d] - rj[d];
        return vs_norm2(R[0], R[1], R[2]);
    }

    template <bool FRESH>
    __device__ __forceinline__ bool near(const self_t &me, int j, const int4 &) const
    {
        double R[3];
        const double r2 = separation(me, j, R);
        return r2 < reach2 && r2 != 0.0;
    }

    /* one rounded component into a sum */
    static __device__ __forceinline__ void put(int64_t *sum, double v, uint64_t *overflow,
                                               int *bad)
    {
        if (!vs_fixed_force_ok(v)) {
            *bad = 1;
            return;
        }
        vs_fixed_add(sum, vs_fixed_force(v), overflow);
    }

    /* a pair's result (either precision) into the sums, R its separation */
    template <bool ENERGY, class RESULT, class REAL>
    __device__ __forceinline__ void accumulate(const RESULT &r, const REAL R[3],
                                               sum_t &sum) const
    {
        for (int d = 0; d < 3; ++d) {
            put(&sum.f[d], (double)r.f[d], &sum.overflow, &sum.bad);
            put(&sum.g[d], (double)r.gi[d], &sum.overflow, &sum.bad);
        }
        if (ENERGY) { /* half a pair on each side (the other half: j's walk, here or there) */
            put(&sum.e, 0.5 * (double)r.energy, &sum.e_overflow, &sum.e_bad);
            put(&sum.w, 0.5 * (double)r.virial, &sum.e_overflow, &sum.e_bad);
            if constexpr (TENSOR) {
                long long q[VS_TENSOR];
                vs_tensor_shares(0.5, (double)r.f[0], (double)r.f[1], (double)r.f[2],
                                 (double)R[0], (double)R[1], (double)R[2], q, tensor.bad);
                for (int k = 0; k < VS_TENSOR; ++k)
                    sum.t[k] += q[k];
            }
        }
    }

    template <bool ENERGY>
    __device__ __forceinline__ void add(const shared_t &, const self_t &me, int j,
                                        sum_t &sum) const
    {
        const vs_aniso_coeff &c = me.row[species[j]];
        double R[3];
        const double r2 = separation(me, j, R);
        if (!c.on || r2 >= c.rc * c.rc || r2 == 0.0)
            return;
        if constexpr (MIXED) {
            const float Rf[3] = {(float)R[0], (float)R[1], (float)R[2]};
            float nj[3];
            for (int d = 0; d < 3; ++d)
                nj[d] = (float)orient[j].n[d];
            accumulate<ENERGY>(vs_aniso_eval_f(style, &c, Rf, me.nf, nj), Rf, sum);
        } else {
            double nj[3];
            for (int d = 0; d < 3; ++d)
                nj[d] = orient[j].n[d];
            accumulate<ENERGY>(vs_aniso_eval(style, &c, R, me.n, nj), R, sum);
        }
    }

    template <bool ENERGY, int MODE>
    __device__ __forceinline__ void store(const vs_gpu_species &sp, const self_t &me, int i,
                                          const sum_t &sum, const vs_both_sides_out &out) const
    {
        const double nan = __longlong_as_double(0x7ff8000000000000ll);
        const bool bad = sum.bad || (sum.overflow >> 63) != 0; /* NaN: the run stops on it */
        double a[3];
        for (int d = 0; d < 3; ++d) {
            a[d] = bad ? nan : vs_fixed_force_to_double(sum.f[d]);
            orient[i].g[d] = bad ? nan : vs_fixed_force_to_double(sum.g[d]);
        }
        const bool e_bad = sum.e_bad || (sum.e_overflow >> 63) != 0; /* the thermo's flag */
        const double e = e_bad ? nan : vs_fixed_force_to_double(sum.e);
        const double w = e_bad ? nan : vs_fixed_force_to_double(sum.w);
        /* the mode is a runtime choice here: one kernel per (energy, source), not three */
        if (mode == 0)
            vs_both_sides_store<ENERGY, 0>(sp, i, me.si, a[0], a[1], a[2], e, w, out);
        else if (mode == 1)
            vs_both_sides_store<ENERGY, 1>(sp, i, me.si, a[0], a[1], a[2], e, w, out);
        else
            vs_both_sides_store<ENERGY, 2>(sp, i, me.si, a[0], a[1], a[2], e, w, out);
        if constexpr (ENERGY && TENSOR)
            vs_tensor_add_own(tensor, i, sum.t);
    }
};

void vs_gpu_aniso_create(vs_gpu_state *g)
{
    if (!g->an.on)
        return;
    const size_t bytes = sizeof(vs_aniso_coeff) * VS_MAX_SPECIES * VS_MAX_SPECIES;
    g->an.d_coeff = (vs_aniso_coeff *)vs_gpu_alloc(g, bytes);
    VS_CUDA_CHECK(cudaMemcpyAsync(g->an.d_coeff, g->prm->aniso.c, bytes, cudaMemcpyHostToDevice,
                                  g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream)); /* the host's copy may be pageable */
}

void vs_gpu_aniso_free(vs_gpu_state *g)
{
    if (g->an.orient)
        cudaFree(g->an.orient);
    if (g->an.d_coeff)
        cudaFree(g->an.d_coeff);
}

extern "C" void vs_gpu_aniso_forces(vs_gpu_state *g, int want_energy)
{
    vs_gpu_settle_owned(g); /* the other terms read the owned number on the host */
    const vs_params *prm = g->prm;
    /* the first pair term starts the forces (forcefield.h): this one where no DPD and no
     * other style acts */
    const int starts = !vs_dpd_active(prm) && !vs_pair_styles_active(prm);
    const int mode = starts ? 0 : (g->fs.forces_fixed ? 2 : 1);
    if (want_energy)
        vs_gpu_pair_energy_reserve(g);
    /* the styles off the Newton walk wrote their shares first (gpu_pair.cu) */
    const int accumulate = vs_pair_styles_active(prm) && !vs_gpu_styles_on_newton(g);
    const vs_both_sides_out out = {{g->pt.f[0], g->pt.f[1], g->pt.f[2]}, g->ps.e, g->ps.w,
                                   accumulate, g->fs.d_bad_force};
    const double reach2 = prm->aniso.reach * prm->aniso.reach;
    const vs_tensor_out tensor = vs_gpu_tensor_out(g, want_energy);
    /* energy: none, energies, energies and the tensor */
    const int energy_kind = want_energy ? (tensor.w[0] ? 2 : 1) : 0;
    const vs_partner_source src = vs_gpu_partner_source(g);
    const int cells = g->plan.forces != VS_GPU_FORCES_VERLET;
    const size_t shared = sizeof(vs_aniso_coeff) * (size_t)prm->species.n * VS_MAX_SPECIES;
    vs_dispatch<2, 3, 2>(
        [&](auto mixed, auto energy, auto cells_c) {
            typedef vs_side_aniso<VS_ON(mixed), VS_VAL(energy) == 2> side_t;
            const side_t side = {prm->aniso.style, prm->species.n, mode, reach2, g->an.d_coeff,
                                 vs_gpu_positions(g), g->pt.species_id, g->an.orient, tensor};
            vs_both_sides_launch<side_t, VS_ON(energy), VS_ON(cells_c), false, 0>(
                side, g->stream, (int)g->pt.n_owned, NULL, src, g->species, out, shared);
        },
        g->plan.mixed != 0, energy_kind, cells);
    if (want_energy)
        g->ps.energies_on = 1;
    if (starts) { /* no other pair term ran: none of their energies, and doubles */
        g->fs.forces_fixed = 0;
        g->fs.energy_count = 0;
        vs_gpu_forces_done(g, want_energy);
    }
}

/* ---- the records ------------------------------------------------------------------------- */

void vs_gpu_aniso_upload(vs_gpu_state *g, const vs_particles *h)
{
    if (!g->an.on)
        return;
    const size_t n = (size_t)h->n_owned;
    if (h->orient)
        VS_CUDA_CHECK(cudaMemcpyAsync(g->an.orient, h->orient, n * sizeof(vs_orient),
                                      cudaMemcpyHostToDevice, g->stream));
    else if (n)
        VS_CUDA_CHECK(cudaMemsetAsync(g->an.orient, 0, n * sizeof(vs_orient), g->stream));
}

void vs_gpu_aniso_download(vs_gpu_state *g, vs_particles *h)
{
    if (!g->an.on)
        return;
    vs_particles_enable_orient(h);
    const size_t n = (size_t)g->pt.n_owned;
    if (n)
        VS_CUDA_CHECK(cudaMemcpyAsync(h->orient, g->an.orient, n * sizeof(vs_orient),
                                      cudaMemcpyDeviceToHost, g->stream));
}

void vs_gpu_aniso_permute(vs_gpu_state *g, int n)
{
    if (g->an.on)
        vs_gpu_permute_words(g, n, g->an.orient, sizeof(vs_orient));
}

/* ---- the rotation ------------------------------------------------------------------------ */

/* Per species: I, h = dt/2 / I (0: a point bead), and Langevin's damping and noise
 * amplitude of u. */
struct vs_rot_consts {
    double inertia[VS_MAX_SPECIES], h[VS_MAX_SPECIES], sigma[VS_MAX_SPECIES], c[VS_MAX_SPECIES];
};

static vs_rot_consts rot_consts(const vs_gpu_state *g, const vs_ensemble_consts *ens)
{
    const vs_params *prm = g->prm;
    const double dt = prm->integrator.dt;
    vs_rot_consts r;
    for (int s = 0; s < VS_MAX_SPECIES; ++s) {
        const double inertia = s < prm->species.n ? prm->species.list[s].inertia : 0.0;
        const double cs = ens && s < prm->species.n ? ens->ou_c[s] : 0.0;
        r.inertia[s] = inertia;
        r.h[s] = inertia > 0.0 ? 0.5 * dt / inertia : 0.0;
        r.sigma[s] = inertia > 0.0 ? sqrt((1.0 - cs * cs) * prm->dpd.kT / inertia) : 0.0;
        r.c[s] = cs;
    }
    return r;
}

/* scale (FINISH; NULL: none): Berendsen's rotational factor on the device, applied after the
 * kick as vs_gpu_scale_rotation applies it */
template <bool FINISH, bool FIRST>
__global__ void rotate_kernel(int n, double dt, vs_rot_consts c, const int32_t *species,
                              vs_orient *orient, const double *scale)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double h = c.h[species[i]];
    if (h == 0.0)
        return; /* a point bead */
    vs_orient o = orient[i];
    if (FINISH) { /* the previous step's second half */
        vs_rot_kick(o.u, o.n, o.g, h);
        if (scale)
            for (int d = 0; d < 3; ++d)
                o.u[d] *= *scale;
    }
    if (FIRST) {
        vs_rot_kick(o.u, o.n, o.g, h);
        vs_rot_drift(o.n, o.u, dt);
    }
    for (int d = 0; d < 3; ++d) {
        orient[i].n[d] = o.n[d];
        orient[i].u[d] = o.u[d];
    }
}

void vs_gpu_rotate(vs_gpu_state *g, int finish, int first, const double *scale)
{
    if (!g->an.on)
        return;
    const vs_rot_consts c = rot_consts(g, NULL);
    const int n = (int)g->pt.n_owned;
    const double dt = g->prm->integrator.dt;
    vs_dispatch<2, 2>(
        [&](auto f, auto h) {
            VS_LAUNCH((rotate_kernel<VS_ON(f), VS_ON(h)>), n, VS_BLOCK, g->stream, n, dt, c,
                      g->pt.species_id, g->an.orient, scale);
        },
        finish != 0, first != 0);
}

/* The rotation terms (vs_rotation_terms_add) of the rates the kick of
 * rotate_kernel's FINISH gives (this file's arithmetic: no fused multiply-adds), not
 * written. */
struct vs_kicked_rotation_terms {
    vs_rot_consts c;
    const int32_t *species;
    const vs_orient *orient;
    __device__ void operator()(int i, vs_wide *acc, int *bad) const
    {
        const int si = species[i];
        if (c.h[si] == 0.0)
            return;
        double u[3] = {orient[i].u[0], orient[i].u[1], orient[i].u[2]};
        vs_rot_kick(u, orient[i].n, orient[i].g, c.h[si]);
        vs_rotation_terms_add(acc, c.inertia[si], u, bad);
    }
};

__global__ void kicked_rotation_kernel(int n, vs_kicked_rotation_terms terms, vs_wide *partials,
                                       unsigned int *bad)
{
    vs_partial_wide_sums<2>(n, terms, partials, bad);
}

void vs_gpu_kicked_rotation_partials(vs_gpu_state *g, int blocks, vs_wide *partials,
                                     unsigned int *bad)
{
    const vs_kicked_rotation_terms terms = {rot_consts(g, NULL), g->pt.species_id, g->an.orient};
    kicked_rotation_kernel<<<blocks, VS_BLOCK, 0, g->stream>>>((int)g->pt.n_owned, terms,
                                                               partials, bad);
    VS_CUDA_CHECK(cudaGetLastError());
}

__global__ void rotation_ou_kernel(int n, uint64_t seed, uint64_t step, int stream,
                                   vs_rot_consts c, const int64_t *tag, const int32_t *species,
                                   vs_orient *orient)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int s = species[i];
    if (c.h[s] == 0.0)
        return;
    double xi[3];
    vs_particle_gauss3(seed, step, stream, 2, (uint64_t)tag[i], xi);
    double u[3], nn[3];
    for (int d = 0; d < 3; ++d) {
        u[d] = orient[i].u[d];
        nn[d] = orient[i].n[d];
    }
    vs_rot_ou_step(u, nn, c.c[s], c.sigma[s], xi);
    for (int d = 0; d < 3; ++d)
        orient[i].u[d] = u[d];
}

void vs_gpu_rotation_ou(vs_gpu_state *g, int op, int64_t step, const vs_ensemble_consts *c)
{
    if (!g->an.on || op == VS_ENSEMBLE_OP_ANDERSEN)
        return;
    const int stream = op == VS_ENSEMBLE_OP_LANGEVIN_FIRST ? VS_STREAM_LANGEVIN_FIRST
                                                           : VS_STREAM_LANGEVIN_SECOND;
    VS_LAUNCH(rotation_ou_kernel, g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned,
              g->prm->system.seed, (uint64_t)step, stream, rot_consts(g, c), g->pt.tag,
              g->pt.species_id, g->an.orient);
}

/* u *= s, or *s_dev where given (a factor computed on the device) */
__global__ void scale_rotation_kernel(int n, double s, const double *s_dev, vs_orient *orient)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (s_dev)
        s = *s_dev;
    if (i < n)
        for (int d = 0; d < 3; ++d)
            orient[i].u[d] *= s;
}

void vs_gpu_scale_rotation_by(vs_gpu_state *g, double s, const double *s_dev)
{
    if (g->an.on)
        VS_LAUNCH(scale_rotation_kernel, g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned,
                  s, s_dev, g->an.orient);
}

extern "C" void vs_gpu_scale_rotation(vs_gpu_state *g, double s)
{
    vs_gpu_scale_rotation_by(g, s, NULL);
}
