/* Unit tests of the soft anisotropic pair potentials (src/core/pair_aniso.h).
 *
 * - every model (disk, rod, janus, triblock) and several exponents nu: over random pair
 *   geometries the force on i is minus the central-difference gradient of U in R, and the
 *   gradients g_i, g_j are minus the central-difference gradients of U in n_i, n_j (free
 *   vectors); the pair seen from j gives the opposite force and the gradients swapped, bit
 *   for bit (the rank-count invariance of runs rests on it);
 * - the Janus and triblock factors just inside their switching points (cos th = cos beta +
 *   delta) for nu = 1, 2 and 0.5, with steps far below delta, and zero force beyond the
 *   factor's part just outside;
 * - closed forms: disk and rod at their extreme orientations, Janus patches facing (f = 1),
 *   away (f = 0) and the triblock's symmetry under n -> -n;
 * - the float body (vs_aniso_eval_f, the GPU's mixed precision) on the random geometries:
 *   within 1e-4 of the double body's largest component at the same (float) inputs, and the
 *   pair from j bit for bit opposite in float too.
 * The references are the energy formulas themselves, evaluated here independently of the
 * derivatives.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "pair_aniso.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The energy of the issue's formulas, written apart from the evaluator. */
static double energy_ref(int style, const vs_aniso_coeff *c, const double R[3],
                         const double ni[3], const double nj[3])
{
    const double d = sqrt(R[0] * R[0] + R[1] * R[1] + R[2] * R[2]);
    const double r = d / c->rc;
    double ni_e = 0, nj_e = 0;
    for (int q = 0; q < 3; ++q) {
        ni_e += ni[q] * R[q] / d;
        nj_e += nj[q] * R[q] / d;
    }
    if (style == VS_ANISO_DISK || style == VS_ANISO_ROD) {
        const double f = style == VS_ANISO_DISK ? fabs(ni_e * nj_e)
                                                : sqrt(fmax(1 - ni_e * ni_e, 0)) *
                                                      sqrt(fmax(1 - nj_e * nj_e, 0));
        return 0.5 * c->alpha * (1 - c->mu * pow(f, c->nu)) * (1 - r) * (1 - r);
    }
    double ci = -ni_e, cj = nj_e; /* cos th_i: n_i with r_ji; cos th_j: n_j with r_ij */
    if (style == VS_ANISO_TRIBLOCK) {
        ci = fabs(ci);
        cj = fabs(cj);
    }
    double f = 0;
    if (ci >= cos(c->beta) && cj >= cos(c->beta))
        f = cos(M_PI * acos(fmin(ci, 1)) / (2 * c->beta)) *
            cos(M_PI * acos(fmin(cj, 1)) / (2 * c->beta));
    return 0.5 * c->alpha * (1 - r) * (1 - r) - pow(f, c->nu) * 0.5 * c->alpha_a * (r - r * r);
}

static double urand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static void unit_vector(uint64_t *s, double v[3])
{
    double n2;
    do {
        for (int q = 0; q < 3; ++q)
            v[q] = 2 * urand(s) - 1;
        n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    } while (n2 > 1 || n2 < 1e-4);
    for (int q = 0; q < 3; ++q)
        v[q] /= sqrt(n2);
}

static vs_aniso_coeff coeff(double alpha, double alpha_a, double mu, double nu, double beta_deg)
{
    vs_aniso_coeff c = {0};
    c.on = 1;
    c.rc = 1.3;
    c.alpha = alpha;
    c.alpha_a = alpha_a;
    c.mu = mu;
    c.nu = nu;
    c.beta = beta_deg * M_PI / 180.0;
    vs_aniso_coeff_finish(&c);
    return c;
}

static int close_to(double got, double want, double tol)
{
    return fabs(got - want) <= tol * fmax(1.0, fabs(want));
}

/* Central differences of the reference energy in R, n_i and n_j against the evaluator. */
static void check_gradients(int style, const vs_aniso_coeff *c, const double R[3],
                            const double ni[3], const double nj[3], double h, double tol)
{
    const vs_aniso_result res = vs_aniso_eval(style, c, R, ni, nj);
    assert_true(close_to(res.energy, energy_ref(style, c, R, ni, nj), 1e-12));
    for (int which = 0; which < 3; ++which)
        for (int q = 0; q < 3; ++q) {
            double Rp[3], Rm[3], nip[3], nim[3], njp[3], njm[3];
            for (int k = 0; k < 3; ++k) {
                Rp[k] = Rm[k] = R[k];
                nip[k] = nim[k] = ni[k];
                njp[k] = njm[k] = nj[k];
            }
            double *p = which == 0 ? Rp : which == 1 ? nip : njp;
            double *m = which == 0 ? Rm : which == 1 ? nim : njm;
            p[q] += h;
            m[q] -= h;
            const double fd = -(energy_ref(style, c, Rp, nip, njp) -
                                energy_ref(style, c, Rm, nim, njm)) / (2 * h);
            const double got = which == 0 ? res.f[q] : which == 1 ? res.gi[q] : res.gj[q];
            if (!close_to(got, fd, tol))
                fail_msg("style %d nu %g: d/d%s[%d]: analytic %.12g, differences %.12g", style,
                         c->nu, which == 0 ? "R" : which == 1 ? "ni" : "nj", q, got, fd);
        }
    /* the pair from j: the opposite force, the gradients swapped, the same energy */
    const double Rj[3] = {-R[0], -R[1], -R[2]};
    const vs_aniso_result back = vs_aniso_eval(style, c, Rj, nj, ni);
    assert_true(back.energy == res.energy); /* bit for bit: rank counts depend on it */
    for (int q = 0; q < 3; ++q) {
        assert_true(back.f[q] == -res.f[q]);
        assert_true(back.gi[q] == res.gj[q]);
        assert_true(back.gj[q] == res.gi[q]);
    }
    assert_true(close_to(res.virial, R[0] * res.f[0] + R[1] * res.f[1] + R[2] * res.f[2], 1e-14));
}

/* The smallest distance of the geometry to a point where the factor's derivative is
 * singular for nu < 2 (a disk or rod factor at zero, a Janus patch edge), in cos th. */
static double edge_distance(int style, const vs_aniso_coeff *c, const double R[3],
                            const double ni[3], const double nj[3])
{
    const double d = sqrt(R[0] * R[0] + R[1] * R[1] + R[2] * R[2]);
    double a = 0, b = 0;
    for (int q = 0; q < 3; ++q) {
        a += ni[q] * R[q] / d;
        b += nj[q] * R[q] / d;
    }
    if (style == VS_ANISO_DISK)
        return fmin(fabs(a), fabs(b));
    if (style == VS_ANISO_ROD)
        return fmin(1 - fabs(a), 1 - fabs(b));
    const double ci = style == VS_ANISO_TRIBLOCK ? fabs(a) : -a;
    const double cj = style == VS_ANISO_TRIBLOCK ? fabs(b) : b;
    return fmin(fabs(ci - c->cos_beta), fabs(cj - c->cos_beta));
}

/* The float body against the double body at the float-rounded inputs (away from the
 * model's edges, where a rounding of cos th moves the factor's singular derivative). */
static void check_float(int style, const vs_aniso_coeff *c, const double R[3],
                        const double ni[3], const double nj[3])
{
    float Rf[3], nif[3], njf[3], Rjf[3];
    double Rd[3], nid[3], njd[3];
    for (int q = 0; q < 3; ++q) {
        Rf[q] = (float)R[q];
        nif[q] = (float)ni[q];
        njf[q] = (float)nj[q];
        Rjf[q] = -Rf[q];
        Rd[q] = Rf[q];
        nid[q] = nif[q];
        njd[q] = njf[q];
    }
    const vs_aniso_result_f got = vs_aniso_eval_f(style, c, Rf, nif, njf);
    const vs_aniso_result want = vs_aniso_eval(style, c, Rd, nid, njd);
    const float *gv[3] = {got.f, got.gi, got.gj};
    const double *wv[3] = {want.f, want.gi, want.gj};
    for (int v = 0; v < 3; ++v) {
        const double scale =
            fmax(1.0, fmax(fabs(wv[v][0]), fmax(fabs(wv[v][1]), fabs(wv[v][2]))));
        for (int q = 0; q < 3; ++q)
            if (!(fabs(gv[v][q] - wv[v][q]) <= 1e-4 * scale))
                fail_msg("style %d nu %g: float vector %d[%d] %.9g, double %.12g", style,
                         c->nu, v, q, (double)gv[v][q], wv[v][q]);
    }
    assert_true(close_to(got.energy, want.energy, 1e-4));
    const vs_aniso_result_f back = vs_aniso_eval_f(style, c, Rjf, njf, nif);
    assert_true(back.energy == got.energy);
    for (int q = 0; q < 3; ++q) {
        assert_true(back.f[q] == -got.f[q]);
        assert_true(back.gi[q] == got.gj[q]);
        assert_true(back.gj[q] == got.gi[q]);
    }
}

static void random_geometries(int style, const vs_aniso_coeff *c, int n)
{
    uint64_t s = 12345u + (uint64_t)style * 977u + (uint64_t)(c->nu * 100);
    int checked = 0;
    while (checked < n) {
        double R[3], ni[3], nj[3];
        unit_vector(&s, R);
        const double len = c->rc * (0.05 + 0.93 * urand(&s));
        for (int q = 0; q < 3; ++q)
            R[q] *= len;
        unit_vector(&s, ni);
        unit_vector(&s, nj);
        if (c->nu < 2 && edge_distance(style, c, R, ni, nj) < 1e-3)
            continue;
        check_gradients(style, c, R, ni, nj, 1e-6, 2e-6);
        if (edge_distance(style, c, R, ni, nj) > 1e-3)
            check_float(style, c, R, ni, nj);
        ++checked;
    }
}

static void test_disk(void **state)
{
    (void)state;
    const double nus[] = {2.0, 4.0, 3.0, 1.5};
    for (int k = 0; k < 4; ++k) {
        const vs_aniso_coeff c = coeff(100.0, 0, 0.8, nus[k], 0);
        random_geometries(VS_ANISO_DISK, &c, 400);
    }
}

static void test_rod(void **state)
{
    (void)state;
    const double nus[] = {2.0, 4.0, 1.0};
    for (int k = 0; k < 3; ++k) {
        const vs_aniso_coeff c = coeff(80.0, 0, 0.9, nus[k], 0);
        random_geometries(VS_ANISO_ROD, &c, 400);
    }
}

static void test_janus(void **state)
{
    (void)state;
    /* the triblock's two patches are at most hemispheres; the Janus patch may be larger */
    const double nus[] = {0.5, 1.0, 2.0}, betas[] = {65.0, 90.0, 30.0, 120.0, 150.0};
    for (int k = 0; k < 3; ++k)
        for (int b = 0; b < 5; ++b) {
            const vs_aniso_coeff c = coeff(396.0, 132.0, 0, nus[k], betas[b]);
            random_geometries(VS_ANISO_JANUS, &c, 300);
            if (betas[b] <= 90.0)
                random_geometries(VS_ANISO_TRIBLOCK, &c, 300);
        }
}

/* n at angle th from the axis u within the plane of u and w (w perpendicular to u). */
static void at_angle(const double u[3], const double w[3], double th, double n[3])
{
    for (int q = 0; q < 3; ++q)
        n[q] = cos(th) * u[q] + sin(th) * w[q];
}

/* Just inside each patch edge (cos th = cos beta + delta) the derivatives agree with the
 * differences taken on that side; just outside the factor and its torques are zero. */
static void test_switching_points(void **state)
{
    (void)state;
    const double nus[] = {0.5, 1.0, 2.0};
    const double R[3] = {0.6, 0.0, 0.0}, e[3] = {1, 0, 0}, me[3] = {-1, 0, 0},
                 w[3] = {0, 1, 0}, w2[3] = {0, 0.6, 0.8};
    for (int k = 0; k < 3; ++k)
        for (int pass = 0; pass < 3; ++pass) {
            /* janus, triblock at beta 65; then a Janus patch larger than a hemisphere */
            const int model = pass == 1 ? VS_ANISO_TRIBLOCK : VS_ANISO_JANUS;
            const vs_aniso_coeff c = coeff(396.0, 132.0, 0, nus[k], pass == 2 ? 120.0 : 65.0);
            const double deltas[] = {1e-2, 1e-3, 1e-4};
            for (int m = 0; m < 3; ++m) {
                /* cos th = cos beta + delta for i (n_i about r_ji = -e), j well inside */
                const double th = acos(c.cos_beta + deltas[m]);
                double ni[3], nj[3];
                at_angle(me, w, th, ni);
                at_angle(e, w2, 0.3, nj);
                check_gradients(model, &c, R, ni, nj, deltas[m] * 1e-3, 1e-5);
                at_angle(me, w, 0.2, ni); /* now j at its edge */
                at_angle(e, w2, th, nj);
                check_gradients(model, &c, R, ni, nj, deltas[m] * 1e-3, 1e-5);
                /* just outside: no attraction, no torque, the repulsion's force alone */
                at_angle(me, w, acos(c.cos_beta - deltas[m]), ni);
                const vs_aniso_result out = vs_aniso_eval(model, &c, R, ni, nj);
                for (int q = 0; q < 3; ++q) {
                    assert_true(out.gi[q] == 0.0 && out.gj[q] == 0.0);
                }
                const double r = 0.6 / c.rc;
                assert_true(close_to(out.f[0], c.alpha * (1 - r) / c.rc, 1e-14));
                assert_true(close_to(out.energy, 0.5 * c.alpha * (1 - r) * (1 - r), 1e-14));
            }
        }
}

static void test_closed_forms(void **state)
{
    (void)state;
    const double R[3] = {0.0, 0.0, 0.52}, z[3] = {0, 0, 1}, mz[3] = {0, 0, -1},
                 x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
    const vs_aniso_coeff d = coeff(50.0, 0, 0.7, 2.0, 0);
    const double r = 0.52 / d.rc;
    /* disk: faces stacked along R (f = 1) and edge to edge (f = 0) */
    vs_aniso_result o = vs_aniso_eval(VS_ANISO_DISK, &d, R, z, mz);
    assert_true(close_to(o.energy, 25.0 * 0.3 * (1 - r) * (1 - r), 1e-14));
    o = vs_aniso_eval(VS_ANISO_DISK, &d, R, x, y);
    assert_true(close_to(o.energy, 25.0 * (1 - r) * (1 - r), 1e-14));
    /* rod: side by side (f = 1) and end to end (f = 0) */
    o = vs_aniso_eval(VS_ANISO_ROD, &d, R, x, y);
    assert_true(close_to(o.energy, 25.0 * 0.3 * (1 - r) * (1 - r), 1e-14));
    o = vs_aniso_eval(VS_ANISO_ROD, &d, R, z, z);
    assert_true(close_to(o.energy, 25.0 * (1 - r) * (1 - r), 1e-14));
    /* janus: i's patch points at j (along -R), j's at i (along R): f = 1; turned away: 0 */
    const vs_aniso_coeff j = coeff(396.0, 132.0, 0, 0.5, 65.0);
    const double want = 198.0 * (1 - r) * (1 - r) - 66.0 * (r - r * r);
    o = vs_aniso_eval(VS_ANISO_JANUS, &j, R, mz, z);
    assert_true(close_to(o.energy, want, 1e-13));
    o = vs_aniso_eval(VS_ANISO_JANUS, &j, R, z, mz);
    assert_true(close_to(o.energy, 198.0 * (1 - r) * (1 - r), 1e-13));
    /* triblock: either pole faces, so both orientations give f = 1 */
    o = vs_aniso_eval(VS_ANISO_TRIBLOCK, &j, R, z, mz);
    assert_true(close_to(o.energy, want, 1e-13));
    /* the attraction's force jumps at r = 1 by f^nu alpha_A / 2 / rc: just inside */
    const double Rin[3] = {0.0, 0.0, j.rc * (1 - 1e-12)};
    o = vs_aniso_eval(VS_ANISO_JANUS, &j, Rin, mz, z);
    assert_true(close_to(o.f[2], -66.0 / j.rc, 1e-9));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disk),          cmocka_unit_test(test_rod),
        cmocka_unit_test(test_janus),         cmocka_unit_test(test_switching_points),
        cmocka_unit_test(test_closed_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
