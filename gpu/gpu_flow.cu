/* The flow term on the device: the driving field (src/core/flow.h, the CPU's source) added
 * to the owned particles' forces after the pair term. The pair term leaves the forces as
 * doubles, or as the Newton kernel's fixed-point sums (vs_gpu_fixed_bad); the field is added
 * in the same form, rounded to the fixed-point quantum as the body force is, so no pass
 * converts them. One pass, only when flow.kind asks for it. */
#include "gpu_internal.cuh"

extern "C" {
#include "flow.h"
}

__global__ void flow_double_poiseuille_kernel(int n, vs_positions at, int across, double len,
                                              const int32_t *species, int driven, double g,
                                              double *f, int fixed)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double add =
        vs_double_poiseuille_force(vs_pos_get(at, across, i), len, species[i], driven, g);
    if (fixed) {
        unsigned long long *q = (unsigned long long *)f;
        q[i] += (unsigned long long)__double2ll_rn(add * VS_FIXED_PER_FORCE);
    } else {
        f[i] += add;
    }
}

extern "C" void vs_gpu_flow_forces(vs_gpu_state *g)
{
    vs_gpu_settle_owned(g); /* the other terms read the owned number on the host */
    const vs_flow &fl = g->prm->flow;
    const int n = (int)g->pt.n_owned;
    VS_LAUNCH(flow_double_poiseuille_kernel, n, VS_BLOCK, g->stream, n, vs_gpu_positions(g),
              fl.across, g->prm->system.box[fl.across], g->pt.species_id, fl.species, fl.g, g->pt.f[fl.axis],
              g->fs.forces_fixed);
}
