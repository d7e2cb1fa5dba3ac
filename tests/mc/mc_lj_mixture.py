#!/usr/bin/env python3
"""A binary LJ mixture's vapour-liquid equilibrium in the NPT Gibbs ensemble
(mc.ensemble = "gibbs_npt", configs/mc-lj-mixture.cfg) against the van der Waals one-fluid
theory on the equation of state of Johnson, Zollweg & Gubbins.

Usage: mc_lj_mixture.py VESICA_BINARY WORKDIR [--cycles C] [--equil E] [--seed S] [--ci]
                        [--config CFG] [--json FILE]

The system (configs/mc-lj-mixture.cfg): species A and B of equal size (sigma 1), eps_AA = 1,
eps_BB = 0.75, eps_AB = sqrt(eps_AA eps_BB) (Lorentz-Berthelot), LJ truncated at 3 sigma with
the analytic tail corrections, kT = 0.9, P = 0.03 (units of eps_AA and sigma). Both pure
fluids are subcritical at this T (T_c of A near 1.31, of B near 0.98), and P lies between
their vapour pressures, so the mixture splits into an A-rich liquid and a B-rich vapour of
fixed compositions (the phase rule: two components, two phases, T and P given). 600 particles
(324 A, 276 B), 480 starting in a liquid box and 120 in a vapour box.

The reference is a theory, not published simulation data: the published LJ-mixture tables
(Vrabec & Hasse, Mol. Phys. 100, 3375 (2002); Antolovic et al., PCCP (2023), doi
10.1039/D3CP01434G; Harismiadis et al., Fluid Phase Equilib. 65, 1 (1991)) could not be read
from this machine (docs/validation.md says what was tried). The van der Waals one-fluid theory
(vdW1) maps the mixture on a pure LJ fluid of sigma_x^3 = sum_ij x_i x_j sigma_ij^3 and eps_x
sigma_x^3 = sum_ij x_i x_j eps_ij sigma_ij^3; with equal sigmas A_res / N = eps_x a_JZG(rho, kT
/ eps_x), where a_JZG is the residual Helmholtz energy of the JZG equation (Mol. Phys. 78, 591
(1993), Table 10, as in scaling/tools/lj_eos.py and mc_coexistence.py) for the full LJ fluid.
The coexistence solves P_l = P_v = P and mu_A, mu_B equal in both phases (mu_i from derivatives
of A_res / V in the partial densities). The theory has two errors of its own: JZG's fit against
the r_c = 3 tail-corrected fluid (for the pure fluid at T* = 0.9, Vesica's Gibbs runs gave a
liquid density 0.4 % and a vapour density 8 % above JZG's, docs/validation.md) and vdW1's
mapping of a mixture on one fluid (small for equal sizes and an energy ratio near 1, not
quantified here). Hence the allowances below, fixed before the long run.

Checks (the full run: 30,000 cycles, the first 6,000 tuning and relaxing; --ci a short one,
below). The compositions relax slowly (the particles shift between the phases by transfers,
accepted at about 0.7 %; the autocorrelation time of the liquid's x_B is near 2,000 cycles),
so each error is the larger of mc_summary.h5's 10-block error and the series' own
(tau_error below):
- species conserved in every thermo row (n_A_0 + n_A_1 = N_A, the same for B);
- the vapour box's virial pressure equals the imposed P within 4 se + 1 % (exact: in the
  dilute vapour the cut's impulsive term is below 1e-3 P);
- liquid and vapour mole fractions of B within 4 se + 0.03 of the theory; the liquid density
  within 4 se + 1.5 %, the vapour density within 4 se + 10 %.
--ci (1,500 cycles, 500 tuning; about 20 s): what a short run can check without the
compositions having relaxed fully. It swaps the species' order (--set), so the lattice start
puts all of B in the liquid box (x_B 0.575) and only A in the vapour (y_B 0): the enrichment
below must come from the transfers, not from the start (with the configuration's order the
vapour starts as pure B, and a run with every epsilon 1, two identical species, still showed
y_B - x_B = 0.26 after 1,500 cycles). Checks: the species conserved, the boxes separated
(liquid denser than 0.5, vapour below 0.1, box 0 the liquid in every row), B enriched in the
vapour by more than 0.2 in mole fraction (the theory: 0.31), the liquid density within 4 se + 3
% of the theory (its dependence on x_B is small: -0.12 per unit), the vapour's virial pressure
within 4 se + 10 % of P. Identical species fail (y_B - x_B = -0.16 after 1,500 cycles, the
liquid 8 % too dense).
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scaling", "tools"))

CONFIG = os.path.join(ROOT, "configs", "mc-lj-mixture.cfg")


# ---- the reference: vdW1 on the JZG equation ------------------------------------------------

class Mixture:
    """Two LJ species of sigma 1: eps_AA = 1, eps_BB = eps_b, eps_AB = sqrt(eps_b)."""

    def __init__(self, eps_b, eps_ab=None):
        self.ea, self.eb = 1.0, eps_b
        self.eab = math.sqrt(eps_b) if eps_ab is None else eps_ab

    def eps_x(self, xb):
        xa = 1.0 - xb
        return xa * xa * self.ea + 2.0 * xa * xb * self.eab + xb * xb * self.eb

    def f_res(self, ra, rb, T):
        """Residual Helmholtz energy per volume."""
        from mc_coexistence import jzg_ares
        r = ra + rb
        e = self.eps_x(rb / r)
        return r * e * jzg_ares(r, T / e)

    def mu(self, ra, rb, T):
        """(mu_A, mu_B) up to functions of T: T ln rho_i + d(f_res)/d(rho_i). With
        f_res = rho e a(rho, T / e), d e / d rho_i = 2 (sum_k x_k e_ik - e) / rho and
        a - tau da/dtau = u (the residual energy per particle):
        d(f_res)/d(rho_i) = e (a + rho da/drho) + 2 (sum_k x_k e_ik - e) u."""
        from lj_eos import jzg
        from mc_coexistence import jzg_ares
        r = ra + rb
        xa, xb = ra / r, rb / r
        e = self.eps_x(xb)
        tau = T / e
        a = jzg_ares(r, tau)
        u, p = jzg(r, tau)
        common = e * (a + (p - r * tau) / r)
        ga = xa * self.ea + xb * self.eab - e
        gb = xa * self.eab + xb * self.eb - e
        return (T * math.log(ra) + common + 2 * ga * u,
                T * math.log(rb) + common + 2 * gb * u)

    def mu_numeric(self, ra, rb, T):
        """mu from central differences of f_res (the check of mu's algebra); a relative step
        of 1e-4 balances the truncation error against the MBWR sums' rounding."""
        h = 1e-4
        da = (self.f_res(ra * (1 + h), rb, T) - self.f_res(ra * (1 - h), rb, T)) / (2 * h * ra)
        db = (self.f_res(ra, rb * (1 + h), T) - self.f_res(ra, rb * (1 - h), T)) / (2 * h * rb)
        return T * math.log(ra) + da, T * math.log(rb) + db

    def pressure(self, ra, rb, T):
        from lj_eos import jzg
        r = ra + rb
        e = self.eps_x(rb / r)
        return r * T + e * (jzg(r, T / e)[1] - r * T / e)

    def check(self, T):
        """mu against its numerical derivative, and P from the chemical potentials
        (sum rho_i mu_i - f) against the direct P."""
        for ra, rb in ((0.4, 0.3), (0.01, 0.02), (0.7, 0.01)):
            ma, mb = self.mu(ra, rb, T)
            na, nb = self.mu_numeric(ra, rb, T)
            if max(abs(ma - na), abs(mb - nb)) > 1e-6:
                raise SystemExit("vdW1: mu (%.9g, %.9g) != numeric (%.9g, %.9g)" %
                                 (ma, mb, na, nb))
            f = T * (ra * (math.log(ra) - 1) + rb * (math.log(rb) - 1)) + self.f_res(ra, rb, T)
            p1, p2 = ra * ma + rb * mb - f, self.pressure(ra, rb, T)
            if abs(p1 - p2) > 1e-9 * max(1.0, abs(p2)):
                raise SystemExit("vdW1: P from mu %.9g != %.9g" % (p1, p2))

    def _phases(self, v):
        rl, xl, rv, xv = math.exp(v[0]), v[1], math.exp(v[2]), v[3]
        return rl * (1 - xl), rl * xl, rv * (1 - xv), rv * xv

    def coexistence(self, T, P, guess=(0.70, 0.4, 0.04, 0.7)):
        """Liquid (rho, x_B) and vapour (rho, y_B) at T and P."""
        from scipy.optimize import fsolve
        self.check(T)

        def eqs(v):
            la, lb, va, vb = self._phases(v)
            ml, mv = self.mu(la, lb, T), self.mu(va, vb, T)
            return [self.pressure(la, lb, T) / P - 1, self.pressure(va, vb, T) / P - 1,
                    (ml[0] - mv[0]) / T, (ml[1] - mv[1]) / T]
        g = [math.log(guess[0]), guess[1], math.log(guess[2]), guess[3]]
        try:
            sol, info, _, _ = fsolve(eqs, g, full_output=True, xtol=1e-13)
            bad = max(abs(r) for r in info["fvec"]) > 1e-9 or abs(sol[1] - sol[3]) < 1e-3
        except (ValueError, OverflowError):  # a mole fraction left [0, 1]
            bad = True
        if bad:
            raise SystemExit("vdW1: no two-phase solution at T %g, P %g" % (T, P))
        return {"rho_l": math.exp(sol[0]), "x_B": sol[1], "rho_v": math.exp(sol[2]),
                "y_B": sol[3]}

    def bubble_curve(self, T, xs, start):
        """(x_B, P, y_B, rho_l, rho_v) along the liquid compositions xs (ascending), by
        continuation from start = (P, rho_l, rho_v, y_B) near xs[0]."""
        from scipy.optimize import fsolve
        out = []
        P, rl, rv, yb = start
        for x in xs:
            def eqs(v, x=x):
                p, r_l, r_v, y = math.exp(v[0]), math.exp(v[1]), math.exp(v[2]), v[3]
                la, lb, va, vb = r_l * (1 - x), r_l * x, r_v * (1 - y), r_v * y
                ml, mv = self.mu(la, lb, T), self.mu(va, vb, T)
                return [self.pressure(la, lb, T) / p - 1, self.pressure(va, vb, T) / p - 1,
                        (ml[0] - mv[0]) / T, (ml[1] - mv[1]) / T]
            try:
                sol, info, _, _ = fsolve(eqs, [math.log(P), math.log(rl), math.log(rv), yb],
                                         full_output=True, xtol=1e-13)
            except (ValueError, OverflowError):
                break
            if max(abs(r) for r in info["fvec"]) > 1e-9:
                break
            P, rl, rv, yb = math.exp(sol[0]), math.exp(sol[1]), math.exp(sol[2]), sol[3]
            out.append((x, P, yb, rl, rv))
        return out


def read_config(path):
    """kT, P, eps_BB, eps_AB and the species fractions of the configuration."""
    text = open(path).read()

    def num(pattern):
        m = re.search(pattern, text)
        if not m:
            raise SystemExit("%s: no match for %s" % (path, pattern))
        return float(m.group(1))
    return {"kT": num(r"kT\s*=\s*([0-9.eE+-]+)"),
            "P": num(r"pressure\s*=\s*([0-9.eE+-]+)"),
            "eps_ab": num(r"A\s*=\s*\{\s*A\s*=\s*\{[^}]*\}\s*;\s*B\s*=\s*\{\s*epsilon\s*=\s*"
                          r"([0-9.eE+-]+)"),
            "eps_bb": num(r"B\s*=\s*\{\s*B\s*=\s*\{\s*epsilon\s*=\s*([0-9.eE+-]+)"),
            "n0": int(num(r"\nparticles\s*=\s*([0-9]+)")),
            "n1": int(num(r"particles2\s*=\s*([0-9]+)")),
            "frac_a": num(r'name\s*=\s*"A"[^}]*fraction\s*=\s*([0-9.eE+-]+)')}


# ---- the run --------------------------------------------------------------------------------

def run(binary, work, cfg, cycles, equil, seed, frac_a=None):
    """vesica mc of the configuration; with frac_a the species' order swapped (B first, so
    the lattice start puts B's block of tags in the liquid box and only A in the vapour)."""
    os.makedirs(work, exist_ok=True)
    cmd = [binary, "mc", cfg, "--set", "mc.cycles=%d" % cycles,
           "--set", "mc.equilibration=%d" % equil, "--set", "seed=%d" % seed,
           "--set", 'output.dir="out"', "--set", "output.checkpoint_interval=%d" % cycles]
    if frac_a is not None:
        for k, (name, frac) in enumerate((("B", 1.0 - frac_a), ("A", frac_a))):
            cmd += ["--set", "species.[%d].name=%s" % (k, name),
                    "--set", "species.[%d].fraction=%r" % (k, frac)]
    with open(os.path.join(work, "run.log"), "w") as log:
        subprocess.run(cmd, cwd=work, check=True, stdout=log, stderr=subprocess.STDOUT)
    return os.path.join(work, "out")


def tau_error(x):
    """Standard error of the mean of a correlated series: its standard deviation times
    sqrt(tau / n), tau = 1 + 2 sum_k c(k) summed while the autocorrelation c(k) >= 0.05."""
    import numpy as np
    n = len(x)
    d = x - x.mean()
    if n < 10 or not d.any():
        return 0.0
    c = np.correlate(d, d, "full")[n - 1:] / np.arange(n, 0, -1)
    c = c / c[0]
    tau = 1.0
    for k in range(1, n // 5):
        if c[k] < 0.05:
            break
        tau += 2.0 * c[k]
    return float(d.std() * math.sqrt(tau / n))


def read_results(out, equil):
    """The summary's coexistence values; each error the larger of the summary's block error
    and tau_error of the per-row series (the liquid the denser box of each row), as the
    compositions relax over about 2,000 cycles, a block's length at 10 blocks."""
    import h5py
    import numpy as np
    t = np.genfromtxt(os.path.join(out, "thermo.csv"), delimiter=",", names=True)
    t = t[t["cycle"] > equil]
    liq0 = ~(t["density_1"] > t["density_0"])

    def ph(q, liquid):
        return np.where(liq0 == liquid, t[q + "_0"], t[q + "_1"])
    rows = {"density_liquid": ph("density", True), "density_vapour": ph("density", False),
            "pressure_vapour": ph("pressure", False), "pressure_liquid": ph("pressure", True),
            "x_B_liquid": ph("n_B", True) / np.maximum(ph("n", True), 1),
            "x_B_vapour": ph("n_B", False) / np.maximum(ph("n", False), 1),
            "box_0_liquid_fraction": liq0.astype(float)}
    r = {"rows": len(t)}
    with h5py.File(os.path.join(out, "mc_summary.h5"), "r") as f:
        c = f["coexistence"]
        for key, x in rows.items():
            m, e = (float(v) for v in c[key][()])
            r[key] = (m, max(e, tau_error(x)))
            r[key + "_block_error"] = e
        for b in (0, 1):
            r["n_%d" % b] = tuple(float(v) for v in f["box_%d/n" % b][()])
    att = t["transfer_attempted_0"][-1] + t["transfer_attempted_1"][-1]
    acc = t["transfer_accepted_0"][-1] + t["transfer_accepted_1"][-1]
    r["transfer_acceptance"] = float(acc / att) if att else 0.0
    return r, t


def line(name, got, err, want, tol):
    ok = abs(got - want) <= tol
    print("%-26s %.5g +- %.2g  (reference %.5g, allowed %.3g)  %s" %
          (name, got, err, want, tol, "ok" if ok else "FAIL"))
    return ok


def checks(r, t, ref, cfg, ci):
    import numpy as np
    P = cfg["P"]
    n = cfg["n0"] + cfg["n1"]
    na = int(math.floor(cfg["frac_a"] * n + 0.5))
    ok = bool(np.all(t["n_A_0"] + t["n_A_1"] == na) and np.all(t["n_B_0"] + t["n_B_1"] == n - na))
    print("species conserved (%d A, %d B) in %d rows  %s" % (na, n - na, len(t),
                                                             "ok" if ok else "FAIL"))
    pv, pve = r["pressure_vapour"]
    ok &= line("P_vapour (virial)", pv, pve, P, 4 * pve + (0.1 if ci else 0.01) * P)
    print("%-26s %.5g +- %.2g  (the cut's impulsive term: not compared)" %
          ("P_liquid (virial)", r["pressure_liquid"][0], r["pressure_liquid"][1]))
    xl, xle = r["x_B_liquid"]
    xv, xve = r["x_B_vapour"]
    rl, rle = r["density_liquid"]
    rv, rve = r["density_vapour"]
    if ci:
        l0 = r["box_0_liquid_fraction"][0]
        sep = rl > 0.5 and rv < 0.1 and l0 == 1.0
        print("separated: rho_l %.4f, rho_v %.4f, box 0 the liquid in %.0f %% of rows  %s" %
              (rl, rv, 100 * l0, "ok" if sep else "FAIL"))
        enr = xv - xl > 0.2
        print("B enriched in the vapour: y_B - x_B = %.3f (theory %.3f, needed > 0.2)  %s" %
              (xv - xl, ref["y_B"] - ref["x_B"], "ok" if enr else "FAIL"))
        ok &= line("rho liquid", rl, rle, ref["rho_l"], 4 * rle + 0.03 * ref["rho_l"])
        for name, got, want in (("x_B liquid", xl, ref["x_B"]), ("y_B vapour", xv, ref["y_B"]),
                                ("rho vapour", rv, ref["rho_v"])):
            print("%-26s %.5g  (theory %.5g; not compared in the short run)" % (name, got, want))
        return ok and sep and enr
    ok &= line("x_B liquid", xl, xle, ref["x_B"], 4 * xle + 0.03)
    ok &= line("y_B vapour", xv, xve, ref["y_B"], 4 * xve + 0.03)
    ok &= line("rho liquid", rl, rle, ref["rho_l"], 4 * rle + 0.015 * ref["rho_l"])
    ok &= line("rho vapour", rv, rve, ref["rho_v"], 4 * rve + 0.10 * ref["rho_v"])
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("binary")
    p.add_argument("work")
    p.add_argument("--cycles", type=int, default=None)
    p.add_argument("--equil", type=int, default=None)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--ci", action="store_true")
    p.add_argument("--config", default=CONFIG)
    p.add_argument("--json")
    a = p.parse_args()
    try:
        import h5py  # noqa: F401
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        print("skip: numpy, scipy or h5py missing")
        return 77
    cycles = a.cycles or (1500 if a.ci else 30000)
    equil = a.equil or (500 if a.ci else 6000)
    cfg = read_config(a.config)
    mix = Mixture(cfg["eps_bb"], cfg["eps_ab"])
    ref = mix.coexistence(cfg["kT"], cfg["P"])
    print("theory (vdW1 + JZG) at kT %g, P %g: liquid rho %.5f x_B %.4f; vapour rho %.5f "
          "y_B %.4f" % (cfg["kT"], cfg["P"], ref["rho_l"], ref["x_B"], ref["rho_v"], ref["y_B"]))
    out = run(os.path.abspath(a.binary), os.path.abspath(a.work), os.path.abspath(a.config),
              cycles, equil, a.seed, cfg["frac_a"] if a.ci else None)
    r, t = read_results(out, equil)
    print("%d cycles (%d tuning), %d production rows; transfers accepted %.4f; N_0 %.1f +- %.1f"
          % (cycles, equil, r["rows"], r["transfer_acceptance"], r["n_0"][0], r["n_0"][1]))
    ok = checks(r, t, ref, cfg, a.ci)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"run": r, "theory": ref, "config": cfg, "cycles": cycles,
                       "equilibration": equil}, f, indent=1)
    print("passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
