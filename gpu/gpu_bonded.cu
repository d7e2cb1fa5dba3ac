/* The bonded terms on the device: bonds, angles and dihedrals of the owned beads
 * (src/core/topology.h),
 * the same computation as the CPU loops (src/cpu/bonded_cpu.c) from the same evaluators
 * (src/core/bonded.h).
 *
 * - Topology: compact records for the beads that have one (gpu_topo.cu), each knowing its
 *   slot; uploaded and downloaded with the owned state, carried in the migration records.
 * - Marks: one byte per slot, the bead's bond count (a bonded bead: non-zero, the CPU's
 *   test; the reaction search reads the count, gpu_reaction.cu): the owned beads' from their
 *   records before every ghost build (vs_gpu_bonded_marks), the ghosts' carried by the
 *   ghost kernels (gpu_halo.cu, gpu_images.cu). The ghost selects send a marked bead out
 *   to the bonded width and a free one to the list radius, as the CPU does (comm/halo.c).
 * - Tag map: rebuilt after every ghost build over the marked owned and ghost beads only,
 *   sized by their count (see vs_gpu_bonded_index; at one rank, where every ghost is an
 *   image, the owned ones, sized by the records, made again only when the slots change).
 *   Where a tag has several copies (an owned bead and its periodic images) the lowest local
 *   index wins, whatever order the threads insert in, so runs are reproducible bit for bit.
 * - Bond partners: the map's answers for each record's bonds are kept (bond_j: VS_MAX_BONDS
 *   planes of bond_cap local indices, -1 where the map has none; bond_info: the count and
 *   types in one word) and made again only where the map or the slots changed since (a ghost
 *   build, a migration, a reorder, a reaction's store, an upload: bond_stamp holds map_made
 *   and ver.slots of the making), so a step's bond kernel reads a few words a bead, not its
 *   record and a map probe per bond; the partners' tags are read from the record only to
 *   report a failure. The indices are the map's, so the forces are those of a lookup.
 * - Kernels: one thread per record walks its bead's bonds (angles, dihedrals) in list order
 *   and adds its own bead's force only, so no thread writes another's force and the sum runs in the
 *   CPU's order: in double precision onto the pair forces as doubles, one add per bond as on
 *   the CPU; onto the Newton kernel's fixed-point sums as one rounded add per bead.
 *   Separations are the minimum image in double from the double positions (both precisions
 *   keep them). This file is compiled without fused multiply-adds (CMakeLists.txt), so its
 *   arithmetic rounds as the CPU reference's does.
 * - Energies and virials: each bead's share (1/2 per bond bead, 1/3 per angle bead, 1/4 per
 *   dihedral bead) goes to
 *   a per-bead buffer when energies are due, summed by the thermo reduction's fixed tree
 *   (gpu_reduce.cu): deterministic. With the pressure tensor (gpu_tensor.cuh) each bead's
 *   tensor share of each term, rounded to fixed point per term as the CPU rounds, is added
 *   to the bead's sums by its own thread.
 * - Failures (a missing partner, a FENE bond at R0, a bond beyond the bonded reach): the
 *   first is recorded on the device (its kind by atomicCAS into the word that is read back
 *   with the largest displacement on every step, its tags, r and step beside it), and the
 *   host stops with the CPU's message (vs_bonded_fail) at that read-back, on rebuild and
 *   thermo steps, and before a download. No step pays a read-back of its own.
 */
#include <cub/cub.cuh>
#include <string.h>
#include <thrust/iterator/counting_iterator.h>

#include "gpu_field.cuh"
#include "gpu_halo.cuh"

extern "C" {
#include "bonded.h"
}

/* What the bonded kernels read and write, passed by value. */
struct vs_bonded_args {
    vs_positions pos;
    const int64_t *tag;
    const vs_topo *topo;     /* the records (gpu_topo.cu) */
    const vs_dihedrals *dih; /* beside them, runs with dihedrals only */
    const int32_t *rec_slot; /* each record's slot, -1: a hole */
    const int64_t *key;
    const int32_t *val;
    int64_t mask;
    int32_t *bond_j;      /* the resolved partners (bond_resolve_kernel), bond_cap apart */
    uint32_t *bond_info;
    int64_t bond_cap;
    double *f[3];
    int fixed;            /* f holds the Newton kernel's fixed-point sums */
    int atomic;           /* added beside the Newton kernel (vs_gpu_bonded_fork) */
    double *energy, *virial;
    vs_tensor_out tensor; /* w[0] NULL: no tensor in this evaluation */
    unsigned int *kind_word;
    vs_gpu_bonded_error *error;
    double box[3];
    double reach2;        /* prm->molecules.bond_reach squared, as the CPU compares */
    vs_bond_type bond[VS_MAX_MOLTYPES];
    vs_angle_type angle[VS_MAX_MOLTYPES];
    vs_dihedral_type dihedral[VS_MAX_MOLTYPES];
};

/* ---- the tag map ---- */

/* Slots idx[0 .. n) into the map. */
__global__ void tagmap_insert_kernel(int n, const int32_t *idx, const int64_t *tag,
                                     int64_t mask, int64_t *key, int32_t *val)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int i = idx[k];
    const unsigned long long t = (unsigned long long)tag[i];
    for (int64_t h = (int64_t)(vs_tagmap_hash(tag[i]) & (uint64_t)mask);; h = (h + 1) & mask) {
        const unsigned long long old = atomicCAS((unsigned long long *)&key[h], ~0ull, t);
        if (old == ~0ull || old == t) {
            atomicMin(&val[h], i); /* the lowest index of the tag's copies, in any order */
            return;
        }
    }
}

/* The marked slots of [0, n) into the map (the owned beads, where the ghosts' number stays
 * on the device). */
__global__ void tagmap_insert_marked_kernel(int n, const uint8_t *mark, const int64_t *tag,
                                            int64_t mask, int64_t *key, int32_t *val)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || !mark[i])
        return;
    const unsigned long long t = (unsigned long long)tag[i];
    for (int64_t h = (int64_t)(vs_tagmap_hash(tag[i]) & (uint64_t)mask);; h = (h + 1) & mask) {
        const unsigned long long old = atomicCAS((unsigned long long *)&key[h], ~0ull, t);
        if (old == ~0ull || old == t) {
            atomicMin(&val[h], i);
            return;
        }
    }
}

__device__ __forceinline__ int tag_find(const vs_bonded_args &a, int64_t tag)
{
    for (int64_t h = (int64_t)(vs_tagmap_hash(tag) & (uint64_t)a.mask);; h = (h + 1) & a.mask) {
        const int64_t k = a.key[h];
        if (k == tag)
            return a.val[h];
        if (k < 0)
            return -1;
    }
}

__global__ void bonded_mark_kernel(int n, const int32_t *slot_rec, const vs_topo *topo,
                                   uint8_t *mark)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const int32_t r = slot_rec[i];
        mark[i] = r >= 0 ? (uint8_t)topo[r].n_bond : 0;
    }
}

/* The owned beads' marks, from their records, before a ghost build where the slots changed
 * since the last (ver.slots): the records move with their beads (migration, Morton reorder),
 * the marks are made again instead. */
void vs_gpu_bonded_marks(vs_gpu_state *g)
{
    if (!g->bd.on || g->stamp.marks == g->ver.slots)
        return;
    const int n = (int)g->pt.n_owned;
    VS_LAUNCH(bonded_mark_kernel, n, VS_BLOCK, g->stream, n, g->bd.slot_rec, g->bd.topo,
              g->bd.mark);
    g->stamp.marks = g->ver.slots;
}

/* The map's capacity for n beads (at most half full), grown where it is short. */
static void map_reserve(vs_gpu_state *g, int64_t n)
{
    int64_t cap = 1024;
    while (cap < 2 * n)
        cap *= 2;
    if (cap > g->bd.map_cap) {
        vs_gpu_free(g, g->bd.map_key, sizeof(int64_t) * (size_t)g->bd.map_cap);
        vs_gpu_free(g, g->bd.map_val, sizeof(int32_t) * (size_t)g->bd.map_cap);
        g->bd.map_key = (int64_t *)vs_gpu_alloc(g, sizeof(int64_t) * (size_t)cap);
        g->bd.map_val = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t) * (size_t)cap);
        g->bd.map_cap = cap;
    }
    VS_CUDA_CHECK(cudaMemsetAsync(g->bd.map_key, 0xff, sizeof(int64_t) * (size_t)g->bd.map_cap,
                                  g->stream));
    VS_CUDA_CHECK(cudaMemsetAsync(g->bd.map_val, 0x7f, sizeof(int32_t) * (size_t)g->bd.map_cap,
                                  g->stream));
}

/* Room for the resolved bonds of every record (bond_resolve). */
static void bond_room(vs_gpu_state *g)
{
    vs_gpu_bonded *bd = &g->bd;
    if (bd->n_rec <= bd->bond_cap)
        return;
    vs_gpu_free(g, bd->bond_j, sizeof(int32_t) * VS_MAX_BONDS * (size_t)bd->bond_cap);
    vs_gpu_free(g, bd->bond_info, sizeof(uint32_t) * (size_t)bd->bond_cap);
    const int64_t cap = bd->n_rec + bd->n_rec / 4 + 1024;
    bd->bond_j = (int32_t *)vs_gpu_alloc(g, sizeof(int32_t) * VS_MAX_BONDS * (size_t)cap);
    bd->bond_info = (uint32_t *)vs_gpu_alloc(g, sizeof(uint32_t) * (size_t)cap);
    bd->bond_cap = cap;
}

void vs_gpu_bonded_room(vs_gpu_state *g)
{
    if (!g->bd.on)
        return;
    map_reserve(g, g->bd.n_rec);
    bond_room(g);
}

void vs_gpu_bonded_index(vs_gpu_state *g)
{
    if (!g->bd.on)
        return;
    if (vs_gpu_image_remote(g) == -1) {
        /* one rank: every ghost is an image of an owned bead, listed after the owned ones,
         * so the lowest index of a tag's copies, the one a lookup returns, is the owned one:
         * the owned beads alone give the same lookups, and the map (and the bonds resolved
         * by it) hold while the slots do, across ghost builds. The records bound their
         * number (a marked bead has one): nothing is read back */
        if (g->stamp.owned_map == g->ver.slots)
            return;
        const int n = (int)g->pt.n_owned;
        map_reserve(g, g->bd.n_rec);
        ++g->bd.map_made;
        VS_LAUNCH(tagmap_insert_marked_kernel, n, VS_BLOCK, g->stream, n, g->bd.mark,
                  g->pt.tag, g->bd.map_cap - 1, g->bd.map_key, g->bd.map_val);
        g->stamp.owned_map = g->ver.slots;
        return;
    }
    g->stamp.owned_map = 0; /* the map holds ghosts from here */
    /* The marked beads, owned and ghost, in index order (a bond's partner is bonded, so no
     * other is ever looked up), into the sort's index buffer, free from the ghost build to
     * the cell list; their count comes back (one synchronisation per rebuild) to size the
     * map. 12 bytes per entry, at most half full: 24-48 bytes per bonded bead, one atomic
     * insert each per rebuild. */
    const int total = (int)(g->pt.n_owned + g->pt.n_ghost);
    int32_t *idx = (int32_t *)g->sort.idx_out;
    int32_t *h = (int32_t *)g->red.h_pinned;
    h[0] = 0;
    if (total > 0) {
        VS_CUDA_CHECK(cub::DeviceSelect::Flagged(
            g->sort.cub_temp, g->sort.cub_temp_bytes, thrust::counting_iterator<int32_t>(0),
            (const uint8_t *)g->bd.mark, idx, g->halo.d_select_count + 3, total, g->stream));
        VS_CUDA_CHECK(cudaMemcpyAsync(h, g->halo.d_select_count + 3, sizeof(int32_t),
                                      cudaMemcpyDeviceToHost, g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    }
    const int64_t n = h[0];
    map_reserve(g, n);
    ++g->bd.map_made;
    VS_LAUNCH(tagmap_insert_kernel, n, VS_BLOCK, g->stream, (int)n, idx, g->pt.tag,
              g->bd.map_cap - 1, g->bd.map_key, g->bd.map_val);
}

/* ---- the kernels ---- */

/* The first failure wins the kind word; its details beside it. */
__device__ void record_failure(const vs_bonded_args &a, int kind, int64_t step, int64_t tag_a,
                               int64_t tag_b, double r, double r0)
{
    if (atomicCAS(a.kind_word, 0u, (unsigned int)kind) != 0u)
        return;
    a.error->step = step;
    a.error->tag_a = tag_a;
    a.error->tag_b = tag_b;
    a.error->r = r;
    a.error->r0 = r0;
}

/* x_j - x_i, minimum image of whichever copy of j the tag map holds: equal to the CPU's
 * nearest-copy separations (bonded_cpu.c) to round-off, but not layout-independent. */
__device__ __forceinline__ void separation(const vs_bonded_args &a, int i, int j, double out[3])
{
    for (int d = 0; d < 3; ++d) {
        const double len = a.box[d];
        const double dx = vs_pos_get(a.pos, d, j) - vs_pos_get(a.pos, d, i);
        out[d] = len > 0.0 ? dx - len * floor(dx / len + 0.5) : dx; /* 0: walls, no image */
    }
}

/* The bead's bonded force (added in the kernel's registers) onto its force arrays; with
 * `also` (fixed point only) a second term's force rounded on its own, as its own add would. */
__device__ __forceinline__ void add_force(const vs_bonded_args &a, int i, const double f[3],
                                          const double *also = NULL)
{
    for (int k = 0; k < 3; ++k) {
        if (a.fixed) {
            unsigned long long *q = (unsigned long long *)a.f[k];
            unsigned long long add =
                (unsigned long long)__double2ll_rn(f[k] * VS_FIXED_PER_FORCE);
            if (also)
                add += (unsigned long long)__double2ll_rn(also[k] * VS_FIXED_PER_FORCE);
            if (a.atomic)
                atomicAdd(q + i, add);
            else
                q[i] += add;
        } else {
            a.f[k][i] = f[k];
        }
    }
}

/* A term's fixed-point tensor shares into the bead's running sums. */
__device__ __forceinline__ void add_shares(long long tq[VS_TENSOR], const long long q[VS_TENSOR])
{
    for (int k = 0; k < VS_TENSOR; ++k)
        tq[k] += q[k];
}

/* The bond word: the count in its low bits, then each bond's type. */
#define VS_BOND_COUNT_BITS 4
#define VS_BOND_TYPE_BITS 7
static_assert(VS_MAX_BONDS < (1 << VS_BOND_COUNT_BITS) &&
                  VS_MAX_MOLTYPES <= (1 << VS_BOND_TYPE_BITS) &&
                  VS_BOND_COUNT_BITS + VS_MAX_BONDS * VS_BOND_TYPE_BITS <= 32,
              "a record's bond count and types fit one 32-bit word");

__device__ __forceinline__ int bond_type_of(uint32_t info, int b)
{
    return (int)((info >> (VS_BOND_COUNT_BITS + VS_BOND_TYPE_BITS * b)) &
                 ((1u << VS_BOND_TYPE_BITS) - 1u));
}

/* Each record's bonds through the tag map: the partners' indices into the bond_j planes and
 * the count and types into bond_info. Holes keep whatever they held (no kernel reads them). */
__global__ void bond_resolve_kernel(int n, vs_bonded_args a)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n || a.rec_slot[r] < 0)
        return;
    const vs_topo *t = &a.topo[r];
    const int nb = t->n_bond;
    uint32_t info = (uint32_t)nb;
    for (int b = 0; b < nb; ++b) {
        a.bond_j[(int64_t)b * a.bond_cap + r] = tag_find(a, t->bond[b]);
        info |= (uint32_t)t->bond_type[b] << (VS_BOND_COUNT_BITS + VS_BOND_TYPE_BITS * b);
    }
    a.bond_info[r] = info;
}

/* A record's bonds; with FIELD >= 0 (the field.force scheme) first its bead's field force,
 * which the field kernel left to it (vs_gpu_field_fused): added as that kernel adds it (a
 * double add before the bonds', or its own fixed-point rounding), so the sums are the same
 * bits as with two kernels, from one read of the position and one write of the force. */
template <int FIELD>
__device__ __forceinline__ void bond_record(int n, int64_t step, const vs_bonded_args &a,
                                            int want_energy, const vs_field_bead *field)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n)
        return;
    const int i = a.rec_slot[r];
    if (i < 0)
        return;
    const uint32_t info = a.bond_info[r];
    const int nb = (int)(info & ((1u << VS_BOND_COUNT_BITS) - 1u));
    double energy = 0.0, virial = 0.0;
    long long tq[VS_TENSOR] = {0, 0, 0, 0, 0, 0};
    double ff[3];
    int fielded = 0;
    if (FIELD >= 0) {
        double x[3];
        vs_pos_load(a.pos, i, x);
        fielded = vs_field_bead_force<FIELD>(*field, i, x, ff);
    }
    if (nb > 0 || fielded) {
        double f[3];
        for (int k = 0; k < 3; ++k) /* doubles: one add per bond, as the CPU adds */
            f[k] = a.fixed ? 0.0 : a.f[k][i];
        if (fielded && !a.fixed)
            for (int k = 0; k < 3; ++k)
                f[k] += ff[k];
        for (int b = 0; b < nb; ++b) {
            const int j = a.bond_j[(int64_t)b * a.bond_cap + r];
            if (j < 0) { /* the tags only here: a failure is reported by them */
                record_failure(a, VS_BONDED_MISSING, step, a.tag[i], a.topo[r].bond[b], 0.0,
                               0.0);
                continue;
            }
            double dji[3], d[3];
            separation(a, i, j, dji);
            for (int k = 0; k < 3; ++k)
                d[k] = -dji[k]; /* x_i - x_j */
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            const vs_bond_type &bt = a.bond[bond_type_of(info, b)];
            double fscal, e;
            const int kind = vs_bond_eval_type(&bt, r2, &fscal, &e);
            if (kind != VS_BONDED_OK)
                record_failure(a, kind, step, a.tag[i], a.topo[r].bond[b], sqrt(r2),
                               kind == VS_BONDED_TABLE
                                   ? bt.tab.lo + bt.tab.dx * (bt.tab.n - 1) : bt.r0);
            else if (!(r2 <= a.reach2))
                record_failure(a, VS_BONDED_REACH, step, a.tag[i], a.topo[r].bond[b],
                               sqrt(r2), bt.r0);
            for (int k = 0; k < 3; ++k)
                f[k] += fscal * d[k];
            energy += 0.5 * e;
            virial += 0.5 * fscal * r2;
            if (a.tensor.w[0]) { /* the bead's half, as the CPU's */
                long long q[VS_TENSOR];
                vs_tensor_shares(0.5, fscal * d[0], fscal * d[1], fscal * d[2], d[0], d[1],
                                 d[2], q, a.tensor.bad);
                add_shares(tq, q);
            }
        }
        add_force(a, i, f, fielded && a.fixed ? ff : NULL);
        if (a.tensor.w[0])
            vs_tensor_add_own(a.tensor, i, tq);
    }
    if (want_energy) {
        a.energy[i] = energy;
        a.virial[i] = virial;
    }
}

__global__ void __launch_bounds__(VS_BLOCK, 3)
bond_kernel(int n, int64_t step, vs_bonded_args a, int want_energy)
{
    bond_record<-1>(n, step, a, want_energy, NULL);
}

template <int SCHEME>
__global__ void __launch_bounds__(VS_BLOCK, 3)
bond_field_kernel(int n, int64_t step, vs_bonded_args a, int want_energy,
                  const __grid_constant__ vs_field_bead field)
{
    bond_record<SCHEME>(n, step, a, want_energy, &field);
}

__global__ void angle_kernel(int n, int64_t step, vs_bonded_args a, int want_energy)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n)
        return;
    const int i = a.rec_slot[r];
    if (i < 0)
        return;
    const vs_topo *t = &a.topo[r];
    const int na = t->n_angle;
    double energy = 0.0, virial = 0.0;
    long long tq[VS_TENSOR] = {0, 0, 0, 0, 0, 0};
    if (na > 0) {
        const int64_t self = a.tag[i];
        double f[3];
        for (int k = 0; k < 3; ++k)
            f[k] = a.fixed ? 0.0 : a.f[k][i];
        for (int m = 0; m < na; ++m) {
            int idx[3], me = 0, found = 1;
            for (int q = 0; q < 3; ++q) {
                const int64_t tag = t->angle[m][q];
                if (tag == self) {
                    idx[q] = i;
                    me = q;
                } else {
                    idx[q] = tag_find(a, tag);
                    if (idx[q] < 0) {
                        record_failure(a, VS_BONDED_MISSING, step, self, tag, 0.0, 0.0);
                        found = 0;
                    }
                }
            }
            if (!found)
                continue;
            double r1[3], r2[3], fa[3], fc[3];
            separation(a, idx[1], idx[0], r1);
            separation(a, idx[1], idx[2], r2);
            const vs_angle_type &at = a.angle[t->angle_type[m]];
            const double e = vs_angle_eval_type(&at, r1, r2, fa, fc);
            for (int k = 0; k < 3; ++k) {
                f[k] += me == 0 ? fa[k] : (me == 2 ? fc[k] : -(fa[k] + fc[k]));
                virial += (r1[k] * fa[k] + r2[k] * fc[k]) / 3.0;
            }
            energy += e / 3.0;
            if (a.tensor.w[0]) { /* relative to the middle bead, as the CPU's */
                const double rel[2][3] = {{r1[0], r1[1], r1[2]}, {r2[0], r2[1], r2[2]}};
                const double fq[2][3] = {{fa[0], fa[1], fa[2]}, {fc[0], fc[1], fc[2]}};
                double w[VS_TENSOR];
                long long q[VS_TENSOR];
                vs_bonded_tensor(2, rel, fq, 1.0 / 3.0, w);
                vs_tensor_fixed(w, q, a.tensor.bad);
                add_shares(tq, q);
            }
        }
        add_force(a, i, f);
        if (a.tensor.w[0])
            vs_tensor_add_own(a.tensor, i, tq);
    }
    if (want_energy) {
        a.energy[i] = energy;
        a.virial[i] = virial;
    }
}

__global__ void dihedral_kernel(int n, int64_t step, vs_bonded_args a, int want_energy)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n)
        return;
    const int i = a.rec_slot[r];
    if (i < 0)
        return;
    const vs_dihedrals *t = &a.dih[r];
    const int nd = t->n_dihedral;
    double energy = 0.0, virial = 0.0;
    long long tq[VS_TENSOR] = {0, 0, 0, 0, 0, 0};
    if (nd > 0) {
        const int64_t self = a.tag[i];
        double f[3];
        for (int k = 0; k < 3; ++k)
            f[k] = a.fixed ? 0.0 : a.f[k][i];
        for (int m = 0; m < nd; ++m) {
            int idx[4], me = 0, found = 1;
            for (int q = 0; q < 4; ++q) {
                const int64_t tag = t->dihedral[m][q];
                if (tag == self) {
                    idx[q] = i;
                    me = q;
                } else {
                    idx[q] = tag_find(a, tag);
                    if (idx[q] < 0) {
                        record_failure(a, VS_BONDED_MISSING, step, self, tag, 0.0, 0.0);
                        found = 0;
                    }
                }
            }
            if (!found)
                continue;
            double b[3][3], fd[4][3], phi, w;
            for (int q = 0; q < 3; ++q)
                separation(a, idx[q], idx[q + 1], b[q]);
            const vs_dihedral_type dt = a.dihedral[t->dihedral_type[m]];
            const double e = vs_dihedral_eval(&dt, b[0], b[1], b[2], fd, &phi, &w);
            for (int k = 0; k < 3; ++k)
                f[k] += fd[me][k];
            energy += 0.25 * e;
            virial += 0.25 * w;
            if (a.tensor.w[0]) { /* relative to bead b, as the CPU's */
                double rel[4][3], wt[VS_TENSOR];
                long long q[VS_TENSOR];
                for (int k = 0; k < 3; ++k) {
                    rel[0][k] = -b[0][k];
                    rel[1][k] = 0.0;
                    rel[2][k] = b[1][k];
                    rel[3][k] = b[1][k] + b[2][k];
                }
                vs_bonded_tensor(4, (const double(*)[3])rel, (const double(*)[3])fd, 0.25, wt);
                vs_tensor_fixed(wt, q, a.tensor.bad);
                add_shares(tq, q);
            }
        }
        add_force(a, i, f);
        if (a.tensor.w[0])
            vs_tensor_add_own(a.tensor, i, tq);
    }
    if (want_energy) {
        a.energy[i] = energy;
        a.virial[i] = virial;
    }
}

static vs_bonded_args bonded_args(vs_gpu_state *g, double *energy, double *virial,
                                   int want_energy)
{
    vs_bonded_args a;
    memset(&a, 0, sizeof a);
    for (int d = 0; d < 3; ++d) {
        a.f[d] = g->pt.f[d];
        a.box[d] = vs_axis_periodic(g->prm, d) ? g->prm->system.box[d] : 0.0;
    }
    a.pos = vs_gpu_positions(g);
    a.tag = g->pt.tag;
    a.topo = g->bd.topo;
    a.dih = g->bd.dih;
    a.rec_slot = g->bd.rec_slot;
    a.key = g->bd.map_key;
    a.val = g->bd.map_val;
    a.mask = g->bd.map_cap - 1;
    a.bond_j = g->bd.bond_j;
    a.bond_info = g->bd.bond_info;
    a.bond_cap = g->bd.bond_cap;
    a.fixed = g->fs.forces_fixed;
    a.energy = energy;
    a.virial = virial;
    a.tensor = vs_gpu_tensor_out(g, want_energy);
    a.kind_word = g->red.d_max_disp2 + 1;
    a.error = g->bd.d_error;
    a.reach2 = g->prm->molecules.bond_reach * g->prm->molecules.bond_reach;
    for (int k = 0; k < VS_MAX_MOLTYPES; ++k) {
        a.bond[k] = g->prm->molecules.bond_types[k];
        a.angle[k] = g->prm->molecules.angle_types[k];
        a.dihedral[k] = g->prm->molecules.dihedral_types[k];
        a.bond[k].tab.coef = g->bd.table[0][k]; /* the device copies of the tables */
        a.angle[k].tab.coef = g->bd.table[1][k];
        a.dihedral[k].tab.coef = g->bd.table[2][k];
    }
    return a;
}

/* The stream the step's first bonded kernel runs on: the side stream where it runs beside
 * the Newton kernel (vs_gpu_bonded_fork). */
static cudaStream_t bonded_stream(const vs_gpu_state *g)
{
    return g->bd.fork_open ? g->bd.side : g->stream;
}

/* One thread per record; the beads without one have no bonded share, so the per-slot energy
 * buffers are cleared first when energies are due. */
static vs_bonded_args launch_args(vs_gpu_state *g, int want_energy, double *energy,
                                  double *virial)
{
    const size_t bytes = sizeof(double) * (size_t)g->pt.n_owned;
    if (want_energy && bytes) {
        VS_CUDA_CHECK(cudaMemsetAsync(energy, 0, bytes, g->stream));
        VS_CUDA_CHECK(cudaMemsetAsync(virial, 0, bytes, g->stream));
    }
    return bonded_args(g, energy, virial, want_energy);
}

static void launch_bonded(vs_gpu_state *g, void (*kernel)(int, int64_t, vs_bonded_args, int),
                          int64_t step, int want_energy, double *energy, double *virial)
{
    const int n = (int)g->bd.n_rec;
    vs_bonded_args a = launch_args(g, want_energy, energy, virial);
    if (!g->bd.fork_open) {
        VS_LAUNCH(kernel, n, VS_BLOCK, g->stream, n, step, a, want_energy);
        return;
    }
    a.atomic = 1;
    VS_LAUNCH(kernel, n, VS_BLOCK, g->bd.side, n, step, a, want_energy);
    VS_CUDA_CHECK(cudaEventRecord(g->bd.join, g->bd.side));
    VS_CUDA_CHECK(cudaStreamWaitEvent(g->stream, g->bd.join, 0));
    g->bd.fork_open = 0;
}

void vs_gpu_bonded_fork(vs_gpu_state *g, int want_energy)
{
    if (!g->bd.fork_allowed || want_energy || g->bd.n_rec == 0)
        return;
    if (!g->bd.side) {
        VS_CUDA_CHECK(cudaStreamCreateWithFlags(&g->bd.side, cudaStreamNonBlocking));
        VS_CUDA_CHECK(cudaEventCreateWithFlags(&g->bd.fork, cudaEventDisableTiming));
        VS_CUDA_CHECK(cudaEventCreateWithFlags(&g->bd.join, cudaEventDisableTiming));
    }
    VS_CUDA_CHECK(cudaEventRecord(g->bd.fork, g->stream));
    VS_CUDA_CHECK(cudaStreamWaitEvent(g->bd.side, g->bd.fork, 0));
    g->bd.fork_open = 1;
}

/* The records' resolved bonds, made again where the map or the slots changed since the last
 * making (the records, their slots and the partners' indices are what they were then), on
 * the stream the bond kernel runs on, before it. */
static void bond_resolve(vs_gpu_state *g)
{
    vs_gpu_bonded *bd = &g->bd;
    if (bd->bond_stamp[0] == bd->map_made && bd->bond_stamp[1] == g->ver.slots)
        return;
    bond_room(g);
    const int n = (int)bd->n_rec;
    vs_bonded_args a = bonded_args(g, NULL, NULL, 0);
    VS_LAUNCH(bond_resolve_kernel, n, VS_BLOCK, bonded_stream(g), n, a);
    bd->bond_stamp[0] = bd->map_made;
    bd->bond_stamp[1] = g->ver.slots;
}

extern "C" void vs_gpu_bond_forces(vs_gpu_state *g, int64_t step, int want_energy)
{
    vs_gpu_settle_owned(g); /* the other terms read the owned number on the host */
    bond_resolve(g);
    vs_field_bead field;
    int scheme = 0;
    if (vs_gpu_field_fused(g, &field, &scheme)) { /* never beside the Newton kernel */
        const int n = (int)g->bd.n_rec;
        vs_bonded_args a = launch_args(g, want_energy, g->bd.e_bond, g->bd.w_bond);
        void (*kernel)(int, int64_t, vs_bonded_args, int, const vs_field_bead) =
            scheme == VS_FIELD_FORCE_GRADIENT ? bond_field_kernel<VS_FIELD_FORCE_GRADIENT>
                                              : bond_field_kernel<VS_FIELD_FORCE_ENERGY>;
        VS_LAUNCH(kernel, n, VS_BLOCK, g->stream, n, step, a, want_energy, field);
        return;
    }
    launch_bonded(g, bond_kernel, step, want_energy, g->bd.e_bond, g->bd.w_bond);
}

extern "C" void vs_gpu_angle_forces(vs_gpu_state *g, int64_t step, int want_energy)
{
    vs_gpu_settle_owned(g); /* the other terms read the owned number on the host */
    launch_bonded(g, angle_kernel, step, want_energy, g->bd.e_angle, g->bd.w_angle);
}

extern "C" void vs_gpu_dihedral_forces(vs_gpu_state *g, int64_t step, int want_energy)
{
    vs_gpu_settle_owned(g); /* the other terms read the owned number on the host */
    launch_bonded(g, dihedral_kernel, step, want_energy, g->bd.e_dihedral, g->bd.w_dihedral);
}

/* ---- tables ---- */

/* The spline coefficients of every table type, copied to the device once (bonds, angles,
 * dihedrals: table[0], [1], [2]); the kernels' copies of the types point at them. */
void vs_gpu_bonded_tables(vs_gpu_state *g)
{
    const vs_params *p = g->prm;
    for (int k = 0; k < VS_MAX_MOLTYPES; ++k) {
        const vs_table *tabs[3] = {
            k < p->molecules.n_bond_types && p->molecules.bond_types[k].style == VS_BOND_TABLE
                ? &p->molecules.bond_types[k].tab
                : NULL,
            k < p->molecules.n_angle_types && p->molecules.angle_types[k].style == VS_ANGLE_TABLE
                ? &p->molecules.angle_types[k].tab
                : NULL,
            k < p->molecules.n_dihedral_types &&
                    p->molecules.dihedral_types[k].style == VS_DIHEDRAL_TABLE
                ? &p->molecules.dihedral_types[k].tab
                : NULL};
        for (int kind = 0; kind < 3; ++kind) {
            if (!tabs[kind])
                continue;
            const size_t bytes = sizeof(double) * 4 * (size_t)(tabs[kind]->n - 1);
            g->bd.table[kind][k] = (double *)vs_gpu_alloc(g, bytes);
            VS_CUDA_CHECK(cudaMemcpy(g->bd.table[kind][k], tabs[kind]->coef, bytes,
                                     cudaMemcpyHostToDevice));
        }
    }
}

/* ---- failures ---- */

void vs_gpu_bonded_check(vs_gpu_state *g, int kind)
{
    if (!g->bd.on)
        return;
    if (kind < 0) {
        unsigned int *h = (unsigned int *)(g->red.h_pinned + 63); /* the mirror's last slot */
        VS_CUDA_CHECK(cudaMemcpyAsync(h, g->red.d_max_disp2 + 1, sizeof(unsigned int),
                                      cudaMemcpyDeviceToHost, g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        kind = (int)*h;
    }
    if (kind == VS_BONDED_OK)
        return;
    vs_gpu_bonded_error e;
    VS_CUDA_CHECK(cudaMemcpyAsync(&e, g->bd.d_error, sizeof e, cudaMemcpyDeviceToHost,
                                  g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    vs_bonded_fail(g->prm, kind, e.step, e.tag_a, e.tag_b, e.r, e.r0);
}

void vs_gpu_bonded_free(vs_gpu_state *g)
{
    vs_gpu_topo_free(g);
    if (g->bd.side) {
        cudaEventDestroy(g->bd.fork);
        cudaEventDestroy(g->bd.join);
        cudaStreamDestroy(g->bd.side);
        g->bd.side = NULL;
    }
    void *ptrs[] = {g->bd.mark,    g->bd.map_key,    g->bd.map_val,    g->bd.bond_j,
                    g->bd.bond_info, g->bd.e_bond,
                    g->bd.w_bond,  g->bd.e_angle,    g->bd.w_angle,    g->bd.e_dihedral,
                    g->bd.w_dihedral, g->bd.d_error};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k)
        if (ptrs[k])
            cudaFree(ptrs[k]);
    for (int kind = 0; kind < 3; ++kind)
        for (int k = 0; k < VS_MAX_MOLTYPES; ++k)
            if (g->bd.table[kind][k])
                cudaFree(g->bd.table[kind][k]);
}
