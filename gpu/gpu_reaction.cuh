/* The reaction step's device scratch and the helpers its two files share (gpu_reaction.cu:
 * the claims; gpu_reaction_records.cu: the records the events touch). */
#ifndef VESICA_GPU_REACTION_CUH
#define VESICA_GPU_REACTION_CUH

#include <stdlib.h>
#include <string.h>

#include "gpu_internal.cuh"

extern "C" {
#include "gpu_reaction.h"
}

/* One fetched or stored bead, in one block of records so that each way is one copy: its
 * owned slot (-1: not owned here), record (-1: none yet) and species, its topology, and
 * where the run has them its dihedrals and special list. */
struct rx_bead {
    int32_t slot, rec, species, pad;
    vs_topo topo;
    vs_dihedrals dih;
    vs_special special;
};

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
    /* breaking: the bonded beads' tags and indices, sorted by tag (copy_*[1]) */
    int64_t *copy_tag[2];
    int32_t *copy_idx[2];
    int64_t cap_copies;
    int64_t *d_missing; /* a bond whose partner has no copy: its two tags (-1: none) */
    /* owned beads a test picked (vs_gpu_reaction_near_broken, _affected): their tags */
    int64_t *picked;
    int64_t cap_picked;
    int64_t *pairs; /* the sets those tests read */
    int64_t cap_pairs;
    /* fetch and store: the tags asked for, their records, the special lists' slots and
     * lists */
    int64_t *tags;
    rx_bead *beads;
    int32_t *slot;
    vs_special *special;
    int64_t cap_tags;
    /* page-locked host copies: a copy from or to them is one DMA, queued without a wait.
     * h_count and h_claims come back with one wait per search; the staging arrays carry
     * the fetched records and the stored ones, whose copies up are queued behind the store
     * (`staged` marks their end: nothing writes the staging before it) */
    int32_t *h_count;
    vs_reaction_claim *h_claims;
    int64_t expect_claims; /* how many claims a search's first copy brings back */
    int64_t *h_tags;
    rx_bead *h_beads;
    vs_special *h_special;
    cudaEvent_t staged;
};

/* A bead without a record: no bonds, molecule 0 (each file its own zeros). */
static __device__ vs_topo vs_rx_no_topo;

static inline void *grow(void *p, size_t elem, int64_t *cap, int64_t need)
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

static inline vs_gpu_rx *scratch(vs_gpu_rx **rx)
{
    if (!*rx) {
        *rx = (vs_gpu_rx *)calloc(1, sizeof(vs_gpu_rx));
        if (!*rx)
            VS_FATAL("reactions: out of host memory");
        VS_CUDA_CHECK(cudaMalloc(&(*rx)->d_count, sizeof(int32_t)));
        VS_CUDA_CHECK(cudaMalloc(&(*rx)->d_missing, 2 * sizeof(int64_t)));
        VS_CUDA_CHECK(cudaMallocHost((void **)&(*rx)->h_count, sizeof(int32_t)));
        VS_CUDA_CHECK(cudaEventCreateWithFlags(&(*rx)->staged, cudaEventDisableTiming));
        VS_CUDA_CHECK(cudaEventRecord((*rx)->staged, 0)); /* nothing staged yet */
        (*rx)->expect_claims = 256;
    }
    return *rx;
}

/* Page-locked room for n elements of `elem` bytes at *p (its contents are not kept). */
static inline void pinned_room(void **p, size_t elem, int64_t n)
{
    if (*p)
        VS_CUDA_CHECK(cudaFreeHost(*p));
    VS_CUDA_CHECK(cudaMallocHost(p, elem * (size_t)(n > 0 ? n : 1)));
}

/* Before the host writes the staging arrays: the copies up of the last store have read
 * them (at once where they have, as almost always). */
static inline void staging_free(vs_gpu_rx *rx)
{
    VS_CUDA_CHECK(cudaEventSynchronize(rx->staged));
}

/* CUB's scratch for a call that asked for `bytes`. */
static inline void *cub_temp(vs_gpu_rx *rx, size_t bytes)
{
    if (bytes > rx->scan_bytes) {
        if (rx->scan_temp)
            VS_CUDA_CHECK(cudaFree(rx->scan_temp));
        rx->scan_bytes = bytes + bytes / 4;
        VS_CUDA_CHECK(cudaMalloc(&rx->scan_temp, rx->scan_bytes));
    }
    return rx->scan_temp;
}

/* What a fetch gathers and a store scatters: the per-slot arrays and the per-record ones
 * (dih and special: NULL where the run has none). */
struct rx_records {
    int32_t *species;
    int32_t *slot_rec, *rec_slot;
    vs_topo *topo;
    vs_dihedrals *dih;
    vs_special *special;
};

static inline rx_records records_of(vs_gpu_state *g)
{
    const rx_records r = {g->pt.species_id, g->bd.slot_rec, g->bd.rec_slot, g->bd.topo,
                          g->bd.dih_on ? g->bd.dih : NULL,
                          g->ps.special_on ? g->ps.special : NULL};
    return r;
}

/* The index of t among tags (n, sorted ascending), or -1. */
static inline __device__ int rx_tag_index(const int64_t *tags, int n, int64_t t)
{
    int lo = 0, hi = n; /* the first of tags not below t */
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (tags[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && tags[lo] == t ? lo : -1;
}

#endif
