#!/usr/bin/env python3
"""dpd.gamma per species pair on the GPU against the CPU reference.

Usage: gamma_pairs.py VESICA_BINARY WORKDIR PRECISION   (double or mixed)

tests/mpi/gamma-pairs.cfg (two species, gamma_AA 4.5, gamma_AB 1.5, gamma_BB 12):
  - one step of dt 1e-4 on the CPU and on the GPU (1 and 2 ranks; in mixed also with the
    both-sides walk, neighbor.gpu_builder = "cells", beside the default Newton walk): the
    forces of the final checkpoints agree to 1e-10 of the largest force in double and 2e-5
    in mixed; potential energy and pressure at step 1 to 1e-10 and 1e-5 relative;
  - the same with a pair style beside DPD (soft, so the styles' evaluator carries DPD's
    dissipative and random forces with gamma per pair);
  - a matrix with every entry 4.5 and the number 4.5 give byte-identical thermo.csv on the
    GPU over 100 steps (the matrix of equal entries takes the path of the number).
Exits 77 (skip) without a GPU (`vesica info`), numpy or h5py.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from vesica_env import gpu_visible  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CFG = os.path.join(HERE, "..", "mpi", "gamma-pairs.cfg")
EQUAL = "dpd.gamma={ A = { A = 4.5; B = 4.5; }; B = { A = 4.5; B = 4.5; }; }"
SOFT = ('pair=({ style = "soft"; coeff = { A = { A = { alpha = 3.0; rc = 1.0; }; '
        'B = { alpha = 5.0; rc = 1.0; }; }; B = { B = { alpha = 3.0; rc = 1.0; }; }; }; })')


def run(binary, work, name, sets, ranks=1):
    out = os.path.join(work, name)
    cmd = [binary, "run", CFG, "--set", "output.dir=" + out]
    if ranks > 1:
        cmd = ["mpiexec", "--oversubscribe", "-n", str(ranks)] + cmd
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        print(r.stdout)
        raise SystemExit("FAIL: %s exited %d" % (name, r.returncode))
    return out


def step1(out):
    import h5py
    import numpy as np
    with h5py.File(os.path.join(out, "checkpoints", "ckpt_1.h5"), "r") as f:
        order = np.argsort(f["particles/tag"][:], kind="stable")
        force = f["particles/force"][:][order]
    with open(os.path.join(out, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        row = dict(zip(head, map(float, t.readlines()[-1].split(","))))
    return force, row


def main():
    binary, work, prec = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    if not gpu_visible(binary):
        print("skip: no usable GPU")
        return 77
    try:
        import numpy as np
        import h5py  # noqa: F401
    except ImportError:
        print("skip: numpy/h5py missing")
        return 77
    os.makedirs(work, exist_ok=True)
    one = ["integrator.steps=1", "integrator.dt=1e-4", "output.thermo_interval=1"]
    tol_f, tol_e = (1e-10, 1e-10) if prec == "double" else (2e-5, 1e-5)
    builders = ["auto"] if prec == "double" else ["auto", "cells"]
    failed = 0
    for case, extra in [("dpd", []), ("soft", [SOFT])]:
        cpu_f, cpu_row = step1(run(binary, work, case + "_cpu", one + extra + ["backend=cpu"]))
        for b, ranks in [(b, 1) for b in builders] + [("auto", 2)]:
            out = run(binary, work, "%s_gpu_%s_%s_np%d" % (case, prec, b, ranks),
                      one + extra + ["backend=gpu", "precision=" + prec,
                                     "neighbor.gpu_builder=" + b], ranks)
            f, row = step1(out)
            df = np.abs(f - cpu_f).max() / np.abs(cpu_f).max()
            de = abs(row["potential_energy"] - cpu_row["potential_energy"]) / \
                abs(cpu_row["potential_energy"])
            dp = abs(row["pressure"] - cpu_row["pressure"]) / abs(cpu_row["pressure"])
            ok = df < tol_f and de < tol_e and dp < tol_e
            failed += not ok
            print("%-4s %s builder %-5s %d rank(s): force %.2e, energy %.2e, pressure %.2e  %s"
                  % (case, prec, b, ranks, df, de, dp, "ok" if ok else "FAIL"))
    rows = []
    for name, g in [("number", "dpd.gamma=4.5"), ("equal", EQUAL)]:
        out = run(binary, work, "%s_%s" % (name, prec),
                  [g, "backend=gpu", "precision=" + prec, "integrator.steps=100",
                   "output.thermo_interval=10"])
        rows.append(open(os.path.join(out, "thermo.csv")).read())
    same = rows[0] == rows[1]
    failed += not same
    print("equal matrix vs number on the GPU (%s, 100 steps): thermo.csv %s"
          % (prec, "identical" if same else "DIFFERS: FAIL"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
