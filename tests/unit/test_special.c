/* Unit tests of the special-neighbour lists (src/core/special.h, special.c) on graphs whose
 * levels are known by hand: the shortest path along the bonds, as LAMMPS's special list.
 *
 * - a linear chain: an inner bead has two partners at each of 1-2, 1-3, 1-4, an end bead one;
 *   depth 2 stops at 1-3;
 * - rings of 3, 4 and 6 beads: a partner reached along both ways keeps its shortest level
 *   (in a ring of 4 the opposite bead is 1-3, never 1-4; in a ring of 3 both are 1-2);
 * - a tetrafunctional star of four arms of three: 12 partners of the centre, 4 at each level;
 * - more partners than VS_MAX_SPECIAL, and a partner the graph does not know: errors;
 * - the lookup: a tag not listed, and the bead itself, are level 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "special.h"

#define MAX_BEADS 64

typedef struct {
    int n;
    int deg[MAX_BEADS];
    int64_t adj[MAX_BEADS][4];
} graph;

static void bond(graph *g, int a, int b)
{
    g->adj[a][g->deg[a]++] = b;
    g->adj[b][g->deg[b]++] = a;
}

static int partners(void *ctx, int64_t tag, int64_t out[4])
{
    const graph *g = ctx;
    if (tag < 0 || tag >= g->n)
        return -1;
    for (int k = 0; k < g->deg[tag]; ++k)
        out[k] = g->adj[tag][k];
    return g->deg[tag];
}

static vs_special list_of(graph *g, int bead, int depth)
{
    vs_special s;
    char err[256];
    assert_int_equal(vs_special_build(bead, depth, partners, g, &s, err, sizeof err), 0);
    return s;
}

/* levels[t] expected for every tag t (0: not listed) */
static void expect(const vs_special *s, const int *levels, int n)
{
    int listed = 0;
    for (int t = 0; t < n; ++t) {
        assert_int_equal(vs_special_level(s, t), levels[t]);
        listed += levels[t] != 0;
    }
    assert_int_equal(s->n, listed);
}

static void chain(void **state)
{
    (void)state;
    graph g = {.n = 10};
    for (int k = 0; k + 1 < 10; ++k)
        bond(&g, k, k + 1);
    vs_special s = list_of(&g, 4, 3);
    expect(&s, (const int[10]){0, 3, 2, 1, 0, 1, 2, 3, 0, 0}, 10);
    s = list_of(&g, 0, 3);
    expect(&s, (const int[10]){0, 1, 2, 3, 0, 0, 0, 0, 0, 0}, 10);
    s = list_of(&g, 4, 2);
    expect(&s, (const int[10]){0, 0, 2, 1, 0, 1, 2, 0, 0, 0}, 10);
    s = list_of(&g, 9, 1);
    expect(&s, (const int[10]){0, 0, 0, 0, 0, 0, 0, 0, 1, 0}, 10);
}

static void rings(void **state)
{
    (void)state;
    for (int n = 3; n <= 6; ++n) {
        graph g = {.n = n};
        for (int k = 0; k < n; ++k)
            bond(&g, k, (k + 1) % n);
        vs_special s = list_of(&g, 0, 3);
        int levels[6] = {0};
        for (int t = 1; t < n; ++t) {
            const int ring_distance = t < n - t ? t : n - t;
            levels[t] = ring_distance;
        }
        expect(&s, levels, n);
    }
}

static void star(void **state)
{
    (void)state;
    graph g = {.n = 13};
    for (int arm = 0; arm < 4; ++arm) {
        const int first = 1 + 3 * arm;
        bond(&g, 0, first);
        bond(&g, first, first + 1);
        bond(&g, first + 1, first + 2);
    }
    vs_special s = list_of(&g, 0, 3);
    expect(&s, (const int[13]){0, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}, 13);
    s = list_of(&g, 1, 3); /* next to the centre: the other arms' first beads are 1-3 */
    expect(&s, (const int[13]){1, 0, 1, 2, 2, 3, 0, 2, 3, 0, 2, 3, 0}, 13);
}

static void errors(void **state)
{
    (void)state;
    /* a centre with 4 partners each with 3 more: 4 + 12 partners up to 1-3 */
    graph g = {.n = 17};
    for (int k = 0; k < 4; ++k) {
        bond(&g, 0, 1 + k);
        for (int q = 0; q < 3; ++q)
            bond(&g, 1 + k, 5 + 3 * k + q);
    }
    vs_special s;
    char err[256] = "";
    assert_int_equal(vs_special_build(0, 2, partners, &g, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 15 special neighbours"));
    assert_int_equal(vs_special_build(0, 1, partners, &g, &s, err, sizeof err), 0);
    graph h = {.n = 2};
    bond(&h, 0, 1);
    h.adj[1][h.deg[1]++] = 99; /* a bond to a bead the graph does not have */
    assert_int_equal(vs_special_build(0, 2, partners, &h, &s, err, sizeof err), 0);
    assert_int_equal(vs_special_build(0, 3, partners, &h, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "not in the system"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain),
        cmocka_unit_test(rings),
        cmocka_unit_test(star),
        cmocka_unit_test(errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
