#!/usr/bin/env python3
"""The pressure tensor (output.pressure_tensor) on the GPU backend against the CPU reference.

Usage: ptensor_gpu.py VESICA WORKDIR PRECISION   (mixed or double)

Each case runs a few steps on the CPU backend, on one GPU rank and on two GPU ranks (sharing
the device), with the tensor's thermo columns and profiles:
  dpd      the two-species DPD fluid under the double Poiseuille force
           (tests/flow/small-poiseuille.cfg: 8 bins along x, per species);
  pair     every pair style with the DPD thermostat (tests/pair/pair-mix.cfg, the walk from
           both sides), and in mixed precision the short-reach styles on the Newton walk
           (pair-short.cfg);
  bonded   bonds, angles and dihedrals in a DPD solvent (tests/molecules/dihedrals.cfg);
  couette  Backer's fluid between bounce-back walls moving at -2 and +2 along z
           (configs/couette.cfg: walls along x, 24 bins along x);
  frozen   two frozen layers and a fluid between bounce-back walls (tests/walls/frozen.py's
           data file; profiles along z per species).
Checks: every thermo row's pxx..pyz of the GPU within TOL of the CPU's (TOL 1e-4 in mixed,
1e-6 in double, relative to the row's largest diagonal component, at least 1), and each
window's per-bin pressure tensor likewise (relative to the largest diagonal over the bins);
in mixed precision the DPD-only cases (dpd, couette) on two ranks write the same tensor
columns bit for bit as on one (each share is a fixed-point integer); and in the frozen case
the set of all particles' density is the fluid's (the frozen particles are left out,
docs/file-formats.md) on both backends. Exits 77 (skip) without a GPU; without h5py the
thermo columns alone are compared (the pair cases, whose lattice is an H5MD file, and the
profiles are left out, and it says so), without numpy the frozen case too.
"""
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
sys.path.insert(0, os.path.join(ROOT, "tests", "pair"))
from vesica_env import gpu_visible  # noqa: E402

COLS = ["pxx", "pyy", "pzz", "pxy", "pxz", "pyz"]

FROZEN_CFG = """input = { format = "lammps-data"; file = "frozen.data"; };
species = ( { name = "F"; }, { name = "W"; frozen = "on"; } );
dpd = { a = { F = { F = 25.0; W = 40.0; }; W = { F = 40.0; W = 0.0; }; };
        gamma = 4.5; kT = 1.0; };
boundary = { z = { kind = "bounce_back"; }; };
integrator = { dt = 0.01; steps = 20; };
profiles = { axis = "z"; bins = 16; every = 5; window = 20; per_species = "on"; };
backend = "cpu";
output = { dir = "out"; thermo_interval = 5; };
"""


def run(binary, cfg, work, name, sets, ranks=1):
    out = os.path.join(work, name)
    cmd = [binary, "run", cfg, "--set", "output.dir=" + out]
    if ranks > 1:
        cmd = ["mpiexec", "--oversubscribe", "-n", str(ranks)] + cmd
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        print(r.stdout[-3000:])
        raise SystemExit("FAIL: %s exited %d" % (name, r.returncode))
    return out


def tensor_rows(out):
    with open(os.path.join(out, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        rows = [line.strip().split(",") for line in t if line.strip()]
    idx = [head.index(c) for c in COLS]
    return [[float(r[k]) for k in idx] for r in rows]


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def profiles(out):
    path = os.path.join(out, "profiles.h5")
    if not os.path.exists(path) or not have("h5py"):
        return {}
    import h5py
    with h5py.File(path, "r") as f:
        return {k: {q: f[k][q][:] for q in ("density", "pressure_tensor")}
                for k in f.keys() if isinstance(f[k], h5py.Group) and "density" in f[k]}


def compare(label, cpu, gpu, tol, exact=False):
    """Largest deviation of the GPU's tensor rows (and profiles) from the reference."""
    a, b = tensor_rows(cpu), tensor_rows(gpu)
    if len(a) != len(b) or not all(math.isfinite(v) for row in b for v in row):
        print("%-28s %d thermo rows against %d, or not finite: FAIL" % (label, len(b), len(a)))
        return False
    if exact:
        same = a == b
        print("%-28s tensor columns %s" % (label, "identical" if same else "DIFFER: FAIL"))
        return same
    worst = max(abs(x - y) / max([1.0] + [abs(v) for v in ra[:3]])
                for ra, rb in zip(a, b) for x, y in zip(ra, rb))
    ok = worst <= tol
    pa, pb = profiles(cpu), profiles(gpu)
    if not pa:
        why = "no profiles" if have("h5py") else "profiles not compared: no h5py"
        print("%-28s thermo tensor %.2e (tol %.0e; %s)  %s"
              % (label, worst, tol, why, "ok" if ok else "FAIL"))
        return ok
    import numpy as np
    pworst = 0.0
    for key in pa:
        ta, tb = pa[key]["pressure_tensor"], pb[key]["pressure_tensor"]
        s = max(1.0, np.abs(ta[..., :3]).max())
        pworst = max(pworst, (np.abs(ta - tb) / s).max(),
                     (np.abs(pa[key]["density"] - pb[key]["density"]) /
                      max(1.0, pa[key]["density"].max())).max())
    ok = ok and pworst <= tol and set(pa) == set(pb)
    print("%-28s thermo tensor %.2e, profiles %.2e (tol %.0e)  %s"
          % (label, worst, pworst, tol, "ok" if ok else "FAIL"))
    return ok


def frozen_left_out(label, out):
    """The all set's density is the fluid species' (frozen particles left out)."""
    import numpy as np
    p = profiles(out)
    ok = (np.array_equal(p["all"]["density"], p["F"]["density"]) and
          p["W"]["density"].max() > 0.0)
    print("%-28s all-particle density = the fluid's: %s" % (label, "ok" if ok else "FAIL"))
    return ok


def main():
    binary, work, prec = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    if not gpu_visible(binary):
        print("skip: no usable GPU")
        return 77
    os.makedirs(work, exist_ok=True)
    h5, numpy_here = have("h5py") and have("numpy"), have("numpy")
    if h5:
        import pair_cases
        subprocess.run([sys.executable, os.path.join(ROOT, "scaling", "tools",
                                                     "lattice_h5md.py"),
                        "lattice.h5", "--cells", "6", "--density", "0.8442", "--species", "2",
                        "--jitter", "0.05", "--seed", "2"], cwd=work, check=True,
                       stdout=subprocess.DEVNULL)
        pair_cases.write_table(os.path.join(work, "pair.table"))
    if numpy_here:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "walls", "frozen.py"),
                        "write", "frozen.data"], cwd=work, check=True)
    frozen_cfg = os.path.join(work, "frozen.cfg")
    with open(frozen_cfg, "w") as c:
        c.write(FROZEN_CFG)
    tensor = ["output.pressure_tensor=on"]
    cases = [
        ("dpd", os.path.join(ROOT, "tests", "flow", "small-poiseuille.cfg"),
         ["integrator.steps=20", "output.thermo_interval=5", "profiles.window=20"], True),
        ("pair_mix", os.path.join(ROOT, "tests", "pair", "pair-mix.cfg"),
         ["integrator.steps=10", "output.thermo_interval=5"], False),
        ("bonded", os.path.join(ROOT, "tests", "molecules", "dihedrals.cfg"),
         ["integrator.steps=20", "output.thermo_interval=5"], False),
        ("couette", os.path.join(ROOT, "configs", "couette.cfg"),
         ["integrator.steps=20", "output.thermo_interval=5", "profiles.every=5",
          "profiles.window=20", "boundary.x.velocity_lo=[0.0, 0.0, -2.0]",
          "boundary.x.velocity_hi=[0.0, 0.0, 2.0]"], True),
        ("frozen", frozen_cfg, [], False),
    ]
    if prec == "mixed":  # the styles on the Newton walk
        cases.insert(2, ("pair_short", os.path.join(ROOT, "tests", "pair", "pair-short.cfg"),
                         ["integrator.steps=10", "output.thermo_interval=5"], False))
    left_out = [c[0] for c in cases if (c[0].startswith("pair") and not h5) or
                (c[0] == "frozen" and not numpy_here)]
    if left_out:
        print("left out for want of h5py/numpy here: " + ", ".join(left_out))
    cases = [c for c in cases if c[0] not in left_out]
    tol = 1e-4 if prec == "mixed" else 1e-6
    failed = 0
    for name, cfg, sets, dpd_only in cases:
        cpu = run(binary, cfg, work, name + "_cpu", tensor + sets + ["backend=cpu"])
        gpu = [run(binary, cfg, work, "%s_gpu_%s_np%d" % (name, prec, n),
                   tensor + sets + ["backend=gpu", "precision=" + prec], n) for n in (1, 2)]
        failed += not compare("%s %s np1 / cpu" % (name, prec), cpu, gpu[0], tol)
        failed += not compare("%s %s np2 / cpu" % (name, prec), cpu, gpu[1], tol)
        if prec == "mixed" and dpd_only:
            failed += not compare("%s %s np2 / np1" % (name, prec), gpu[0], gpu[1], tol,
                                  exact=True)
        if name == "frozen" and h5:
            for label, out in (("cpu", cpu), ("gpu np1", gpu[0]), ("gpu np2", gpu[1])):
                failed += not frozen_left_out("frozen %s" % label, out)
    print("FAIL" if failed else "ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
