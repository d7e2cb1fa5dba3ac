/* The conservative pair styles on the device (lj, soft, gaussian, table) off the Newton
 * walk: the same pairs as the CPU loop (src/cpu/pair_cpu.c) from the same evaluator
 * (src/core/pair_styles.h). In mixed precision the plan puts short-ranged styles without
 * special factors on the Newton walk (gpu_newton.cuh, gpu_pair_newton.cu; gpu_plan.cu says
 * when); what remains comes here: double precision, special factors, long reaches, and the
 * thread or warp builders.
 *
 * One launch per style and step, after DPD's, of the walk from both sides (gpu_both_sides.cuh,
 * the style's side below): one thread per owned particle walks its partners in a fixed
 * order and evaluates every pair from its own side, so runs are bit-reproducible without
 * atomics.
 *   - double: separations and pair arithmetic in fp64 (this file is compiled without fused
 *     multiply-adds, as the CPU rounds);
 *   - mixed: separations in fp64 (on the position grid: exact integer differences of quanta),
 *     rounded to fp32, the pair in fp32 from coefficients rounded to float once
 *     (vs_pair_style_eval_cf), the sum in fp64.
 * The particle's sum is added to its force as one double, or, where the Newton kernel left
 * fixed-point sums (mixed precision, cell list), as one rounded fixed-point add. When DPD is
 * inactive the first pair style starts the forces: the body force plus its sum, as doubles.
 *
 * Energies and virials: half of each pair per side (an owned-ghost pair's other half is the
 * ghost owner's) into per-particle buffers of this file, the first active style writing and
 * the others adding; the thermo reduction (gpu_reduce.cu) adds them to the pair energy and
 * the virial. Coefficients (16 x 16 per style) and tables go to the device on first use.
 */
#include "gpu_both_sides.cuh"
#include "gpu_dispatch.cuh"
#include "gpu_internal.cuh"
#include "gpu_partners.cuh"

extern "C" {
#include "pair_styles.h"
}

/* k exactly as a double, on the fp64 pipe: the bits of 2^52 + 2^31 + k less 2^52 + 2^31 (a
 * conversion instruction takes the XU pipe, which the pair walk also needs for reciprocals
 * and their sums' conversions). */
__device__ __forceinline__ double vs_int_to_double(int k)
{
    return __dsub_rn(__hiloint2double(0x43300000, (int)((unsigned)k ^ 0x80000000u)),
                     4503601774854144.0);
}

/* The special factors of a style by level (0: not special, factor 1). */
struct vs_special_factors {
    double f[4];
    const int64_t *tag;
    const vs_special *list;
};

struct vs_style_self {
    int i, si;
    int row;        /* the first coefficient of the particle's species row */
    double x, y, z; /* off the grid */
    int4 q;         /* on the grid: the position in quanta */
};
struct vs_style_sum {
    double ax, ay, az, e, w;
    long long t[VS_TENSOR]; /* tensor shares (output.pressure_tensor; gpu_tensor.cuh) */
};

/* One conservative style on the walk from both sides (gpu_both_sides.cuh), each candidate
 * evaluated in the walk:
 *   - double: separations and pair arithmetic in fp64 (vs_pair_style_eval);
 *   - mixed: separations in fp64 (visit_grid on the position grid), rounded to fp32, the
 *     pair in fp32 (vs_pair_style_eval_cf), the sum in fp64.
 * SPECIAL: the pair's factor by its special level scales force, energy and virial (factor
 * 0: excluded, nothing). The coefficients of the species present are copied to shared
 * memory (dynamic: their size depends on the number of species). */
template <bool MIXED, bool SPECIAL, bool TENSOR = false>
struct vs_side_style {
    /* mixed: the coefficients rounded to float once (the same bits as rounding each use) */
    typedef typename std::conditional<MIXED, vs_pair_coeff_f, vs_pair_coeff>::type shared_t;
    typedef vs_style_self self_t;
    typedef vs_style_sum sum_t;
    static constexpr int queue = 0;
    static constexpr bool subsets = false;
    static constexpr bool preload_list = MIXED; /* the grid positions, four at a time */
    int style, n_species;
    const vs_pair_coeff *coeff;
    const vs_pair_table *tables;
    vs_positions at;
    const int32_t *species;
    vs_special_factors special;
    vs_tensor_out tensor; /* TENSOR: the sums (gpu_tensor.cuh) of the pairs' halves */

    /* the factors by level, read at a level known per pair: from shared memory, where an
     * index into the parameters would hold their address in registers */
    static __device__ __forceinline__ double *special_factor()
    {
        __shared__ double factor[4];
        return factor;
    }

    /* The coefficients in the block's dynamic shared memory, under one name per element
     * type: indexed through this typed array, the loads stay shared (through a pointer kept
     * in the particle's registers they became generic). */
    static __device__ __forceinline__ shared_t *coeff_table()
    {
        if constexpr (MIXED) {
            extern __shared__ vs_pair_coeff_f shared_coeff_f[];
            return shared_coeff_f;
        } else {
            extern __shared__ vs_pair_coeff shared_coeff[];
            return shared_coeff;
        }
    }

    __device__ __forceinline__ shared_t &load_shared(const vs_gpu_species &) const
    {
        shared_t *table = coeff_table();
        for (int k = threadIdx.x; k < n_species * VS_MAX_SPECIES; k += blockDim.x) {
            if constexpr (MIXED)
                table[k] = vs_pair_coeff_rounded(&coeff[k]); /* the same bits as each use's cast */
            else
                table[k] = coeff[k];
        }
        if (SPECIAL && threadIdx.x < 4)
            special_factor()[threadIdx.x] = special.f[threadIdx.x];
        return table[0];
    }

    __device__ __forceinline__ self_t self(const shared_t &, int i) const
    {
        self_t me;
        me.i = i;
        me.si = species[i];
        me.row = me.si * VS_MAX_SPECIES;
        if (MIXED && !at.x[0]) {
            me.q = at.q[i];
            return me;
        }
        double ri[3];
        vs_pos_load(at, i, ri);
        me.x = ri[0];
        me.y = ri[1];
        me.z = ri[2];
        return me;
    }

    /* the positions a list walk loads for visit (on the grid only) */
    __device__ __forceinline__ const int4 *list_positions() const
    {
        return at.x[0] ? nullptr : at.q;
    }

    /* The pair's special factor into sf (1 without SPECIAL); false when it excludes the
     * pair (factor 0: no force, energy or virial). */
    __device__ __forceinline__ bool special_scale(const self_t &me, int j, double &sf) const
    {
        sf = 1.0;
        if (SPECIAL)
            sf = special_factor()[vs_special_level(&special.list[me.i], special.tag[j])];
        return sf != 0.0;
    }

    /* Mixed precision: the pair at r^2 and the fp32 separation, scaled by sf, into the sums. */
    template <bool ENERGY>
    __device__ __forceinline__ void add_mixed(const shared_t &c, float r2, float dx, float dy,
                                              float dz, double sf, sum_t &sum) const
    {
        vs_pair_result_f r = vs_pair_style_eval_cf(style, &c, tables, r2);
        if (SPECIAL) {
            r.f_over_r *= (float)sf;
            r.energy *= (float)sf;
            r.virial *= (float)sf;
        }
        sum.ax += (double)(r.f_over_r * dx);
        sum.ay += (double)(r.f_over_r * dy);
        sum.az += (double)(r.f_over_r * dz);
        if (ENERGY) {
            sum.e += 0.5 * (double)r.energy;
            sum.w += 0.5 * (double)r.virial;
            if constexpr (TENSOR) {
                long long t[VS_TENSOR];
                vs_tensor_pair_shares_f(r.f_over_r * dx, r.f_over_r * dy, r.f_over_r * dz, dx,
                                        dy, dz, t, tensor.bad);
                for (int k = 0; k < VS_TENSOR; ++k)
                    sum.t[k] += t[k];
            }
        }
    }

    /* Mixed precision on the grid (positions in pos_q alone; q is j's): both positions are
     * whole numbers of quanta from a centre that is one too, so the fp64 separation of the
     * dequantized positions is exactly (q_i - q_j) times the quantum, a power of two: r^2 in
     * quanta^2, rounded as ((x^2 + y^2) + z^2) in fp64, then scaled, is that separation's
     * r^2 to the bit, and the fp32 separation its rounding. No conversion instruction per
     * candidate (they share one pipe with the pair's reciprocal and its sums' conversions);
     * the species is the fourth word of the position's load. */
    template <bool ENERGY>
    __device__ __forceinline__ void visit_grid(const self_t &me, int j, const int4 &q,
                                               sum_t &sum) const
    {
        const int dq[3] = {(int)((unsigned)me.q.x - (unsigned)q.x),
                           (int)((unsigned)me.q.y - (unsigned)q.y),
                           (int)((unsigned)me.q.z - (unsigned)q.z)};
        const shared_t &c = coeff_table()[me.row + q.w];
        const double quantum = (double)at.frame.quantum;
        const double r2 = vs_norm2(vs_int_to_double(dq[0]), vs_int_to_double(dq[1]),
                                   vs_int_to_double(dq[2])) *
                          (quantum * quantum);
        double sf;
        if (!c.on || !(r2 < c.rc2) || r2 == 0.0 || !special_scale(me, j, sf))
            return;
        add_mixed<ENERGY>(c, (float)r2, vs_separation(at.frame, me.q.x, q.x),
                          vs_separation(at.frame, me.q.y, q.y),
                          vs_separation(at.frame, me.q.z, q.z), sf, sum);
    }

    template <bool ENERGY, bool PRELOADED>
    __device__ __forceinline__ void visit(const shared_t &, const self_t &me, int j,
                                          const int4 &entry, sum_t &sum) const
    {
        if constexpr (MIXED) {
            if (!at.x[0]) {
                visit_grid<ENERGY>(me, j, PRELOADED ? entry : at.q[j], sum);
                return;
            }
        }
        /* fp64 positions (double precision, or mixed off the grid) */
        double rj[3];
        vs_pos_load(at, j, rj);
        const shared_t &c = coeff_table()[me.row + species[j]];
        const double dx = me.x - rj[0], dy = me.y - rj[1], dz = me.z - rj[2];
        const double r2 = dx * dx + dy * dy + dz * dz;
        double sf;
        if (!c.on || !(r2 < c.rc2) || r2 == 0.0 || !special_scale(me, j, sf))
            return;
        if constexpr (MIXED) {
            add_mixed<ENERGY>(c, (float)r2, (float)dx, (float)dy, (float)dz, sf, sum);
        } else {
            vs_pair_result r = vs_pair_style_eval(style, &c, tables, r2);
            if (SPECIAL) {
                r.f_over_r *= sf;
                r.energy *= sf;
                r.virial *= sf;
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

    template <bool ENERGY, int MODE>
    __device__ __forceinline__ void store(const vs_gpu_species &sp, const self_t &me, int i,
                                          const sum_t &sum, const vs_both_sides_out &out) const
    {
        vs_both_sides_store<ENERGY, MODE>(sp, i, me.si, sum.ax, sum.ay, sum.az, sum.e, sum.w,
                                          out);
        if constexpr (ENERGY && TENSOR)
            vs_tensor_add_own(tensor, i, sum.t);
    }
};

/* Coefficients and tables on the device, once. */
void vs_gpu_pair_prepare(vs_gpu_state *g)
{
    vs_gpu_pair *ps = &g->ps;
    if (!ps->d_coeff[0]) {
        const size_t bytes = sizeof(vs_pair_coeff) * VS_MAX_SPECIES * VS_MAX_SPECIES;
        for (int s = 0; s < VS_PAIR_STYLES; ++s) {
            ps->d_coeff[s] = (vs_pair_coeff *)vs_gpu_alloc(g, bytes);
            VS_CUDA_CHECK(cudaMemcpyAsync(ps->d_coeff[s], g->prm->pair.set->style[s].c, bytes,
                                          cudaMemcpyHostToDevice, g->stream));
        }
        const int nt = g->prm->pair.set->n_tables > 0 ? g->prm->pair.set->n_tables : 1;
        ps->d_tables = (vs_pair_table *)vs_gpu_alloc(g, sizeof(vs_pair_table) * (size_t)nt);
        /* on the step's stream (non-blocking): the kernels after it see the copies */
        VS_CUDA_CHECK(cudaMemcpyAsync(ps->d_tables, g->prm->pair.set->tables,
                                      sizeof(vs_pair_table) * (size_t)nt,
                                      cudaMemcpyHostToDevice, g->stream));
    }
}

/* The energy buffers of the walk from both sides, grown to the owned particles (the
 * anisotropic style's walk shares them, gpu_aniso.cu). */
void vs_gpu_pair_energy_reserve(vs_gpu_state *g)
{
    vs_gpu_pair *ps = &g->ps;
    if (g->pt.n_owned > ps->cap) {
        vs_gpu_free(g, ps->e, sizeof(double) * (size_t)ps->cap);
        vs_gpu_free(g, ps->w, sizeof(double) * (size_t)ps->cap);
        ps->cap = g->pt.n_owned + g->pt.n_owned / 4 + 1024;
        ps->e = (double *)vs_gpu_alloc(g, sizeof(double) * (size_t)ps->cap);
        ps->w = (double *)vs_gpu_alloc(g, sizeof(double) * (size_t)ps->cap);
    }
}

/* The lowest active style (it writes the energy buffers; with DPD inactive it also starts
 * the forces). */
static int first_style(const vs_params *p)
{
    for (int s = 0; s < VS_PAIR_STYLES; ++s)
        if (p->pair.set->style[s].active)
            return s;
    return -1;
}

extern "C" void vs_gpu_pair_style_forces(vs_gpu_state *g, int style, int want_energy)
{
    vs_gpu_settle_owned(g); /* the other terms read the owned number on the host */
    const int first = style == first_style(g->prm);
    if (vs_gpu_styles_on_newton(g)) {
        /* DPD's call evaluated every style already; where DPD does not act, the first
         * style's call evaluates them all (no random numbers: any step's key will do) */
        if (first && !vs_dpd_active(g->prm))
            vs_gpu_forces(g, 0, want_energy);
        return;
    }
    vs_gpu_pair_prepare(g);
    vs_gpu_pair_energy_reserve(g);
    const int n = (int)g->pt.n_owned;
    const int starts = first && !vs_dpd_active(g->prm);
    const int mode = starts ? 0 : (g->fs.forces_fixed ? 2 : 1);
    const int mixed = g->plan.mixed, cells = g->plan.forces != VS_GPU_FORCES_VERLET;
    const vs_partner_source src = vs_gpu_partner_source(g);
    const size_t shared = sizeof(vs_pair_coeff) * (size_t)g->prm->species.n * VS_MAX_SPECIES;
    const vs_pair_style_params *psp = &g->prm->pair.set->style[style];
    const int with_special = psp->special && g->ps.special_on;
    const vs_special_factors special = {{1.0, psp->special_factor[0], psp->special_factor[1],
                                         psp->special_factor[2]},
                                        g->pt.tag, g->ps.special};
    const vs_both_sides_out out = {{g->pt.f[0], g->pt.f[1], g->pt.f[2]}, g->ps.e, g->ps.w,
                                   !first, g->fs.d_bad_force};
    const vs_tensor_out tensor = vs_gpu_tensor_out(g, want_energy);
    const int energy_kind = want_energy ? (tensor.w[0] ? 2 : 1) : 0; /* and the tensor: 2 */
    vs_dispatch<2, 3, 2, 3, 2>(
        [&](auto m, auto energy, auto cells_c, auto mode_c, auto special_c) {
            typedef vs_side_style<VS_ON(m), VS_ON(special_c), VS_VAL(energy) == 2> side_t;
            const side_t side = {style,          g->prm->species.n, g->ps.d_coeff[style],
                                 g->ps.d_tables, vs_gpu_positions(g), g->pt.species_id,
                                 special, tensor};
            vs_both_sides_launch<side_t, VS_ON(energy), VS_ON(cells_c), false, VS_VAL(mode_c)>(
                side, g->stream, n, NULL, src, g->species, out, shared);
        },
        mixed, energy_kind, cells, mode, with_special);
    g->ps.energies_on = 1;
    if (starts) { /* no DPD kernel ran: none of its energies, and the forces are doubles */
        g->fs.forces_fixed = 0;
        g->fs.energy_count = 0;
        vs_gpu_forces_done(g, want_energy);
    }
}

/* The Morton reorder: the special lists follow their particles (word by word, as the
 * topology does). */
static_assert(sizeof(vs_special) % sizeof(uint64_t) == 0, "vs_special is permuted in words");

void vs_gpu_special_permute(vs_gpu_state *g, int n)
{
    if (g->ps.special_on)
        vs_gpu_permute_words(g, n, g->ps.special, sizeof(vs_special));
}

void vs_gpu_pair_free(vs_gpu_state *g)
{
    void *ptrs[] = {g->ps.e, g->ps.w, g->ps.d_tables, g->ps.d_coeff[0], g->ps.d_coeff[1],
                    g->ps.d_coeff[2], g->ps.d_coeff[3], g->ps.special};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k)
        if (ptrs[k])
            cudaFree(ptrs[k]);
}
