/* What the two ways to the ghosts share: gpu_halo.cu (the staged protocol over the exchange
 * driver, and the migration) and gpu_images.cu (the image path, at most one dimension split
 * over ranks). */
#ifndef VESICA_GPU_HALO_CUH
#define VESICA_GPU_HALO_CUH

#include "gpu_internal.cuh"

/* The arrays a kernel touches, passed by value. */
struct vs_soa {
    vs_positions pos; /* vs_pos_load, vs_pos_store */
    double *v[3];
    double *vp[3]; /* NULL where vel_f holds the predicted velocities (vp_in_vel_f): use
                      vs_soa_vp, vs_soa_set_vp, vs_soa_copy_vp */
    int32_t *image[3];
    int64_t *tag;
    int32_t *species;
    /* the owned particles' mixed force inputs, when they are kept current beside fp64
     * positions (vs_gpu_owned_staged; else NULL, and NULL where pos holds them): moved with
     * the particles, staged for arrivals. vel_f: also the predicted velocities of every
     * particle where vp is NULL */
    int4 *pos_q;
    float4 *vel_f;
    vs_fixed_frame frame;
    /* molecules (gpu_topo.cu): the records, each record's slot and each owned slot's record;
     * else NULL. rec_base: where an unpack's arrivals put theirs */
    vs_topo *topo;
    int32_t *rec_slot, *slot_rec;
    int64_t rec_base;
    uint8_t *mark; /* molecules: per slot, the bead's bond count (vs_gpu_bonded); else NULL.
                    * The ghost kernels carry it to the ghosts they make */
    vs_dihedrals *dih; /* dihedrals: beside the records; else NULL */
    vs_special *special; /* special lists: each owned particle's, moved with it; else NULL */
    double grid_quantum; /* > 0 (vs_gpu_plan.grid_records): ghosts travel as grid records
                            (vs_ghost_rec_grid) of positions in quanta of this size */
    vs_face_marks faces; /* near: the face flags the migration keeps current for the slots it
                            fills (NULL where they are stale); leaver NULL */
    vs_orient *orient; /* oriented particles (gpu_aniso.cuh): each slot's record, a migrant's
                          travelling with it and a ghost's n with the ghost; else NULL */
};

static inline vs_soa soa(vs_gpu_state *g)
{
    vs_soa a;
    a.pos = vs_gpu_positions(g);
    for (int d = 0; d < 3; ++d) {
        a.vp[d] = g->pt.vp[d];
        a.v[d] = g->pt.v[d];
        a.image[d] = g->pt.image[d];
    }
    a.tag = g->pt.tag;
    a.species = g->pt.species_id;
    a.pos_q = !g->plan.pos_q_only && vs_gpu_owned_staged(g) ? g->fs.pos_q : NULL;
    a.vel_f = g->fs.vel_f;
    a.frame = g->fs.frame;
    a.topo = g->bd.on ? g->bd.topo : NULL;
    a.rec_slot = g->bd.rec_slot;
    a.slot_rec = g->bd.slot_rec;
    a.rec_base = g->bd.n_rec;
    a.mark = g->bd.mark;
    a.dih = g->bd.dih_on ? g->bd.dih : NULL;
    a.special = g->ps.special_on ? g->ps.special : NULL;
    a.grid_quantum = g->plan.grid_records ? g->prm->exec.position_quantum : 0.0;
    a.faces = vs_gpu_face_marks(g);
    if (!vs_gpu_faces_current(g))
        a.faces.near = NULL;
    a.faces.leaver = NULL;
    a.orient = g->an.on ? g->an.orient : NULL;
    return a;
}

/* Predicted velocity of particle i, from whichever store holds it. */
__device__ __forceinline__ void vs_soa_vp(const vs_soa &a, int64_t i, double v[3])
{
    if (a.vp[0]) {
        for (int c = 0; c < 3; ++c)
            v[c] = a.vp[c][i];
    } else {
        const float4 u = a.vel_f[i];
        v[0] = u.x;
        v[1] = u.y;
        v[2] = u.z;
    }
}

__device__ __forceinline__ void vs_soa_set_vp(const vs_soa &a, int64_t j, const double v[3])
{
    if (a.vp[0]) {
        for (int c = 0; c < 3; ++c)
            a.vp[c][j] = v[c];
    } else {
        vs_store_vp(j, v[0], v[1], v[2], a.vel_f);
    }
}

__device__ __forceinline__ void vs_soa_copy_vp(const vs_soa &a, int64_t to, int64_t from)
{
    if (a.vp[0]) {
        for (int c = 0; c < 3; ++c)
            a.vp[c][to] = a.vp[c][from];
    } else {
        a.vel_f[to] = a.vel_f[from];
    }
}

/* Ghost records in mixed precision on the position grid (vs_gpu_plan.grid_records). Every
 * position is a whole number of quanta below 2^31 in magnitude (src/core/position_grid.h)
 * and the predicted velocity is fp32 already (vel_f), so a record carries both exactly in 24
 * bytes; a tag (0..N-1, below 2^48: the plan's condition), the species and the bonded mark
 * (the bead's bond count) share the next 8. A build's record takes 32 bytes instead of
 * vs_ghost_rec's 64, an update's 24 instead of vs_ghost_update_rec's 48: half the bytes, and
 * the receiver's ghosts are the same bits. The tag travels as two words, so that the records
 * need only 4-byte alignment. */
struct vs_ghost_update_rec_grid {
    int32_t x[3];
    float vp[3];
};

struct vs_ghost_rec_grid {
    vs_ghost_update_rec_grid motion; /* an update's record leads a build's */
    uint32_t tag_lo;
    uint32_t tag_hi_species_mark; /* tag bits 32-47 | species << 16 | bonded mark << 28 */
};
static_assert(VS_GRID_TAG_BITS == 48, "a grid record holds tag bits 32-47 in 16 bits");

static_assert(sizeof(vs_ghost_rec_grid) == 32 && sizeof(vs_ghost_update_rec_grid) == 24,
              "grid records are 32 and 24 bytes (docs/architecture.md)");
static_assert(VS_MAX_SPECIES <= 1 << 12, "a grid record holds the species in 12 bits");
static_assert(VS_MAX_BONDS < 1 << 4, "a grid record holds the bond count in 4 bits");

/* Bytes of a ghost build's and a ghost update's record; with orientations each carries its
 * particle's n after it (vs_ghost_at), as on the host path (comm/halo.c). */
static inline size_t vs_gpu_ghost_rec_bytes(const vs_gpu_state *g)
{
    return (g->plan.grid_records ? sizeof(vs_ghost_rec_grid) : sizeof(vs_ghost_rec)) +
           (g->an.on ? VS_GHOST_ORIENT_BYTES : 0);
}

static inline size_t vs_gpu_ghost_update_rec_bytes(const vs_gpu_state *g)
{
    return (g->plan.grid_records ? sizeof(vs_ghost_update_rec_grid)
                                 : sizeof(vs_ghost_update_rec)) +
           (g->an.on ? VS_GHOST_ORIENT_BYTES : 0);
}

/* Record k of a ghost buffer whose records are `rec` bytes, each followed by its particle's
 * n where the particles are oriented. */
__device__ __forceinline__ char *vs_ghost_at(const vs_soa &a, const void *base, int64_t k,
                                             size_t rec)
{
    return (char *)base + (size_t)k * (rec + (a.orient ? VS_GHOST_ORIENT_BYTES : 0));
}

/* Particle src's n into a record's tail, and from there into slot j. */
__device__ __forceinline__ void vs_put_ghost_n(const vs_soa &a, char *tail, int64_t src)
{
    if (a.orient)
        for (int c = 0; c < 3; ++c)
            ((double *)tail)[c] = a.orient[src].n[c];
}

__device__ __forceinline__ void vs_take_ghost_n(const vs_soa &a, const char *tail, int64_t j)
{
    if (a.orient)
        for (int c = 0; c < 3; ++c)
            a.orient[j].n[c] = ((const double *)tail)[c];
}

/* A ghost copied within the rank (slot j from particle i): its n. */
__device__ __forceinline__ void vs_copy_ghost_n(const vs_soa &a, int64_t j, int64_t i)
{
    if (a.orient)
        for (int c = 0; c < 3; ++c)
            a.orient[j].n[c] = a.orient[i].n[c];
}

/* Position p in quanta of the grid (1 / quantum is exact: a power of two) and the predicted
 * velocity vp in fp32 (exact: vel_f's values). */
__device__ __forceinline__ vs_ghost_update_rec_grid vs_grid_motion(const double p[3],
                                                                   const double vp[3],
                                                                   double quantum)
{
    vs_ghost_update_rec_grid m;
    for (int c = 0; c < 3; ++c) {
        m.x[c] = (int32_t)__double2ll_rn(p[c] * (1.0 / quantum));
        m.vp[c] = (float)vp[c];
    }
    return m;
}

__device__ __forceinline__ void vs_grid_motion_read(const vs_ghost_update_rec_grid &m,
                                                    double quantum, double p[3], double vp[3])
{
    for (int c = 0; c < 3; ++c) {
        p[c] = (double)m.x[c] * quantum;
        vp[c] = m.vp[c];
    }
}

/* Record k of a ghost build: position p, predicted velocity vp, tag, species and the bonded
 * mark (molecules: the bead's bond count, as the host path's record carries it), and the n of
 * particle src. */
__device__ __forceinline__ void vs_put_ghost(const vs_soa &a, void *out, int64_t k,
                                             const double p[3], const double vp[3],
                                             int64_t tag, int32_t species, uint8_t mark,
                                             int64_t src)
{
    if (a.grid_quantum > 0.0) {
        char *at = vs_ghost_at(a, out, k, sizeof(vs_ghost_rec_grid));
        vs_ghost_rec_grid r;
        r.motion = vs_grid_motion(p, vp, a.grid_quantum);
        r.tag_lo = (uint32_t)(uint64_t)tag;
        r.tag_hi_species_mark = (uint32_t)((uint64_t)tag >> 32) | (uint32_t)species << 16 |
                                (uint32_t)mark << 28;
        *(vs_ghost_rec_grid *)at = r;
        vs_put_ghost_n(a, at + sizeof r, src);
    } else {
        char *at = vs_ghost_at(a, out, k, sizeof(vs_ghost_rec));
        vs_ghost_rec r;
        for (int c = 0; c < 3; ++c) {
            r.x[c] = p[c];
            r.vp[c] = vp[c];
        }
        r.tag = tag;
        r.species = species;
        r.pad = mark;
        *(vs_ghost_rec *)at = r;
        vs_put_ghost_n(a, at + sizeof r, src);
    }
}

/* Record k of a ghost build into slot j. */
__device__ __forceinline__ void vs_take_ghost(const vs_soa &a, const void *in, int64_t k,
                                              int64_t j)
{
    double p[3], vp[3];
    int64_t tag;
    int32_t species;
    uint8_t mark;
    if (a.grid_quantum > 0.0) {
        const char *at = vs_ghost_at(a, in, k, sizeof(vs_ghost_rec_grid));
        const vs_ghost_rec_grid r = *(const vs_ghost_rec_grid *)at;
        vs_take_ghost_n(a, at + sizeof r, j);
        vs_grid_motion_read(r.motion, a.grid_quantum, p, vp);
        tag = (int64_t)((uint64_t)(r.tag_hi_species_mark & 0xffffu) << 32 | r.tag_lo);
        species = (int32_t)(r.tag_hi_species_mark >> 16 & 0xfffu);
        mark = (uint8_t)(r.tag_hi_species_mark >> 28);
    } else {
        const char *at = vs_ghost_at(a, in, k, sizeof(vs_ghost_rec));
        const vs_ghost_rec r = *(const vs_ghost_rec *)at;
        vs_take_ghost_n(a, at + sizeof r, j);
        for (int c = 0; c < 3; ++c) {
            p[c] = r.x[c];
            vp[c] = r.vp[c];
        }
        tag = r.tag;
        species = r.species;
        mark = (uint8_t)r.pad;
    }
    vs_pos_store(a.pos, j, p, species);
    vs_soa_set_vp(a, j, vp);
    a.tag[j] = tag;
    a.species[j] = species;
    if (a.mark)
        a.mark[j] = mark;
}

/* Record k of a ghost update: position p, predicted velocity vp and the n of particle
 * src. */
__device__ __forceinline__ void vs_put_ghost_update(const vs_soa &a, void *out, int64_t k,
                                                    const double p[3], const double vp[3],
                                                    int64_t src)
{
    if (a.grid_quantum > 0.0) {
        char *at = vs_ghost_at(a, out, k, sizeof(vs_ghost_update_rec_grid));
        *(vs_ghost_update_rec_grid *)at = vs_grid_motion(p, vp, a.grid_quantum);
        vs_put_ghost_n(a, at + sizeof(vs_ghost_update_rec_grid), src);
    } else {
        char *at = vs_ghost_at(a, out, k, sizeof(vs_ghost_update_rec));
        vs_ghost_update_rec r;
        for (int c = 0; c < 3; ++c) {
            r.x[c] = p[c];
            r.vp[c] = vp[c];
        }
        *(vs_ghost_update_rec *)at = r;
        vs_put_ghost_n(a, at + sizeof r, src);
    }
}

/* Record k of a ghost update into slot j. */
__device__ __forceinline__ void vs_take_ghost_update(const vs_soa &a, const void *in, int64_t k,
                                                     int64_t j)
{
    double p[3], vp[3];
    if (a.grid_quantum > 0.0) {
        const char *at = vs_ghost_at(a, in, k, sizeof(vs_ghost_update_rec_grid));
        vs_grid_motion_read(*(const vs_ghost_update_rec_grid *)at, a.grid_quantum, p, vp);
        vs_take_ghost_n(a, at + sizeof(vs_ghost_update_rec_grid), j);
    } else {
        const char *at = vs_ghost_at(a, in, k, sizeof(vs_ghost_update_rec));
        const vs_ghost_update_rec r = *(const vs_ghost_update_rec *)at;
        vs_take_ghost_n(a, at + sizeof r, j);
        for (int c = 0; c < 3; ++c) {
            p[c] = r.x[c];
            vp[c] = r.vp[c];
        }
    }
    vs_pos_store(a.pos, j, p, a.species[j]);
    vs_soa_set_vp(a, j, vp);
}

/* Received ghosts into slots [start, start + n): on a build with tag and species, on an
 * update x and vp (gpu_halo.cu). */
__global__ void unpack_ghost_kernel(int n, const void *in, int64_t start, vs_soa a);
/* Where a migrant's vs_dihedrals and vs_special sit: after its vs_topo, the vs_special after
 * the vs_dihedrals, each when there is one (comm/halo.c). */
static __device__ __forceinline__ size_t vs_dih_offset(const vs_soa &a)
{
    return sizeof(vs_migrant_rec) + (a.slot_rec ? sizeof(vs_topo) : 0);
}

static __device__ __forceinline__ size_t vs_special_offset(const vs_soa &a)
{
    return vs_dih_offset(a) + (a.dih ? sizeof(vs_dihedrals) : 0);
}

/* The vs_orient after the vs_special, and a migrant's whole record (vs_gpu_migrant_bytes). */
static __device__ __forceinline__ size_t vs_orient_offset(const vs_soa &a)
{
    return vs_special_offset(a) + (a.special ? sizeof(vs_special) : 0);
}

static __device__ __forceinline__ size_t vs_migrant_bytes(const vs_soa &a)
{
    return vs_orient_offset(a) + (a.orient ? sizeof(vs_orient) : 0);
}

/* The same on the host, from the state. */
static inline size_t vs_gpu_migrant_bytes(const vs_gpu_state *g)
{
    return sizeof(vs_migrant_rec) + (g->bd.on ? sizeof(vs_topo) : 0) +
           (g->bd.dih_on ? sizeof(vs_dihedrals) : 0) +
           (g->ps.special_on ? sizeof(vs_special) : 0) + (g->an.on ? sizeof(vs_orient) : 0);
}

/* What a particle carries from slot to slot when it fills a hole, read in one go: every load
 * is issued before the first store, where copying field by field would wait for each load in
 * turn (the compiler cannot move a load above a store to memory that might alias it). The
 * special list and the orientation, large and only in molecule or oriented runs, are copied
 * after (vs_fill_hole). */
struct vs_carried {
    double p[3], v[3], vp[3]; /* vp: where the fp64 predicted velocities are kept */
    float4 vel_f;              /* else here (vs_soa.vel_f), copied whole */
    int32_t image[3], species, slot_rec;
    int64_t tag;
    int4 pos_q;
    uint8_t near;
};

static __device__ __forceinline__ vs_carried vs_carried_load(const vs_soa &a, int from)
{
    vs_carried c;
    vs_pos_load(a.pos, from, c.p);
    for (int d = 0; d < 3; ++d) {
        c.v[d] = a.v[d][from];
        c.image[d] = a.image[d][from];
    }
    for (int d = 0; d < 3; ++d)
        c.vp[d] = a.vp[0] ? a.vp[d][from] : 0.0;
    c.vel_f = a.vp[0] ? make_float4(0.0f, 0.0f, 0.0f, 0.0f) : a.vel_f[from];
    c.tag = a.tag[from];
    c.species = a.species[from];
    c.slot_rec = a.slot_rec ? a.slot_rec[from] : -1;
    c.pos_q = a.pos_q ? a.pos_q[from] : make_int4(0, 0, 0, 0);
    c.near = a.faces.near ? a.faces.near[from] : 0;
    return c;
}

/* Particle `from`, whose fields are c, moves into slot `to` (a hole's filling). */
static __device__ __forceinline__ void vs_fill_hole(const vs_soa &a, int to, int from,
                                                    const vs_carried &c)
{
    vs_pos_store(a.pos, to, c.p, c.species);
    for (int d = 0; d < 3; ++d) {
        a.v[d][to] = c.v[d];
        a.image[d][to] = c.image[d];
    }
    if (a.vp[0]) {
        for (int d = 0; d < 3; ++d)
            a.vp[d][to] = c.vp[d];
    } else {
        a.vel_f[to] = c.vel_f;
    }
    a.tag[to] = c.tag;
    a.species[to] = c.species;
    if (a.slot_rec) { /* the record stays where it is and learns its new slot */
        a.slot_rec[to] = c.slot_rec;
        if (c.slot_rec >= 0)
            a.rec_slot[c.slot_rec] = to;
    }
    if (a.pos_q) /* vel_f moved above: in mixed precision it holds the predicted velocity */
        a.pos_q[to] = c.pos_q;
    if (a.faces.near)
        a.faces.near[to] = c.near;
    if (a.special)
        a.special[to] = a.special[from];
    if (a.orient)
        a.orient[to] = a.orient[from];
}

/* Leaver i, whose fields are c (vs_carried_load), packed with everything it carries into
 * record k; crossing the periodic boundary (wrap != 0) shifts the coordinate by the box and
 * counts the image, as the CPU migration does. Records are `rec` bytes apart: with molecules
 * each carries its particle's vs_topo after the vs_migrant_rec, then its vs_dihedrals, its
 * vs_special and its vs_orient where the run has them, as on the host path (comm/halo.c). */
static __device__ __forceinline__ void vs_pack_migrant(int i, int64_t k, int d, int wrap,
                                                       double len, const vs_soa &a, char *out,
                                                       size_t rec, const vs_carried &c)
{
    /* named coordinates, the split one picked by comparison: a record wrapped at x[d] lives
     * on the stack (the compiler folds per-dimension branches back into an indexed access) */
    double x0 = c.p[0], x1 = c.p[1], x2 = c.p[2];
    int32_t im0 = c.image[0], im1 = c.image[1], im2 = c.image[2];
    auto wrapped = [&](double &x, int32_t &image) {
        if (wrap < 0)
            vs_wrap_down(&x, &image, len);
        else if (wrap > 0)
            vs_wrap_up(&x, &image, len);
    };
    if (d == 0)
        wrapped(x0, im0);
    else if (d == 1)
        wrapped(x1, im1);
    else
        wrapped(x2, im2);
    vs_migrant_rec *to = (vs_migrant_rec *)(out + (size_t)k * rec);
    to->x[0] = x0;
    to->x[1] = x1;
    to->x[2] = x2;
    for (int e = 0; e < 3; ++e) {
        to->v[e] = c.v[e];
        /* where vel_f holds them, the fp32 predicted velocities as doubles (exact) */
        to->vp[e] = a.vp[0] ? c.vp[e] : e == 0 ? c.vel_f.x : e == 1 ? c.vel_f.y : c.vel_f.z;
    }
    to->tag = c.tag;
    to->species = c.species;
    to->image[0] = im0;
    to->image[1] = im1;
    to->image[2] = im2;
    if (a.slot_rec) { /* the record travels (an empty one for a free bead); a hole stays */
        const int32_t q = c.slot_rec;
        vs_topo t;
        vs_dihedrals dh;
        memset(&t, 0, sizeof t);
        memset(&dh, 0, sizeof dh);
        if (q >= 0) {
            t = a.topo[q];
            if (a.dih)
                dh = a.dih[q];
            a.rec_slot[q] = -1;
        }
        *(vs_topo *)(to + 1) = t;
        if (a.dih)
            *(vs_dihedrals *)((char *)to + vs_dih_offset(a)) = dh;
    }
    if (a.special)
        *(vs_special *)((char *)to + vs_special_offset(a)) = a.special[i];
    if (a.orient)
        *(vs_orient *)((char *)to + vs_orient_offset(a)) = a.orient[i];
}

/* Arrivals along d, each checked against the brick along d: one hop per dimension must have
 * been enough (the rebuild trigger guarantees it), and a position that is not finite is not
 * inside either. The smallest offending tag goes to *outside. */
static __device__ __forceinline__ void vs_unpack_migrant(const char *in, int64_t k, size_t rec,
                                                         int64_t start, const vs_soa &a, int d,
                                                         double lo, double hi,
                                                         unsigned long long *outside)
{
    const vs_migrant_rec *from = (const vs_migrant_rec *)(in + (size_t)k * rec);
    const vs_migrant_rec r = *from;
    const int64_t j = start + k;
    vs_pos_store(a.pos, j, r.x, r.species);
    if (a.faces.near) {
        double held[3];
        vs_pos_load(a.pos, j, held);
        a.faces.near[j] = vs_near_faces(a.faces, held);
    }
    for (int c = 0; c < 3; ++c) {
        a.v[c][j] = r.v[c];
        a.image[c][j] = r.image[c];
    }
    vs_soa_set_vp(a, j, r.vp);
    a.tag[j] = r.tag;
    a.species[j] = r.species;
    if (a.slot_rec) { /* arrival k: record rec_base + k, a hole where it brings none */
        const vs_topo *t = (const vs_topo *)(from + 1);
        const vs_dihedrals *dh =
            a.dih ? (const vs_dihedrals *)((const char *)from + vs_dih_offset(a)) : NULL;
        const int64_t q = a.rec_base + k;
        const int has = t->mol != 0 || t->n_bond > 0 || t->n_angle > 0 ||
                        (dh && dh->n_dihedral > 0);
        a.slot_rec[j] = has ? (int32_t)q : -1;
        a.rec_slot[q] = has ? (int32_t)j : -1;
        if (has) {
            a.topo[q] = *t;
            if (dh)
                a.dih[q] = *dh;
        }
    }
    if (a.special)
        a.special[j] = *(const vs_special *)((const char *)from + vs_special_offset(a));
    if (a.orient)
        a.orient[j] = *(const vs_orient *)((const char *)from + vs_orient_offset(a));
    if (a.pos_q) /* mixed precision: vel_f, the predicted velocity, is set above */
        vs_stage_position(a.frame, j, r.x[0], r.x[1], r.x[2], r.species, a.pos_q);
    const double u = d == 0 ? r.x[0] : d == 1 ? r.x[1] : r.x[2]; /* selected, not indexed */
    if (!vs_in_brick(u, lo, hi))
        atomicMin(outside, (unsigned long long)r.tag);
}

/* The migration's kernels (gpu_halo.cu), shared with the slab path (gpu_slab.cu). */
__global__ void pack_migrant_kernel(int n, const int32_t *send, int d, int wrap, double len,
                                    vs_soa a, char *out, size_t rec);
__global__ void unpack_migrant_kernel(int n, const char *in, size_t rec, int64_t start,
                                      vs_soa a, int d, double lo, double hi,
                                      unsigned long long *outside);
__global__ void fill_holes_kernel(int max_n, const int32_t *count, const int32_t *holes,
                                  const int32_t *movers, vs_soa a);
__global__ void unpack_update_kernel(int n, const void *in, int64_t start, vs_soa a);

/* The dimension split over ranks when at most one is (-1: none, the brick is the box), or -2
 * when several are (the staged protocol). */
int vs_gpu_image_remote(const vs_gpu_state *g);
/* The image path's ghost build and its two refreshes (remote: vs_gpu_image_remote). */
void vs_gpu_build_images(vs_gpu_state *g, int remote);
void vs_gpu_update_local_images_of(vs_gpu_state *g, int remote);
void vs_gpu_update_remote_images_of(vs_gpu_state *g, int remote);
/* The owned particles within the ghost width of any face (bonded beads: the bonded width),
 * in index order, into `out` and their number into *count (on the device). */
void vs_gpu_select_near_face(vs_gpu_state *g, int32_t *out, int32_t *count);
/* The migration's arrival check, read back with the ghost counts: a fatal error naming a
 * particle that is outside its brick after migration. */
void vs_gpu_check_outside(vs_gpu_state *g);
/* The same where the stream was just waited for (no second wait). */
void vs_gpu_outside_verdict(vs_gpu_state *g);

#endif
