/* The particle-field term on the CPU backend (MD-SCF; the physics: src/core/field_grid.h).
 *
 * Each rank keeps its block of the grid: the vertices it owns and a halo on each side. A
 * field update (every field.interval steps, and at the first evaluation after the state was
 * made or reloaded) runs four passes:
 *   1. spread: each owned particle of a field species adds its 8 shares, in fixed point, to
 *      the block (owned and halo vertices);
 *   2. fold: the halo's sums go to the vertices' owners and are added there, through the
 *      staged driver of comm/exchange.h (x, then y, then z; each stage's slab spans the
 *      whole block across the other axes, so edge and corner sums travel on in the next
 *      stage, as the ghosts' records do). Integer sums: every owned count is the same
 *      integer whatever the rank count and the order of the particles;
 *   3. the potentials V_K on the owned vertices (vs_field_vertex);
 *   4. fill: the owners' potentials copied into their neighbours' halos, by the same driver
 *      in the other direction.
 * Every evaluation then adds each owned field particle's force from the potentials around it
 * (vs_field_force). On evaluations that want energies the densities of the current positions
 * are spread and folded (again, unless this is an update) and W summed over the owned
 * vertices, exactly (fixed_sum.h): the field energy of now, whichever fields the particles
 * feel. A frame of fields.h5 (vs_cpu_field_phi) spreads and folds the current positions the
 * same way and reads phi off the owned counts: the counts are scratch between updates (only
 * the potentials carry over), so writing frames changes no force.
 *
 * The fields are not in checkpoints: the reload that follows a checkpoint (the canonical
 * state, vs_sim_canonicalize) marks them stale, so the run that goes on recomputes them at
 * its next evaluation, as the run restarted from that checkpoint does: both are the same bits.
 */
#include "cpu_backend.h"

#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "field_grid.h"
#include "log.h"
#include "parallel.h"

struct vs_field_cpu {
    vs_field_grid g;
    vs_field_consts fc;
    int halo;      /* vertices beyond the owned ones on each side */
    int owned[3];  /* owned vertices along each axis */
    int64_t nvert; /* vertices of the block */
    int64_t *count; /* fc.nf * nvert count quanta */
    double *pot;    /* fc.nf * nvert potentials */
    int stale;      /* the potentials must be computed before they are read */
    /* the exchange in progress */
    int fold;       /* 1: halo sums to owners (counts); 0: owners to halos (potentials) */
    void *out[2], *in[2];
    size_t out_cap[2], in_cap[2];
};

/* The slab of stage d, direction dir: the first vertex along d and how many layers. Fold:
 * sends its halo beyond the face (dir 0: below, dir 1: above) and adds what arrives to its
 * owned layers at the other face. Fill: sends its owned layers at the face and stores what
 * arrives in its halo beyond the other face. `recv`: the slab that takes what arrives. */
static int slab_start(const struct vs_field_cpu *F, int d, int dir, int recv)
{
    const int h = F->halo, m = F->owned[d];
    const int toward_lower = (dir == 0) != recv; /* the face the slab lies at */
    if (F->fold == !recv) /* halo layers beyond that face */
        return toward_lower ? 0 : h + m;
    return toward_lower ? h : m; /* owned layers at that face */
}

static int64_t slab_vertices(const struct vs_field_cpu *F, int d)
{
    int64_t n = F->halo;
    for (int e = 0; e < 3; ++e)
        if (e != d)
            n *= F->g.ext[e];
    return n;
}

static size_t rec_bytes(const struct vs_field_cpu *F)
{
    return (size_t)F->fc.nf * (F->fold ? sizeof(int64_t) : sizeof(double));
}

/* Visit the slab's vertices in one order (the same on both sides of a face): calls f with
 * the vertex's index in the block and its place in the slab. */
#define SLAB_LOOP(F, d, start, body)                                                              \
    do {                                                                                          \
        const int lo_[3] = {(d) == 0 ? (start) : 0, (d) == 1 ? (start) : 0,                      \
                            (d) == 2 ? (start) : 0};                                              \
        const int hi_[3] = {(d) == 0 ? (start) + (F)->halo : (F)->g.ext[0],                       \
                            (d) == 1 ? (start) + (F)->halo : (F)->g.ext[1],                       \
                            (d) == 2 ? (start) + (F)->halo : (F)->g.ext[2]};                      \
        int64_t r_ = 0;                                                                           \
        for (int k_ = lo_[2]; k_ < hi_[2]; ++k_)                                                  \
            for (int j_ = lo_[1]; j_ < hi_[1]; ++j_)                                              \
                for (int i_ = lo_[0]; i_ < hi_[0]; ++i_, ++r_) {                                  \
                    const int64_t v_ = vs_field_index(&(F)->g, i_, j_, k_);                       \
                    body;                                                                         \
                }                                                                                 \
    } while (0)

static void *grow(void **buf, size_t *cap, size_t bytes)
{
    if (bytes > *cap) {
        free(*buf);
        *buf = VS_MALLOC(bytes);
        *cap = bytes;
    }
    return *buf;
}

static void ex_select(void *ctx, int d, int64_t n_send[2], int64_t n_recv[2])
{
    const struct vs_field_cpu *F = ctx;
    n_send[0] = n_send[1] = n_recv[0] = n_recv[1] = slab_vertices(F, d);
}

static const void *ex_pack(void *ctx, int d, int dir, double shift, int64_t n)
{
    (void)shift; /* grid records: the slabs line up by index, not by position */
    struct vs_field_cpu *F = ctx;
    const int nf = F->fc.nf;
    void *buf = grow(&F->out[dir], &F->out_cap[dir], rec_bytes(F) * (size_t)(n > 0 ? n : 1));
    const int start = slab_start(F, d, dir, 0);
    if (F->fold) {
        int64_t *o = buf;
        SLAB_LOOP(F, d, start, for (int k = 0; k < nf; ++k) o[r_ * nf + k] =
                                   F->count[k * F->nvert + v_]);
    } else {
        double *o = buf;
        SLAB_LOOP(F, d, start, for (int k = 0; k < nf; ++k) o[r_ * nf + k] =
                                   F->pot[k * F->nvert + v_]);
    }
    return buf;
}

static void *ex_recv_buffer(void *ctx, int d, int dir, int64_t n)
{
    (void)d;
    struct vs_field_cpu *F = ctx;
    return grow(&F->in[dir], &F->in_cap[dir], rec_bytes(F) * (size_t)(n > 0 ? n : 1));
}

static void ex_unpack(void *ctx, int d, int dir, const void *recs, int64_t n)
{
    (void)n;
    struct vs_field_cpu *F = ctx;
    const int nf = F->fc.nf;
    const int start = slab_start(F, d, dir, 1);
    if (F->fold) {
        const int64_t *in = recs;
        uint64_t overflow = 0;
        SLAB_LOOP(F, d, start, for (int k = 0; k < nf; ++k)
                      vs_fixed_add(&F->count[k * F->nvert + v_], in[r_ * nf + k], &overflow));
        if (overflow)
            VS_FATAL("field: a vertex's count left the fixed-point range");
    } else {
        const double *in = recs;
        SLAB_LOOP(F, d, start, for (int k = 0; k < nf; ++k) F->pot[k * F->nvert + v_] =
                                   in[r_ * nf + k]);
    }
}

static void exchange(struct vs_field_cpu *F, const vs_decomp *dc, int fold)
{
    const vs_exchange_ops ops = {
        .name = fold ? "field fold" : "field fill",
        .rec_bytes = (size_t)F->fc.nf * (fold ? sizeof(int64_t) : sizeof(double)),
        .counts_known = 1,
        .select = ex_select,
        .pack = ex_pack,
        .recv_buffer = ex_recv_buffer,
        .unpack = ex_unpack,
    };
    F->fold = fold;
    vs_exchange_run(&ops, F, dc);
}

static struct vs_field_cpu *field_create(const vs_cpu_state *s)
{
    const vs_params *prm = s->prm;
    const vs_decomp *dc = s->dc;
    struct vs_field_cpu *F = VS_MALLOC(sizeof *F);
    memset(F, 0, sizeof *F);
    F->nvert = vs_field_block_layout(prm->system.box, prm->field.spacing, prm->neighbor.skin,
                                     dc->coords, dc->dims, &F->g, &F->halo, F->owned);
    const vs_field_params *fp = &prm->field;
    F->fc.nf = fp->n;
    F->fc.kT = prm->dpd.kT;
    F->fc.inv_kappa = 1.0 / fp->kappa;
    for (int k = 0; k < fp->n; ++k)
        for (int l = 0; l < fp->n; ++l)
            F->fc.chi[k][l] = fp->chi[k][l];
    F->count = VS_MALLOC(sizeof(int64_t) * (size_t)(fp->n * F->nvert));
    F->pot = VS_MALLOC(sizeof(double) * (size_t)(fp->n * F->nvert));
    memset(F->pot, 0, sizeof(double) * (size_t)(fp->n * F->nvert));
    F->stale = 1;
    return F;
}

void vs_cpu_field_free(vs_cpu_state *s)
{
    struct vs_field_cpu *F = s->field;
    if (!F)
        return;
    free(F->count);
    free(F->pot);
    for (int dir = 0; dir < 2; ++dir) {
        free(F->out[dir]);
        free(F->in[dir]);
    }
    free(F);
    s->field = NULL;
}

void vs_cpu_field_stale(vs_cpu_state *s)
{
    if (s->field)
        s->field->stale = 1;
}

/* Pass 1 and 2: the counts of the current positions on the owned vertices; the mean density
 * from the global count of field particles (collective). */
static void spread(vs_cpu_state *s, struct vs_field_cpu *F)
{
    const vs_particles *p = s->parts;
    const int *of = s->prm->field.of;
    memset(F->count, 0, sizeof(int64_t) * (size_t)(F->fc.nf * F->nvert));
    int64_t n_field = 0;
    uint64_t overflow = 0;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const int k = of[p->species[i]];
        if (k < 0)
            continue;
        const double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]};
        int c[3];
        double t[3];
        if (vs_field_cell(&F->g, x, 0, c, t) != 0)
            VS_FATAL("field: particle %lld at (%g, %g, %g) lies beyond its rank's grid block "
                     "(more than skin/2 outside its brick)", (long long)p->tag[i], x[0], x[1],
                     x[2]);
        int64_t *cnt = F->count + k * F->nvert;
        for (int dz = 0; dz < 2; ++dz)
            for (int dy = 0; dy < 2; ++dy)
                for (int dx = 0; dx < 2; ++dx)
                    vs_fixed_add(&cnt[vs_field_index(&F->g, c[0] + dx, c[1] + dy, c[2] + dz)],
                                 vs_field_share(vs_field_weight(t, dx, dy, dz)), &overflow);
        n_field++;
    }
    if (overflow)
        VS_FATAL("field: a vertex's count left the fixed-point range");
    vs_par_sum_int64(&s->dc->cart, &n_field, 1);
    exchange(F, s->dc, 1);
    const double cells = (double)F->g.n[0] * (double)F->g.n[1] * (double)F->g.n[2];
    F->fc.cell_count = n_field > 0 ? (double)n_field / cells : 1.0;
    F->fc.phi_per_quantum = 1.0 / (VS_FIELD_QUANTA * F->fc.cell_count);
}

/* Pass 3 (and W): the potentials of the owned vertices when `potentials`, and this rank's
 * share of W into the energy sums when `energy`. */
static void vertices(vs_cpu_state *s, struct vs_field_cpu *F, int potentials, int energy)
{
    const int h = F->halo, nf = F->fc.nf;
    vs_wide w = 0;
    int bad = 0;
    for (int k = h; k < h + F->owned[2]; ++k)
        for (int j = h; j < h + F->owned[1]; ++j)
            for (int i = h; i < h + F->owned[0]; ++i) {
                const int64_t v = vs_field_index(&F->g, i, j, k);
                int64_t q[VS_FIELD_MAX];
                double pot[VS_FIELD_MAX];
                for (int f = 0; f < nf; ++f)
                    q[f] = F->count[f * F->nvert + v];
                const double e = vs_field_vertex(&F->fc, q, pot);
                for (int f = 0; potentials && f < nf; ++f)
                    F->pot[f * F->nvert + v] = pot[f];
                if (!energy)
                    continue;
                if (vs_wide_ok(e))
                    w += vs_wide_from_double(e);
                else
                    bad = 1;
            }
    if (energy) {
        s->field_energy = w;
        s->sums.out_of_range |= bad;
    }
}

void vs_cpu_field_forces(vs_cpu_state *s, int64_t step, int want_energy)
{
    if (!s->field)
        s->field = field_create(s);
    struct vs_field_cpu *F = s->field;
    const int update = F->stale || step % s->prm->field.interval == 0;
    if (update || want_energy) {
        spread(s, F);
        vertices(s, F, update, want_energy != 0);
    }
    if (update) {
        exchange(F, s->dc, 0);
        F->stale = 0;
    }
    const vs_particles *p = s->parts;
    const int *of = s->prm->field.of;
    const int scheme = s->prm->field.force;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        const int k = of[p->species[i]];
        if (k < 0)
            continue;
        const double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]};
        int c[3];
        double t[3], f[3];
        if (vs_field_cell(&F->g, x, 1, c, t) != 0)
            VS_FATAL("field: particle %lld at (%g, %g, %g) lies beyond its rank's grid block "
                     "(more than skin/2 outside its brick)", (long long)p->tag[i], x[0], x[1],
                     x[2]);
        vs_field_force(&F->g, scheme, F->pot + k * F->nvert, c, t, f);
        vs_cpu_add_force(s, i, f[0], f[1], f[2]);
    }
}

void vs_cpu_field_phi(void *st, double *out)
{
    vs_cpu_state *s = st;
    if (!s->field)
        s->field = field_create(s);
    struct vs_field_cpu *F = s->field;
    spread(s, F);
    vs_field_owned_phi(&F->g, F->fc.nf, F->nvert, F->halo, F->owned, F->fc.phi_per_quantum,
                       F->count, out);
}
