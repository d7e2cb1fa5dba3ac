#!/usr/bin/python3
"""Methane's vapour-liquid coexistence with the Mie 14-6 potential of Potoff & Bernard-Brunel
(J. Phys. Chem. B 113, 14725, 2009) by Gibbs-ensemble Monte Carlo (`vesica mc`), against
NIST's saturation data of methane.

Usage:
  mc_methane.py setup WORKDIR [--temps T ...] [--cycles C] [--equil E] [--particles N]
                             [--rc RC]
      write WORKDIR/T<T>/gibbs.cfg (T in K); run each with `vesica mc gibbs.cfg` in its
      folder (the summary lands in T<T>/out/mc_summary.h5)
  mc_methane.py fit RUN ... [--png FILE] [--json FILE] [--check]
      RUN: an mc_summary.h5 file or an output folder holding one; prints the table of
      docs/validation.md and draws the figure
  mc_methane.py ci VESICA WORKDIR [--temps T ...] [--cycles C] [--equil E]
      setup, run and `fit --check` in one (the CI test mc_methane_gibbs: 150 K, short)

The model: one site per molecule, U = C eps ((sigma/r)^14 - (sigma/r)^6), C = (14/8)
(14/6)^(6/8), eps/k = 161.00 K, sigma = 3.740 Angstrom (the values of GOMC's parameter file
for this paper, Par_Mie_Alkane_Exotic.inp: "CH4 161.00 3.740 14"), cut at 10 Angstrom with
the analytic tail corrections. Units: energies in K (k_B = 1, so mc.kT is T in K), lengths in
Angstrom; the mass does not enter Monte Carlo. Densities are converted with M = 16.0428
g/mol, pressures with k_B = 1.380649e-23 J/K, heats of vaporization with R.

The reference (REF below): NIST's reference equation of state for methane, Setzmann & Wagner,
J. Phys. Chem. Ref. Data 20, 1061 (1991), the one NIST's Chemistry WebBook and REFPROP use,
its saturation states (Maxwell construction of the equation) as evaluated by CoolProp 8.0.0
(`PropsSI(..., 'T', T, 'Q', 0 or 1, 'Methane')`, which names Setzmann-JPCRD-1991 as its
equation); T_c = 190.564 K, rho_c = 162.66 kg/m^3. The equation reproduces the measured
saturated densities to about 0.03 % and vapour pressures to about 0.02 %, far below the
simulation's errors.

--check (the CI version): every run's liquid density within 4 errors + 2 % of REF, the
vapour density and pressure within 4 errors + 15 %, and the two boxes' virial pressures
within 4 combined errors + 0.1 impulse(rho_l) of each other (|g(rc) - 1| <= 0.1; see
impulse()).
"""
import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

EPS_K, SIGMA_A, N_REP, M_ATT, RC_A = 161.00, 3.740, 14.0, 6.0, 10.0
MOLAR_MASS = 16.0428            # g/mol (REFPROP's methane)
NA, KB = 6.02214076e23, 1.380649e-23
RHO_SI = MOLAR_MASS / NA * 1e27  # kg/m^3 per particle/Angstrom^3
P_SI = KB * 1e30 / 1e6           # MPa per K/Angstrom^3
H_SI = KB * NA / 1000.0          # kJ/mol per K

# T (K), rho_l, rho_v (kg/m^3), P_sat (MPa), H_vap (kJ/mol): Setzmann & Wagner (1991) by
# CoolProp 8.0.0, see the docstring.
REF = [(130.0, 394.037, 5.98044, 0.36732, 7.57278),
       (140.0, 376.865, 10.1517, 0.641181, 7.14131),
       (145.0, 367.647, 12.9451, 0.823219, 6.89322),
       (150.0, 357.898, 16.3275, 1.03996, 6.61901),
       (160.0, 336.315, 25.3817, 1.59208, 5.97225),
       (165.0, 324.097, 31.4481, 1.93511, 5.58478),
       (170.0, 310.502, 38.9739, 2.32835, 5.13847),
       (175.0, 294.937, 48.5588, 2.77651, 4.61128),
       (180.0, 276.229, 61.3751, 3.28518, 3.96077),
       (185.0, 251.357, 80.4345, 3.86169, 3.07978),
       (188.0, 228.932, 99.3766, 4.24477, 2.2828),
       (190.0, 200.78, 125.176, 4.51856, 1.29566)]
TC_REF, RHOC_REF = 190.564, 162.66

CONFIG = """# Methane, Mie 14-6 of Potoff & Bernard-Brunel (2009), Gibbs ensemble at T = {T:.1f} K
# (scaling/tools/mc_methane.py setup). Energies in K, lengths in Angstrom.
box = [{el:.4f}, {el:.4f}, {el:.4f}];
particles = {nl};
seed = {seed};
species = ( {{ name = "CH4"; mass = {mass}; }} );
pair = ( {{ style = "mie"; rc = {rc}; tail = "on";
           coeff = {{ CH4 = {{ CH4 = {{ epsilon = {eps}; sigma = {sigma}; n = {n}; m = {m}; }}; }}; }}; }} );
mc = {{ ensemble = "gibbs"; kT = {T:.1f}; cycles = {cycles}; equilibration = {equil};
       box2 = [{ev:.4f}, {ev:.4f}, {ev:.4f}]; particles2 = {nv};
       moves = {{ displacement = 0.795; volume = 0.005; exchange = 0.2; }}; }};
output = {{ dir = "out"; thermo_interval = 10; checkpoint_interval = 2000; }};
"""


def impulse(rho_l, rc):
    """(2 pi / 3) rho^2 rc^3 |U(rc)| in MPa at the liquid density rho_l (kg/m^3): the
    liquid's virial pressure lies (g(rc) - 1) times this above the pressure that the volume
    moves balance (the cut's impulsive term, which the virial with the tail's virial form
    counts with g(rc) = 1 only; docs/validation.md, the LJ npt paragraph), so the two boxes'
    virial pressures differ by that much where g(rc) is not 1."""
    x = SIGMA_A / rc
    c = N_REP / (N_REP - M_ATT) * (N_REP / M_ATT) ** (M_ATT / (N_REP - M_ATT))
    u = c * EPS_K * (x ** N_REP - x ** M_ATT)
    rho = rho_l / RHO_SI
    return 2 * math.pi / 3 * rho * rho * rc ** 3 * abs(u) * P_SI


def ref_at(T):
    """REF interpolated linearly in T (exact at its rows)."""
    import numpy as np
    ts = [r[0] for r in REF]
    if not ts[0] <= T <= ts[-1]:
        return None
    return tuple(float(np.interp(T, ts, [r[k] for r in REF])) for k in range(1, 5))


def config_text(T, cycles, equil, total, rc=RC_A):
    """The Gibbs configuration at T: the boxes start near REF's densities (a start, not an
    answer: the boxes find their own), the vapour box holding about a tenth of the
    particles and never under 2.4 cut-offs."""
    rl, rv = ref_at(T)[:2]
    nl_rho, nv_rho = rl / RHO_SI, rv / RHO_SI
    nv = max(20, int(round(total * 0.1)))
    ev = max((nv / nv_rho) ** (1 / 3), 2.4 * rc)
    nl = total - nv
    return CONFIG.format(T=T, el=(nl / nl_rho) ** (1 / 3), nl=nl, seed=int(round(T * 10)),
                         mass=MOLAR_MASS, rc=rc, eps=EPS_K, sigma=SIGMA_A, n=N_REP, m=M_ATT,
                         cycles=cycles, equil=equil, ev=ev, nv=nv)


def setup(a):
    for T in a.temps:
        d = os.path.join(a.work, "T%.1f" % T)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "gibbs.cfg"), "w") as f:
            f.write(config_text(T, a.cycles, a.equil, a.particles, a.rc))
        print(os.path.join(d, "gibbs.cfg"))
    return 0


def si(run):
    """The run's coexistence results in SI units: {name: (value, error)}."""
    out = {"T": run["T"]}
    for k, f in (("density_liquid", RHO_SI), ("density_vapour", RHO_SI),
                 ("pressure_vapour", P_SI), ("pressure_liquid", P_SI),
                 ("heat_of_vaporization", H_SI)):
        out[k] = (run[k][0] * f, run[k][1] * f)
    out["box_0_liquid_fraction"] = run["box_0_liquid_fraction"][0]
    return out


def compare(runs):
    """Rows (T, name, Vesica, error, REF, deviation in %, deviation in errors)."""
    rows = []
    for r in runs:
        ref = ref_at(r["T"])
        if ref is None:
            continue
        for k, v in zip(("density_liquid", "density_vapour", "pressure_vapour",
                         "heat_of_vaporization"), ref):
            x, e = r[k]
            rows.append((r["T"], k, x, e, v, 100.0 * (x - v) / v,
                         (x - v) / e if e > 0 else float("inf")))
    return rows


def critical(runs):
    """mc_coexistence.fit on the runs in units near 1 (T / 100 K, g/cm^3), back in K and
    kg/m^3."""
    from mc_coexistence import fit
    scaled = [{"T": r["T"] / 100.0,
               "density_liquid": tuple(v / 1000.0 for v in r["density_liquid"]),
               "density_vapour": tuple(v / 1000.0 for v in r["density_vapour"])} for r in runs]
    res = fit(scaled, 0.325, False)
    return {"Tc": 100 * res["Tc"], "Tc_err": 100 * res["Tc_err"], "rhoc": 1000 * res["rhoc"],
            "rhoc_err": 1000 * res["rhoc_err"], "B": 1000 * res["B"],
            "A": 10 * res["A"], "beta": res["beta"]}


def plot(runs, png, crit=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    fig, ax = plt.subplots(1, 3, figsize=(14, 4.4))
    T = [r["T"] for r in runs]
    tr = np.array([x[0] for x in REF])
    for k, lab in (("density_liquid", "liquid"), ("density_vapour", "vapour")):
        ax[0].errorbar([r[k][0] for r in runs], T, xerr=[r[k][1] for r in runs], fmt="o",
                       ms=4, capsize=2, color="C0",
                       label="vesica mc, Mie 14-6, Gibbs" if lab == "liquid" else None)
    ax[0].plot([x[1] for x in REF], tr, "k--", lw=1, label="NIST (Setzmann & Wagner 1991)")
    ax[0].plot([x[2] for x in REF], tr, "k--", lw=1)
    ax[0].plot([RHOC_REF], [TC_REF], "k^", ms=6, label="critical point (NIST)")
    if crit:
        t = np.linspace(min(T), crit["Tc"], 200)
        half = 0.5 * crit["B"] * np.clip(1 - t / crit["Tc"], 0, None) ** crit["beta"]
        mid = crit["rhoc"] + crit["A"] * (t - crit["Tc"])
        ax[0].plot(mid + half, t, "C0-", lw=1, label="fit: scaling law + rectilinear diameter")
        ax[0].plot(mid - half, t, "C0-", lw=1)
        ax[0].errorbar([crit["rhoc"]], [crit["Tc"]], xerr=[crit["rhoc_err"]],
                       yerr=[crit["Tc_err"]], fmt="s", color="C0", ms=5, capsize=2,
                       label="fitted critical point %.1f K, %.0f kg/m^3" % (crit["Tc"],
                                                                          crit["rhoc"]))
    ax[0].set_xlabel("density / kg m^-3")
    ax[0].set_ylabel("T / K")
    ax[0].legend(fontsize=7, loc="lower center")
    ax[1].errorbar([1000.0 / t for t in T], [math.log(r["pressure_vapour"][0]) for r in runs],
                   yerr=[r["pressure_vapour"][1] / r["pressure_vapour"][0] for r in runs],
                   fmt="o", ms=4, capsize=2, label="vesica mc: vapour box's pressure")
    ax[1].plot(1000.0 / tr, np.log([x[3] for x in REF]), "k--", lw=1, label="NIST")
    ax[1].set_xlabel("1000 K / T")
    ax[1].set_ylabel("ln (P_sat / MPa)")
    ax[1].legend(fontsize=7)
    ax[2].errorbar(T, [r["heat_of_vaporization"][0] for r in runs],
                   yerr=[r["heat_of_vaporization"][1] for r in runs], fmt="o", ms=4,
                   capsize=2, label="vesica mc")
    ax[2].plot(tr, [x[4] for x in REF], "k--", lw=1, label="NIST")
    ax[2].set_xlabel("T / K")
    ax[2].set_ylabel("heat of vaporization / kJ mol^-1")
    ax[2].legend(fontsize=7)
    fig.suptitle("Methane, Mie 14-6 (Potoff & Bernard-Brunel 2009), r_c = 10 A with tail "
                 "corrections, NVT Gibbs ensemble, %d particles, %d cycles" % (runs[0]["N"],
                                                                     runs[0]["cycles"]),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print("figure:", png)


def fit_main(a):
    from mc_coexistence import read_run
    runs = []
    for p in a.runs:
        raw = read_run(p)
        r = si(raw)
        r["rows"] = raw["rows"]
        import h5py
        with h5py.File(raw["path"], "r") as f:
            r["N"] = int(round(f["box_0/n"][0] + f["box_1/n"][0]))
            r["cycles"] = int(f.attrs["last_cycle"])
        runs.append(r)
    runs.sort(key=lambda r: r["T"])
    print("%-6s %-20s %-8s %-18s %-8s %-20s %-8s %-16s %-7s %s" % (
        "T/K", "rho_l kg/m3", "NIST", "rho_v kg/m3", "NIST", "P_sat MPa", "NIST",
        "H_vap kJ/mol", "NIST", "P_liquid MPa"))
    for r in runs:
        ref = ref_at(r["T"]) or (float("nan"),) * 4
        f = lambda k, d: "%.*f +- %.*f" % (d, r[k][0], d, r[k][1])
        print("%-6.1f %-20s %-8.2f %-18s %-8.3f %-20s %-8.4f %-16s %-7.3f %s" % (
            r["T"], f("density_liquid", 2), ref[0], f("density_vapour", 3), ref[1],
            f("pressure_vapour", 4), ref[2], f("heat_of_vaporization", 3), ref[3],
            f("pressure_liquid", 3)))
    bad = 0
    for T, k, x, e, v, pct, nerr in compare(runs):
        allow = 0.02 if k == "density_liquid" else 0.15
        ok = k == "heat_of_vaporization" or abs(x - v) <= 4 * e + allow * v
        bad += not ok
        print("  T %.1f %-21s %+7.2f %%  (%+.1f errors)%s" % (T, k, pct, nerr,
                                                           "" if ok else "  beyond the check"))
    for r in runs:
        dp = abs(r["pressure_liquid"][0] - r["pressure_vapour"][0])
        lim = 4 * math.hypot(r["pressure_liquid"][1], r["pressure_vapour"][1]) + \
            0.1 * impulse(r["density_liquid"][0], r.get("rc", RC_A))
        if dp > lim:
            bad += 1
            print("  T %.1f: the boxes' pressures differ by %.4f MPa (limit %.4f)" %
                  (r["T"], dp, lim))
    crit = critical(runs) if len(runs) >= 3 else None
    if crit:
        print("critical point from the %d runs (scaling law, beta 0.325, and rectilinear "
              "diameter): T_c = %.1f +- %.1f K, rho_c = %.1f +- %.1f kg/m^3 (NIST: %.3f K, "
              "%.2f kg/m^3)" % (len(runs), crit["Tc"], crit["Tc_err"], crit["rhoc"],
                                 crit["rhoc_err"], TC_REF, RHOC_REF))
    if a.png:
        plot(runs, a.png, crit)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"runs": runs, "reference": REF}, f, indent=1)
    if a.check:
        print("check:", "passed" if bad == 0 else "FAILED (%d)" % bad)
        return 1 if bad else 0
    return 0


def ci(a):
    import subprocess
    a.work = os.path.abspath(a.work)
    setup(a)
    outs = []
    for T in a.temps:
        d = os.path.join(a.work, "T%.1f" % T)
        subprocess.run([os.path.abspath(a.vesica), "mc", "gibbs.cfg"], cwd=d, check=True,
                       stdout=subprocess.DEVNULL)
        outs.append(os.path.join(d, "out"))
    a.runs, a.png, a.json, a.check = outs, None, None, True
    return fit_main(a)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("setup")
    s.add_argument("work")
    s.add_argument("--temps", type=float, nargs="+", default=[130.0, 145.0, 160.0, 175.0])
    s.add_argument("--cycles", type=int, default=10000)
    s.add_argument("--equil", type=int, default=2000)
    s.add_argument("--particles", type=int, default=300)
    s.add_argument("--rc", type=float, default=RC_A, help="cut-off in Angstrom")
    f = sub.add_parser("fit")
    f.add_argument("runs", nargs="+")
    f.add_argument("--png")
    f.add_argument("--json")
    f.add_argument("--check", action="store_true")
    c = sub.add_parser("ci")
    c.add_argument("vesica")
    c.add_argument("work")
    c.add_argument("--temps", type=float, nargs="+", default=[150.0])
    c.add_argument("--cycles", type=int, default=6000)
    c.add_argument("--equil", type=int, default=1500)
    c.add_argument("--particles", type=int, default=300)
    c.add_argument("--rc", type=float, default=RC_A)
    a = ap.parse_args()
    try:
        import h5py  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as e:
        print("skip: needs numpy and h5py: %s" % e)
        return 77
    return {"setup": setup, "fit": fit_main, "ci": ci}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
