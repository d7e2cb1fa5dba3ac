#!/usr/bin/env python3
"""The soft anisotropic model on the GPU (gpu/gpu_aniso.cu) against the CPU reference, across
rank counts and through restarts.

Usage: aniso_gpu.py VESICA WORKDIR MODE [PRECISION]

Two systems of 375 particles (box 5, density 3):
  alone    one oriented species and the aniso style alone (DPD inactive: the style starts the
           forces), each of disk, rod, janus and triblock
  mixture  oriented Janus particles (60%) among point beads with DPD between all (the style
           adds to DPD's sums: doubles in double precision, the Newton walk's fixed-point sums
           in mixed), integrator.kind "dpd" (the fused half-steps)

Modes:
  agree PRECISION   one step of dt 1e-4 on the CPU and the GPU: forces and orientation
                    gradients of the final checkpoints within 1e-10 (double) or 2e-5 (mixed)
                    of the largest, n and u within 1e-12 (double) or 1e-6 (mixed), the step-1
                    thermo row within 1e-10 or 1e-5 relative; then 20 steps of dt 0.005 (nve,
                    berendsen, langevin, dpd): every thermo column of every row within 1e-10
                    relative in double, 1e-5 in mixed (the total momentum, 0 but for
                    round-off, against one particle's thermal momentum); three of the runs
                    (triblock alone, janus and rod in the mixture) with
                    output.pressure_tensor, whose six columns are compared against the
                    row's largest diagonal component (at least 1) with the same tolerances
  ranks             mixed precision: thermo.csv and the final checkpoint's particles (with the
                    orientations) bit-identical on 1, 2 and 4 ranks, skin 0 (2 ranks: the slab
                    exchange and, with it off, the image path; 4 ranks as 2 x 2 x 1 bricks: the
                    staged protocol) and skin 0.3; and 100 steps on 2 ranks continued from the
                    checkpoint at step 50 on 1 rank give the same rows (an exact restart);
                    the janus mixture at skin 0 and the rod at skin 0.3 with
                    output.pressure_tensor (its columns in the rows compared); the
                    triblock alone under berendsen at skin 0 (its factors computed on the
                    device, the ranks' sums added through the host)
Exits 77 (skip) without a GPU (`vesica info`), numpy or h5py. Reference values: the CPU
backend's, whose model has its own finite-difference and conservation tests (tests/aniso).
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from vesica_env import gpu_visible  # noqa: E402

COEFF = {"disk": "alpha = 25.0; mu = 0.6; nu = 2.0;",
         "rod": "alpha = 25.0; mu = 0.6; nu = 2.0;",
         "janus": "alpha_r = 25.0; alpha_a = 10.0; beta = 65.0; nu = 2.0;",
         "triblock": "alpha_r = 25.0; alpha_a = 10.0; beta = 65.0; nu = 2.0;"}
INTEG = {"nve": "", "langevin": "gamma = 1.0;", "berendsen": "tau = 0.2;",
         "dpd": "lambda = 0.5;"}


def config(system, style, kind, dt, steps, skin=0.3):
    if system == "alone":
        species = '{ name = "P"; inertia = 0.5; }'
        dpd = "a = { P = { P = 0.0; }; }; gamma = 0.0;"
    else:
        species = ('{ name = "P"; inertia = 0.5; fraction = 0.6; }, '
                   '{ name = "W"; fraction = 0.4; }')
        dpd = "a = { P = { P = 5.0; W = 25.0; }; W = { P = 25.0; W = 25.0; }; }; gamma = 4.5;"
    return f"""box = [5.0, 5.0, 5.0]; density = 3.0; seed = 5;
species = ( {species} );
dpd = {{ {dpd} kT = 1.0; }};
aniso = {{ style = "{style}"; coeff = {{ P = {{ P = {{ {COEFF[style]} }}; }}; }}; }};
integrator = {{ dt = {dt}; steps = {steps}; kind = "{kind}"; {INTEG[kind]} }};
neighbor = {{ skin = {skin}; }};
output = {{ dir = "unused"; thermo_interval = 1; checkpoint_interval = {steps}; }};
"""


class Runner:
    def __init__(self, binary, work):
        self.binary, self.work = binary, work

    def run(self, name, text, sets=(), ranks=1, restart=False, env=None):
        d = os.path.join(self.work, name)
        if not restart:
            shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d, exist_ok=True)
        cfg = os.path.join(d, "run.cfg")
        with open(cfg, "w") as f:
            f.write(text)
        cmd = [self.binary, "run", cfg, "--set", "output.dir=" + d]
        if ranks > 1:
            cmd = ["mpiexec", "--allow-run-as-root", "--oversubscribe", "-n", str(ranks)] + cmd
        for s in sets:
            cmd += ["--set", s]
        if restart:
            cmd += ["--restart", "latest"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=dict(os.environ, **(env or {})))
        with open(os.path.join(d, "log.txt"), "a") as f:
            f.write(p.stdout)
        if p.returncode != 0:
            print(p.stdout[-3000:])
            raise SystemExit(f"FAIL: {name} exited {p.returncode}")
        return d, p.stdout


def rows(d):
    with open(os.path.join(d, "thermo.csv")) as f:
        head = f.readline().strip().split(",")
        return head, [list(map(float, line.split(","))) for line in f if line.strip()]


def particles(d, step):
    """The checkpoint's per-particle datasets, rows in tag order."""
    import h5py
    import numpy as np
    with h5py.File(os.path.join(d, "checkpoints", f"ckpt_{step}.h5"), "r") as f:
        order = np.argsort(f["particles/tag"][:], kind="stable")
        return {k: f["particles/" + k][:][order] for k in f["particles"]}


def worst(a, b):
    import numpy as np
    scale = max(np.abs(b).max(), 1e-300)
    return float(np.abs(a - b).max() / scale)


TENSOR = ["pxx", "pyy", "pzz", "pxy", "pxz", "pyz"]


def compare_rows(label, cpu, gpu, tol, failures, tensor=False):
    (head, a), (head_b, b) = cpu, gpu
    if head != head_b or len(a) != len(b):
        failures.append(f"{label}: thermo.csv columns or rows differ ({len(a)} vs {len(b)})")
        return
    if tensor != all(c in head for c in TENSOR):
        failures.append(f"{label}: thermo.csv {'lacks' if tensor else 'has'} the tensor")
        return
    # relative; the total momentum, 0 but for round-off (the GPU's double-precision DPD walk
    # sums its forces in list order, not exactly), against one particle's thermal momentum
    # (m = kT = 1)
    floor = [1.0 if name in ("px", "py", "pz") else 1e-6 for name in head]
    cols = [k for k in range(1, len(head)) if head[k] not in TENSOR]
    bad = 0.0
    for ra, rb in zip(a, b):
        for k in cols:
            bad = max(bad, abs(ra[k] - rb[k]) / max(abs(ra[k]), floor[k]))
    ok = bad <= tol
    print(f"{'ok  ' if ok else 'FAIL'} {label}: worst thermo column {bad:.2e} relative "
          f"(tolerance {tol:.0e}, {len(a)} rows)")
    if not ok:
        failures.append(label)
    if tensor:  # against the row's largest diagonal component (off-diagonals average 0)
        idx = [head.index(c) for c in TENSOR]
        worst_t = 0.0
        for ra, rb in zip(a, b):
            scale = max(1.0, max(abs(ra[k]) for k in idx[:3]))
            worst_t = max(worst_t, max(abs(ra[k] - rb[k]) for k in idx) / scale)
        ok = worst_t <= tol
        print(f"{'ok  ' if ok else 'FAIL'} {label}: worst pressure tensor component "
              f"{worst_t:.2e} of the largest diagonal (tolerance {tol:.0e})")
        if not ok:
            failures.append(label + " tensor")


def agree(r, prec):
    tol_f, tol_n, tol_row, tol_run = ((1e-10, 1e-12, 1e-10, 1e-10) if prec == "double"
                                      else (2e-5, 1e-6, 1e-5, 1e-5))
    gpu = ["backend=gpu", "precision=" + prec]
    failures = []
    cases = [("alone", s, "nve") for s in COEFF] + [("mixture", "janus", "dpd")]
    for system, style, kind in cases:
        label = f"{system}-{style}"
        text = config(system, style, kind, 1e-4, 1)
        c, _ = r.run(f"one-{label}-cpu", text, ["backend=cpu"])
        g, _ = r.run(f"one-{label}-gpu-{prec}", text, gpu)
        pc, pg = particles(c, 1), particles(g, 1)
        err_f = worst(pg["force"], pc["force"])
        o_c, o_g = pc["orientation"], pg["orientation"]
        err_g = worst(o_g[:, 6:9], o_c[:, 6:9])
        err_n = float(abs(o_g[:, 0:6] - o_c[:, 0:6]).max())
        ok = err_f <= tol_f and err_g <= tol_f and err_n <= tol_n
        print(f"{'ok  ' if ok else 'FAIL'} {label} step 1: forces {err_f:.2e}, gradients "
              f"{err_g:.2e} of the largest (tolerance {tol_f:.0e}); n, u {err_n:.2e} "
              f"(tolerance {tol_n:.0e})")
        if not ok:
            failures.append(label + " step 1")
        compare_rows(f"{label} step-1 row", rows(c), rows(g), tol_row, failures)
    runs = [("alone", "disk", "nve", False), ("alone", "triblock", "berendsen", True),
            ("alone", "janus", "langevin", False), ("mixture", "janus", "dpd", True),
            ("mixture", "rod", "langevin", True)]
    for system, style, kind, tensor in runs:
        label = f"{system}-{style}-{kind}"
        text = config(system, style, kind, 0.005, 20)
        sets = ["output.pressure_tensor=on"] if tensor else []
        c, _ = r.run(f"run-{label}-cpu", text, ["backend=cpu"] + sets)
        g, _ = r.run(f"run-{label}-gpu-{prec}", text, gpu + sets)
        compare_rows(f"{label} 20 steps", rows(c), rows(g), tol_run, failures, tensor)
    return failures


def same_bits(label, a, b, failures):
    """thermo.csv the same bytes and the step's checkpoint particles the same bits."""
    import numpy as np
    ta = open(os.path.join(a[0], "thermo.csv")).read()
    tb = open(os.path.join(b[0], "thermo.csv")).read()
    pa, pb = particles(a[0], a[1]), particles(b[0], b[1])
    diff = [k for k in pa if k not in pb or pa[k].tobytes() != pb[k].tobytes()]
    ok = ta == tb and not diff and "orientation" in pa
    print(f"{'ok  ' if ok else 'FAIL'} {label}: thermo.csv {'same' if ta == tb else 'differs'}"
          f", checkpoint particles {'same bits' if not diff else 'differ in ' + str(diff)}")
    if not ok:
        failures.append(label)
    return np


def ranks(r):
    failures = []
    # a checkpoint every 50 steps in every run (the restart below starts from one)
    gpu = ["backend=gpu", "precision=mixed", "output.thermo_interval=10",
           "output.checkpoint_interval=50"]
    # berendsen: its factors computed on the device (the ranks' sums added through the host)
    for system, style, kind, skin, tensor in (("mixture", "janus", "dpd", 0.0, True),
                                              ("mixture", "triblock", "dpd", 0.3, False),
                                              ("alone", "disk", "langevin", 0.0, False),
                                              ("alone", "rod", "langevin", 0.3, True),
                                              ("alone", "triblock", "berendsen", 0.0, False)):
        text = config(system, style, kind, 0.01, 100, skin)
        if tensor:
            text = text.replace("thermo_interval = 1;",
                                'thermo_interval = 1; pressure_tensor = "on";')
        label = f"{system}-{style}-{kind}-skin{skin}" + ("-tensor" if tensor else "")
        one = (r.run(f"np1-{label}", text, gpu)[0], 100)
        if tensor and not all(c in rows(one[0])[0] for c in TENSOR):
            failures.append(f"{label}: thermo.csv lacks the pressure tensor")
        d2, log2 = r.run(f"np2-{label}", text, gpu, ranks=2)
        same_bits(f"{label}: 2 ranks", one, (d2, 100), failures)
        if system == "mixture" and skin == 0.0:
            if "slab exchange" not in log2:
                print("note: 2 ranks did not take the slab exchange (" +
                      "; ".join(line for line in log2.splitlines() if "GPU halo" in line) + ")")
            d, _ = r.run(f"np2-noslab-{label}", text, gpu, ranks=2,
                         env={"VESICA_GPU_SLAB_ABOVE": "0"})
            same_bits(f"{label}: 2 ranks without the slab exchange", one, (d, 100), failures)
        d4, _ = r.run(f"np4-{label}", text, gpu + ["decomposition=[2, 2, 1]"], ranks=4)
        same_bits(f"{label}: 4 ranks (2 x 2 x 1)", one, (d4, 100), failures)
        # an exact restart: 2 ranks to step 100, then again from the checkpoint at 50 on 1
        d, _ = r.run(f"legs-{label}", text, gpu, ranks=2)
        os.remove(os.path.join(d, "checkpoints", "ckpt_100.h5"))
        r.run(f"legs-{label}", text, gpu, restart=True)
        same_bits(f"{label}: 2 ranks to step 50, 1 rank from its checkpoint", one, (d, 100),
                  failures)
    return failures


def main():
    binary, work, mode = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    if not gpu_visible(binary):
        print("skip: no usable GPU")
        return 77
    try:
        import numpy  # noqa: F401
        import h5py  # noqa: F401
    except ImportError:
        print("skip: numpy/h5py missing")
        return 77
    os.makedirs(work, exist_ok=True)
    r = Runner(binary, work)
    failures = agree(r, sys.argv[4]) if mode == "agree" else ranks(r)
    if failures:
        print("FAIL: " + ", ".join(failures))
        return 1
    print(f"ok: aniso on the GPU ({mode} {' '.join(sys.argv[4:])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
