/* The physics keys of a run: what a restart must match bit for bit.
 *
 * The schema (param_schema.c) marks them: each physics key's row gives its place in a fixed
 * order, where it lives in vs_params and under which attribute a checkpoint stores it. The
 * list drives the comparison with a checkpoint and the hash stored in it (physics_keys.c)
 * and the checkpoint's /parameters group (io/checkpoint.c, both writing and reading), so a
 * key marked there is compared, hashed, stored and read back. The order is part of the
 * hash that checkpoints store. Run length, output, skin, decomposition, backend, precision
 * and walltime change how a run is carried out, not what it simulates, so they are not
 * physics keys. The pair styles enter as one hash of their
 * coefficients and tables (`pair`, vs_pair_set_code), left out of the comparison and the hash
 * where both sides have none, so checkpoints older than the pair styles keep their hash.
 */
#ifndef VESICA_PHYSICS_KEYS_H
#define VESICA_PHYSICS_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "param_schema.h"
#include "params.h"

typedef struct {
    const char *key;    /* configuration key as a difference names it ("dpd.gamma"); per species:
                           the member ("mass" of species.[N].mass) */
    const char *stored; /* attribute of /parameters in a checkpoint; NULL: not stored */
    vs_physics_kind kind;
    int per_species;    /* 1: a member of vs_species, one value (set) per species */
    size_t offset;      /* in vs_params, or in vs_species when per_species */
    int count;          /* doubles per value (VS_PHYS_REAL), else 1 */
} vs_physics_key;

/* The physics keys in the order of comparison, hash and storage: the schema's rows with a
 * physics place (param_schema.c), by that place. The per-species keys form one run right
 * after the species count: the comparison and the hash go species by species through the
 * run (species.[0].name, species.[0].mass, ..., species.[1].name, ...), a checkpoint stores
 * one attribute per key (all species). Built on first use; *n gets the count. */
const vs_physics_key *vs_physics_key_list(int *n);

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
