/* Time step and temperature watch: see watch.h. */
#include "watch.h"

#include <math.h>
#include <stdio.h>

#include "ensemble_step.h"
#include "log.h"

/* Groot & Warren (J. Chem. Phys. 107, 4423, 1997) find the temperature held within a few
 * percent up to dt = 0.04-0.06 for a = 25, gamma = 4.5, kT = 1, m = 1, rc = 1 (lambda = 0.65);
 * Vesica's integrator is validated there (docs/validation.md). Each force sets its own time
 * scale, and dt must stay small against all of them, so the tested range is 0.06 scaled by
 * the ratio of each scale to its value at those parameters:
 *   conservative: the period of the stiffest pair, sqrt(m rc / a)  (0.06 sqrt(25 m rc / a))
 *   dissipative:  the relaxation time of a pair velocity, m / gamma  (0.06 * 4.5 m / gamma;
 *                 gamma dt / m must stay well below 1 for the explicit step to be stable)
 *   thermal:      the time to cross rc at the thermal speed, rc sqrt(m / kT)
 * with the lightest mass and the largest a_ij. */
#define VS_DT_TESTED 0.06

double vs_dt_tested_max(const vs_params *prm)
{
    double m = INFINITY, a = 0.0;
    for (int i = 0; i < prm->species.n; ++i) {
        m = fmin(m, prm->species.list[i].mass);
        for (int j = 0; j < prm->species.n; ++j)
            a = fmax(a, prm->dpd.a[i][j]);
    }
    if (!(m > 0.0) || !isfinite(m))
        return 0.0;
    double dt = INFINITY;
    if (a > 0.0)
        dt = fmin(dt, VS_DT_TESTED * sqrt(25.0 * m * prm->dpd.rc / a));
    if (prm->dpd.gamma.v > 0.0)
        dt = fmin(dt, VS_DT_TESTED * 4.5 * m / prm->dpd.gamma.v);
    if (prm->dpd.kT > 0.0)
        dt = fmin(dt, VS_DT_TESTED * prm->dpd.rc * sqrt(m / prm->dpd.kT));
    return isfinite(dt) ? dt : 0.0;
}

void vs_watch_dt(const vs_params *prm, int log)
{
    const double dt_max = vs_dt_tested_max(prm);
    if (log && dt_max > 0.0 && prm->integrator.dt > dt_max)
        vs_log_warn("integrator.dt = %g is outside the tested range dt <= %.3g for these dpd.a, "
                    "dpd.gamma, dpd.kT and masses (Groot & Warren: dt <= 0.06 at a = 25, gamma "
                    "= 4.5, kT = 1, m = 1); expect a wrong temperature or a blow-up",
                    prm->integrator.dt, dt_max);
}

int vs_watch_momentum_conserved(const vs_params *prm)
{
    if (prm->flow.kind != VS_FLOW_NONE || vs_has_walls(prm)) /* a wall takes momentum */
        return 0;
    for (int s = 0; s < prm->species.n; ++s) {
        if (prm->species.list[s].frozen) /* so does a frozen particle in a periodic box */
            return 0;
        for (int d = 0; d < 3; ++d)
            if (prm->species.list[s].body_force[d] != 0.0)
                return 0;
    }
    const vs_ensemble_kind *k = vs_ensemble_kind_of(prm->integrator.kind);
    return k && k->momentum != VS_MOMENTUM_FREE;
}

/* A drift measure against its warning and stop levels: 0 go on, 1 stop. */
static int drift_check(double drift, double tolerance, double limit, int *warned, int log,
                       const vs_thermo *t, const char *what, const char *unit,
                       const char *tolerance_key, const char *limit_key)
{
    if (tolerance > 0.0 && drift > tolerance) {
        if (!*warned && log)
            vs_log_warn("step %lld: %s has drifted by %.3g %s since the first thermo row (%s "
                        "%g): forces that are not equal and opposite, or integrator.dt too "
                        "large", (long long)t->step, what, drift, unit, tolerance_key,
                        tolerance);
        *warned = 1;
    } else {
        *warned = 0;
    }
    if (limit > 0.0 && drift > limit) {
        if (log)
            vs_log_error("step %lld: %s has drifted by %.3g %s, beyond %s = %g: stopping",
                         (long long)t->step, what, drift, unit, limit_key, limit);
        return 1;
    }
    return 0;
}

/* The drifts of the conserved quantities since the first row: the total momentum in units of
 * sqrt(2 K m_max) (at least the size of a random sum of the momenta), the conserved energy of
 * nve and nose_hoover as a fraction of the first row's kinetic energy. */
static int watch_drifts(vs_watch *w, const vs_params *prm, const vs_thermo *t, int log)
{
    const int energy = t->ensemble_columns >= 1;
    if (!w->have_first) {
        for (int d = 0; d < 3; ++d)
            w->momentum0[d] = t->momentum[d];
        w->energy0 = t->conserved_energy;
        w->kinetic0 = t->kinetic;
        w->have_first = 1;
        return 0;
    }
    int stop = 0;
    double m_max = 0.0;
    for (int s = 0; s < prm->species.n; ++s)
        m_max = fmax(m_max, prm->species.list[s].mass);
    const double scale = sqrt(2.0 * t->kinetic * m_max);
    if (vs_watch_momentum_conserved(prm) && scale > 0.0) {
        /* kinds that scale every velocity, the centre of mass's too (nose_hoover, berendsen),
         * keep the direction of the total momentum, not its length, so only the part of P
         * across P0 is a drift there */
        const int rescaled =
            vs_ensemble_kind_of(prm->integrator.kind)->momentum == VS_MOMENTUM_DIRECTION;
        double p0p = 0.0, p0p0 = 0.0;
        for (int d = 0; d < 3; ++d) {
            p0p += w->momentum0[d] * t->momentum[d];
            p0p0 += w->momentum0[d] * w->momentum0[d];
        }
        const double along = rescaled && p0p0 > 0.0 ? p0p / p0p0 : 1.0;
        double dp2 = 0.0;
        for (int d = 0; d < 3; ++d) {
            const double dp = t->momentum[d] - along * w->momentum0[d];
            dp2 += dp * dp;
        }
        stop |= drift_check(sqrt(dp2) / scale, prm->run.momentum_tolerance, prm->run.momentum_limit,
                            &w->momentum_warned, log, t, "the total momentum",
                            "thermal units", "run.momentum_tolerance", "run.momentum_limit");
    }
    if (energy && w->kinetic0 > 0.0)
        stop |= drift_check(fabs(t->conserved_energy - w->energy0) / w->kinetic0,
                            prm->run.energy_tolerance, prm->run.energy_limit, &w->energy_warned,
                            log, t, "the conserved energy", "of the first kinetic energy",
                            "run.energy_tolerance", "run.energy_limit");
    return stop;
}

int vs_watch_row(vs_watch *w, const vs_params *prm, const vs_thermo *t, int log)
{
    if (!isfinite(t->temperature) || !isfinite(t->pressure) || !isfinite(t->kinetic) ||
        !isfinite(t->potential)) {
        if (log)
            vs_log_error("step %lld: the thermo row is not finite (temperature %g, pressure %g, "
                         "potential energy %g): the run has blown up; a smaller "
                         "integrator.dt may help", (long long)t->step, t->temperature,
                         t->pressure, t->potential);
        return 1;
    }
    if (watch_drifts(w, prm, t, log))
        return 1;
    /* without a thermostat (nve) the temperature is the initial energy's, not dpd.kT */
    const vs_ensemble_kind *kind = vs_ensemble_kind_of(prm->integrator.kind);
    if (prm->run.temperature_tolerance <= 0.0 || !(prm->dpd.kT > 0.0) ||
        t->time < prm->run.equilibration_time || (kind && !kind->thermostat))
        return 0;
    const double ratio = t->temperature / prm->dpd.kT;
    if (fabs(ratio - 1.0) <= prm->run.temperature_tolerance) {
        w->far_rows = 0;
        return 0;
    }
    if (++w->far_rows == 1 && log)
        vs_log_warn("step %lld: kinetic temperature %.4g is %.3g times dpd.kT = %g after "
                    "equilibration (run.temperature_tolerance %g); integrator.dt = %g may be "
                    "too large", (long long)t->step, t->temperature, ratio, prm->dpd.kT,
                    prm->run.temperature_tolerance, prm->integrator.dt);
    if (prm->run.temperature_rows > 0 && w->far_rows >= prm->run.temperature_rows) {
        if (log)
            vs_log_error("step %lld: kinetic temperature %.4g, %.3g times dpd.kT, for %lld "
                         "thermo rows in a row (run.temperature_rows): stopping",
                         (long long)t->step, t->temperature, ratio, (long long)w->far_rows);
        return 1;
    }
    return 0;
}
