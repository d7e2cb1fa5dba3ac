#!/usr/bin/env python3
"""LJ liquid-vapour coexistence by Gibbs-ensemble Monte Carlo at T* = 0.85, checked against
NIST's NVT isotherm.

Usage: mc_gibbs_lj.py VESICA WORKDIR [--cycles C] [--equil E] [--check]

The system of the NIST SRSW data (r_c = 3 sigma, analytic tail corrections): 500 particles,
470 in a liquid box at rho 0.776 and 30 in a vapour box of edge 14.4, NVT Gibbs ensemble at
T* = 0.85 (displacements 0.79, volume exchange 0.01, transfers 0.2), step sizes tuned during
the first E cycles. Means over the rows after E, errors from 10 blocks: the densities, the
pressures of both boxes (equal at coexistence) and the liquid's U/N.

The reference is NIST SRSW's NVT Monte Carlo isotherm at T* = 0.85 (the values of
mc_lj_nist.py): between rho = 0.776 (P = 0.0067714, U/N = -5.5121) and 0.780 (P = 0.047924,
U/N = -5.5386) the pressure rises by 10.3 per unit density, so the saturated liquid is where
that isotherm, interpolated linearly, reaches the vapour pressure the Gibbs run measures:
rho_l(NIST) = 0.776 + (P_v - 0.0067714) / 10.288, with U/N interpolated there too.

--check: exit 1 unless |rho_l - rho_l(NIST)| <= 4 se + 0.005, |U_l/N - U/N(NIST)| <= 4 se +
0.02, and the two boxes' pressures agree within 4 se (combined) + 0.005.
"""
import argparse
import math
import os
import subprocess
import sys

CONFIG = """box = [8.46, 8.46, 8.46];
particles = 470;
seed = 85;
species = ( { name = "A"; mass = 1.0; } );
pair = ( { style = "lj"; rc = 3.0; tail = "on";
           coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );
mc = { ensemble = "gibbs"; kT = 0.85; cycles = %(cycles)d; equilibration = %(equil)d;
       box2 = [14.4, 14.4, 14.4]; particles2 = 30;
       moves = { displacement = 0.79; volume = 0.01; exchange = 0.2; }; };
output = { dir = "out"; thermo_interval = 10; checkpoint_keep = 0; };
"""
P0, P1, U0, U1, R0, R1 = 6.7714e-03, 4.7924e-02, -5.5121, -5.5386, 0.776, 0.780


def mean_err(x):
    import numpy as np
    b = np.array([c.mean() for c in np.array_split(x, 10)])
    return x.mean(), b.std(ddof=1) / math.sqrt(len(b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("work")
    ap.add_argument("--cycles", type=int, default=20000)
    ap.add_argument("--equil", type=int, default=2000)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    try:
        import numpy as np
    except ImportError:
        print("skip: numpy missing")
        return 77
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "gibbs.cfg"), "w") as f:
        f.write(CONFIG % dict(cycles=a.cycles, equil=a.equil))
    if not os.path.exists(os.path.join(work, "out", "thermo.csv")) or a.check:
        subprocess.run([os.path.abspath(a.binary), "mc", "gibbs.cfg"], cwd=work, check=True,
                       stdout=subprocess.DEVNULL)
    t = np.genfromtxt(os.path.join(work, "out", "thermo.csv"), delimiter=",", names=True)
    t = t[t["cycle"] > a.equil]
    liq = 0 if t["density_0"].mean() > t["density_1"].mean() else 1
    vap = 1 - liq
    rl, srl = mean_err(t["density_%d" % liq])
    rv, srv = mean_err(t["density_%d" % vap])
    pl, spl = mean_err(t["pressure_%d" % liq])
    pv, spv = mean_err(t["pressure_%d" % vap])
    ul, sul = mean_err(t["energy_%d" % liq] / t["n_%d" % liq])
    slope = (P1 - P0) / (R1 - R0)
    r_ref = R0 + (pv - P0) / slope
    u_ref = U0 + (U1 - U0) * (r_ref - R0) / (R1 - R0)
    last = t[-1]
    tr = [last["transfer_accepted_%d" % b] / max(1, last["transfer_attempted_%d" % b])
          for b in (0, 1)]
    print("Gibbs ensemble, T* = 0.85, N = 500, %d cycles (%d tuning); transfers accepted "
          "%.4f into box 0, %.4f into box 1" % (a.cycles, a.equil, tr[0], tr[1]))
    ok_r = abs(rl - r_ref) <= 4 * srl + 0.005
    ok_u = abs(ul - u_ref) <= 4 * sul + 0.02
    ok_p = abs(pl - pv) <= 4 * math.hypot(spl, spv) + 0.005
    print("rho_liquid  %.4f +- %.4f   NIST isotherm at P_v: %.4f  %s" %
          (rl, srl, r_ref, "ok" if ok_r else "FAIL"))
    print("rho_vapour  %.5f +- %.5f" % (rv, srv))
    print("P_vapour    %.5f +- %.5f   P_liquid %.4f +- %.4f  %s" %
          (pv, spv, pl, spl, "ok" if ok_p else "FAIL"))
    print("U/N liquid  %.4f +- %.4f   NIST isotherm at rho_l(NIST): %.4f  %s" %
          (ul, sul, u_ref, "ok" if ok_u else "FAIL"))
    return 1 if (a.check and not (ok_r and ok_u and ok_p)) else 0


if __name__ == "__main__":
    sys.exit(main())
