/* The partners of a particle for the walk that evaluates every pair from both sides
 * (gpu_both_sides.cuh: DPD in gpu_forces.cu, the conservative styles in gpu_pair.cu): its column of
 * the Verlet list, or the cell list's stencil around its position at the build. */
#ifndef VESICA_GPU_PARTNERS_CUH
#define VESICA_GPU_PARTNERS_CUH

#include "gpu_internal.cuh"

/* Where a thread finds its partners: its column of the Verlet list, or (CELLS) the cell list
 * itself, the stencil around the particle's position when the list was built (every partner
 * within r_c now was within r_c + skin then, so it sits in one of its trimmed rows). */
struct vs_partner_source {
    const int32_t *nlist, *ncount;
    int64_t stride;
    vs_gpu_grid grid;
    vs_positions built; /* positions at the last build (CELLS) */
    const uint32_t *cell_start;
    const int4 *cell_pos;   /* candidates in cell order: position at the build, index (CELLS) */
    float row_cut2;         /* stencil rows trimmed to the list radius (vs_row_cut2) */
};

/* Every candidate partner of particle i, in a fixed order (list order, or the stencil's rows
 * (yz_reach cells about) around its cell at the build, trimmed to r_c + skin
 * (vs_stencil_row), in z, y order, each row in cell-list order): visit(j, entry), entry
 * being the candidate's cell-order copy (position at the build, index; CELLS only), or with
 * PRELOAD (the list only) positions[j], the four of a list group loaded before the first is
 * visited (visited under branches, one load waited for the visit before it). Plain nested
 * loops: a resumable cursor's row change, taken by some lane of the warp on almost every
 * candidate, cost every lane. */
template <bool CELLS, bool PRELOAD = false, typename Visit>
__device__ __forceinline__ void vs_for_each_candidate(const vs_partner_source &src, int i,
                                                      Visit visit,
                                                      const int4 *positions = nullptr)
{
    static_assert(!(CELLS && PRELOAD), "the cell list's entries are its own copies");
    if (CELLS) {
        int c[3];
        float frac[3];
        double b[3];
        vs_pos_load(src.built, i, b);
        vs_cell_of(src.grid, b[0], b[1], b[2], c, frac);
        const int reach = src.grid.yz_reach;
        for (int dz = -reach; dz <= reach; ++dz) {
            for (int dy = -reach; dy <= reach; ++dy) {
                int first, last;
                if (!vs_stencil_row(src.grid, c, frac, src.row_cut2, dy, dz, &first, &last))
                    continue;
                const uint32_t end = src.cell_start[last + 1];
                for (uint32_t k = src.cell_start[first]; k < end; ++k) {
                    const int4 entry = src.cell_pos[k];
                    visit(entry.w, entry);
                }
            }
        }
    } else {
        const int count = src.ncount[i];
        const int4 *list4 = (const int4 *)src.nlist;
        /* PRELOAD: the next group's load issued before this group's visits */
        int4 next = make_int4(0, 0, 0, 0);
        if (PRELOAD && count > 0)
            next = list4[vs_list_group(src.stride, i, 0)];
        for (int m = 0; m < count; m += 4) {
            if constexpr (PRELOAD) {
                const int4 group = next;
                if (m + 4 < count)
                    next = list4[vs_list_group(src.stride, i, (m >> 2) + 1)];
                /* past the count: the first entry's again, unused */
                const int j[4] = {group.x, m + 1 < count ? group.y : group.x,
                                  m + 2 < count ? group.z : group.x,
                                  m + 3 < count ? group.w : group.x};
                int4 p[4];
#pragma unroll
                for (int u = 0; u < 4; ++u)
                    p[u] = positions[j[u]];
                visit(j[0], p[0]);
                if (m + 1 < count)
                    visit(j[1], p[1]);
                if (m + 2 < count)
                    visit(j[2], p[2]);
                if (m + 3 < count)
                    visit(j[3], p[3]);
                continue;
            }
            const int4 group = list4[vs_list_group(src.stride, i, m >> 2)];
            const int4 none = make_int4(0, 0, 0, 0);
            visit(group.x, none);
            if (m + 1 < count)
                visit(group.y, none);
            if (m + 2 < count)
                visit(group.z, none);
            if (m + 3 < count)
                visit(group.w, none);
        }
    }
}

/* The partner source of the current lists (as the DPD kernel's launcher builds it). */
static inline vs_partner_source vs_gpu_partner_source(const vs_gpu_state *g)
{
    vs_partner_source src;
    src.nlist = g->cells.nlist;
    src.ncount = g->cells.ncount;
    src.stride = g->cells.nl_stride;
    src.grid = g->cells.grid;
    /* without a skin: built from the current positions; with one, x_build holds them (fp64
     * arrays wherever the positions live) */
    src.built = vs_gpu_positions(g);
    if (g->plan.reuse_list)
        for (int d = 0; d < 3; ++d)
            src.built.x[d] = g->pt.x_build[d];
    src.cell_start = g->cells.cell_start;
    src.cell_pos = g->cells.cell_pos;
    src.row_cut2 = vs_row_cut2(g->list_cutoff);
    return src;
}

#endif
