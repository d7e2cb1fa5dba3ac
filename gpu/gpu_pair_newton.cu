/* The conservative pair styles on the Newton walk (gpu_newton.cuh), with DPD's dissipative
 * and random forces beside them where DPD acts: one walk, one evaluation per pair, the
 * fixed-point sums and the overlap of the DPD fluid (the plan decides, gpu_plan.cu).
 *
 * A configuration of one style gets an evaluator fixed to it at compile time; several
 * styles share one that tries each active style in turn. Compiled apart from gpu_forces.cu
 * so that the two files build in parallel. */
#include "gpu_newton.cuh"

/* The styles' coefficients and tables on the device (NULL for the inactive styles). */
static vs_style_coeffs style_coeffs(const vs_gpu_state *g)
{
    vs_style_coeffs cs;
    for (int s = 0; s < VS_PAIR_STYLES; ++s)
        cs.coeff[s] = g->prm->pair.set->style[s].active ? g->ps.d_coeff[s] : NULL;
    cs.tables = g->ps.d_tables;
    return cs;
}

/* The one active style, or VS_PAIR_STYLES for several. */
static int the_style(const vs_params *p)
{
    int style = -1;
    for (int s = 0; s < VS_PAIR_STYLES; ++s)
        if (p->pair.set->style[s].active)
            style = style < 0 ? s : VS_PAIR_STYLES;
    return style;
}

void vs_gpu_newton_styles(vs_gpu_state *g, cudaStream_t stream, int remote, vs_tea_key key,
                          float cut2_quanta, int want_energy)
{
    const vs_style_coeffs cs = style_coeffs(g);
    const int gaussian = g->prm->dpd.random == VS_RANDOM_GAUSSIAN;
    /* without DPD, gamma per pair does not arise: dpd (0, 1, 2) = off, on, on with pairs */
    const int dpd_kind = vs_dpd_active(g->prm) ? 1 + g->dpd_pairs : 0;
    vs_dispatch<3, VS_PAIR_STYLES + 1>(
        [&](auto dpd, auto style) {
            constexpr int s = VS_VAL(style) == VS_PAIR_STYLES ? VS_PAIR_ANY : VS_VAL(style);
            constexpr bool pairs = VS_VAL(dpd) == 2;
            const vs_eval_dpd_t<true, pairs> dpd_ev = {key, gaussian, g->dpd_f, g->d_dpd_pairs};
            const vs_eval_styles<s, VS_ON(dpd), pairs> ev = {dpd_ev, cs};
            vs_newton_launch(g, stream, remote, ev, cut2_quanta, want_energy);
        },
        dpd_kind, the_style(g->prm));
}
