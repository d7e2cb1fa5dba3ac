/* The checkerboard displacement sweep of the Monte Carlo engine (mc.sweep = "checkerboard"),
 * written once for the CPU reference (src/engine/mc/mc_sweep.c) and the CUDA kernel
 * (gpu/gpu_mc.cu): Anderson, Jankowski, Grubb, Engel & Glotzer, J. Comput. Phys. 254, 27
 * (2013), the scheme of HOOMD-blue's HPMC.
 *
 * A sweep lays a grid of nc cells per axis over the box (nc even, at most 128, cells at least the
 * largest cut-off wide) shifted by a random offset, and visits its eight colours (the parities of
 * the three cell coordinates) in a random order. The cells of one colour are two apart along every
 * axis, so no active cell holds a neighbour of another: each does its trial moves on its own, at
 * the same time as the others. An active cell of n particles does n trials, each on a particle
 * picked uniformly in the cell; a trial position outside the cell is rejected, so the cell keeps
 * its n particles and the cells stay independent, and every trial is a symmetric proposal accepted
 * with min(1, exp(-beta dU)) (detailed balance per trial).
 *
 * Every draw comes from TEA (tea_rng.h) keyed by (seed, the sweep's serial number with the
 * stream byte 0x43 and the box) and (cell, colour step and draw index), never by a thread:
 * the sweep is the same on any backend. Energies are exact fixed-point sums (fixed_sum.h),
 * so the order in which a backend adds a trial's pairs does not change its decision; the
 * arithmetic of positions and of ln u (vs_mc_ln, no library call) rounds the same way on
 * the CPU and in the kernel (compiled without fused multiply-adds), so the two backends make
 * the same trajectory bit for bit.
 */
#ifndef VESICA_MC_SWEEP_H
#define VESICA_MC_SWEEP_H

#include <math.h>
#include <stdint.h>

#include "fixed_sum.h"
#include "hostdevice.h"
#include "pair_styles.h"
#include "tea_rng.h"

#define VS_MC_SWEEP_STREAM 0x43ull /* top byte of the key's second word */
#define VS_MC_SWEEP_CAP 1e6        /* a pair's energy at most (mc_box.h's VS_MC_PAIR_CAP) */
#define VS_MC_SWEEP_WORD 0xffffffffu /* the cell word of the sweep's own draws */
#define VS_MC_SWEEP_MAX_NC 128     /* cells per axis at most (wider cells beyond): 2^21 cells */

/* The pair coefficients a sweep reads: the active styles, each a matrix of ns x ns species
 * pairs, flattened as coeff[(k * ns + si) * ns + sj] (no tables: the tabulated style is not
 * offered with the checkerboard). */
typedef struct {
    int n_styles, ns;
    int style[VS_PAIR_STYLES];
    double reach2;
} vs_mc_sweep_pairs;

/* One sweep of one box: the grid, the draws' key and the colour order. */
typedef struct {
    double L[3], h[3], off[3]; /* edges, cell widths, the grid's offset in [0, h) */
    int nc[3];                 /* cells per axis, even, >= 2 */
    double max_disp, kT;
    vs_tea_key key;
    int order[8]; /* the colours in the order visited */
} vs_mc_sweep_plan;

/* Two uniform numbers on (0, 1): draw d of colour step `step` in cell `cell`. */
VS_HOST_DEVICE void vs_mc_sweep_draw(const vs_mc_sweep_plan *p, uint32_t cell, uint32_t step,
                                     uint32_t d, double u[2])
{
    const vs_tea_block b = vs_tea_encrypt(p->key, cell, (step << 28) | (d & 0x0fffffffu));
    u[0] = vs_u32_to_open_unit(b.v0);
    u[1] = vs_u32_to_open_unit(b.v1);
}

/* The key of sweep `serial` of box `box` with the run's seed. */
VS_HOST_DEVICE vs_tea_key vs_mc_sweep_key(uint64_t seed, int box, uint64_t serial)
{
    return vs_tea_make_key(seed, (VS_MC_SWEEP_STREAM << 56) ^ ((uint64_t)box << 52) ^ serial);
}

/* The sweep's grid over edges L for cells at least reach wide, its offset and the colour
 * order, from the sweep's own draws (p->key set first). */
VS_HOST_DEVICE void vs_mc_sweep_plan_make(vs_mc_sweep_plan *p, const double L[3], double reach)
{
    double u[2], v[2];
    vs_mc_sweep_draw(p, VS_MC_SWEEP_WORD, 0, 0, u);
    vs_mc_sweep_draw(p, VS_MC_SWEEP_WORD, 0, 1, v);
    const double w[3] = {u[0], u[1], v[0]};
    for (int d = 0; d < 3; ++d) {
        int n = (int)(L[d] / reach);
        n = n < VS_MC_SWEEP_MAX_NC ? n : VS_MC_SWEEP_MAX_NC;
        n -= n & 1;
        p->nc[d] = n < 2 ? 2 : n;
        p->L[d] = L[d];
        p->h[d] = L[d] / p->nc[d];
        p->off[d] = w[d] * p->h[d];
    }
    for (int k = 0; k < 8; ++k)
        p->order[k] = k;
    for (int k = 7; k > 0; --k) { /* Fisher-Yates */
        double r[2];
        vs_mc_sweep_draw(p, VS_MC_SWEEP_WORD, 0, 2 + (uint32_t)k, r);
        int j = (int)(r[0] * (k + 1));
        j = j > k ? k : j;
        const int t = p->order[k];
        p->order[k] = p->order[j];
        p->order[j] = t;
    }
}

/* The cell coordinate along axis d of a position x in [0, L): the strip [0, off) belongs to
 * the last cell, which wraps around. */
VS_HOST_DEVICE int vs_mc_sweep_coord(const vs_mc_sweep_plan *p, int d, double x)
{
    const double t = x - p->off[d];
    if (t < 0.0)
        return p->nc[d] - 1;
    const int c = (int)(t / p->h[d]);
    return c < p->nc[d] ? c : p->nc[d] - 1;
}

VS_HOST_DEVICE uint32_t vs_mc_sweep_cell(const vs_mc_sweep_plan *p, const double x[3])
{
    const int c0 = vs_mc_sweep_coord(p, 0, x[0]), c1 = vs_mc_sweep_coord(p, 1, x[1]),
              c2 = vs_mc_sweep_coord(p, 2, x[2]);
    return (uint32_t)(c0 + p->nc[0] * (c1 + p->nc[1] * c2));
}

/* The distinct cells along axis d next to coordinate c (c - 1, c, c + 1 modulo nc: two when
 * nc = 2, one when nc = 1, a grid that only mc_energy.h's whole-box energy lays). Returns
 * their count. */
VS_HOST_DEVICE int vs_mc_sweep_near(const vs_mc_sweep_plan *p, int d, int c, int out[3])
{
    const int n = p->nc[d];
    out[0] = c;
    if (n == 1)
        return 1;
    out[1] = (c + 1) % n;
    if (n == 2)
        return 2;
    out[2] = (c + n - 1) % n;
    return 3;
}

/* The six uniform numbers of trial t of a cell, in three parts of two (part = 0, 1, 2):
 * r[0] picks the particle, r[1..3] its displacement, r[4] accepts (r[5] is unused). */
VS_HOST_DEVICE void vs_mc_sweep_trial_draw(const vs_mc_sweep_plan *p, uint32_t cell,
                                           uint32_t step, uint32_t t, uint32_t part, double u[2])
{
    vs_mc_sweep_draw(p, cell, step, 3 * t + part, u);
}

/* The particle a trial moves in a cell of n: its slot in the cell. */
VS_HOST_DEVICE int vs_mc_sweep_pick(double r0, int n)
{
    const int k = (int)(r0 * n);
    return k < n ? k : n - 1;
}

/* The trial position y from x (wrapped into the box, as the sequential displacement does). */
VS_HOST_DEVICE void vs_mc_sweep_propose(const vs_mc_sweep_plan *p, const double r[6],
                                        const double x[3], double y[3])
{
    for (int d = 0; d < 3; ++d) {
        double v = x[d] + vs_mul_rn(p->max_disp, 2 * r[1 + d] - 1);
        v -= vs_mul_rn(p->L[d], floor(v / p->L[d]));
        y[d] = v < p->L[d] ? v : 0.0;
    }
}

/* The minimum-image squared distance of a and b (both in [0, L)), as mc_box.c takes it. */
VS_HOST_DEVICE double vs_mc_sweep_dist2(const double L[3], const double a[3], double b0,
                                        double b1, double b2)
{
    const double b[3] = {b0, b1, b2};
    double r2 = 0.0;
    for (int d = 0; d < 3; ++d) {
        double dx = a[d] - b[d];
        dx = dx > 0.5 * L[d] ? dx - L[d] : dx < -0.5 * L[d] ? dx + L[d] : dx;
        r2 += vs_mul_rn(dx, dx);
    }
    return r2;
}

/* The energy of one active style with coefficients c at squared distance r2: zero beyond its
 * cut-off (a kernel that knows the style passes it as a constant, and the call folds to that
 * style's body). */
VS_HOST_DEVICE double vs_mc_sweep_style_energy(int style, const vs_pair_coeff *c, double r2)
{
    if (!c->on || !(r2 < c->rc2))
        return 0.0;
    return vs_pair_style_eval(style, c, (const vs_pair_table *)0, r2).energy;
}

/* A pair's energy in quanta, capped (a NaN at r2 = 0 too). */
VS_HOST_DEVICE vs_wide vs_mc_sweep_capped(double e)
{
    return vs_wide_from_double(e < VS_MC_SWEEP_CAP ? e : VS_MC_SWEEP_CAP);
}

/* The pair energy in quanta of species si and sj at squared distance r2 < reach2: every
 * active style, capped, as mc_box.c's pair_energy. */
VS_HOST_DEVICE vs_wide vs_mc_sweep_pair(const vs_mc_sweep_pairs *pp, const vs_pair_coeff *coeff,
                                        int si, int sj, double r2)
{
    double e = 0.0;
    for (int k = 0; k < pp->n_styles; ++k)
        e += vs_mc_sweep_style_energy(pp->style[k], &coeff[(k * pp->ns + si) * pp->ns + sj], r2);
    return vs_mc_sweep_capped(e);
}

/* ln u for u in (0, 1], with + - * / only (the same bits on every backend): u = m 2^e with
 * m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh s, s = (m - 1) / (m + 1), |s| < 0.172, the series
 * to s^23 (error below 1e-19 relative). */
VS_HOST_DEVICE double vs_mc_ln(double u)
{
    int e = 0;
    double m = frexp(u, &e);
    if (m < 0.70710678118654752) {
        m = m * 2.0;
        e -= 1;
    }
    const double s = (m - 1.0) / (m + 1.0), s2 = vs_mul_rn(s, s);
    double sum = 1.0 / 23.0;
    for (int k = 21; k >= 1; k -= 2)
        sum = 1.0 / k + vs_mul_rn(s2, sum);
    return vs_mul_rn((double)e, 0.69314718055994531) + vs_mul_rn(2.0 * s, sum);
}

/* w in energy units, with + and * on doubles only (a conversion of the 128-bit integer itself
 * is a library routine whose rounding the backends need not share): w = a 2^80 + b 2^40 + c
 * with 0 <= b, c < 2^40, each part exact as a double; the result is w rounded once where
 * |w| < 2^93 (an energy below 8192), and at most twice beyond, the same bits everywhere. */
VS_HOST_DEVICE double vs_mc_sweep_energy(vs_wide w)
{
    const vs_wide m40 = ((vs_wide)1 << 40) - 1;
    const double a = (double)(int64_t)(w >> 80), b = (double)(int64_t)((w >> 40) & m40),
                 c = (double)(int64_t)(w & m40);
    return ((a * 0x1p40 + b) * 0x1p40 + c) * (1.0 / VS_WIDE_QUANTA);
}

/* Metropolis: accept a trial of energy change dU (quanta) with the draw u. */
VS_HOST_DEVICE int vs_mc_sweep_accept(const vs_mc_sweep_plan *p, vs_wide dU, double u)
{
    if (dU <= 0)
        return 1;
    return vs_mc_ln(u) < -vs_mc_sweep_energy(dU) / p->kT;
}

/* The colour of a cell of coordinates c: the parities of the three. */
VS_HOST_DEVICE int vs_mc_sweep_colour(int c0, int c1, int c2)
{
    return (c0 & 1) | ((c1 & 1) << 1) | ((c2 & 1) << 2);
}

#endif
