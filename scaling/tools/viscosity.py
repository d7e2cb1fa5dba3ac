#!/usr/bin/python3
"""Viscosity from double Poiseuille profiles (profiles.h5 of Vesica runs with
flow.kind = "double_poiseuille").

With a force g per particle along the flow axis, +g where the coordinate across the flow lies
in [0, L/2) and -g in [L/2, L), each half holds a Poiseuille flow (Backer et al., J. Chem.
Phys. 122, 154503, 2005):
    v(x) = s(x) * A * u (L/2 - u) + c,  u = x mod L/2,  s = +1 / -1 in the lower / upper half,
with A = rho g / (2 eta) = g / (2 nu) (rho the mass density) and c a drift of the whole fluid.
Each bin's value is the bin average of the parabola. Every window of every file at or after
--skip-time is one block: a weighted least-squares fit of (A, c) per block gives nu and eta,
and the error bar is the standard error of the block values (std / sqrt(blocks)); the fit of
the mean profile of all blocks is printed too.

  viscosity.py out/backer/*/profiles.h5 --skip-time 20 --png viscosity.png
"""
import argparse
import sys

import h5py
import numpy as np


def bin_shape(edges_lo, width, L):
    """Bin averages of s(x) u (L/2 - u) (fine midpoint rule, exact enough for parabolas)."""
    k = 400
    x = edges_lo[:, None] + (np.arange(k)[None, :] + 0.5) / k * width
    half = L / 2.0
    u = np.mod(x, half)
    s = np.where(np.mod(x, L) < half, 1.0, -1.0)
    return (s * u * (half - u)).mean(axis=1)


def fit(v, err, shape):
    """Weighted least squares v = A shape + c; returns A, c, sigma_A."""
    w = 1.0 / np.maximum(err, 1e-12) ** 2
    M = np.stack([shape, np.ones_like(shape)], axis=1)
    lhs = M.T @ (M * w[:, None])
    rhs = M.T @ (w * v)
    cov = np.linalg.inv(lhs)
    a, c = cov @ rhs
    return a, c, np.sqrt(cov[0, 0])


def read(path, skip_time, until_time=float("inf")):
    with h5py.File(path, "r") as f:
        cfg = f.attrs["configuration"]
        cfg = cfg.decode() if isinstance(cfg, bytes) else str(cfg)
        axis = f.attrs["axis"]
        axis = axis.decode() if isinstance(axis, bytes) else str(axis)
        box = np.array(f.attrs["box"])
        centres = np.array(f["bin_centers"])
        t_first = np.array(f["windows/time_first"])
        t_last = np.array(f["windows/time_last"])
        v = np.array(f["all/velocity"])
        e = np.array(f["all/velocity_stderr"])
        rho = np.array(f["all/density"])
    keep = (t_first >= skip_time) & (t_last <= until_time)
    return cfg, axis, box, centres, v[keep], e[keep], rho[keep]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--g", type=float, required=True, help="flow.g of the runs")
    ap.add_argument("--flow-axis", default="z", help="flow.axis of the runs (x, y or z)")
    ap.add_argument("--mass", type=float, default=1.0, help="particle mass (one species)")
    ap.add_argument("--skip-time", type=float, default=0.0,
                    help="windows starting before this time are start-up, not used")
    ap.add_argument("--until-time", type=float, default=float("inf"),
                    help="windows ending after this time are not used (what a shorter run sees)")
    ap.add_argument("--png", help="write profile and fit here")
    ap.add_argument("--expect", help="NU_OR_ETA=VALUE:TOL, e.g. eta=2.09:0.02: exit 1 outside")
    a = ap.parse_args()
    comp = "xyz".index(a.flow_axis)
    blocks, profiles, errors, rhos = [], [], [], []
    centres = L = None
    for path in a.files:
        _, axis, box, centres, v, e, rho = read(path, a.skip_time, a.until_time)
        L = box["xyz".index(axis)]
        width = L / len(centres)
        shape = bin_shape(centres - width / 2.0, width, L)
        for w in range(v.shape[0]):
            A, c, sA = fit(v[w, :, comp], e[w, :, comp], shape)
            r = a.mass * rho[w].mean()
            blocks.append((a.g / (2.0 * A), r * a.g / (2.0 * A)))
            profiles.append(v[w, :, comp])
            errors.append(e[w, :, comp])
            rhos.append(r)
    if not blocks:
        sys.exit("viscosity.py: no window at or after --skip-time")
    blocks = np.array(blocks)
    n = len(blocks)
    nu, eta = blocks.mean(axis=0)
    se = blocks.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.array([np.nan, np.nan])
    mean_v = np.mean(profiles, axis=0)
    mean_e = np.sqrt(np.sum(np.square(errors), axis=0)) / n
    A, c, sA = fit(mean_v, mean_e, shape)
    rho_m = float(np.mean(rhos))
    print(f"blocks: {n} (windows from t >= {a.skip_time} in {len(a.files)} file(s))")
    print(f"kinematic viscosity nu = {nu:.4f} +- {se[0]:.4f}")
    print(f"dynamic viscosity  eta = {eta:.4f} +- {se[1]:.4f}  (mass density {rho_m:.4f})")
    print(f"fit of the mean profile: A = {A:.5f} +- {sA:.5f}, drift c = {c:.5f}, "
          f"eta = {rho_m * a.g / (2 * A):.4f}")
    if a.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fine = np.linspace(0, L, 600)
        half = L / 2
        u = np.mod(fine, half)
        s = np.where(fine < half, 1.0, -1.0)
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.errorbar(centres, mean_v, yerr=mean_e, fmt="o", ms=3, label="Vesica (bin means)")
        ax.plot(fine, A * s * u * (half - u) + c, "-", label=f"fit: eta = {eta:.3f} +- {se[1]:.3f}")
        ax.set_xlabel("position across the flow")
        ax.set_ylabel(f"v_{a.flow_axis}")
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.png, dpi=120)
        print(f"wrote {a.png}")
    if a.expect:
        key, rest = a.expect.split("=")
        val, tol = (float(t) for t in rest.split(":"))
        got, err = (nu, se[0]) if key == "nu" else (eta, se[1])
        ok = abs(got - val) <= tol
        print(f"{key} = {got:.4f} +- {err:.4f}: {'within' if ok else 'OUTSIDE'} {val} +- {tol}")
        sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
