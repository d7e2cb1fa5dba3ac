/* The reaction step's device part (gpu_reaction.h): chain-growth claims found on the device,
 * and the records the events touch fetched and stored back.
 *
 * The search has a cell list of its own, over the partners alone (the free monomers, owned
 * and ghost): a counting sort into the cells of the force grid (cells.grid, which covers the
 * brick and the ghost shell; its rows reach the list radius, and every reaction radius lies
 * within it), three passes over the particles once per reaction step. The force path's own
 * cell list is not used: its form depends on the plan (sorted or binned, with or without the
 * remote ghosts, fixed-point copies), and its cells hold every particle, of which a search
 * for free monomers wants few.
 *
 * Each active end's thread walks the 3 x 3 rows around it, trimmed to the reaction radius,
 * and hands every monomer found to vs_reaction_candidate (src/core/reaction.h), as the CPU's
 * search does: the separation in double from the positions the state holds (a ghost is its
 * owner's position plus the periodic shift, the same doubles as on the host mirror), r^2
 * rounded as the CPU rounds it (vs_norm2), the draw from the pair hash of the two tags. The
 * best partner is a total order (draw, then tag), so neither the walk's order nor a
 * monomer's several periodic copies change the result. The claims are appended through an
 * atomic counter; their order is whatever the threads gave, and the engine sorts every
 * rank's claims by their content before it resolves them.
 *
 * A partner's bond count is its bonded mark (gpu_bonded.cu: n_bond > 0, owned and ghost,
 * current after the ghost build), which answers chain growth's test (a free monomer has no
 * bond) exactly; the creation rules' bond limits would need the ghosts' counts, which the
 * device does not keep, so they stay on the host mirror. */
#include <cub/cub.cuh>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.cuh"

extern "C" {
#include "gpu_reaction.h"
}

struct vs_gpu_rx {
    uint32_t *cell_start; /* n_cells + 1: counts, then their exclusive scan */
    int64_t cap_cells;
    uint32_t *cell_of, *rank_in_cell; /* per particle (UINT32_MAX: not a partner) */
    int32_t *entries;                 /* partners by cell */
    int64_t cap_particles;
    void *scan_temp;
    size_t scan_bytes;
    vs_reaction_claim *claims;
    int32_t *d_count;
    int64_t cap_claims;
    /* fetch and store: the tags asked for, their owned slots, records and species */
    int64_t *tags;
    int32_t *slot, *rec, *species;
    vs_topo *topo;
    int64_t cap_tags;
    int32_t *h_slot, *h_rec; /* the fetched beads' (host) */
};

/* A bead without a record: no bonds, molecule 0. */
__device__ vs_topo vs_rx_no_topo;

static void *grow(void *p, size_t elem, int64_t *cap, int64_t need)
{
    if (need <= *cap && p)
        return p;
    if (p)
        VS_CUDA_CHECK(cudaFree(p));
    const int64_t n = need + need / 4 + 256;
    void *q = NULL;
    VS_CUDA_CHECK(cudaMalloc(&q, elem * (size_t)n));
    *cap = n;
    return q;
}

static vs_gpu_rx *scratch(vs_gpu_rx **rx)
{
    if (!*rx) {
        *rx = (vs_gpu_rx *)calloc(1, sizeof(vs_gpu_rx));
        if (!*rx)
            VS_FATAL("reactions: out of host memory");
        VS_CUDA_CHECK(cudaMalloc(&(*rx)->d_count, sizeof(int32_t)));
    }
    return *rx;
}

/* ---- the partners' cells --------------------------------------------------------------- */

struct rx_partner_filter {
    const int32_t *species;
    const uint8_t *mark;
    int monomer;
    __device__ bool operator()(int j) const { return species[j] == monomer && !mark[j]; }
};

__global__ void rx_bin_kernel(int n, vs_positions pos, vs_gpu_grid grid, rx_partner_filter f,
                              uint32_t *count, uint32_t *cell_of, uint32_t *rank_in_cell)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    if (!f(j)) {
        cell_of[j] = UINT32_MAX;
        return;
    }
    double r[3];
    vs_pos_load(pos, j, r);
    int c[3];
    const uint32_t cell = vs_cell_of(grid, r[0], r[1], r[2], c);
    cell_of[j] = cell;
    rank_in_cell[j] = atomicAdd(&count[cell], 1u);
}

__global__ void rx_scatter_kernel(int n, const uint32_t *cell_of, const uint32_t *rank_in_cell,
                                  const uint32_t *cell_start, int32_t *entries)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n || cell_of[j] == UINT32_MAX)
        return;
    entries[cell_start[cell_of[j]] + rank_in_cell[j]] = j;
}

static void bin_partners(vs_gpu_state *g, vs_gpu_rx *rx, int monomer)
{
    const int n = (int)(g->pt.n_owned + g->pt.n_ghost);
    const int64_t n_cells = g->cells.n_cells;
    rx->cell_start = (uint32_t *)grow(rx->cell_start, sizeof(uint32_t), &rx->cap_cells,
                                      n_cells + 1);
    int64_t cap = rx->cap_particles;
    rx->cell_of = (uint32_t *)grow(rx->cell_of, sizeof(uint32_t), &cap, n);
    cap = rx->cap_particles;
    rx->rank_in_cell = (uint32_t *)grow(rx->rank_in_cell, sizeof(uint32_t), &cap, n);
    rx->entries = (int32_t *)grow(rx->entries, sizeof(int32_t), &rx->cap_particles, n);
    size_t bytes = 0;
    VS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, rx->cell_start, rx->cell_start,
                                                (int)(n_cells + 1), g->stream));
    if (bytes > rx->scan_bytes) {
        if (rx->scan_temp)
            VS_CUDA_CHECK(cudaFree(rx->scan_temp));
        rx->scan_bytes = bytes + bytes / 4;
        VS_CUDA_CHECK(cudaMalloc(&rx->scan_temp, rx->scan_bytes));
    }
    VS_CUDA_CHECK(cudaMemsetAsync(rx->cell_start, 0, sizeof(uint32_t) * (size_t)(n_cells + 1),
                                  g->stream));
    const rx_partner_filter f = {g->pt.species_id, g->bd.mark, monomer};
    VS_LAUNCH(rx_bin_kernel, n, VS_BLOCK, g->stream, n, vs_gpu_positions(g), g->cells.grid, f,
              rx->cell_start, rx->cell_of, rx->rank_in_cell);
    VS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(rx->scan_temp, rx->scan_bytes, rx->cell_start,
                                                rx->cell_start, (int)(n_cells + 1),
                                                g->stream));
    VS_LAUNCH(rx_scatter_kernel, n, VS_BLOCK, g->stream, n, rx->cell_of, rx->rank_in_cell,
              rx->cell_start, rx->entries);
}

/* ---- the claims ------------------------------------------------------------------------ */

struct rx_chain_args {
    int n_owned;
    vs_positions pos;
    const int64_t *tag;
    const int32_t *species;
    const uint8_t *mark;
    const int32_t *slot_rec;
    const vs_topo *topo;
    vs_gpu_grid grid;
    const uint32_t *cell_start;
    const int32_t *entries;
    float row_cut2;
    vs_reaction_search q;
    double probability;
    int active[VS_MAX_SPECIES];
    vs_reaction_claim *out;
    int cap;
    int32_t *count;
};

/* The best partner of owned end i (at r, its record `mine`) among the partners' cells. */
__device__ vs_reaction_best rx_search(const rx_chain_args &a, int i, const double r[3],
                                      const vs_topo *mine)
{
    vs_reaction_best best;
    best.tag = -1;
    best.score = 0.0;
    best.bits.v0 = best.bits.v1 = 0;
    int c[3];
    float frac[3];
    vs_cell_of(a.grid, r[0], r[1], r[2], c, frac);
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy) {
            int first, last;
            if (!vs_stencil_row(a.grid, c, frac, a.row_cut2, dy, dz, &first, &last))
                continue;
            for (uint32_t k = a.cell_start[first]; k < a.cell_start[last + 1]; ++k) {
                const int j = a.entries[k];
                double s[3];
                vs_pos_load(a.pos, j, s);
                const double r2 = vs_norm2(r[0] - s[0], r[1] - s[1], r[2] - s[2]);
                vs_reaction_candidate(&best, &a.q, a.tag[i], mine, a.tag[j], a.species[j],
                                      a.mark[j], r2);
            }
        }
    return best;
}

__global__ void rx_chain_kernel(const rx_chain_args a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.n_owned)
        return;
    const int sp = a.species[i];
    if (!a.active[sp])
        return;
    const int32_t rec = a.slot_rec[i];
    const vs_topo *mine = rec >= 0 ? &a.topo[rec] : &vs_rx_no_topo;
    if (mine->n_bond >= VS_MAX_BONDS)
        return;
    double r[3];
    vs_pos_load(a.pos, i, r);
    const vs_reaction_best b = rx_search(a, i, r, mine);
    if (b.tag < 0 || !vs_reaction_accept(b.bits, a.probability))
        return;
    const int at = atomicAdd(a.count, 1);
    if (at >= a.cap)
        return; /* counted: the host grows the list and searches again */
    vs_reaction_claim c;
    memset(&c, 0, sizeof c);
    c.kind = VS_CLAIM_CHAIN;
    c.a = a.tag[i];
    c.b = b.tag;
    c.key = b.bits.v0;
    c.mol = mine->mol;
    c.species = sp;
    c.n_bond = mine->n_bond;
    for (int k = 0; k < c.n_bond; ++k)
        c.bond[k] = mine->bond[k];
    a.out[at] = c;
}

extern "C" void vs_gpu_reaction_claims(vs_gpu_state *g, vs_gpu_rx **rxp, int64_t step,
                                       vs_claim_list *out)
{
    vs_gpu_rx *rx = scratch(rxp);
    const vs_chain_growth *cg = &g->prm->reactions.chain;
    out->n = 0;
    if (!cg->on || !g->bd.on)
        return;
    vs_gpu_settle_ghosts(g);
    bin_partners(g, rx, cg->monomer);
    rx_chain_args a;
    memset(&a, 0, sizeof a);
    a.n_owned = (int)g->pt.n_owned;
    a.pos = vs_gpu_positions(g);
    a.tag = g->pt.tag;
    a.species = g->pt.species_id;
    a.mark = g->bd.mark;
    a.slot_rec = g->bd.slot_rec;
    a.topo = g->bd.topo;
    a.grid = g->cells.grid;
    a.cell_start = rx->cell_start;
    a.entries = rx->entries;
    a.row_cut2 = vs_row_cut2(cg->radius);
    const vs_reaction_search q = {VS_CLAIM_CHAIN, cg->monomer, 1, cg->radius * cg->radius,
                                  VS_RX_STREAM_CHAIN, g->prm->system.seed, (uint64_t)step};
    a.q = q;
    a.probability = cg->probability;
    for (int s = 0; s < VS_MAX_SPECIES; ++s)
        a.active[s] = cg->active[s];
    a.count = rx->d_count;
    int32_t found = 0;
    for (int pass = 0; pass < 2; ++pass) {
        rx->claims = (vs_reaction_claim *)grow(rx->claims, sizeof(vs_reaction_claim),
                                               &rx->cap_claims, found > 0 ? found : 1024);
        a.out = rx->claims;
        a.cap = (int)rx->cap_claims;
        VS_CUDA_CHECK(cudaMemsetAsync(rx->d_count, 0, sizeof(int32_t), g->stream));
        VS_LAUNCH(rx_chain_kernel, a.n_owned, VS_BLOCK, g->stream, a);
        VS_CUDA_CHECK(cudaMemcpyAsync(&found, rx->d_count, sizeof found, cudaMemcpyDeviceToHost,
                                      g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (found <= a.cap)
            break;
    }
    if (found > out->cap) {
        out->cap = found + found / 4 + 64;
        out->c = (vs_reaction_claim *)VS_REALLOC(out->c, sizeof(vs_reaction_claim) *
                                                             (size_t)out->cap);
    }
    if (found > 0)
        VS_CUDA_CHECK(cudaMemcpy(out->c, rx->claims, sizeof(vs_reaction_claim) * (size_t)found,
                                 cudaMemcpyDeviceToHost));
    out->n = found;
}

/* ---- the records the events touch ------------------------------------------------------ */

__global__ void rx_find_kernel(int n_owned, const int64_t *tag, const int64_t *tags, int n,
                               int32_t *slot)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_owned)
        return;
    const int64_t t = tag[i];
    int lo = 0, hi = n; /* the first of tags not below t */
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (tags[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && tags[lo] == t)
        slot[lo] = i;
}

__global__ void rx_gather_kernel(int n, const int32_t *slot, const int32_t *species,
                                 const int32_t *slot_rec, const vs_topo *topo, int32_t *rec,
                                 int32_t *sp, vs_topo *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n || slot[k] < 0)
        return;
    const int32_t s = slot[k], r = slot_rec[s];
    rec[k] = r;
    sp[k] = species[s];
    out[k] = r >= 0 ? topo[r] : vs_rx_no_topo;
}

static void reserve_tags(vs_gpu_rx *rx, int64_t n)
{
    if (n <= rx->cap_tags && rx->tags)
        return;
    void *p[] = {rx->tags, rx->slot, rx->rec, rx->species, rx->topo};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; ++k)
        if (p[k])
            VS_CUDA_CHECK(cudaFree(p[k]));
    const int64_t cap = n + n / 4 + 256;
    VS_CUDA_CHECK(cudaMalloc(&rx->tags, sizeof(int64_t) * (size_t)cap));
    VS_CUDA_CHECK(cudaMalloc(&rx->slot, sizeof(int32_t) * (size_t)cap));
    VS_CUDA_CHECK(cudaMalloc(&rx->rec, sizeof(int32_t) * (size_t)cap));
    VS_CUDA_CHECK(cudaMalloc(&rx->species, sizeof(int32_t) * (size_t)cap));
    VS_CUDA_CHECK(cudaMalloc(&rx->topo, sizeof(vs_topo) * (size_t)cap));
    free(rx->h_slot);
    free(rx->h_rec);
    rx->h_slot = (int32_t *)VS_MALLOC(sizeof(int32_t) * (size_t)cap);
    rx->h_rec = (int32_t *)VS_MALLOC(sizeof(int32_t) * (size_t)cap);
    rx->cap_tags = cap;
}

extern "C" void vs_gpu_reaction_fetch(vs_gpu_state *g, vs_gpu_rx **rxp, const int64_t *tags,
                                      int64_t n, vs_particles *beads)
{
    vs_gpu_rx *rx = scratch(rxp);
    reserve_tags(rx, n);
    memset(beads, 0, sizeof *beads);
    const size_t m = (size_t)(n > 0 ? n : 1);
    beads->tag = (int64_t *)VS_MALLOC(sizeof(int64_t) * m);
    beads->species = (int32_t *)VS_MALLOC(sizeof(int32_t) * m);
    beads->topo = (vs_topo *)VS_MALLOC(sizeof(vs_topo) * m);
    if (n == 0)
        return;
    const cudaMemcpyKind up = cudaMemcpyHostToDevice, down = cudaMemcpyDeviceToHost;
    VS_CUDA_CHECK(cudaMemcpyAsync(rx->tags, tags, sizeof(int64_t) * (size_t)n, up, g->stream));
    VS_CUDA_CHECK(cudaMemsetAsync(rx->slot, 0xff, sizeof(int32_t) * (size_t)n, g->stream));
    const int n_owned = (int)g->pt.n_owned;
    VS_LAUNCH(rx_find_kernel, n_owned, VS_BLOCK, g->stream, n_owned, g->pt.tag, rx->tags, (int)n,
              rx->slot);
    VS_LAUNCH(rx_gather_kernel, n, VS_BLOCK, g->stream, (int)n, rx->slot, g->pt.species_id,
              g->bd.slot_rec, g->bd.topo, rx->rec, rx->species, rx->topo);
    int32_t *sp = (int32_t *)VS_MALLOC(sizeof(int32_t) * m);
    VS_CUDA_CHECK(cudaMemcpyAsync(rx->h_slot, rx->slot, sizeof(int32_t) * (size_t)n, down,
                                  g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(rx->h_rec, rx->rec, sizeof(int32_t) * (size_t)n, down,
                                  g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(sp, rx->species, sizeof(int32_t) * (size_t)n, down, g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(beads->topo, rx->topo, sizeof(vs_topo) * (size_t)n, down,
                                  g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    int64_t k = 0; /* the owned ones, compacted in the order of their tags */
    for (int64_t q = 0; q < n; ++q) {
        if (rx->h_slot[q] < 0)
            continue;
        beads->tag[k] = tags[q];
        beads->species[k] = sp[q];
        beads->topo[k] = beads->topo[q];
        rx->h_slot[k] = rx->h_slot[q];
        rx->h_rec[k] = rx->h_rec[q];
        ++k;
    }
    beads->n_owned = k;
    beads->capacity = n;
    free(sp);
}

__global__ void rx_store_kernel(int n, const int32_t *slot, const int32_t *rec,
                                const int32_t *sp, const vs_topo *in, int64_t first_new,
                                int32_t *species, int4 *pos_q, int32_t *slot_rec,
                                int32_t *rec_slot, vs_topo *topo, vs_dihedrals *dih)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int32_t s = slot[k], r = rec[k];
    species[s] = sp[k];
    if (pos_q) /* the only store of the positions, with the species */
        pos_q[s].w = sp[k];
    topo[r] = in[k];
    slot_rec[s] = r;
    rec_slot[r] = s;
    if (dih && r >= first_new)
        memset(&dih[r], 0, sizeof(vs_dihedrals));
}

extern "C" void vs_gpu_reaction_store(vs_gpu_state *g, vs_gpu_rx *rx, const vs_particles *beads)
{
    const int64_t n = beads->n_owned;
    if (n == 0)
        return;
    const int64_t first_new = g->bd.n_rec;
    int64_t n_new = 0;
    for (int64_t k = 0; k < n; ++k)
        if (rx->h_rec[k] < 0)
            rx->h_rec[k] = (int32_t)(first_new + n_new++);
    vs_gpu_topo_reserve(g, first_new + n_new);
    const cudaMemcpyKind up = cudaMemcpyHostToDevice;
    VS_CUDA_CHECK(cudaMemcpyAsync(rx->slot, rx->h_slot, sizeof(int32_t) * (size_t)n, up,
                                  g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(rx->rec, rx->h_rec, sizeof(int32_t) * (size_t)n, up,
                                  g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(rx->species, beads->species, sizeof(int32_t) * (size_t)n, up,
                                  g->stream));
    VS_CUDA_CHECK(cudaMemcpyAsync(rx->topo, beads->topo, sizeof(vs_topo) * (size_t)n, up,
                                  g->stream));
    VS_LAUNCH(rx_store_kernel, n, VS_BLOCK, g->stream, (int)n, rx->slot, rx->rec, rx->species,
              rx->topo, first_new, g->pt.species_id, g->plan.pos_q_only ? g->fs.pos_q : NULL,
              g->bd.slot_rec, g->bd.rec_slot, g->bd.topo, g->bd.dih_on ? g->bd.dih : NULL);
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream)); /* the host arrays are the caller's */
    g->bd.n_rec = first_new + n_new;
    /* the species are part of the staged force inputs: restaged before the next forces */
    ++g->ver.owned;
}

extern "C" void vs_gpu_reaction_release(vs_particles *beads)
{
    free(beads->tag);
    free(beads->species);
    free(beads->topo);
    memset(beads, 0, sizeof *beads);
}

extern "C" void vs_gpu_reaction_free(vs_gpu_rx *rx)
{
    if (!rx)
        return;
    void *p[] = {rx->cell_start, rx->cell_of, rx->rank_in_cell, rx->entries, rx->scan_temp,
                 rx->claims, rx->d_count, rx->tags, rx->slot, rx->rec, rx->species, rx->topo};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; ++k)
        if (p[k])
            cudaFree(p[k]);
    free(rx->h_slot);
    free(rx->h_rec);
    free(rx);
}
