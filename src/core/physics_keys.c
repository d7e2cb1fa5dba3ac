/* The physics keys: see physics_keys.h. */
#include "physics_keys.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* A double as short as round-trips, always recognisable as a float (4.0, not 4). */
static void fmt_double(char *b, size_t n, double v)
{
    snprintf(b, n, "%.15g", v);
    if (strtod(b, NULL) != v)
        snprintf(b, n, "%.17g", v);
    if (isfinite(v) && !strpbrk(b, ".e") && strlen(b) + 3 <= n)
        strcat(b, ".0");
}

static vs_physics_key key_list[VS_CONFIG_SCHEMA_MAX];
static int n_keys = -1;

/* The key of a schema row: its path; per species, the member ("mass" of species.[].mass). */
static vs_physics_key key_of_row(const key_spec *r)
{
    static const char species_prefix[] = "species.[].";
    const int per_species = strncmp(r->path, species_prefix, sizeof species_prefix - 1) == 0;
    vs_physics_key k = {per_species ? r->path + sizeof species_prefix - 1 : r->path,
                        r->stored,
                        r->phys_kind,
                        per_species,
                        r->offset,
                        r->phys_kind == VS_PHYS_REAL ? (int)(r->size / sizeof(double)) : 1};
    return k;
}

const vs_physics_key *vs_physics_key_list(int *n)
{
    if (n_keys < 0) {
        int marked = 0, found = 1;
        for (int i = 0; i < vs_config_schema_count; ++i)
            marked += vs_config_schema[i].physics > 0;
        for (int place = 1; place <= marked && found; ++place) {
            found = 0;
            for (int i = 0; i < vs_config_schema_count; ++i)
                if (vs_config_schema[i].physics == place) {
                    key_list[place - 1] = key_of_row(&vs_config_schema[i]);
                    ++found;
                }
            if (found != 1)
                VS_FATAL("internal error: %d schema rows at physics place %d", found, place);
        }
        n_keys = marked;
    }
    *n = n_keys;
    return key_list;
}

/* VS_PHYS_ENUM values are read and written as int. */
_Static_assert(sizeof(vs_random_kind) == sizeof(int), "vs_random_kind is not int-sized");
_Static_assert(sizeof(vs_flow_kind) == sizeof(int), "vs_flow_kind is not int-sized");
_Static_assert(sizeof(vs_integrator_kind) == sizeof(int), "vs_integrator_kind is not int-sized");

/* The physics keys in the list's order: a visitor sees each value of a and of b, as doubles,
 * with its key name. */
typedef void (*physics_visit)(void *ctx, const char *key, const double *a, const double *b,
                              int n);

/* A name compared through a hash of its bytes. */
static double name_code(const char *name)
{
    double h = 0.0;
    for (const char *c = name; *c; ++c)
        h = h * 131.0 + (unsigned char)*c;
    return h;
}

/* One value (of species s for a per-species key) of a and of b; species names, for the
 * matrix keys, come from a. */
static void visit_key(const vs_physics_key *k, const vs_params *a, const vs_params *b, int s,
                      int ns, physics_visit f, void *ctx)
{
    const void *va = vs_physics_value(a, k, s), *vb = vs_physics_value(b, k, s);
    char key[96];
    if (k->per_species)
        snprintf(key, sizeof key, "species.[%d].%s", s, k->key);
    else
        snprintf(key, sizeof key, "%s", k->key);
    switch (k->kind) {
    case VS_PHYS_REAL:
        f(ctx, key, va, vb, k->count);
        break;
    case VS_PHYS_INT64: {
        const double da = (double)*(const int64_t *)va, db = (double)*(const int64_t *)vb;
        f(ctx, key, &da, &db, 1);
        break;
    }
    case VS_PHYS_SEED: {
        const uint64_t sa = *(const uint64_t *)va, sb = *(const uint64_t *)vb;
        const double ha = (double)(sa >> 32), hb = (double)(sb >> 32);
        const double la = (double)(sa & 0xffffffffu), lb = (double)(sb & 0xffffffffu);
        f(ctx, key, &ha, &hb, 1);
        f(ctx, key, &la, &lb, 1);
        break;
    }
    case VS_PHYS_ENUM:
    case VS_PHYS_COUNT: {
        const double da = (double)*(const int *)va, db = (double)*(const int *)vb;
        f(ctx, key, &da, &db, 1);
        break;
    }
    case VS_PHYS_NAME: {
        const double da = name_code(va), db = name_code(vb);
        f(ctx, key, &da, &db, 1);
        break;
    }
    case VS_PHYS_PAIR_REAL: {
        const vs_pair_real *pa = va, *pb = vb;
        if (vs_pair_real_uniform(pa, ns) && vs_pair_real_uniform(pb, ns)) {
            f(ctx, key, &pa->v, &pb->v, 1);
            break;
        }
        for (int i = 0; i < ns; ++i)
            for (int j = 0; j < ns; ++j) {
                const double xa = vs_pair_real_at(pa, i, j), xb = vs_pair_real_at(pb, i, j);
                snprintf(key, sizeof key, "%s.%s.%s", k->key, a->species.list[i].name,
                         a->species.list[j].name);
                f(ctx, key, &xa, &xb, 1);
            }
        break;
    }
    case VS_PHYS_MATRIX: {
        const double(*ma)[VS_MAX_SPECIES] = va;
        const double(*mb)[VS_MAX_SPECIES] = vb;
        for (int i = 0; i < ns; ++i)
            for (int j = 0; j < ns; ++j) {
                snprintf(key, sizeof key, "%s.%s.%s", k->key, a->species.list[i].name,
                         a->species.list[j].name);
                f(ctx, key, &ma[i][j], &mb[i][j], 1);
            }
        break;
    }
    }
}

/* integrator.pressure and integrator.tau_p (the barostat's keys, newer than the others). */
static int barostat_key(const vs_physics_key *k)
{
    return !k->per_species && (k->offset == offsetof(vs_params, integrator.pressure) ||
                               k->offset == offsetof(vs_params, integrator.tau_p));
}

/* No barostat on either side. */
static int no_barostat(const vs_params *a, const vs_params *b)
{
    return a->integrator.tau_p == 0.0 && b->integrator.tau_p == 0.0 &&
           a->integrator.pressure == 0.0 && b->integrator.pressure == 0.0;
}

/* The boundary keys and species.[].frozen (newer than the others). */
static int boundary_key(const vs_physics_key *k)
{
    return strncmp(k->key, "boundary.", 9) == 0 || strcmp(k->key, "frozen") == 0;
}

/* Every axis periodic and no frozen species. */
static int plain_boundary(const vs_params *p)
{
    for (int s = 0; s < p->species.n; ++s)
        if (p->species.list[s].frozen)
            return 0;
    return !vs_has_walls(p);
}

/* Every physics key of a and b, in the list's order; a run of per-species keys goes species
 * by species, over the species both have. */
static void visit_physics(const vs_params *a, const vs_params *b, physics_visit f, void *ctx)
{
    const int ns = a->species.n < b->species.n ? a->species.n : b->species.n;
    int n;
    const vs_physics_key *keys = vs_physics_key_list(&n);
    for (int k = 0; k < n;) {
        if (!keys[k].per_species && keys[k].offset == offsetof(vs_params, pair.code) &&
            a->pair.code == 0 && b->pair.code == 0) {
            ++k; /* no pair styles on either side: as before the key existed */
            continue;
        }
        if (!keys[k].per_species && keys[k].offset == offsetof(vs_params, molecules.code) &&
            ((a->molecules.code == 0 && b->molecules.code == 0) || a->molecules.code == -1 ||
             b->molecules.code == -1)) {
            ++k; /* no bonded types on either side, or a checkpoint from before the key */
            continue;
        }
        if (!keys[k].per_species && keys[k].offset == offsetof(vs_params, aniso.code) &&
            a->aniso.code == 0 && b->aniso.code == 0) {
            ++k; /* no oriented species on either side: as before the key existed */
            continue;
        }
        if (!keys[k].per_species && keys[k].offset == offsetof(vs_params, reactions.code) &&
            a->reactions.code == 0 && b->reactions.code == 0) {
            ++k; /* no reactions on either side: as before the key existed */
            continue;
        }
        if (!keys[k].per_species && keys[k].offset == offsetof(vs_params, field.code) &&
            a->field.code == 0 && b->field.code == 0) {
            ++k; /* no field on either side: as before the key existed */
            continue;
        }
        if (barostat_key(&keys[k]) && no_barostat(a, b)) {
            ++k; /* no barostat on either side: checkpoints from before it keep their hash */
            continue;
        }
        if (boundary_key(&keys[k]) && plain_boundary(a) && plain_boundary(b)) {
            ++k; /* periodic and nothing frozen on either side: as before the walls existed */
            continue;
        }
        if (!keys[k].per_species) {
            visit_key(&keys[k++], a, b, 0, ns, f, ctx);
            continue;
        }
        int end = k;
        while (end < n && keys[end].per_species)
            ++end;
        for (int s = 0; s < ns; ++s)
            for (int m = k; m < end; ++m)
                visit_key(&keys[m], a, b, s, ns, f, ctx);
        k = end;
    }
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
    if (strcmp(d.key, "pair") == 0)
        snprintf(what, len, "pair (the pair styles' coefficients, cut-offs or tables)");
    else if (strcmp(d.key, "bonded") == 0)
        snprintf(what, len, "bonded (a bond, angle or dihedral type's style, coefficients "
                 "or table)");
    else if (strcmp(d.key, "aniso") == 0)
        snprintf(what, len, "aniso (the anisotropic style, its coefficients or the species' "
                 "moments of inertia)");
    else if (strcmp(d.key, "reactions") == 0)
        snprintf(what, len, "reactions (a rule's species, radius, probability or bond and "
                 "angle types, or the interval)");
    else if (strcmp(d.key, "field") == 0)
        snprintf(what, len, "field (its spacing, interval, kappa, force, species or chi)");
    else if (strcmp(d.key, "seed") == 0 || strstr(d.key, ".name") ||
             strcmp(d.key, "dpd.random") == 0 || strcmp(d.key, "integrator.kind") == 0)
        snprintf(what, len, "%s", d.key); /* encoded values would only confuse */
    else
        snprintf(what, len, "%s (configuration %s, checkpoint %s)", d.key, a, b);
    return 1;
}

typedef struct {
    uint64_t h;
    int default_ensemble; /* the dpd integrator with every ensemble key zero */
} hash_ctx;

/* The ensemble's keys (integrator.* after dt and lambda), which a run with the default
 * integrator leaves out of the hash: its checkpoints keep the hash they had before the
 * ensembles existed, and those older files (which lack the keys) still restart. */
static int ensemble_key(const char *key)
{
    return strncmp(key, "integrator.", 11) == 0 && strcmp(key, "integrator.dt") != 0 &&
           strcmp(key, "integrator.lambda") != 0;
}

static void hash_values(void *ctx, const char *key, const double *a, const double *b, int n)
{
    (void)b;
    hash_ctx *c = ctx;
    if (c->default_ensemble && ensemble_key(key))
        return;
    const unsigned char *bytes = (const unsigned char *)a;
    for (size_t k = 0; k < sizeof(double) * (size_t)n; ++k) {
        c->h ^= bytes[k];
        c->h *= 0x100000001b3ull; /* FNV-1a */
    }
}

uint64_t vs_params_physics_hash(const vs_params *p)
{
    hash_ctx c = {0xcbf29ce484222325ull, 0};
    const vs_integrator_params *in = &p->integrator;
    c.default_ensemble = in->kind == VS_INTEGRATOR_DPD && in->tau == 0.0 && in->chain == 0 &&
                         in->friction == 0.0 && in->collision_rate == 0.0 &&
                         in->remove_com_every == 0;
    visit_physics(p, p, hash_values, &c);
    return c.h;
}

