/* Runtime choices to template parameters, for the launchers of the GPU backend: one helper
 * instead of a ladder of launch macros per kernel.
 *
 *   vs_dispatch<2, 3>([&](auto energy, auto mode) {
 *       kernel<decltype(energy)::value != 0, decltype(mode)::value><<<...>>>(...);
 *   }, want_energy, mode);
 *
 * calls the lambda once, with std::integral_constant<int, v> for each runtime value v (in
 * [0, N) for its N), so every combination of the values is one instantiation. Where only a
 * few combinations can occur, name them (an enumeration of the variants) and dispatch over
 * that, not over the free product of the flags. */
#ifndef VESICA_GPU_DISPATCH_CUH
#define VESICA_GPU_DISPATCH_CUH

#include <type_traits>

#include "gpu_launch.cuh"

/* f(integral_constant<int, v>) for v in [0, N); v outside that range is a bug of the caller. */
template <int N, typename F>
inline void vs_dispatch_one(int v, F &&f)
{
    static_assert(N > 0, "a choice of no values");
    if (v == N - 1) {
        f(std::integral_constant<int, N - 1>{});
        return;
    }
    if constexpr (N > 1)
        vs_dispatch_one<N - 1>(v, f);
    else
        vs_log_fatal(__FILE__, __LINE__, "dispatch: value %d out of range", v);
}

template <typename F>
inline void vs_dispatch(F &&f)
{
    f();
}

/* f(integral_constant<int, v0>, integral_constant<int, v1>, ...) for the runtime values
 * v0 in [0, N0), v1 in [0, N1), ... */
template <int N, int... Ns, typename F, typename... V>
inline void vs_dispatch(F &&f, int v, V... rest)
{
    static_assert(sizeof...(Ns) == sizeof...(V), "one range per value");
    vs_dispatch_one<N>(v, [&](auto c) {
        vs_dispatch<Ns...>([&](auto... cs) { f(c, cs...); }, rest...);
    });
}

/* The value of one of vs_dispatch's constants, as a bool or an int template argument. */
#define VS_ON(c) (decltype(c)::value != 0)
#define VS_VAL(c) (decltype(c)::value)

#endif
