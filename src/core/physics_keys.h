/* The physics keys of a run: what a restart must match bit for bit.
 *
 * One list, VS_PHYSICS_KEYS below, names them in a fixed order with where each lives in
 * vs_params and under which attribute a checkpoint stores it. It drives the comparison with a
 * checkpoint and the hash stored in it (physics_keys.c) and the checkpoint's /parameters group
 * (io/checkpoint.c, both writing and reading), so a key added here is compared, hashed, stored
 * and read back. The order is part of the hash that checkpoints store. Run length, output,
 * skin, decomposition, backend, precision and walltime change how a run is carried out, not
 * what it simulates, so they are not physics keys. The pair styles enter as one hash of their
 * coefficients and tables (`pair`, vs_pair_set_code), left out of the comparison and the hash
 * where both sides have none, so checkpoints older than the pair styles keep their hash.
 */
#ifndef VESICA_PHYSICS_KEYS_H
#define VESICA_PHYSICS_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"

/* How a key's value is held, compared (as doubles, bit for bit) and stored. */
typedef enum {
    VS_PHYS_REAL,   /* `count` doubles; stored as doubles */
    VS_PHYS_INT64,  /* an int64_t, compared as a double; stored as a 64-bit integer */
    VS_PHYS_SEED,   /* the uint64_t seed, compared as its two 32-bit halves (both under the key's
                       name, high half first); stored as a 64-bit integer */
    VS_PHYS_ENUM,   /* an enum member (int-sized), compared as a double; stored as a 64-bit
                       integer */
    VS_PHYS_COUNT,  /* the int n_species, compared as a double; not stored: a checkpoint's count
                       is the length of its species names */
    VS_PHYS_NAME,   /* per species: the name, compared through a hash of its bytes; stored as a
                       fixed-length string array */
    VS_PHYS_MATRIX  /* the n_species x n_species doubles of a[][], compared row by row as
                       dpd.a.I.J; stored row-major as one array */
} vs_physics_kind;

typedef struct {
    const char *key;    /* configuration key as a difference names it ("dpd.gamma"); per species:
                           the member ("mass" of species.[N].mass) */
    const char *stored; /* attribute of /parameters in a checkpoint; NULL: not stored */
    vs_physics_kind kind;
    int per_species;    /* 1: a member of vs_species, one value (set) per species */
    size_t offset;      /* in vs_params, or in vs_species when per_species */
    int count;          /* doubles per value (VS_PHYS_REAL), else 1 */
} vs_physics_key;

/* X(key, stored, kind, per_species, offset, count), in the order of comparison, hash and
 * storage. The per-species keys form one run right after the species count: the comparison
 * and the hash go species by species through the run (species.[0].name, species.[0].mass,
 * ..., species.[1].name, ...), a checkpoint stores one attribute per key (all species). */
#define VS_PHYSICS_KEYS(X)                                                                    \
    X("box", "box", VS_PHYS_REAL, 0, offsetof(vs_params, system.box), 3)                             \
    X("particles", "particles", VS_PHYS_INT64, 0, offsetof(vs_params, system.n_particles), 1)        \
    X("seed", "seed", VS_PHYS_SEED, 0, offsetof(vs_params, system.seed), 1)                          \
    X("species", NULL, VS_PHYS_COUNT, 0, offsetof(vs_params, species.n), 1)                   \
    X("name", "species_names", VS_PHYS_NAME, 1, offsetof(vs_species, name), 1)               \
    X("mass", "species_mass", VS_PHYS_REAL, 1, offsetof(vs_species, mass), 1)                 \
    X("fraction", "species_fraction", VS_PHYS_REAL, 1, offsetof(vs_species, fraction), 1)     \
    X("body_force", "species_body_force", VS_PHYS_REAL, 1, offsetof(vs_species, body_force), \
      3)                                                                                      \
    X("dpd.a", "a", VS_PHYS_MATRIX, 0, offsetof(vs_params, dpd.a), 1)                             \
    X("dpd.gamma", "gamma", VS_PHYS_REAL, 0, offsetof(vs_params, dpd.gamma), 1)                   \
    X("dpd.kT", "kT", VS_PHYS_REAL, 0, offsetof(vs_params, dpd.kT), 1)                            \
    X("dpd.rc", "rc", VS_PHYS_REAL, 0, offsetof(vs_params, dpd.rc), 1)                            \
    X("dpd.s", "s", VS_PHYS_REAL, 0, offsetof(vs_params, dpd.s), 1)                               \
    X("dpd.random", "random", VS_PHYS_ENUM, 0, offsetof(vs_params, dpd.random), 1)                \
    X("integrator.dt", "dt", VS_PHYS_REAL, 0, offsetof(vs_params, integrator.dt), 1)                     \
    X("integrator.lambda", "lambda", VS_PHYS_REAL, 0, offsetof(vs_params, integrator.lambda), 1)       \
    X("flow.kind", "flow_kind", VS_PHYS_ENUM, 0, offsetof(vs_params, flow.kind), 1)          \
    X("flow.axis", "flow_axis", VS_PHYS_ENUM, 0, offsetof(vs_params, flow.axis), 1)          \
    X("flow.across", "flow_across", VS_PHYS_ENUM, 0, offsetof(vs_params, flow.across), 1)    \
    X("flow.species", "flow_species", VS_PHYS_ENUM, 0, offsetof(vs_params, flow.species), 1) \
    X("flow.g", "flow_g", VS_PHYS_REAL, 0, offsetof(vs_params, flow.g), 1)                 \
    X("pair", "pair_code", VS_PHYS_INT64, 0, offsetof(vs_params, pair.code), 1)                 \
    X("integrator.kind", "integrator_kind", VS_PHYS_ENUM, 0, offsetof(vs_params, integrator.kind), \
      1)                                                                                      \
    X("integrator.tau", "integrator_tau", VS_PHYS_REAL, 0, offsetof(vs_params, integrator.tau), 1)       \
    X("integrator.chain", "integrator_chain", VS_PHYS_ENUM, 0, offsetof(vs_params, integrator.chain), 1) \
    X("integrator.gamma", "integrator_gamma", VS_PHYS_REAL, 0, offsetof(vs_params, integrator.friction), \
      1)                                                                                      \
    X("integrator.collision_rate", "integrator_collision_rate", VS_PHYS_REAL, 0,              \
      offsetof(vs_params, integrator.collision_rate), 1)                                                 \
    X("integrator.remove_com_every", "integrator_remove_com_every", VS_PHYS_INT64, 0,         \
      offsetof(vs_params, integrator.remove_com_every), 1)                                               \
    X("integrator.pressure", "integrator_pressure", VS_PHYS_REAL, 0,                          \
      offsetof(vs_params, integrator.pressure), 1)                                                       \
    X("integrator.tau_p", "integrator_tau_p", VS_PHYS_REAL, 0, offsetof(vs_params, integrator.tau_p), 1)

#define VS_PHYSICS_KEY_ONE_(key, stored, kind, per_species, offset, count) +1
enum { VS_N_PHYSICS_KEYS = 0 VS_PHYSICS_KEYS(VS_PHYSICS_KEY_ONE_) };

/* The list as a table, in its order. */
extern const vs_physics_key vs_physics_keys[VS_N_PHYSICS_KEYS];

/* Where key k's value lives in p (per-species keys: for species s; s is ignored otherwise). */
static inline const void *vs_physics_value(const vs_params *p, const vs_physics_key *k, int s)
{
    const char *base = k->per_species ? (const char *)&p->species.list[s] : (const char *)p;
    return base + k->offset;
}
static inline void *vs_physics_value_mut(vs_params *p, const vs_physics_key *k, int s)
{
    char *base = k->per_species ? (char *)&p->species.list[s] : (char *)p;
    return base + k->offset;
}

/* Compare the physics keys of a configuration with those stored in a checkpoint. Returns 0
 * when they agree bit for bit; otherwise 1 with the first differing key (and both values) in
 * `what`. */
int vs_params_physics_diff(const vs_params *config, const vs_params *stored, char *what,
                           size_t len);
/* 64-bit FNV-1a hash of the physics keys (stored in checkpoints). */
uint64_t vs_params_physics_hash(const vs_params *p);

#endif
