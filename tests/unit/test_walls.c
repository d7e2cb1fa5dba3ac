/* The walls' physics written once (src/core/wrap.h, vs_walls_reflect; src/core/wall.h): the
 * reflection of each kind at each face, a corner crossed on two axes at once, an escape, and
 * the wall force's two forms, against values worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "params.h"
#include "wall.h"
#include "wrap.h"

/* Walls of kind k along z of a 10 x 10 x 6 box (x, y periodic), the upper one moving along x
 * at 0.5 and the lower one along y at -0.25 (bounce-back only). */
static vs_walls walls_z(int kind)
{
    vs_walls w;
    memset(&w, 0, sizeof w);
    w.kind[2] = kind;
    w.len[0] = w.len[1] = 10.0;
    w.len[2] = 6.0;
    w.u[2][0][1] = kind == 2 ? -0.25 : 0.0;
    w.u[2][1][0] = kind == 2 ? 0.5 : 0.0;
    return w;
}

static void test_bounce_forward(void **state)
{
    (void)state;
    const vs_walls w = walls_z(1);
    double x[3] = {1.0, 2.0, -0.125}, v[3] = {1.0, -2.0, -3.0}, vp[3] = {0.5, 0.25, -2.5};
    assert_int_equal(vs_walls_reflect(&w, x, v, vp), 0);
    assert_true(x[2] == 0.125 && x[0] == 1.0 && x[1] == 2.0);
    assert_true(v[0] == 1.0 && v[1] == -2.0 && v[2] == 3.0); /* the normal reversed exactly */
    assert_true(vp[0] == 0.5 && vp[1] == 0.25 && vp[2] == 2.5);
    double y[3] = {1.0, 2.0, 6.25}, u[3] = {1.0, -2.0, 3.0}, up[3] = {0.0, 0.0, 1.0};
    assert_int_equal(vs_walls_reflect(&w, y, u, up), 0);
    assert_true(y[2] == 5.75 && u[2] == -3.0 && up[2] == -1.0 && u[0] == 1.0);
    double in[3] = {1.0, 2.0, 3.0}, v0[3] = {1.0, 1.0, 1.0}, p0[3] = {1.0, 1.0, 1.0};
    assert_int_equal(vs_walls_reflect(&w, in, v0, p0), 0); /* inside: untouched */
    assert_true(in[2] == 3.0 && v0[2] == 1.0);
}

static void test_bounce_back(void **state)
{
    (void)state;
    const vs_walls w = walls_z(2);
    /* at the lower wall (u = (0, -0.25, 0)): v -> 2 u - v */
    double x[3] = {1.0, 2.0, -0.5}, v[3] = {1.0, -2.0, -3.0}, vp[3] = {0.0, 0.0, -1.0};
    assert_int_equal(vs_walls_reflect(&w, x, v, vp), 0);
    assert_true(x[2] == 0.5);
    assert_true(v[0] == -1.0 && v[1] == 1.5 && v[2] == 3.0);
    assert_true(vp[0] == 0.0 && vp[1] == -0.5 && vp[2] == 1.0);
    /* at the upper wall (u = (0.5, 0, 0)) */
    double y[3] = {1.0, 2.0, 6.0}, u[3] = {1.0, -2.0, 3.0}, up[3] = {1.0, -2.0, 3.0};
    assert_int_equal(vs_walls_reflect(&w, y, u, up), 0);
    assert_true(y[2] < 6.0 && y[2] == nextafter(6.0, 0.0)); /* exactly at the edge: inside */
    assert_true(u[0] == 0.0 && u[1] == 2.0 && u[2] == -3.0);
}

/* An edge of a closed bounce-back box crossed on x and z in one step: mirrored on both, the
 * velocity reversed once (not twice, which would send it out again), both normals inward. */
static void test_corner(void **state)
{
    (void)state;
    vs_walls w = walls_z(2);
    w.kind[0] = 2;
    double x[3] = {-0.25, 5.0, 6.5}, v[3] = {-1.0, 0.5, 2.0}, vp[3] = {-1.0, 0.5, 2.0};
    assert_int_equal(vs_walls_reflect(&w, x, v, vp), 0);
    assert_true(x[0] == 0.25 && x[2] == 5.5);
    /* u = the upper z wall's (0.5, 0, 0): v -> (2, -0.5, -2) */
    assert_true(v[0] == 2.0 && v[1] == -0.5 && v[2] == -2.0);
}

static void test_escape(void **state)
{
    (void)state;
    const vs_walls w = walls_z(1);
    double x[3] = {1.0, 2.0, -7.0}, v[3] = {0.0, 0.0, -1.0}, vp[3] = {0.0, 0.0, -1.0};
    assert_int_equal(vs_walls_reflect(&w, x, v, vp), 1); /* more than a box edge */
    double n[3] = {1.0, 2.0, NAN}, vn[3] = {0, 0, 0}, pn[3] = {0, 0, 0};
    assert_int_equal(vs_walls_reflect(&w, n, vn, pn), 1); /* not finite: never inside */
}

static void test_wall_force(void **state)
{
    (void)state;
    /* erfc: f erfc(sqrt(3) (h - d/2) / d): f at h = d/2, f erfc(-sqrt(3)/2) at the face */
    assert_true(fabs(vs_wall_force_at(0.25, 1, 2.0, 0.5) - 2.0) < 1e-15);
    assert_true(fabs(vs_wall_force_at(0.0, 1, 2.0, 0.5) - 2.0 * 1.7793286380801532) < 1e-12);
    assert_true(vs_wall_force_at(0.5, 1, 2.0, 0.5) == 0.0); /* zero from d on */
    /* dpd: f (1 - h/d) */
    assert_true(vs_wall_force_at(0.0, 2, 3.0, 1.0) == 3.0);
    assert_true(vs_wall_force_at(0.25, 2, 3.0, 1.0) == 2.25);
    assert_true(vs_wall_force_at(1.5, 2, 3.0, 1.0) == 0.0);
    /* both walls of a 6 edge: pushed up near 0, down near 6, nothing in the middle */
    assert_true(vs_wall_force(0.25, 6.0, 2, 3.0, 1.0) == 2.25);
    assert_true(vs_wall_force(5.75, 6.0, 2, 3.0, 1.0) == -2.25);
    assert_true(vs_wall_force(3.0, 6.0, 2, 3.0, 1.0) == 0.0);
}

/* The integrators' view of the configuration (params.h, vs_walls_of): velocities only on a
 * bounce-back axis. */
static void test_walls_of(void **state)
{
    (void)state;
    vs_params p;
    memset(&p, 0, sizeof p);
    p.system.box[0] = p.system.box[1] = p.system.box[2] = 8.0;
    p.boundary.axis[0].kind = VS_BOUNDARY_BOUNCE_FORWARD;
    p.boundary.axis[0].velocity_hi[1] = 1.0; /* refused by the parser; ignored here */
    p.boundary.axis[2].kind = VS_BOUNDARY_BOUNCE_BACK;
    p.boundary.axis[2].velocity_lo[0] = -0.5;
    const vs_walls w = vs_walls_of(&p);
    assert_true(w.kind[0] == 1 && w.kind[1] == 0 && w.kind[2] == 2);
    assert_true(w.u[0][1][1] == 0.0 && w.u[2][0][0] == -0.5 && w.len[2] == 8.0);
    assert_true(vs_has_walls(&p) && vs_axis_periodic(&p, 1) && !vs_axis_periodic(&p, 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounce_forward), cmocka_unit_test(test_bounce_back),
        cmocka_unit_test(test_corner),         cmocka_unit_test(test_escape),
        cmocka_unit_test(test_wall_force),     cmocka_unit_test(test_walls_of),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
