/* The checkerboard sweep's colour kernel (included by gpu_mc.cu): a warp per active cell, the
 * cell's trials one after the other, its 32 lanes sharing the neighbours of each trial.
 *
 * A trial's exact energy change is a fixed-point sum over the neighbours within reach of the old
 * or the new position (mc_sweep.h). A single-precision filter finds them first, in three phases
 * with no dependence between a lane's candidates: each lane tests its share against a sphere
 * around the midpoint m of the move, of radius the reach plus a margin far above round-off plus
 * half the move (every neighbour within reach of either end is inside, by the triangle
 * inequality), and keeps a bit per candidate; a warp scan of the bit counts places the kept
 * candidates in shared memory; the lanes add the exact terms of the kept ones (candidates
 * beyond the reach add nothing on the CPU either, so the sum is the CPU's integer).
 *
 * Where the neighbourhood (27 cells) fits MC_NB, its single-precision positions are staged in
 * shared memory once per cell, the cell's own first (particle k at slot k - beg); where every
 * axis has at least 4 cells they are staged as the images nearest the cell's centre, so that
 * the filter needs no minimum image (a neighbour within reach of a point of the cell lies
 * within reach + h / 2 of the centre, at most L / 2 - h away from the image boundary). A kept
 * slot's index is found from the ranges' starts. A neighbourhood too large to stage is read from
 * global memory in chunks of 256 candidates.
 */

#define MC_IT_STAGED (MC_NB / 32) /* a lane's staged candidates at most */
#define MC_IT_GLOBAL 8            /* a lane's candidates per chunk read from global memory */

struct mc_warp_smem {
    int beg[MC_MAX_NEAR], base[MC_MAX_NEAR + 1]; /* the ranges: first index, first slot */
    float x[3][MC_NB];                           /* the staged neighbourhood, by axis */
    union {
        unsigned short slot[MC_NB]; /* staged: the kept slots */
        int j[MC_BUF];              /* from global memory: the kept indices */
    } keep;
};
__shared__ mc_warp_smem s_mc[MC_WARPS];

/* The image of v nearest the centre c along an axis of edge L (1/L: inv). */
__device__ __forceinline__ float near_image(float v, float c, float L, float inv)
{
    return v - L * rintf((v - c) * inv);
}

/* The filter's test of a candidate at (b0, b1, b2), single precision with a margin (fused
 * multiply-adds allowed): where the positions are the images nearest the cell's centre (IMG),
 * within sqrt(f.lim2) of the move's midpoint; else within sqrt(f.lim) of either end, by the
 * minimum image (a box of 2 or 3 cells along an axis). */
struct mc_filter {
    float m[3], lim2;        /* IMG: the midpoint and the squared radius */
    float x[3], y[3], lim;   /* else: the ends and the reach with its margin, squared */
    float L[3];
};

template <bool IMG>
__device__ __forceinline__ bool filter_near(const mc_filter &f, float b0, float b1, float b2)
{
    if (IMG) {
        const float d0 = b0 - f.m[0], d1 = b1 - f.m[1], d2 = b2 - f.m[2];
        return __fmaf_rn(d0, d0, __fmaf_rn(d1, d1, __fmul_rn(d2, d2))) < f.lim2;
    }
    return dist2f(f.L, f.x, b0, b1, b2) < f.lim || dist2f(f.L, f.y, b0, b1, b2) < f.lim;
}

/* A pair's energy in quanta: every active style (STYLE < 0), or the one style STYLE (a
 * constant: the call folds to its body, and the kernel keeps fewer registers). */
template <int STYLE>
__device__ __forceinline__ vs_wide pair_quanta(const colour_args &a, int si, int sj, double r2)
{
    if (STYLE < 0)
        return vs_mc_sweep_pair(&a.pp, a.coeff, si, sj, r2);
    return vs_mc_sweep_capped(vs_mc_sweep_style_energy(STYLE, &a.coeff[si * a.pp.ns + sj], r2));
}

/* The exact energy terms of neighbour j for the trial of particle k (species si) from x to y. */
template <int STYLE>
__device__ __forceinline__ vs_wide exact_terms(const colour_args &a, int si, int j,
                                               const double x[3], const double y[3])
{
    const int cap = a.cap;
    const double xj0 = a.xs[j], xj1 = a.xs[cap + j], xj2 = a.xs[2 * cap + j];
    const int sj = a.ss[j];
    const double r2o = vs_mc_sweep_dist2(a.p.L, x, xj0, xj1, xj2);
    const double r2n = vs_mc_sweep_dist2(a.p.L, y, xj0, xj1, xj2);
    vs_wide d = 0;
    if (r2o < a.pp.reach2)
        d -= pair_quanta<STYLE>(a, si, sj, r2o);
    if (r2n < a.pp.reach2)
        d += pair_quanta<STYLE>(a, si, sj, r2n);
    return d;
}

/* The index of staged slot s: its range found by bisection over the ranges' first slots. */
__device__ __forceinline__ int slot_index(const mc_warp_smem &s, int nr, int slot)
{
    int lo = 0, hi = nr; /* base[lo] <= slot < base[hi] */
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (s.base[mid] <= slot)
            lo = mid;
        else
            hi = mid;
    }
    return s.beg[lo] + slot - s.base[lo];
}

/* This lane's offset among the warp's kept candidates (a scan of the counts) and their total. */
__device__ __forceinline__ int kept_offset(int lane, int count, int *total)
{
    int inc = count;
    for (int o = 1; o < 32; o <<= 1) {
        const int v = __shfl_up_sync(MC_FULL, inc, o);
        if (lane >= o)
            inc += v;
    }
    *total = __shfl_sync(MC_FULL, inc, 31);
    return inc - count;
}

/* The exact terms of the staged neighbourhood's candidates near the move m +- half (kslot: the
 * moving particle's own slot). */
template <bool IMG, int STYLE>
__device__ __forceinline__ vs_wide staged_terms(const colour_args &a, mc_warp_smem &s, int lane,
                                                int nr, int total, int kslot, int si,
                                                const double x[3], const double y[3],
                                                const mc_filter &f)
{
    unsigned mask = 0;
    const int its = (total + 31) >> 5;
#pragma unroll 4
    for (int i = 0; i < its; ++i) {
        const int slot = lane + 32 * i;
        if (slot < total &&
            filter_near<IMG>(f, s.x[0][slot], s.x[1][slot], s.x[2][slot]) &&
            slot != kslot)
            mask |= 1u << i;
    }
    int kept;
    int off = kept_offset(lane, __popc(mask), &kept);
    while (mask) {
        const int i = __ffs(mask) - 1;
        mask &= mask - 1;
        s.keep.slot[off++] = (unsigned short)(lane + 32 * i);
    }
    __syncwarp();
    vs_wide d = 0;
    for (int e = lane; e < kept; e += 32)
        d += exact_terms<STYLE>(a, si, slot_index(s, nr, s.keep.slot[e]), x, y);
    __syncwarp();
    return d;
}

/* Candidate q of range r moved on to the range that holds it (r = nr: past the last). */
__device__ __forceinline__ void walk(const mc_warp_smem &s, int nr, int &r, int &q)
{
    while (r < nr && q >= s.base[r + 1] - s.base[r]) {
        q -= s.base[r + 1] - s.base[r];
        ++r;
    }
}

/* The same over a neighbourhood read from global memory, chunk by chunk: each lane walks the
 * ranges 32 candidates apart (r: its range, q: its place in it). */
template <bool IMG, int STYLE>
__device__ __forceinline__ vs_wide global_terms(const colour_args &a, mc_warp_smem &s, int lane,
                                                int nr, int k, int si, const double x[3],
                                                const double y[3], const mc_filter &f,
                                                const float c[3], const float inv[3])
{
    const int cap = a.cap;
    vs_wide d = 0;
    int r = 0, q = lane;
    walk(s, nr, r, q);
    while (__any_sync(MC_FULL, r < nr)) {
        int jj[MC_IT_GLOBAL];
        unsigned mask = 0;
#pragma unroll
        for (int i = 0; i < MC_IT_GLOBAL; ++i) {
            jj[i] = -1;
            if (r < nr) {
                const int j = s.beg[r] + q;
                float b[3];
                for (int e = 0; e < 3; ++e) {
                    b[e] = a.xf[e * cap + j];
                    if (IMG)
                        b[e] = near_image(b[e], c[e], f.L[e], inv[e]);
                }
                if (j != k && filter_near<IMG>(f, b[0], b[1], b[2]))
                    mask |= 1u << i;
                jj[i] = j;
                q += 32;
                walk(s, nr, r, q);
            }
        }
        int kept;
        int off = kept_offset(lane, __popc(mask), &kept);
#pragma unroll
        for (int i = 0; i < MC_IT_GLOBAL; ++i)
            if (mask >> i & 1u)
                s.keep.j[off++] = jj[i];
        __syncwarp();
        for (int e = lane; e < kept; e += 32)
            d += exact_terms<STYLE>(a, si, s.keep.j[e], x, y);
        __syncwarp();
    }
    return d;
}

/* One warp per active cell of the colour: the cell's trials in order (IMG: every axis has at
 * least 4 cells, the filter works on the images nearest the cell's centre; STYLE: the one
 * active pair style, or -1). */
template <bool IMG, int STYLE>
__global__ void __launch_bounds__(32 * MC_WARPS, STYLE < 0 ? 8 : MC_MIN_BLOCKS) k_colour(colour_args a)
{
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int warp = blockIdx.x * MC_WARPS + w;
    const vs_mc_sweep_plan &p = a.p;
    const int h0 = p.nc[0] / 2, h1 = p.nc[1] / 2, h2 = p.nc[2] / 2;
    if (warp >= (a.cells ? a.ncells : h0 * h1 * h2))
        return;
    mc_warp_smem &s = s_mc[w];
    int c0, c1, c2;
    if (a.cells) { /* a rank's own cells of the colour (a split sweep) */
        const uint32_t cl = a.cells[warp];
        c0 = (int)(cl % (uint32_t)p.nc[0]);
        c1 = (int)(cl / (uint32_t)p.nc[0] % (uint32_t)p.nc[1]);
        c2 = (int)(cl / (uint32_t)(p.nc[0] * p.nc[1]));
    } else {
        c0 = 2 * (warp % h0) + (a.colour & 1);
        c1 = 2 * ((warp / h0) % h1) + ((a.colour >> 1) & 1);
        c2 = 2 * (warp / (h0 * h1)) + ((a.colour >> 2) & 1);
    }
    const uint32_t cell = (uint32_t)(c0 + p.nc[0] * (c1 + p.nc[1] * c2));
    const int beg = a.start[cell], n = a.start[cell + 1] - beg;
    if (n == 0)
        return;
    int q0[3], q1[3], q2[3];
    const int n0 = vs_mc_sweep_near(&p, 0, c0, q0), n1 = vs_mc_sweep_near(&p, 1, c1, q1),
              n2 = vs_mc_sweep_near(&p, 2, c2, q2);
    const int nr = n0 * n1 * n2;
    int mylen = 0;
    if (lane < nr) { /* lane 0: the cell itself (vs_mc_sweep_near lists c first) */
        const int nb = q0[lane % n0] +
                       p.nc[0] * (q1[(lane / n0) % n1] + p.nc[1] * q2[lane / (n0 * n1)]);
        s.beg[lane] = a.start[nb];
        mylen = a.start[nb + 1] - a.start[nb];
    }
    int total;
    const int first = kept_offset(lane, mylen, &total);
    if (lane <= nr)
        s.base[lane] = first;
    __syncwarp();
    const float L[3] = {(float)p.L[0], (float)p.L[1], (float)p.L[2]};
    const float inv[3] = {1.0f / L[0], 1.0f / L[1], 1.0f / L[2]};
    const float c[3] = {(float)(p.off[0] + (c0 + 0.5) * p.h[0]),
                        (float)(p.off[1] + (c1 + 0.5) * p.h[1]),
                        (float)(p.off[2] + (c2 + 0.5) * p.h[2])};
    const int cap = a.cap;
    const int staged = total <= MC_NB;
    if (staged) {
        for (int slot = lane; slot < total; slot += 32) {
            const int j = slot_index(s, nr, slot);
            for (int e = 0; e < 3; ++e) {
                const float v = a.xf[e * cap + j];
                s.x[e][slot] = IMG ? near_image(v, c[e], L[e], inv[e]) : v;
            }
        }
    }
    __syncwarp();
    vs_wide sum = 0;
    long long n_acc = 0;
    double mine[2] = {0.0, 0.0};
    for (int t = 0; t < n; ++t) {
        /* lanes 0..29 draw the three parts of the next ten trials at once; every lane reads
         * the six numbers of trial t */
        if (t % 10 == 0 && lane < 30 && t + lane / 3 < n)
            vs_mc_sweep_trial_draw(&p, cell, (uint32_t)a.step, (uint32_t)(t + lane / 3),
                                   (uint32_t)(lane % 3), mine);
        double rr[6];
        const int src = 3 * (t % 10);
        for (int e = 0; e < 6; ++e)
            rr[e] = __shfl_sync(MC_FULL, mine[e & 1], src + (e >> 1));
        const int k = beg + vs_mc_sweep_pick(rr[0], n);
        const double x[3] = {a.xs[k], a.xs[cap + k], a.xs[2 * cap + k]};
        double y[3];
        vs_mc_sweep_propose(&p, rr, x, y);
        const double u = rr[4];
        if (vs_mc_sweep_cell(&p, y) != cell)
            continue; /* leaves the cell: rejected */
        const int si = a.ss[k];
        mc_filter f;
        float move2 = 0.0f;
        for (int e = 0; e < 3; ++e) {
            f.L[e] = L[e];
            f.x[e] = (float)x[e];
            f.y[e] = (float)y[e];
            if (IMG) {
                f.x[e] = near_image(f.x[e], c[e], L[e], inv[e]);
                f.y[e] = near_image(f.y[e], c[e], L[e], inv[e]);
                const float dd = f.y[e] - f.x[e];
                f.m[e] = 0.5f * (f.x[e] + f.y[e]);
                move2 = __fmaf_rn(dd, dd, move2);
            }
        }
        f.lim = a.lim;
        const float rad = a.limr + 0.5001f * sqrtf(move2);
        f.lim2 = rad * rad;
        const vs_wide d = warp_sum(
            staged ? staged_terms<IMG, STYLE>(a, s, lane, nr, total, k - beg, si, x, y, f)
                   : global_terms<IMG, STYLE>(a, s, lane, nr, k, si, x, y, f, c, inv));
        if (vs_mc_sweep_accept(&p, d, u)) {
            if (lane == 0) {
                for (int e = 0; e < 3; ++e) {
                    a.xs[e * cap + k] = y[e];
                    a.xf[e * cap + k] = (float)y[e];
                    if (staged)
                        s.x[e][k - beg] = f.y[e];
                }
            }
            sum += d;
            ++n_acc;
        }
        __syncwarp();
    }
    if (lane == 0) {
        int64_t l[3];
        vs_wide_to_limbs(sum, l);
        for (int e = 0; e < 3; ++e)
            atomicAdd(&a.acc[e], (unsigned long long)l[e]);
        atomicAdd(&a.acc[3], (unsigned long long)n_acc);
    }
}
