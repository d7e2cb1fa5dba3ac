#!/usr/bin/env python3
"""The npt barostat on the LJ fluid at a published state point (CPU; short enough for CI).

Usage: npt_lj.py VESICA WORKDIR [--steps N] [--skip-time T] [--ranks R] [--set KEY=VALUE]...
                 [--analyze-only]   (the rows WORKDIR/npt/thermo.csv holds now: a long run
                                     read while it goes on, or one that was stopped)

Reference state: the NIST Standard Reference Simulation Website, Lennard-Jones fluid, Monte
Carlo NVT results (https://mmlapps.nist.gov/srs/LJ_PURE/mc.htm; the point tests/pair/lj_eos.py
checks): N = 500, truncated at r_c = 3 sigma with analytic long-range corrections,
T* = 0.85, rho* = 0.86: P* = 1.2660. In npt at P* = 1.2660 and T* = 0.85 the mean density
must be 0.86.

The volume fluctuations of the isothermal-isobaric ensemble are <dV^2> = kT <V> kappa_T, with
kappa_T = 1 / (rho dP/drho) from the equation of state of Johnson, Zollweg & Gubbins (Mol.
Phys. 78, 591, 1993; the full LJ fluid, which the truncated one with tail corrections
approximates: it gives P* = 1.2642 at the NIST point, 0.15% below NIST's 1.2660):
dP/drho = 20.63 at (0.86, 0.85), kappa_T = 0.0564 (the paper quotes its pressures within a
few per cent in the dense liquid; 5% is allowed below for the slope).

The run: the fcc lattice at rho* = 0.86 (scaling/tools/lattice_h5md.py) melted by 10 tau of
Nose-Hoover NVT (tests/pair/lj-eos.cfg, nose_hoover, tau = 0.5), then npt-lj.cfg (tau = 0.5,
tau_p = 2, chain 3, dt = 0.004) for STEPS steps (default 40000, 160 tau) from its last frame.
After --skip-time (default 20 tau), with block averages (10 blocks) for the errors:
  <T>             within 0.01 of 0.85;
  <rho>           within 0.004 + 3 block errors of 0.86 (0.004: the density a temperature
                  error of 0.01 would shift at this thermal expansion, 0.45);
  Var(V) / (kT <V> kappa_T)  within 3 block errors + 0.05 of 1 (the relative error of a
                  variance from n_eff independent samples is sqrt(2 / n_eff): about 0.25 in
                  140 tau, whose block estimate is the bound).
The long measurement (scaling/tools/npt_lj.sh: 2000 tau) narrows all three (docs/validation.md).
Exit 0 when every check passes, 1 otherwise, 77 without numpy or h5py.
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
T_REF, P_REF, RHO_REF, N = 0.85, 1.2660, 0.86, 500

# Johnson, Zollweg & Gubbins (1993), Table 10: x1 ... x32 of the modified Benedict-Webb-Rubin
# equation of state of the full Lennard-Jones fluid.
JZG_X = [0.8623085097507421, 2.976218765822098, -8.402230115796038, 0.1054136629203555,
         -0.8564583828174598, 1.582759470107601, 0.7639421948305453, 1.753173414312048,
         2798.291772190376, -0.04838060023366390, 0.9963265197721935, -36.98000291272493,
         20.84012299434161, 83.05402124717080, -957.4799715203068, -147.7746229234994,
         63.98607852471505, 16.03993673294834, 68.05916615864377, -2791.293578795945,
         -6.245128304568454, -8116.836104958410, 14.88735559561229, -10593.46754655084,
         -113.1607632802822, -8867.771540418822, -39.86982844450543, -4689.270299917261,
         259.3535277438717, -2694.523589434903, -721.8487631550215, 172.1802063863269]


def jzg_pressure(rho, t):
    """P(rho, T) of Johnson et al. (1993), eq. 7 with the a_i, b_i of their Table 5."""
    x = [None] + JZG_X
    a = [x[1] * t + x[2] * t ** 0.5 + x[3] + x[4] / t + x[5] / t ** 2,
         x[6] * t + x[7] + x[8] / t + x[9] / t ** 2,
         x[10] * t + x[11] + x[12] / t,
         x[13],
         x[14] / t + x[15] / t ** 2,
         x[16] / t,
         x[17] / t + x[18] / t ** 2,
         x[19] / t ** 2]
    b = [x[20] / t ** 2 + x[21] / t ** 3,
         x[22] / t ** 2 + x[23] / t ** 4,
         x[24] / t ** 2 + x[25] / t ** 3,
         x[26] / t ** 2 + x[27] / t ** 4,
         x[28] / t ** 2 + x[29] / t ** 3,
         x[30] / t ** 2 + x[31] / t ** 3 + x[32] / t ** 4]
    f = pow(2.718281828459045, -3.0 * rho * rho)
    return (rho * t + sum(a[i] * rho ** (i + 2) for i in range(8)) +
            f * sum(b[i] * rho ** (2 * i + 3) for i in range(6)))


def kappa_t(rho, t, h=1e-4):
    slope = (jzg_pressure(rho + h, t) - jzg_pressure(rho - h, t)) / (2 * h)
    return 1.0 / (rho * slope)


def vesica(args, cwd, cfg, sets):
    cmd = [args.vesica, "run", cfg] + sum((["--set", s] for s in sets), [])
    if args.ranks > 1:
        cmd = ["mpiexec", "--oversubscribe", "-n", str(args.ranks)] + cmd
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        sys.exit("vesica failed (%d): %s" % (r.returncode, r.stderr[-2000:]))


def blocks(x, nb=10):
    """Mean and variance of x, with standard errors from nb blocks."""
    import numpy as np
    n = len(x) // nb * nb
    b = np.asarray(x[:n]).reshape(nb, -1)
    mean = np.mean(b)
    bm = b.mean(axis=1)
    bv = ((b - mean) ** 2).mean(axis=1)
    return mean, np.std(bm, ddof=1) / np.sqrt(nb), np.mean(bv), np.std(bv, ddof=1) / np.sqrt(nb)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vesica")
    ap.add_argument("work")
    ap.add_argument("--steps", type=int, default=40000)
    ap.add_argument("--skip-time", type=float, default=20.0)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--analyze-only", action="store_true")
    args = ap.parse_args()
    args.vesica = os.path.abspath(args.vesica)
    try:
        import numpy as np
    except ImportError:
        print("skip: numpy missing")
        return 77
    work = os.path.abspath(args.work)
    if not args.analyze_only:
        status = simulate(args, work)
        if status:
            return status
    return analyze(work, args.skip_time)


def simulate(args, work):
    """The lattice, the NVT melt and the npt run in `work`; 0, or 77 without h5py."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    r = subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "scaling", "tools",
                                                     "lattice_h5md.py"), "lattice.h5",
                        "--cells", "5", "--density", str(RHO_REF)], cwd=work,
                       stdout=subprocess.DEVNULL)
    if r.returncode != 0:
        print("skip: cannot write the lattice (h5py missing?)")
        return 77
    vesica(args, work, os.path.join(HERE, "..", "pair", "lj-eos.cfg"),
           ["integrator.kind=nose_hoover", "integrator.tau=0.5", "dpd.gamma=0",
            "integrator.steps=2500", "output.dir=melt", "output.trajectory_interval=2500"])
    vesica(args, work, os.path.join(HERE, "npt-lj.cfg"),
           ["integrator.steps=%d" % args.steps, "output.dir=npt"] + args.set)
    return 0


def analyze(work, skip_time):
    import numpy as np
    d = np.genfromtxt(os.path.join(work, "npt", "thermo.csv"), delimiter=",", names=True,
                      invalid_raise=False)
    keep = d["time"] >= skip_time
    t, v = d["temperature"][keep], d["volume"][keep]
    kappa = kappa_t(RHO_REF, T_REF)
    t_mean, t_err, _, _ = blocks(t)
    rho_mean, rho_err, _, _ = blocks(N / v)
    v_mean, _, v_var, v_var_err = blocks(v)
    want_var = T_REF * v_mean * kappa
    ratio, ratio_err = v_var / want_var, v_var_err / want_var
    p_mean, p_err, _, _ = blocks(d["pressure"][keep])
    print("%d rows over %.0f tau (after %.0f); kappa_T (JZG) = %.4f" %
          (len(v), d["time"][-1] - skip_time, skip_time, kappa))
    print("<P>   = %.4f +- %.4f (target %.4f)" % (p_mean, p_err, P_REF))
    checks = [
        ("<T>", t_mean, t_err, T_REF, 0.01),
        ("<rho>", rho_mean, rho_err, RHO_REF, 0.004 + 3 * rho_err),
        ("Var(V) / (kT <V> kappa_T)", ratio, ratio_err, 1.0, 0.05 + 3 * ratio_err),
    ]
    failed = 0
    for name, value, err, ref, tol in checks:
        ok = abs(value - ref) <= tol
        failed += not ok
        print("%-26s = %.4f +- %.4f (reference %.4f, allowed +-%.4f)  %s" %
              (name, value, err, ref, tol, "ok" if ok else "FAIL"))
    print("Var(V) = %.2f, kT <V> kappa_T = %.2f" % (v_var, want_var))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
