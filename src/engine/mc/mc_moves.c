/* The Monte Carlo moves: see mc_engine.h. Each move draws its numbers from
 * vs_mc_draw(cycle, move, k), k = 0 the kind and the pick, then the move's own draws, and
 * accepts when ln u < ln(acceptance ratio) (Metropolis). Energies are differences of exact
 * fixed-point sums (mc_box.h) plus the change of the long-range corrections.
 *
 * The acceptance ratios (Frenkel & Smit, Understanding Molecular Simulation, ch. 5 and 8):
 *   displacement          exp(-beta dU)
 *   npt, ln V move        exp(-beta (dU + P dV) + (N + 1) ln(V'/V))
 *   gcmc insertion        z V / (N + 1) exp(-beta dU)
 *   gcmc deletion         N / (z V) exp(-beta dU)
 *   gibbs ln(V1/V2) move  exp(-beta dU + (N1 + 1) ln(V1'/V1) + (N2 + 1) ln(V2'/V2))
 *   gibbs transfer a->b   N_a V_b / ((N_b + 1) V_a) exp(-beta dU)
 *   gibbs_npt, ln V_b     the npt move of box b (either box, half each; N: box b's; box
 *                         b's own step)
 *   gibbs_npt, a->b of k  N_a,k V_b / ((N_b,k + 1) V_a) exp(-beta dU)
 * (Panagiotopoulos et al., Mol. Phys. 63, 527 (1988) for the Gibbs ensembles). A gibbs_npt
 * transfer picks a species uniformly, then a particle of it in the source box: a minority
 * species of a mixture is offered as many transfers as the majority, where a pick among all
 * particles would try it in proportion to its share.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mc_engine.h"
#include "tea_rng.h"

#define VS_MC_STREAM 0x4dull /* top byte of the cycle word: the Monte Carlo draws */

void vs_mc_draw(const vs_params *prm, int64_t c, int64_t m, unsigned k, double u[2])
{
    const vs_tea_key key =
        vs_tea_make_key(prm->system.seed, (VS_MC_STREAM << 56) ^ (uint64_t)c);
    const uint64_t mm = (uint64_t)m;
    const vs_tea_block b =
        vs_tea_encrypt(key, (uint32_t)mm, (uint32_t)((mm >> 32) << 8) | (k & 0xffu));
    u[0] = vs_u32_to_open_unit(b.v0);
    u[1] = vs_u32_to_open_unit(b.v1);
}

static int64_t pick(double u, int64_t n)
{
    const int64_t i = (int64_t)(u * (double)n);
    return i < n ? i : n - 1;
}

static int accept(double ln_ratio, double u)
{
    return ln_ratio >= 0.0 || log(u) < ln_ratio;
}

static double tail_energy(const vs_mc_state *s, const vs_mc_box *b, const int64_t *count,
                          double volume)
{
    double e, w;
    vs_mc_tail(b, &s->pairs, count, volume, &e, &w);
    return e;
}

static int displace(vs_mc_state *s, int64_t m, double pick_u)
{
    const int64_t n_all = s->box[0].n + (s->n_boxes > 1 ? s->box[1].n : 0);
    if (n_all == 0)
        return 0;
    int64_t i = pick(pick_u, n_all);
    const int bi = i < s->box[0].n ? 0 : 1;
    vs_mc_box *b = &s->box[bi];
    i -= bi ? s->box[0].n : 0;
    double u1[2], u2[2];
    vs_mc_draw(s->prm, s->pr.cycle, m, 1, u1);
    vs_mc_draw(s->prm, s->pr.cycle, m, 2, u2);
    const double d = s->pr.max_disp[bi];
    const double *x = &b->x[3 * i];
    double y[3] = {x[0] + d * (2 * u1[0] - 1), x[1] + d * (2 * u1[1] - 1),
                   x[2] + d * (2 * u2[0] - 1)};
    for (int k = 0; k < 3; ++k)
        y[k] -= b->L[k] * floor(y[k] / b->L[k]);
    for (int k = 0; k < 3; ++k)
        y[k] = y[k] < b->L[k] ? y[k] : 0.0;
    vs_wide e_old, e_new;
    vs_mc_energy_move(b, &s->pairs, i, y, &e_old, &e_new);
    s->pr.total.attempted[VS_MC_DISPLACE][bi]++;
    if (!accept(-vs_wide_to_double(e_new - e_old) / s->prm->mc.kT, u2[1]))
        return 0;
    vs_mc_box_move(b, i, y);
    b->pair_energy += e_new - e_old;
    s->pr.total.accepted[VS_MC_DISPLACE][bi]++;
    return 0;
}

/* Scale box b's positions and edges by f per axis (saving the old positions first when
 * save). */
static int scale_box(vs_mc_state *s, int bi, double f, int save)
{
    vs_mc_box *b = &s->box[bi];
    if (save)
        memcpy(s->scratch + (bi ? 3 * s->box[0].n : 0), b->x, 3 * (size_t)b->n * sizeof(double));
    for (int64_t k = 0; k < 3 * b->n; ++k)
        b->x[k] *= f;
    const double L[3] = {b->L[0] * f, b->L[1] * f, b->L[2] * f};
    return vs_mc_box_set_edges(b, L, &s->pairs);
}

static int restore_box(vs_mc_state *s, int bi, const double L[3])
{
    vs_mc_box *b = &s->box[bi];
    memcpy(b->x, s->scratch + (bi ? 3 * s->box[0].n : 0), 3 * (size_t)b->n * sizeof(double));
    return vs_mc_box_set_edges(b, L, &s->pairs);
}

static int ensure_scratch(vs_mc_state *s)
{
    const int64_t need = 3 * (s->box[0].cap + (s->n_boxes > 1 ? s->box[1].cap : 0));
    if (need <= s->scratch_cap)
        return 0;
    double *q = realloc(s->scratch, (size_t)need * sizeof(double));
    if (!q)
        return -1;
    s->scratch = q;
    s->scratch_cap = need;
    return 0;
}

/* The trial energies of a volume move of boxes lo..hi-1 on the device, launched together:
 * factors f[bi], scaled edges L_new[bi] (the products scale_box takes on the host). */
static int volume_launch(vs_mc_state *s, int lo, int hi, const double *v_new, double *f,
                         double (*L_new)[3])
{
    for (int bi = lo; bi < hi; ++bi) {
        const vs_mc_box *b = &s->box[bi];
        f[bi] = cbrt(v_new[bi] / vs_mc_volume(b));
        for (int d = 0; d < 3; ++d)
            L_new[bi][d] = b->L[d] * f[bi];
        if (vs_mc_dev_energy_scaled(s, bi, f[bi], L_new[bi]))
            return -1;
    }
    return 0;
}

/* A volume move of boxes lo..hi-1 (npt: box 0; gibbs_npt: one box; gibbs: both, V0' + V1'
 * fixed): new volumes v_new[bi], acceptance term ln_extra besides -beta dU, counted as a
 * volume move of box `counter`. On the host the boxes are scaled, summed and restored if
 * refused; where they live on the device (all of a run's boxes or none) the sums take the
 * scaled coordinates there and only an accepted move scales them. */
static int volume_try(vs_mc_state *s, int lo, int hi, const double *v_new, double ln_extra,
                      double u, int counter)
{
    const double reach = s->pairs.reach;
    const int dev = s->gpu[lo] != NULL;
    double e_old = 0.0, e_new = 0.0, L_old[VS_MC_MAX_BOXES][3], L_new[VS_MC_MAX_BOXES][3];
    double f[VS_MC_MAX_BOXES];
    s->pr.total.attempted[VS_MC_VOLUME][counter]++;
    for (int bi = lo; bi < hi; ++bi) {
        const vs_mc_box *b = &s->box[bi];
        const double g = cbrt(v_new[bi] / vs_mc_volume(b));
        if (!(b->L[0] * g >= 2 * reach && b->L[1] * g >= 2 * reach && b->L[2] * g >= 2 * reach))
            return 0; /* a box below twice the cut-off: refused, as the configuration is */
    }
    if (dev ? volume_launch(s, lo, hi, v_new, f, L_new) : ensure_scratch(s))
        return -1;
    vs_wide w_new[VS_MC_MAX_BOXES];
    for (int bi = lo; bi < hi; ++bi) {
        vs_mc_box *b = &s->box[bi];
        memcpy(L_old[bi], b->L, sizeof b->L);
        e_old += vs_wide_to_double(b->pair_energy) +
                 tail_energy(s, b, vs_mc_count(s, bi), vs_mc_volume(b));
        double v;
        if (dev) {
            if (vs_mc_dev_energy_result(s, bi, &w_new[bi]))
                return -1;
            v = L_new[bi][0] * L_new[bi][1] * L_new[bi][2]; /* as vs_mc_volume */
        } else {
            if (scale_box(s, bi, cbrt(v_new[bi] / vs_mc_volume(b)), 1))
                return -1;
            w_new[bi] = vs_mc_energy_box(s, bi, NULL);
            v = vs_mc_volume(b);
        }
        e_new += vs_wide_to_double(w_new[bi]) + tail_energy(s, b, vs_mc_count(s, bi), v);
    }
    if (accept(-(e_new - e_old) / s->prm->mc.kT + ln_extra, u)) {
        for (int bi = lo; bi < hi; ++bi) {
            s->box[bi].pair_energy = w_new[bi];
            if (dev && vs_mc_dev_scale(s, bi, f[bi], L_new[bi]))
                return -1;
        }
        s->pr.total.accepted[VS_MC_VOLUME][counter]++;
        return 0;
    }
    for (int bi = lo; bi < hi && !dev; ++bi)
        if (restore_box(s, bi, L_old[bi]))
            return -1;
    return 0;
}

/* pick_u: the box of a gibbs_npt move. */
static int volume(vs_mc_state *s, int64_t m, double pick_u)
{
    double u[2];
    vs_mc_draw(s->prm, s->pr.cycle, m, 1, u);
    if (s->n_boxes == 1 || s->prm->mc.ensemble == VS_MC_GIBBS_NPT) {
        const int bi = (int)pick(pick_u, s->n_boxes);
        const double delta = s->pr.max_dlnv[bi] * (2 * u[0] - 1);
        const double v = vs_mc_volume(&s->box[bi]);
        double v_new[VS_MC_MAX_BOXES];
        v_new[bi] = v * exp(delta);
        const double n = (double)vs_mc_n(s, bi);
        const double ln_extra =
            -s->prm->mc.pressure * (v_new[bi] - v) / s->prm->mc.kT + (n + 1) * delta;
        return volume_try(s, bi, bi + 1, v_new, ln_extra, u[1], bi);
    }
    const double delta = s->pr.max_dlnv[0] * (2 * u[0] - 1);
    const double v0 = vs_mc_volume(&s->box[0]), v1 = vs_mc_volume(&s->box[1]);
    const double r = log(v0 / v1) + delta, vt = v0 + v1;
    const double v_new[2] = {vt / (1 + exp(-r)), vt / (1 + exp(r))};
    const double ln_extra = ((double)vs_mc_n(s, 0) + 1) * log(v_new[0] / v0) +
                            ((double)vs_mc_n(s, 1) + 1) * log(v_new[1] / v1);
    return volume_try(s, 0, 2, v_new, ln_extra, u[1], 0);
}

/* Insert a particle of `species` with `tag` at a uniform position of box `to` and delete
 * particle i of box `from` (from < 0: none; to < 0: none), accepted with ln_pre - beta dU;
 * tag < 0: the inserted particle is the deleted one (its species and tag: a transfer).
 * The energies of a box that lives on the device are computed there, both launched before
 * either is read, and an accepted change is made there too. */
static int exchange_try(vs_mc_state *s, int64_t m, int from, int64_t i, int to,
                        int32_t species, int64_t tag, double ln_pre, double u, int counter)
{
    double dU = 0.0, y[3] = {0, 0, 0};
    vs_wide e_ins = 0, e_del = 0;
    const int on_host = s->exchange_on_host; /* the energies from the host's copy */
    const int dev_to = to >= 0 && s->gpu[to] && !on_host;
    const int dev_from = from >= 0 && s->gpu[from] && !on_host;
    double xi[3] = {0, 0, 0};
    int32_t si = 0;
    int64_t ti = 0;
    if (from >= 0)
        vs_mc_particle(s, from, i, xi, &si, &ti);
    if (from >= 0 && tag < 0) {
        species = si;
        tag = ti;
    }
    if (to >= 0) {
        const vs_mc_box *b = &s->box[to];
        double u1[2], u2[2];
        vs_mc_draw(s->prm, s->pr.cycle, m, 2, u1);
        vs_mc_draw(s->prm, s->pr.cycle, m, 3, u2);
        y[0] = u1[0] * b->L[0];
        y[1] = u1[1] * b->L[1];
        y[2] = u2[0] * b->L[2];
        if (dev_to && vs_mc_dev_energy_at(s, to, y, species, -1))
            return -1;
    }
    if (dev_from && vs_mc_dev_energy_at(s, from, NULL, si, i))
        return -1;
    if (to >= 0) {
        vs_mc_box *b = &s->box[to];
        if (!dev_to)
            e_ins = vs_mc_energy_of(s, to, y, species, -1);
        else if (vs_mc_dev_energy_result(s, to, &e_ins))
            return -1;
        int64_t cnt[VS_MAX_SPECIES];
        memcpy(cnt, vs_mc_count(s, to), sizeof cnt);
        const double t0 = tail_energy(s, b, cnt, vs_mc_volume(b));
        cnt[species]++;
        dU += vs_wide_to_double(e_ins) + tail_energy(s, b, cnt, vs_mc_volume(b)) - t0;
    }
    if (from >= 0) {
        vs_mc_box *b = &s->box[from];
        if (!dev_from)
            e_del = vs_mc_energy_of(s, from, xi, si, i);
        else if (vs_mc_dev_energy_result(s, from, &e_del))
            return -1;
        int64_t cnt[VS_MAX_SPECIES];
        memcpy(cnt, vs_mc_count(s, from), sizeof cnt);
        const double t0 = tail_energy(s, b, cnt, vs_mc_volume(b));
        cnt[si]--;
        dU += -vs_wide_to_double(e_del) + tail_energy(s, b, cnt, vs_mc_volume(b)) - t0;
    }
    s->pr.total.attempted[VS_MC_EXCHANGE][counter]++;
    if (!accept(ln_pre - dU / s->prm->mc.kT, u))
        return 0;
    if (to >= 0) {
        if (vs_mc_insert(s, to, y, species, tag))
            return -1;
        if (s->gpu[to] && vs_mc_dev_append(s, to))
            return -1;
        s->box[to].pair_energy += e_ins;
    }
    if (from >= 0) {
        if (s->gpu[from] && vs_mc_dev_remove(s, from, i))
            return -1;
        vs_mc_delete(s, from, i, si);
        s->box[from].pair_energy -= e_del;
    }
    s->pr.total.accepted[VS_MC_EXCHANGE][counter]++;
    return 0;
}

/* A particle of species k (count > 0) in box a, uniformly among them: picks among all of the
 * box's particles until one is of species k (draws 4 to 35 of move m, 64 tries), else, from a
 * fresh draw, the j-th of species k by a scan. Each try is uniform over the species' particles
 * given that it succeeds, and so is the scan: the pick is uniform either way. */
#define SPECIES_TRY_DRAWS 32u
static int64_t pick_of_species(const vs_mc_state *s, int64_t m, int from, int32_t k)
{
    const int64_t n = vs_mc_n(s, from);
    int64_t idx[2 * SPECIES_TRY_DRAWS];
    int32_t sp[2 * SPECIES_TRY_DRAWS];
    double u[2];
    for (unsigned t = 0; t < SPECIES_TRY_DRAWS; ++t) {
        vs_mc_draw(s->prm, s->pr.cycle, m, 4 + t, u);
        idx[2 * t] = pick(u[0], n);
        idx[2 * t + 1] = pick(u[1], n);
    }
    vs_mc_species_at(s, from, idx, 2 * SPECIES_TRY_DRAWS, sp); /* one question to the ranks */
    for (unsigned q = 0; q < 2 * SPECIES_TRY_DRAWS; ++q)
        if (sp[q] == k)
            return idx[q];
    vs_mc_draw(s->prm, s->pr.cycle, m, 4 + SPECIES_TRY_DRAWS, u);
    return vs_mc_nth_of_species(s, from, k, pick(u[0], vs_mc_count(s, from)[k]));
}

/* A gibbs_npt transfer out of box `from`: a species picked uniformly (pick_u), then one of its
 * particles there; u_acc the acceptance draw. */
static int transfer_species(vs_mc_state *s, int64_t m, int from, double pick_u, double u_acc)
{
    const int to = 1 - from;
    const vs_mc_box *a = &s->box[from], *b = &s->box[to];
    const int32_t k = (int32_t)pick(pick_u, s->prm->species.n);
    if (vs_mc_count(s, from)[k] == 0) {
        s->pr.total.attempted[VS_MC_EXCHANGE][to]++;
        return 0;
    }
    const int64_t i = pick_of_species(s, m, from, k);
    const double ln_pre = log((double)vs_mc_count(s, from)[k] * vs_mc_volume(b) /
                              (((double)vs_mc_count(s, to)[k] + 1) * vs_mc_volume(a)));
    return exchange_try(s, m, from, i, to, k, -1, ln_pre, u_acc, to);
}

static int exchange(vs_mc_state *s, int64_t m, double pick_u)
{
    double u[2];
    vs_mc_draw(s->prm, s->pr.cycle, m, 1, u);
    if (s->n_boxes == 1) { /* gcmc: insertion or deletion, half each */
        vs_mc_box *b = &s->box[0];
        const int64_t nb = vs_mc_n(s, 0);
        const double zv = s->prm->mc.activity * vs_mc_volume(b), n = (double)nb;
        if (u[0] < 0.5)
            return exchange_try(s, m, -1, 0, 0, 0, s->pr.next_tag++, log(zv / (n + 1)), u[1], 0);
        if (nb == 0) {
            s->pr.total.attempted[VS_MC_EXCHANGE][1]++;
            return 0;
        }
        return exchange_try(s, m, 0, pick(pick_u, nb), -1, 0, 0, log(n / zv), u[1], 1);
    }
    const int from = u[0] < 0.5 ? 0 : 1, to = 1 - from;
    if (s->prm->mc.ensemble == VS_MC_GIBBS_NPT)
        return transfer_species(s, m, from, pick_u, u[1]);
    const vs_mc_box *a = &s->box[from], *b = &s->box[to];
    const int64_t na = vs_mc_n(s, from);
    if (na == 0) {
        s->pr.total.attempted[VS_MC_EXCHANGE][to]++;
        return 0;
    }
    const int64_t i = pick(pick_u, na);
    const double ln_pre = log((double)na * vs_mc_volume(b) /
                              (((double)vs_mc_n(s, to) + 1) * vs_mc_volume(a)));
    return exchange_try(s, m, from, i, to, 0, -1, ln_pre, u[1], to);
}

int vs_mc_attempt(vs_mc_state *s, int64_t m)
{
    double u[2];
    vs_mc_draw(s->prm, s->pr.cycle, m, 0, u);
    const double *p = s->prm->mc.p_move;
    /* a kind of probability 0 is never chosen, whatever the round-off of the sums */
    if (u[0] < p[VS_MC_DISPLACE] || (p[VS_MC_VOLUME] == 0.0 && p[VS_MC_EXCHANGE] == 0.0))
        return displace(s, m, u[1]);
    if (p[VS_MC_EXCHANGE] == 0.0 || (p[VS_MC_VOLUME] > 0.0 &&
                                     u[0] < p[VS_MC_DISPLACE] + p[VS_MC_VOLUME]))
        return volume(s, m, u[1]);
    return exchange(s, m, u[1]);
}

int vs_mc_attempt_other(vs_mc_state *s, int64_t m)
{
    double u[2];
    vs_mc_draw(s->prm, s->pr.cycle, m, 0, u);
    const double *p = s->prm->mc.p_move;
    const double pv = p[VS_MC_VOLUME], pe = p[VS_MC_EXCHANGE];
    if (pe == 0.0 || (pv > 0.0 && u[0] * (pv + pe) < pv))
        return volume(s, m, u[1]);
    return exchange(s, m, u[1]);
}
