/* The conservative pair styles, one term each, vs_term_<name> for each style of
 * VS_PAIR_STYLE_LIST (pair list of the configuration). Evaluator: vs_pair_style_eval (src/core/pair_styles.h); CPU loop:
 * vs_cpu_pair_style_forces (src/cpu/pair_cpu.c); GPU kernel: vs_gpu_pair_style_forces
 * (gpu/gpu_pair.cu). Each term's reach is the largest cut-off of its species pairs; the
 * lists and the ghost shell take the largest reach of all pair terms (vs_list_radius). */
#include "forcefield.h"

#ifdef VESICA_HAVE_CUDA
#include "gpu_backend.h"
#endif

#define VS_PAIR_TERM(NAME, STYLE)                                                              \
    static int NAME##_active(const vs_params *prm)                                             \
    {                                                                                          \
        return vs_pair_style_of(prm, STYLE)->active;                                           \
    }                                                                                          \
    static double NAME##_reach(const vs_params *prm)                                           \
    {                                                                                          \
        return vs_pair_style_of(prm, STYLE)->reach;                                            \
    }                                                                                          \
    static void NAME##_cpu(vs_cpu_state *cpu, int64_t step, int want_energy)                  \
    {                                                                                          \
        (void)step;                                                                            \
        vs_cpu_pair_style_forces(cpu, STYLE, want_energy);                                     \
    }                                                                                          \
    VS_PAIR_TERM_GPU(NAME, STYLE)                                                              \
    const vs_term_type vs_term_##NAME = {                                                      \
        .name = #NAME,                                                                         \
        .pair = 1,                                                                             \
        .active = NAME##_active,                                                               \
        .reach = NAME##_reach,                                                                 \
        .cpu = NAME##_cpu,                                                                     \
        VS_PAIR_TERM_GPU_ENTRY(NAME)                                                           \
    };

#ifdef VESICA_HAVE_CUDA
#define VS_PAIR_TERM_GPU(NAME, STYLE)                                                          \
    static void NAME##_gpu(struct vs_gpu_state *gpu, int64_t step, int want_energy)           \
    {                                                                                          \
        (void)step;                                                                            \
        vs_gpu_pair_style_forces(gpu, STYLE, want_energy);                                     \
    }
#define VS_PAIR_TERM_GPU_ENTRY(NAME) .gpu = NAME##_gpu,
#else
#define VS_PAIR_TERM_GPU(NAME, STYLE)
#define VS_PAIR_TERM_GPU_ENTRY(NAME)
#endif

#define VS_PAIR_TERM_OF_(ID, NAME) VS_PAIR_TERM(NAME, ID)
VS_PAIR_STYLE_LIST(VS_PAIR_TERM_OF_)
