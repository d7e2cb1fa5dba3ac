/* Binned profile sums on the CPU backend (see cpu_backend.h); the per-particle share is
 * vs_profile_share (src/core/profile_bin.h), the same source the GPU kernel compiles, and so
 * is the rule that leaves frozen particles out of the set of all particles' kinematics
 * (vs_profile_all_first). */
#include "cpu_backend.h"

#include <string.h>

#include "profile_bin.h"

void vs_cpu_profile_sums(void *st, int axis, int bins, int per_species, int64_t *out)
{
    vs_cpu_state *s = st;
    const vs_particles *p = s->parts;
    const vs_params *prm = s->prm;
    const int n_sets = per_species ? 1 + prm->species.n : 1;
    const int tensor = prm->output.pressure_tensor;
    const int nf = vs_profile_fields(tensor);
    memset(out, 0, sizeof(int64_t) * (size_t)nf * (size_t)bins * (size_t)n_sets);
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const int b = vs_profile_bin(p->x[axis][i], prm->system.box[axis], bins);
        const double m = prm->species.list[p->species[i]].mass;
        int64_t q[VS_PROFILE_FIELDS + VS_PROFILE_TENSOR_FIELDS];
        vs_profile_share(m, p->v[0][i], p->v[1][i], p->v[2][i], q);
        if (tensor) {
            vs_profile_kinetic_tensor(m, p->v[0][i], p->v[1][i], p->v[2][i],
                                      q + VS_PROFILE_FIELDS);
            for (int k = 0; k < VS_TENSOR; ++k)
                q[VS_PROFILE_FIELDS + VS_TENSOR + k] = s->wq[k][i];
        }
        int64_t *all = out + (size_t)nf * (size_t)b;
        for (int k = vs_profile_all_first(prm->species.list[p->species[i]].frozen); k < nf; ++k)
            all[k] += q[k];
        if (per_species) {
            int64_t *own =
                out + (size_t)nf * ((size_t)(1 + p->species[i]) * (size_t)bins + (size_t)b);
            for (int k = 0; k < nf; ++k)
                own[k] += q[k];
        }
    }
}
