/* Topology records on the device for the beads that have one (vs_gpu_bonded in
 * gpu_internal.cuh): 10% of a vesicle system's beads are in molecules, and a record per slot
 * cost the solvent 288 bytes each and the Morton reorder a strided pass over all of them.
 *
 * - Upload: the host's per-slot records (vs_particles.topo, .dih) compacted in slot order; a
 *   slot whose record is empty (a free bead: no molecule, bond, angle or dihedral) gets none.
 * - Download: expanded on the host into the per-slot records again, so checkpoints,
 *   trajectories and the CPU path never see the compact form.
 * - Migration (gpu_halo.cu): a leaver's record travels in its migrant record as before and its
 *   own becomes a hole; a stayer that fills a hole takes its record index along; arrival k of
 *   an unpack gets record n_rec + k (a hole where it brings none), so the indices are
 *   deterministic without a count read back.
 * - Morton reorder: the slots' indices are permuted with the other per-slot arrays, then the
 *   records are gathered into slot order (holes dropped) into the spare buffer, which trades
 *   places with the records; one count read back per reorder.
 */
#include <cub/cub.cuh>
#include <stdlib.h>
#include <string.h>
#include <thrust/iterator/counting_iterator.h>

#include "gpu_internal.cuh"

static_assert(sizeof(vs_topo) % sizeof(uint64_t) == 0, "records are copied in 8-byte words");
static_assert(sizeof(vs_dihedrals) % sizeof(uint64_t) == 0, "so are dihedral records");

/* Whether a bead needs a record: it belongs to a molecule or takes part in a bonded term. */
static int record_needed(const vs_topo *t, const vs_dihedrals *d)
{
    return t->mol != 0 || t->n_bond > 0 || t->n_angle > 0 || (d && d->n_dihedral > 0);
}

static void *realloc_device(vs_gpu_state *g, void *p, size_t elem, int64_t old_cap,
                            int64_t new_cap, int64_t keep)
{
    void *q = vs_gpu_alloc(g, elem * (size_t)new_cap);
    if (p && keep > 0)
        VS_CUDA_CHECK(cudaMemcpyAsync(q, p, elem * (size_t)keep, cudaMemcpyDeviceToDevice,
                                      g->stream));
    vs_gpu_drain(g);
    if (p)
        vs_gpu_free(g, p, elem * (size_t)old_cap);
    return q;
}

void vs_gpu_topo_reserve(vs_gpu_state *g, int64_t n)
{
    if (!g->bd.on || n <= g->bd.cap_rec)
        return;
    const int64_t old = g->bd.cap_rec, cap = n + n / 4 + 1024, keep = g->bd.n_rec;
    g->bd.topo = (vs_topo *)realloc_device(g, g->bd.topo, sizeof(vs_topo), old, cap, keep);
    g->bd.topo_spare =
        (vs_topo *)realloc_device(g, g->bd.topo_spare, sizeof(vs_topo), old, cap, 0);
    g->bd.rec_slot = (int32_t *)realloc_device(g, g->bd.rec_slot, sizeof(int32_t), old, cap, keep);
    if (g->bd.dih_on) {
        g->bd.dih = (vs_dihedrals *)realloc_device(g, g->bd.dih, sizeof(vs_dihedrals), old, cap,
                                                   keep);
        g->bd.dih_spare = (vs_dihedrals *)realloc_device(g, g->bd.dih_spare,
                                                         sizeof(vs_dihedrals), old, cap, 0);
    }
    g->bd.cap_rec = cap;
}

void vs_gpu_topo_upload(vs_gpu_state *g, const vs_particles *h)
{
    if (!g->bd.on)
        return;
    const int64_t n = h->n_owned;
    int32_t *slot_rec = (int32_t *)malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    int32_t *rec_slot = (int32_t *)malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    int64_t n_rec = 0;
    for (int64_t i = 0; i < n; ++i) {
        const int has = h->topo && record_needed(&h->topo[i], h->dih ? &h->dih[i] : NULL);
        slot_rec[i] = has ? (int32_t)n_rec : -1;
        if (has)
            rec_slot[n_rec++] = (int32_t)i;
    }
    g->bd.n_rec = 0; /* nothing to keep */
    vs_gpu_topo_reserve(g, n_rec + 1); /* never NULL with molecules: the kernels test them */
    vs_topo *recs = (vs_topo *)malloc(sizeof(vs_topo) * (size_t)(n_rec > 0 ? n_rec : 1));
    vs_dihedrals *dihs = NULL;
    for (int64_t k = 0; k < n_rec; ++k)
        recs[k] = h->topo[rec_slot[k]];
    if (g->bd.dih_on) {
        dihs = (vs_dihedrals *)calloc((size_t)(n_rec > 0 ? n_rec : 1), sizeof(vs_dihedrals));
        for (int64_t k = 0; k < n_rec && h->dih; ++k)
            dihs[k] = h->dih[rec_slot[k]];
    }
    const cudaMemcpyKind up = cudaMemcpyHostToDevice;
    if (n > 0)
        VS_CUDA_CHECK(cudaMemcpyAsync(g->bd.slot_rec, slot_rec, sizeof(int32_t) * (size_t)n, up,
                                      g->stream));
    if (n_rec > 0) {
        VS_CUDA_CHECK(cudaMemcpyAsync(g->bd.rec_slot, rec_slot, sizeof(int32_t) * (size_t)n_rec,
                                      up, g->stream));
        VS_CUDA_CHECK(cudaMemcpyAsync(g->bd.topo, recs, sizeof(vs_topo) * (size_t)n_rec, up,
                                      g->stream));
        if (dihs)
            VS_CUDA_CHECK(cudaMemcpyAsync(g->bd.dih, dihs, sizeof(vs_dihedrals) * (size_t)n_rec,
                                          up, g->stream));
    }
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream)); /* the host buffers go now */
    g->bd.n_rec = n_rec;
    free(slot_rec);
    free(rec_slot);
    free(recs);
    free(dihs);
}

void vs_gpu_topo_download(vs_gpu_state *g, vs_particles *h)
{
    if (!g->bd.on)
        return;
    const int64_t n = g->pt.n_owned, n_rec = g->bd.n_rec;
    int32_t *slot_rec = (int32_t *)malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    vs_topo *recs = (vs_topo *)malloc(sizeof(vs_topo) * (size_t)(n_rec > 0 ? n_rec : 1));
    vs_dihedrals *dihs = g->bd.dih_on ? (vs_dihedrals *)malloc(
                                            sizeof(vs_dihedrals) * (size_t)(n_rec > 0 ? n_rec : 1))
                                      : NULL;
    const cudaMemcpyKind down = cudaMemcpyDeviceToHost;
    if (n > 0)
        VS_CUDA_CHECK(cudaMemcpyAsync(slot_rec, g->bd.slot_rec, sizeof(int32_t) * (size_t)n,
                                      down, g->stream));
    if (n_rec > 0) {
        VS_CUDA_CHECK(cudaMemcpyAsync(recs, g->bd.topo, sizeof(vs_topo) * (size_t)n_rec, down,
                                      g->stream));
        if (dihs)
            VS_CUDA_CHECK(cudaMemcpyAsync(dihs, g->bd.dih, sizeof(vs_dihedrals) * (size_t)n_rec,
                                          down, g->stream));
    }
    VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    for (int64_t i = 0; i < n; ++i) {
        const int32_t r = slot_rec[i];
        if (r >= 0) {
            h->topo[i] = recs[r];
        } else {
            memset(&h->topo[i], 0, sizeof(vs_topo));
        }
        if (dihs && h->dih) {
            if (r >= 0)
                h->dih[i] = dihs[r];
            else
                memset(&h->dih[i], 0, sizeof(vs_dihedrals));
        }
    }
    free(slot_rec);
    free(recs);
    free(dihs);
}

/* Record words of the selected slots' records, in slot order, into the spare buffers: thread
 * (k, w) copies word w of the k-th record, so a warp reads consecutive words. */
__global__ void topo_gather_kernel(int64_t n_words, int words, const int32_t *selected,
                                   const int32_t *slot_rec, const uint64_t *from, uint64_t *to)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n_words)
        return;
    const int64_t k = t / words, w = t % words;
    const int32_t r = slot_rec[selected[k]];
    to[k * words + w] = from[(int64_t)r * words + w];
}

__global__ void topo_relink_kernel(int n, const int32_t *selected, int32_t *slot_rec,
                                   int32_t *rec_slot)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int32_t s = selected[k];
    slot_rec[s] = k;
    rec_slot[k] = s;
}

struct vs_has_record {
    const int32_t *slot_rec;
    __device__ bool operator()(int32_t i) const { return slot_rec[i] >= 0; }
};

void vs_gpu_topo_compact(vs_gpu_state *g, int n)
{
    if (!g->bd.on)
        return;
    int32_t *selected = (int32_t *)g->sort.idx_in; /* free once the arrays are permuted */
    int32_t *h = (int32_t *)g->red.h_pinned;
    h[0] = 0;
    if (n > 0) {
        const vs_has_record pred = {g->bd.slot_rec};
        VS_CUDA_CHECK(cub::DeviceSelect::If(g->sort.cub_temp, g->sort.cub_temp_bytes,
                                            thrust::counting_iterator<int32_t>(0), selected,
                                            g->halo.d_select_count + 3, n, pred, g->stream));
        VS_CUDA_CHECK(cudaMemcpyAsync(h, g->halo.d_select_count + 3, sizeof(int32_t),
                                      cudaMemcpyDeviceToHost, g->stream));
        VS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    }
    const int count = h[0];
    if (count > 0) {
        const int tw = (int)(sizeof(vs_topo) / sizeof(uint64_t));
        const int64_t nt = (int64_t)count * tw;
        topo_gather_kernel<<<(unsigned)((nt + VS_BLOCK - 1) / VS_BLOCK), VS_BLOCK, 0,
                             g->stream>>>(nt, tw, selected, g->bd.slot_rec,
                                          (const uint64_t *)g->bd.topo,
                                          (uint64_t *)g->bd.topo_spare);
        VS_CUDA_CHECK(cudaGetLastError());
        if (g->bd.dih_on) {
            const int dw = (int)(sizeof(vs_dihedrals) / sizeof(uint64_t));
            const int64_t nd = (int64_t)count * dw;
            topo_gather_kernel<<<(unsigned)((nd + VS_BLOCK - 1) / VS_BLOCK), VS_BLOCK, 0,
                                 g->stream>>>(nd, dw, selected, g->bd.slot_rec,
                                              (const uint64_t *)g->bd.dih,
                                              (uint64_t *)g->bd.dih_spare);
            VS_CUDA_CHECK(cudaGetLastError());
        }
        VS_LAUNCH(topo_relink_kernel, count, VS_BLOCK, g->stream, count, selected,
                  g->bd.slot_rec, g->bd.rec_slot);
    }
    vs_topo *t = g->bd.topo;
    g->bd.topo = g->bd.topo_spare;
    g->bd.topo_spare = t;
    vs_dihedrals *d = g->bd.dih;
    g->bd.dih = g->bd.dih_spare;
    g->bd.dih_spare = d;
    g->bd.n_rec = count;
}

void vs_gpu_topo_free(vs_gpu_state *g)
{
    void *ptrs[] = {g->bd.topo, g->bd.topo_spare, g->bd.dih, g->bd.dih_spare, g->bd.rec_slot,
                    g->bd.slot_rec};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k)
        if (ptrs[k])
            cudaFree(ptrs[k]);
}
