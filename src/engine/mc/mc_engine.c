/* The Monte Carlo engine: set-up, the cycle, the tuning, the observables (mc_engine.h). */
#include "mc_engine.h"

#include "mc_domain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vs_mc_init(vs_mc_state *s, const vs_params *prm)
{
    memset(s, 0, sizeof *s);
    s->prm = prm;
    vs_mc_pairs_init(&s->pairs, prm);
    s->n_boxes = prm->mc.ensemble == VS_MC_GIBBS || prm->mc.ensemble == VS_MC_GIBBS_NPT ? 2 : 1;
    const int64_t n[2] = {prm->system.n_particles, prm->mc.particles2};
    for (int b = 0; b < s->n_boxes; ++b)
        if (vs_mc_box_init(&s->box[b], b ? prm->mc.box2 : prm->system.box, n[0] + n[1] + 1,
                           &s->pairs))
            return -1;
    s->pr.max_disp[0] = s->pr.max_disp[1] = prm->mc.max_displacement;
    s->pr.max_dlnv[0] = s->pr.max_dlnv[1] = prm->mc.max_log_volume;
    s->pr.next_tag = n[0] + (s->n_boxes > 1 ? n[1] : 0);
    return prm->mc.sweep == VS_MC_SWEEP_CHECKERBOARD ? vs_mc_sweep_init(s) : 0;
}

void vs_mc_free(vs_mc_state *s)
{
    for (int b = 0; b < VS_MC_MAX_BOXES; ++b)
        vs_mc_box_free(&s->box[b]);
    free(s->scratch);
    s->scratch = NULL;
    vs_mc_sweep_free(s);
    vs_mc_domain_close(s);
}

void vs_mc_refresh(vs_mc_state *s)
{
    for (int b = 0; b < s->n_boxes; ++b)
        s->box[b].pair_energy = vs_mc_energy_box(s, b, NULL);
}

/* The species of tag t of n: blocks of tags in the order of the species, sized by their
 * fractions (the last block takes the rounding). */
static int32_t species_of(const vs_params *prm, int64_t t, int64_t n)
{
    double cum = 0.0;
    for (int k = 0; k < prm->species.n - 1; ++k) {
        cum += prm->species.list[k].fraction;
        if ((double)t < floor(cum * (double)n + 0.5))
            return k;
    }
    return prm->species.n - 1;
}

int vs_mc_fill_lattice(vs_mc_state *s)
{
    const int64_t n[2] = {s->prm->system.n_particles, s->prm->mc.particles2};
    const int64_t n_all = n[0] + (s->n_boxes > 1 ? n[1] : 0);
    int64_t tag = 0;
    for (int bi = 0; bi < s->n_boxes; ++bi) {
        vs_mc_box *b = &s->box[bi];
        if (n[bi] == 0 || vs_mc_n(s, bi) > 0) { /* filled already (an input file) */
            tag += vs_mc_n(s, bi);
            continue;
        }
        /* sites per axis from the spacing of the cube per particle, grown until they hold n */
        const double a = cbrt(vs_mc_volume(b) / (double)n[bi]);
        int64_t m[3];
        for (int d = 0; d < 3; ++d)
            m[d] = (int64_t)ceil(b->L[d] / a - 1e-9);
        while (m[0] * m[1] * m[2] < n[bi]) {
            int d = m[0] * b->L[1] <= m[1] * b->L[0] ? 0 : 1; /* the coarsest axis */
            d = m[d] * b->L[2] <= m[2] * b->L[d] ? d : 2;
            m[d]++;
        }
        if (!s->dom && vs_mc_box_reserve(b, n[bi]))
            return -1;
        for (int64_t k = 0; k < n[bi]; ++k, ++tag) {
            if (s->dom && !vs_mc_domain_keeps(s, k, n[bi])) /* another rank's part */
                continue;
            const int64_t q[3] = {k % m[0], (k / m[0]) % m[1], k / (m[0] * m[1])};
            double x[3];
            for (int d = 0; d < 3; ++d)
                x[d] = ((double)q[d] + 0.5) * b->L[d] / (double)m[d];
            if (!s->dom)
                vs_mc_box_append(b, x, species_of(s->prm, tag, n_all), tag);
            else if (vs_mc_domain_append(s, bi, x, species_of(s->prm, tag, n_all), tag, k))
                return -1;
        }
    }
    if (s->dom)
        vs_mc_domain_recount(s);
    return 0;
}

void vs_mc_set_cycle_length(vs_mc_state *s)
{
    const int64_t n = vs_mc_n(s, 0) + (s->n_boxes > 1 ? vs_mc_n(s, 1) : 0);
    s->pr.moves_per_cycle = s->prm->mc.moves_per_cycle > 0 ? s->prm->mc.moves_per_cycle : n;
    if (s->pr.moves_per_cycle < 1)
        s->pr.moves_per_cycle = 1;
}

/* New step sizes from the acceptance since the last tuning: scaled by acceptance / target
 * (within [0.5, 2] per tuning), a displacement at most half the shortest edge. */
static double retune(double step, int64_t att, int64_t acc, double target, double most)
{
    if (att == 0)
        return step;
    double f = ((double)acc / (double)att) / target;
    f = f < 0.5 ? 0.5 : (f > 2.0 ? 2.0 : f);
    step *= f;
    return step < most ? step : most;
}

static void tune(vs_mc_state *s)
{
    const vs_mc_counts *t = &s->pr.total, *o = &s->pr.at_tune;
    const double target = s->prm->mc.target_acceptance;
    for (int b = 0; b < s->n_boxes; ++b) {
        const double *L = s->box[b].L;
        const double half = 0.5 * fmin(L[0], fmin(L[1], L[2]));
        s->pr.max_disp[b] = retune(s->pr.max_disp[b],
                                   t->attempted[VS_MC_DISPLACE][b] - o->attempted[VS_MC_DISPLACE][b],
                                   t->accepted[VS_MC_DISPLACE][b] - o->accepted[VS_MC_DISPLACE][b],
                                   target, half);
    }
    /* a log-volume step per box, on that box's volume moves (a gibbs volume exchange counts
     * as box 0's, so box 1's step is untouched there): two boxes of a gibbs_npt run, a dense
     * liquid and a dilute vapour, accept the same step at very different rates */
    for (int b = 0; b < s->n_boxes; ++b)
        s->pr.max_dlnv[b] = retune(s->pr.max_dlnv[b],
                                   t->attempted[VS_MC_VOLUME][b] - o->attempted[VS_MC_VOLUME][b],
                                   t->accepted[VS_MC_VOLUME][b] - o->accepted[VS_MC_VOLUME][b],
                                   target, 1.0);
    s->pr.at_tune = s->pr.total;
}

int vs_mc_cycle(vs_mc_state *s)
{
    if (s->prm->mc.sweep == VS_MC_SWEEP_CHECKERBOARD) {
        if (vs_mc_checkerboard_moves(s, s->err, sizeof s->err))
            return -1;
    } else {
        for (int64_t m = 0; m < s->pr.moves_per_cycle; ++m)
            if (vs_mc_attempt(s, m)) {
                snprintf(s->err, sizeof s->err, "out of memory growing a box");
                return -1;
            }
    }
    s->pr.cycle++;
    if (s->pr.cycle <= s->prm->mc.equilibration && s->pr.cycle % s->prm->mc.tune_every == 0)
        tune(s);
    return 0;
}

vs_mc_box_obs vs_mc_observe(const vs_mc_state *s, int bi)
{
    const vs_mc_box *b = &s->box[bi];
    vs_mc_box_obs o;
    double w = 0.0, e_tail, w_tail;
    const vs_wide e = vs_mc_energy_box(s, bi, &w);
    o.n = vs_mc_n(s, bi);
    o.volume = vs_mc_volume(b);
    o.density = (double)o.n / o.volume;
    vs_mc_tail(b, &s->pairs, vs_mc_count(s, bi), o.volume, &e_tail, &w_tail);
    o.energy = vs_wide_to_double(e) + e_tail;
    o.pressure = o.density * s->prm->mc.kT + (w + w_tail) / (3.0 * o.volume);
    memcpy(o.count, vs_mc_count(s, bi), sizeof o.count);
    return o;
}
