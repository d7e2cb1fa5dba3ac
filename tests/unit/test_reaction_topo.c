/* Unit tests of the topology edits reactions make (src/core/topology.h) and of their draws
 * (src/core/reaction.h), on records built by hand:
 *
 * - removing a bond keeps the other bonds in their order with their types, and a bond the
 *   bead does not have is -1;
 * - a broken bond a-b takes the angles where a and b are consecutive (a-b-c, c-b-a, x-a-b)
 *   and leaves those where they are not (a-x-b, the angle at the far end); the same for
 *   dihedrals (a-b in the first, middle or last place, and a-x-b kept);
 * - a reaction draw is symmetric in the two tags, differs between the streams and from the
 *   DPD pairs' at the same step, and accepts with probability 0 never and 1 always.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "reaction.h"
#include "topology.h"

static void test_remove_bond(void **state)
{
    (void)state;
    vs_topo t;
    memset(&t, 0, sizeof t);
    vs_topo_add_bond(&t, 10, 0);
    vs_topo_add_bond(&t, 11, 1);
    vs_topo_add_bond(&t, 12, 2);
    assert_int_equal(vs_topo_remove_bond(&t, 11), 0);
    assert_int_equal(t.n_bond, 2);
    assert_int_equal(t.bond[0], 10);
    assert_int_equal(t.bond_type[0], 0);
    assert_int_equal(t.bond[1], 12);
    assert_int_equal(t.bond_type[1], 2);
    assert_int_equal(vs_topo_remove_bond(&t, 11), -1);
    assert_int_equal(vs_topo_remove_bond(&t, 12), 0);
    assert_int_equal(vs_topo_remove_bond(&t, 10), 0);
    assert_int_equal(t.n_bond, 0);
}

static void test_remove_angles(void **state)
{
    (void)state;
    vs_topo t;
    memset(&t, 0, sizeof t);
    vs_topo_add_angle(&t, 1, 2, 3, 0); /* 1-2 consecutive: goes */
    vs_topo_add_angle(&t, 3, 2, 1, 1); /* the same, reversed: goes */
    vs_topo_add_angle(&t, 1, 5, 2, 2); /* 1 and 2 not consecutive: stays */
    vs_topo_add_angle(&t, 7, 1, 2, 3); /* goes */
    vs_topo_add_angle(&t, 2, 3, 4, 4); /* stays */
    assert_int_equal(vs_topo_remove_angles_with(&t, 2, 1), 3);
    assert_int_equal(t.n_angle, 2);
    assert_int_equal(t.angle[0][1], 5);
    assert_int_equal(t.angle_type[0], 2);
    assert_int_equal(t.angle[1][1], 3);
    assert_int_equal(t.angle_type[1], 4);
    assert_int_equal(vs_topo_remove_angles_with(&t, 1, 2), 0);
}

static void test_remove_dihedrals(void **state)
{
    (void)state;
    vs_dihedrals d;
    memset(&d, 0, sizeof d);
    const int64_t q[4][4] = {{1, 2, 3, 4}, {5, 1, 2, 6}, {6, 7, 2, 1}, {1, 9, 2, 8}};
    for (int k = 0; k < 4; ++k)
        vs_topo_add_dihedral(&d, q[k], k);
    assert_int_equal(vs_dihedrals_remove_with(&d, 1, 2), 3);
    assert_int_equal(d.n_dihedral, 1);
    assert_int_equal(d.dihedral[0][1], 9);
    assert_int_equal(d.dihedral_type[0], 3);
}

static void test_draws(void **state)
{
    (void)state;
    const uint64_t seed = 12345, step = 500;
    const vs_tea_block a = vs_reaction_bits(seed, step, VS_RX_STREAM_CHAIN, 3, 77);
    const vs_tea_block b = vs_reaction_bits(seed, step, VS_RX_STREAM_CHAIN, 77, 3);
    assert_int_equal(a.v0, b.v0);
    assert_int_equal(a.v1, b.v1);
    const vs_tea_block c = vs_reaction_bits(seed, step, VS_RX_STREAM_CREATE, 3, 77);
    const vs_tea_block dpd = vs_pair_bits(vs_tea_make_key(seed, step), 3, 77);
    assert_true(a.v0 != c.v0 || a.v1 != c.v1);
    assert_true(a.v0 != dpd.v0 || a.v1 != dpd.v1);
    assert_false(vs_reaction_accept(a, 0.0));
    assert_true(vs_reaction_accept(a, 1.0));
    /* over many pairs the acceptance rate is p */
    int hits = 0;
    for (uint64_t t = 0; t < 20000; ++t)
        hits += vs_reaction_accept(vs_reaction_bits(seed, step, VS_RX_STREAM_BREAK, t, t + 1),
                                   0.25);
    assert_in_range(hits, 5000 - 4 * 61, 5000 + 4 * 61); /* sd sqrt(20000 .25 .75) = 61 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_remove_bond),
        cmocka_unit_test(test_remove_angles),
        cmocka_unit_test(test_remove_dihedrals),
        cmocka_unit_test(test_draws),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
