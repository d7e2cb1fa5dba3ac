#!/usr/bin/env python3
"""The log-volume step of each box in the NPT Gibbs ensemble (gibbs_npt): tuned per box on
that box's own volume moves, during the equilibration only, and kept by checkpoints.

Usage: mc_log_volume_steps.py VESICA_BINARY WORKDIR

1. A gibbs_npt run of a dense and a dilute box with a thermo row at every tuning: each box's
   step (max_log_volume_0, max_log_volume_1) at every row equals the tuning rule applied to
   that box's counts of the rows alone (step * clamp((accepted / attempted) / target, 0.5, 2),
   at most 1), recomputed here from thermo.csv; the two steps differ; after the equilibration
   they stay fixed.
2. A checkpoint written before the steps per box (the attribute mc_log_volume_steps removed,
   the one step of mc_steps set to a value of ours) still loads: both boxes continue from that
   step, the log says so, and the rows after the restart show it in both columns.
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
except ImportError:
    print("SKIP: h5py missing")
    sys.exit(77)

TARGET = 0.5
CFG = """box = [7.0, 7.0, 7.0];
particles = 200;
seed = 23;
species = ( { name = "A"; } );
pair = ( { style = "lj"; rc = 2.5; tail = "on";
           coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );
mc = { ensemble = "gibbs_npt"; kT = 1.2; pressure = 0.1; cycles = %(cycles)d;
       equilibration = %(eq)d; tune_every = 5; target_acceptance = %(target)r;
       max_log_volume = 0.05; box2 = [12.0, 12.0, 12.0]; particles2 = 30;
       moves = { displacement = 0.6; volume = 0.2; exchange = 0.2; }; };
output = { dir = "%(dir)s"; thermo_interval = 5; checkpoint_interval = 30; };
"""


def run(binary, work, name, cycles, eq, restart=False):
    d = os.path.join(work, name)
    if not restart:
        shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(d, "run.cfg")
    with open(cfg, "w") as f:
        f.write(CFG % {"cycles": cycles, "eq": eq, "target": TARGET, "dir": d})
    cmd = [binary, "mc", cfg] + (["--restart", "latest"] if restart else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {name}: exit {p.returncode}\n{p.stderr[-2000:]}")
    with open(os.path.join(d, "thermo.csv")) as f:
        rows = list(csv.DictReader(f))
    return d, rows, p.stdout + p.stderr


def retune(step, att, acc):
    if att == 0:
        return step
    f = (acc / att) / TARGET
    f = 0.5 if f < 0.5 else (2.0 if f > 2.0 else f)
    step *= f
    return step if step < 1.0 else 1.0


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    fail = 0

    # 1. the rule per box, from the rows' own counts
    eq = 40
    _, rows, _ = run(binary, work, "tuned", 60, eq)
    steps = [0.05, 0.05]
    prev = rows[0]
    for r in rows[1:]:
        c = int(r["cycle"])
        for b in range(2):
            if c <= eq:
                att = int(r[f"volume_attempted_{b}"]) - int(prev[f"volume_attempted_{b}"])
                acc = int(r[f"volume_accepted_{b}"]) - int(prev[f"volume_accepted_{b}"])
                steps[b] = retune(steps[b], att, acc)
            got = float(r[f"max_log_volume_{b}"])
            if got != steps[b]:
                print(f"FAIL: cycle {c}: box {b}'s step {got!r}, the rule gives {steps[b]!r}")
                fail = 1
        prev = r
    if steps[0] == steps[1]:
        print(f"FAIL: both boxes ended with the step {steps[0]!r}")
        fail = 1
    print(f"steps per box follow the rule at {len(rows) - 1} rows; after the tuning "
          f"{steps[0]:.4g} (box 0) and {steps[1]:.4g} (box 1)")

    # 2. a checkpoint without the steps per box: both continue from its one step
    d, _, _ = run(binary, work, "old", 30, 20)
    ck = sorted(glob.glob(os.path.join(d, "checkpoints", "mc-*.h5")))[-1]
    shared = 0.0123
    with h5py.File(ck, "r+") as f:
        if "mc_log_volume_steps" not in f.attrs:
            print("FAIL: the checkpoint has no mc_log_volume_steps")
            fail = 1
        else:
            del f.attrs["mc_log_volume_steps"]
        s = f.attrs["mc_steps"].copy()
        s[2] = shared
        f.attrs["mc_steps"] = s
    _, rows, log = run(binary, work, "old", 40, 20, restart=True)
    if "written before the log-volume steps per box" not in log:
        print("FAIL: the restart from an old checkpoint did not say so")
        fail = 1
    after = [r for r in rows if int(r["cycle"]) > 30]
    bad = [r["cycle"] for r in after
           if float(r["max_log_volume_0"]) != shared or float(r["max_log_volume_1"]) != shared]
    if not after or bad:
        print(f"FAIL: after the old checkpoint the steps are not its {shared} (cycles {bad})")
        fail = 1
    else:
        print(f"an old checkpoint loads: both boxes continue from its step ({len(after)} rows)")
    return fail


if __name__ == "__main__":
    sys.exit(main())
