/* The bonded terms on the CPU backend: bonds, angles and dihedrals of the owned beads
 * (topology.h).
 *
 * Every rank that owns a bead of a bond, angle or dihedral computes it in full from its local
 * copies of the partners and adds only its own bead's force. The copies are found through the
 * tag map among owned particles and ghosts, each the one nearest to the bead before it along
 * the chain, starting from the owned bead (vs_tagmap_nearest): the separations are raw
 * differences of positions that are the same doubles on any rank layout, so a run is
 * bit-identical on any rank count; energy and virial count 1/2 per bead of a bond, 1/3 per
 * bead of an angle and 1/4 per bead of a dihedral, so each interaction is counted once over
 * all ranks. A partner that is missing, or a bond longer than prm->molecules.bond_reach (the reach
 * the ghost shell of bonded beads is built for), stops the run (exit 1) with both tags and
 * the step: a force is never dropped silently. The reach is checked on every rank count
 * alike, so the verdict does not depend on the layout.
 */
#include <math.h>

#include "bonded.h"
#include "cpu_backend.h"
#include "log.h"

void vs_cpu_build_tagmap(vs_cpu_state *s)
{
    const vs_particles *p = s->parts;
    const int64_t n_all = p->n_owned + p->n_ghost;
    int64_t n_bonded = 0;
    for (int64_t i = 0; i < n_all; ++i)
        n_bonded += p->topo[i].n_bond > 0;
    vs_tagmap_reset(&s->tagmap, n_bonded);
    for (int64_t i = 0; i < n_all; ++i) /* every copy: a bead and its periodic images */
        if (p->topo[i].n_bond > 0)
            vs_tagmap_insert_copy(&s->tagmap, p->tag[i], i);
}

/* The local copy of bead `tag` nearest to local particle `ref`; a missing one stops the run. */
static int64_t nearest_copy(const vs_cpu_state *s, int64_t self, int64_t tag, int64_t ref,
                            int64_t step)
{
    const vs_particles *p = s->parts;
    const int64_t j = vs_tagmap_nearest(s->tagmap.key, s->tagmap.val, s->tagmap.mask, tag,
                                        p->x[0], p->x[1], p->x[2], p->x[0][ref], p->x[1][ref],
                                        p->x[2][ref]);
    if (j < 0)
        vs_bonded_fail(s->prm, VS_BONDED_MISSING, step, self, tag, 0.0, 0.0);
    return j;
}

/* The local copies of the beads `tags` of a chain (an angle a-b-c, a dihedral a-b-c-d) of
 * which the owned particle i is bead `self`: outwards from it, each nearest to its
 * neighbour along the chain. */
static void chain_copies(const vs_cpu_state *s, int64_t i, const int64_t *tags, int n,
                         int self, int64_t *idx, int64_t step)
{
    const int64_t me = s->parts->tag[i];
    idx[self] = i;
    for (int q = self - 1; q >= 0; --q)
        idx[q] = nearest_copy(s, me, tags[q], idx[q + 1], step);
    for (int q = self + 1; q < n; ++q)
        idx[q] = nearest_copy(s, me, tags[q], idx[q - 1], step);
}

/* x_j - x_i of two local copies (chosen by nearest_copy: no periodic wrap). */
static void separation(const vs_cpu_state *s, int64_t i, int64_t j, double out[3])
{
    const vs_particles *p = s->parts;
    for (int d = 0; d < 3; ++d)
        out[d] = p->x[d][j] - p->x[d][i];
}

void vs_cpu_bond_forces(vs_cpu_state *s, int64_t step, int want)
{
    vs_particles *p = s->parts;
    const vs_params *prm = s->prm;
    vs_force_sums *sums = &s->sums;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const vs_topo *t = &p->topo[i];
        for (int b = 0; b < t->n_bond; ++b) {
            const int64_t j = nearest_copy(s, p->tag[i], t->bond[b], i, step);
            double dji[3], d[3];
            separation(s, i, j, dji);
            for (int k = 0; k < 3; ++k)
                d[k] = -dji[k]; /* x_i - x_j */
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            const vs_bond_type *bt = &prm->molecules.bond_types[t->bond_type[b]];
            double fscal, e;
            const int kind = vs_bond_eval_type(bt, r2, &fscal, &e);
            if (kind != VS_BONDED_OK)
                vs_bonded_fail(prm, kind, step, p->tag[i], t->bond[b], sqrt(r2),
                               kind == VS_BONDED_TABLE
                                   ? bt->tab.lo + bt->tab.dx * (bt->tab.n - 1) : bt->r0);
            if (!(r2 <= prm->molecules.bond_reach * prm->molecules.bond_reach))
                vs_bonded_fail(prm, VS_BONDED_REACH, step, p->tag[i], t->bond[b], sqrt(r2),
                               bt->r0);
            vs_cpu_add_force(s, i, fscal * d[0], fscal * d[1], fscal * d[2]);
            vs_cpu_add_wide(sums, &sums->bond_energy, 0.5 * e);
            vs_cpu_add_wide(sums, &sums->virial, 0.5 * fscal * r2);
            if (want & VS_WANT_TENSOR) {
                const double g[3] = {fscal * d[0], fscal * d[1], fscal * d[2]};
                double w[VS_TENSOR];
                vs_tensor_of(0.5, g, d, w);
                vs_cpu_add_tensor(s, i, w);
            }
        }
    }
}

void vs_cpu_angle_forces(vs_cpu_state *s, int64_t step, int want)
{
    vs_particles *p = s->parts;
    const vs_params *prm = s->prm;
    vs_force_sums *sums = &s->sums;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const vs_topo *t = &p->topo[i];
        for (int a = 0; a < t->n_angle; ++a) {
            int64_t idx[3];
            int self = 0;
            for (int q = 0; q < 3; ++q)
                if (t->angle[a][q] == p->tag[i])
                    self = q;
            chain_copies(s, i, t->angle[a], 3, self, idx, step);
            double r1[3], r2[3], fa[3], fc[3];
            separation(s, idx[1], idx[0], r1);
            separation(s, idx[1], idx[2], r2);
            const vs_angle_type *at = &prm->molecules.angle_types[t->angle_type[a]];
            const double e = vs_angle_eval_type(at, r1, r2, fa, fc);
            double f[3], virial = 0.0;
            for (int k = 0; k < 3; ++k) {
                f[k] = self == 0 ? fa[k] : (self == 2 ? fc[k] : -(fa[k] + fc[k]));
                virial += (r1[k] * fa[k] + r2[k] * fc[k]) / 3.0;
            }
            vs_cpu_add_force(s, i, f[0], f[1], f[2]);
            vs_cpu_add_wide(sums, &sums->angle_energy, e / 3.0);
            vs_cpu_add_wide(sums, &sums->virial, virial);
            if (want & VS_WANT_TENSOR) { /* relative to the middle bead, whose force drops */
                const double rel[2][3] = {{r1[0], r1[1], r1[2]}, {r2[0], r2[1], r2[2]}};
                const double fq[2][3] = {{fa[0], fa[1], fa[2]}, {fc[0], fc[1], fc[2]}};
                double w[VS_TENSOR];
                vs_bonded_tensor(2, rel, fq, 1.0 / 3.0, w);
                vs_cpu_add_tensor(s, i, w);
            }
        }
    }
}

void vs_cpu_dihedral_forces(vs_cpu_state *s, int64_t step, int want)
{
    vs_particles *p = s->parts;
    const vs_params *prm = s->prm;
    vs_force_sums *sums = &s->sums;
    for (int64_t i = 0; p->dih && i < p->n_owned; ++i) {
        const vs_dihedrals *t = &p->dih[i];
        for (int m = 0; m < t->n_dihedral; ++m) {
            int64_t idx[4];
            int self = 0;
            for (int q = 0; q < 4; ++q)
                if (t->dihedral[m][q] == p->tag[i])
                    self = q;
            chain_copies(s, i, t->dihedral[m], 4, self, idx, step);
            double b[3][3], f[4][3], phi, virial;
            for (int q = 0; q < 3; ++q) /* b1, b2, b3 along the chain */
                separation(s, idx[q], idx[q + 1], b[q]);
            const vs_dihedral_type *dt = &prm->molecules.dihedral_types[t->dihedral_type[m]];
            const double e = vs_dihedral_eval(dt, b[0], b[1], b[2], f, &phi, &virial);
            vs_cpu_add_force(s, i, f[self][0], f[self][1], f[self][2]);
            vs_cpu_add_wide(sums, &sums->dihedral_energy, 0.25 * e);
            vs_cpu_add_wide(sums, &sums->virial, 0.25 * virial);
            if (want & VS_WANT_TENSOR) { /* relative to bead b, as the scalar virial */
                double rel[4][3], w[VS_TENSOR];
                for (int k = 0; k < 3; ++k) {
                    rel[0][k] = -b[0][k];
                    rel[1][k] = 0.0;
                    rel[2][k] = b[1][k];
                    rel[3][k] = b[1][k] + b[2][k];
                }
                vs_bonded_tensor(4, (const double(*)[3])rel, (const double(*)[3])f, 0.25, w);
                vs_cpu_add_tensor(s, i, w);
            }
        }
    }
}
