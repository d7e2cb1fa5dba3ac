/* FNV-1a, 64 bits: the hashes of parameter sets that checkpoints store (pair styles, bonded
 * types). Changing it changes every stored hash. */
#ifndef VESICA_FNV_H
#define VESICA_FNV_H

#include <stddef.h>
#include <stdint.h>

#define VS_FNV_OFFSET 0xcbf29ce484222325ull

/* h with the n bytes at data folded in. */
static inline uint64_t vs_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = (const unsigned char *)data;
    for (size_t k = 0; k < n; ++k) {
        h ^= b[k];
        h *= 0x100000001b3ull;
    }
    return h;
}

#endif
