#!/usr/bin/env python3
"""The LJ equation of state at a published state point (CPU, short enough for CI).

Usage: lj_eos.py VESICA_BINARY WORKDIR [STEPS]

Reference: the NIST Standard Reference Simulation Website, Lennard-Jones fluid, Monte Carlo
NVT results (https://mmlapps.nist.gov/srs/LJ_PURE/mc.htm): N = 500, the potential truncated
at r_c = 3 sigma with analytic long-range corrections, T* = 0.85, rho* = 0.86:
U*/N = -6.0305 (standard deviation 2.3e-4) and P* = 1.2660.

Vesica runs the same system (lj-eos.cfg: pair lj, rc = 3, tail = "on"; 500 particles from an
fcc lattice) for STEPS steps of dt = 0.004 (default 40000, 160 tau), thermostatted by the
DPD pair term with a = 0 (gamma = 1 within 1.5 sigma: dissipative and random forces only,
which sample the canonical ensemble). After 20 tau of melting and equilibration, the means
of the kinetic temperature, U/N and P over thermo rows every 0.2 tau, with errors from 8
blocks, must be: T within 0.01 of 0.85 (the thermostat's time-step error); U/N within 0.01
plus 3 block errors of -6.0305; P within 0.04 plus 3 block errors of 1.2660 (the
tolerances allow the residual temperature error, dU/dT ~ 2 and dP/dT ~ 6 here). Without the
tail corrections U/N would be 0.27 higher and P 0.45 higher.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
U_REF, P_REF, T_REF, RHO = -6.0305, 1.2660, 0.85, 0.86


def main():
    binary, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 40000
    try:
        import numpy as np
    except ImportError:
        print("skip: numpy missing")
        return 77
    os.makedirs(work, exist_ok=True)
    r = subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "scaling", "tools",
                                                     "lattice_h5md.py"), "lattice.h5",
                        "--cells", "5", "--density", str(RHO)], cwd=work,
                       stdout=subprocess.DEVNULL)
    if r.returncode != 0:
        print("skip: cannot write the lattice (h5py missing?)")
        return 77
    subprocess.run([binary, "run", os.path.join(HERE, "lj-eos.cfg"), "--set",
                    "integrator.steps=%d" % steps, "--set", "output.dir=out"], cwd=work,
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(work, "out", "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        rows = np.array([list(map(float, l.split(","))) for l in t])
    col = {h: k for k, h in enumerate(head)}
    keep = rows[rows[:, col["time"]] >= 20.0]
    n = 500
    series = {"T": keep[:, col["temperature"]],
              "U/N": keep[:, col["potential_energy"]] / n,
              "P": keep[:, col["pressure"]]}
    ref = {"T": (T_REF, 0.01), "U/N": (U_REF, 0.01), "P": (P_REF, 0.04)}
    failed = 0
    for name, x in series.items():
        blocks = np.array_split(x, 8)
        means = np.array([b.mean() for b in blocks])
        mean, err = x.mean(), means.std(ddof=1) / np.sqrt(len(means))
        value, tol = ref[name]
        allowed = tol + (3 * err if name != "T" else 0.0)
        ok = abs(mean - value) <= allowed
        failed += not ok
        print("%-3s = %.4f +- %.4f (reference %.4f, allowed +-%.4f)  %s" %
              (name, mean, err, value, allowed, "ok" if ok else "FAIL"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
