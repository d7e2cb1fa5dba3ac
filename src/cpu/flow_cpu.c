/* The flow term on the CPU backend: the driving field added to the owned particles' forces
 * (see cpu_backend.h). The field itself is vs_double_poiseuille_force (src/core/flow.h), the
 * same source the GPU kernel compiles. */
#include "cpu_backend.h"

#include "flow.h"

void vs_cpu_flow_forces(vs_cpu_state *s)
{
    const vs_flow *fl = &s->prm->flow;
    vs_particles *p = s->parts;
    const double *across = p->x[fl->across];
    const double len = s->prm->system.box[fl->across];
    int64_t *q = s->fq[fl->axis]; /* the fixed-point sums (cpu_backend.h) */
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const double f =
            vs_double_poiseuille_force(across[i], len, p->species[i], fl->species, fl->g);
        if (vs_fixed_force_ok(f))
            vs_fixed_add(&q[i], vs_fixed_force(f), &s->fq_overflow);
        else
            vs_cpu_mark_bad(s, i);
    }
    /* a field that is not the gradient of a periodic potential: no energy, no virial */
}
