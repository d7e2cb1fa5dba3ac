#!/usr/bin/env python3
"""The Monte Carlo trajectory (traj.h5md, io/h5md_mc.c) against the run's own other outputs
and an independent reading of the H5MD layout.

Usage: mc_trajectory.py VESICA_BINARY WORKDIR

1. A short LJ Gibbs run (transfers change both boxes' counts) with a frame every 10 cycles:
   the H5MD header; per box and frame the cycle, the particle count against thermo.csv's
   n_b of the same cycle (and the particle_number observable), the rows 0..n-1 holding
   distinct ids in increasing order, valid species and positions inside [0, L) of the
   frame's edges (against thermo.csv's volume_b), the rows beyond n the fill values (NaN,
   -1); every id in exactly one box per frame; the last frame's particles equal to the final
   checkpoint's (positions, species, tags), rows matched by tag.
2. The same run stopped at cycle 30 and continued with --restart latest: the trajectory has
   the same frames and every dataset the same values as the run straight through.
Exit 77 without numpy or h5py.
"""
import csv
import glob
import os
import shutil
import subprocess
import sys

try:
    import h5py
    import numpy as np
except ImportError:
    print("SKIP: numpy or h5py missing")
    sys.exit(77)

CFG = """box = [8.0, 8.0, 8.0];
particles = 300;
seed = 17;
species = ( { name = "A"; mass = 1.0; fraction = 0.7; }, { name = "B"; mass = 1.0; fraction = 0.3; } );
pair = ( { style = "lj"; rc = 2.5; tail = "on";
           coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; };
                           B = { epsilon = 1.0; sigma = 1.0; }; };
                     B = { B = { epsilon = 1.0; sigma = 1.0; }; }; }; } );
mc = { ensemble = "gibbs"; kT = 1.0; cycles = 60; equilibration = 20;
       box2 = [11.0, 11.0, 11.0]; particles2 = 40;
       moves = { displacement = 0.7; volume = 0.02; exchange = 0.28; }; };
output = { dir = "%s"; thermo_interval = 10; trajectory_interval = 10;
           checkpoint_interval = 30; };
"""


def run(binary, work, name, cycles, restart=False):
    d = os.path.join(work, name)
    if not restart:
        shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(d, "run.cfg")
    with open(cfg, "w") as f:
        f.write(CFG % d)
    cmd = [binary, "mc", cfg, "--set", f"mc.cycles={cycles}"] + (
        ["--restart", "latest"] if restart else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {name}: exit {p.returncode}\n{p.stderr[-2000:]}")
    return d


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o[()]) if isinstance(o, h5py.Dataset)
                     else None)
    return out


def check_frames(d, fails):
    rows = {int(r["cycle"]): r for r in csv.DictReader(open(os.path.join(d, "thermo.csv")))}
    with h5py.File(os.path.join(d, "traj.h5md"), "r") as f:
        if list(f["h5md"].attrs["version"]) != [1, 1]:
            fails.append("h5md version")
        if f["h5md/creator"].attrs["name"] != b"Vesica" and \
                f["h5md/creator"].attrs["name"] != "Vesica":
            fails.append("creator")
        steps = f["particles/box0/position/step"][()]
        if list(steps) != list(range(0, 61, 10)):
            fails.append(f"frame cycles {list(steps)}")
        for t, cycle in enumerate(steps):
            seen = []
            for b in (0, 1):
                p = f[f"particles/box{b}"]
                n = int(rows[int(cycle)][f"n_{b}"])
                if int(f[f"observables/box{b}/particle_number/value"][t]) != n:
                    fails.append(f"cycle {cycle} box {b}: particle_number")
                ids = p["id/value"][t]
                x = p["position/value"][t]
                sp = p["species/value"][t]
                L = np.diag(p["box/edges/value"][t])
                if abs(np.prod(L) / float(rows[int(cycle)][f"volume_{b}"]) - 1) > 1e-12:
                    fails.append(f"cycle {cycle} box {b}: edges against the volume")
                if (ids[:n] < 0).any() or not (np.diff(ids[:n]) > 0).all():
                    fails.append(f"cycle {cycle} box {b}: ids of the first {n} rows")
                if (ids[n:] != -1).any() or (sp[n:] != -1).any() or \
                        not np.isnan(x[n:]).all():
                    fails.append(f"cycle {cycle} box {b}: rows beyond {n} not filled")
                if ((sp[:n] < 0) | (sp[:n] > 1)).any():
                    fails.append(f"cycle {cycle} box {b}: species")
                if ((x[:n] < 0) | (x[:n] >= L)).any():
                    fails.append(f"cycle {cycle} box {b}: a position outside the box")
                seen.extend(ids[:n])
            if len(seen) != len(set(seen)):
                fails.append(f"cycle {cycle}: an id in both boxes")
        ck = sorted(glob.glob(os.path.join(d, "checkpoints", "mc-*.h5")))[-1]
        with h5py.File(ck, "r") as c:
            for b in (0, 1):
                tag = c[f"box{b}/tag"][()]
                order = np.argsort(tag)
                n = len(tag)
                p = f[f"particles/box{b}"]
                if not (np.array_equal(p["id/value"][-1][:n], tag[order]) and
                        np.array_equal(p["position/value"][-1][:n],
                                       c[f"box{b}/position"][()][order]) and
                        np.array_equal(p["species/value"][-1][:n],
                                       c[f"box{b}/species"][()][order])):
                    fails.append(f"box {b}: the last frame is not the final checkpoint")
        counts = [[int(f[f"observables/box{b}/particle_number/value"][t]) for t in
                   range(len(steps))] for b in (0, 1)]
    return counts


def main():
    binary, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    fails = []
    one = run(binary, work, "straight", 60)
    counts = check_frames(one, fails)
    if len(set(counts[1])) < 2:
        fails.append(f"box 1's count never changed ({counts[1]}): the test needs transfers")
    two = run(binary, work, "legs", 30)
    run(binary, work, "legs", 60, restart=True)
    a, b = datasets(os.path.join(one, "traj.h5md")), datasets(os.path.join(two, "traj.h5md"))
    if sorted(a) != sorted(b):
        fails.append("the restarted trajectory has other datasets")
    for k in a:
        if k in b and not np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f"):
            fails.append(f"restart: {k} differs")
    if fails:
        print("\n".join("FAIL: " + s for s in fails))
        sys.exit(1)
    print(f"ok: 7 frames of two boxes (box 0: {counts[0]}, box 1: {counts[1]} particles), "
          "consistent with thermo.csv and the checkpoint; the restart at cycle 30 gives the "
          "same file")


if __name__ == "__main__":
    main()
