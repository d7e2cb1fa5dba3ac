/* Test helpers: see test_support.h. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void vs_test_groot_warren(vs_params *p, double L)
{
    memset(p, 0, sizeof(*p));
    for (int d = 0; d < 3; ++d)
        p->box[d] = L;
    p->n_particles = llround(3.0 * L * L * L);
    p->density = (double)p->n_particles / (L * L * L);
    p->n_species = 1;
    snprintf(p->species[0].name, VS_NAME_LEN, "W");
    p->species[0].mass = 1.0;
    p->species[0].fraction = 1.0;
    p->seed = 2026;
    p->a[0][0] = 25.0;
    p->gamma = 4.5;
    p->kT = 1.0;
    p->rc = 1.0;
    p->s = 1.0;
    p->random = VS_RANDOM_UNIFORM;
    p->dt = 0.01;
    p->lambda = 0.5;
    p->steps = 0;
    p->skin = 0.3;
    p->backend = VS_BACKEND_CPU;
    p->precision = VS_PRECISION_DOUBLE;
    p->transport = VS_TRANSPORT_AUTO;
    p->overlap = 1;
    snprintf(p->output_dir, VS_PATH_LEN, "/tmp/vesica-test");
    p->thermo_interval = 100;
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
