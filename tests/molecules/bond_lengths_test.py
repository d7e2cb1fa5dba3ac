#!/usr/bin/env python3
"""scaling/tools/bond_lengths.py on a run whose answer is known: at step 0 every bond of
tests/molecules/wide_bonds.cfg has the template's build length 1.5 (each chain is a random
walk of steps of that length, started anywhere in the box, so many bonds cross the periodic
boundary: their minimum image must give 1.5 too). A later frame is checked against the
longest bond recomputed here from the unwrapped positions (position + image * box).

Usage: bond_lengths_test.py VESICA WORKDIR. Exit 0 on success, 77 without h5py or numpy.
"""
import os
import subprocess
import sys

try:
    import h5py
    import numpy as np
except ImportError:
    print("skip: h5py or numpy missing")
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
tool = os.path.join(here, "..", "..", "scaling", "tools", "bond_lengths.py")


def main():
    vesica, work = sys.argv[1], sys.argv[2]
    out = os.path.join(work, "run")
    subprocess.run([vesica, "run", os.path.join(here, "wide_bonds.cfg"), "--set",
                    f"output.dir={out}", "--set", "integrator.steps=20", "--set",
                    "output.trajectory_interval=20"], check=True, stdout=subprocess.DEVNULL)
    traj = os.path.join(out, "traj.h5md")
    rows = subprocess.run([sys.executable, tool, traj], check=True, capture_output=True,
                          text=True).stdout.splitlines()
    frames = [r.split() for r in rows if r and r[0].isdigit()]
    failures = 0
    step0 = [float(v) for v in frames[0][1:]]
    if frames[0][0] != "0" or max(abs(v - 1.5) for v in step0) > 1e-9:
        print(f"FAIL step 0: longest, p99.9, mean {step0}, expected 1.5 each")
        failures += 1
    with h5py.File(traj, "r") as f:
        part = f["particles/all"]
        bonds = f["connectivity/bonds"][()]
        edges = part["box/edges"]
        box = np.diag(edges["value"][0] if "value" in edges else edges[()])
        x = part["position/value"][1] + part["image/value"][1] * box
        crossing = np.abs(part["position/value"][1][bonds[:, 1]] -
                          part["position/value"][1][bonds[:, 0]]).max(axis=1) > box.max() / 2
    longest = np.sqrt(((x[bonds[:, 1]] - x[bonds[:, 0]]) ** 2).sum(axis=1)).max()
    got = float(frames[1][1])
    if abs(got - longest) > 1e-4 or not crossing.any():
        print(f"FAIL step 20: longest {got}, unwrapped positions give {longest:.4f}; "
              f"{crossing.sum()} bonds cross the boundary")
        failures += 1
    print(f"{'FAIL' if failures else 'ok'}: step 0 all {len(bonds)} bonds 1.5; step 20 longest "
          f"{got} ({longest:.6f} unwrapped, {crossing.sum()} bonds across the boundary)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
