/* Pair random numbers: TEA used as a keyed block cipher in counter mode.
 *
 * xi_ij must be identical for (i, j) and (j, i), independent across pairs and steps, and the
 * same on every rank and backend that evaluates the pair, so no force is ever sent back
 * (Tang & Karniadakis 2014, section 3.4). The key is the 64-bit user seed and the 64-bit step
 * (four 32-bit words); the plaintext block is (min tag, max tag). Nothing depends on rank,
 * thread or evaluation order.
 *
 * Tags below 2^32 take one encryption. Larger tags first encrypt their high words under the
 * same key and xor the result into the block, so distinct 64-bit pairs stay distinct blocks
 * with overwhelming probability while the common case pays nothing.
 *
 * VS_TEA_ROUNDS counts TEA cycles (each cycle is two Feistel rounds, as in Algorithm 4 of the
 * paper). The counter-mode blocks of neighbouring tags differ in few bits, so few cycles do
 * not mix enough: dieharder's OPSO test fails up to 10 cycles, is weak at 11 and passes from
 * 12 (docs/validation.md); 16 keeps a margin.
 */
#ifndef VESICA_TEA_RNG_H
#define VESICA_TEA_RNG_H

#include <math.h>
#include <stdint.h>

#include "hostdevice.h"

#ifndef VS_TEA_ROUNDS
#define VS_TEA_ROUNDS 16
#endif

#define VS_TEA_DELTA 0x9E3779B9u

typedef struct {
    uint32_t k[4];
} vs_tea_key;

typedef struct {
    uint32_t v0, v1;
} vs_tea_block;

VS_HOST_DEVICE vs_tea_key vs_tea_make_key(uint64_t seed, uint64_t step)
{
    vs_tea_key key;
    key.k[0] = (uint32_t)seed;
    key.k[1] = (uint32_t)(seed >> 32);
    key.k[2] = (uint32_t)step;
    key.k[3] = (uint32_t)(step >> 32);
    return key;
}

/* TEA encryption with a caller-chosen number of cycles (the round-count study uses this). */
VS_HOST_DEVICE vs_tea_block vs_tea_encrypt_n(vs_tea_key key, uint32_t v0, uint32_t v1,
                                             int cycles)
{
    uint32_t sum = 0;
    for (int c = 0; c < cycles; ++c) {
        sum += VS_TEA_DELTA;
        v0 += ((v1 << 4) + key.k[0]) ^ (v1 + sum) ^ ((v1 >> 5) + key.k[1]);
        v1 += ((v0 << 4) + key.k[2]) ^ (v0 + sum) ^ ((v0 >> 5) + key.k[3]);
    }
    vs_tea_block out;
    out.v0 = v0;
    out.v1 = v1;
    return out;
}

VS_HOST_DEVICE vs_tea_block vs_tea_encrypt(vs_tea_key key, uint32_t v0, uint32_t v1)
{
    return vs_tea_encrypt_n(key, v0, v1, VS_TEA_ROUNDS);
}

/* The 64 random bits of the unordered pair {tag_a, tag_b} at this key, with `cycles` TEA
 * cycles (the round-count study varies it; everything else uses vs_pair_bits). */
VS_HOST_DEVICE vs_tea_block vs_pair_bits_n(vs_tea_key key, uint64_t tag_a, uint64_t tag_b,
                                           int cycles)
{
    uint64_t lo = tag_a < tag_b ? tag_a : tag_b;
    uint64_t hi = tag_a < tag_b ? tag_b : tag_a;
    uint32_t v0 = (uint32_t)lo, v1 = (uint32_t)hi;
    uint32_t h0 = (uint32_t)(lo >> 32), h1 = (uint32_t)(hi >> 32);
    if (h0 | h1) {
        vs_tea_block pre = vs_tea_encrypt_n(key, h0, h1, cycles);
        v0 ^= pre.v0;
        v1 ^= pre.v1;
    }
    return vs_tea_encrypt_n(key, v0, v1, cycles);
}

VS_HOST_DEVICE vs_tea_block vs_pair_bits(vs_tea_key key, uint64_t tag_a, uint64_t tag_b)
{
    return vs_pair_bits_n(key, tag_a, tag_b, VS_TEA_ROUNDS);
}

/* Uniform on (0, 1) from 32 bits: the midpoint of one of 2^32 equal bins, never 0 or 1. */
VS_HOST_DEVICE double vs_u32_to_open_unit(uint32_t bits)
{
    return ((double)bits + 0.5) * (1.0 / 4294967296.0);
}

/* Zero mean, unit variance, uniform on [-sqrt(3), sqrt(3)]. Exact in double, so the CPU and
 * GPU backends produce identical values from identical bits. */
VS_HOST_DEVICE double vs_xi_uniform(vs_tea_block b)
{
    return 1.7320508075688772 * (2.0 * vs_u32_to_open_unit(b.v0) - 1.0);
}

/* Zero mean, unit variance Gaussian by Box-Muller from the two 32-bit words. */
VS_HOST_DEVICE double vs_xi_gaussian(vs_tea_block b)
{
    double u1 = vs_u32_to_open_unit(b.v0);
    double u2 = vs_u32_to_open_unit(b.v1);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
