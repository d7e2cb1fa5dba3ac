/* Host-side set-up of the pair styles: see pair_setup.h. */
#include "pair_setup.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fnv.h"

#define VS_PAIR_INFO_ENTRY_(ID, NAME) [ID] = {.name = #NAME, VS_PAIR_INFO_##NAME},
const vs_pair_style_info vs_pair_styles[VS_PAIR_STYLES] = {
    VS_PAIR_STYLE_LIST(VS_PAIR_INFO_ENTRY_)};
#undef VS_PAIR_INFO_ENTRY_

const char *vs_pair_style_name(int style)
{
    return style >= 0 && style < VS_PAIR_STYLES ? vs_pair_styles[style].name : "?";
}

int vs_pair_style_by_name(const char *name)
{
    for (int s = 0; s < VS_PAIR_STYLES; ++s)
        if (strcmp(name, vs_pair_styles[s].name) == 0)
            return s;
    return -1;
}

void vs_pair_coeff_finish(int style, vs_pair_coeff *c, int shift, const vs_pair_table *tables)
{
    c->rc2 = c->rc * c->rc;
    memset(c->k, 0, sizeof c->k);
    c->shift = 0.0;
    const vs_pair_style_info *info = &vs_pair_styles[style];
    if (info->setup)
        info->setup(c);
    if (shift && (info->flags & VS_PAIR_SHIFTS)) /* the energy at the cut-off, from the body */
        c->shift = vs_pair_style_eval(style, c, tables, c->rc2).energy;
}

/* Second derivatives of the clamped cubic spline through y on a uniform grid of spacing h
 * with end slopes d0 and dn (tridiagonal solve), stored times h^2 / 6. */
static void spline_uniform(const double *y, int n, double h, double d0, double dn, double *y2)
{
    double u[VS_PAIR_TABLE_MAX_POINTS];
    y2[0] = -0.5;
    u[0] = (3.0 / h) * ((y[1] - y[0]) / h - d0);
    for (int k = 1; k < n - 1; ++k) {
        const double p = 0.5 * y2[k - 1] + 2.0;
        y2[k] = -0.5 / p;
        u[k] = (y[k + 1] - 2.0 * y[k] + y[k - 1]) / h;
        u[k] = (6.0 * u[k] / (2.0 * h) - 0.5 * u[k - 1]) / p;
    }
    const double qn = 0.5;
    const double un = (3.0 / h) * (dn - (y[n - 1] - y[n - 2]) / h);
    y2[n - 1] = (un - qn * u[n - 2]) / (qn * y2[n - 2] + 1.0);
    for (int k = n - 2; k >= 0; --k)
        y2[k] = y2[k] * y2[k + 1] + u[k];
    for (int k = 0; k < n; ++k)
        y2[k] *= h * h / 6.0;
}

void vs_pair_table_spline(vs_pair_table *t, int have_fp, double fp_lo, double fp_hi)
{
    const int n = t->n;
    const double h = t->dr;
    t->inv_dr = 1.0 / h;
    /* the energy's slopes at the ends are the file's forces there (dU/dr = -F) */
    spline_uniform(t->e, n, h, -t->f[0], -t->f[n - 1], t->e2);
    if (!have_fp) { /* the end secants of the force */
        fp_lo = (t->f[1] - t->f[0]) / h;
        fp_hi = (t->f[n - 1] - t->f[n - 2]) / h;
    }
    spline_uniform(t->f, n, h, fp_lo, fp_hi, t->f2);
}

int vs_pair_tail_on(const vs_params *p)
{
    for (int s = 0; s < VS_PAIR_STYLES; ++s)
        if (vs_pair_style_of(p, s)->active && vs_pair_style_of(p, s)->tail &&
            vs_pair_styles[s].tail)
            return 1;
    return 0;
}

void vs_pair_tail(const vs_params *p, const int64_t *count, double volume, double *energy,
                  double *virial)
{
    *energy = *virial = 0.0;
    const double pi = 3.14159265358979323846;
    for (int s = 0; s < VS_PAIR_STYLES; ++s) {
        const vs_pair_style_params *ps = vs_pair_style_of(p, s);
        if (!ps->active || !ps->tail || !vs_pair_styles[s].tail)
            continue;
        for (int i = 0; i < p->species.n; ++i)
            for (int j = 0; j < p->species.n; ++j) {
                const vs_pair_coeff *c = &ps->c[i][j];
                if (!c->on)
                    continue;
                const double pairs = (double)count[i] * (double)count[j];
                vs_pair_styles[s].tail(c, 8.0 * pi / volume * pairs, energy, virial);
            }
    }
}

void vs_params_release(vs_params *p)
{
    free(p->pair.set);
    p->pair.set = NULL;
}

void vs_pair_set_code(vs_params *p)
{
    if (!p->pair.set) {
        p->pair.code = 0;
        return;
    }
    uint64_t h = VS_FNV_OFFSET;
    int any = 0;
    for (int s = 0; s < VS_PAIR_STYLES; ++s) {
        const vs_pair_style_params *ps = &p->pair.set->style[s];
        if (!ps->active)
            continue;
        any = 1;
        const int flags[5] = {s, ps->shift, ps->wca, ps->tail, p->species.n};
        h = vs_fnv1a(h, flags, sizeof flags);
        /* a style without a last key stops before its slot: its code does not depend on
         * the width of `given` */
        const size_t bytes = vs_pair_styles[s].keys[VS_PAIR_MAX_KEYS - 1]
                                 ? sizeof(vs_pair_coeff)
                                 : offsetof(vs_pair_coeff, given) +
                                       (VS_PAIR_MAX_KEYS - 1) * sizeof(double);
        for (int i = 0; i < p->species.n; ++i)
            for (int j = 0; j < p->species.n; ++j)
                h = vs_fnv1a(h, &ps->c[i][j], bytes);
        if (ps->special) /* only when given: older codes stay valid for styles without */
            h = vs_fnv1a(h, ps->special_factor, sizeof ps->special_factor);
    }
    for (int t = 0; any && t < p->pair.set->n_tables; ++t) {
        const vs_pair_table *tb = &p->pair.set->tables[t];
        const double head[3] = {(double)tb->n, tb->r0, tb->dr};
        h = vs_fnv1a(h, head, sizeof head);
        h = vs_fnv1a(h, tb->e, sizeof(double) * (size_t)tb->n);
        h = vs_fnv1a(h, tb->f, sizeof(double) * (size_t)tb->n);
    }
    /* 52 bits: exact as the double that the physics keys compare; never 0 with a style */
    p->pair.code = any ? (int64_t)((h >> 12) | 1u) : 0;
}
