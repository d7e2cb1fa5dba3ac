/* The records the reaction step's events touch (gpu_reaction.h): fetched from the device to
 * the host, where the engine applies the events, and stored back; the special lists of the
 * beads near a changed bond; the owned beads the engine's tests pick. Each way is one copy of
 * one block of records through page-locked staging (gpu_reaction.cuh). */
#include <algorithm>

#include "gpu_reaction.cuh"

static __device__ vs_dihedrals vs_rx_no_dih; /* a bead without a record's: none */

/* ---- the records the events touch ------------------------------------------------------ */


/* The owned slot of each of tags (n, sorted ascending; -1: not owned here). */
__global__ void rx_find_kernel(int n_owned, const int64_t *tag, const int64_t *tags, int n,
                               int32_t *slot)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_owned)
        return;
    const int k = rx_tag_index(tags, n, tag[i]);
    if (k >= 0)
        slot[k] = i;
}



/* The owned beads among tags (n, sorted; their records' slot fields -1 before) gathered into
 * out, in one pass over the owned slots. */
__global__ void rx_gather_kernel(int n_owned, const int64_t *tag, const int64_t *tags, int n,
                                 rx_records d, rx_bead *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_owned)
        return;
    const int k = rx_tag_index(tags, n, tag[i]);
    if (k < 0)
        return;
    rx_bead *o = &out[k];
    const int32_t r = d.slot_rec[i];
    o->slot = i;
    o->rec = r;
    o->species = d.species[i];
    o->topo = r >= 0 ? d.topo[r] : vs_rx_no_topo;
    if (d.dih)
        o->dih = r >= 0 ? d.dih[r] : vs_rx_no_dih;
    if (d.special)
        o->special = d.special[i];
}

static void reserve_tags(vs_gpu_rx *rx, int64_t n)
{
    if (n <= rx->cap_tags && rx->tags)
        return;
    staging_free(rx);
    void *p[] = {rx->tags, rx->slot, rx->beads, rx->special};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; ++k)
        if (p[k])
            VS_CUDA_CHECK(cudaFree(p[k]));
    const int64_t cap = n + n / 4 + 256;
    VS_CUDA_CHECK(cudaMalloc(&rx->tags, sizeof(int64_t) * (size_t)cap));
    VS_CUDA_CHECK(cudaMalloc(&rx->slot, sizeof(int32_t) * (size_t)cap));
    VS_CUDA_CHECK(cudaMalloc(&rx->beads, sizeof(rx_bead) * (size_t)cap));
    VS_CUDA_CHECK(cudaMalloc(&rx->special, sizeof(vs_special) * (size_t)cap));
    pinned_room((void **)&rx->h_tags, sizeof(int64_t), cap);
    pinned_room((void **)&rx->h_beads, sizeof(rx_bead), cap);
    pinned_room((void **)&rx->h_special, sizeof(vs_special), cap);
    rx->cap_tags = cap;
}

/* The tags asked for (n, sorted) up to rx->tags. */
static void upload_tags(vs_gpu_state *g, vs_gpu_rx *rx, const int64_t *tags, int64_t n)
{
    reserve_tags(rx, n);
    staging_free(rx);
    memcpy(rx->h_tags, tags, sizeof(int64_t) * (size_t)n);
    VS_CUDA_CHECK(cudaMemcpyAsync(rx->tags, rx->h_tags, sizeof(int64_t) * (size_t)n,
                                  cudaMemcpyHostToDevice, g->stream));
}

extern "C" void vs_gpu_reaction_fetch(vs_gpu_state *g, vs_gpu_rx **rxp, const int64_t *tags,
                                      int64_t n, vs_particles *beads)
{
    vs_gpu_rx *rx = scratch(rxp);
    reserve_tags(rx, n);
    memset(beads, 0, sizeof *beads);
    const size_t m = (size_t)(n > 0 ? n : 1);
    const rx_records d = records_of(g);
    beads->tag = (int64_t *)VS_MALLOC(sizeof(int64_t) * m);
    beads->species = (int32_t *)VS_MALLOC(sizeof(int32_t) * m);
    beads->topo = (vs_topo *)VS_MALLOC(sizeof(vs_topo) * m);
    if (d.dih)
        beads->dih = (vs_dihedrals *)VS_MALLOC(sizeof(vs_dihedrals) * m);
    if (d.special)
        beads->special = (vs_special *)VS_MALLOC(sizeof(vs_special) * m);
    if (n == 0)
        return;
    upload_tags(g, rx, tags, n);
    const size_t bytes = sizeof(rx_bead) * (size_t)n;
    VS_CUDA_CHECK(cudaMemsetAsync(rx->beads, 0xff, bytes, g->stream)); /* slot -1 */
    const int n_owned = (int)g->pt.n_owned;
    VS_LAUNCH(rx_gather_kernel, n_owned, VS_BLOCK, g->stream, n_owned, g->pt.tag, rx->tags,
              (int)n, d, rx->beads);
    VS_CUDA_CHECK(cudaMemcpyAsync(rx->h_beads, rx->beads, bytes, cudaMemcpyDeviceToHost,
                                  g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    int64_t k = 0; /* the owned ones, compacted in the order of their tags */
    for (int64_t q = 0; q < n; ++q) {
        const rx_bead *b = &rx->h_beads[q];
        if (b->slot < 0)
            continue;
        beads->tag[k] = tags[q];
        beads->species[k] = b->species;
        beads->topo[k] = b->topo;
        if (d.dih)
            beads->dih[k] = b->dih;
        if (d.special)
            beads->special[k] = b->special;
        rx->h_beads[k].slot = b->slot; /* the store's slots and records */
        rx->h_beads[k].rec = b->rec;
        ++k;
    }
    beads->n_owned = k;
    beads->capacity = n;
}

__global__ void rx_store_kernel(int n, const rx_bead *in, rx_records d, int4 *pos_q)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const rx_bead *b = &in[k];
    const int32_t s = b->slot, r = b->rec;
    d.species[s] = b->species;
    if (pos_q) /* the only store of the positions, with the species */
        pos_q[s].w = b->species;
    d.topo[r] = b->topo;
    d.slot_rec[s] = r;
    d.rec_slot[r] = s;
    if (d.dih) /* a new record's: empty, as fetched */
        d.dih[r] = b->dih;
}

extern "C" void vs_gpu_reaction_store(vs_gpu_state *g, vs_gpu_rx *rx, const vs_particles *beads)
{
    const int64_t n = beads->n_owned;
    if (n == 0)
        return;
    const int64_t first_new = g->bd.n_rec;
    int64_t n_new = 0;
    /* the fetch waited for its copy: the staging is free */
    for (int64_t k = 0; k < n; ++k) {
        rx_bead *b = &rx->h_beads[k];
        if (b->rec < 0)
            b->rec = (int32_t)(first_new + n_new++);
        b->species = beads->species[k];
        b->topo = beads->topo[k];
        if (beads->dih)
            b->dih = beads->dih[k];
    }
    vs_gpu_topo_reserve(g, first_new + n_new);
    g->bd.n_rec = first_new + n_new;
    vs_gpu_bonded_room(g); /* the build and forces after the events may be captured */
    const rx_records d = records_of(g); /* after the reserve, which may move them */
    VS_CUDA_CHECK(cudaMemcpyAsync(rx->beads, rx->h_beads, sizeof(rx_bead) * (size_t)n,
                                  cudaMemcpyHostToDevice, g->stream));
    VS_CUDA_CHECK(cudaEventRecord(rx->staged, g->stream));
    VS_LAUNCH(rx_store_kernel, n, VS_BLOCK, g->stream, (int)n, rx->beads, d,
              g->plan.pos_q_only ? g->fs.pos_q : NULL);
    /* the species are part of the staged force inputs: restaged before the next forces */
    ++g->ver.owned;
    ++g->ver.slots; /* bond counts */
}

__global__ void rx_store_special_kernel(int n, const int32_t *slot, const vs_special *in,
                                        vs_special *special)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n && slot[k] >= 0)
        special[slot[k]] = in[k];
}

extern "C" void vs_gpu_reaction_store_special(vs_gpu_state *g, vs_gpu_rx **rxp,
                                              const vs_particles *beads)
{
    vs_gpu_rx *rx = scratch(rxp);
    const int64_t n = beads->n_owned;
    if (n == 0 || !g->ps.special_on)
        return;
    upload_tags(g, rx, beads->tag, n); /* waits for the staging to be free */
    VS_CUDA_CHECK(cudaMemsetAsync(rx->slot, 0xff, sizeof(int32_t) * (size_t)n, g->stream));
    const int n_owned = (int)g->pt.n_owned;
    VS_LAUNCH(rx_find_kernel, n_owned, VS_BLOCK, g->stream, n_owned, g->pt.tag, rx->tags, (int)n,
              rx->slot);
    memcpy(rx->h_special, beads->special, sizeof(vs_special) * (size_t)n);
    VS_CUDA_CHECK(cudaMemcpyAsync(rx->special, rx->h_special, sizeof(vs_special) * (size_t)n,
                                  cudaMemcpyHostToDevice, g->stream));
    VS_CUDA_CHECK(cudaEventRecord(rx->staged, g->stream));
    VS_LAUNCH(rx_store_special_kernel, n, VS_BLOCK, g->stream, (int)n, rx->slot, rx->special,
              g->ps.special);
}

/* ---- the owned beads a test picks ------------------------------------------------------ */

/* Whether the unordered pair (a, b) is in pairs (n of them, each lo < hi, sorted). */
__device__ bool rx_pair_in(const int64_t *pairs, int n, int64_t a, int64_t b)
{
    const int64_t lo = a < b ? a : b, hi = a < b ? b : a;
    int l = 0, h = n;
    while (l < h) {
        const int mid = (l + h) / 2;
        const int64_t mlo = pairs[2 * mid], mhi = pairs[2 * mid + 1];
        if (mlo < lo || (mlo == lo && mhi < hi))
            l = mid + 1;
        else
            h = mid;
    }
    return l < n && pairs[2 * l] == lo && pairs[2 * l + 1] == hi;
}

/* Whether tag is among tags (n, sorted). */
__device__ bool rx_tag_in(const int64_t *tags, int n, int64_t tag)
{
    return rx_tag_index(tags, n, tag) >= 0;
}

/* An owned bead some angle or dihedral of which runs along one of the pairs. */
__global__ void rx_near_broken_kernel(int n_owned, const int64_t *tag, rx_records d,
                                      const int64_t *pairs, int n, int64_t *out, int32_t *count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_owned || d.slot_rec[i] < 0)
        return;
    const int32_t r = d.slot_rec[i];
    const vs_topo *t = &d.topo[r];
    bool hit = false;
    for (int k = 0; !hit && k < t->n_angle; ++k)
        for (int q = 0; !hit && q < 2; ++q)
            hit = rx_pair_in(pairs, n, t->angle[k][q], t->angle[k][q + 1]);
    const vs_dihedrals *dh = d.dih ? &d.dih[r] : NULL;
    for (int k = 0; dh && !hit && k < dh->n_dihedral; ++k)
        for (int q = 0; !hit && q < 3; ++q)
            hit = rx_pair_in(pairs, n, dh->dihedral[k][q], dh->dihedral[k][q + 1]);
    if (hit)
        out[atomicAdd(count, 1)] = tag[i];
}

/* An owned bead that is one of the ends, or whose special list names one. */
__global__ void rx_affected_kernel(int n_owned, const int64_t *tag, const vs_special *special,
                                   const int64_t *ends, int n, int64_t *out, int32_t *count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_owned)
        return;
    bool hit = rx_tag_in(ends, n, tag[i]);
    for (int64_t k = 0; !hit && k < special[i].n; ++k)
        hit = rx_tag_in(ends, n, special[i].e[k] >> 2);
    if (hit)
        out[atomicAdd(count, 1)] = tag[i];
}

/* Upload `words` int64 words of a test's set, run `launch` (which appends at most one tag per
 * owned bead to rx->picked through rx->d_count) and return the tags it picked (malloc'd,
 * sorted; *n_out of them). */
template <typename F> static int64_t *pick(vs_gpu_state *g, vs_gpu_rx *rx, const int64_t *set,
                                           int64_t words, int64_t *n_out, F launch)
{
    rx->pairs = (int64_t *)grow(rx->pairs, sizeof(int64_t), &rx->cap_pairs, words);
    rx->picked = (int64_t *)grow(rx->picked, sizeof(int64_t), &rx->cap_picked, g->pt.n_owned);
    if (words > 0)
        VS_CUDA_CHECK(cudaMemcpyAsync(rx->pairs, set, sizeof(int64_t) * (size_t)words,
                                      cudaMemcpyHostToDevice, g->stream));
    VS_CUDA_CHECK(cudaMemsetAsync(rx->d_count, 0, sizeof(int32_t), g->stream));
    launch();
    int32_t n = 0;
    VS_CUDA_CHECK(cudaMemcpyAsync(&n, rx->d_count, sizeof n, cudaMemcpyDeviceToHost, g->stream));
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    int64_t *tags = (int64_t *)VS_MALLOC(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (n > 0)
        VS_CUDA_CHECK(cudaMemcpy(tags, rx->picked, sizeof(int64_t) * (size_t)n,
                                 cudaMemcpyDeviceToHost));
    std::sort(tags, tags + n);
    *n_out = n;
    return tags;
}

extern "C" int64_t *vs_gpu_reaction_near_broken(vs_gpu_state *g, vs_gpu_rx **rxp,
                                                const int64_t *pairs, int64_t n,
                                                int64_t *n_out)
{
    vs_gpu_rx *rx = scratch(rxp);
    const int n_owned = (int)g->pt.n_owned;
    const rx_records d = records_of(g);
    return pick(g, rx, pairs, 2 * n, n_out, [&]() {
        VS_LAUNCH(rx_near_broken_kernel, n_owned, VS_BLOCK, g->stream, n_owned, g->pt.tag, d,
                  rx->pairs, (int)n, rx->picked, rx->d_count);
    });
}

extern "C" int64_t *vs_gpu_reaction_affected(vs_gpu_state *g, vs_gpu_rx **rxp,
                                             const int64_t *ends, int64_t n, int64_t *n_out)
{
    vs_gpu_rx *rx = scratch(rxp);
    const int n_owned = (int)g->pt.n_owned;
    if (!g->ps.special_on) {
        *n_out = 0;
        return (int64_t *)VS_MALLOC(sizeof(int64_t));
    }
    return pick(g, rx, ends, n, n_out, [&]() {
        VS_LAUNCH(rx_affected_kernel, n_owned, VS_BLOCK, g->stream, n_owned, g->pt.tag,
                  g->ps.special, rx->pairs, (int)n, rx->picked, rx->d_count);
    });
}

extern "C" void vs_gpu_reaction_release(vs_particles *beads)
{
    free(beads->tag);
    free(beads->species);
    free(beads->topo);
    free(beads->dih);
    free(beads->special);
    memset(beads, 0, sizeof *beads);
}

extern "C" void vs_gpu_reaction_free(vs_gpu_rx *rx)
{
    if (!rx)
        return;
    void *p[] = {rx->cell_start,  rx->cell_of,     rx->rank_in_cell, rx->entries,
                 rx->scan_temp,   rx->claims,      rx->d_count,      rx->copy_tag[0],
                 rx->copy_tag[1], rx->copy_idx[0], rx->copy_idx[1],  rx->d_missing,
                 rx->picked,      rx->pairs,       rx->tags,         rx->slot,
                 rx->beads,       rx->special};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; ++k)
        if (p[k])
            cudaFree(p[k]);
    cudaEventSynchronize(rx->staged);
    void *h[] = {rx->h_count, rx->h_claims, rx->h_tags, rx->h_beads, rx->h_special};
    for (size_t k = 0; k < sizeof h / sizeof h[0]; ++k)
        if (h[k])
            cudaFreeHost(h[k]);
    cudaEventDestroy(rx->staged);
    free(rx);
}
