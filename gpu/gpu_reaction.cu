/* The reaction step's device part (gpu_reaction.h): the claims of every rule found on the
 * device, and the records the events touch fetched and stored back.
 *
 * Creation and chain growth search partners in the cells of the force grid (cells.grid, which
 * covers the brick and the ghost shell; its rows reach the list radius, and every reaction
 * radius lies within it): in the force path's cell list, as the step's rebuild left it,
 * wherever that list holds every particle, owned and ghost (the Newton path's binned list,
 * the sorted one of the others); where it leaves out the ghosts of other ranks (the Newton
 * path's remote-apart overlap), in a cell list of the search's own over the partners alone
 * (a species with fewer bonds than a limit), a counting sort of three passes.
 *
 * A warp per searching bead walks the stencil rows around it, trimmed to the reaction
 * radius, and hands every particle found to vs_reaction_candidate (src/core/reaction.h), as
 * the CPU's search does: the separation in double from the positions the state holds (a
 * ghost is its owner's position plus the periodic shift, the same doubles as on the host
 * mirror), r^2 rounded as the CPU rounds it (vs_norm2), the draw from the pair hash of the
 * two tags. The best partner is a total order (creation: r^2, chain growth: the draw; then
 * the tag), so neither the walk's order nor a partner's several periodic copies change the
 * result. The claims are appended through an atomic counter; their order is whatever the
 * threads gave, and the engine sorts every rank's claims by their content before it
 * resolves them.
 *
 * A partner's bond count is its bonded mark (gpu_bonded.cu: the bead's n_bond, owned and
 * ghost, current after the ghost build; the ghost records carry it), the count the CPU's
 * ghosts carry, so the bond limits of creation and chain growth test the same numbers.
 *
 * Breaking needs no search: one thread per owned record walks its bonds to higher tags (the
 * lower tag's owner decides, as on the CPU) and takes the partner's copy nearest to it, as
 * the CPU's vs_tagmap_nearest does, from the bonded beads (owned and ghost) sorted by tag,
 * where every copy of a tag lies together; r^2 of that copy is the CPU's (the same doubles,
 * the same rounding), and the nearest copy's r^2 is the least of them. The roles of the
 * creation rules and the breaking decision are src/core/reaction.h's, as on the CPU
 * (vs_reaction_create_search, vs_reaction_breaks). */
#include <cub/cub.cuh>
#include <algorithm>
#include <thrust/iterator/counting_iterator.h>

#include "gpu_reaction.cuh"

extern "C" {
#include "bonded.h"
}

/* ---- the partners' cells --------------------------------------------------------------- */

/* A partner: of one species, with fewer than max_bonds bonds (what vs_reaction_candidate
 * asks of it). */
struct rx_partner_filter {
    const int32_t *species;
    const uint8_t *mark;
    int target, max_bonds;
    __device__ bool operator()(int j) const
    {
        return species[j] == target && (int)mark[j] < max_bonds;
    }
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

/* The partners (owned and ghost) by cell, for the plan whose cell list leaves out the remote
 * ghosts (several ranks and a skin: the ghosts' number is known on the host). */
static void bin_partners(vs_gpu_state *g, vs_gpu_rx *rx, int species, int max_bonds)
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
    void *temp = cub_temp(rx, bytes);
    VS_CUDA_CHECK(cudaMemsetAsync(rx->cell_start, 0, sizeof(uint32_t) * (size_t)(n_cells + 1),
                                  g->stream));
    const rx_partner_filter f = {g->pt.species_id, g->bd.mark, species, max_bonds};
    VS_LAUNCH(rx_bin_kernel, n, VS_BLOCK, g->stream, n, vs_gpu_positions(g), g->cells.grid, f,
              rx->cell_start, rx->cell_of, rx->rank_in_cell);
    VS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, rx->scan_bytes, rx->cell_start,
                                                rx->cell_start, (int)(n_cells + 1),
                                                g->stream));
    VS_LAUNCH(rx_scatter_kernel, n, VS_BLOCK, g->stream, n, rx->cell_of, rx->rank_in_cell,
              rx->cell_start, rx->entries);
}

/* ---- the claims ------------------------------------------------------------------------ */

/* A search: the beads of the species `seeker` marks, with fewer than own_max bonds, each
 * name their best partner under q (chain growth: kept with probability Pr). */
struct rx_search_args {
    int n_owned;
    vs_positions pos;
    const int64_t *tag;
    const int32_t *species;
    const uint8_t *mark;
    const int32_t *slot_rec;
    const vs_topo *topo;
    vs_gpu_grid grid;
    const uint32_t *cell_start;
    const int32_t *entries; /* particles by cell (the partners, or all); NULL: cell_pos .w */
    const int4 *cell_pos;
    float row_cut2;
    vs_reaction_search q;
    int rule;
    int own_max;
    double probability; /* chain growth's Pr */
    int seeker[VS_MAX_SPECIES];
    vs_reaction_claim *out;
    int cap;
    int32_t *count;
};

/* A claim of owned bead i (species sp, record t) about partner b, as the CPU's claim_of. */
__device__ void rx_append(vs_reaction_claim *out, int cap, int32_t *count, int kind, int rule,
                          int64_t a, int64_t b, uint64_t key, int sp, const vs_topo *t)
{
    const int at = atomicAdd(count, 1);
    if (at >= cap)
        return; /* counted: the host grows the list and searches again */
    vs_reaction_claim c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.rule = rule;
    c.a = a;
    c.b = b;
    c.key = key;
    c.mol = t->mol;
    c.species = sp;
    c.n_bond = t->n_bond;
    for (int k = 0; k < c.n_bond; ++k)
        c.bond[k] = t->bond[k];
    out[at] = c;
}

/* The better of two candidates under vs_reaction_consider's order (score, then tag): a total
 * order, so a warp's lanes may split the candidates in any way. */
__device__ __forceinline__ vs_reaction_best rx_better(vs_reaction_best x, vs_reaction_best y)
{
    if (y.tag < 0)
        return x;
    if (x.tag < 0 || y.score < x.score || (y.score == x.score && y.tag < x.tag))
        return y;
    return x;
}

/* The best partner of owned bead i, its candidates split over the warp's lanes (each lane
 * every 32nd of each row's range), reduced to every lane. */
__device__ vs_reaction_best rx_search_warp(const rx_search_args &a, int i, const vs_topo *mine,
                                           int lane)
{
    double r[3];
    vs_pos_load(a.pos, i, r);
    vs_reaction_best best;
    best.tag = -1;
    best.score = 0.0;
    best.bits.v0 = best.bits.v1 = 0;
    int c[3];
    float frac[3];
    vs_cell_of(a.grid, r[0], r[1], r[2], c, frac);
    const int64_t me = a.tag[i];
    const int reach = a.grid.yz_reach;
    for (int dz = -reach; dz <= reach; ++dz)
        for (int dy = -reach; dy <= reach; ++dy) {
            int first, last;
            if (!vs_stencil_row(a.grid, c, frac, a.row_cut2, dy, dz, &first, &last))
                continue;
            const uint32_t end = a.cell_start[last + 1];
            for (uint32_t k = a.cell_start[first] + lane; k < end; k += 32) {
                const int j = a.entries ? a.entries[k] : a.cell_pos[k].w;
                double s[3];
                vs_pos_load(a.pos, j, s);
                const double r2 = vs_norm2(r[0] - s[0], r[1] - s[1], r[2] - s[2]);
                vs_reaction_candidate(&best, &a.q, me, mine, a.tag[j], a.species[j], a.mark[j],
                                      r2);
            }
        }
    for (int off = 16; off > 0; off >>= 1) {
        vs_reaction_best o;
        o.tag = __shfl_xor_sync(0xffffffffu, best.tag, off);
        o.score = __shfl_xor_sync(0xffffffffu, best.score, off);
        o.bits.v0 = __shfl_xor_sync(0xffffffffu, best.bits.v0, off);
        o.bits.v1 = __shfl_xor_sync(0xffffffffu, best.bits.v1, off);
        best = rx_better(best, o);
    }
    return best;
}

/* The claim of seeker i (record mine) about its best partner b (chain growth: kept if the
 * pair's draw passes Pr). */
__device__ void rx_claim(const rx_search_args &a, int i, const vs_topo *mine,
                         const vs_reaction_best &b)
{
    const int sp = a.species[i];
    uint64_t key;
    if (a.q.kind == VS_CLAIM_CHAIN) {
        if (!vs_reaction_accept(b.bits, a.probability))
            return;
        key = b.bits.v0;
    } else {
        key = (uint64_t)__double_as_longlong(b.score); /* r^2 >= 0 orders as its bits */
    }
    rx_append(a.out, a.cap, a.count, a.q.kind, a.rule, a.tag[i], b.tag, key, sp, mine);
}

/* One warp per 32 owned beads: its seekers (few: the chain ends, a rule's role) one after
 * another, each with the whole warp over its candidates. A seeker's search is a chain of
 * dependent loads and draws, which one thread per seeker would walk alone. */
__global__ void rx_search_kernel(const rx_search_args a)
{
    const int lane = threadIdx.x % 32;
    const int i = blockIdx.x * blockDim.x + threadIdx.x; /* the lanes' beads */
    const vs_topo *mine = &vs_rx_no_topo;
    bool seeks = false;
    if (i < a.n_owned && a.seeker[a.species[i]]) {
        const int32_t rec = a.slot_rec[i];
        mine = rec >= 0 ? &a.topo[rec] : &vs_rx_no_topo;
        seeks = mine->n_bond < a.own_max;
    }
    for (unsigned m = __ballot_sync(0xffffffffu, seeks); m; m &= m - 1) {
        const int l = __ffs(m) - 1;
        const int s = i - lane + l; /* the seeker's bead; its record from its lane */
        const vs_topo *t = (const vs_topo *)__shfl_sync(0xffffffffu, (unsigned long long)mine, l);
        const vs_reaction_best b = rx_search_warp(a, s, t, lane);
        if (lane == l && b.tag >= 0)
            rx_claim(a, s, t, b);
    }
}

/* Room for `need` more claims in out (host). */
static void claims_room(vs_claim_list *out, int64_t need)
{
    if (out->n + need <= out->cap)
        return;
    out->cap = out->n + need + need / 4 + 64;
    out->c = (vs_reaction_claim *)VS_REALLOC(out->c,
                                             sizeof(vs_reaction_claim) * (size_t)out->cap);
}

/* Launch `launch` (which writes claims to rx->claims through rx->d_count, at most `cap`) and
 * append what it found to out: once, or twice where the first list was too short. */
template <typename F> static void collect(vs_gpu_state *g, vs_gpu_rx *rx, vs_claim_list *out,
                                          F launch)
{
    const size_t size = sizeof(vs_reaction_claim);
    const cudaMemcpyKind down = cudaMemcpyDeviceToHost;
    int32_t found = 0;
    int64_t brought = 0;
    for (int pass = 0; pass < 2; ++pass) {
        const int64_t cap = rx->cap_claims;
        rx->claims = (vs_reaction_claim *)grow(rx->claims, size, &rx->cap_claims,
                                               found > 0 ? found : 1024);
        if (rx->cap_claims != cap || !rx->h_claims)
            pinned_room((void **)&rx->h_claims, size, rx->cap_claims);
        VS_CUDA_CHECK(cudaMemsetAsync(rx->d_count, 0, sizeof(int32_t), g->stream));
        launch(rx->claims, (int)rx->cap_claims);
        /* the count and the claims one search usually finds, with one wait */
        brought = std::min(rx->expect_claims, rx->cap_claims);
        VS_CUDA_CHECK(cudaMemcpyAsync(rx->h_count, rx->d_count, sizeof(int32_t), down,
                                      g->stream));
        VS_CUDA_CHECK(cudaMemcpyAsync(rx->h_claims, rx->claims, size * (size_t)brought, down,
                                      g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        found = *rx->h_count;
        if (found <= rx->cap_claims)
            break;
    }
    if (found > brought) {
        VS_CUDA_CHECK(cudaMemcpyAsync(rx->h_claims + brought, rx->claims + brought,
                                      size * (size_t)(found - brought), down, g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    }
    rx->expect_claims = std::max<int64_t>(found + found / 2, 64);
    claims_room(out, found);
    memcpy(out->c + out->n, rx->h_claims, size * (size_t)found);
    out->n += found;
}

static rx_search_args search_args(vs_gpu_state *g, vs_gpu_rx *rx, double radius)
{
    rx_search_args a;
    memset(&a, 0, sizeof a);
    a.n_owned = (int)g->pt.n_owned;
    a.pos = vs_gpu_positions(g);
    a.tag = g->pt.tag;
    a.species = g->pt.species_id;
    a.mark = g->bd.mark;
    a.slot_rec = g->bd.slot_rec;
    a.topo = g->bd.topo;
    a.grid = g->cells.grid;
    a.row_cut2 = vs_row_cut2(radius);
    a.count = rx->d_count;
    return a;
}

/* One search over the partners of `species` with fewer than max_bonds bonds: over the force
 * path's cell list where it holds every particle, owned and ghost, as this step's build left
 * it (the candidate test sees the species and bonds), else over a list of the partners
 * binned for the search. */
static void search(vs_gpu_state *g, vs_gpu_rx *rx, rx_search_args a, int species, int max_bonds,
                   vs_claim_list *out)
{
    if (g->plan.overlap == VS_GPU_OVERLAP_REMOTE_APART) {
        bin_partners(g, rx, species, max_bonds);
        a.cell_start = rx->cell_start;
        a.entries = rx->entries;
    } else if (g->plan.forces == VS_GPU_FORCES_NEWTON) {
        a.cell_start = g->cells.cell_start;
        a.cell_pos = g->cells.cell_pos; /* binned: the index in .w */
        a.entries = NULL;
    } else {
        a.cell_start = g->cells.cell_start;
        a.entries = (const int32_t *)g->cells.cell_particles; /* sorted by cell */
    }
    collect(g, rx, out, [&](vs_reaction_claim *claims, int cap) {
        a.out = claims;
        a.cap = cap;
        VS_LAUNCH(rx_search_kernel, a.n_owned, VS_BLOCK, g->stream, a);
    });
}

/* Chain growth: each active end with room for a bond names the free monomer of the lowest
 * draw within the radius, kept if its draw passes Pr (the CPU's chain_claims). */
static void chain_claims(vs_gpu_state *g, vs_gpu_rx *rx, int64_t step, vs_claim_list *out)
{
    const vs_chain_growth *cg = &g->prm->reactions.chain;
    rx_search_args a = search_args(g, rx, cg->radius);
    const vs_reaction_search q = {VS_CLAIM_CHAIN, cg->monomer, 1, cg->radius * cg->radius,
                                  VS_RX_STREAM_CHAIN, g->prm->system.seed, (uint64_t)step};
    a.q = q;
    a.own_max = VS_MAX_BONDS;
    a.probability = cg->probability;
    for (int s = 0; s < VS_MAX_SPECIES; ++s)
        a.seeker[s] = cg->active[s];
    search(g, rx, a, cg->monomer, 1, out);
}

/* Creation rule r: each bead of either role with room for a bond names its nearest partner
 * of the other role (the CPU's create_claims: a bead of both roles, i = j, searches as i).
 * One search per role, over the partners that role looks for. */
static void create_claims(vs_gpu_state *g, vs_gpu_rx *rx, int r, vs_claim_list *out)
{
    const vs_bond_create_rule *cr = &g->prm->reactions.create[r];
    for (int role = 0; role < 2; ++role) {
        if (role == 1 && cr->species_j == cr->species_i)
            break; /* every bead of the species searched as i */
        rx_search_args a = search_args(g, rx, cr->radius);
        const int me = role == 0 ? cr->species_i : cr->species_j;
        vs_reaction_search q;
        vs_reaction_create_search(cr, me, &a.own_max, &q); /* me has this role */
        a.q = q;
        a.rule = r;
        a.seeker[me] = 1;
        search(g, rx, a, q.species, q.max_bonds, out);
    }
}

/* ---- breaking -------------------------------------------------------------------------- */

__global__ void rx_copy_tags_kernel(int n, const int32_t *idx, const int64_t *tag, int64_t *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        out[k] = tag[idx[k]];
}

/* The bonded beads (owned and ghost: a bond's partner is bonded) as (tag, index), sorted by
 * tag (the sort is stable: copies in index order). Returns their count. */
static int sort_copies(vs_gpu_state *g, vs_gpu_rx *rx)
{
    const int total = (int)(g->pt.n_owned + g->pt.n_ghost);
    if (total > rx->cap_copies || !rx->copy_tag[0]) {
        for (int k = 0; k < 2; ++k) {
            if (rx->copy_tag[k])
                VS_CUDA_CHECK(cudaFree(rx->copy_tag[k]));
            if (rx->copy_idx[k])
                VS_CUDA_CHECK(cudaFree(rx->copy_idx[k]));
        }
        rx->cap_copies = total + total / 4 + 256;
        for (int k = 0; k < 2; ++k) {
            VS_CUDA_CHECK(cudaMalloc(&rx->copy_tag[k], sizeof(int64_t) * rx->cap_copies));
            VS_CUDA_CHECK(cudaMalloc(&rx->copy_idx[k], sizeof(int32_t) * rx->cap_copies));
        }
    }
    size_t bytes = 0;
    VS_CUDA_CHECK(cub::DeviceSelect::Flagged(NULL, bytes, thrust::counting_iterator<int32_t>(0),
                                             (const uint8_t *)g->bd.mark, rx->copy_idx[0],
                                             rx->d_count, total, g->stream));
    VS_CUDA_CHECK(cub::DeviceSelect::Flagged(cub_temp(rx, bytes), rx->scan_bytes,
                                             thrust::counting_iterator<int32_t>(0),
                                             (const uint8_t *)g->bd.mark, rx->copy_idx[0],
                                             rx->d_count, total, g->stream));
    int32_t n = 0;
    VS_CUDA_CHECK(cudaMemcpyAsync(&n, rx->d_count, sizeof n, cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    VS_LAUNCH(rx_copy_tags_kernel, n, VS_BLOCK, g->stream, n, rx->copy_idx[0], g->pt.tag,
              rx->copy_tag[0]);
    bytes = 0;
    VS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, bytes, rx->copy_tag[0], rx->copy_tag[1],
                                                  rx->copy_idx[0], rx->copy_idx[1], n, 0, 64,
                                                  g->stream));
    VS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_temp(rx, bytes), rx->scan_bytes,
                                                  rx->copy_tag[0], rx->copy_tag[1],
                                                  rx->copy_idx[0], rx->copy_idx[1], n, 0, 64,
                                                  g->stream));
    return n;
}

struct rx_break_args {
    int n_owned;
    vs_positions pos;
    const int64_t *tag;
    const int32_t *species;
    const int32_t *slot_rec;
    const vs_topo *topo;
    const int64_t *copy_tag; /* sorted */
    const int32_t *copy_idx;
    int n_copies;
    int n_rules;
    vs_bond_break_rule rule[VS_MAX_REACTION_RULES];
    uint64_t seed, step;
    vs_reaction_claim *out;
    int cap;
    int32_t *count;
    int64_t *missing;
};

/* Of the copies of `tag`, the index of the one nearest to r and its r^2 (the CPU's
 * vs_tagmap_nearest, whose r^2 the CPU's breaking recomputes to the same bits); -1: none. */
__device__ int rx_nearest_copy(const rx_break_args &a, int64_t tag, const double r[3],
                               double *r2_out)
{
    int lo = 0, hi = a.n_copies; /* the first copy not below tag */
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (a.copy_tag[mid] < tag)
            lo = mid + 1;
        else
            hi = mid;
    }
    int best = -1;
    double best_r2 = 0.0;
    for (int k = lo; k < a.n_copies && a.copy_tag[k] == tag; ++k) {
        const int j = a.copy_idx[k];
        double s[3];
        vs_pos_load(a.pos, j, s);
        const double r2 = vs_norm2(r[0] - s[0], r[1] - s[1], r[2] - s[2]);
        if (best < 0 || r2 < best_r2) {
            best = j;
            best_r2 = r2;
        }
    }
    *r2_out = best_r2;
    return best;
}

/* Each bond of owned record i to a higher tag: the first rule of the pair's species decides
 * (the CPU's break_claims). */
__global__ void rx_break_kernel(const rx_break_args a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.n_owned || a.slot_rec[i] < 0)
        return;
    const vs_topo *t = &a.topo[a.slot_rec[i]];
    const int64_t me = a.tag[i];
    double r[3];
    vs_pos_load(a.pos, i, r);
    for (int k = 0; k < t->n_bond; ++k) {
        const int64_t b = t->bond[k];
        if (b < me)
            continue;
        double r2;
        const int j = rx_nearest_copy(a, b, r, &r2);
        if (j < 0) {
            if (atomicCAS((unsigned long long *)&a.missing[0], ~0ull, (unsigned long long)me) ==
                ~0ull)
                a.missing[1] = b;
            continue;
        }
        int rule = 0;
        if (vs_reaction_breaks(a.rule, a.n_rules, a.seed, a.step, me, b, a.species[i],
                               a.species[j], r2, &rule))
            rx_append(a.out, a.cap, a.count, VS_CLAIM_BREAK, rule, me, b, 0, a.species[i], t);
    }
}

static void break_claims(vs_gpu_state *g, vs_gpu_rx *rx, int64_t step, vs_claim_list *out)
{
    const vs_reaction_params *rp = &g->prm->reactions;
    rx_break_args a;
    memset(&a, 0, sizeof a);
    a.n_copies = sort_copies(g, rx);
    a.n_owned = (int)g->pt.n_owned;
    a.pos = vs_gpu_positions(g);
    a.tag = g->pt.tag;
    a.species = g->pt.species_id;
    a.slot_rec = g->bd.slot_rec;
    a.topo = g->bd.topo;
    a.copy_tag = rx->copy_tag[1];
    a.copy_idx = rx->copy_idx[1];
    a.n_rules = rp->n_break;
    for (int q = 0; q < rp->n_break; ++q)
        a.rule[q] = rp->brk[q];
    a.seed = g->prm->system.seed;
    a.step = (uint64_t)step;
    a.count = rx->d_count;
    a.missing = rx->d_missing;
    VS_CUDA_CHECK(cudaMemsetAsync(rx->d_missing, 0xff, 2 * sizeof(int64_t), g->stream));
    collect(g, rx, out, [&](vs_reaction_claim *claims, int cap) {
        a.out = claims;
        a.cap = cap;
        VS_LAUNCH(rx_break_kernel, a.n_owned, VS_BLOCK, g->stream, a);
    });
    int64_t missing[2];
    VS_CUDA_CHECK(cudaMemcpy(missing, rx->d_missing, sizeof missing, cudaMemcpyDeviceToHost));
    if (missing[0] >= 0)
        vs_bonded_fail(g->prm, VS_BONDED_MISSING, step, missing[0], missing[1], 0.0, 0.0);
}

extern "C" void vs_gpu_reaction_claims(vs_gpu_state *g, vs_gpu_rx **rxp, int64_t step,
                                       vs_claim_list *out)
{
    vs_gpu_rx *rx = scratch(rxp);
    const vs_reaction_params *rp = &g->prm->reactions;
    out->n = 0;
    if (!g->bd.on)
        return;
    if (rp->n_break > 0) {
        vs_gpu_settle_ghosts(g); /* the copies' sort counts the ghosts on the host */
        break_claims(g, rx, step, out);
    }
    for (int r = 0; r < rp->n_create; ++r)
        create_claims(g, rx, r, out);
    if (rp->chain.on)
        chain_claims(g, rx, step, out);
}
