/* Test helpers: see test_support.h. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void vs_test_groot_warren(vs_params *p, double L)
{
    memset(p, 0, sizeof(*p));
    for (int d = 0; d < 3; ++d)
        p->system.box[d] = L;
    p->system.n_particles = llround(3.0 * L * L * L);
    p->system.density = (double)p->system.n_particles / (L * L * L);
    p->species.n = 1;
    snprintf(p->species.list[0].name, VS_NAME_LEN, "W");
    p->species.list[0].mass = 1.0;
    p->species.list[0].fraction = 1.0;
    p->system.seed = 2026;
    p->dpd.a[0][0] = 25.0;
    p->dpd.gamma.v = 4.5;
    p->dpd.kT = 1.0;
    p->dpd.rc = 1.0;
    p->dpd.s = 1.0;
    p->dpd.random = VS_RANDOM_UNIFORM;
    p->integrator.dt = 0.01;
    p->integrator.lambda = 0.5;
    p->integrator.steps = 0;
    p->neighbor.skin = 0.3;
    p->exec.backend = VS_BACKEND_CPU;
    p->exec.precision = VS_PRECISION_DOUBLE;
    p->exec.transport = VS_TRANSPORT_AUTO;
    p->exec.overlap = 1;
    snprintf(p->output.dir, VS_PATH_LEN, "/tmp/vesica-test");
    p->output.thermo_interval = 100;
}

double vs_test_worst_relative(const double *f, const double *ref, int64_t n)
{
    double rms = 0.0;
    for (int64_t k = 0; k < 3 * n; ++k)
        rms += ref[k] * ref[k];
    rms = sqrt(rms / (double)(n > 0 ? n : 1));
    double worst = 0.0;
    for (int64_t t = 0; t < n; ++t) {
        double diff = 0.0, mag = 0.0;
        for (int d = 0; d < 3; ++d) {
            diff += (f[3 * t + d] - ref[3 * t + d]) * (f[3 * t + d] - ref[3 * t + d]);
            mag += ref[3 * t + d] * ref[3 * t + d];
        }
        worst = fmax(worst, sqrt(diff) / fmax(sqrt(mag), 0.01 * rms));
    }
    return worst;
}
