#!/usr/bin/env python3
"""Bond lengths and chain sizes of a Kremer-Grest melt from Vesica's traj.h5md.

Usage: kg_analysis.py RUN_DIR [--skip T] [--png FILE] [--json FILE]

Reads RUN_DIR/traj.h5md (positions, image counts, ids, the box and /connectivity/bonds),
unwraps the positions with the image counts, and per frame computes every bond length and
the squared end-to-end distance R^2 of each linear chain (a chain: the beads of one
/particles/all/molecule value, in id order; its ends are the beads with one bond). Prints the
mean bond length <b>, the root-mean-square <b^2>^(1/2), the longest bond of any frame, and
<R^2>/(N - 1) over the frames at t >= --skip, with the standard error of the mean over
blocks of frames. --png draws the bond-length histogram and <R^2>/(N - 1) against time.
"""
import argparse
import json
import os
import sys

import h5py
import numpy as np


def load(path):
    with h5py.File(path, "r") as f:
        p = f["particles/all"]
        x = p["position/value"][()]
        img = p["image/value"][()]
        t = p["position/time"][()] if "time" in p["position"] else None
        edges = p["box/edges"]
        box = edges["value"][()] if isinstance(edges, h5py.Group) else edges[()]
        ids = p["id"][()]
        mol = p["molecule"][()]
        bonds = f["connectivity/bonds"][()]
        step = p["position/step"][()] if "step" in p["position"] else None
    box = np.asarray(box)
    if box.ndim == 3:          # (frames, 3, 3)
        box = np.array([np.diag(b) for b in box])
    elif box.ndim == 2 and box.shape == (3, 3):
        box = np.tile(np.diag(box), (len(x), 1))
    elif box.ndim == 1:
        box = np.tile(box, (len(x), 1))
    unwrapped = x + img * box[:, None, :]
    # Rows by id, so that bonds (pairs of ids) index them directly.
    order = np.argsort(ids)
    return dict(x=unwrapped[:, order], ids=ids[order], mol=mol[order], bonds=bonds,
                time=t, step=step)


def chains(d):
    """The end pairs (as row indices) and bead count of every chain."""
    deg = np.zeros(len(d["ids"]), dtype=int)
    base = d["ids"][0]
    for a, b in d["bonds"] - base:
        deg[a] += 1
        deg[b] += 1
    ends, sizes = [], []
    for m in np.unique(d["mol"]):
        rows = np.nonzero(d["mol"] == m)[0]
        e = rows[deg[rows] == 1]
        if len(e) != 2:
            raise SystemExit("molecule %d is not a linear chain" % m)
        ends.append(e)
        sizes.append(len(rows))
    return np.array(ends), np.array(sizes), base


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("--skip", type=float, default=0.0, help="time units left out of averages")
    ap.add_argument("--png")
    ap.add_argument("--json")
    a = ap.parse_args()
    d = load(os.path.join(a.run, "traj.h5md"))
    ends, sizes, base = chains(d)
    if len(set(sizes)) != 1:
        raise SystemExit("chains of different lengths: %s" % sorted(set(sizes)))
    n = int(sizes[0])
    b = d["bonds"] - base
    t = d["time"] if d["time"] is not None else np.arange(len(d["x"]), dtype=float)
    blen = np.linalg.norm(d["x"][:, b[:, 0]] - d["x"][:, b[:, 1]], axis=2)     # frames x bonds
    r2 = np.sum((d["x"][:, ends[:, 0]] - d["x"][:, ends[:, 1]]) ** 2, axis=2)   # frames x chains
    r2n = r2.mean(axis=1) / (n - 1)
    keep = t >= a.skip
    if keep.sum() < 2:
        raise SystemExit("fewer than two frames at t >= %g" % a.skip)
    blocks = np.array_split(r2n[keep], min(5, keep.sum()))
    bm = np.array([q.mean() for q in blocks])
    res = {"chains": int(len(sizes)), "beads_per_chain": n, "frames": int(len(t)),
           "frames_averaged": int(keep.sum()), "t_first": float(t[0]), "t_last": float(t[-1]),
           "bond_mean": float(blen[keep].mean()),
           "bond_rms": float(np.sqrt((blen[keep] ** 2).mean())),
           "bond_max_all_frames": float(blen.max()),
           "R2_over_Nm1": float(r2n[keep].mean()),
           "R2_over_Nm1_sem": float(bm.std(ddof=1) / np.sqrt(len(bm))) if len(bm) > 1 else None,
           "R2_over_Nm1_first_frame": float(r2n[0])}
    print("%d chains of %d beads, frames %d (t = %g .. %g), averaged over t >= %g (%d frames)" %
          (res["chains"], n, res["frames"], t[0], t[-1], a.skip, res["frames_averaged"]))
    print("bond length: mean %.4f, rms %.4f, longest in any frame %.4f (FENE R0 = 1.5)" %
          (res["bond_mean"], res["bond_rms"], res["bond_max_all_frames"]))
    print("<R^2>/(N-1): %.3f +- %.3f (block error), first frame %.3f" %
          (res["R2_over_Nm1"], res["R2_over_Nm1_sem"] or 0.0, res["R2_over_Nm1_first_frame"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    if a.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (h, r) = plt.subplots(1, 2, figsize=(10, 4))
        h.hist(blen[keep].ravel(), bins=80, density=True, color="tab:blue")
        h.axvline(res["bond_mean"], color="k", ls="--",
                  label="mean %.3f" % res["bond_mean"])
        h.axvline(0.97, color="tab:red", ls=":", label="Kremer & Grest 0.97")
        h.set_xlabel(r"bond length $b$ ($\sigma$)")
        h.set_ylabel("probability density")
        h.set_title("FENE + WCA bonds, t >= %g" % a.skip)
        h.legend()
        r.plot(t, r2n, "o-", ms=3)
        r.axhline(res["R2_over_Nm1"], color="k", ls="--",
                  label="mean over t >= %g: %.2f" % (a.skip, res["R2_over_Nm1"]))
        r.set_xlabel(r"time ($\tau$)")
        r.set_ylabel(r"$\langle R^2\rangle/(N-1)$ ($\sigma^2$)")
        r.set_title("%d chains of N = %d" % (res["chains"], n))
        r.legend()
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
