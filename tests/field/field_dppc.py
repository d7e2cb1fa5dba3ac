#!/usr/bin/env python3
"""A short version of the DPPC bilayer example (configs/field-dppc.cfg; docs/validation.md,
"DPPC bilayer (MD-SCF)"): field_dppc.py VESICA OUTDIR

1. scaling/tools/dppc_bilayer.py's topology: 128 lipids of 12 beads in the order N P G G
   C C C C C C C C and 985 water beads; 11 bonds and 8 angles per lipid (1408 and 1024),
   bond type 2 only between the two G beads, every bond at its type's rest length (0.47 or
   0.37 nm) within 2.5e-3 nm (the zigzag start: 1.7e-3), angle type 2 only at P-G1-G2.
2. 600 steps of the configuration (two field updates after step 0) on the CPU: exit 0, a
   finite field_energy in every row, the kinetic temperature of the last rows within 10% of
   kT, and the bilayer still there in the last frame: the phosphate planes 3 to 5 nm apart,
   no water bead within 0.5 nm of the centre, every lipid's N bead on its starting side.
"""
import math
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
VESICA, OUT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CONFIG = os.path.join(ROOT, "configs", "field-dppc.cfg")
BUILDER = os.path.join(ROOT, "scaling", "tools", "dppc_bilayer.py")
KT = 2.68557
bad = []


def section(lines, name, count):
    i = lines.index(name)
    return [lines[i + 2 + k].split() for k in range(count)]


def topology(path):
    lines = open(path).read().split("\n")
    n = {w[1]: int(w[0]) for w in (l.split() for l in lines[1:12])
         if len(w) == 2 and w[1] in ("atoms", "bonds", "angles")}
    if n != {"atoms": 2521, "bonds": 1408, "angles": 1024}:
        bad.append(f"counts {n}, expected 2521 atoms, 1408 bonds, 1024 angles")
        return
    atoms = section(lines, "Atoms # molecular", n["atoms"])
    types = np.array([int(a[2]) for a in atoms])
    pos = np.array([[float(v) for v in a[3:6]] for a in atoms])
    lipid = np.array([1, 2, 3, 3] + [4] * 8)
    if not (np.all(types[:1536].reshape(128, 12) == lipid) and np.all(types[1536:] == 5)):
        bad.append("bead types are not 128 x (N P G G C*8) then 985 W")
    bonds = np.array([[int(v) for v in b[1:4]] for b in section(lines, "Bonds", n["bonds"])])
    r = np.linalg.norm(pos[bonds[:, 1] - 1] - pos[bonds[:, 2] - 1], axis=1)
    r0 = np.where(bonds[:, 0] == 1, 0.47, 0.37)
    gg = (types[bonds[:, 1] - 1] == 3) & (types[bonds[:, 2] - 1] == 3)
    if not (np.all((bonds[:, 0] == 2) == gg) and np.abs(r - r0).max() < 2.5e-3):
        bad.append(f"bonds: type 2 off the G-G pairs or a length off by {np.abs(r - r0).max()}")
    ang = np.array([[int(v) for v in a[1:5]] for a in section(lines, "Angles", n["angles"])])
    pgg = (types[ang[:, 1] - 1] == 2) & (types[ang[:, 3] - 1] == 3)
    if not (np.all((ang[:, 0] == 2) == pgg) and pgg.sum() == 128):
        bad.append("angle type 2 is not exactly the 128 P-G1-G2 angles")
    print(f"topology: {n['atoms']} beads, {n['bonds']} bonds, {n['angles']} angles; bond "
          f"lengths within {np.abs(r - r0).max():.1e} nm of r0")


def bilayer(d):
    with h5py.File(os.path.join(d, "traj.h5md"), "r") as f:
        g = f["particles/all"]
        sp = np.asarray(g["species"])
        z = np.asarray(g["position/value"][-1])[:, 2]
        z0 = np.asarray(g["position/value"][0])[:, 2]
        lz = float(np.asarray(g["box/edges/value"][-1])[2][2])

    def centred(zz):
        a = 2 * np.pi * zz[sp == 3] / lz
        c = (math.atan2(np.sin(a).mean(), np.cos(a).mean()) % (2 * np.pi)) * lz / (2 * np.pi)
        return ((zz - c + lz / 2) % lz) - lz / 2

    dz, dz0 = centred(z), centred(z0)
    p = dz[sp == 1]
    dpp = p[p > 0].mean() - p[p < 0].mean()
    core = int((np.abs(dz[sp == 4]) < 0.5).sum())
    flips = int((np.sign(dz[sp == 0]) != np.sign(dz0[sp == 0])).sum())
    print(f"last frame: D_PP = {dpp:.3f} nm, {core} water beads within 0.5 nm of the centre, "
          f"{flips} lipids flipped")
    if not (3.0 < dpp < 5.0 and core == 0 and flips == 0):
        bad.append("the bilayer did not hold")


os.makedirs(OUT, exist_ok=True)
data = os.path.join(OUT, "dppc.data")
subprocess.run([sys.executable, BUILDER, data], check=True, capture_output=True)
topology(data)
d = os.path.join(OUT, "run")
shutil.rmtree(d, ignore_errors=True)
cmd = [VESICA, "run", CONFIG, "--set", f'output.dir="{d}"', "--set", f'input.file="{data}"',
       "--set", "integrator.steps=600", "--set", "output.thermo_interval=100", "--set",
       "output.trajectory_interval=600", "--set", "output.field_interval=0", "--set",
       "output.checkpoint_keep=0", "--set", 'backend="cpu"']
r = subprocess.run(cmd, capture_output=True, text=True, cwd=OUT)
if r.returncode != 0:
    sys.exit(f"FAIL: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
rows = np.genfromtxt(os.path.join(d, "thermo.csv"), delimiter=",", names=True)
if not np.all(np.isfinite(rows["field_energy"])):
    bad.append("field_energy not finite")
t = rows["temperature"][-3:].mean()
print(f"field_energy {rows['field_energy'][0]:.1f} -> {rows['field_energy'][-1]:.1f} kJ/mol; "
      f"T of the last 3 rows {t:.4f} (kT {KT})")
if abs(t / KT - 1) > 0.1:
    bad.append(f"temperature {t} is not within 10% of {KT}")
bilayer(d)
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
print("PASS")
