/* The wall term on the CPU backend: the wall force (src/core/wall.h, the source the GPU
 * kernel compiles too) added to the owned particles' forces (see cpu_backend.h). */
#include "cpu_backend.h"

#include "wall.h"

void vs_cpu_wall_forces(vs_cpu_state *s)
{
    vs_particles *p = s->parts;
    for (int d = 0; d < 3; ++d) {
        const vs_wall *w = &s->prm->boundary.axis[d];
        if (w->kind == VS_BOUNDARY_PERIODIC || w->force == VS_WALL_FORCE_NONE)
            continue;
        const double len = s->prm->system.box[d];
        int64_t *q = s->fq[d]; /* the fixed-point sums (cpu_backend.h) */
        for (int64_t i = 0; i < p->n_owned; ++i) {
            const double f = vs_wall_force(p->x[d][i], len, w->force, w->force_f, w->force_d);
            if (f == 0.0)
                continue;
            if (vs_fixed_force_ok(f))
                vs_fixed_add(&q[i], vs_fixed_force(f), &s->fq_overflow);
            else
                vs_cpu_mark_bad(s, i);
        }
    }
}
