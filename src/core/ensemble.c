/* Thermostat algebra: see ensemble.h. */
#include "ensemble.h"

#include "integrator.h"

#include <math.h>
#include <string.h>

/* The moving particles' 3 N, less the 3 of the conserved total momentum; with walls or wall
 * particles the momentum is not conserved and no degree of freedom is taken away. */
double vs_ensemble_dof(const vs_params *p)
{
    const double mobile = (double)(p->system.n_particles - p->boundary.n_frozen);
    const int free_momentum = vs_has_walls(p) || p->boundary.n_frozen > 0;
    return 3.0 * mobile - (free_momentum ? 0.0 : 3.0);
}

void vs_ensemble_init(vs_ensemble_state *e, const vs_params *p)
{
    memset(e, 0, sizeof *e);
    const int npt = p->integrator.kind == VS_INTEGRATOR_NPT;
    e->chain = p->integrator.kind == VS_INTEGRATOR_NOSE_HOOVER || npt ? p->integrator.chain : 0;
    e->barostat = npt;
    for (int d = 0; d < 3; ++d)
        e->box[d] = npt ? p->system.box[d] : 0.0;
}

/* Q_k */
static double chain_mass(const vs_params *p, int k)
{
    const double q = p->dpd.kT * p->integrator.tau * p->integrator.tau;
    return k == 0 ? vs_ensemble_dof(p) * q : q;
}

/* The force on chain velocity k: (2K - N_f kT) / Q_1, or (Q_{k-1} v_{k-1}^2 - kT) / Q_k. */
static double chain_force(const vs_ensemble_state *e, const vs_params *p, int k)
{
    if (k == 0)
        return (e->ke2 - vs_ensemble_dof(p) * p->dpd.kT) / chain_mass(p, 0);
    return (chain_mass(p, k - 1) * e->vxi[k - 1] * e->vxi[k - 1] - p->dpd.kT) / chain_mass(p, k);
}

/* Thermostat velocity v[k] of a chain of m over dt/4 of its force (which depends on v[k - 1]
 * only), between two damping factors exp(-dt/8 v[k + 1]): the particle and the barostat chains. */
static void kick_chain(double *v, int k, int m, double force, double dt)
{
    const double damp = k + 1 < m ? exp(-0.125 * dt * v[k + 1]) : 1.0;
    v[k] *= damp;
    v[k] += force * (0.25 * dt);
    v[k] *= damp;
}

static void chain_kick(vs_ensemble_state *e, const vs_params *p, int k)
{
    kick_chain(e->vxi, k, e->chain, chain_force(e, p, k), p->integrator.dt);
}

double vs_nhc_half_step(vs_ensemble_state *e, const vs_params *p)
{
    const int m = e->chain;
    if (m <= 0 || !(p->dpd.kT > 0.0) || vs_ensemble_dof(p) <= 0.0)
        return 1.0; /* no chain, or massless thermostats (refused by the configuration) */
    for (int k = m - 1; k >= 0; --k)
        chain_kick(e, p, k);
    const double factor = exp(-0.5 * p->integrator.dt * e->vxi[0]);
    e->ke2 *= factor * factor;
    for (int k = 0; k < m; ++k)
        e->xi[k] += 0.5 * p->integrator.dt * e->vxi[k];
    for (int k = 0; k < m; ++k)
        chain_kick(e, p, k);
    return factor;
}

double vs_nhc_energy(const vs_ensemble_state *e, const vs_params *p)
{
    double energy = 0.0;
    for (int k = 0; k < e->chain; ++k) {
        const double drive = k == 0 ? vs_ensemble_dof(p) * p->dpd.kT : p->dpd.kT;
        energy += drive * e->xi[k] + 0.5 * chain_mass(p, k) * e->vxi[k] * e->vxi[k];
    }
    return energy;
}

double vs_berendsen_factor(const vs_params *p, double ke2)
{
    return vs_berendsen_scale(p->integrator.dt, p->integrator.tau, p->dpd.kT, ke2,
                              vs_ensemble_dof(p));
}

/* ---- npt ---------------------------------------------------------------------------- */

double vs_npt_mass(const vs_params *p)
{
    return (vs_ensemble_dof(p) + 3.0) * p->dpd.kT * p->integrator.tau_p * p->integrator.tau_p;
}

/* The barostat chain's mass (every link: the barostat is one degree of freedom). */
static double bchain_mass(const vs_params *p)
{
    return p->dpd.kT * p->integrator.tau_p * p->integrator.tau_p;
}

static double bchain_force(const vs_ensemble_state *e, const vs_params *p, int k)
{
    const double q = bchain_mass(p);
    if (k == 0)
        return (vs_npt_mass(p) * e->veps * e->veps - p->dpd.kT) / q;
    return (q * e->bvxi[k - 1] * e->bvxi[k - 1] - p->dpd.kT) / q;
}

static void bchain_kick(vs_ensemble_state *e, const vs_params *p, int k)
{
    kick_chain(e->bvxi, k, e->chain, bchain_force(e, p, k), p->integrator.dt);
}

void vs_npt_chain_half_step(vs_ensemble_state *e, const vs_params *p)
{
    const int m = e->chain;
    if (m <= 0 || !(p->dpd.kT > 0.0) || !(p->integrator.tau_p > 0.0))
        return;
    for (int k = m - 1; k >= 0; --k)
        bchain_kick(e, p, k);
    e->veps *= exp(-0.5 * p->integrator.dt * e->bvxi[0]);
    for (int k = 0; k < m; ++k)
        e->bxi[k] += 0.5 * p->integrator.dt * e->bvxi[k];
    for (int k = 0; k < m; ++k)
        bchain_kick(e, p, k);
}

void vs_npt_veps_half_step(vs_ensemble_state *e, const vs_params *p, double volume)
{
    const double dof = vs_ensemble_dof(p);
    if (!(dof > 0.0) || !(p->integrator.tau_p > 0.0))
        return;
    const double g = (1.0 + 3.0 / dof) * e->ke2 + e->virial - 3.0 * p->integrator.pressure * volume;
    e->veps += 0.5 * p->integrator.dt * g / vs_npt_mass(p);
}

/* sinh(y) / y, by its series where the quotient would lose digits. */
static double sinhc(double y)
{
    const double y2 = y * y;
    if (fabs(y) < 1e-3)
        return 1.0 + y2 / 6.0 * (1.0 + y2 / 20.0 * (1.0 + y2 / 42.0));
    return sinh(y) / y;
}

vs_npt_coefs vs_npt_coefs_make(const vs_ensemble_state *e, const vs_params *p)
{
    const double dof = vs_ensemble_dof(p), half_dt = 0.5 * p->integrator.dt;
    const double alpha = dof > 0.0 ? 1.0 + 3.0 / dof : 1.0;
    /* exp(-u) v + dt/2 exp(-u/2) sinhc(u/2) a solves dv/dt = a - alpha v_eps v over dt/2 */
    const double u = alpha * e->veps * half_dt, y = e->veps * p->integrator.dt;
    vs_npt_coefs c;
    c.cv = exp(-u);
    c.cf = half_dt * exp(-0.5 * u) * sinhc(0.5 * u);
    /* and exp(y) x + dt exp(y/2) sinhc(y/2) v solves dx/dt = v + v_eps x over dt */
    c.cx = exp(y);
    c.cxv = p->integrator.dt * exp(0.5 * y) * sinhc(0.5 * y);
    return c;
}

double vs_npt_energy(const vs_ensemble_state *e, const vs_params *p, double volume)
{
    double energy = p->integrator.pressure * volume + 0.5 * vs_npt_mass(p) * e->veps * e->veps;
    const double q = bchain_mass(p);
    for (int k = 0; k < e->chain; ++k)
        energy += p->dpd.kT * e->bxi[k] + 0.5 * q * e->bvxi[k] * e->bvxi[k];
    return energy + vs_nhc_energy(e, p);
}

void vs_ensemble_consts_make(vs_ensemble_consts *c, const vs_params *p)
{
    memset(c, 0, sizeof *c);
    const double half_dt = 0.5 * p->integrator.dt;
    for (int s = 0; s < p->species.n; ++s) {
        const double m = p->species.list[s].mass;
        c->mb_sigma[s] = sqrt(p->dpd.kT / m);
        if (p->integrator.friction > 0.0) {
            const double cc = exp(-p->integrator.friction * half_dt);
            c->ou_c[s] = cc;
            c->ou_sigma[s] = sqrt((1.0 - cc * cc) * p->dpd.kT / m);
            c->mobility_dt[s] = p->integrator.dt / (m * p->integrator.friction);
            c->bd_noise[s] =
                sqrt(2.0 * p->dpd.kT * p->integrator.dt / (m * p->integrator.friction));
        }
    }
    c->collide_p = p->integrator.collision_rate > 0.0
                       ? -expm1(-p->integrator.collision_rate * p->integrator.dt)
                       : 0.0;
}
