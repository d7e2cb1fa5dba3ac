#!/usr/bin/python3
"""Tests of scaling/tools/transient.py (issue 26, transient double Poiseuille).
  math       : the series is ~0 at t = 0 (1e-3 of the steady peak from 20 terms), equals the
               parabola at large t, and obeys u_t = F + nu u_zz (finite differences);
  synthetic  : 10 synthetic profiles.h5 (Vesica's layout, docs/file-formats.md) of the series,
               computed here independently, plus Gaussian noise of known size: the tool
               recovers nu within 3 standard errors and 1%, every deviation is within 6
               standard errors (t with 9 degrees of freedom, 384 values), and with nu 20% off
               it exits 1;
  vesica BIN : 6 seeds of a small CPU run of configs/transient-poiseuille.cfg (6 x 6 x 12,
               windows at T = 1 ... 19): the tool reads Vesica's own files; nu within
               0.15 - 0.6, no deviation above 6 standard errors.
"""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "scaling", "tools", "transient.py")
spec = importlib.util.spec_from_file_location("transient", TOOL)
tr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tr)


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    return 0 if cond else 1


def math():
    bad = 0
    F, nu, d = 0.01, 0.3, 10.0
    peak = F * d * d / (8 * nu)
    z = np.linspace(-d / 2, d / 2, 2001)
    u0 = tr.series(z, 0.0, F, nu, d, terms=20)
    bad += check(np.abs(u0).max() < 1e-3 * peak, f"t = 0, 20 terms: max |u| / peak = "
                 f"{np.abs(u0).max() / peak:.2e} < 1e-3")
    u0 = tr.series(z, 0.0, F, nu, d, terms=200)
    bad += check(np.abs(u0).max() < 1e-5 * peak, f"t = 0, 200 terms: {np.abs(u0).max() / peak:.2e} < 1e-5")
    tl = 50 * d * d / nu
    par = F * d * d / (8 * nu) * (1 - (2 * z / d) ** 2)
    ul = tr.series(z, tl, F, nu, d)
    bad += check(np.abs(ul - par).max() < 1e-12 * peak, "large t: the parabola")
    # the diffusion equation with a source, at t = d^2 / (20 nu) (several modes alive)
    t, h, k = d * d / (20 * nu), 1e-3, 1e-2
    zi = np.linspace(-0.4 * d, 0.4 * d, 9)
    ut = (tr.series(zi, t + k, F, nu, d) - tr.series(zi, t - k, F, nu, d)) / (2 * k)
    uzz = (tr.series(zi + h, t, F, nu, d) - 2 * tr.series(zi, t, F, nu, d)
           + tr.series(zi - h, t, F, nu, d)) / h ** 2
    res = np.abs(ut - F - nu * uzz).max()
    bad += check(res < 1e-4 * F, f"u_t = F + nu u_zz: residual {res / F:.1e} F")
    # the box: antisymmetric halves, zero on the planes where the force changes sign
    L = 2 * d
    zb = np.array([0.0, L / 4, L / 2, 3 * L / 4])
    ub = tr.box_profile(zb, tl, F, nu, L)
    bad += check(abs(ub[0]) < 1e-9 * peak and abs(ub[2]) < 1e-9 * peak
                 and abs(ub[1] - peak) < 1e-9 * peak and abs(ub[3] + peak) < 1e-9 * peak,
                 "box: +peak at L/4, -peak at 3L/4, 0 at 0 and L/2")
    return bad


def write_profiles(path, box, axis, bins, every, dt, times, hw, vel, err):
    """profiles.h5 in the layout of src/io/profiles_h5.c (docs/file-formats.md)."""
    L = box["xyz".index(axis)]
    w = L / bins
    with h5py.File(path, "w") as f:
        f.attrs["axis"] = axis
        f.attrs["bins"] = bins
        f.attrs["every"] = every
        f.attrs["window"] = 0
        f.attrs["times"] = np.array(times, dtype=float)
        f.attrs["half_width"] = hw
        f.attrs["dt"] = dt
        f.attrs["box"] = np.array(box, dtype=float)
        f.attrs["bin_width"] = w
        f.attrs["configuration"] = "# synthetic\n"
        f["bin_centers"] = (np.arange(bins) + 0.5) * w
        s0 = np.array([int(np.ceil((T - hw) / dt - 1e-9)) for T in times], dtype=np.int64)
        s1 = np.array([int(np.floor((T + hw) / dt + 1e-9)) for T in times], dtype=np.int64)
        f["windows/step_first"], f["windows/step_last"] = s0, s1
        f["windows/time_first"], f["windows/time_last"] = s0 * dt, s1 * dt
        f["windows/samples"] = (s1 // every - (s0 - 1) // every).astype(np.int64)
        nw = len(times)
        f["all/density"] = np.full((nw, bins), 5.0)
        f["all/density_stderr"] = np.full((nw, bins), 0.01)
        f["all/temperature"] = np.full((nw, bins), 1.0)
        f["all/temperature_stderr"] = np.full((nw, bins), 0.01)
        f["all/velocity"] = vel
        f["all/velocity_stderr"] = err


def exact_bin(z0, z1, t, F, nu, L, n=400):
    """Independent of the tool: the bin average of the series, written out in full."""
    z = z0 + (np.arange(n) + 0.5) / n * (z1 - z0)
    d = L / 2
    lower = z % L < d
    s = np.where(lower, 1.0, -1.0)
    zp = np.where(lower, z - L / 4, z - 3 * L / 4)
    u = F * d * d / (8 * nu) * (1 - (2 * zp / d) ** 2)
    for m in range(400):
        k = 2 * m + 1
        u = u - (4 * (-1) ** m * F * d * d / (nu * np.pi ** 3 * k ** 3)
                 * np.cos(k * np.pi * zp / d) * np.exp(-k * k * np.pi ** 2 * nu * t / d ** 2))
    out = s * u
    return out.mean()


def run_tool(args):
    p = subprocess.run([sys.executable, TOOL] + args, capture_output=True, text=True)
    print(p.stdout + p.stderr)
    return p


def synthetic():
    bad = 0
    rng = np.random.default_rng(2026)
    box, bins, every, dt, hw = [20.0, 4.0, 40.0], 32, 10, 0.01, 0.5
    F, nu = 0.002, 0.3
    L = box[2]
    times = [5.0, 10.0, 25.0, 50.0, 100.0, 500.0]
    sigma = 0.002
    clean = np.zeros((len(times), bins))
    edges = np.arange(bins + 1) * L / bins
    for w, T in enumerate(times):
        ts = np.arange(int(round((T - hw) / dt)), int(round((T + hw) / dt)) + 1, every) * dt
        ts_mid = np.array([ts[0], ts[len(ts) // 2], ts[-1]])  # linear in t over a window
        for b in range(bins):
            vals = [exact_bin(edges[b], edges[b + 1], t, F, nu, L, n=40) for t in ts_mid]
            clean[w, b] = (vals[0] + 4 * vals[1] + vals[2]) / 6  # Simpson over the window
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for k in range(10):
            vel = np.zeros((len(times), bins, 3))
            vel[:, :, 0] = clean + rng.normal(0.0, sigma, clean.shape)
            vel[:, :, 2] = rng.normal(0.0, sigma, clean.shape)
            err = np.full((len(times), bins, 3), sigma)
            p = os.path.join(tmp, f"seed_{k}.h5")
            write_profiles(p, box, "z", bins, every, dt, times, hw, vel, err)
            files.append(p)
        png = os.path.join(tmp, "t.png")
        p = run_tool(files + ["--g", str(F), "--png", png, "--expect-max-z", "6"])
        bad += check(p.returncode == 0, "synthetic: every deviation within 6 standard errors")
        m = re.search(r"nu = ([0-9.]+) \+- ([0-9.]+)", p.stdout)
        got, se = float(m.group(1)), float(m.group(2))
        bad += check(abs(got - nu) < 3 * se and abs(got - nu) < 0.01 * nu,
                     f"synthetic: nu = {got:.5f} +- {se:.5f} against {nu}")
        bad += check(os.path.getsize(png) > 10000, "synthetic: figure written")
        p = run_tool(files + ["--g", str(F), "--nu", str(1.2 * nu), "--expect-max-z", "6"])
        bad += check(p.returncode == 1, "synthetic: nu 20% off is caught (exit 1)")
        # two runs, standard errors pooled over the bins: the known noise sigma / sqrt(2)
        p = run_tool(files[:2] + ["--g", str(F), "--nu", str(nu), "--pooled",
                                  "--expect-max-z", "5"])
        bad += check(p.returncode == 0, "synthetic, 2 runs pooled: deviations within 5 se")
        ses = [float(line.split()[-1]) for line in p.stdout.splitlines()
               if re.match(r"\s+[0-9.]+\s+[0-9]+\s", line)]
        want = sigma / np.sqrt(2.0)
        bad += check(len(ses) == len(times) and all(abs(v / want - 1) < 0.3 for v in ses),
                     f"synthetic, 2 runs pooled: se {ses} against {want:.5f}")
        p = run_tool(files[:2] + ["--g", str(F), "--nu", str(1.2 * nu), "--pooled",
                                  "--expect-max-z", "6"])
        bad += check(p.returncode == 1, "synthetic, 2 runs pooled: nu 20% off is caught")
    return bad


def vesica(binary):
    bad = 0
    cfg = os.path.join(ROOT, "configs", "transient-poiseuille.cfg")
    with tempfile.TemporaryDirectory() as tmp:
        procs, files = [], []
        for k in range(1, 7):
            out = os.path.join(tmp, f"seed_{k}")
            cmd = [binary, "run", cfg, "--set", "box=[6.0,6.0,12.0]", "--set", "particles=2160",
                   "--set", "backend=cpu", "--set", "flow.g=0.05", "--set", "integrator.steps=2000",
                   "--set", "profiles.times=[1.0,2.0,5.0,10.0,19.0]", "--set", "profiles.bins=16",
                   "--set", "profiles.every=5", "--set", f"seed={k}", "--set", f"output.dir={out}",
                   "--set", "output.checkpoint_interval=0", "--set", "output.thermo_interval=500"]
            procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
            files.append(os.path.join(out, "profiles.h5"))
            if len(procs) == 2:  # two at a time
                for q in procs:
                    _, e = q.communicate()
                    bad += check(q.returncode == 0, f"vesica run exit 0 {e.decode()[-300:]}")
                procs = []
        p = run_tool(files + ["--g", "0.05", "--expect-max-z", "6"])
        bad += check(p.returncode == 0, "vesica: every deviation within 6 standard errors")
        m = re.search(r"nu = ([0-9.]+)", p.stdout)
        bad += check(m is not None and 0.15 < float(m.group(1)) < 0.6, "vesica: nu plausible")
    return bad


if __name__ == "__main__":
    mode = sys.argv[1]
    bad = math() if mode == "math" else synthetic() if mode == "synthetic" else vesica(sys.argv[2])
    sys.exit(1 if bad else 0)
