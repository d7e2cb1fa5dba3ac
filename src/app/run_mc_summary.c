/* The Monte Carlo run's closing lines and summary file: see run_mc_summary.h. */
#include "run_mc_summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mc_summary.h"

static const char *const ENSEMBLE[] = {"nvt", "npt", "gcmc", "gibbs", "gibbs_npt"};
static const char *const LIQUID_RULE = "per row: the denser box";

void vs_run_mc_composition_header(FILE *f, const vs_mc_state *s)
{
    const vs_species_params *sp = &s->prm->species;
    if (!vs_mc_has_composition(s->prm))
        return;
    for (int b = 0; b < s->n_boxes; ++b)
        for (int k = 0; k < sp->n; ++k)
            fprintf(f, ",n_%s_%d", sp->list[k].name, b);
}

void vs_run_mc_composition_row(FILE *f, const vs_mc_state *s, const vs_mc_row *r)
{
    if (!vs_mc_has_composition(s->prm))
        return;
    for (int b = 0; b < s->n_boxes; ++b)
        for (int k = 0; k < s->prm->species.n; ++k)
            fprintf(f, ",%lld", (long long)r->box[b].count[k]);
}

int vs_run_mc_composition_read(const char *line, const vs_mc_state *s, vs_mc_row *r)
{
    if (!vs_mc_has_composition(s->prm))
        return 0;
    const int ns = s->prm->species.n, cols = ns * s->n_boxes;
    const char *p = line + strlen(line);
    for (int c = 0; c < cols; ++c) { /* back to the comma before the first of them */
        while (p > line && *--p != ',')
            ;
        if (*p != ',')
            return -1;
    }
    for (int b = 0; b < s->n_boxes; ++b)
        for (int k = 0; k < ns; ++k) {
            char *end;
            r->box[b].count[k] = strtoll(p + 1, &end, 10);
            if (end == p + 1)
                return -1;
            p = end;
        }
    return 0;
}

/* The result group/name among st, or NULL. */
static const vs_mc_stat *find(const vs_mc_stat *st, int n, const char *group, const char *name)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(st[i].group, group) == 0 && strcmp(st[i].name, name) == 0)
            return &st[i];
    return NULL;
}

/* "x +- e" of a result into buf. */
static const char *fmt(char *buf, size_t len, const vs_mc_stat *st, int n, const char *group,
                       const char *name)
{
    const vs_mc_stat *r = find(st, n, group, name);
    if (r)
        snprintf(buf, len, "%.6g +- %.2g", r->mean, r->error);
    else
        snprintf(buf, len, "-");
    return buf;
}

static void log_results(const vs_mc_state *s, const vs_mc_series *series, const vs_mc_stat *st,
                        int n)
{
    char a[64], b[64], c[64], d[64];
    for (int bi = 0; bi < s->n_boxes; ++bi) {
        char g[16];
        snprintf(g, sizeof g, "box_%d", bi);
        vs_log_info("Box %d over %lld production rows (%lld blocks): N %s, density %s, U/N %s, "
                    "P %s", bi, (long long)series->n, (long long)s->prm->mc.blocks,
                    fmt(a, sizeof a, st, n, g, "n"), fmt(b, sizeof b, st, n, g, "density"),
                    fmt(c, sizeof c, st, n, g, "energy_per_particle"),
                    fmt(d, sizeof d, st, n, g, "pressure"));
    }
    if (s->n_boxes < 2 || series->n == 0)
        return;
    const char *co = "coexistence";
    vs_log_info("Coexistence (liquid %s): rho_liquid %s, rho_vapour %s, P_vapour %s", LIQUID_RULE,
                fmt(a, sizeof a, st, n, co, "density_liquid"),
                fmt(b, sizeof b, st, n, co, "density_vapour"),
                fmt(c, sizeof c, st, n, co, "pressure_vapour"));
    vs_log_info("Coexistence: P_liquid %s, heat of vaporization per particle %s",
                fmt(a, sizeof a, st, n, co, "pressure_liquid"),
                fmt(b, sizeof b, st, n, co, "heat_of_vaporization"));
    if (!vs_mc_has_composition(s->prm))
        return;
    const vs_species_params *sp = &s->prm->species;
    for (int k = 0; k < sp->n; ++k) {
        char xl[64], xv[64];
        snprintf(xl, sizeof xl, "x_%s_liquid", sp->list[k].name);
        snprintf(xv, sizeof xv, "x_%s_vapour", sp->list[k].name);
        vs_log_info("Coexistence: mole fraction of %s: liquid %s, vapour %s", sp->list[k].name,
                    fmt(a, sizeof a, st, n, co, xl), fmt(b, sizeof b, st, n, co, xv));
    }
}

int vs_run_mc_summary(const vs_mc_state *s, const vs_mc_series *series, char *err,
                      size_t err_len)
{
    const vs_params *prm = s->prm;
    for (int b = 0; b < s->n_boxes; ++b) {
        const vs_mc_counts *t = &s->pr.total;
        const double att = (double)t->attempted[VS_MC_DISPLACE][b];
        vs_log_info("Box %d: displacement acceptance %.3f (max %.4g)", b,
                    att > 0 ? (double)t->accepted[VS_MC_DISPLACE][b] / att : 0.0,
                    s->pr.max_disp[b]);
    }
    vs_mc_stat st[VS_MC_MAX_STATS];
    const int n = vs_mc_summarize(series, s->n_boxes, (int)prm->mc.blocks,
                                  vs_mc_has_composition(prm) ? &prm->species : NULL, st);
    vs_mc_histograms h;
    const int gcmc = prm->mc.ensemble == VS_MC_GCMC;
    if (n < 0 || (gcmc && vs_mc_histograms_build(series, prm->mc.energy_bin, &h))) {
        snprintf(err, err_len, "out of memory for the closing statistics");
        return -1;
    }
    log_results(s, series, st, n);
    vs_mc_summary sum = {
        .ensemble = ENSEMBLE[prm->mc.ensemble],
        .kT = prm->mc.kT,
        .rows = series->n,
        .blocks = prm->mc.blocks,
        .first_cycle = series->n ? series->row[0].cycle : -1,
        .last_cycle = series->n ? series->row[series->n - 1].cycle : -1,
        .liquid_rule = s->n_boxes > 1 ? LIQUID_RULE : NULL,
        .stat = st,
        .n_stats = n,
        .hist = gcmc ? &h : NULL,
    };
    const int rc = vs_mc_summary_write(prm->output.dir, &sum, err, err_len);
    if (gcmc)
        vs_mc_histograms_free(&h);
    if (!rc)
        vs_log_info("Summary: %s/mc_summary.h5", prm->output.dir);
    return rc;
}
