#!/usr/bin/python3
"""Transient double Poiseuille flow against the analytic series (Tang & Karniadakis, section
4.2 and figure 10; the series is eq. 10 of Sigalotti et al.), from the profiles.h5 of N Vesica
runs (different seeds) with flow.kind = "double_poiseuille" and named profile windows.

A fluid at rest at t = 0 is driven by F = g / m along the flow axis, +F where the coordinate
across (the profile axis) lies in [0, L/2), -F in [L/2, L). By symmetry the velocity vanishes
on the planes where the force changes sign, so each half of width d = L/2 is a channel with
no-slip walls; with z measured from the centre of the half,
    u(z,t) = F d^2/(8 nu) (1 - (2z/d)^2)
             - sum_n 4 (-1)^n F d^2 / (nu pi^3 (2n+1)^3) cos((2n+1) pi z/d) exp(-(2n+1)^2 pi^2 nu t/d^2)
and the upper half has the opposite sign. The theory compared with a bin is the bin average
of u over the bin, averaged over the window's sample times.

Each named window is averaged over the runs; its standard error is the spread over the runs
(std / sqrt(N)), or with one run the file's own standard error. nu comes from --nu, or from a
fit of the series to the last window (at T = 10000 the steady parabola, like viscosity.py; a
drift of the whole fluid is fitted with it). Per window the tool prints the largest
|sim - theory| / stderr; --expect-max-z Z exits 1 if any exceeds Z.

  transient.py out/transient/seed_*/profiles.h5 --g 0.001 --png transient.png --expect-max-z 5
"""
import argparse
import sys

import h5py
import numpy as np


def series(zp, t, F, nu, d, terms=200):
    """u(z, t) of one channel of width d, z from its centre (arrays broadcast)."""
    zp = np.asarray(zp, dtype=float)
    u = F * d * d / (8.0 * nu) * (1.0 - (2.0 * zp / d) ** 2)
    for n in range(terms):
        k = 2 * n + 1
        decay = np.exp(-k * k * np.pi ** 2 * nu * t / (d * d))
        if np.all(decay == 0.0):
            break  # the higher modes have decayed further still
        u = u - (4.0 * (-1) ** n * F * d * d / (nu * np.pi ** 3 * k ** 3)
                 * np.cos(k * np.pi * zp / d) * decay)
    return u


def box_profile(z, t, F, nu, L, terms=200):
    """The double Poiseuille velocity at positions z in a periodic box of length L."""
    zm = np.mod(z, L)
    lower = zm < L / 2.0
    zp = np.where(lower, zm - L / 4.0, zm - 3.0 * L / 4.0)
    return np.where(lower, 1.0, -1.0) * series(zp, t, F, nu, L / 2.0, terms)


def window_theory(centres, width, times, F, nu, L, terms=200, sub=16):
    """Bin averages (midpoint rule, sub points per bin) averaged over the sample times."""
    z = centres[:, None] + ((np.arange(sub) + 0.5) / sub - 0.5)[None, :] * width
    return np.mean([box_profile(z, t, F, nu, L, terms).mean(axis=1) for t in times], axis=0)


def sample_times(step_first, step_last, every, dt):
    first = -(-int(step_first) // every) * every
    return np.arange(first, int(step_last) + 1, every) * dt


def attr_str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def read(path, comp):
    with h5py.File(path, "r") as f:
        r = dict(axis=attr_str(f.attrs["axis"]), box=np.array(f.attrs["box"], dtype=float),
                 every=int(f.attrs["every"]), dt=float(f.attrs["dt"]),
                 width=float(f.attrs["bin_width"]),
                 centres=np.array(f["bin_centers"]),
                 s0=np.array(f["windows/step_first"]), s1=np.array(f["windows/step_last"]),
                 t0=np.array(f["windows/time_first"]), t1=np.array(f["windows/time_last"]),
                 v=np.array(f["all/velocity"])[:, :, comp],
                 e=np.array(f["all/velocity_stderr"])[:, :, comp])
    return r


def fit_nu(v, err, theory_of_nu, nu0=0.5):
    """nu (and a drift c) minimising the weighted squares; golden section in log nu after a
    scan (chi^2 is smooth and single-welled in practice)."""
    w = 1.0 / np.maximum(err, 1e-12) ** 2

    def chi2(lnu):
        th = theory_of_nu(np.exp(lnu))
        c = np.sum(w * (v - th)) / np.sum(w)
        return np.sum(w * (v - th - c) ** 2), c

    grid = np.log(nu0) + np.linspace(-4.0, 4.0, 81)
    vals = [chi2(g)[0] for g in grid]
    i = int(np.clip(np.argmin(vals), 1, len(grid) - 2))
    a, b = grid[i - 1], grid[i + 1]
    r = (np.sqrt(5.0) - 1.0) / 2.0
    for _ in range(60):
        x1, x2 = b - r * (b - a), a + r * (b - a)
        if chi2(x1)[0] < chi2(x2)[0]:
            b = x2
        else:
            a = x1
    lnu = (a + b) / 2.0
    return np.exp(lnu), chi2(lnu)[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="profiles.h5 of the runs (same windows)")
    ap.add_argument("--g", type=float, required=True, help="flow.g of the runs")
    ap.add_argument("--mass", type=float, default=1.0, help="particle mass (F = g / m)")
    ap.add_argument("--flow-axis", default="x", help="flow.axis of the runs")
    ap.add_argument("--nu", type=float, help="kinematic viscosity (default: fit the last window)")
    ap.add_argument("--terms", type=int, default=200, help="terms of the series")
    ap.add_argument("--drift", action="store_true",
                    help="subtract each window's fitted drift of the whole fluid before comparing")
    ap.add_argument("--pooled", action="store_true",
                    help="pool each window's run-to-run variance over its bins (the noise of a "
                         "homogeneous fluid is the same in every bin): a stable standard error "
                         "from as few as 2 runs")
    ap.add_argument("--png", help="write the figure (points per T, analytic curves) here")
    ap.add_argument("--expect-max-z", type=float,
                    help="exit 1 if any |sim - theory| / stderr exceeds this")
    a = ap.parse_args()
    comp = "xyz".index(a.flow_axis)
    runs = [read(p, comp) for p in a.files]
    r0 = runs[0]
    for p, r in zip(a.files, runs):
        if r["v"].shape != r0["v"].shape or not np.array_equal(r["s0"], r0["s0"]):
            sys.exit(f"transient.py: {p}: windows or bins differ from {a.files[0]}")
    if r0["axis"] == a.flow_axis:
        sys.exit("transient.py: the profile axis must be flow.across, not the flow axis")
    L = r0["box"]["xyz".index(r0["axis"])]
    F = a.g / a.mass
    centres, width = r0["centres"], r0["width"]
    nwin = r0["v"].shape[0]
    if nwin == 0:
        sys.exit("transient.py: no closed window in the files")
    times = [sample_times(r0["s0"][w], r0["s1"][w], r0["every"], r0["dt"]) for w in range(nwin)]
    V = np.stack([r["v"] for r in runs])             # [runs][windows][bins]
    N = len(runs)
    mean = V.mean(axis=0)
    if N > 1 and a.pooled:
        pooled = V.var(axis=0, ddof=1).mean(axis=1, keepdims=True)  # [windows][1]
        se = np.broadcast_to(np.sqrt(pooled / N), mean.shape).copy()
        print(f"standard errors pooled over {V.shape[2]} bins per window "
              f"({V.shape[2] * (N - 1)} degrees of freedom)")
    elif N > 1:
        se = V.std(axis=0, ddof=1) / np.sqrt(N)
    else:
        se = runs[0]["e"].copy()
        print("one run: standard errors are the file's (samples taken as independent)")

    def theory(w, nu):
        return window_theory(centres, width, times[w], F, nu, L, a.terms)

    last = nwin - 1
    if a.nu is not None:
        nu, nu_se = a.nu, 0.0
        print(f"nu = {nu:.5f} (given)")
    else:
        nu, _ = fit_nu(mean[last], se[last], lambda n: theory(last, n))
        per_run = [fit_nu(V[k, last], se[last], lambda n: theory(last, n), nu)[0]
                   for k in range(N)] if N > 1 else []
        nu_se = np.std(per_run, ddof=1) / np.sqrt(N) if N > 1 else float("nan")
        print(f"nu = {nu:.5f} +- {nu_se:.5f}  (fit of the window at t = "
              f"{times[last].mean():.2f}, error from the spread of {N} run(s))")
    worst = 0.0
    curves = []
    print(f"{'T':>10} {'samples':>8} {'drift':>10} {'max|dev|/se':>12} {'at z':>8} {'rms':>6} "
          f"{'max|dev|':>9} {'se':>8}")
    for w in range(nwin):
        th = theory(w, nu)
        wt = 1.0 / np.maximum(se[w], 1e-12) ** 2
        c = np.sum(wt * (mean[w] - th)) / np.sum(wt)
        dev = (mean[w] - th - (c if a.drift else 0.0)) / np.maximum(se[w], 1e-300)
        i = int(np.argmax(np.abs(dev)))
        worst = max(worst, abs(dev[i]))
        T = (r0["t0"][w] + r0["t1"][w]) / 2.0
        print(f"{T:10.2f} {len(times[w]):8d} {c:10.2e} {abs(dev[i]):12.2f} {centres[i]:8.2f} "
              f"{np.sqrt(np.mean(dev ** 2)):6.2f} {abs(dev[i] * se[w][i]):9.4f} "
              f"{np.median(se[w]):8.4f}")
        curves.append((T, w, c if a.drift else 0.0))
    print(f"largest deviation: {worst:.2f} standard errors ({N} run(s), {nwin} windows, "
          f"{len(centres)} bins)")
    if a.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fine = np.linspace(0.0, L, 800)
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for j, (T, w, c) in enumerate(curves):
            col = plt.cm.viridis(j / max(1, len(curves) - 1))
            ax.errorbar(centres, mean[w] - c, yerr=se[w], fmt="o", ms=3, color=col,
                        label=f"T = {T:g}")
            ax.plot(fine, np.mean([box_profile(fine, t, F, nu, L, a.terms) for t in times[w]],
                                  axis=0), "-", color=col, lw=1)
        ax.set_xlabel(f"{r0['axis']}")
        ax.set_ylabel(f"v_{a.flow_axis}")
        ax.set_title(f"transient double Poiseuille: {N} run(s), nu = {nu:.4f} (lines: series)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.png, dpi=120)
        print(f"wrote {a.png}")
    if a.expect_max_z is not None:
        ok = worst <= a.expect_max_z
        print(f"largest deviation {worst:.2f} {'within' if ok else 'ABOVE'} {a.expect_max_z}")
        sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
