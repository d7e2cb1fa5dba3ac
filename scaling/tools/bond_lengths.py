#!/usr/bin/env python3
"""The longest bonds of a run, frame by frame, from its traj.h5md.

Usage: bond_lengths.py TRAJ [--every K]

For each K-th frame: the step, the longest bond (minimum image), the 99.9th percentile and
the mean. The bonds are /connectivity/bonds (pairs of tags); rows are matched to tags through
/particles/all/id when the file has it. Use it to choose molecules' bonded.reach for a run
continued from a relaxed state (docs/history/performance-2026-11.md): the reach must stay above every bond
length the run will see, or the run stops (exit 1, naming the bond).
"""
import argparse

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traj")
    ap.add_argument("--every", type=int, default=1)
    a = ap.parse_args()
    with h5py.File(a.traj, "r") as f:
        bonds = f["connectivity/bonds"][()]
        part = f["particles/all"]
        pos, steps = part["position/value"], part["position/step"][()]
        ids = part["id"] if "id" in part else None  # fixed (rows in tag order) or per frame
        if isinstance(ids, h5py.Group):
            ids = ids["value"]
        edges = part["box/edges"]
        box = edges["value"][0] if "value" in edges else edges[()]
        box = np.diag(box) if np.ndim(box) == 2 else np.asarray(box)
        longest = 0.0
        print("step longest p99.9 mean")
        for k in range(0, len(steps), a.every):
            x = pos[k]
            if ids is not None:
                order = np.empty(len(x), dtype=np.int64)
                order[ids[k] if ids.ndim == 2 else ids[()]] = np.arange(len(x))
                x = x[order]
            d = x[bonds[:, 1]] - x[bonds[:, 0]]
            d -= box * np.round(d / box)
            r = np.sqrt((d * d).sum(axis=1))
            longest = max(longest, r.max())
            print(f"{steps[k]} {r.max():.4f} {np.percentile(r, 99.9):.4f} {r.mean():.4f}")
        print(f"# longest over the frames: {longest:.4f} ({len(bonds)} bonds)")


if __name__ == "__main__":
    main()
