/* TEMPORARY: the colour kernel before the phased filter, for an A/B on the device. */
/* The exact energy terms of neighbour j (species sj... read here) for the trial of particle k
 * (species si) from x to y. */
__device__ __forceinline__ vs_wide old_exact_terms(const colour_args &a, int si, int j,
                                               const double x[3], const double y[3])
{
    const int cap = a.cap;
    const double xj0 = a.xs[j], xj1 = a.xs[cap + j], xj2 = a.xs[2 * cap + j];
    const int sj = a.ss[j];
    const double r2o = vs_mc_sweep_dist2(a.p.L, x, xj0, xj1, xj2);
    const double r2n = vs_mc_sweep_dist2(a.p.L, y, xj0, xj1, xj2);
    vs_wide d = 0;
    if (r2o < a.pp.reach2)
        d -= vs_mc_sweep_pair(&a.pp, a.coeff, si, sj, r2o);
    if (r2n < a.pp.reach2)
        d += vs_mc_sweep_pair(&a.pp, a.coeff, si, sj, r2n);
    return d;
}

/* A warp's candidate j (keep: the filter passes it) into the packed list; when the list is
 * nearly full or the candidates are done (last), the lanes add the exact terms of the packed
 * ones to d. */
__device__ __forceinline__ void old_pack(const colour_args &a, int *buf, int &packed, int keep, int j,
                                     int last, int lane, int si, const double x[3],
                                     const double y[3], vs_wide &d)
{
    const unsigned vote = __ballot_sync(MC_FULL, keep);
    if (keep)
        buf[packed + __popc(vote & ((1u << lane) - 1u))] = j;
    packed += __popc(vote);
    if (packed > MC_BUF - 32 || last) {
        __syncwarp();
        for (int e = lane; e < packed; e += 32)
            d += old_exact_terms(a, si, buf[e], x, y);
        packed = 0;
        __syncwarp();
    }
}

/* The colour kernel's shared memory, per warp: the neighbour cells' ranges, the packed
 * neighbours, the staged neighbourhood. */
__shared__ int os_beg[MC_WARPS][MC_MAX_NEAR], os_len[MC_WARPS][MC_MAX_NEAR];
__shared__ int os_buf[MC_WARPS][MC_BUF];
__shared__ float4 os_nb[MC_WARPS][MC_NB];

/* This lane's share of the exact energy change of a trial of particle k (slot kslot of the
 * staged neighbourhood) from x to y: the filter over the neighbours, from shared memory
 * (staged) or global memory, then the packed exact terms. */
__device__ __forceinline__ vs_wide old_trial_terms(const colour_args &a, int w, int lane, int staged,
                                               int total, int nr, int k, int kslot, int si,
                                               const double x[3], const double y[3],
                                               const float xf[3], const float yf[3],
                                               const float Lf[3])
{
    const int cap = a.cap;
    vs_wide d = 0;
    int packed = 0;
    if (staged) {
        for (int it = 0; it < total; it += 32) {
            const int slot = it + lane;
            int keep = 0, j = -1;
            if (slot < total && slot != kslot) {
                const float4 v = os_nb[w][slot];
                keep = dist2f(Lf, xf, v.x, v.y, v.z) < a.lim ||
                       dist2f(Lf, yf, v.x, v.y, v.z) < a.lim;
                j = __float_as_int(v.w);
            }
            old_pack(a, os_buf[w], packed, keep, j, it + 32 >= total, lane, si, x, y, d);
        }
    } else {
        int r = 0, q = lane;
        while (r < nr && q >= os_len[w][r])
            q -= os_len[w][r++];
        for (;;) {
            int keep = 0, j = -1;
            if (r < nr) {
                j = os_beg[w][r] + q;
                if (j != k) {
                    const float b0 = a.xf[j], b1 = a.xf[cap + j], b2 = a.xf[2 * cap + j];
                    keep = dist2f(Lf, xf, b0, b1, b2) < a.lim ||
                           dist2f(Lf, yf, b0, b1, b2) < a.lim;
                }
                q += 32;
                while (r < nr && q >= os_len[w][r])
                    q -= os_len[w][r++];
            }
            const int more = __any_sync(MC_FULL, r < nr);
            old_pack(a, os_buf[w], packed, keep, j, !more, lane, si, x, y, d);
            if (!more)
                break;
        }
    }
    return d;
}

/* One warp per active cell of the colour: the cell's trials in order. Where the cell's
 * neighbourhood (27 cells, or fewer on a grid of 2 per axis) fits MC_NB, its single-precision
 * positions are staged in shared memory once (the cell's own first, so particle k sits at
 * k - beg), and each trial's filter reads them there; else from global memory. */
__global__ void __launch_bounds__(32 * MC_WARPS) k_colour_old(colour_args a)
{
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int warp = blockIdx.x * MC_WARPS + w;
    const vs_mc_sweep_plan &p = a.p;
    const int h0 = p.nc[0] / 2, h1 = p.nc[1] / 2, h2 = p.nc[2] / 2;
    if (warp >= h0 * h1 * h2)
        return;
    const int c0 = 2 * (warp % h0) + (a.colour & 1);
    const int c1 = 2 * ((warp / h0) % h1) + ((a.colour >> 1) & 1);
    const int c2 = 2 * (warp / (h0 * h1)) + ((a.colour >> 2) & 1);
    const uint32_t cell = (uint32_t)(c0 + p.nc[0] * (c1 + p.nc[1] * c2));
    const int beg = a.start[cell], n = a.start[cell + 1] - beg;
    if (n == 0)
        return;
    int q0[3], q1[3], q2[3];
    const int n0 = vs_mc_sweep_near(&p, 0, c0, q0), n1 = vs_mc_sweep_near(&p, 1, c1, q1),
              n2 = vs_mc_sweep_near(&p, 2, c2, q2);
    const int nr = n0 * n1 * n2;
    if (lane < nr) { /* lane 0: the cell itself (vs_mc_sweep_near lists c first) */
        const int nb = q0[lane % n0] +
                       p.nc[0] * (q1[(lane / n0) % n1] + p.nc[1] * q2[lane / (n0 * n1)]);
        os_beg[w][lane] = a.start[nb];
        os_len[w][lane] = a.start[nb + 1] - a.start[nb];
    }
    __syncwarp();
    const int cap = a.cap;
    int total = 0;
    for (int r = 0; r < nr; ++r)
        total += os_len[w][r];
    const int staged = total <= MC_NB;
    if (staged) {
        for (int r = 0, base = 0; r < nr; base += os_len[w][r], ++r)
            for (int q = lane; q < os_len[w][r]; q += 32) {
                const int j = os_beg[w][r] + q;
                os_nb[w][base + q] =
                    make_float4(a.xf[j], a.xf[cap + j], a.xf[2 * cap + j], __int_as_float(j));
            }
        __syncwarp();
    }
    const float Lf[3] = {(float)p.L[0], (float)p.L[1], (float)p.L[2]};
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
        const float xf[3] = {(float)x[0], (float)x[1], (float)x[2]};
        const float yf[3] = {(float)y[0], (float)y[1], (float)y[2]};
        const vs_wide d = warp_sum(
            old_trial_terms(a, w, lane, staged, total, nr, k, k - beg, si, x, y, xf, yf, Lf));
        if (vs_mc_sweep_accept(&p, d, u)) {
            if (lane == 0) {
                for (int e = 0; e < 3; ++e) {
                    a.xs[e * cap + k] = y[e];
                    a.xf[e * cap + k] = yf[e];
                }
                if (staged)
                    os_nb[w][k - beg] = make_float4(yf[0], yf[1], yf[2], __int_as_float(k));
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

