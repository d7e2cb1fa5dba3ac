#!/usr/bin/env python3
"""Density profiles of the DPPC bilayer across its normal (configs/field-dppc.cfg).

Usage: field_dppc_profiles.py OUTDIR [--skip T] [--bin W] [--axis x|y|z] [--png FILE]

Reads OUTDIR/traj.h5md (species N, P, G, C, W; the bilayer normal along --axis, default z:
a self-assembled bilayer may lie along another) and, for every
frame at time >= T (ps; default: the second half of the run), centres the frame on the
bilayer (the circular mean of the C beads' z) and histograms each species' z - z_centre
(bins of W nm, default 0.1). Prints and writes OUTDIR/dppc_profiles.csv (number densities,
beads / nm^3, by species and bin) and OUTDIR/field_dppc.png (--png to choose): left, the
profiles; right, the phosphate-phosphate distance of each frame over the whole run.

Measured (all frames after T, mean and standard error over blocks of frames):
  D_PP  twice the mean |z - z_centre| of the P beads of each leaflet (the two phosphate
        planes' distance, the coarse-grained counterpart of the head-head distance D_HH);
  D_B   the Gibbs-Luzzati thickness, integral of (1 - phi_W) dz with phi_W the water beads'
        share of the beads in a bin, from the histograms summed over the frames (the beads
        have one volume in this model);
  A_L   2 Lx Ly / N_lipids (fixed by the box: the run is at constant volume);
  flips lipids whose N bead lies on the other side of the centre from where it started;
  core W the mean number of water beads within 1 nm of the centre.
"""
import argparse
import os

import h5py
import numpy as np

NAMES = ["N", "P", "G", "C", "W"]
COLORS = {"N": "tab:blue", "P": "tab:orange", "G": "tab:green", "C": "0.3", "W": "tab:cyan"}


def load(path):
    with h5py.File(path, "r") as f:
        g = f["particles/all"]
        names = [n.decode() if isinstance(n, bytes) else str(n)
                 for n in g["species"].attrs["names"]]
        species = np.asarray(g["species"])
        mol = np.asarray(g["molecule"])
        pos = g["position/value"]
        time = np.asarray(g["position/time"])
        edges = np.asarray(g["box/edges/value"])
        frames = [np.asarray(pos[k]) for k in range(pos.shape[0])]
    return names, species, mol, frames, time, edges


def centre(z, lz):
    """Circular mean of z on a period lz."""
    a = 2 * np.pi * z / lz
    return (np.arctan2(np.sin(a).mean(), np.cos(a).mean()) % (2 * np.pi)) * lz / (2 * np.pi)


def block_err(x, blocks=5):
    x = np.asarray(x)
    if len(x) < blocks:
        return float("nan")
    m = np.array([b.mean() for b in np.array_split(x, blocks)])
    return float(m.std(ddof=1) / np.sqrt(blocks))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--skip", type=float, default=None, help="ps; default: half the run")
    ap.add_argument("--bin", type=float, default=0.1, help="bin width, nm")
    ap.add_argument("--axis", choices=["x", "y", "z"], default="z", help="bilayer normal")
    ap.add_argument("--png", default=None)
    a = ap.parse_args()
    names, species, mol, frames, time, edges = load(os.path.join(a.outdir, "traj.h5md"))
    idx = {n: np.flatnonzero(species == names.index(n)) for n in NAMES}
    skip = time[-1] / 2 if a.skip is None else a.skip
    nlip = len(np.unique(mol[idx["N"]]))
    ax_n = "xyz".index(a.axis)
    lat = [d for d in range(3) if d != ax_n]
    lx, ly, lz = (edges[0][d][d] for d in lat + [ax_n])   # lz: along the normal
    nbin = int(np.floor(lz / a.bin))
    if nbin % 2:
        nbin -= 1
    w = lz / nbin
    hist = {n: np.zeros(nbin) for n in NAMES}
    dpp, dpp_all, db, flips, core = [], [], [], [], []
    z0 = frames[0][:, ax_n]
    zc0 = centre(z0[idx["C"]], lz)
    side0 = np.sign(((z0[idx["N"]] - zc0 + lz / 2) % lz) - lz / 2)
    used = 0
    for k, x in enumerate(frames):
        z = x[:, ax_n]
        zc = centre(z[idx["C"]], lz)
        dz = ((z - zc + lz / 2) % lz) - lz / 2   # in [-lz/2, lz/2)
        p = dz[idx["P"]]
        d = p[p > 0].mean() - p[p < 0].mean()
        dpp_all.append(d)
        if time[k] < skip:
            continue
        used += 1
        dpp.append(d)
        counts = {}
        for n in NAMES:
            c, _ = np.histogram(dz[idx[n]], bins=nbin, range=(-lz / 2, lz / 2))
            hist[n] += c
            counts[n] = c
        db.append((counts["W"], sum(counts.values())))
        flips.append(int((np.sign(dz[idx["N"]]) != side0).sum()))
        core.append(int((np.abs(dz[idx["W"]]) < 1.0).sum()))
    if used == 0:
        raise SystemExit(f"{a.outdir}: no frame at time >= {skip} ps")
    zb = -lz / 2 + (np.arange(nbin) + 0.5) * w

    def gibbs_luzzati(rows):
        cw = sum(r[0] for r in rows)
        ct = sum(r[1] for r in rows)
        return float(((1 - cw / np.maximum(ct, 1)) * (ct > 0) * w).sum())

    db_mean = gibbs_luzzati(db)
    blocks = [gibbs_luzzati([db[i] for i in b])
              for b in np.array_split(np.arange(len(db)), 5) if len(b)]
    db_err = float(np.std(blocks, ddof=1) / np.sqrt(len(blocks))) if len(blocks) > 1 else \
        float("nan")
    dens = {n: hist[n] / (used * lx * ly * w) for n in NAMES}
    with open(os.path.join(a.outdir, "dppc_profiles.csv"), "w") as f:
        f.write("z_nm," + ",".join(f"rho_{n}" for n in NAMES) + "\n")
        for i in range(nbin):
            f.write(f"{zb[i]:.4f}," + ",".join(f"{dens[n][i]:.5f}" for n in NAMES) + "\n")
    area = 2 * lx * ly / nlip
    print(f"{used} frames from t = {skip:g} ps to {time[-1]:g} ps; {nlip} lipids; "
          f"box {lx:.4f} x {ly:.4f} x {lz:.4f} nm")
    print(f"A_L   = {area:.4f} nm^2 (fixed by the box)")
    print(f"D_PP  = {np.mean(dpp):.3f} +- {block_err(dpp):.3f} nm "
          f"(start {dpp_all[0]:.3f} nm)")
    print(f"D_B   = {db_mean:.3f} +- {db_err:.3f} nm")
    print(f"peaks: " + ", ".join(f"{n} {abs(zb[np.argmax(dens[n] * (zb > 0))]):.2f}"
                                 for n in NAMES[:4]) + " nm from the centre (upper leaflet)")
    print(f"flips = {np.mean(flips):.2f} lipids per frame; core W (|z| < 1 nm) = "
          f"{np.mean(core):.2f} beads per frame")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [3, 2]})
    for n in NAMES:
        ax.plot(zb, dens[n], color=COLORS[n], label=n)
    ax.plot(zb, sum(dens.values()), color="k", lw=0.8, ls="--", label="all")
    ax.set_xlabel(f"{a.axis} - bilayer centre (nm)")
    ax.set_ylabel("beads / nm$^3$")
    ax.set_title(f"MD-SCF DPPC ({nlip} lipids, 323 K): t = {skip:g}-{time[-1]:g} ps")
    ax.legend(ncol=3, fontsize=8)
    bx.plot(time, dpp_all, color="tab:orange")
    bx.axvline(skip, color="0.6", lw=0.8, ls=":")
    bx.set_xlabel("t (ps)")
    bx.set_ylabel("P-P distance D_PP (nm)")
    bx.set_title(f"D_PP = {np.mean(dpp):.2f} nm; A_L = {area:.2f} nm$^2$")
    fig.tight_layout()
    png = a.png or os.path.join(a.outdir, "field_dppc.png")
    fig.savefig(png, dpi=120)
    print(f"wrote {png} and {os.path.join(a.outdir, 'dppc_profiles.csv')}")


if __name__ == "__main__":
    main()
