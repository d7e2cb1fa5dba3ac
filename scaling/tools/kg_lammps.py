#!/usr/bin/env python3
"""The Kremer-Grest melt's bond lengths and pressure in LAMMPS, from Vesica's own last frame.

Usage: kg_lammps.py RUN_DIR WORK [--time 200] [--skip 20] [--vesica-skip 500] [--K 30]
                    [--json FILE] [--check]

Kremer & Grest give the mean bond length to two digits only (0.97), too coarse to tell a
slightly wrong FENE bond. LAMMPS (an independent code) runs the same model from the last frame
of Vesica's RUN_DIR/traj.h5md (positions, image counts, bonds): pair lj/cut at 2^(1/6) shifted
(WCA) between all pairs, bond fene with its own WCA part between bonded beads (K, R0 = 1.5,
eps = sigma = 1) and special_bonds fene (no second WCA for 1-2 pairs), so every pair feels
WCA once and every bond FENE once, as in configs/kremer-grest.cfg; fix langevin T = 1 with
damp 2 (gamma = 0.5), dt = 0.01, --time tau, the first --skip tau dropped. Printed: LAMMPS's
mean bond length, <b^2>^(1/2) and pressure with standard errors from the autocorrelation
time (rows every 0.5 tau), and, beside them, Vesica's from kg_analysis.py over RUN_DIR. The
bond lengths and the pressure relax in a few tau (local quantities); the chain sizes are not
compared here (they relax slowly and LAMMPS starts from Vesica's chains). --check exits 1
when the mean bond length, the rms bond length or P differ by more than 4 combined standard
errors (a FENE K of 20 instead of 30 moves the mean bond length by about 300 of them).

Needs the lammps python module ($LAMMPS_PYTHON, tests/support/lammps_env.py); exits 77 without.
"""
import argparse
import json
import os
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "support"))
from lammps_env import LAMMPS_PYTHON, lammps_env  # noqa: E402
import kg_analysis  # noqa: E402

LAMMPS_SCRIPT = r'''
import sys
import numpy as np
from lammps import lammps
data, out, K = sys.argv[1], sys.argv[2], float(sys.argv[3])
steps, seed = int(sys.argv[4]), int(sys.argv[5])
l = lammps(cmdargs=["-log", "none", "-screen", "none"])
for c in ["units lj", "atom_style bond", "boundary p p p", "read_data " + data,
          "mass 1 1.0", "pair_style lj/cut 1.122462048309373", "pair_modify shift yes",
          "pair_coeff 1 1 1.0 1.0", "bond_style fene", "bond_coeff 1 %r 1.5 1.0 1.0" % K,
          "special_bonds fene", "neighbor 0.4 bin", "neigh_modify every 1 delay 0 check yes",
          "timestep 0.01", "fix 1 all nve", "fix 2 all langevin 1.0 1.0 2.0 %d" % seed,
          "compute bl all bond/local dist", "compute bm all reduce ave c_bl inputs local",
          "thermo_style custom step temp press c_bm",
          "thermo 50", "run 0"]:
    l.command(c)
rows = []
for _ in range(steps // 50):
    l.command("run 50 pre no post no")
    bl = np.array(l.numpy.extract_compute("bl", 2, 1))
    rows.append((l.get_thermo("step") * 0.01, l.get_thermo("temp"), l.get_thermo("press"),
                 bl.mean(), np.sqrt((bl ** 2).mean()), bl.max()))
np.save(out, np.array(rows))
'''


def write_data(run, path):
    with h5py.File(os.path.join(run, "traj.h5md"), "r") as f:
        p = f["particles/all"]
        x = p["position/value"][-1]
        img = p["image/value"][-1]
        ids = p["id"][()]
        ids = ids[-1] if ids.ndim == 2 else ids
        mol = p["molecule"][()]
        mol = mol[-1] if mol.ndim == 2 else mol
        edges = p["box/edges"]
        box = np.asarray(edges["value"][-1] if isinstance(edges, h5py.Group) else edges[()])
        bonds = f["connectivity/bonds"][()]
    box = np.diag(box) if box.ndim == 2 else box
    tag = {int(i): k + 1 for k, i in enumerate(ids)}     # LAMMPS atom ids 1..n
    with open(path, "w") as d:
        d.write("vesica kremer-grest last frame\n\n%d atoms\n%d bonds\n1 atom types\n"
                "1 bond types\n\n" % (len(x), len(bonds)))
        for k, n in enumerate("xyz"):
            d.write("0 %r %slo %shi\n" % (float(box[k]), n, n))
        d.write("\nAtoms # bond\n\n")
        for k in range(len(x)):
            d.write("%d %d 1 %r %r %r %d %d %d\n" % (k + 1, mol[k] + 1, *x[k], *img[k]))
        d.write("\nBonds\n\n")
        for k, (a, b) in enumerate(bonds):
            d.write("%d 1 %d %d\n" % (k + 1, tag[int(a)], tag[int(b)]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("work")
    ap.add_argument("--time", type=float, default=200.0)
    ap.add_argument("--skip", type=float, default=20.0)
    ap.add_argument("--vesica-skip", type=float, default=500.0)
    ap.add_argument("--K", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=4711)
    ap.add_argument("--json")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    py, env = lammps_env()
    if py is None:
        print("skip: no usable LAMMPS python module at %s" % LAMMPS_PYTHON)
        return 77
    os.makedirs(a.work, exist_ok=True)
    data = os.path.join(a.work, "kg.data")
    write_data(a.run, data)
    script = os.path.join(a.work, "kg_lmp.py")
    with open(script, "w") as s:
        s.write(LAMMPS_SCRIPT)
    out = os.path.join(a.work, "kg_lammps.npy")
    steps = int(round(a.time / 0.01))
    subprocess.run([py, script, data, out, repr(a.K), str(steps), str(a.seed)], env=env,
                   check=True)
    rows = np.load(out)
    keep = rows[:, 0] >= a.skip
    lmp = {}
    for col, key in ((1, "T"), (2, "P"), (3, "bond_mean"), (4, "bond_rms")):
        m, e, tau, nb = kg_analysis.mean_err(rows[keep, col])
        lmp[key], lmp[key + "_err"] = m, e
    lmp["bond_max"] = float(rows[:, 5].max())
    ves = kg_analysis.analyse(a.run, a.vesica_skip)
    ves.pop("_plot")
    print("LAMMPS %g tau from Vesica's last frame (averaged over t >= %g), K = %g" %
          (a.time, a.skip, a.K))
    res = {"lammps": lmp, "rows": []}
    for key in ("bond_mean", "bond_rms", "P", "T"):
        d = ves[key] - lmp[key]
        err = np.hypot(ves[key + "_err"], lmp[key + "_err"])
        res["rows"].append(dict(quantity=key, vesica=ves[key], vesica_err=ves[key + "_err"],
                                lammps=lmp[key], lammps_err=lmp[key + "_err"], z=d / err))
        print("%-10s Vesica %.5f +- %.5f   LAMMPS %.5f +- %.5f   difference %+.5f (%+.1f se)" %
              (key, ves[key], ves[key + "_err"], lmp[key], lmp[key + "_err"], d, d / err))
    print("longest bond in LAMMPS %.4f" % lmp["bond_max"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    if a.check:
        bad = [r["quantity"] for r in res["rows"]
               if r["quantity"] != "T" and not abs(r["z"]) <= 4.0]
        print("FAIL: " + ", ".join(bad) if bad else "PASS")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
