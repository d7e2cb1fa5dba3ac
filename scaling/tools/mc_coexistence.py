#!/usr/bin/python3
"""The vapour-liquid coexistence curve from several Gibbs-ensemble runs of `vesica mc`: the
saturated densities, vapour pressures and heats of vaporization their mc_summary.h5 files
hold, the critical point from the rectilinear diameter and the scaling law, and a figure
against a reference.

Usage:
  mc_coexistence.py setup WORKDIR [--temps T ...] [--cycles C] [--equil E]
      write WORKDIR/T<T>/gibbs.cfg, the LJ fluid (r_c = 3 sigma, analytic tail corrections)
      in the NVT Gibbs ensemble, 500 particles; run each with `vesica mc gibbs.cfg` in its
      folder (the summary lands in T<T>/out/mc_summary.h5)
  mc_coexistence.py fit RUN ... [--beta B | --fit-beta] [--tmin T] [--png FILE] [--json FILE]
      RUN: an mc_summary.h5 file or an output folder holding one

The fit (weighted by the block errors, scipy's curve_fit with absolute errors):
  rho_l - rho_v = B (1 - T / T_c)^beta      (beta = 0.325, the 3D Ising exponent, or fitted)
  (rho_l + rho_v) / 2 = rho_c + A (T - T_c) (the rectilinear diameter)
T_c and B from the first, then rho_c and A from the second at that T_c (rho_c's error
includes T_c's). Points too close to T_c for the box sizes fit badly (the phases swap boxes;
mc_summary.h5's coexistence/box_0_liquid_fraction away from 0 and 1 says so).

The reference: Vesica's set-up is the LJ potential truncated at 3 sigma with the analytic
long-range corrections (g(r) = 1 beyond r_c), which approximates the full LJ fluid. The curve
drawn is the full LJ fluid's coexistence from the equation of state of Johnson, Zollweg &
Gubbins, Mol. Phys. 78, 591 (1993) (the MBWR fit, their Table 10 coefficients as in
lj_eos.py), computed here by equal pressure and chemical potential; their fit is less good
near T_c (it is not flat enough there). The critical point marked is Dinpajooh et al.,
J. Chem. Phys. 143, 114113 (2015): T_c = 1.3128 +- 0.0016, rho_c = 0.316 +- 0.004 (Gibbs
ensemble, 5500 particles, r_c = 8 sigma with tail corrections; with r_c = 3.5 sigma their T_c
is 0.2 % higher). NIST's SAT-TMMC coexistence table for r_c = 3 sigma with tail corrections,
the exact match to this set-up, was not at hand.
"""
import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# Dinpajooh, Bai, Allan & Siepmann, J. Chem. Phys. 143, 114113 (2015), abstract.
TC_REF, TC_REF_ERR, RHOC_REF, RHOC_REF_ERR = 1.3128, 0.0016, 0.316, 0.004

CONFIG = """# LJ coexistence at T* = {T:.2f} (scaling/tools/mc_coexistence.py setup)
box = [{el:.4f}, {el:.4f}, {el:.4f}];
particles = {nl};
seed = {seed};
species = ( {{ name = "A"; mass = 1.0; }} );
pair = ( {{ style = "lj"; rc = 3.0; tail = "on";
           coeff = {{ A = {{ A = {{ epsilon = 1.0; sigma = 1.0; }}; }}; }}; }} );
mc = {{ ensemble = "gibbs"; kT = {T:.2f}; cycles = {cycles}; equilibration = {equil};
       box2 = [{ev:.4f}, {ev:.4f}, {ev:.4f}]; particles2 = {nv};
       moves = {{ displacement = 0.795; volume = 0.005; exchange = 0.2; }}; }};
output = {{ dir = "out"; thermo_interval = 10; checkpoint_interval = 2000; }};
"""


# Starting densities of the two boxes per temperature (rough guesses, not a reference: the
# boxes find their densities); other temperatures interpolate.
START = {0.85: (0.77, 0.010), 0.90: (0.75, 0.015), 0.95: (0.72, 0.022), 1.00: (0.70, 0.030),
         1.05: (0.67, 0.040), 1.10: (0.64, 0.055), 1.15: (0.60, 0.075), 1.20: (0.56, 0.100)}


def start_guess(T):
    import numpy as np
    ts = sorted(START)
    return (float(np.interp(T, ts, [START[t][0] for t in ts])),
            float(np.interp(T, ts, [START[t][1] for t in ts])))


def setup(a):
    for T in a.temps:
        rl, rv = start_guess(T)
        nv = int(round(max(30, min(120, rv * 2000))))
        nl = 500 - nv
        d = os.path.join(a.work, "T%.2f" % T)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "gibbs.cfg"), "w") as f:
            f.write(CONFIG.format(T=T, el=(nl / rl) ** (1 / 3), nl=nl, seed=int(round(T * 100)),
                                  cycles=a.cycles, equil=a.equil, ev=(nv / rv) ** (1 / 3), nv=nv))
        print(os.path.join(d, "gibbs.cfg"))
    return 0


# ---- the reference: the JZG equation of state's coexistence ---------------------------------

def jzg_ares(rho, T):
    """Residual Helmholtz energy per particle of the JZG MBWR equation (their eq. 5)."""
    from lj_eos import JZG_X
    x = (None,) + JZG_X
    g = 3.0
    st = math.sqrt(T)
    a = [x[1] * T + x[2] * st + x[3] + x[4] / T + x[5] / T**2,
         x[6] * T + x[7] + x[8] / T + x[9] / T**2, x[10] * T + x[11] + x[12] / T, x[13],
         x[14] / T + x[15] / T**2, x[16] / T, x[17] / T + x[18] / T**2, x[19] / T**2]
    b = [(x[20] + x[21] / T) / T**2, (x[22] + x[23] / T**2) / T**2,
         (x[24] + x[25] / T) / T**2, (x[26] + x[27] / T**2) / T**2,
         (x[28] + x[29] / T) / T**2, (x[30] + x[31] / T + x[32] / T**2) / T**2]
    F = math.exp(-g * rho * rho)
    G = [(1 - F) / (2 * g)]
    for i in range(1, 6):
        G.append(-(F * rho ** (2 * i) - 2 * i * G[i - 1]) / (2 * g))
    return sum(a[i] * rho ** (i + 1) / (i + 1) for i in range(8)) + \
        sum(b[i] * G[i] for i in range(6))


def jzg_mu(rho, T):
    """Chemical potential, up to a function of T: T ln rho + a_res + (P - rho T) / rho."""
    from lj_eos import jzg
    return T * math.log(rho) + jzg_ares(rho, T) + (jzg(rho, T)[1] - rho * T) / rho


def jzg_check():
    """P from the derivative of a_res must be lj_eos.jzg's P (a transcription check)."""
    from lj_eos import jzg
    for rho, T in ((0.1, 1.0), (0.7, 0.9)):
        h = 1e-6
        p = rho * T + rho * rho * (jzg_ares(rho + h, T) - jzg_ares(rho - h, T)) / (2 * h)
        if abs(p - jzg(rho, T)[1]) > 1e-6:
            raise SystemExit("JZG: P from a_res %.8g != %.8g" % (p, jzg(rho, T)[1]))


def jzg_coexistence(temps):
    """(T, rho_v, rho_l, P, h_vap) of the JZG equation, by continuation from T* = 0.7."""
    from lj_eos import jzg
    from scipy.optimize import fsolve
    jzg_check()
    out = []
    guess = (0.002, 0.84)
    T = 0.7
    for target in sorted(set(round(t, 6) for t in temps)):
        steps = max(1, int(math.ceil((target - T) / 0.01)))
        for T in [T + (target - T) * (k + 1) / steps for k in range(steps)]:
            def eqs(v, T=T):
                rv, rl = math.exp(v[0]), v[1]
                return [jzg(rl, T)[1] - jzg(rv, T)[1], jzg_mu(rl, T) - jzg_mu(rv, T)]
            sol, info, _, _ = fsolve(eqs, [math.log(guess[0]), guess[1]], full_output=True,
                                     xtol=1e-12)
            ok = max(abs(v) for v in info["fvec"]) < 1e-9
            if not ok:
                break
            guess = (math.exp(sol[0]), sol[1])
        rv, rl = guess
        if not ok or abs(rl - rv) < 1e-3:
            break
        uv, p = jzg(rv, T)
        ul, _ = jzg(rl, T)
        out.append((T, rv, rl, p, (uv - ul) + p * (1 / rv - 1 / rl)))
    return out


# ---- the runs and the fit ------------------------------------------------------------------

NAMES = ("density_liquid", "density_vapour", "pressure_vapour", "pressure_liquid",
         "heat_of_vaporization", "box_0_liquid_fraction")


def read_run(path):
    import h5py
    if os.path.isdir(path):
        path = os.path.join(path, "mc_summary.h5")
    with h5py.File(path, "r") as f:
        ens = f.attrs["ensemble"]
        if (ens.decode() if isinstance(ens, bytes) else str(ens)) != "gibbs":
            raise SystemExit("%s: not a Gibbs-ensemble run" % path)
        r = {"path": path, "T": float(f.attrs["kT"]), "rows": int(f.attrs["rows"])}
        for n in NAMES:
            r[n] = tuple(float(v) for v in f["coexistence/" + n][()])
    return r


def fit(runs, beta, fit_beta):
    import numpy as np
    from scipy.optimize import curve_fit
    T = np.array([r["T"] for r in runs])
    rl = np.array([r["density_liquid"][0] for r in runs])
    rv = np.array([r["density_vapour"][0] for r in runs])
    el = np.array([r["density_liquid"][1] for r in runs])
    ev = np.array([r["density_vapour"][1] for r in runs])
    dr, edr = rl - rv, np.hypot(el, ev)
    if fit_beta:
        law = lambda t, b, tc, be: b * np.clip(1 - t / tc, 1e-12, None) ** be
        p0 = [1.5, T.max() + 0.1, beta]
    else:
        law = lambda t, b, tc: b * np.clip(1 - t / tc, 1e-12, None) ** beta
        p0 = [1.5, T.max() + 0.1]
    p, cov = curve_fit(law, T, dr, p0=p0, sigma=edr, absolute_sigma=True, maxfev=20000)
    chi2_s = float((((law(T, *p) - dr) / edr) ** 2).sum())
    tc, etc = p[1], math.sqrt(cov[1][1])
    be, ebe = (p[2], math.sqrt(cov[2][2])) if fit_beta else (beta, 0.0)
    d, ed = (rl + rv) / 2, np.hypot(el, ev) / 2
    q, qcov = np.polyfit(T, d, 1, w=1 / ed, cov="unscaled")
    slope, icpt = q
    rhoc = icpt + slope * tc
    var = qcov[1][1] + tc * tc * qcov[0][0] + 2 * tc * qcov[0][1] + slope * slope * etc * etc
    chi2_d = float((((icpt + slope * T - d) / ed) ** 2).sum())
    return {"Tc": tc, "Tc_err": etc, "rhoc": rhoc, "rhoc_err": math.sqrt(var), "B": p[0],
            "A": slope, "beta": be, "beta_err": ebe, "beta_fitted": bool(fit_beta),
            "chi2_scaling": chi2_s, "chi2_diameter": chi2_d, "points": len(runs),
            "dof_scaling": len(runs) - len(p), "dof_diameter": len(runs) - 2}


def curve(res, n=200):
    import numpy as np
    t = np.linspace(0.8, res["Tc"], n)
    half = 0.5 * res["B"] * np.clip(1 - t / res["Tc"], 0, None) ** res["beta"]
    mid = res["rhoc"] + res["A"] * (t - res["Tc"])
    return t, mid + half, mid - half


def plot(runs, res, ref, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(14, 4.4))
    T = [r["T"] for r in runs]
    for key, lab in (("density_liquid", "liquid"), ("density_vapour", "vapour")):
        ax[0].errorbar([r[key][0] for r in runs], T, xerr=[r[key][1] for r in runs], fmt="o",
                       ms=4, capsize=2, color="C0",
                       label="vesica mc, Gibbs" if lab == "liquid" else None)
    t, hi, lo = curve(res)
    ax[0].plot(hi, t, "C0-", lw=1, label="fit: scaling law (beta %.3f) + rectilinear diameter"
               % res["beta"])
    ax[0].plot(lo, t, "C0-", lw=1)
    ax[0].errorbar([res["rhoc"]], [res["Tc"]], xerr=[res["rhoc_err"]], yerr=[res["Tc_err"]],
                   fmt="s", color="C0", ms=6, capsize=2,
                   label="fitted critical point %.3f, %.3f" % (res["Tc"], res["rhoc"]))
    if ref:
        ax[0].plot([r[1] for r in ref], [r[0] for r in ref], "k--", lw=1,
                   label="full LJ, JZG (1993) equation of state")
        ax[0].plot([r[2] for r in ref], [r[0] for r in ref], "k--", lw=1)
    ax[0].errorbar([RHOC_REF], [TC_REF], xerr=[RHOC_REF_ERR], yerr=[TC_REF_ERR], fmt="k^", ms=6,
                   label="critical point, Dinpajooh et al. (2015)")
    ax[0].set_xlabel("density rho*")
    ax[0].set_ylabel("T*")
    ax[0].legend(fontsize=7, loc="lower center")
    ax[1].errorbar([1 / t for t in T], [math.log(r["pressure_vapour"][0]) for r in runs],
                   yerr=[r["pressure_vapour"][1] / r["pressure_vapour"][0] for r in runs],
                   fmt="o", ms=4, capsize=2, label="vesica mc: vapour box's pressure")
    if ref:
        ax[1].plot([1 / r[0] for r in ref], [math.log(r[3]) for r in ref], "k--", lw=1,
                   label="JZG (1993)")
    ax[1].set_xlabel("1 / T*")
    ax[1].set_ylabel("ln P_vap*")
    ax[1].legend(fontsize=7)
    ax[2].errorbar(T, [r["heat_of_vaporization"][0] for r in runs],
                   yerr=[r["heat_of_vaporization"][1] for r in runs], fmt="o", ms=4, capsize=2,
                   label="vesica mc")
    if ref:
        ax[2].plot([r[0] for r in ref], [r[4] for r in ref], "k--", lw=1, label="JZG (1993)")
    ax[2].set_xlabel("T*")
    ax[2].set_ylabel("heat of vaporization per particle / epsilon")
    ax[2].legend(fontsize=7)
    fig.suptitle("LJ vapour-liquid coexistence, r_c = 3 sigma with tail corrections, "
                 "NVT Gibbs ensemble, 500 particles", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print("figure:", png)


def fit_main(a):
    runs = sorted((read_run(p) for p in a.runs), key=lambda r: r["T"])
    ref = {}
    try:
        ref = {round(r[0], 4): r for r in jzg_coexistence([r["T"] for r in runs] +
                                                           [0.8 + 0.01 * k for k in range(46)])}
    except ImportError as e:
        print("no reference curve (%s)" % e)
    print("%-5s %-18s %-8s %-20s %-8s %-20s %-8s %-16s %-8s %s" %
          ("T*", "rho_l", "JZG", "rho_v", "JZG", "P_vap", "JZG", "H_vap", "JZG", "box 0 liquid"))
    for r in runs:
        j = ref.get(round(r["T"], 4))
        f = lambda k, d: "%.*f +- %.*f" % (d, r[k][0], d, r[k][1])
        print("%-5.2f %-18s %-8s %-20s %-8s %-20s %-8s %-16s %-8s %.2f" % (
            r["T"], f("density_liquid", 4), "%.4f" % j[2] if j else "-",
            f("density_vapour", 5), "%.5f" % j[1] if j else "-",
            f("pressure_vapour", 5), "%.5f" % j[3] if j else "-",
            f("heat_of_vaporization", 3), "%.3f" % j[4] if j else "-",
            r["box_0_liquid_fraction"][0]))
    used = [r for r in runs if r["T"] >= a.tmin]
    res = fit(used, a.beta, a.fit_beta)
    print("fit over %d temperatures (T* >= %g): T_c = %.4f +- %.4f, rho_c = %.4f +- %.4f, beta = %.3f%s; "
          "chi2 %.1f (%d dof) scaling, %.1f (%d dof) diameter" % (
              res["points"], a.tmin, res["Tc"], res["Tc_err"], res["rhoc"], res["rhoc_err"],
              res["beta"], " +- %.3f (fitted)" % res["beta_err"] if a.fit_beta else " (fixed)",
              res["chi2_scaling"], res["dof_scaling"], res["chi2_diameter"],
              res["dof_diameter"]))
    print("reference critical point (full LJ, Dinpajooh et al. 2015): T_c = %.4f +- %.4f, "
          "rho_c = %.3f +- %.3f" % (TC_REF, TC_REF_ERR, RHOC_REF, RHOC_REF_ERR))
    if a.png:
        plot(runs, res, sorted(v for k, v in ref.items()), a.png)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"runs": runs, "fit": res}, f, indent=1)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("setup")
    s.add_argument("work")
    s.add_argument("--temps", type=float, nargs="+",
                   default=[0.85, 0.90, 0.95, 1.00, 1.05, 1.10, 1.15, 1.20])
    s.add_argument("--cycles", type=int, default=10000)
    s.add_argument("--equil", type=int, default=2000)
    f = sub.add_parser("fit")
    f.add_argument("runs", nargs="+")
    f.add_argument("--beta", type=float, default=0.325)
    f.add_argument("--fit-beta", action="store_true")
    f.add_argument("--tmin", type=float, default=0.0,
                   help="fit only the runs at or above this temperature")
    f.add_argument("--png")
    f.add_argument("--json")
    a = ap.parse_args()
    try:
        import h5py  # noqa: F401
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError as e:
        print("needs numpy, scipy and h5py: %s" % e)
        return 1
    return setup(a) if a.cmd == "setup" else fit_main(a)


if __name__ == "__main__":
    sys.exit(main())
