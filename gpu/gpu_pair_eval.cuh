/* The pair evaluators of the mixed-precision walks (gpu_newton.cuh): stateless functors that
 * turn one pair into its force, energy and virial, so that each walk, and the fixed-point
 * sums behind it, is written once for every pair style.
 *
 * An evaluator EV has
 *   - shared_t, the per-block table it reads (in shared memory; filled by load_shared from
 *     the species tables before the block's first __syncthreads);
 *   - partner_t and load_partner(in, j): what it reads of particle j beyond its position
 *     (loaded with the position, before the separation is computed);
 *   - operator()(shared, in, pi, ui, sig_i, j, pj, uj, dx, dy, dz, r2): the pair of
 *     particle i (position in quanta with the species in w, fp32 predicted velocity, RNG
 *     signature) with particle j (pj its position in quanta, uj what load_partner read), at
 *     separation r_i - r_j = (dx, dy, dz) and
 *     r2 = |r_ij|^2 (0 < r2 < the walk's cut-off, EV::cut2 of the largest reach), in fp32.
 *     It returns f_over_r (the force on i is f_over_r r_ij), the pair energy and the virial;
 *     its result must be symmetric in (i, j) to the last bit (the pair seen from j gives the
 *     exact negative force), which the walks rely on to take each pair once.
 *
 * The evaluators here: DPD (conservative, dissipative and random forces, dpd_pair.h), the
 * conservative styles (pair_styles.h; one style fixed at compile time, or every active
 * style), and DPD plus styles per species pair. A new conservative style is a header in
 * src/core and a line of VS_PAIR_STYLE_LIST (pair_styles.h): the evaluators dispatch over
 * that list, so it rides the walks, the overlap and the fixed-point sums unchanged. */
#ifndef VESICA_GPU_PAIR_EVAL_CUH
#define VESICA_GPU_PAIR_EVAL_CUH

#include "gpu_internal.cuh"

extern "C" {
#include "pair_styles.h"
}

/* The per-particle inputs of the mixed-precision force kernels (staged by
 * vs_gpu_stage_positions; sig by the signature pass). */
struct vs_mixed_inputs {
    const int4 *pos_q;    /* position in quanta, species in w */
    const float4 *vel_f;  /* predicted velocity */
    const uint64_t *sig;  /* pair-RNG signature at this step */
};

/* No per-block table, nothing more of the partner. */
struct vs_no_shared {
};
struct vs_no_partner {
};

/* DPD's amplitudes a_ij per block. */
struct vs_dpd_shared {
    double a[VS_MAX_SPECIES * VS_MAX_SPECIES];
};
/* The DPD pair: the random number from the pair's TEA bits, then the force (dpd_pair.h).
 * CUT: test r2 against DPD's own cut-off (the walk's is wider when a style reaches farther).
 * PAIRS: gamma and sigma per species pair, looked up by the pair's species as a_ij is, from
 * the device's vs_dpd_pair_table through the read-only cache (2 x 2 KiB: the Newton walk's
 * shared memory has no room for them beside a_ij); else the run's one value in cf, and the
 * code of a run without the matrix form. */
template <bool CUT, bool PAIRS = false>
struct vs_eval_dpd_t {
    typedef vs_dpd_shared shared_t;
    typedef float4 partner_t; /* the partner's predicted velocity */
    vs_tea_key key;
    int gaussian;
    vs_dpd_consts_f cf;
    const double *pairs; /* PAIRS: gamma_ij then sigma_ij / sqrt(dt), 16 x 16 each */

    __device__ __forceinline__ void load_shared(shared_t &s, const vs_gpu_species &sp) const
    {
        for (int k = threadIdx.x; k < sp.n * VS_MAX_SPECIES; k += blockDim.x)
            s.a[k] = sp.a[k / VS_MAX_SPECIES][k % VS_MAX_SPECIES];
    }

    __device__ __forceinline__ partner_t load_partner(const vs_mixed_inputs &in, int j) const
    {
        return in.vel_f[j];
    }

    __device__ __forceinline__ vs_pair_result_f operator()(const shared_t &s,
                                                           const vs_mixed_inputs &in,
                                                           const int4 &pi, const float4 &ui,
                                                           uint64_t sig_i, int j, const int4 &pj,
                                                           const partner_t &uj, float dx,
                                                           float dy, float dz, float r2) const
    {
        if (CUT && !(r2 < cf.rc2)) {
            vs_pair_result_f none = {0.0f, 0.0f, 0.0f};
            return none;
        }
        /* the random number first, then the amplitude's load, in this order (the other
         * order changes the instruction schedule of every force kernel) */
        const float xi = (float)vs_dpd_xi(key, sig_i, in.sig[j], gaussian);
        if constexpr (PAIRS) {
            const int k = pi.w * VS_MAX_SPECIES + pj.w;
            const float gamma = (float)__ldg(pairs + k);
            const float sigma = (float)__ldg(pairs + VS_MAX_SPECIES * VS_MAX_SPECIES + k);
            return vs_dpd_pair_gs_f(&cf, r2, dx, dy, dz, ui.x - uj.x, ui.y - uj.y, ui.z - uj.z,
                                    (float)s.a[k], gamma, sigma, xi);
        } else {
            return vs_dpd_pair_f(&cf, r2, dx, dy, dz, ui.x - uj.x, ui.y - uj.y, ui.z - uj.z,
                                 (float)s.a[pi.w * VS_MAX_SPECIES + pj.w], xi);
        }
    }
};
typedef vs_eval_dpd_t<false> vs_eval_dpd;

/* Every active style in turn (a uniform branch per style), for configurations of several. */
#define VS_PAIR_ANY (-1)

/* The conservative styles on the device: coefficients (16 x 16 per style, NULL for an
 * inactive style) and tables. */
struct vs_style_coeffs {
    const vs_pair_coeff *coeff[VS_PAIR_STYLES];
    const vs_pair_table *tables;
};

/* Style s of species pair k at r2, added to acc when the species pair interacts within its
 * own cut-off. */
__device__ __forceinline__ void vs_style_add(const vs_style_coeffs &cs, int s, int k, float r2,
                                             vs_pair_result_f &acc)
{
    const vs_pair_coeff *c = cs.coeff[s] + k;
    if (!c->on || !(r2 < (float)c->rc2))
        return;
    const vs_pair_result_f r = vs_pair_style_eval_f(s, c, cs.tables, r2);
    acc.f_over_r += r.f_over_r;
    acc.energy += r.energy;
    acc.virial += r.virial;
}

/* The conservative styles (STYLE one of vs_pair_style, or VS_PAIR_ANY), with DPD's
 * dissipative and random forces (and its conservative one where a_ij is not zero) when
 * WITH_DPD (PAIRS: with gamma per species pair). */
template <int STYLE, bool WITH_DPD, bool PAIRS = false>
struct vs_eval_styles {
    typedef typename std::conditional<WITH_DPD, vs_dpd_shared, vs_no_shared>::type shared_t;
    typedef typename std::conditional<WITH_DPD, float4, vs_no_partner>::type partner_t;
    vs_eval_dpd_t<true, PAIRS> dpd; /* WITH_DPD only */
    vs_style_coeffs cs;

    __device__ __forceinline__ void load_shared(shared_t &s, const vs_gpu_species &sp) const
    {
        if constexpr (WITH_DPD)
            dpd.load_shared(s, sp);
    }

    __device__ __forceinline__ partner_t load_partner(const vs_mixed_inputs &in, int j) const
    {
        if constexpr (WITH_DPD)
            return dpd.load_partner(in, j);
        else
            return partner_t();
    }

    __device__ __forceinline__ vs_pair_result_f operator()(const shared_t &s,
                                                           const vs_mixed_inputs &in,
                                                           const int4 &pi, const float4 &ui,
                                                           uint64_t sig_i, int j, const int4 &pj,
                                                           const partner_t &uj, float dx,
                                                           float dy, float dz, float r2) const
    {
        vs_pair_result_f acc = {0.0f, 0.0f, 0.0f};
        if constexpr (WITH_DPD)
            acc = dpd(s, in, pi, ui, sig_i, j, pj, uj, dx, dy, dz, r2);
        const int k = pi.w * VS_MAX_SPECIES + pj.w;
        if constexpr (STYLE >= 0) {
            vs_style_add(cs, STYLE, k, r2, acc);
        } else {
#pragma unroll
            for (int st = 0; st < VS_PAIR_STYLES; ++st)
                if (cs.coeff[st])
                    vs_style_add(cs, st, k, r2, acc);
        }
        return acc;
    }
};

#endif
