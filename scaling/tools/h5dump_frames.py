#!/usr/bin/python3
"""Rebuild small trajectories for vesicle_analysis.py from raw h5dump extracts of traj.h5md,
for machines that have HDF5's tools but no h5py (the extracts are what comes back from them).

On the machine of the run (rows are in tag order, so the molecule beads are the first rows):
  h5dump -d /particles/all/position/value -s "0,0,0" -c "FRAMES,NPOLY,3" -b LE -o poly-pos.bin traj.h5md
  h5dump -d /particles/all/position/value -s "LAST,0,0" -c "1,N,3" -b LE -o last-pos.bin traj.h5md
  h5dump -d /particles/all/species -b LE -o species.bin traj.h5md
  h5dump -d /particles/all/position/time -b LE -o time.bin traj.h5md
  h5dump -d /particles/all/position/step -b LE -o step.bin traj.h5md   (or give --dt here)
Here:
  h5dump_frames.py DIR OUT NPOLY N L [--names A,B,S] [--dt DT]
writes OUT-poly.h5 (every frame, molecule beads only) and OUT-last.h5 (the last frame, all
beads) in the layout vesicle_analysis.py reads (species names default A,B,S; cubic box L).
"""
import argparse
import os
import sys

import h5py
import numpy as np


def write(path, pos, species, times, L, names, dt):
    with h5py.File(path, "w") as f:
        g = f.create_group("particles/all")
        ds = g.create_dataset("species", data=species)
        ds.attrs["names"] = np.array([n.encode() for n in names])
        g["position/value"] = pos
        g["position/step"] = np.round(times / dt).astype(np.int64)
        g["position/time"] = times
        g["box/edges/value"] = np.tile(np.diag([L, L, L])[None], (len(times), 1, 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("out")
    ap.add_argument("npoly", type=int, help="molecule beads (the first rows)")
    ap.add_argument("n", type=int, help="all beads")
    ap.add_argument("L", type=float, help="cubic box edge")
    ap.add_argument("--names", default="A,B,S", help="species names in index order")
    ap.add_argument("--dt", type=float, help="time step, where step.bin was not extracted")
    a = ap.parse_args()
    d, out, npoly, n, L, names = a.dir, a.out, a.npoly, a.n, a.L, a.names.split(",")
    t = np.fromfile(d + "/time.bin")
    if os.path.exists(d + "/step.bin"):
        dt = float(t[-1] / np.fromfile(d + "/step.bin", dtype=np.int64)[-1])
    elif a.dt:
        dt = a.dt
    else:
        sys.exit("h5dump_frames.py: no step.bin in " + d + ": give --dt")
    sp = np.fromfile(d + "/species.bin", dtype=np.int32)
    poly = np.fromfile(d + "/poly-pos.bin").reshape(len(t), npoly, 3)
    last = np.fromfile(d + "/last-pos.bin").reshape(1, n, 3)
    write(out + "-poly.h5", poly, sp[:npoly], t, L, names, dt)
    write(out + "-last.h5", last, sp, t[-1:], L, names, dt)


if __name__ == "__main__":
    main()
