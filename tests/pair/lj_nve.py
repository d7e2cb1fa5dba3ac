#!/usr/bin/env python3
"""Energy conservation of the LJ fluid with the DPD term inactive (CPU, or GPU with --gpu).

Usage: lj_nve.py VESICA_BINARY WORKDIR [PRECISION]   (PRECISION: cpu (default), double, mixed)

864 particles from an fcc lattice at rho* = 0.8442 with velocities at T* = 0.72, lj shifted
at rc = 2.5 (continuous energy), DPD's a = 0 and gamma = 0 so its term is inactive and the
integrator is plain velocity Verlet (lambda = 0.5): NVE. After 2 tau of melting, over the
next 18 tau (dt = 0.002, a row every 0.1 tau) the total energy K + U may fluctuate by at most
2e-5 of |E| (standard deviation) and drift by at most 2e-5 of |E| from the first to the last
quarter (measured on the CPU: 2.2e-6 and 2.6e-6): forces that were not minus the gradient of
the energy, or a pair style term that lost pairs, would heat or cool the fluid. The GPU in
double precision has the same bounds; in mixed precision (fp32 pair forces) 1e-4 and 2e-4. Exits 77 without numpy/h5py, or a GPU.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from vesica_env import gpu_visible  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main():
    binary, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    prec = sys.argv[3] if len(sys.argv) > 3 else "cpu"
    try:
        import numpy as np
        import pair_cases
    except ImportError:
        print("skip: numpy missing")
        return 77
    if prec != "cpu":
        if not gpu_visible(binary):
            print("skip: no usable GPU")
            return 77
    os.makedirs(work, exist_ok=True)
    r = subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "scaling", "tools",
                                                     "lattice_h5md.py"), "lattice.h5",
                        "--cells", "6", "--density", "0.8442"], cwd=work,
                       stdout=subprocess.DEVNULL)
    if r.returncode != 0:
        print("skip: cannot write the lattice (h5py missing?)")
        return 77
    lj = pair_cases.style("lj", 'shift = "on"; rc = 2.5;',
                          {("A", "A"): "epsilon = 1.0; sigma = 1.0;"})
    cfg = os.path.join(work, "nve.cfg")
    with open(cfg, "w") as c:
        c.write("""input = { format = "h5md"; file = "lattice.h5"; };
seed = 5;
species = ( { name = "A"; mass = 1.0; } );
dpd = { a = { A = { A = 0.0; }; }; gamma = 0.0; kT = 0.72; };
pair = ( %s );
integrator = { dt = 0.002; lambda = 0.5; steps = 10000; };
neighbor = { skin = 0.3; };
output = { dir = "out"; thermo_interval = 50; checkpoint_keep = 0; };
run = { temperature_tolerance = 0.0; };
""" % lj)
    sets = ["backend=cpu"] if prec == "cpu" else ["backend=gpu", "precision=" + prec]
    cmd = [binary, "run", cfg]
    for s in sets:
        cmd += ["--set", s]
    log = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    if log.returncode != 0:
        print(log.stdout)
        return 1
    if "Force field: lj" not in log.stdout:
        print("FAIL: the DPD term is not inactive:\n" + log.stdout)
        return 1
    with open(os.path.join(work, "out", "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        rows = np.array([list(map(float, l.split(","))) for l in t])
    col = {h: k for k, h in enumerate(head)}
    keep = rows[rows[:, col["time"]] >= 2.0]
    e = keep[:, col["kinetic_energy"]] + keep[:, col["potential_energy"]]
    q = len(e) // 4
    scale = abs(e.mean())
    fluct = e.std() / scale
    drift = abs(e[-q:].mean() - e[:q].mean()) / scale
    bound = (1e-4, 2e-4) if prec == "mixed" else (2e-5, 2e-5)
    ok = fluct < bound[0] and drift < bound[1]
    print("%s: E = %.6f, fluctuation %.2e, drift %.2e of |E| over 18 tau  %s" %
          (prec, e.mean(), fluct, drift, "ok" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
