/* Unit tests of the pair random numbers (src/core/tea_rng.h).
 *
 * The DPD random force needs xi_ij with zero mean and unit variance, identical for (i, j) and
 * (j, i), and independent across pairs and steps (Groot & Warren 1997; Tang & Karniadakis 2014,
 * section 3.4). These tests check each of those properties directly:
 *   - known answer: at the full 32 cycles vs_tea_encrypt_n is Wheeler & Needham's TEA, so it
 *     must reproduce published test vectors (taken from outside this code base);
 *   - the two stages (per-particle signature, pair hash) compose to vs_pair_bits;
 *   - symmetry and distinctness of vs_pair_bits, including 64-bit tags;
 *   - the first, second and fourth moments of the uniform and Gaussian xi over 1e7 draws,
 *     each within 5 standard errors computed from the theoretical higher moments;
 *   - no Pearson correlation between the xi of one pair at consecutive steps, of
 *     neighbouring tag pairs, of the two words of one block, and of neighbouring seeds.
 *   - no product moment of the xi around triangles and quadrilaterals of tags (a many-body
 *     correlation that the stream tests cannot see), with a power check at one pair cycle.
 * Everything is seeded and deterministic; a Release build runs in a few seconds. The
 * dieharder study of the raw bit stream is separate (rng_stream.c, dieharder_subset.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "tea_rng.h"

#define SQRT3 1.7320508075688772

/* ---- helpers ----------------------------------------------------------------------------- */

/* A small deterministic 64-bit generator (the splitmix64 recurrence) for choosing test tags;
 * independent of the generator under test. */
static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int same_block(vs_tea_block a, vs_tea_block b)
{
    return a.v0 == b.v0 && a.v1 == b.v1;
}

/* ---- known answer ------------------------------------------------------------------------ */

/* TEA (Wheeler & Needham, "TEA, a Tiny Encryption Algorithm", FSE 1994) has 32 cycles. The
 * vectors below are the published ones used by two independent implementations:
 *   - Bouncy Castle, core/src/test/java/org/bouncycastle/crypto/test/TEATest.java
 *     (github.com/bcgit/bc-java), "based on C implementation results from
 *     simonshepherd.supanet.com/tea.htm"; the key and block bytes are big-endian words;
 *   - ACL2 Kestrel books, books/kestrel/crypto/tea/tea-tests.lisp (github.com/acl2/acl2).
 * The all-zero vector (41ea3a0a 94baa940) appears in both. */
static void test_tea_known_answer(void **state)
{
    (void)state;
    static const struct {
        uint32_t key[4], plain[2], cipher[2];
    } vec[] = {
        /* Bouncy Castle vectors 0-3 */
        {{0, 0, 0, 0}, {0x00000000u, 0x00000000u}, {0x41ea3a0au, 0x94baa940u}},
        {{0, 0, 0, 0}, {0x01020304u, 0x05060708u}, {0x6a2f9cf3u, 0xfccf3c55u}},
        {{0x01234567u, 0x12345678u, 0x23456789u, 0x3456789Au},
         {0x00000000u, 0x00000000u},
         {0x34e943b0u, 0x900f5dcbu}},
        {{0x01234567u, 0x12345678u, 0x23456789u, 0x3456789Au},
         {0x01020304u, 0x05060708u},
         {0x773dc179u, 0x878a81c0u}},
        /* ACL2 Kestrel vector */
        {{0x00112233u, 0x44556677u, 0x8899aabbu, 0xccddeeffu},
         {0x01234567u, 0x89abcdefu},
         {0x126c6b92u, 0xc0653a3eu}},
    };
    for (size_t t = 0; t < sizeof vec / sizeof vec[0]; ++t) {
        vs_tea_key key;
        for (int w = 0; w < 4; ++w)
            key.k[w] = vec[t].key[w];
        vs_tea_block c = vs_tea_encrypt_n(key, vec[t].plain[0], vec[t].plain[1], 32);
        if (c.v0 != vec[t].cipher[0] || c.v1 != vec[t].cipher[1])
            fail_msg("TEA vector %zu: got %08x %08x, expected %08x %08x", t, (unsigned)c.v0,
                     (unsigned)c.v1, (unsigned)vec[t].cipher[0], (unsigned)vec[t].cipher[1]);
    }
}

/* The key layout is (seed lo, seed hi, step lo, step hi); vs_tea_encrypt is encrypt_n at
 * VS_TEA_ROUNDS; a signature is the tag encrypted; the pair bits are the symmetric combination
 * of two signatures encrypted with VS_TEA_PAIR_CYCLES cycles, whichever way they are built. */
static void test_key_layout_and_default_rounds(void **state)
{
    (void)state;
    vs_tea_key key = vs_tea_make_key(0x0123456789abcdefull, 0xfedcba9876543210ull);
    assert_int_equal(key.k[0], 0x89abcdefu);
    assert_int_equal(key.k[1], 0x01234567u);
    assert_int_equal(key.k[2], 0x76543210u);
    assert_int_equal(key.k[3], 0xfedcba98u);
    uint64_t rng = 7;
    for (int t = 0; t < 1000; ++t) {
        uint64_t a = next_u64(&rng), b = next_u64(&rng) >> (t % 64);
        vs_tea_block x = vs_tea_encrypt(key, (uint32_t)a, (uint32_t)b);
        vs_tea_block y = vs_tea_encrypt_n(key, (uint32_t)a, (uint32_t)b, VS_TEA_ROUNDS);
        assert_true(same_block(x, y));
        const vs_tea_block sa = vs_tag_signature(key, a), sb = vs_tag_signature(key, b);
        assert_true(same_block(sa, vs_tea_encrypt(key, (uint32_t)a, (uint32_t)(a >> 32))));
        const vs_tea_block direct = vs_tea_encrypt_n(key, sa.v0 ^ sb.v0, sa.v1 + sb.v1,
                                                     VS_TEA_PAIR_CYCLES);
        assert_true(same_block(vs_pair_bits(key, a, b), direct));
        assert_true(same_block(vs_pair_bits_sig(key, vs_signature_pack(sa),
                                                vs_signature_pack(sb)), direct));
    }
}

/* ---- symmetry and distinctness ------------------------------------------------------------ */

static void test_pair_symmetry(void **state)
{
    (void)state;
    uint64_t rng = 20261122;
    for (int t = 0; t < 200000; ++t) {
        vs_tea_key key = vs_tea_make_key(next_u64(&rng), next_u64(&rng) % 1000000);
        uint64_t a = next_u64(&rng), b = next_u64(&rng);
        switch (t % 5) { /* small, 32-bit, 64-bit, near 2^32, mixed */
        case 0: a &= 0xFFFFF; b &= 0xFFFFF; break;
        case 1: a &= 0xFFFFFFFFu; b &= 0xFFFFFFFFu; break;
        case 2: break;
        case 3: a = 0xFFFFFFFFull + (a % 64) - 32; b = 0xFFFFFFFFull + (b % 64) - 32; break;
        default: a &= 0xFFFF; break;
        }
        vs_tea_block ab = vs_pair_bits(key, a, b), ba = vs_pair_bits(key, b, a);
        if (!same_block(ab, ba))
            fail_msg("bits(%llu,%llu) != bits(%llu,%llu)", (unsigned long long)a,
                     (unsigned long long)b, (unsigned long long)b, (unsigned long long)a);
    }
}

/* Pairs that share their low 32-bit words and differ only in the high words of one or both
 * tags must get different bits; so must different steps and seeds. */
static void test_pair_high_words_distinct(void **state)
{
    (void)state;
    uint64_t rng = 99;
    for (int t = 0; t < 100000; ++t) {
        vs_tea_key key = vs_tea_make_key(12345, (uint64_t)t);
        uint64_t a = next_u64(&rng) & 0xFFFFFFFFu, b = next_u64(&rng) & 0xFFFFFFFFu;
        if (a == b)
            continue;
        uint64_t h = 1 + next_u64(&rng) % 0xFFFFFFFFu, g = 1 + next_u64(&rng) % 0xFFFFFFFFu;
        if (h == g)
            g = g % 0xFFFFFFFFu + 1;
        vs_tea_block v[6] = {
            vs_pair_bits(key, a, b),
            vs_pair_bits(key, a | h << 32, b),
            vs_pair_bits(key, a, b | h << 32),
            vs_pair_bits(key, a | h << 32, b | h << 32),
            vs_pair_bits(key, a | h << 32, b | g << 32),
            vs_pair_bits(key, a | g << 32, b | h << 32),
        };
        for (int x = 0; x < 6; ++x)
            for (int y = x + 1; y < 6; ++y)
                if (same_block(v[x], v[y]))
                    fail_msg("pair variants %d and %d collide (a=%llu b=%llu h=%llu g=%llu)", x,
                             y, (unsigned long long)a, (unsigned long long)b,
                             (unsigned long long)h, (unsigned long long)g);
        /* the unordered pair decides, whichever argument carries the high word */
        assert_true(same_block(vs_pair_bits(key, b | h << 32, a), v[2]));
        assert_true(same_block(vs_pair_bits(key, b, a | h << 32), v[1]));
        vs_tea_key next_step = vs_tea_make_key(12345, (uint64_t)t + 1);
        vs_tea_key next_seed = vs_tea_make_key(12346, (uint64_t)t);
        assert_false(same_block(v[0], vs_pair_bits(next_step, a, b)));
        assert_false(same_block(v[0], vs_pair_bits(next_seed, a, b)));
    }
}

/* TEA has equivalent keys: flipping bit 31 of k[0] and k[1] together (or of k[2] and k[3])
 * leaves every cycle unchanged, because those words only enter as addends on the two sides of
 * one xor. So seed s and s ^ 0x8000000080000000 give the same stream (and so would two steps
 * 2^63 apart). docs/validation.md states this; if the key schedule ever changes, this test
 * says that the documentation must change with it. */
static void test_equivalent_seeds_documented(void **state)
{
    (void)state;
    const uint64_t flip = 0x8000000080000000ull;
    for (uint64_t s = 0; s < 1000; ++s) {
        vs_tea_block a = vs_pair_bits(vs_tea_make_key(s, s % 7), 3, 77);
        vs_tea_block b = vs_pair_bits(vs_tea_make_key(s ^ flip, s % 7), 3, 77);
        vs_tea_block c = vs_pair_bits(vs_tea_make_key(s ^ (1ull << 31), s % 7), 3, 77);
        assert_true(same_block(a, b));
        assert_false(same_block(a, c)); /* one bit 31 alone does change the stream */
    }
}

/* ---- moments ------------------------------------------------------------------------------ */

/* Power sums of xi over all pairs (i, j), i in [base, base + ntags), j in (i, i + nbr], at
 * steps [0, nsteps). */
typedef struct {
    double n, s1, s2, s4;
} sums;

static void add_sample(sums *s, double x)
{
    double x2 = x * x;
    s->n += 1.0;
    s->s1 += x;
    s->s2 += x2;
    s->s4 += x2 * x2;
}

/* z-score of a sample moment m of n independent draws whose population moment is mu and whose
 * single-draw statistic has population variance var. */
static double zscore(double m, double mu, double var, double n)
{
    return (m - mu) / sqrt(var / n);
}

/* Checks mean, second and fourth moment against mu2 = 1, mu4, with the variances of the
 * estimators taken from the theoretical moments (mean known to be zero, so the raw moments
 * about zero are the estimators):
 *   Var(x)   = mu2 = 1,  Var(x^2) = mu4 - 1,  Var(x^4) = mu8 - mu4^2.
 * Gaussian: mu4 = 3, mu8 = 105 (=> 1, 2, 96). Uniform on [-a, a], a^2 = 3:
 * mu_2k = 3^k / (2k + 1), so mu4 = 9/5, mu8 = 9 (=> 1, 0.8, 5.76). */
static void check_moments(const char *what, const sums *s, double mu4, double mu8)
{
    double n = s->n;
    double m1 = s->s1 / n, m2 = s->s2 / n, m4 = s->s4 / n;
    double z1 = zscore(m1, 0.0, 1.0, n);
    double z2 = zscore(m2, 1.0, mu4 - 1.0, n);
    double z4 = zscore(m4, mu4, mu8 - mu4 * mu4, n);
    print_message("%-22s n=%.0f mean=% .6f (z=% .2f) var=%.6f (z=% .2f) m4=%.5f/%.2f (z=% .2f)\n",
                  what, n, m1, z1, m2, z2, m4, mu4, z4);
    assert_true(fabs(z1) < 5.0);
    assert_true(fabs(z2) < 5.0);
    assert_true(fabs(z4) < 5.0);
}

static void moment_sweep(const char *label, uint64_t seed, uint64_t base, int nsteps, int ntags,
                         int nbr)
{
    sums g = {0, 0, 0, 0}, u = {0, 0, 0, 0};
    double umin = 0.0, umax = 0.0;
    for (int step = 0; step < nsteps; ++step) {
        vs_tea_key key = vs_tea_make_key(seed, (uint64_t)step);
        for (uint64_t i = base; i < base + (uint64_t)ntags; ++i) {
            for (uint64_t j = i + 1; j <= i + (uint64_t)nbr; ++j) {
                vs_tea_block b = vs_pair_bits(key, i, j);
                double xu = vs_xi_uniform(b);
                add_sample(&u, xu);
                add_sample(&g, vs_xi_gaussian(b));
                umin = xu < umin ? xu : umin;
                umax = xu > umax ? xu : umax;
            }
        }
    }
    char name[64];
    snprintf(name, sizeof name, "%s gaussian", label);
    check_moments(name, &g, 3.0, 105.0);
    snprintf(name, sizeof name, "%s uniform", label);
    check_moments(name, &u, 9.0 / 5.0, 9.0);
    print_message("%-22s min=%.7f max=%.7f (bounds +-%.7f)\n", name, umin, umax, SQRT3);
    assert_true(umin >= -SQRT3 && umax <= SQRT3);
    /* the range is filled: P(no draw within 1e-5 of an end) = exp(-50) at 1e7 draws */
    assert_true(umin < -SQRT3 * (1.0 - 1e-5 * 1e7 / u.n));
    assert_true(umax > SQRT3 * (1.0 - 1e-5 * 1e7 / u.n));
}

/* 1e7 draws: 40 steps x 2500 tags x 100 neighbours, small tags. */
static void test_moments_1e7(void **state)
{
    (void)state;
    moment_sweep("tags<2^32", 20261122, 0, 40, 2500, 100);
}

/* 2e6 draws on tags that straddle 2^32 (the high-word path) and start near 2^40. */
static void test_moments_64bit_tags(void **state)
{
    (void)state;
    moment_sweep("tags~2^32", 5, 0xFFFFFFFFull - 2500, 10, 5000, 20);
    moment_sweep("tags~2^40", 6, 1ull << 40, 10, 5000, 20);
}

/* ---- correlations ------------------------------------------------------------------------- */

typedef enum { XI_UNIFORM, XI_GAUSSIAN, XI_WORD1 } xi_kind;

static double xi_of(vs_tea_block b, xi_kind kind)
{
    switch (kind) {
    case XI_UNIFORM: return vs_xi_uniform(b);
    case XI_GAUSSIAN: return vs_xi_gaussian(b);
    default: { /* the second word as a uniform xi, to test the two words of one block */
        vs_tea_block w = {b.v1, b.v0};
        return vs_xi_uniform(w);
    }
    }
}

typedef enum { LAG_STEP, LAG_J, LAG_I, LAG_SEED, LAG_WORDS } lag_kind;

static const char *lag_name(lag_kind lag)
{
    switch (lag) {
    case LAG_STEP: return "(s,i,j)~(s+1,i,j)";
    case LAG_J: return "(i,j)~(i,j+1)";
    case LAG_I: return "(i,j)~(i+1,j)";
    case LAG_SEED: return "seed~seed+1";
    default: return "word0~word1";
    }
}

/* The pair bits with `cycles` TEA cycles in both stages (a weakened generator, to show that the
 * checks below have power). */
static vs_tea_block pair_bits_cycles(vs_tea_key key, uint64_t a, uint64_t b, int cycles)
{
    const vs_tea_block sa = vs_tea_encrypt_n(key, (uint32_t)a, (uint32_t)(a >> 32), cycles);
    const vs_tea_block sb = vs_tea_encrypt_n(key, (uint32_t)b, (uint32_t)(b >> 32), cycles);
    return vs_pair_bits_sig_n(key, vs_signature_pack(sa), vs_signature_pack(sb), cycles);
}

/* Pearson correlation of xi over n = nsteps*ntags*nbr pairs of draws related by `lag`.
 * cycles < 0 means vs_pair_bits itself, else pair_bits_cycles. */
static double correlation(lag_kind lag, xi_kind kind, int cycles, int nsteps, int ntags, int nbr,
                          double *n_out)
{
    const uint64_t seed = 424242;
    double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int step = 0; step < nsteps; ++step) {
        vs_tea_key k0 = vs_tea_make_key(seed, (uint64_t)step);
        vs_tea_key k1 = lag == LAG_STEP   ? vs_tea_make_key(seed, (uint64_t)step + 1)
                        : lag == LAG_SEED ? vs_tea_make_key(seed + 1, (uint64_t)step)
                                          : k0;
        for (uint64_t i = 0; i < (uint64_t)ntags; ++i) {
            /* j starts at i + 2 so that (i + 1, j) is still a pair of distinct tags */
            for (uint64_t j = i + 2; j < i + 2 + (uint64_t)nbr; ++j) {
                uint64_t i1 = lag == LAG_I ? i + 1 : i, j1 = lag == LAG_J ? j + 1 : j;
                vs_tea_block a = cycles < 0 ? vs_pair_bits(k0, i, j) : pair_bits_cycles(k0, i, j, cycles);
                vs_tea_block b =
                    cycles < 0 ? vs_pair_bits(k1, i1, j1) : pair_bits_cycles(k1, i1, j1, cycles);
                double x = xi_of(a, kind);
                double y = lag == LAG_WORDS ? xi_of(a, XI_WORD1) : xi_of(b, kind);
                n += 1;
                sx += x;
                sy += y;
                sxx += x * x;
                syy += y * y;
                sxy += x * y;
            }
        }
    }
    double cov = sxy / n - (sx / n) * (sy / n);
    double vx = sxx / n - (sx / n) * (sx / n), vy = syy / n - (sy / n) * (sy / n);
    *n_out = n;
    return cov / sqrt(vx * vy);
}

/* |rho| < 5/sqrt(n) for every lag, for the uniform and the Gaussian xi; n = 1e6 each. */
static void test_no_correlation(void **state)
{
    (void)state;
    const lag_kind lags[] = {LAG_STEP, LAG_J, LAG_I, LAG_SEED, LAG_WORDS};
    for (size_t l = 0; l < sizeof lags / sizeof lags[0]; ++l) {
        for (int kind = XI_UNIFORM; kind <= XI_GAUSSIAN; ++kind) {
            if (lags[l] == LAG_WORDS && kind == XI_GAUSSIAN)
                continue; /* the Gaussian uses both words */
            double n;
            double rho = correlation(lags[l], (xi_kind)kind, -1, 10, 1000, 100, &n);
            double bound = 5.0 / sqrt(n);
            print_message("corr %-18s %-8s n=%.0f rho=% .5f bound=%.5f\n", lag_name(lags[l]),
                          kind == XI_UNIFORM ? "uniform" : "gaussian", n, rho, bound);
            assert_true(fabs(rho) < bound);
        }
    }
}

/* The correlation test has power: with a single TEA cycle in each stage the xi of
 * neighbouring pairs are strongly correlated and the same check must see it. */
static void test_correlation_detects_one_cycle(void **state)
{
    (void)state;
    double n;
    double rho = correlation(LAG_J, XI_UNIFORM, 1, 10, 1000, 100, &n);
    print_message("corr (i,j)~(i,j+1) at 1 cycle: rho=% .5f bound=%.5f\n", rho, 5.0 / sqrt(n));
    assert_true(fabs(rho) > 5.0 / sqrt(n));
}

/* ---- loops: products of xi around triangles and quadrilaterals of tags ---------------------- */

/* Mean and standard error of xi_ab xi_bc xi_ca (points = 3) or xi_ab xi_bc xi_cd xi_da (4) over
 * n_loops loops of consecutive tags at random places (signatures as in the force loops, then
 * `pair_cycles` pair cycles). With no pair cycles the pair input is s_a ^ s_b in its first word,
 * and the xors around a loop cancel: the signs of a loop's xi are tied. No test of the stream
 * of pairs sees this in a neighbour-list order; it is a many-body correlation of the forces. */
static double loop_moment(int pair_cycles, int points, int n_steps, int n_loops, double *se)
{
    uint64_t lcg = 12345;
    double sum = 0.0, sum2 = 0.0, n = 0.0;
    for (int step = 0; step < n_steps; ++step) {
        const vs_tea_key key = vs_tea_make_key(424242, (uint64_t)step);
        for (int l = 0; l < n_loops; ++l) {
            lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
            const uint64_t base = (lcg >> 24) % 1000000;
            uint64_t sig[4];
            for (int q = 0; q < points; ++q)
                sig[q] = vs_signature_pack(vs_tag_signature(key, base + (uint64_t)q + 1));
            double prod = 1.0;
            for (int q = 0; q < points; ++q)
                prod *= vs_xi_uniform(
                    vs_pair_bits_sig_n(key, sig[q], sig[(q + 1) % points], pair_cycles));
            sum += prod;
            sum2 += prod * prod;
            n += 1.0;
        }
    }
    const double mean = sum / n;
    *se = sqrt((sum2 / n - mean * mean) / n);
    return mean;
}

/* At the default pair cycles no loop moment differs from 0 by 5 standard errors (2e6 loops). */
static void test_no_loop_correlation(void **state)
{
    (void)state;
    for (int points = 3; points <= 4; ++points) {
        double se;
        const double m = loop_moment(VS_TEA_PAIR_CYCLES, points, 20, 100000, &se);
        print_message("%d-point loops, %d pair cycles: mean % .5f se %.5f\n", points,
                      VS_TEA_PAIR_CYCLES, m, se);
        assert_true(fabs(m) < 5.0 * se);
    }
}

/* The loop test has power where the stream tests have none: one pair cycle passes the
 * dieharder subset (docs/validation.md), but its 4-point loop moment is about +0.010, 15
 * standard errors at 2e6 loops; with none, the 3-point moment is -0.74. */
static void test_loop_correlation_detects_one_pair_cycle(void **state)
{
    (void)state;
    double se;
    const double m1 = loop_moment(1, 4, 20, 100000, &se);
    print_message("4-point loops, 1 pair cycle: mean % .5f se %.5f\n", m1, se);
    assert_true(fabs(m1) > 5.0 * se);
    const double m0 = loop_moment(0, 3, 2, 100000, &se);
    print_message("3-point loops, 0 pair cycles: mean % .5f se %.5f\n", m0, se);
    assert_true(fabs(m0) > 5.0 * se);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tea_known_answer),
        cmocka_unit_test(test_key_layout_and_default_rounds),
        cmocka_unit_test(test_pair_symmetry),
        cmocka_unit_test(test_pair_high_words_distinct),
        cmocka_unit_test(test_equivalent_seeds_documented),
        cmocka_unit_test(test_moments_1e7),
        cmocka_unit_test(test_moments_64bit_tags),
        cmocka_unit_test(test_no_correlation),
        cmocka_unit_test(test_correlation_detects_one_cycle),
        cmocka_unit_test(test_no_loop_correlation),
        cmocka_unit_test(test_loop_correlation_detects_one_pair_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
