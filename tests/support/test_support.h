/* Helpers shared by the engine tests: a Groot-Warren parameter set built without a
 * configuration file, so engine tests do not depend on the parser. */
#ifndef VESICA_TEST_SUPPORT_H
#define VESICA_TEST_SUPPORT_H

#include "params.h"

/* cmocka 1.1 has no double-precision comparison (assert_float_equal casts to float). Include
 * after cmocka.h. */
#define VS_ASSERT_NEAR(a, b, tol)                                                              \
    do {                                                                                       \
        const double vs_a_ = (a), vs_b_ = (b), vs_t_ = (tol);                                  \
        if (!(fabs(vs_a_ - vs_b_) <= vs_t_)) {                                                 \
            print_error("%s = %.17g and %s = %.17g differ by %.3g > %.3g\n", #a, vs_a_, #b,    \
                        vs_b_, fabs(vs_a_ - vs_b_), vs_t_);                                    \
            fail();                                                                            \
        }                                                                                      \
    } while (0)

/* Groot-Warren fluid (rho = 3, a = 25, gamma = 4.5, kT = 1, r_c = 1, s = 1) in a cubic box of
 * side L, dt = 0.01, lambda = 0.5, skin 0.3, seed 2026, CPU backend, output in /tmp. */
void vs_test_groot_warren(vs_params *p, double L);

/* Worst per-particle relative difference of the forces f against ref (n particles, xyz
 * interleaved): |f_i - ref_i| / max(|ref_i|, 0.01 rms(ref)); the floor keeps a particle whose
 * pair forces cancel almost exactly from measuring the cancellation instead of the
 * arithmetic. */
double vs_test_worst_relative(const double *f, const double *ref, int64_t n);

#endif
