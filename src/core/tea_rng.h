/* Pair random numbers: TEA used as a keyed block cipher.
 *
 * xi_ij must be identical for (i, j) and (j, i), independent across pairs and steps, and the
 * same on every rank and backend that evaluates the pair, so no force is ever sent back
 * (Tang & Karniadakis 2014, section 3.4). The key is the 64-bit user seed and the 64-bit step
 * (four 32-bit words). Nothing depends on rank, thread or evaluation order.
 *
 * Two stages, after the paper's pre-computed signatures:
 *   signature s_i = TEA(key, tag_i) with VS_TEA_ROUNDS cycles, once per particle and step. TEA
 *     is a block cipher, so distinct 64-bit tags have distinct signatures, and the low-entropy
 *     inputs (small, consecutive tags; a step counter) are whitened once per particle;
 *   pair bits = TEA(key, (s_i.v0 ^ s_j.v0, s_i.v1 + s_j.v1)) with VS_TEA_PAIR_CYCLES cycles.
 *     The combination is symmetric in i and j, and for a fixed i distinct j give distinct
 *     blocks; the cycles break its linear structure.
 * The per-pair work drops from VS_TEA_ROUNDS cycles to VS_TEA_PAIR_CYCLES.
 *
 * VS_TEA_ROUNDS counts TEA cycles (each cycle is two Feistel rounds, as in Algorithm 4 of the
 * paper). Hashing the tags directly, dieharder's OPSO fails up to 10 cycles, is weak at 11
 * and passes from 12: neighbouring tags differ in few bits (docs/validation.md); the
 * signatures keep 16. The pair stage sees whitened inputs; docs/validation.md gives the
 * dieharder study of VS_TEA_PAIR_CYCLES.
 */
#ifndef VESICA_TEA_RNG_H
#define VESICA_TEA_RNG_H

#include <math.h>
#include <stdint.h>

#include "hostdevice.h"

#ifndef VS_TEA_ROUNDS
#define VS_TEA_ROUNDS 16
#endif

#ifndef VS_TEA_PAIR_CYCLES
#define VS_TEA_PAIR_CYCLES 4
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

/* The signature of the particle with this tag at this key (step). */
VS_HOST_DEVICE vs_tea_block vs_tag_signature(vs_tea_key key, uint64_t tag)
{
    return vs_tea_encrypt(key, (uint32_t)tag, (uint32_t)(tag >> 32));
}

/* Signatures are stored per particle as one 64-bit word. */
VS_HOST_DEVICE uint64_t vs_signature_pack(vs_tea_block s)
{
    return (uint64_t)s.v0 | (uint64_t)s.v1 << 32;
}

/* The 64 random bits of the unordered pair with packed signatures sig_a, sig_b, with `cycles`
 * pair cycles (the round-count study varies it; everything else uses vs_pair_bits_sig). */
VS_HOST_DEVICE vs_tea_block vs_pair_bits_sig_n(vs_tea_key key, uint64_t sig_a, uint64_t sig_b,
                                               int cycles)
{
    return vs_tea_encrypt_n(key, (uint32_t)sig_a ^ (uint32_t)sig_b,
                            (uint32_t)(sig_a >> 32) + (uint32_t)(sig_b >> 32), cycles);
}

VS_HOST_DEVICE vs_tea_block vs_pair_bits_sig(vs_tea_key key, uint64_t sig_a, uint64_t sig_b)
{
    return vs_pair_bits_sig_n(key, sig_a, sig_b, VS_TEA_PAIR_CYCLES);
}

/* The same bits from the tags (computes both signatures: for tests and tools; the force
 * loops compute each particle's signature once per step). */
VS_HOST_DEVICE vs_tea_block vs_pair_bits(vs_tea_key key, uint64_t tag_a, uint64_t tag_b)
{
    return vs_pair_bits_sig(key, vs_signature_pack(vs_tag_signature(key, tag_a)),
                            vs_signature_pack(vs_tag_signature(key, tag_b)));
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
