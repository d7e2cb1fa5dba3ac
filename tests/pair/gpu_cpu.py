#!/usr/bin/env python3
"""Pair styles on the GPU against the CPU reference, and GPU runs repeated bit for bit.

Usage: gpu_cpu.py VESICA_BINARY WORKDIR PRECISION   (double or mixed)

On an fcc lattice of 864 particles (two species, displaced by up to 0.05):
  - every pair style at once with the DPD thermostat (pair-mix.cfg), and lj alone and the
    linear-force-shifted lj alone (pair_cases.LJFS) with DPD inactive (the first pair style
    then starts the forces on the GPU), with the GPU's
    default partner search for the precision (double: Verlet list; mixed: the thread-built
    list for these reaches) and, in double, the cell list as well; in mixed, the same with
    every reach within 1.5 (pair-short.cfg, lj alone at rc 1.5), where the styles ride the
    Newton walk (beside DPD by default, alone with the cell list or the half list); each
    on 2 ranks (sharing the GPU) as well: one step of dt 1e-4 on each backend; the forces of the final
    checkpoints agree to 1e-10 of the largest force in double and 2e-5 in mixed, the
    potential energy and the pressure of thermo.csv at step 1 to 1e-10 and 1e-5 relative;
  - two GPU runs of pair-mix.cfg (300 steps) write byte-identical thermo.csv.
Exits 77 (skip) without a GPU (`vesica info`), numpy or h5py.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from vesica_env import gpu_visible  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# lj alone with every reach within 1.5 (pair_cases.LJ's coefficients otherwise)
LJ_SHORT = {("A", "A"): "epsilon = 1.0; sigma = 1.0; rc = 1.5;",
            ("A", "B"): "epsilon = 0.8; sigma = 1.1; rc = 1.4;",
            ("B", "B"): "epsilon = 1.2; sigma = 0.9; rc = 1.3;"}


def run(binary, cfg, work, name, sets, ranks=1):
    out = os.path.join(work, name)
    cmd = [binary, "run", cfg, "--set", "output.dir=" + out]
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
    with h5py.File(os.path.join(out, "checkpoints", "ckpt_1.h5"), "r") as f:
        force = f["particles/force"][:]
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
        import pair_cases
    except ImportError:
        print("skip: numpy/h5py missing")
        return 77
    os.makedirs(work, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "scaling", "tools",
                                                 "lattice_h5md.py"), "lattice.h5", "--cells",
                    "6", "--density", "0.8442", "--species", "2", "--jitter", "0.05",
                    "--seed", "2"], cwd=work, check=True, stdout=subprocess.DEVNULL)
    pair_cases.write_table(os.path.join(work, "pair.table"))
    lj_cfg = os.path.join(work, "lj.cfg")
    with open(lj_cfg, "w") as c:
        c.write(pair_cases.config(pair_cases.LJ, None, "lattice.h5", "unused", "pair.table"))
    lj_short_cfg = os.path.join(work, "lj-short.cfg")
    with open(lj_short_cfg, "w") as c:
        c.write(pair_cases.config(pair_cases.style("lj", 'shift = "on";', LJ_SHORT), None,
                                  "lattice.h5", "unused", "pair.table"))
    ljfs_cfg = os.path.join(work, "ljfs.cfg")
    with open(ljfs_cfg, "w") as c:
        c.write(pair_cases.config(pair_cases.LJFS, None, "lattice.h5", "unused", "pair.table"))
    mix_cfg = os.path.join(HERE, "pair-mix.cfg")
    short_cfg = os.path.join(HERE, "pair-short.cfg")
    one = ["integrator.steps=1", "integrator.dt=1e-4", "output.thermo_interval=1"]
    tol_f, tol_e = (1e-10, 1e-10) if prec == "double" else (2e-5, 1e-5)
    builders = ["auto", "cells"] if prec == "double" else ["auto"]
    cases = [("mix", mix_cfg, builders), ("lj", lj_cfg, builders), ("ljfs", ljfs_cfg, builders)]
    if prec == "mixed":  # the styles on the Newton walk
        cases += [("short", short_cfg, ["auto"]), ("ljshort", lj_short_cfg, ["cells", "half"])]
    failed = 0
    for name, cfg, case_builders in cases:
        cpu_f, cpu_row = step1(run(binary, cfg, work, name + "_cpu", one + ["backend=cpu"]))
        for b, ranks in [(b, 1) for b in case_builders] + [(case_builders[0], 2)]:
            gpu = run(binary, cfg, work, "%s_gpu_%s_%s_np%d" % (name, prec, b, ranks),
                      one + ["backend=gpu", "precision=" + prec, "neighbor.gpu_builder=" + b],
                      ranks)
            f, row = step1(gpu)
            df = np.abs(f - cpu_f).max() / np.abs(cpu_f).max()
            de = abs(row["potential_energy"] - cpu_row["potential_energy"]) / \
                abs(cpu_row["potential_energy"])
            dp = abs(row["pressure"] - cpu_row["pressure"]) / abs(cpu_row["pressure"])
            ok = df < tol_f and de < tol_e and dp < tol_e
            failed += not ok
            print("%-7s %s builder %-5s %d rank(s): force %.2e, energy %.2e, pressure %.2e  %s"
                  % (name, prec, b, ranks, df, de, dp, "ok" if ok else "FAIL"))
    rows = []
    for k in (1, 2):
        out = run(binary, mix_cfg, work, "repro%d_%s" % (k, prec),
                  ["backend=gpu", "precision=" + prec])
        rows.append(open(os.path.join(out, "thermo.csv")).read())
    same = rows[0] == rows[1]
    failed += not same
    print("two GPU runs (%s, 300 steps): thermo.csv %s" % (prec, "identical" if same
                                                              else "DIFFERS: FAIL"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
