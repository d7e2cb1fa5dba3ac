#!/usr/bin/env python3
"""Statistical checks of the ensembles (integrator.kind) against exact results.

ensemble_check.py MODE VESICA CONFIG OUTDIR [--ranks N] [--set KEY=VALUE]...

MODE
  conserved  Velocity Verlet's energy error is O(dt^2) and bounded: the conserved_energy column
             (nve: K + U; nose_hoover: K + U + E_chain) of runs at dt and dt/2 over the same
             time, after 5 time units, fluctuates 4 times less at dt/2 (accepted: 2.8 to 5.7;
             a first-order scheme gives 2), its relative fluctuation at dt/2 stays below
             3e-5 and its drift over the window below 5 times the fluctuation and 2e-4 of
             the energy. A first-order drift (x += dt v) fails: ratio 2.6, relative
             fluctuation 0.2.
  canonical  The kinetic energy K of the canonical ensemble is a Gamma variable of shape f/2
             and scale kT: <K> = f kT / 2 and Var(K) = f (kT)^2 / 2, f = 3N - 3 where the
             thermostat conserves the momentum (nose_hoover), else 3N. Both are compared with
             the run's, after 10 time units, within 4 standard errors from 20 block averages
             (plus 0.1% of the value for the O(dt^2) bias of the discretisation).
  com        integrator.remove_com_every = 5 with thermo rows every 5 steps: the total momentum
             of every row after step 0 is zero to round-off (|P| below 1e-9 of the thermal
             momentum sqrt(N m kT)), while the thermostat (langevin, andersen, brownian) does
             not conserve it between removals (some row of a second run with rows every 3
             steps has |P| above 1e-3 of it).
  mean       Only <K> as above (berendsen, which is not canonical: its Var(K) is too small).
  brownian   Free particles (dpd.a = 0): the displacement of each species over a time t is
             Gaussian with variance 2 D t per dimension, D = kT / (m gamma), exactly
             (Euler-Maruyama is exact without forces). From the trajectory's unwrapped
             positions: the increments between frames (independent) and the whole run, each
             within 4 standard errors (an MSD over n samples has a relative error
             sqrt(2 / n)); and the mean of K of the Maxwell-Boltzmann velocity draws.
Exit 0 when every check passes, 1 otherwise; prints each number and its bound.
"""
import argparse
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
except ImportError:  # the analysis Python lacks numpy: skip with the reason, do not fail
    print("skip: %s has no numpy (configure with -DVESICA_ANALYSIS_PYTHON=a Python with numpy)"
          % sys.executable)
    sys.exit(77)


def run(args, out, sets):
    shutil.rmtree(out, ignore_errors=True)
    cmd = ["mpiexec", "--oversubscribe", "-n", str(args.ranks), args.vesica, "run", args.config,
           "--set", "output.dir=" + out]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit("vesica failed (%d): %s" % (r.returncode, r.stderr[-2000:]))
    return np.genfromtxt(os.path.join(out, "thermo.csv"), delimiter=",", names=True)


def setting(sets, key, default=None):
    for s in reversed(sets):
        k, _, v = s.partition("=")
        if k == key:
            return v
    return default


class Checker:
    def __init__(self):
        self.failed = 0

    def check(self, what, ok, detail):
        print("%s %s: %s" % ("ok  " if ok else "FAIL", what, detail))
        self.failed += not ok


def conserved(args, c):
    dt = float(setting(args.set, "integrator.dt", "0.01"))
    span = 20.0
    stds, fluct, drifts = [], [], []
    for k, step in enumerate((dt, dt / 2)):
        steps = int(round(span / step))
        every = max(1, int(round(0.1 / step)))
        d = run(args, os.path.join(args.out, "dt%d" % k),
                args.set + ["integrator.dt=%r" % step, "integrator.steps=%d" % steps,
                            "output.thermo_interval=%d" % every])
        t, e = d["time"], d["conserved_energy"]
        m = t >= 5.0
        stds.append(np.std(e[m]))
        line = np.polyfit(t[m], e[m], 1)
        drifts.append(line[0] * (t[m][-1] - t[m][0]))
        # the fluctuation about the drift: the O(dt^2) part, apart from the slow random walk
        # the force's kink at r_c adds (which varies from one trajectory to another)
        fluct.append(np.std(e[m] - np.polyval(line, t[m])))
        mean = abs(np.mean(e[m]))
        print("dt %g: <E> %.10g, std %.4g, about the drift %.4g (relative %.3g), drift over "
              "the window %.4g" % (step, mean, stds[-1], fluct[-1], fluct[-1] / mean, drifts[-1]))
    ratio = fluct[0] / fluct[1]
    c.check("fluctuation ratio dt / (dt/2)", 2.8 <= ratio <= 5.7, "%.3f in [2.8, 5.7]" % ratio)
    c.check("relative fluctuation at dt/2", fluct[1] / mean < 3e-5,
            "%.3g < 3e-5" % (fluct[1] / mean))
    for k in range(2):
        c.check("drift %d" % k, abs(drifts[k]) < 5 * stds[k] and abs(drifts[k]) < 2e-4 * mean,
                "|%.4g| < 5 x %.4g and < 2e-4 |<E>|" % (drifts[k], stds[k]))


def com(args, c):
    scale = np.sqrt(args.particles * 1.5)  # sqrt(N <m> kT), kT = 1, masses 1 and 2
    d = run(args, os.path.join(args.out, "every5"), args.set +
            ["integrator.remove_com_every=5", "output.thermo_interval=5"])
    p = np.sqrt(d["px"] ** 2 + d["py"] ** 2 + d["pz"] ** 2)[1:]
    c.check("|P| after each removal", np.max(p) < 1e-9 * scale,
            "largest %.3g < %.3g" % (np.max(p), 1e-9 * scale))
    d = run(args, os.path.join(args.out, "every3"), args.set +
            ["integrator.remove_com_every=5", "output.thermo_interval=3"])
    p = np.sqrt(d["px"] ** 2 + d["py"] ** 2 + d["pz"] ** 2)[1:]
    c.check("|P| between removals", np.max(p) > 1e-3 * scale,
            "largest %.3g > %.3g" % (np.max(p), 1e-3 * scale))


def block_stats(x, nb=20):
    """Mean and variance of x with their standard errors from nb blocks."""
    n = len(x) // nb * nb
    x = x[:n]
    mean = np.mean(x)
    blocks = x.reshape(nb, -1)
    bm = blocks.mean(axis=1)
    bv = ((blocks - mean) ** 2).mean(axis=1)
    return mean, np.std(bm, ddof=1) / np.sqrt(nb), np.mean(bv), np.std(bv, ddof=1) / np.sqrt(nb)


def canonical(args, c, variance):
    d = run(args, os.path.join(args.out, "run"), args.set)
    kt = float(setting(args.set, "dpd.kT", "1.0"))
    n = args.particles
    kind = setting(args.set, "integrator.kind")
    f = 3 * n - 3 if kind in ("nose_hoover", "berendsen", "nve", "dpd") else 3 * n
    t, k = d["time"], d["kinetic_energy"]
    mean, se_mean, var, se_var = block_stats(k[t >= 10.0])
    want_mean, want_var = f * kt / 2, f * kt * kt / 2
    tol = 4 * se_mean + 0.001 * want_mean
    c.check("<K>", abs(mean - want_mean) <= tol,
            "%.5g, canonical %.5g (f = %d), |difference| %.3g <= %.3g (standard error %.3g)"
            % (mean, want_mean, f, abs(mean - want_mean), tol, se_mean))
    if variance:
        tol = 4 * se_var + 0.001 * want_var
        c.check("Var(K)", abs(var - want_var) <= tol,
                "%.5g, canonical %.5g, |difference| %.3g <= %.3g (standard error %.3g)"
                % (var, want_var, abs(var - want_var), tol, se_var))
    else:
        print("info Var(K) %.5g (canonical %.5g)" % (var, want_var))


def brownian(args, c):
    import h5py
    out = os.path.join(args.out, "run")
    run(args, out, args.set)
    kt = float(setting(args.set, "dpd.kT", "1.0"))
    gamma = float(setting(args.set, "integrator.gamma"))
    with h5py.File(os.path.join(out, "traj.h5md"), "r") as h:
        part = h["particles/all"]
        x = part["position/value"][()]
        img = part["image/value"][()]
        t = part["position/time"][()]
        species = part["species"][()]
        edges = part["box/edges/value"][()]
    if edges.ndim == 3:  # one 3 x 3 matrix per frame: the diagonal of an orthorhombic box
        edges = np.diagonal(edges, axis1=1, axis2=2)
    u = x + img * (edges if edges.ndim == 1 else edges[:, None, :])
    masses = {0: 1.0, 1: 2.0}
    for s, m in masses.items():
        sel = species == s
        d_exact = kt / (m * gamma)
        # free particles: the displacements over consecutive frame intervals are independent
        # Gaussians of variance 2 D dt_frame per dimension
        lag = t[1] - t[0]
        disp = u[1:, sel, :] - u[:-1, sel, :]
        msd = np.mean(disp ** 2)
        want = 2 * d_exact * lag
        se = want * np.sqrt(2.0 / disp.size)
        c.check("species %d, D from %d increments over %.3g" % (s, disp.size, lag),
                abs(msd - want) <= 4 * se,
                "D %.5g, exact kT / (m gamma) = %.5g, |difference| %.3g <= 4 se %.3g"
                % (msd / (2 * lag), d_exact, abs(msd - want) / (2 * lag), 4 * se / (2 * lag)))
        # and the whole run as one displacement (the same law, fewer samples)
        whole = u[-1, sel, :] - u[0, sel, :]
        want = 2 * d_exact * (t[-1] - t[0])
        se = want * np.sqrt(2.0 / whole.size)
        c.check("species %d, MSD over %.3g" % (s, t[-1] - t[0]),
                abs(np.mean(whole ** 2) - want) <= 4 * se,
                "%.5g, 2 D t %.5g, 4 se %.3g" % (np.mean(whole ** 2), want, 4 * se))
    # the velocities are Maxwell-Boltzmann draws: every row's K is an independent Gamma(3N/2)
    d = np.genfromtxt(os.path.join(out, "thermo.csv"), delimiter=",", names=True)
    k = d["kinetic_energy"][1:]
    n3 = 3 * args.particles
    se = np.sqrt(n3 / 2.0) * kt / np.sqrt(len(k))
    c.check("<K> of the velocity draws", abs(np.mean(k) - n3 * kt / 2) <= 4 * se,
            "%.5g, 3N kT / 2 = %.5g, 4 se %.3g" % (np.mean(k), n3 * kt / 2, 4 * se))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["conserved", "canonical", "mean", "brownian", "com"])
    p.add_argument("vesica")
    p.add_argument("config")
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--particles", type=int, default=375)
    p.add_argument("--set", action="append", default=[])
    args = p.parse_args()
    c = Checker()
    if args.mode == "conserved":
        conserved(args, c)
    elif args.mode == "com":
        com(args, c)
    elif args.mode in ("canonical", "mean"):
        canonical(args, c, args.mode == "canonical")
    else:
        brownian(args, c)
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
