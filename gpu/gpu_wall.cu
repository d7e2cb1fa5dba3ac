/* The wall term on the device: the wall force (src/core/wall.h, the CPU's source) added to
 * the owned particles' forces after the pair term, in the form the pair term left them
 * (doubles, or the Newton kernel's fixed-point sums), as the flow term does. One pass per
 * axis whose walls have a force, only when the configuration asks for one. */
#include "gpu_internal.cuh"

extern "C" {
#include "wall.h"
}

__global__ void wall_force_kernel(int n, vs_positions at, int d, double len, int kind,
                                  double strength, double range, double *f, int fixed)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double add = vs_wall_force(vs_pos_get(at, d, i), len, kind, strength, range);
    if (add == 0.0)
        return;
    if (fixed) {
        unsigned long long *q = (unsigned long long *)f;
        q[i] += (unsigned long long)__double2ll_rn(add * VS_FIXED_PER_FORCE);
    } else {
        f[i] += add;
    }
}

extern "C" void vs_gpu_wall_forces(vs_gpu_state *g)
{
    vs_gpu_settle_owned(g); /* the other terms read the owned number on the host */
    const int n = (int)g->pt.n_owned;
    for (int d = 0; d < 3; ++d) {
        const vs_wall &w = g->prm->boundary.axis[d];
        if (w.kind == VS_BOUNDARY_PERIODIC || w.force == VS_WALL_FORCE_NONE)
            continue;
        VS_LAUNCH(wall_force_kernel, n, VS_BLOCK, g->stream, n, vs_gpu_positions(g), d,
                  g->prm->system.box[d], w.force, w.force_f, w.force_d, g->pt.f[d],
                  g->fs.forces_fixed);
    }
}
