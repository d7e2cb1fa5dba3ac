/* The pair forces on the device: their inputs (staging, signatures), the launchers, the
 * overlap with the ghost update (the thermo and integrity reductions are in gpu_reduce.cu).
 *
 * Two walks, neither with float atomics, both bit-reproducible:
 * - the walk from both sides (gpu_both_sides.cuh, DPD's side here; Verlet lists, and the
 *   cell list in double precision): one thread per owned particle walks its partners and
 *   accumulates the force in registers; every pair is evaluated from both sides, so no thread
 *   writes another particle's force. In double the sum runs in the list's (deterministic)
 *   order; in mixed it is fixed point.
 * - the Newton walk (gpu_newton.cuh; the cell list or a half list in mixed precision), over a
 *   pair evaluator (gpu_pair_eval.cuh: DPD here, the conservative styles with or without DPD
 *   in gpu_pair_newton.cu): each pair once, the partner's share added to fixed-point integer
 *   sums, whose value does not depend on the order of the adds, the pairs spread evenly over
 *   a warp's lanes: half the pair evaluations of the other walk. With the overlap on a slab,
 *   the ghosts from other ranks are not in the cell list and its remote part adds their pairs
 *   to the same sums once they have arrived.
 *
 * Precision (config `precision`):
 *   double - positions, velocities and pair arithmetic in fp64, the CPU reference's formulas;
 *   mixed  - positions relative to the brick centre staged as 32-bit fixed point (int4 with
 *            the species; see vs_fixed_frame) and predicted velocities as fp32 (float4),
 *            16-byte loads; separations exact, then pair arithmetic in fp32 (vs_dpd_pair_f, the
 *            same source as the double version), accumulation in fixed point.
 * The pair random number is computed from the same 64 TEA bits as on the CPU, from the two
 * particles' signatures (computed once per particle and step); the uniform variant is exact
 * in fp64 and rounded once to fp32 in mixed mode.
 */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpu_both_sides.cuh"
#include "gpu_internal.cuh"
#include "gpu_newton.cuh"
#include "gpu_partners.cuh"

extern "C" {
#include "tea_rng.h"
#include "timer.h"
}

/* Stage the mixed kernel's inputs: fixed-point position + species, fp32 predicted velocity. */
__global__ void stage_mixed_kernel(int first, int n, vs_fixed_frame frame, const double *x,
                                   const double *y, const double *z, const double *vx,
                                   const double *vy, const double *vz, const int32_t *species,
                                   int4 *pos, float4 *vel)
{
    const int i = first + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= first + n)
        return;
    vs_stage_particle(frame, i, x, y, z, vx, vy, vz, species, pos, vel);
}

void vs_gpu_stage_range(vs_gpu_state *g, int64_t first, int64_t count)
{
    if (g->plan.pos_q_only) /* pos_q holds the positions and vel_f the predicted velocities */
        return;
    VS_LAUNCH(stage_mixed_kernel, count, VS_BLOCK, g->stream, (int)first, (int)count, g->fs.frame,
              g->pt.x[0], g->pt.x[1], g->pt.x[2], g->pt.vp[0], g->pt.vp[1], g->pt.vp[2],
              g->pt.species_id, g->fs.pos_q, g->fs.vel_f);
}

void vs_gpu_stage_positions(vs_gpu_state *g)
{
    vs_gpu_settle_ghosts(g);
    g->stamp.staged = vs_gpu_now(g);
    const int64_t first = vs_gpu_owned_staged(g) ? g->pt.n_owned : 0; /* the first half-step's */
    vs_gpu_stage_range(g, first, g->pt.n_owned + g->pt.n_ghost - first);
}

/* The Newton kernel's sums, cleared by the signature pass that precedes it: the owned
 * particles' three fixed-point force sums, and the marked particle (none: 0x7f7f7f7f, above
 * every index). In that pass the clearing needs no launches of its own: a small system's
 * step is bound by the host's launches, not by bytes. */
struct vs_sum_clear {
    double *f[3]; /* NULL: nothing to clear */
    int32_t *bad;
    vs_count owned;
};

/* Each particle's pair-RNG signature at this step (tea_rng.h), for particles [first, first +
 * n); with `clear`, the sums of the owned particles among them too, and the marked particle
 * (the range then starts at 0 and covers every owned particle). */
__global__ void signature_kernel(int first, vs_count count, vs_tea_key key,
                                 const int64_t *tag, uint64_t *sig, vs_sum_clear clear)
{
    const int n = vs_count_get(count), n_owned = vs_count_get(clear.owned);
    VS_FOR_EACH(k, n)
    {
        const int i = first + k;
        sig[i] = vs_signature_pack(vs_tag_signature(key, (uint64_t)tag[i]));
        if (clear.f[0] && i < n_owned) {
            clear.f[0][i] = 0.0;
            clear.f[1][i] = 0.0;
            clear.f[2][i] = 0.0;
        }
        if (clear.f[0] && i == 0)
            *clear.bad = 0x7f7f7f7f;
    }
}

/* Signatures of particles [first, first + count) (`estimate`: the host's idea of count, the
 * grid's size); `clear_sums`: the Newton kernel's sums start at zero too (the range then
 * covers every owned particle). */
static void compute_signatures_of(vs_gpu_state *g, int64_t first, vs_count count,
                                  int64_t estimate, int64_t step, int clear_sums)
{
    vs_sum_clear clear = {{NULL, NULL, NULL}, g->fs.d_bad_force, vs_gpu_owned(g)};
    if (clear_sums) {
        /* (the slab path's listed number on the device counts every owned particle) */
        if (first != 0 || (!g->pt.owned_on_device && count.base < g->pt.n_owned))
            vs_log_fatal(__FILE__, __LINE__, "signatures of [%lld, %lld) cannot clear the sums "
                         "of %lld owned particles", (long long)first,
                         (long long)(first + count.base), (long long)g->pt.n_owned);
        for (int d = 0; d < 3; ++d)
            clear.f[d] = g->pt.f[d];
        if (estimate == 0) /* no launch: the mark alone */
            VS_CUDA_CHECK(cudaMemsetAsync(g->fs.d_bad_force, 0x7f, sizeof(int32_t), g->stream));
    }
    VS_LAUNCH(signature_kernel, estimate, VS_BLOCK, g->stream, (int)first, count,
              vs_tea_make_key(g->prm->system.seed, (uint64_t)step), g->pt.tag, g->fs.sig, clear);
}

static void compute_signatures(vs_gpu_state *g, int64_t first, int64_t count, int64_t step,
                               int clear_sums)
{
    compute_signatures_of(g, first, vs_count_known(count), count, step, clear_sums);
}


/* DPD on the walk from both sides (gpu_both_sides.cuh). Pairs within r_c are queued per
 * thread before the random number and the force are computed: evaluated inside the candidate
 * loop, the TEA hash would run whenever any lane of the warp had a hit, which is almost every
 * candidate; queued, it runs about as many times as the busiest lane has partners.
 *   - mixed: the candidates tested in quanta (the decisions of the test in lengths, 3 fewer
 *     multiplications per candidate), the pair from DPD's evaluator (vs_evaluate_mixed_pair)
 *     and the sum in fixed point, as the Newton walk's: the same force and energy bits
 *     whatever the list's order and whichever rank holds the partner;
 *   - double: separations and the pair in fp64 (the CPU reference's formulas), the sum in
 *     fp64 in candidate order.
 * r = 0 is the particle itself. */
struct vs_dpd_self_d {
    double x, y, z, ux, uy, uz;
    uint64_t sig;
    int si;
    const double *a_row;
    const double *g_row, *s_row; /* PAIRS: gamma_ij and sigma_ij / sqrt(dt) of i's species
                                    (device memory, read through the read-only cache) */
};
struct vs_dpd_self_f {
    int4 pi;
    float4 ui;
    uint64_t sig;
    int si;
};
/* t: the particle's tensor shares (output.pressure_tensor's evaluations; gpu_tensor.cuh) */
struct vs_sum_d {
    double ax, ay, az, e, w;
    long long t[VS_TENSOR];
};
struct vs_sum_q {
    long long qx, qy, qz, qe, qw;
    long long t[VS_TENSOR];
};

/* TENSOR (with ENERGY: output.pressure_tensor's evaluations): each pair's tensor half to the
 * particle's own sums (gpu_tensor.cuh), added once at the end. */
template <bool MIXED, bool PAIRS, bool TENSOR = false>
struct vs_side_dpd {
    typedef vs_eval_dpd_t<false, PAIRS> eval_t;
    typedef typename eval_t::shared_t shared_t;
    typedef typename std::conditional<MIXED, vs_dpd_self_f, vs_dpd_self_d>::type self_t;
    typedef typename std::conditional<MIXED, vs_sum_q, vs_sum_d>::type sum_t;
    static constexpr int queue = 32;
    static constexpr bool subsets = true;
    eval_t ev;
    vs_dpd_consts c;
    float rc2_quanta;
    const double *x, *y, *z, *vx, *vy, *vz;
    vs_fixed_frame frame;
    const int4 *pos_q;
    const float4 *vel_f;
    const uint64_t *sig;
    const int32_t *species;
    vs_tensor_out tensor; /* TENSOR: the sums */

    __device__ __forceinline__ shared_t &load_shared(const vs_gpu_species &sp) const
    {
        __shared__ shared_t a_shared;
        ev.load_shared(a_shared, sp);
        return a_shared;
    }

    __device__ __forceinline__ self_t self(const shared_t &s, int i) const
    {
        self_t me;
        me.sig = sig[i];
        me.si = species[i];
        if constexpr (MIXED) {
            me.pi = pos_q[i];
            me.ui = vel_f[i];
        } else {
            me.a_row = s.a + me.si * VS_MAX_SPECIES;
            if constexpr (PAIRS) {
                me.g_row = ev.pairs + me.si * VS_MAX_SPECIES;
                me.s_row = ev.pairs + VS_MAX_SPECIES * VS_MAX_SPECIES + me.si * VS_MAX_SPECIES;
            }
            me.x = x[i];
            me.y = y[i];
            me.z = z[i];
            me.ux = vx[i];
            me.uy = vy[i];
            me.uz = vz[i];
        }
        return me;
    }

    template <bool FRESH>
    __device__ __forceinline__ bool near(const self_t &me, int j, const int4 &entry) const
    {
        if constexpr (MIXED) {
            const int4 pj = FRESH ? entry : pos_q[j];
            const float qx = vs_separation_quanta(me.pi.x, pj.x),
                        qy = vs_separation_quanta(me.pi.y, pj.y),
                        qz = vs_separation_quanta(me.pi.z, pj.z);
            const float r2q = vs_norm2(qx, qy, qz);
            return r2q < rc2_quanta && r2q != 0.0f;
        } else {
            const double dx = me.x - x[j], dy = me.y - y[j], dz = me.z - z[j];
            const double r2 = vs_norm2(dx, dy, dz);
            return r2 < c.rc2 && r2 != 0.0;
        }
    }

    template <bool ENERGY>
    __device__ __forceinline__ void add(const shared_t &s, const self_t &me, int j,
                                        sum_t &sum) const
    {
        if constexpr (MIXED) {
            const vs_mixed_inputs in = {pos_q, vel_f, sig};
            const vs_mixed_pair p = vs_evaluate_mixed_pair(ev, s, frame, in, me.pi, me.ui,
                                                           me.sig, j);
            const vs_pair_result_f &r = p.r;
            sum.qx += vs_force_to_fixed(r.f_over_r * p.dx);
            sum.qy += vs_force_to_fixed(r.f_over_r * p.dy);
            sum.qz += vs_force_to_fixed(r.f_over_r * p.dz);
            if (ENERGY) {
                sum.qe += vs_fixed_share(r.energy, false, me.sig, sig[j]);
                sum.qw += vs_fixed_share(r.virial, false, me.sig, sig[j]);
                if constexpr (TENSOR) { /* the force's fp32 components, as the walk has them */
                    long long q[VS_TENSOR];
                    vs_tensor_pair_shares_f(r.f_over_r * p.dx, r.f_over_r * p.dy,
                                            r.f_over_r * p.dz, p.dx, p.dy, p.dz, q, tensor.bad);
                    for (int k = 0; k < VS_TENSOR; ++k)
                        sum.t[k] += q[k];
                }
            }
        } else {
            const double dx = me.x - x[j], dy = me.y - y[j], dz = me.z - z[j];
            const double r2 = vs_norm2(dx, dy, dz);
            /* vs_dpd_pair_random in two calls (one call: a different schedule) */
            const double xi = vs_dpd_xi(ev.key, me.sig, sig[j], ev.gaussian);
            vs_pair_result r;
            if constexpr (PAIRS) {
                const int sj = species[j];
                r = vs_dpd_pair_gs(&c, r2, dx, dy, dz, me.ux - vx[j], me.uy - vy[j],
                                   me.uz - vz[j], me.a_row[sj], __ldg(me.g_row + sj),
                                   __ldg(me.s_row + sj), xi);
            } else {
                r = vs_dpd_pair(&c, r2, dx, dy, dz, me.ux - vx[j], me.uy - vy[j], me.uz - vz[j],
                                me.a_row[species[j]], xi);
            }
            sum.ax += r.f_over_r * dx;
            sum.ay += r.f_over_r * dy;
            sum.az += r.f_over_r * dz;
            if (ENERGY) {
                sum.e += 0.5 * r.energy;
                sum.w += 0.5 * r.virial;
                if constexpr (TENSOR) {
                    long long q[VS_TENSOR];
                    vs_tensor_shares(0.5, r.f_over_r * dx, r.f_over_r * dy, r.f_over_r * dz, dx,
                                     dy, dz, q, tensor.bad);
                    for (int k = 0; k < VS_TENSOR; ++k)
                        sum.t[k] += q[k];
                }
            }
        }
    }

    /* DPD is the first pair term: the forces start here (MODE 0) */
    template <bool ENERGY, int MODE>
    __device__ __forceinline__ void store(const vs_gpu_species &sp, const self_t &me, int i,
                                          const sum_t &sum, const vs_both_sides_out &out) const
    {
        static_assert(MODE == 0, "DPD starts the forces");
        const int si = me.si;
        if constexpr (ENERGY && TENSOR)
            vs_tensor_add_own(tensor, i, sum.t);
        if constexpr (MIXED) {
            const double unit = 1.0 / VS_FIXED_PER_FORCE;
            out.f[0][i] = (double)(sum.qx + __double2ll_rn(sp.body_force[si][0] *
                                                           VS_FIXED_PER_FORCE)) * unit;
            out.f[1][i] = (double)(sum.qy + __double2ll_rn(sp.body_force[si][1] *
                                                           VS_FIXED_PER_FORCE)) * unit;
            out.f[2][i] = (double)(sum.qz + __double2ll_rn(sp.body_force[si][2] *
                                                           VS_FIXED_PER_FORCE)) * unit;
            if (ENERGY) {
                out.energy[i] = (double)sum.qe * unit;
                out.virial[i] = (double)sum.qw * unit;
            }
        } else {
            out.f[0][i] = sp.body_force[si][0] + sum.ax;
            out.f[1][i] = sp.body_force[si][1] + sum.ay;
            out.f[2][i] = sp.body_force[si][2] + sum.az;
            if (ENERGY) {
                out.energy[i] = sum.e;
                out.virial[i] = sum.w;
            }
        }
    }
};


/* The fixed-point sums become doubles, in place (before the forces leave the device). */
__global__ void forces_from_fixed_kernel(int n, const int32_t *bad, double *fx, double *fy,
                                         double *fz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double *f[3] = {fx, fy, fz};
    for (int d = 0; d < 3; ++d)
        f[d][i] = vs_force_at(f[d], i, bad);
}

void vs_gpu_forces_to_double(vs_gpu_state *g)
{
    if (!g->fs.forces_fixed)
        return;
    VS_LAUNCH(forces_from_fixed_kernel, g->pt.n_owned, VS_BLOCK, g->stream, (int)g->pt.n_owned,
              g->fs.d_bad_force, g->pt.f[0], g->pt.f[1], g->pt.f[2]);
    g->fs.forces_fixed = 0;
}

/* The walk's cut-off r2 < rc2 as a test in quanta (the quantum is a power of two: the same
 * decisions as the test in lengths). */
static float cut2_in_quanta(const vs_gpu_state *g, float rc2)
{
    return (float)((double)rc2 * g->fs.frame.inv_quantum * g->fs.frame.inv_quantum);
}

/* One part of the Newton walk (vs_newton_launch): the listed particles' pairs, or with
 * `remote` the remote ghosts', with DPD's evaluator or, where the plan puts the conservative
 * styles on the walk, theirs (with DPD's beside them where it acts). */
static void launch_newton_part(vs_gpu_state *g, cudaStream_t stream, int remote, int64_t step,
                               int want_energy)
{
    const vs_tea_key key = vs_tea_make_key(g->prm->system.seed, (uint64_t)step);
    const int gaussian = g->prm->dpd.random == VS_RANDOM_GAUSSIAN;
    if (vs_gpu_styles_on_newton(g)) {
        const float reach = (float)vs_pair_reach(g->prm);
        vs_gpu_newton_styles(g, stream, remote, key, cut2_in_quanta(g, reach * reach),
                             want_energy);
    } else {
        vs_dispatch<2>(
            [&](auto pairs) {
                const vs_eval_dpd_t<false, VS_ON(pairs)> ev = {key, gaussian, g->dpd_f,
                                                               g->d_dpd_pairs};
                vs_newton_launch(g, stream, remote, ev, cut2_in_quanta(g, g->dpd_f.rc2),
                                 want_energy);
            },
            g->dpd_pairs);
    }
    /* the integrator reads the sums as they are (vs_force_at); a download converts them */
    g->fs.forces_fixed = 1;
    /* ghosts' threads hold shares of the owned particles' energy */
    g->fs.energy_count = g->pt.n_owned + g->pt.n_ghost;
}

/* Forces on every owned particle, each pair once: the listed particles' pairs, then the
 * remote ghosts' where the list leaves them out (the signature pass cleared the sums). */
static void launch_newton_forces(vs_gpu_state *g, int64_t step, int want_energy)
{
    launch_newton_part(g, g->stream, 0, step, want_energy);
    if (g->cells.n_listed < g->pt.n_owned + g->pt.n_ghost)
        launch_newton_part(g, g->stream, 1, step, want_energy);
}

/* Forces on `n` owned particles (all of them, or those listed in `subset`) on `stream`. */
static void launch_forces(vs_gpu_state *g, cudaStream_t stream, int n, const int32_t *subset,
                          int64_t step, int want_energy)
{
    const int mixed = g->plan.mixed;
    const vs_tea_key key = vs_tea_make_key(g->prm->system.seed, (uint64_t)step);
    const int gaussian = g->prm->dpd.random == VS_RANDOM_GAUSSIAN;
    const vs_partner_source src = vs_gpu_partner_source(g);
    const int skin = g->plan.reuse_list;
    const int cells = g->plan.forces != VS_GPU_FORCES_VERLET; /* partners from the cell list */
    const float rc2_quanta = cut2_in_quanta(g, g->dpd_f.rc2);
    /* partners from the Verlet list (0), the cell list kept with a skin (1) or built this
     * step (2: FRESH) */
    const int source = cells ? (skin ? 1 : 2) : 0;
    const vs_both_sides_out out = {{g->pt.f[0], g->pt.f[1], g->pt.f[2]},
                                   vs_gpu_energy_buf(g), vs_gpu_virial_buf(g), 0,
                                   g->fs.d_bad_force};
    const vs_tensor_out tensor = vs_gpu_tensor_out(g, want_energy);
    /* energy: none, energies, energies and the tensor */
    const int energy_kind = want_energy ? (tensor.w[0] ? 2 : 1) : 0;
    vs_dispatch<2, 2, 3, 3>(
        [&](auto m, auto pairs, auto energy, auto from) {
            constexpr bool c = VS_VAL(from) > 0, fresh = VS_VAL(from) == 2;
            typedef vs_side_dpd<VS_ON(m), VS_ON(pairs), VS_VAL(energy) == 2> side_t;
            const typename side_t::eval_t ev = {key, gaussian, g->dpd_f, g->d_dpd_pairs};
            const side_t side = {
                ev,          g->dpd,      rc2_quanta,  g->pt.x[0], g->pt.x[1],
                g->pt.x[2],  g->pt.vp[0], g->pt.vp[1], g->pt.vp[2], g->fs.frame,
                g->fs.pos_q, g->fs.vel_f, g->fs.sig,   g->pt.species_id, tensor};
            vs_both_sides_launch<side_t, VS_ON(energy), c, fresh, 0>(
                side, stream, n, subset, src, g->species, out);
        },
        mixed, g->dpd_pairs, energy_kind, source);
}

/* The forces of an inert DPD term (vs_dpd_inert): each owned particle's body force, in the
 * form its walk would leave it with zero pair sums: FORM 2 the Newton kernel's fixed-point
 * sums (and no marked particle), 1 the mixed kernel's doubles of the rounded body force, 0
 * the double kernel's body force plus a zero sum. */
__global__ void forces_start_kernel(int n, const int32_t *species, vs_gpu_species sp, int form,
                                    double *fx, double *fy, double *fz, int32_t *bad)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double *f[3] = {fx, fy, fz};
    const int si = species[i];
    for (int d = 0; d < 3; ++d) {
        const double body = sp.body_force[si][d];
        if (form == 2) {
            ((long long *)f[d])[i] = __double2ll_rn(body * VS_FIXED_PER_FORCE);
        } else if (form == 1) {
            f[d][i] = (double)__double2ll_rn(body * VS_FIXED_PER_FORCE) *
                      (1.0 / VS_FIXED_PER_FORCE);
        } else {
            const double zero = 0.0;
            f[d][i] = body + zero;
        }
    }
    if (form == 2 && i == 0)
        *bad = 0x7f7f7f7f;
}

/* An inert DPD term's evaluation: the forces started, no pair walk, no energies of its own
 * (the thermo's pair energy and virial are its walk's zeros). */
static void forces_start(vs_gpu_state *g, int want_energy)
{
    const int form = g->plan.forces == VS_GPU_FORCES_NEWTON ? 2 : g->plan.mixed ? 1 : 0;
    const int n = (int)g->pt.n_owned;
    if (form == 2)
        VS_CUDA_CHECK(cudaMemsetAsync(g->fs.d_bad_force, 0x7f, sizeof(int32_t), g->stream));
    VS_LAUNCH(forces_start_kernel, n, VS_BLOCK, g->stream, n, g->pt.species_id, g->species,
              form, g->pt.f[0], g->pt.f[1], g->pt.f[2], g->fs.d_bad_force);
    g->fs.forces_fixed = form == 2;
    g->fs.energy_count = 0;
    vs_gpu_forces_done(g, want_energy);
}

extern "C" void vs_gpu_forces(vs_gpu_state *g, int64_t step, int want_energy)
{
    if (g->plan.pair_inert) {
        forces_start(g, want_energy);
        return;
    }
    if (vs_gpu_styles_on_newton(g))
        vs_gpu_pair_prepare(g);
    /* a rebuild staged this step's inputs already (vs_gpu_build_neighbors) */
    if (g->plan.mixed && !vs_gpu_all_staged(g))
        vs_gpu_stage_positions(g);
    const int newton = g->plan.forces == VS_GPU_FORCES_NEWTON;
    if (want_energy) /* the energies' count: read the ghosts' number where it stayed */
        vs_gpu_settle_ghosts(g);
    if (g->halo.ghosts_on_device) /* the cell list holds every owned particle and ghost */
        compute_signatures_of(g, 0, vs_gpu_listed(g), vs_gpu_listed_estimate(g), step, newton);
    else
        compute_signatures(g, 0, g->pt.n_owned + g->pt.n_ghost, step, newton);
    if (newton) {
        vs_gpu_bonded_fork(g, want_energy); /* the sums are cleared: bonds may add beside */
        launch_newton_forces(g, step, want_energy);
    } else {
        launch_forces(g, g->stream, (int)g->pt.n_owned, NULL, step, want_energy);
        g->fs.energy_count = g->pt.n_owned;
        g->fs.forces_fixed = 0;
    }
    vs_gpu_forces_done(g, want_energy);
}

extern "C" int vs_gpu_can_overlap(const vs_gpu_state *g)
{
    return g->plan.overlap != VS_GPU_OVERLAP_NONE;
}

/* The overlap of the cell list (VS_GPU_OVERLAP_REMOTE_APART): the local images are refreshed,
 * then
 * the pairs among the listed particles (owned and local images) run on the bulk stream
 * while the remote ghosts travel in the step's stream, which then adds their pairs. Comm is
 * the local images' refresh and the exchange; hidden, the part of the exchange that ran
 * under the listed pairs. */
static void update_remote_and_forces(vs_gpu_state *g, int64_t step, int want_energy,
                                     double *comm_s, double *hidden_s)
{
    const int64_t n_listed = g->cells.n_listed, n_all = g->pt.n_owned + g->pt.n_ghost;
    if (vs_gpu_styles_on_newton(g)) /* before the bulk stream's wait */
        vs_gpu_pair_prepare(g);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_start, g->stream));
    vs_gpu_update_local_images(g);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_local, g->stream));
    const int64_t first = vs_gpu_owned_staged(g) ? g->pt.n_owned : 0; /* the first half-step's */
    vs_gpu_stage_range(g, first, n_listed - first);
    compute_signatures(g, 0, n_listed, step, 1);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_go, g->stream));
    VS_CUDA_CHECK(cudaStreamWaitEvent(g->ovl.bulk, g->ovl.ev_go, 0));
    launch_newton_part(g, g->ovl.bulk, 0, step, want_energy);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_interior, g->ovl.bulk));
    vs_gpu_update_remote_images(g);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_comm, g->stream));
    vs_gpu_stage_range(g, n_listed, n_all - n_listed);
    compute_signatures(g, n_listed, n_all - n_listed, step, 0);
    launch_newton_part(g, g->stream, 1, step, want_energy);
    VS_CUDA_CHECK(cudaStreamWaitEvent(g->stream, g->ovl.ev_interior, 0));
    vs_gpu_forces_done(g, want_energy);
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    float local_ms = 0.0f, exchange_ms = 0.0f, listed_ms = 0.0f;
    VS_CUDA_CHECK(cudaEventElapsedTime(&local_ms, g->ovl.ev_start, g->ovl.ev_local));
    VS_CUDA_CHECK(cudaEventElapsedTime(&exchange_ms, g->ovl.ev_go, g->ovl.ev_comm));
    VS_CUDA_CHECK(cudaEventElapsedTime(&listed_ms, g->ovl.ev_go, g->ovl.ev_interior));
    *comm_s = 1e-3 * ((double)local_ms + (double)exchange_ms);
    *hidden_s = 1e-3 * (double)(listed_ms < exchange_ms ? listed_ms : exchange_ms);
}

extern "C" void vs_gpu_update_ghosts_and_forces(vs_gpu_state *g, int64_t step,
                                                int want_energy, double *comm_s,
                                                double *hidden_s)
{
    vs_gpu_settle_owned(g); /* the other terms read the owned number on the host */
    if (g->plan.overlap == VS_GPU_OVERLAP_REMOTE_APART) {
        update_remote_and_forces(g, step, want_energy, comm_s, hidden_s);
        return;
    }
    const int mixed = g->plan.mixed;
    if (g->stamp.split != g->ver.list) /* once per list, and only for lists that are reused */
        vs_gpu_split_interior(g);
    /* interior particles need only owned inputs, staged before the ghosts move (by the
     * first half-step, unless something moved them since) */
    if (mixed && !vs_gpu_owned_staged(g))
        vs_gpu_stage_range(g, 0, g->pt.n_owned);
    compute_signatures(g, 0, g->pt.n_owned, step, 0);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_start, g->stream));
    VS_CUDA_CHECK(cudaStreamWaitEvent(g->ovl.bulk, g->ovl.ev_start, 0));
    launch_forces(g, g->ovl.bulk, (int)g->ovl.n_interior, g->ovl.split_idx, step, want_energy);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_interior, g->ovl.bulk));
    /* the ghost exchange runs in this stream while the interior forces run in the other;
     * its time is the device's, from the start to the ghosts unpacked */
    vs_gpu_update_ghosts(g);
    VS_CUDA_CHECK(cudaEventRecord(g->ovl.ev_comm, g->stream));
    if (mixed)
        vs_gpu_stage_range(g, g->pt.n_owned, g->pt.n_ghost);
    compute_signatures(g, g->pt.n_owned, g->pt.n_ghost, step, 0);
    launch_forces(g, g->stream, (int)g->ovl.n_border, g->ovl.split_idx + g->ovl.n_interior, step,
                  want_energy);
    vs_gpu_forces_done(g, want_energy);
    g->fs.energy_count = g->pt.n_owned;
    g->fs.forces_fixed = 0;
    VS_CUDA_CHECK(cudaStreamWaitEvent(g->stream, g->ovl.ev_interior, 0));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    float interior_ms = 0.0f, comm_ms = 0.0f;
    VS_CUDA_CHECK(cudaEventElapsedTime(&interior_ms, g->ovl.ev_start, g->ovl.ev_interior));
    VS_CUDA_CHECK(cudaEventElapsedTime(&comm_ms, g->ovl.ev_start, g->ovl.ev_comm));
    *comm_s = 1e-3 * (double)comm_ms;
    /* communication is hidden while the interior forces were still running */
    const double interior_s = 1e-3 * (double)interior_ms;
    *hidden_s = interior_s < *comm_s ? interior_s : *comm_s;
}

__global__ void interior_flag_kernel(int n, const int32_t *nlist, const int32_t *ncount,
                                     int64_t stride, uint8_t *interior)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int has_ghost = 0;
    const int count = ncount[i];
    for (int m = 0; m < count && !has_ghost; ++m)
        has_ghost = nlist[vs_list_slot(stride, i, m)] >= n; /* ghosts sit after the owned */
    interior[i] = (uint8_t)!has_ghost;
}

void vs_gpu_split_interior(vs_gpu_state *g)
{
    const int n = (int)g->pt.n_owned;
    g->stamp.split = g->ver.list;
    g->ovl.n_interior = g->ovl.n_border = 0;
    if (n == 0)
        return;
    /* the thread builder flags interior particles as it writes the list */
    if (g->plan.builder != VS_GPU_BUILDER_THREAD)
        VS_LAUNCH(interior_flag_kernel, n, VS_BLOCK, g->stream, n, g->cells.nlist, g->cells.ncount,
                  g->cells.nl_stride, g->ovl.interior_flag);
    /* one pass: interior particles in order at the front, border particles behind them */
    VS_CUDA_CHECK(cub::DevicePartition::Flagged(
        g->sort.cub_temp, g->sort.cub_temp_bytes, thrust::counting_iterator<int32_t>(0),
        g->ovl.interior_flag, g->ovl.split_idx, g->halo.d_select_count, n, g->stream));
    int32_t *h = (int32_t *)g->red.h_pinned;
    VS_CUDA_CHECK(cudaMemcpyAsync(h, g->halo.d_select_count, sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    g->ovl.n_interior = h[0];
    g->ovl.n_border = n - h[0];
}
