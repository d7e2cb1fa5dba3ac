#!/usr/bin/env python3
"""The LJ fluid by NVT Monte Carlo against the NIST Standard Reference Simulation Website.

Usage: mc_lj_nist.py VESICA WORKDIR [--cycles C] [--equil E] [--points T:RHO,...|nist]
                     [--jobs J] [--n N] [--sweep sequential|checkerboard] [--check] [--png FILE]

Reference: NIST SRSW, Lennard-Jones fluid, "MC: NVT Monte Carlo"
(https://mmlapps.nist.gov/srs/LJ_PURE/mc.htm): N = 500, the potential truncated (not
shifted) at r_c = 3 sigma with the analytic long-range corrections, isotherms T* = 0.85 and
0.90; the values as transcribed in scaling/tools/lj_eos.py (its docstring says from where).
Vesica runs the same system: 500 particles on a simple cubic lattice at rho (it melts within
the equilibration), `vesica mc` with mc.ensemble = "nvt", displacement steps tuned to 50%
acceptance during the first E cycles, then C - E cycles of 500 moves sampled every 5 cycles;
U/N = energy_0 / N (tail included), P = pressure_0 (rho T + W / 3V with the tail's virial).
Errors: standard errors of the means from 10 blocks.

--n N: N particles instead of NIST's 500 (the checkerboard needs boxes of four cells of r_c
per axis for its colours to run side by side: N >= 1500 at rho 0.86). --sweep: mc.sweep.

--png FILE: a figure of U/N and P against rho, Vesica's points with their errors over NIST's
(matplotlib).

--check: exit 1 unless every point has |U/N - NIST| <= 4 se + 0.01 and |P - NIST| <= 4 se +
0.04 (the allowances cover NIST's own uncertainty, 2.4e-3 in U/N and 1.4e-2 in P where it is
known, and the short runs' residual equilibration).
"""
import argparse
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

NIST = {  # (T*, rho*) -> (U*/N, P*), NIST SRSW MC NVT, N = 500, r_c = 3, tail corrections
    (0.85, 0.776): (-5.5121, 6.7714e-03), (0.85, 0.780): (-5.5386, 4.7924e-02),
    (0.85, 0.820): (-5.7947, 5.5355e-01), (0.85, 0.860): (-6.0305, 1.2660),
    (0.85, 0.900): (-6.2391, 2.2314),
    (0.90, 0.776): (-5.4689, 2.4056e-01), (0.90, 0.780): (-5.4956, 2.7851e-01),
    (0.90, 0.820): (-5.7456, 8.2386e-01), (0.90, 0.860): (-5.9753, 1.5781),
    (0.90, 0.900): (-6.1773, 2.5848),
}
N = 500

CONFIG = """box = [%(L).17g, %(L).17g, %(L).17g];
particles = %(n)d;
seed = %(seed)d;
species = ( { name = "A"; mass = 1.0; } );
pair = ( { style = "lj"; rc = 3.0; tail = "on";
           coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );
mc = { ensemble = "nvt"; kT = %(T)g; cycles = %(cycles)d; equilibration = %(equil)d;
       sweep = "%(sweep)s"; };
output = { dir = "out"; thermo_interval = 5; checkpoint_keep = 0; };
"""


def run_point(binary, work, T, rho, cycles, equil, n=N, sweep="sequential"):
    import numpy as np
    d = os.path.join(work, "T%g_rho%g" % (T, rho))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "nvt.cfg"), "w") as f:
        f.write(CONFIG % dict(L=(n / rho) ** (1.0 / 3.0), T=T, cycles=cycles, equil=equil,
                              seed=1000 + int(rho * 1000) + int(T * 100), n=n, sweep=sweep))
    subprocess.run([binary, "mc", "nvt.cfg"], cwd=d, check=True, stdout=subprocess.DEVNULL)
    t = np.genfromtxt(os.path.join(d, "out", "thermo.csv"), delimiter=",", names=True)
    t = t[t["cycle"] > equil]
    out = {}
    for name, x in (("U/N", t["energy_0"] / n), ("P", t["pressure_0"])):
        b = np.array([c.mean() for c in np.array_split(x, 10)])
        out[name] = (x.mean(), b.std(ddof=1) / math.sqrt(len(b)))
    acc = t["displacement_accepted_0"][-1] / t["displacement_attempted_0"][-1]
    return T, rho, out, acc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("work")
    ap.add_argument("--cycles", type=int, default=1500)
    ap.add_argument("--equil", type=int, default=500)
    ap.add_argument("--points", default="0.85:0.86")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--n", type=int, default=N)
    ap.add_argument("--sweep", default="sequential")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--png")
    a = ap.parse_args()
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("skip: numpy missing")
        return 77
    if a.points == "nist":
        points = sorted(NIST)
    else:
        points = [tuple(float(v) for v in p.split(":")) for p in a.points.split(",")]
    binary, work = os.path.abspath(a.binary), os.path.abspath(a.work)
    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda p: run_point(binary, work, p[0], p[1], a.cycles, a.equil,
                                                  a.n, a.sweep), points))
    print("%d cycles (%d tuning), N = %d, %s sweep; errors: 10 blocks"
          % (a.cycles, a.equil, a.n, a.sweep))
    print("| T* | rho* | acc | U/N Vesica MC | U/N NIST | dU | P Vesica MC | P NIST | dP |")
    print("|---|---|---|---|---|---|---|---|---|")
    failed = 0
    for T, rho, out, acc in results:
        (u, su), (p, sp) = out["U/N"], out["P"]
        un, pn = NIST[(T, rho)]
        ok = abs(u - un) <= 4 * su + 0.01 and abs(p - pn) <= 4 * sp + 0.04
        failed += not ok
        print("| %.2f | %.3f | %.2f | %.4f +- %.4f | %.4f | %+.4f | %.4f +- %.4f | %.4f | %+.4f |%s"
              % (T, rho, acc, u, su, un, u - un, p, sp, pn, p - pn, "" if ok else " FAIL"))
    if a.png:
        plot(results, a.png, a.cycles, a.equil)
    return 1 if (a.check and failed) else 0


def plot(results, path, cycles, equil):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for T, colour in ((0.85, "tab:blue"), (0.90, "tab:red")):
        ref = sorted((rho, v) for (t, rho), v in NIST.items() if t == T)
        ours = sorted((rho, out) for t, rho, out, _ in results if t == T)
        for k, (ax, name) in enumerate(zip(axes, ("U/N", "P"))):
            ax.plot([r for r, _ in ref], [v[k] for _, v in ref], "s", mfc="none", ms=9,
                    color=colour, label="NIST SRSW, T* = %.2f" % T)
            if ours:
                ax.errorbar([r for r, _ in ours], [o[name][0] for _, o in ours],
                            yerr=[o[name][1] for _, o in ours], fmt="o", ms=4, color=colour,
                            label="vesica mc, T* = %.2f" % T)
            ax.set_xlabel("rho*")
            ax.set_ylabel(name + "*")
    axes[0].legend(fontsize=7)
    fig.suptitle("LJ fluid, NVT Monte Carlo, N = %d, r_c = 3 with tail corrections "
                 "(%d cycles, %d tuning)" % (N, cycles, equil), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
