/* vesica-rng-stream: the pair random numbers as a raw 32-bit stream, for dieharder.
 *
 * Writes native-endian 32-bit words to stdout until a write fails (dieharder -g 200 closes the
 * pipe when it has read enough). The order is the order in which a simulation draws them:
 * for step = 0, 1, ...; for tag i over a block of tags; for j = i+1 .. i+k: both words of the
 * pair bits of {i, j} at key (seed, step), from the tags' signatures as a simulation computes
 * them (src/core/tea_rng.h). --rounds N uses N pair cycles instead of VS_TEA_PAIR_CYCLES,
 * which is how docs/validation.md measures how few cycles suffice; the signatures keep
 * VS_TEA_ROUNDS.
 * --tag-base B starts the tag block at B, so tags above 2^32 are covered too.
 *
 * Links with nothing but libm; its only dependency is the header it tests.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tea_rng.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: vesica-rng-stream [--rounds N] [--seed S] [--tags T] [--neighbors K]"
            " [--tag-base B]\n"
            "Writes the pair random stream (raw native-endian 32-bit words) to stdout until the\n"
            "reader closes it. Defaults: --rounds %d (VS_TEA_PAIR_CYCLES) --seed 12345 --tags 1024\n"
            "--neighbors 16 --tag-base 0. Example: vesica-rng-stream | dieharder -g 200 -d 0\n",
            VS_TEA_PAIR_CYCLES);
}

/* Parses an unsigned decimal (or 0x hex) number into *out; 0 on success. */
static int parse_u64(const char *opt, const char *text, uint64_t *out)
{
    if (text == NULL) {
        fprintf(stderr, "vesica-rng-stream: %s needs a value\n", opt);
        return 1;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno != 0 || end == text || *end != '\0' || text[0] == '-') {
        fprintf(stderr, "vesica-rng-stream: %s expects a non-negative integer, got '%s'\n", opt,
                text);
        return 1;
    }
    *out = (uint64_t)v;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t rounds = VS_TEA_PAIR_CYCLES, seed = 12345, tags = 1024, neighbors = 16, tag_base = 0;
    for (int a = 1; a < argc; ++a) {
        const char *opt = argv[a];
        const char *val = a + 1 < argc ? argv[a + 1] : NULL;
        uint64_t *dst = NULL;
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(opt, "--rounds") == 0) {
            dst = &rounds;
        } else if (strcmp(opt, "--seed") == 0) {
            dst = &seed;
        } else if (strcmp(opt, "--tags") == 0) {
            dst = &tags;
        } else if (strcmp(opt, "--neighbors") == 0) {
            dst = &neighbors;
        } else if (strcmp(opt, "--tag-base") == 0) {
            dst = &tag_base;
        } else {
            fprintf(stderr, "vesica-rng-stream: unknown option '%s'\n", opt);
            usage(stderr);
            return 2;
        }
        if (parse_u64(opt, val, dst) != 0)
            return 2;
        ++a;
    }
    if (rounds > 64 || tags < 1 || neighbors < 1) {
        fprintf(stderr, "vesica-rng-stream: need 0 <= rounds <= 64, tags >= 1, neighbors >= 1\n");
        return 2;
    }

    enum { BUF_WORDS = 1 << 14 };
    static uint32_t buf[BUF_WORDS];
    size_t n = 0;
    /* one signature per tag of the block and its neighbours, per step */
    uint64_t *sig = malloc(sizeof *sig * (size_t)(tags + neighbors));
    if (sig == NULL) {
        fprintf(stderr, "vesica-rng-stream: out of memory for %" PRIu64 " signatures\n",
                tags + neighbors);
        return 1;
    }
    for (uint64_t step = 0;; ++step) {
        vs_tea_key key = vs_tea_make_key(seed, step);
        for (uint64_t t = 0; t < tags + neighbors; ++t)
            sig[t] = vs_signature_pack(vs_tag_signature(key, tag_base + t));
        for (uint64_t i = 0; i < tags; ++i) {
            for (uint64_t j = i + 1; j <= i + neighbors; ++j) {
                vs_tea_block b = vs_pair_bits_sig_n(key, sig[i], sig[j], (int)rounds);
                buf[n++] = b.v0;
                buf[n++] = b.v1;
                if (n == BUF_WORDS) {
                    if (fwrite(buf, sizeof buf[0], n, stdout) != n) {
                        free(sig);
                        return 0; /* the reader has gone: the normal way to stop */
                    }
                    n = 0;
                }
            }
        }
    }
}
