/* Particle arrays: see particles.h. Growth is geometric so migration and ghost exchange
 * allocate rarely, never once per step in steady state. */
#include "particles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "wrap.h"

#define VS_FIELD_LIST(X)                                                                       \
    X(x[0], double) X(x[1], double) X(x[2], double)                                            \
    X(vp[0], double) X(vp[1], double) X(vp[2], double)                                         \
    X(tag, int64_t) X(species, int32_t)                                                        \
    X(v[0], double) X(v[1], double) X(v[2], double)                                            \
    X(f[0], double) X(f[1], double) X(f[2], double)                                            \
    X(image[0], int32_t) X(image[1], int32_t) X(image[2], int32_t)                             \
    X(x_build[0], double) X(x_build[1], double) X(x_build[2], double)                         \
    X(signature, uint64_t)

void vs_particles_init(vs_particles *p, int64_t capacity)
{
    p->n_owned = p->n_ghost = 0;
    p->capacity = capacity > 16 ? capacity : 16;
#define VS_ALLOC(field, type) p->field = VS_MALLOC(sizeof(type) * (size_t)p->capacity);
    VS_FIELD_LIST(VS_ALLOC)
#undef VS_ALLOC
    p->topo = NULL;
    p->special = NULL;
    p->dih = NULL;
    p->orient = NULL;
}

void vs_particles_enable_orient(vs_particles *p)
{
    if (p->orient)
        return;
    p->orient = VS_MALLOC(sizeof(vs_orient) * (size_t)p->capacity);
    memset(p->orient, 0, sizeof(vs_orient) * (size_t)p->capacity);
}

void vs_particles_enable_dihedrals(vs_particles *p)
{
    if (p->dih)
        return;
    p->dih = VS_MALLOC(sizeof(vs_dihedrals) * (size_t)p->capacity);
    memset(p->dih, 0, sizeof(vs_dihedrals) * (size_t)p->capacity);
}

void vs_particles_enable_special(vs_particles *p)
{
    if (p->special)
        return;
    p->special = VS_MALLOC(sizeof(vs_special) * (size_t)p->capacity);
    memset(p->special, 0, sizeof(vs_special) * (size_t)p->capacity);
}

void vs_particles_enable_topology(vs_particles *p)
{
    if (p->topo)
        return;
    p->topo = VS_MALLOC(sizeof(vs_topo) * (size_t)p->capacity);
    memset(p->topo, 0, sizeof(vs_topo) * (size_t)p->capacity);
}

void vs_particles_free(vs_particles *p)
{
#define VS_FREE(field, type) free(p->field); p->field = NULL;
    VS_FIELD_LIST(VS_FREE)
#undef VS_FREE
    free(p->topo);
    p->topo = NULL;
    free(p->special);
    p->special = NULL;
    free(p->dih);
    p->dih = NULL;
    free(p->orient);
    p->orient = NULL;
    p->capacity = p->n_owned = p->n_ghost = 0;
}

void vs_particles_reserve(vs_particles *p, int64_t needed)
{
    if (needed <= p->capacity)
        return;
    int64_t cap = p->capacity;
    while (cap < needed)
        cap += cap / 2 + 16;
#define VS_GROW(field, type) p->field = VS_REALLOC(p->field, sizeof(type) * (size_t)cap);
    VS_FIELD_LIST(VS_GROW)
#undef VS_GROW
    if (p->topo)
        p->topo = VS_REALLOC(p->topo, sizeof(vs_topo) * (size_t)cap);
    if (p->special)
        p->special = VS_REALLOC(p->special, sizeof(vs_special) * (size_t)cap);
    if (p->dih)
        p->dih = VS_REALLOC(p->dih, sizeof(vs_dihedrals) * (size_t)cap);
    if (p->orient)
        p->orient = VS_REALLOC(p->orient, sizeof(vs_orient) * (size_t)cap);
    p->capacity = cap;
}

void vs_particles_copy_owned(vs_particles *p, int64_t to, int64_t from)
{
#define VS_COPY(field, type) p->field[to] = p->field[from];
    VS_FIELD_LIST(VS_COPY)
#undef VS_COPY
    if (p->topo)
        p->topo[to] = p->topo[from];
    if (p->special)
        p->special[to] = p->special[from];
    if (p->dih)
        p->dih[to] = p->dih[from];
    if (p->orient)
        p->orient[to] = p->orient[from];
}

unsigned long vs_particles_bytes_per_slot(void)
{
    unsigned long bytes = 0;
#define VS_SIZE(field, type) bytes += sizeof(type);
    VS_FIELD_LIST(VS_SIZE)
#undef VS_SIZE
    return bytes;
}

/* Records of `size` bytes (NULL: none) reordered: slot k takes old slot order[k]. */
static void permute_bytes(void *recs, size_t size, const int64_t *order, int64_t n)
{
    if (!recs || n <= 0)
        return;
    char *tmp = VS_MALLOC(size * (size_t)n);
    for (int64_t k = 0; k < n; ++k)
        memcpy(tmp + size * (size_t)k, (const char *)recs + size * (size_t)order[k], size);
    memcpy(recs, tmp, size * (size_t)n);
    free(tmp);
}

void vs_particles_permute_owned(vs_particles *p, const int64_t *order, void *scratch)
{
    const int64_t n = p->n_owned;
#define VS_PERMUTE(field, type)                                                                \
    {                                                                                          \
        type *tmp = scratch;                                                                   \
        for (int64_t k = 0; k < n; ++k)                                                        \
            tmp[k] = p->field[order[k]];                                                       \
        memcpy(p->field, tmp, sizeof(type) * (size_t)n);                                       \
    }
    VS_FIELD_LIST(VS_PERMUTE)
#undef VS_PERMUTE
    /* records too large for the scratch: their own buffer */
    permute_bytes(p->topo, sizeof(vs_topo), order, n);
    permute_bytes(p->special, sizeof(vs_special), order, n);
    permute_bytes(p->dih, sizeof(vs_dihedrals), order, n);
    permute_bytes(p->orient, sizeof(vs_orient), order, n);
    p->n_ghost = 0;
}

void vs_particles_pack(const vs_particles *p, vs_particle_rec *out)
{
    for (int64_t i = 0; i < p->n_owned; ++i) {
        vs_particle_rec *r = &out[i];
        memset(r, 0, sizeof *r); /* no stray padding bytes in files or messages */
        for (int d = 0; d < 3; ++d) {
            r->x[d] = p->x[d][i];
            r->v[d] = p->v[d][i];
            r->vp[d] = p->vp[d][i];
            r->f[d] = p->f[d][i];
            r->image[d] = p->image[d][i];
        }
        r->tag = p->tag[i];
        r->species = p->species[i];
    }
}

void vs_particles_unpack(vs_particles *p, const vs_particle_rec *in, int64_t n)
{
    vs_particles_reserve(p, n);
    for (int64_t i = 0; i < n; ++i) {
        const vs_particle_rec *r = &in[i];
        for (int d = 0; d < 3; ++d) {
            p->x[d][i] = r->x[d];
            p->v[d][i] = r->v[d];
            p->vp[d][i] = r->vp[d];
            p->f[d][i] = r->f[d];
            p->image[d][i] = r->image[d];
            p->x_build[d][i] = r->x[d];
        }
        p->tag[i] = r->tag;
        p->species[i] = r->species;
    }
    p->n_owned = n;
    p->n_ghost = 0;
}

void vs_particles_pack_topo(const vs_particles *p, vs_topo *out)
{
    memcpy(out, p->topo, sizeof(vs_topo) * (size_t)p->n_owned);
}

void vs_particles_unpack_topo(vs_particles *p, const vs_topo *in, int64_t n)
{
    vs_particles_enable_topology(p);
    memcpy(p->topo, in, sizeof(vs_topo) * (size_t)n);
}

void vs_particle_ext_free(vs_particle_ext *e)
{
    free(e->topo);
    free(e->special);
    free(e->dih);
    free(e->orient);
    e->topo = NULL;
    e->special = NULL;
    e->dih = NULL;
    e->orient = NULL;
}

/* A copy of n records of `size` bytes, or NULL where there are none. */
static void *copy_or_null(const void *from, size_t size, int64_t n)
{
    if (!from)
        return NULL;
    void *to = VS_MALLOC(size * (size_t)(n > 0 ? n : 1));
    memcpy(to, from, size * (size_t)n);
    return to;
}

void vs_particles_pack_ext(const vs_particles *p, vs_particle_ext *out)
{
    out->topo = copy_or_null(p->topo, sizeof(vs_topo), p->n_owned);
    out->special = copy_or_null(p->special, sizeof(vs_special), p->n_owned);
    out->dih = copy_or_null(p->dih, sizeof(vs_dihedrals), p->n_owned);
    out->orient = copy_or_null(p->orient, sizeof(vs_orient), p->n_owned);
}

void vs_particles_unpack_ext(vs_particles *p, const vs_particle_ext *in, int64_t n)
{
    if (in->topo)
        vs_particles_unpack_topo(p, in->topo, n);
    if (in->special) {
        vs_particles_enable_special(p);
        memcpy(p->special, in->special, sizeof(vs_special) * (size_t)n);
    }
    if (in->dih) {
        vs_particles_enable_dihedrals(p);
        memcpy(p->dih, in->dih, sizeof(vs_dihedrals) * (size_t)n);
    }
    if (in->orient) {
        vs_particles_enable_orient(p);
        memcpy(p->orient, in->orient, sizeof(vs_orient) * (size_t)n);
    }
}

void vs_particle_rec_wrap(vs_particle_rec *r, const double box[3])
{
    for (int d = 0; d < 3; ++d)
        vs_wrap_into(&r->x[d], &r->image[d], box[d]);
}

void vs_particle_recs_sort_by_tag(vs_particle_rec *r, int64_t n)
{
    vs_particle_recs_sort_by_tag_ext(r, NULL, n);
}

typedef struct {
    int64_t tag, index;
} tag_key;

/* The order of n tags (order[k]: the index of the k-th smallest; equal tags keep their input
 * order), by a least-significant-digit radix sort of (tag, index) keys, 11 bits a pass over
 * the bits the largest tag uses: tags are integers below the particle count, and a
 * comparison sort of millions of them took longer than moving the records. Tags >= 0. */
static int64_t *tag_order(const vs_particle_rec *r, int64_t n)
{
    enum { BITS = 11, BUCKETS = 1 << BITS };
    tag_key *keys = VS_MALLOC(sizeof(tag_key) * (size_t)n);
    tag_key *next = VS_MALLOC(sizeof(tag_key) * (size_t)n);
    int64_t *count = VS_MALLOC(sizeof(int64_t) * BUCKETS);
    int64_t top = 0;
    for (int64_t i = 0; i < n; ++i) {
        keys[i] = (tag_key){r[i].tag, i};
        top |= r[i].tag;
    }
    if (top < 0) /* some tag has the sign bit */
        VS_FATAL("a particle tag is negative");
    for (int shift = 0; shift < 63 && (top >> shift) != 0; shift += BITS) {
        memset(count, 0, sizeof(int64_t) * BUCKETS);
        for (int64_t k = 0; k < n; ++k)
            count[(keys[k].tag >> shift) & (BUCKETS - 1)]++;
        int64_t sum = 0;
        for (int b = 0; b < BUCKETS; ++b) {
            const int64_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (int64_t k = 0; k < n; ++k)
            next[count[(keys[k].tag >> shift) & (BUCKETS - 1)]++] = keys[k];
        tag_key *t = keys;
        keys = next;
        next = t;
    }
    int64_t *order = VS_MALLOC(sizeof(int64_t) * (size_t)n);
    for (int64_t k = 0; k < n; ++k)
        order[k] = keys[k].index;
    free(count);
    free(next);
    free(keys);
    return order;
}

/* Sort the tags, then move each record once. */
void vs_particle_recs_sort_by_tag_ext(vs_particle_rec *r, vs_particle_ext *ext, int64_t n)
{
    if (n < 2)
        return;
    int64_t *order = tag_order(r, n);
    permute_bytes(r, sizeof(vs_particle_rec), order, n);
    if (ext) {
        permute_bytes(ext->topo, sizeof(vs_topo), order, n);
        permute_bytes(ext->special, sizeof(vs_special), order, n);
        permute_bytes(ext->dih, sizeof(vs_dihedrals), order, n);
        permute_bytes(ext->orient, sizeof(vs_orient), order, n);
    }
    free(order);
}
