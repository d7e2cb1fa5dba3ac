#!/usr/bin/env python3
"""The structure factor of a diblock melt's composition from fields.h5 (output.field_interval)
and its lamellar period, against the strong-segregation and weak-segregation predictions
(docs/validation.md, "The symmetric diblock melt").

Usage: field_lamellae.py RUN[:N:chiN] ... --b B [--from F] [--png FILE]
  RUN: a run's output.dir (holding fields.h5) or the file itself, with its chain length N
  and chi N after colons. B: the rms bond length (sqrt(3 kT / K) for harmonic bonds of
  r0 = 0). F: the fraction of the frames left out at the start (default 0.5).

For each frame psi = phi_A - phi_B on the grid; S(q) = <|psi_q|^2> / M (M vertices) over the
frames kept, as the grid has it: the cloud-in-cell spreading multiplies it by
prod_d sinc^4(q_d h / 2), which falls by 3% (h = 1) from q = 0.5 to 0.8 and so moves a peak
there by well under 1% (dividing it out would raise the grid's noise at large q above the
peak). S is averaged in shells of |q| of width 2 pi / L; the peak q* is the S-weighted mean |q| of the wave vectors within 1.5 shells
of the highest shell, and D = 2 pi / q*. Printed per run: q*, D, the share of the
fluctuation in the strongest wave vector (about 1/(modes in the peak shell) when
disordered, near 1 for one grain of lamellae), the peak height over the trough of S beyond
it (the peak's contrast), the periods of the box's wave vectors on either side of q* (a
grain of lamellae in a periodic box can only take those), and the predictions:
  strong segregation (Semenov's chain stretching with Helfand's interfacial tension
  gamma = kT rho0 a (chi/6)^(1/2)): D = (32 / (pi^2 6^(1/2)))^(1/3) a N^(2/3) chi^(1/6)
  = 1.10 a N^(1/2) (chi N)^(1/6);
  weak segregation at the mean-field order-disorder point (Leibler: q* R_g = 1.946):
  D = 3.23 R_g, R_g^2 = b^2 (N^2 - 1) / (6 N) for the bead-spring chain;
with the statistical segment a = b (Gaussian bonds). Where the run's directory holds a
checkpoint, the chains' R_g measured there and q* R_g with it are printed too.
"""
import argparse
import glob
import os
import sys

import h5py
import numpy as np


def structure_factor(path, skip):
    with h5py.File(path, "r") as f:
        frames = int(f["VTKHDF/Steps"].attrs["NSteps"])
        h = np.asarray(f["VTKHDF"].attrs["Spacing"], dtype=float)
        first = int(skip * frames)
        if frames - first < 1:
            raise SystemExit(f"{path}: no frame to analyse ({frames} written)")
        a = f["VTKHDF/PointData/phi_A"]
        b = f["VTKHDF/PointData/phi_B"]
        steps = f["vesica/step"][first:frames]
        nz, ny, nx = a.shape[1:]
        s = np.zeros((nz, ny, nx))
        top = []
        for k in range(first, frames):
            psi = a[k] - b[k]
            psi = psi - psi.mean()
            p = np.abs(np.fft.fftn(psi)) ** 2 / psi.size
            s += p
            flat = p.ravel()
            top.append(flat.max() * 2 / flat.sum())  # +q and -q
    s /= frames - first
    q = [2 * np.pi * np.fft.fftfreq(n, d=hd) for n, hd in zip((nz, ny, nx), h[::-1])]
    qz, qy, qx = np.meshgrid(*q, indexing="ij")
    qn = np.sqrt(qx ** 2 + qy ** 2 + qz ** 2)
    box = np.array([nx, ny, nz]) * h
    return qn, s, 2 * np.pi / box.max(), float(np.mean(top)), len(steps), (nx, ny, nz), box


def measured_rg(run, n_chain, box):
    """The chains' radius of gyration in the run's newest checkpoint (molecules of n_chain
    beads, unwrapped by their image counts), or None without one."""
    ckpt = os.path.join(run, "checkpoints")
    files = sorted(glob.glob(os.path.join(ckpt, "ckpt_*.h5")),
                   key=lambda p: int(p.rsplit("_", 1)[1][:-3])) if os.path.isdir(ckpt) else []
    if not files:
        return None
    with h5py.File(files[-1], "r") as f:
        x = f["particles/position"][:] + f["particles/image"][:] * box
        mol = f["particles/molecule"][:]
    ids, counts = np.unique(mol[mol > 0], return_counts=True)
    rg2 = []
    for m in ids[counts == n_chain]:
        u = x[mol == m]
        rg2.append(np.mean(np.sum((u - u.mean(axis=0)) ** 2, axis=1)))
    return float(np.sqrt(np.mean(rg2))) if rg2 else None


def peak(qn, s, dq):
    shell = np.rint(qn / dq).astype(int)
    nshell = shell.max() + 1
    sums = np.bincount(shell.ravel(), weights=s.ravel(), minlength=nshell)
    counts = np.bincount(shell.ravel(), minlength=nshell)
    mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    mean[0] = np.nan
    top = int(np.nanargmax(mean))
    near = (np.abs(qn - top * dq) <= 1.5 * dq) & (qn > 0)
    qstar = float(np.sum(qn[near] * s[near]) / np.sum(s[near]))
    valid = np.isfinite(mean)
    centres = np.arange(nshell) * dq
    floor = float(np.nanmin(mean[: 3 * top + 1]))  # the trough beyond the peak
    # the box's wave vectors nearest q*: the periods a grain of lamellae can take
    allowed = np.unique(np.round(qn[qn > 0], 9))
    below = allowed[allowed <= qstar]
    above = allowed[allowed > qstar]
    near = (2 * np.pi / below.max() if below.size else np.inf,
            2 * np.pi / above.min() if above.size else 0.0)
    return qstar, centres[valid], mean[valid], float(mean[top]) / floor, near


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--b", type=float, required=True)
    ap.add_argument("--from", dest="skip", type=float, default=0.5)
    ap.add_argument("--png")
    a = ap.parse_args()
    rows = []
    curves = []
    for spec in a.runs:
        parts = spec.split(":")
        path, n_chain, chin = parts[0], int(parts[1]), float(parts[2])
        run = path if os.path.isdir(path) else os.path.dirname(path)
        if os.path.isdir(path):
            path = os.path.join(path, "fields.h5")
        qn, s, dq, share, used, n, box = structure_factor(path, a.skip)
        rg_run = measured_rg(run, n_chain, box)
        qstar, centres, mean, contrast, near = peak(qn, s, dq)
        chi = chin / n_chain
        rg = a.b * np.sqrt((n_chain ** 2 - 1) / (6.0 * n_chain))
        d_ssl = (32.0 / (np.pi ** 2 * np.sqrt(6.0))) ** (1 / 3) * a.b * n_chain ** (2 / 3) \
            * chi ** (1 / 6)
        d_wsl = 2 * np.pi * rg / 1.946
        rows.append((spec, n_chain, chin, used, qstar, 2 * np.pi / qstar, d_ssl, d_wsl, rg,
                     share, contrast, near, rg_run))
        curves.append((f"N = {n_chain}, chi N = {chin:g}, box {box[0]:g}", centres, mean, rg))
    print("run | N | chi N | frames | q* | D = 2 pi / q* | box periods around D | "
          "D strong-segr. | D weak-segr. (3.23 R_g) | R_g ideal | R_g measured | q* R_g "
          "(measured) | strongest mode's share | peak / trough")
    for r in rows:
        print(f"{r[0]} | {r[1]} | {r[2]:g} | {r[3]} | {r[4]:.3f} | {r[5]:.2f} | "
              f"{r[11][1]:.2f}, {r[11][0]:.2f} | {r[6]:.2f} | {r[7]:.2f} | {r[8]:.2f} | "
              + (f"{r[12]:.2f} | {r[4] * r[12]:.2f}" if r[12] else "- | -")
              + f" | {r[9]:.2f} | {r[10]:.1f}")
    if a.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        for (label, centres, mean, rg), r in zip(curves, rows):
            line, = ax.plot(centres * rg, mean, "-o", ms=3, label=f"{label}: D = {r[5]:.1f}")
            ax.axvline(r[4] * rg, color=line.get_color(), lw=0.6, ls=":")  # its q*
        ax.axvline(1.946, color="k", lw=0.8, ls="--", label="Leibler q* R_g = 1.946")
        ax.set_yscale("log")
        ax.set_xlim(0, 8)
        ax.set_xlabel("q R_g (ideal R_g of the chain)")
        ax.set_ylabel("S(q) of phi_A - phi_B, shell average")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(a.png, dpi=120)
        print(f"{a.png} written")


if __name__ == "__main__":
    sys.exit(main())
