/* The all-to-all redistributions (comm/redistribute.c) on P ranks, with optional records.
 *
 * Run under mpiexec -n P with P in {1, 2, 3, 4}. 1000 particles (slabs of unequal sizes on
 * 3 and 4 ranks) start on the rank a hash of their tag names, in an order that is not the
 * tag order, with every field and the topology and dihedral records derived from the tag.
 * Checked:
 * - by tag: each rank gets exactly its slab [lo, hi) in tag order, every field and both
 *   optional records those of the tag;
 * - by tag, particles lost or duplicated: the records that arrive are returned sorted by tag
 *   (never a slot left unwritten): one tag dropped (one short), and one tag dropped with
 *   another sent twice (the count matches, a slot would stay empty);
 * - by brick: each rank gets the particles inside its brick, sorted by tag, with their
 *   records, and none is lost or duplicated over all ranks;
 * - the sort by tag alone, on tags of up to 2^45 with repeats (stable).
 * Exit 0 on success, 1 on failure (the verdict agreed over ranks), 77 on other rank counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp.h"
#include "parallel.h"
#include "redistribute.h"

enum { N_TOTAL = 1000 };

static int failures = 0;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            printf("FAIL rank %d line %d: ", rank_, __LINE__);                                 \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
            ++failures;                                                                        \
        }                                                                                      \
    } while (0)

static int rank_ = 0;

static uint32_t hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Fields of tag t inside a 6 x 7 x 8 box. */
static vs_particle_rec rec_of(int64_t t)
{
    vs_particle_rec r;
    memset(&r, 0, sizeof r);
    r.tag = t;
    r.species = (int32_t)(t % 3);
    const double box[3] = {6.0, 7.0, 8.0};
    for (int d = 0; d < 3; ++d) {
        r.x[d] = box[d] * (double)(hash((uint32_t)(3 * t + d)) % 100000) / 100000.0;
        r.v[d] = (double)t + 0.25 * d;
        r.vp[d] = -(double)t - 0.5 * d;
        r.f[d] = 1e3 * (double)t + d;
        r.image[d] = (int32_t)(t % 5) - 2 + d;
    }
    return r;
}

static int rec_ok(const vs_particle_rec *r, const vs_topo *topo, const vs_dihedrals *dih)
{
    const vs_particle_rec w = rec_of(r->tag);
    return memcmp(r, &w, sizeof w) == 0 && topo->mol == 7 * r->tag + 1 &&
           topo->n_bond == (int32_t)(r->tag % 3) && topo->bond[0] == r->tag + 1 &&
           dih->n_dihedral == 1 && dih->dihedral[0][1] == r->tag;
}

/* This rank's starting particles: those whose tag hashes to it, in reverse tag order, less
 * `drop` (-1: none), with `dup` (-1: none) once more when this rank holds it. */
static int64_t start_set(int rank, int size, int64_t drop, int64_t dup, vs_particle_rec **recs,
                         vs_particle_ext *ext)
{
    *recs = calloc(N_TOTAL + 1, sizeof **recs);
    ext->topo = calloc(N_TOTAL + 1, sizeof *ext->topo);
    ext->dih = calloc(N_TOTAL + 1, sizeof *ext->dih);
    ext->special = NULL;
    ext->orient = calloc(N_TOTAL + 1, sizeof *ext->orient);
    int64_t n = 0;
    for (int64_t t = N_TOTAL - 1; t >= 0; --t) {
        if ((int)(hash((uint32_t)t + 17U) % (uint32_t)size) != rank || t == drop)
            continue;
        for (int copy = 0; copy < (t == dup ? 2 : 1); ++copy) {
            (*recs)[n] = rec_of(t);
            ext->topo[n].mol = 7 * t + 1;
            ext->topo[n].n_bond = (int32_t)(t % 3);
            ext->topo[n].bond[0] = t + 1;
            ext->dih[n].n_dihedral = 1;
            ext->dih[n].dihedral[0][1] = t;
            ext->orient[n].n[2] = (double)t; /* travels with its particle */
            ++n;
        }
    }
    return n;
}

static void free_set(vs_particle_rec *recs, vs_particle_ext *ext)
{
    free(recs);
    vs_particle_ext_free(ext);
}

static void by_tag_exact(const vs_par *par)
{
    vs_particle_rec *recs;
    vs_particle_ext ext, got_ext;
    const int64_t n = start_set(par->rank, par->size, -1, -1, &recs, &ext);
    int64_t m = 0, lo, hi;
    vs_particle_rec *got = vs_redistribute_by_tag_ext(par, recs, &ext, n, N_TOTAL, &m, &got_ext);
    vs_tag_slab(N_TOTAL, par->size, par->rank, &lo, &hi);
    CHECK(m == hi - lo, "by tag: %lld records for the slab [%lld, %lld)", (long long)m,
          (long long)lo, (long long)hi);
    CHECK(got_ext.topo && got_ext.dih && got_ext.orient && !got_ext.special,
          "by tag: optional records");
    for (int64_t i = 0; i < m && i < hi - lo && got_ext.topo && got_ext.dih && got_ext.orient;
         ++i) {
        CHECK(got[i].tag == lo + i, "by tag: slot %lld holds tag %lld", (long long)i,
              (long long)got[i].tag);
        CHECK(got_ext.orient[i].n[2] == (double)got[i].tag, "by tag: tag %lld's orientation",
              (long long)got[i].tag);
        CHECK(rec_ok(&got[i], &got_ext.topo[i], &got_ext.dih[i]),
              "by tag: tag %lld's fields", (long long)got[i].tag);
    }
    free(got);
    vs_particle_ext_free(&got_ext);
    free_set(recs, &ext);
}

/* Tag `drop` lost, and `dup` (-1: none) sent twice: the owner of drop's slab gets the
 * arrivals sorted by tag, the others their whole slab. */
static void by_tag_lost(const vs_par *par, int64_t drop, int64_t dup)
{
    vs_particle_rec *recs;
    vs_particle_ext ext, got_ext;
    const int64_t n = start_set(par->rank, par->size, drop, dup, &recs, &ext);
    int64_t m = 0, lo, hi;
    vs_particle_rec *got = vs_redistribute_by_tag_ext(par, recs, &ext, n, N_TOTAL, &m, &got_ext);
    vs_tag_slab(N_TOTAL, par->size, par->rank, &lo, &hi);
    const int mine_drop = drop >= lo && drop < hi, mine_dup = dup >= lo && dup < hi;
    CHECK(m == hi - lo - mine_drop + mine_dup, "lost %lld dup %lld: %lld records",
          (long long)drop, (long long)dup, (long long)m);
    int64_t seen_dup = 0;
    for (int64_t i = 0; i < m; ++i) {
        CHECK(got[i].tag >= lo && got[i].tag < hi && got[i].tag != drop,
              "lost %lld: slot %lld holds tag %lld", (long long)drop, (long long)i,
              (long long)got[i].tag);
        CHECK(i == 0 || got[i].tag >= got[i - 1].tag, "lost %lld: not sorted at %lld",
              (long long)drop, (long long)i);
        CHECK(rec_ok(&got[i], &got_ext.topo[i], &got_ext.dih[i]), "lost %lld: tag %lld's fields",
              (long long)drop, (long long)got[i].tag);
        seen_dup += got[i].tag == dup;
    }
    CHECK(!mine_dup || seen_dup == 2, "dup %lld arrived %lld times", (long long)dup,
          (long long)seen_dup);
    free(got);
    vs_particle_ext_free(&got_ext);
    free_set(recs, &ext);
}

static void by_brick(const vs_par *world)
{
    const int P = world->size;
    const int dims[3] = {P == 4 ? 2 : P, P == 4 ? 2 : 1, 1};
    const double box[3] = {6.0, 7.0, 8.0};
    vs_decomp dc;
    vs_decomp_create(&dc, world, box, dims);
    vs_particle_rec *recs;
    vs_particle_ext ext, got_ext;
    const int64_t n = start_set(world->rank, P, -1, -1, &recs, &ext);
    int64_t m = 0;
    vs_particle_rec *got = vs_redistribute_by_brick_ext(&dc, recs, &ext, n, &m, &got_ext);
    int64_t count = m;
    vs_par_sum_int64(world, &count, 1);
    CHECK(count == N_TOTAL, "by brick: %lld particles in all", (long long)count);
    int64_t tag_sum = 0;
    for (int64_t i = 0; i < m; ++i) {
        tag_sum += got[i].tag;
        CHECK(i == 0 || got[i].tag > got[i - 1].tag, "by brick: not sorted at %lld",
              (long long)i);
        CHECK(rec_ok(&got[i], &got_ext.topo[i], &got_ext.dih[i]), "by brick: tag %lld's fields",
              (long long)got[i].tag);
        for (int d = 0; d < 3; ++d)
            CHECK(got[i].x[d] >= dc.lo[d] && got[i].x[d] < dc.hi[d],
                  "by brick: tag %lld at %g outside [%g, %g) in %d", (long long)got[i].tag,
                  got[i].x[d], dc.lo[d], dc.hi[d], d);
    }
    vs_par_sum_int64(world, &tag_sum, 1);
    CHECK(tag_sum == (int64_t)N_TOTAL * (N_TOTAL - 1) / 2, "by brick: tags lost or doubled");
    free(got);
    vs_particle_ext_free(&got_ext);
    free_set(recs, &ext);
    vs_decomp_destroy(&dc);
}

/* The sort by tag under the redistributions, alone, on tags of up to 2^45 (several radix
 * passes) with repeats: nondecreasing, repeats in their input order, records and both
 * optional records moved together. */
static void sort_wide_tags(void)
{
    enum { N = 5000 };
    vs_particle_rec *r = calloc(N, sizeof *r);
    vs_particle_ext ext = {calloc(N, sizeof(vs_topo)), NULL, calloc(N, sizeof(vs_dihedrals)), NULL};
    for (int64_t i = 0; i < N; ++i) {
        const uint64_t h = ((uint64_t)hash((uint32_t)i) << 13) ^ hash((uint32_t)i + 99U);
        r[i].tag = i % 7 == 3 ? r[i - 1].tag : (int64_t)(h & ((1ULL << 45) - 1));
        r[i].v[0] = (double)i; /* the input position */
        ext.topo[i].mol = r[i].tag;
        ext.dih[i].n_dihedral = (int32_t)i;
    }
    vs_particle_recs_sort_by_tag_ext(r, &ext, N);
    for (int64_t i = 0; i < N; ++i) {
        CHECK(ext.topo[i].mol == r[i].tag && ext.dih[i].n_dihedral == (int32_t)r[i].v[0],
              "sort: slot %lld's optional records", (long long)i);
        CHECK(i == 0 || r[i].tag > r[i - 1].tag ||
                  (r[i].tag == r[i - 1].tag && r[i].v[0] > r[i - 1].v[0]),
              "sort: slot %lld (tag %lld) out of order", (long long)i, (long long)r[i].tag);
    }
    free(r);
    vs_particle_ext_free(&ext);
}

int main(int argc, char **argv)
{
    vs_par_init(&argc, &argv);
    vs_par world;
    vs_par_from_comm(&world, MPI_COMM_WORLD);
    rank_ = world.rank;
    if (world.size > 4) {
        if (world.rank == 0)
            printf("run on 1 to 4 ranks\n");
        vs_par_finalize();
        return 77;
    }
    by_tag_exact(&world);
    by_tag_lost(&world, 0, -1);
    by_tag_lost(&world, N_TOTAL - 2, N_TOTAL - 1);
    by_tag_lost(&world, 500, 499);
    by_brick(&world);
    sort_wide_tags();
    const int failed = vs_par_any(&world, failures > 0);
    if (world.rank == 0)
        printf("%s: redistribution on %d ranks\n", failed ? "FAIL" : "ok", world.size);
    vs_par_finalize();
    return failed ? 1 : 0;
}
