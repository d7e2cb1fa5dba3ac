#!/usr/bin/env python3
"""The mie pair style in whole runs: MD on the CPU against numpy, MC against lj, bad input,
and the GPU against the CPU.

Usage: mie_check.py VESICA_BINARY WORKDIR cpu
       mie_check.py VESICA_BINARY WORKDIR gpu PRECISION   (double or mixed)

cpu:
  - MD, one step of dt 1e-4 at zero velocities on the lattice of lammps_pair.py (256
    particles of two species), three species pairs with their own eps, sigma, n, m and
    cut-off: with shift = "on", the forces of the step-1 checkpoint against numpy's closed
    form C eps (n (s/r)^n - m (s/r)^m) / r to 1e-10 of the largest force, the potential
    energy and the virial of thermo.csv to 1e-10 relative; with tail = "on" instead, the
    energy and the pressure against the closed form plus the tail corrections integrated
    here (scipy's quad of r^2 U and r^3 U' from rc to infinity) to 1e-9 relative;
  - MC, NVT, 300 cycles: mie with n = 12, m = 6 against lj with the same eps, sigma and
    cut-off (tail corrections on): every thermo row equal to 1e-9 relative (the same
    accepted moves: the energies differ by round-off only), and mie 14-6 runs;
  - bad input: `vesica run` and `vesica mc` of a mie pair with n < m exit 2 with one line
    naming the file, the line and the key.
gpu (skips, 77, without a GPU): the shifted and the tail cases above on the GPU in the given
  precision, with the default partner search and (double) the cell list, and on 2 ranks:
  forces to 1e-10 (double) or 2e-5 (mixed) of the largest, energy and pressure to 1e-10 or
  1e-5 relative of the CPU's; and two GPU runs of 200 steps (DPD thermostat) write identical
  thermo.csv.
Exits 77 (skip) without numpy, scipy or h5py.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))

# (eps, sigma, n, m, rc or None for the style's rc)
COEFF = {("A", "A"): (1.0, 1.0, 14.0, 6.0, None), ("A", "B"): (0.8, 1.05, 12.5, 6.5, 2.2),
         ("B", "B"): (1.2, 0.9, 20.0, 7.0, 2.0)}
RC = 2.5


def mie_text(options):
    import pair_cases
    return pair_cases.style("mie", options + " rc = %r;" % RC, {
        ij: "epsilon = %r; sigma = %r; n = %r; m = %r;%s" % (
            e, s, n, m, "" if rc is None else " rc = %r;" % rc)
        for ij, (e, s, n, m, rc) in COEFF.items()})


def mie(r, eps, s, n, m):
    c = n / (n - m) * (n / m) ** (m / (n - m))
    rn, rm = (s / r) ** n, (s / r) ** m
    return c * eps * (rn - rm), c * eps * (n * rn - m * rm) / r


def closed_form(x, sp, box, shift):
    n = len(x)
    force = np.zeros_like(x)
    energy = virial = 0.0
    for i in range(n - 1):
        d = x[i] - x[i + 1:]
        d -= box * np.round(d / box)
        r = np.sqrt((d * d).sum(axis=1))
        for k, j in enumerate(range(i + 1, n)):
            eps, s, nn, mm, rc = COEFF[tuple(sorted(("AB"[sp[i]], "AB"[sp[j]])))]
            rc = RC if rc is None else rc
            if r[k] >= rc:
                continue
            u, f = mie(r[k], eps, s, nn, mm)
            energy += u - (mie(rc, eps, s, nn, mm)[0] if shift else 0.0)
            virial += f * r[k]
            force[i] += f * d[k] / r[k]
            force[j] -= f * d[k] / r[k]
    return force, energy, virial


def tail(counts, volume):
    """2 pi / V sum N_i N_j int_rc^inf r^2 U dr, and -2 pi / V ... r^3 U' (quad)."""
    from scipy.integrate import quad
    e = w = 0.0
    for (i, j), (eps, s, n, m, rc) in COEFF.items():
        rc = RC if rc is None else rc
        pairs = counts[i] * counts[j] * (1 if i == j else 2)
        ie = quad(lambda r: r * r * mie(r, eps, s, n, m)[0], rc, np.inf, epsabs=0, epsrel=1e-13)[0]
        iw = quad(lambda r: r ** 3 * mie(r, eps, s, n, m)[1], rc, np.inf, epsabs=0, epsrel=1e-13)[0]
        e += 2 * np.pi / volume * pairs * ie
        w += 2 * np.pi / volume * pairs * iw
    return e, w


def lattice(work):
    path = os.path.join(work, "lattice.h5")
    subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "scaling", "tools",
                                                 "lattice_h5md.py"), path, "--cells", "4",
                    "--density", "0.8", "--species", "2", "--jitter", "0.15", "--seed", "5"],
                   check=True, stdout=subprocess.DEVNULL)
    return path, (4 / 0.8) ** (1 / 3) * 4


def run(binary, cfg, out, sets=(), ranks=1):
    cmd = [binary, "run", cfg, "--set", "output.dir=" + out] + \
        [a for s in sets for a in ("--set", s)]
    if ranks > 1:
        cmd = ["mpiexec", "--oversubscribe", "-n", str(ranks)] + cmd
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        print(r.stdout)
        raise SystemExit("FAIL: %s exited %d" % (" ".join(cmd), r.returncode))
    return out


def md_cases(work):
    import pair_cases
    lat, box = lattice(work)
    cfgs = {}
    for name, options in (("shift", 'shift = "on";'), ("tail", 'tail = "on";')):
        cfgs[name] = os.path.join(work, "mie-%s.cfg" % name)
        with open(cfgs[name], "w") as c:
            c.write(pair_cases.config(mie_text(options), None, lat, "unused", ""))
    return cfgs, box


def check_md_cpu(binary, work):
    from lammps_pair import read_step1
    cfgs, box = md_cases(work)
    failed = 0
    for name, cfg in cfgs.items():
        x, sp, force, row = read_step1(run(binary, cfg, os.path.join(work, "md_" + name)))
        ref_f, ref_e, ref_w = closed_form(x, sp, box, name == "shift")
        n, volume = len(x), box ** 3
        tol = 1e-10
        if name == "tail":
            counts = {"A": int((sp == 0).sum()), "B": int((sp == 1).sum())}
            te, tw = tail(counts, volume)
            ref_e += te
            ref_w += tw
            tol = 1e-9
        pvir = row["pressure"] - n * row["temperature"] / volume
        df = np.abs(force - ref_f).max() / np.abs(ref_f).max()
        de = abs(row["potential_energy"] - ref_e) / abs(ref_e)
        dw = abs(3 * volume * pvir - ref_w) / abs(ref_w)
        ok = df < 1e-10 and de < tol and dw < tol
        failed += not ok
        print("MD cpu %-5s: force %.2e, energy %.2e (%.12g vs %.12g), virial %.2e  %s" %
              (name, df, de, row["potential_energy"], ref_e, dw, "ok" if ok else "FAIL"))
    return failed


MC = """box = [7.0, 7.0, 7.0];
particles = 250;
seed = 21;
species = ( { name = "A"; mass = 1.0; } );
pair = ( { style = "%s"; rc = 3.0; tail = "on";
           coeff = { A = { A = { epsilon = 1.0; sigma = 1.0;%s }; }; }; } );
mc = { ensemble = "nvt"; kT = 1.0; cycles = 300; equilibration = 100; };
output = { dir = "out"; thermo_interval = 10; checkpoint_keep = 0; };
"""


def check_mc(binary, work):
    rows = {}
    for name, style, extra in (("lj", "lj", ""), ("mie12", "mie", " n = 12; m = 6;"),
                               ("mie14", "mie", " n = 14; m = 6;")):
        d = os.path.join(work, "mc_" + name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "nvt.cfg"), "w") as f:
            f.write(MC % (style, extra))
        subprocess.run([binary, "mc", "nvt.cfg"], cwd=d, check=True, stdout=subprocess.DEVNULL)
        rows[name] = np.genfromtxt(os.path.join(d, "out", "thermo.csv"), delimiter=",",
                                   names=True)
    a, b = rows["lj"], rows["mie12"]
    worst = max(float(np.max(np.abs(a[k] - b[k]) / np.maximum(np.abs(a[k]), 1e-300)))
                for k in a.dtype.names)
    ok = len(a) == len(b) and worst < 1e-9
    c = rows["mie14"]
    u12, u14 = b["energy_0"][-10:].mean() / 250, c["energy_0"][-10:].mean() / 250
    ok14 = len(c) == len(b) and np.all(np.isfinite(c["energy_0"])) and u14 < 0
    print("MC nvt: mie 12-6 vs lj over %d rows: worst relative difference %.2e  %s; mie 14-6 "
          "U/N %.4f (12-6: %.4f)  %s" % (len(a), worst, "ok" if ok else "FAIL", u14, u12,
                                          "ok" if ok14 else "FAIL"))
    return (not ok) + (not ok14)


BAD = """box = [8.0, 8.0, 8.0];
particles = 100;
seed = 1;
species = ( { name = "A"; mass = 1.0; } );
pair = ( { style = "mie"; rc = 3.0;
           coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; n = 6.0; m = 12.0; }; }; }; } );
%s
output = { dir = "out"; };
"""


def check_bad_input(binary, work):
    failed = 0
    for cmd, tail_text in (("mc", 'mc = { ensemble = "nvt"; kT = 1.0; cycles = 10; };'),
                           ("run", "dpd = { a = { A = { A = 0.0; }; }; gamma = 4.5; kT = 1.0; };\n"
                                   "integrator = { dt = 0.01; steps = 10; };")):
        path = os.path.join(work, "bad-%s.cfg" % cmd)
        with open(path, "w") as f:
            f.write(BAD % tail_text)
        r = subprocess.run([binary, cmd, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, cwd=work)
        lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
        want = "%s:6: pair.[0].coeff.A.A.n: expected n > m (got n = 6, m = 12)" % path
        ok = r.returncode == 2 and len(lines) == 1 and lines[0].endswith(want)
        failed += not ok
        print("bad input (%s): exit %d, %r  %s" % (cmd, r.returncode, lines,
                                                   "ok" if ok else "FAIL"))
    return failed


def check_gpu(binary, work, prec):
    from vesica_env import gpu_visible
    from lammps_pair import read_step1
    if not gpu_visible(binary):
        print("skip: no usable GPU")
        return 77
    cfgs, box = md_cases(work)
    tol_f, tol_e = (1e-10, 1e-10) if prec == "double" else (2e-5, 1e-5)
    builders = ["auto", "cells"] if prec == "double" else ["auto"]
    failed = 0
    for name, cfg in cfgs.items():
        _, _, cpu_f, cpu_row = read_step1(run(binary, cfg, os.path.join(work, name + "_cpu")))
        for b, ranks in [(b, 1) for b in builders] + [(builders[0], 2)]:
            out = run(binary, cfg, os.path.join(work, "%s_gpu_%s_%s_np%d" % (name, prec, b, ranks)),
                      ["backend=gpu", "precision=" + prec, "neighbor.gpu_builder=" + b], ranks)
            _, _, f, row = read_step1(out)
            df = np.abs(f - cpu_f).max() / np.abs(cpu_f).max()
            de = abs(row["potential_energy"] - cpu_row["potential_energy"]) / \
                abs(cpu_row["potential_energy"])
            dp = abs(row["pressure"] - cpu_row["pressure"]) / abs(cpu_row["pressure"])
            ok = df < tol_f and de < tol_e and dp < tol_e
            failed += not ok
            print("%-5s %s builder %-5s %d rank(s): force %.2e, energy %.2e, pressure %.2e  %s"
                  % (name, prec, b, ranks, df, de, dp, "ok" if ok else "FAIL"))
    texts = []
    for k in (1, 2):
        out = run(binary, cfgs["shift"], os.path.join(work, "repro%d_%s" % (k, prec)),
                  ["backend=gpu", "precision=" + prec, "integrator.steps=200",
                   "integrator.dt=0.002", "dpd.gamma=4.5", "dpd.kT=1.0",
                   "output.thermo_interval=20"])
        texts.append(open(os.path.join(out, "thermo.csv")).read())
    same = texts[0] == texts[1] and len(texts[0].splitlines()) == 12
    failed += not same
    print("two GPU runs (%s, 200 steps): thermo.csv %s" % (prec, "identical" if same
                                                              else "DIFFERS: FAIL"))
    return 1 if failed else 0


def main():
    global np
    binary, work, mode = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    try:
        import h5py  # noqa: F401
        import numpy as np
        import scipy  # noqa: F401
    except ImportError as e:
        print("skip: %s" % e)
        return 77
    os.makedirs(work, exist_ok=True)
    if mode == "gpu":
        return check_gpu(binary, work, sys.argv[4])
    failed = check_md_cpu(binary, work) + check_mc(binary, work) + check_bad_input(binary, work)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
