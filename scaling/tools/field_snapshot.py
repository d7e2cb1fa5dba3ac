#!/usr/bin/env python3
"""Draw a frame of fields.h5 (output.field_interval; docs/file-formats.md): a slice of one
species' density fraction phi through the box and its laterally averaged profile.

Usage: field_snapshot.py FIELDS_H5 OUTDIR [--frame F] [--species A] [--axis x|y|z]
  F: the frame (index, negative from the end; default the last). The profile runs along
  --axis, averaged over the other two; by default the axis along which the profile varies
  most (a lamellar phase's normal, when it lies along an axis). The slice is the plane through
  the box's middle that contains the profile's axis and the axis along which phi varies
  second most. With several frames the right panel also shows the profile of the first frame
  (thin). Writes OUTDIR/field_snapshot.png (--png FILE to choose) and prints what it drew.
"""
import argparse
import os

import h5py
import numpy as np

AXES = "xyz"


def load(path, species, frame):
    with h5py.File(path, "r") as f:
        frames = int(f["VTKHDF/Steps"].attrs["NSteps"])
        if frames == 0:
            raise SystemExit(f"{path}: no frame written yet")
        names = [n.decode() if isinstance(n, bytes) else str(n)
                 for n in f["vesica"].attrs["species"]]
        h = np.asarray(f["VTKHDF"].attrs["Spacing"], dtype=float)
        k = frame if frame >= 0 else frames + frame
        if not 0 <= k < frames:
            raise SystemExit(f"{path}: frame {frame} of {frames}")
        phi = {n: f[f"VTKHDF/PointData/phi_{n}"][k] for n in names}  # [z, y, x]
        step = int(f["vesica/step"][k])
        first = {n: f[f"VTKHDF/PointData/phi_{n}"][0] for n in names} if frames > 1 else None
    if species not in phi:
        raise SystemExit(f"{path}: no species {species!r} (has {', '.join(phi)})")
    return phi, first, h, step, k, frames


def profile(a, axis):
    """The average of a [z, y, x] array over the two axes other than `axis` (0 = x)."""
    other = tuple(2 - d for d in range(3) if d != axis)
    return a.mean(axis=other)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fields")
    ap.add_argument("outdir")
    ap.add_argument("--frame", type=int, default=-1)
    ap.add_argument("--species", default="A")
    ap.add_argument("--axis", choices=list(AXES))
    ap.add_argument("--png")
    a = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    phi, first, h, step, k, frames = load(a.fields, a.species, a.frame)
    p = phi[a.species]
    spread = [profile(p, d).std() for d in range(3)]
    axis = AXES.index(a.axis) if a.axis else int(np.argmax(spread))
    second = max((d for d in range(3) if d != axis), key=lambda d: spread[d])
    normal = 3 - axis - second  # the slice's normal
    mid = p.shape[2 - normal] // 2
    sl = np.take(p, mid, axis=2 - normal)  # 2-D, axes ordered as the remaining [z, y, x]
    rest = [d for d in (2, 1, 0) if d != normal]  # array axes order, as box axes
    if rest[0] != second:  # rows along `second`, columns along `axis`
        sl = sl.T
    n = p.shape[::-1]
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 4.2),
                                   gridspec_kw={"width_ratios": [1.0, 1.3]})
    im = ax0.imshow(sl, origin="lower", cmap="RdBu_r", vmin=0.0,
                    vmax=max(1.0, float(sl.max())),
                    extent=[0, n[axis] * h[axis], 0, n[second] * h[second]])
    ax0.set_xlabel(AXES[axis])
    ax0.set_ylabel(AXES[second])
    ax0.set_title(f"phi_{a.species}, plane {AXES[normal]} = {mid * h[normal]:g}", fontsize=9)
    fig.colorbar(im, ax=ax0, shrink=0.85)
    x = np.arange(n[axis]) * h[axis]
    total = sum(phi.values())
    for name, arr in phi.items():
        ax1.plot(x, profile(arr, axis), "-o", ms=3, label=f"phi_{name}")
        if first is not None and name == a.species:
            ax1.plot(x, profile(first[name], axis), "-", lw=0.7, color="0.5",
                     label=f"phi_{name}, first frame")
    ax1.plot(x, profile(total, axis), "k--", lw=0.8, label="sum")
    ax1.set_xlabel(AXES[axis])
    ax1.set_ylabel(f"phi averaged over the {AXES[second]}{AXES[normal]} planes")
    ax1.set_title(f"step {step} (frame {k + 1} of {frames})", fontsize=9)
    ax1.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(a.outdir, exist_ok=True)
    out = a.png or os.path.join(a.outdir, "field_snapshot.png")
    fig.savefig(out, dpi=120)
    prof = profile(p, axis)
    print(f"{out}: step {step}, phi_{a.species} profile along {AXES[axis]}: min "
          f"{prof.min():.3f} max {prof.max():.3f} (per-axis profile spreads "
          + ", ".join(f"{AXES[d]} {spread[d]:.3f}" for d in range(3)) + ")")


if __name__ == "__main__":
    main()
