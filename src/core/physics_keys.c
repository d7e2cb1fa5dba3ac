/* The physics keys: see physics_keys.h. */
#include "physics_keys.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A double as short as round-trips, always recognisable as a float (4.0, not 4). */
static void fmt_double(char *b, size_t n, double v)
{
    snprintf(b, n, "%.15g", v);
    if (strtod(b, NULL) != v)
        snprintf(b, n, "%.17g", v);
    if (isfinite(v) && !strpbrk(b, ".e") && strlen(b) + 3 <= n)
        strcat(b, ".0");
}

/* The physics keys in a fixed order: a visitor sees each value with its key name. Everything
 * else (run length, output, neighbour skin, decomposition, backend, precision, walltime)
 * changes how the run is carried out, not what it simulates. */
typedef void (*physics_visit)(void *ctx, const char *key, const double *a, const double *b,
                              int n);

static void visit_physics(const vs_params *a, const vs_params *b, physics_visit f, void *ctx)
{
    const double na = (double)a->n_particles, nb = (double)b->n_particles;
    const double sa = (double)a->n_species, sb = (double)b->n_species;
    const double seeda = (double)(a->seed >> 32), seedb = (double)(b->seed >> 32);
    const double seeda2 = (double)(a->seed & 0xffffffffu), seedb2 = (double)(b->seed & 0xffffffffu);
    const double ra = (double)a->random, rb = (double)b->random;
    f(ctx, "box", a->box, b->box, 3);
    f(ctx, "particles", &na, &nb, 1);
    f(ctx, "seed", &seeda, &seedb, 1);
    f(ctx, "seed", &seeda2, &seedb2, 1);
    f(ctx, "species", &sa, &sb, 1);
    const int ns = a->n_species < b->n_species ? a->n_species : b->n_species;
    char key[96];
    for (int i = 0; i < ns; ++i) {
        /* names are compared through a hash of their bytes */
        double ha = 0.0, hb = 0.0;
        for (const char *c = a->species[i].name; *c; ++c)
            ha = ha * 131.0 + (unsigned char)*c;
        for (const char *c = b->species[i].name; *c; ++c)
            hb = hb * 131.0 + (unsigned char)*c;
        snprintf(key, sizeof key, "species.[%d].name", i);
        f(ctx, key, &ha, &hb, 1);
        snprintf(key, sizeof key, "species.[%d].mass", i);
        f(ctx, key, &a->species[i].mass, &b->species[i].mass, 1);
        snprintf(key, sizeof key, "species.[%d].fraction", i);
        f(ctx, key, &a->species[i].fraction, &b->species[i].fraction, 1);
        snprintf(key, sizeof key, "species.[%d].body_force", i);
        f(ctx, key, a->species[i].body_force, b->species[i].body_force, 3);
    }
    for (int i = 0; i < ns; ++i)
        for (int j = 0; j < ns; ++j) {
            snprintf(key, sizeof key, "dpd.a.%s.%s", a->species[i].name, a->species[j].name);
            f(ctx, key, &a->a[i][j], &b->a[i][j], 1);
        }
    f(ctx, "dpd.gamma", &a->gamma, &b->gamma, 1);
    f(ctx, "dpd.kT", &a->kT, &b->kT, 1);
    f(ctx, "dpd.rc", &a->rc, &b->rc, 1);
    f(ctx, "dpd.s", &a->s, &b->s, 1);
    f(ctx, "dpd.random", &ra, &rb, 1);
    f(ctx, "integrator.dt", &a->dt, &b->dt, 1);
    f(ctx, "integrator.lambda", &a->lambda, &b->lambda, 1);
}

typedef struct {
    char key[96]; /* empty until a difference is found */
    double a, b;
} first_diff;

static void find_diff(void *ctx, const char *key, const double *a, const double *b, int n)
{
    first_diff *d = ctx;
    if (d->key[0])
        return;
    for (int k = 0; k < n; ++k)
        if (memcmp(&a[k], &b[k], sizeof(double)) != 0) {
            snprintf(d->key, sizeof d->key, "%s", key);
            d->a = a[k];
            d->b = b[k];
            return;
        }
}

int vs_params_physics_diff(const vs_params *config, const vs_params *stored, char *what,
                           size_t len)
{
    first_diff d = {"", 0.0, 0.0};
    visit_physics(config, stored, find_diff, &d);
    if (!d.key[0])
        return 0;
    char a[48], b[48];
    fmt_double(a, sizeof a, d.a);
    fmt_double(b, sizeof b, d.b);
    if (strcmp(d.key, "seed") == 0 || strstr(d.key, ".name") || strcmp(d.key, "dpd.random") == 0)
        snprintf(what, len, "%s", d.key); /* encoded values would only confuse */
    else
        snprintf(what, len, "%s (configuration %s, checkpoint %s)", d.key, a, b);
    return 1;
}

static void hash_values(void *ctx, const char *key, const double *a, const double *b, int n)
{
    (void)key;
    (void)b;
    uint64_t *h = ctx;
    const unsigned char *bytes = (const unsigned char *)a;
    for (size_t k = 0; k < sizeof(double) * (size_t)n; ++k) {
        *h ^= bytes[k];
        *h *= 0x100000001b3ull; /* FNV-1a */
    }
}

uint64_t vs_params_physics_hash(const vs_params *p)
{
    uint64_t h = 0xcbf29ce484222325ull;
    visit_physics(p, p, hash_values, &h);
    return h;
}

