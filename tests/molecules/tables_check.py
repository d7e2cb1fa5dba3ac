#!/usr/bin/env python3
"""The table styles against the analytic forms they tabulate, and their input checks.

Usage: tables_check.py VESICA_BINARY WORKDIR

1. tests/molecules/tables.cfg is dihedrals.cfg with template 0's harmonic bond,
   cosine_squared angle and periodic dihedral replaced by tables of the same functions
   (tables/make_tables.py; steps 0.001, 0.1 and 0.1 degrees). Both run 1 step with the DPD
   forces off (a = 0, gamma = 0, kT = 0), so the checkpoint's forces are the bonded forces:
   every bead's force must agree to 1e-7 of the largest force and the bond, angle and
   dihedral energies to 1e-9 relative (the analytic styles are checked against LAMMPS by
   lammps_dihedrals.py; the splines' error at these steps is far below these bounds).
2. Bad table files stop the run with exit 2 and one line naming the key and the table file,
   before anything is written: a missing file, a line that is not two numbers, fewer than 4
   points, a non-uniform grid, an angle table not spanning 0 to 180, a dihedral table whose
   ends differ.
Exits 77 (skip) without numpy and h5py.
"""
import os
import shutil
import subprocess
import sys

try:
    import h5py
    import numpy as np
except ImportError:
    print("skip: numpy/h5py missing")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))


def bonded_only(binary, cfg, out):
    sets = ["dpd.gamma=0", "dpd.kT=0", "integrator.steps=1", "output.dir=" + out,
            "output.thermo_interval=1"]
    for a in "ABS":
        for b in "ABS":
            sets.append("dpd.a.%s.%s=0.0" % (a, b))
    cmd = [binary, "run", cfg]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with h5py.File(os.path.join(out, "checkpoints", "ckpt_1.h5"), "r") as f:
        force = f["particles/force"][:]
    with open(os.path.join(out, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        row = dict(zip(head, map(float, t.readline().split(","))))  # step 0
    return force, row


def compare(binary, work):
    ft, rt = bonded_only(binary, os.path.join(HERE, "tables.cfg"), os.path.join(work, "table"))
    fa, ra = bonded_only(binary, os.path.join(HERE, "dihedrals.cfg"),
                         os.path.join(work, "analytic"))
    fmax = np.abs(fa).max()
    worst = np.abs(ft - fa).max() / fmax
    ok = worst <= 1e-7
    print("forces: worst difference %.3e of the largest force %.4g (tolerance 1e-7)"
          % (worst, fmax))
    for key in ("bond_energy", "angle_energy", "dihedral_energy"):
        r = abs(rt[key] - ra[key]) / abs(ra[key])
        ok &= r <= 1e-9
        print("%s: table %.12g, analytic %.12g (%.2e)" % (key, rt[key], ra[key], r))
    return ok


BAD = {  # name: (which table is replaced, file text or None for a missing file, the words)
    "missing": ("bond", None, "cannot open"),
    "not_numbers": ("bond", "0 1\n0.1 x\n0.2 2\n0.3 3\n", ":2: expected two numbers"),
    "few": ("bond", "0 1\n0.1 2\n0.2 3\n", "at least 4 points"),
    # the messages give the file's line of the point at fault (comments counted), not the
    # point's index
    "uneven": ("bond", "# r E\n0 1\n0.1 2\n0.25 3\n0.3 4\n",
               ":4: expected x on a uniform grid (got 0.25"),
    "decreasing": ("bond", "# r E\n\n0 1\n0.2 2\n0.1 3\n0.3 4\n",
                   ":5: expected increasing x (got 0.1 after 0.2 on line 4)"),
    "angle_range": ("angle", "# theta E\n" + "".join("%g 1\n" % (k * 10) for k in range(18)),
                    ":19: expected the angle table to span 0 to 180"),
    "not_periodic": ("dihedral", "".join("%g %g\n" % (-180 + k * 10, k) for k in range(37)),
                     ":37: expected the energy at 180 degrees to equal that at -180 on line 1"),
}


def bad_files(binary, work):
    ok = True
    base = open(os.path.join(HERE, "tables.cfg")).read()
    for name, (which, text, words) in BAD.items():
        d = os.path.join(work, "bad_" + name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "tables"))
        for t in ("bond", "angle", "dihedral"):
            shutil.copy(os.path.join(HERE, "tables", t + ".table"), os.path.join(d, "tables"))
        path = os.path.join(d, "tables", which + ".table")
        os.remove(path)
        if text is not None:
            with open(path, "w") as f:
                f.write(text)
        cfg = os.path.join(d, "tables.cfg")
        with open(cfg, "w") as f:
            f.write(base)
        out = os.path.join(d, "out")
        p = subprocess.run([binary, "run", cfg, "--set", "output.dir=" + out],
                           capture_output=True, text=True)
        lines = [x for x in p.stderr.strip().split("\n") if x]
        key = "molecules.[0].%s.file" % which
        good = (p.returncode == 2 and len(lines) == 1 and words in lines[0] and key in lines[0]
                and path in lines[0] and not os.path.exists(out))
        ok &= good
        print("%-13s exit %d: %s%s" % (name, p.returncode, lines[0] if lines else "(nothing)",
                                      "" if good else "   <-- WRONG"))
    return ok


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    ok = compare(binary, work)
    ok &= bad_files(binary, work)
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
