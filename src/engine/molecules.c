/* The molecule builder: see molecules.h. */
#include "molecules.h"

#include <math.h>
#include <string.h>

#include "log.h"
#include "tea_rng.h"
#include "wrap.h"

/* The walk's stream: beyond the initial state's position and velocity streams (init.c). */
#define VS_INIT_STREAM_WALK 0x8000000000000003ull
#define VS_INIT_STREAM_START 0x8000000000000004ull

static double unit53(vs_tea_block b)
{
    uint64_t bits = ((uint64_t)b.v0 << 21) ^ (uint64_t)(b.v1 >> 11);
    return (double)(bits & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
}

static int64_t beads_of(const vs_mol_template *t) { return (int64_t)t->n_seq * t->repeat; }

void vs_mol_place_of_tag(const vs_params *prm, int64_t tag, vs_mol_place *out)
{
    int64_t first = 0, molecules = 0;
    for (int k = 0; k < prm->molecules.n_moltypes; ++k) {
        const vs_mol_template *t = &prm->molecules.mol[k];
        const int64_t nb = beads_of(t), span = nb * t->count;
        if (tag < first + span) {
            const int64_t m = (tag - first) / nb;
            out->template_index = k;
            out->molecule = molecules + m;
            out->first_tag = first + m * nb;
            out->bead = tag - out->first_tag;
            out->n_beads = nb;
            return;
        }
        first += span;
        molecules += t->count;
    }
    memset(out, 0, sizeof *out);
    out->template_index = -1;
}

int vs_mol_species_of_tag(const vs_params *prm, int64_t tag)
{
    vs_mol_place w;
    vs_mol_place_of_tag(prm, tag, &w);
    const vs_mol_template *t = &prm->molecules.mol[w.template_index];
    return t->seq[w.bead % t->n_seq];
}

/* A uniform random unit vector for the bond that ends at `tag`. */
static void random_direction(vs_tea_key key, int64_t tag, double u[3])
{
    const uint32_t lo = (uint32_t)tag, hi = (uint32_t)((uint64_t)tag >> 32);
    const double z = 2.0 * unit53(vs_tea_encrypt(key, lo, (hi << 2) | 0u)) - 1.0;
    const double phi = 6.283185307179586 * unit53(vs_tea_encrypt(key, lo, (hi << 2) | 1u));
    const double s = sqrt(fmax(0.0, 1.0 - z * z));
    u[0] = s * cos(phi);
    u[1] = s * sin(phi);
    u[2] = z;
}

/* The bead's bonds, angles and dihedrals along a linear chain of n beads (a bead is in at
 * most 2, 3 and 4 of them: within VS_MAX_BONDS, VS_MAX_ANGLES, VS_MAX_DIHEDRALS). */
static void chain_topology(vs_topo *t, vs_dihedrals *dh, const vs_mol_place *w,
                           const vs_mol_template *tp)
{
    memset(t, 0, sizeof *t);
    t->mol = w->molecule + 1;
    const int64_t k = w->bead, n = w->n_beads, f = w->first_tag;
    if (k > 0)
        vs_topo_add_bond(t, f + k - 1, tp->bond_type);
    if (k + 1 < n)
        vs_topo_add_bond(t, f + k + 1, tp->bond_type);
    if (tp->angle_type >= 0)
        for (int64_t v = k - 1; v <= k + 1; ++v) /* the vertices of the angles holding k */
            if (v >= 1 && v + 1 < n)
                vs_topo_add_angle(t, f + v - 1, f + v, f + v + 1, tp->angle_type);
    if (dh)
        memset(dh, 0, sizeof *dh);
    if (dh && tp->dihedral_type >= 0)
        for (int64_t s = k - 3; s <= k; ++s) /* the first beads of the dihedrals holding k */
            if (s >= 0 && s + 3 < n) {
                const int64_t q[4] = {f + s, f + s + 1, f + s + 2, f + s + 3};
                vs_topo_add_dihedral(dh, q, tp->dihedral_type);
            }
}

/* The bond partners of a built bead: its neighbours along its chain (a free bead: none). */
static int chain_partners(void *ctx, int64_t tag, int64_t out[4])
{
    vs_mol_place w;
    vs_mol_place_of_tag((const vs_params *)ctx, tag, &w);
    if (w.template_index < 0)
        return 0;
    int n = 0;
    if (w.bead > 0)
        out[n++] = tag - 1;
    if (w.bead + 1 < w.n_beads)
        out[n++] = tag + 1;
    return n;
}

/* Keep one bead at its unwrapped position x if it lies in this rank's brick. */
static void keep_if_mine(vs_particles *p, const vs_params *prm, const vs_decomp *dc,
                         const double x[3], const vs_mol_place *w)
{
    double y[3];
    int32_t image[3];
    for (int d = 0; d < 3; ++d) {
        const double len = prm->system.box[d];
        const double q = floor(x[d] / len);
        image[d] = (int32_t)q;
        y[d] = vs_keep_below(x[d] - q * len, len);
        if (y[d] < 0.0)
            y[d] = 0.0;
        if (!(y[d] >= dc->lo[d] && y[d] < dc->hi[d]))
            return;
    }
    vs_particles_reserve(p, p->n_owned + 1);
    const int64_t i = p->n_owned++;
    const vs_mol_template *tp = &prm->molecules.mol[w->template_index];
    p->tag[i] = w->first_tag + w->bead;
    p->species[i] = tp->seq[w->bead % tp->n_seq];
    for (int d = 0; d < 3; ++d) {
        p->x[d][i] = y[d];
        p->image[d][i] = image[d];
        p->f[d][i] = 0.0;
    }
    chain_topology(&p->topo[i], p->dih ? &p->dih[i] : NULL, w, tp);
    if (p->special) {
        char err[256];
        if (vs_special_build(p->tag[i], vs_special_depth(prm), chain_partners, (void *)prm,
                             &p->special[i], err, sizeof err) != 0)
            VS_FATAL("molecules: %s", err);
    }
}

void vs_mol_build(vs_particles *p, const vs_params *prm, const vs_decomp *dc)
{
    const vs_tea_key kwalk = vs_tea_make_key(prm->system.seed, VS_INIT_STREAM_WALK);
    const vs_tea_key kstart = vs_tea_make_key(prm->system.seed, VS_INIT_STREAM_START);
    int64_t tag = 0;
    while (tag < prm->molecules.n_molecule_beads) {
        vs_mol_place w;
        vs_mol_place_of_tag(prm, tag, &w);
        const vs_mol_template *tp = &prm->molecules.mol[w.template_index];
        double x[3]; /* the start, uniform in the box */
        const uint32_t lo = (uint32_t)tag, hi = (uint32_t)((uint64_t)tag >> 32);
        for (uint32_t d = 0; d < 3; ++d)
            x[d] = prm->system.box[d] * unit53(vs_tea_encrypt(kstart, lo, (hi << 2) | d));
        for (w.bead = 0; w.bead < w.n_beads; ++w.bead) {
            if (w.bead > 0) {
                double u[3];
                random_direction(kwalk, w.first_tag + w.bead, u);
                for (int d = 0; d < 3; ++d) {
                    x[d] += tp->bond_length * u[d];
                    /* a wall mirrors the walk back inside: no bond crosses a wall */
                    const double len = prm->system.box[d];
                    if (!vs_axis_periodic(prm, d) && x[d] < 0.0)
                        x[d] = -x[d];
                    else if (!vs_axis_periodic(prm, d) && x[d] >= len)
                        x[d] = vs_keep_below(2.0 * len - x[d], len);
                }
            }
            keep_if_mine(p, prm, dc, x, &w);
        }
        tag = w.first_tag + w.n_beads;
    }
}

typedef struct {
    vs_tagmap map;
    const vs_topo *topo;
} records_graph;

static int record_partners(void *ctx, int64_t tag, int64_t out[4])
{
    const records_graph *g = ctx;
    const int64_t i = vs_tagmap_find(g->map.key, g->map.val, g->map.mask, tag);
    if (i < 0)
        return -1;
    const vs_topo *t = &g->topo[i];
    for (int k = 0; k < t->n_bond; ++k)
        out[k] = t->bond[k];
    return t->n_bond;
}

int vs_special_of_records(const vs_particle_rec *recs, const vs_topo *topo, int64_t n,
                          int depth, vs_special *out, char *err, size_t err_len)
{
    records_graph g = {.topo = topo};
    vs_tagmap_init(&g.map);
    vs_tagmap_reset(&g.map, n);
    for (int64_t i = 0; i < n; ++i)
        vs_tagmap_insert(&g.map, recs[i].tag, i);
    int rc = 0;
    for (int64_t i = 0; i < n && rc == 0; ++i)
        rc = vs_special_build(recs[i].tag, depth, record_partners, &g, &out[i], err, err_len);
    vs_tagmap_free(&g.map);
    return rc;
}
