#!/usr/bin/env python3
"""The particle-field term (MD-SCF) on the GPU (gpu/gpu_field.cu) against the CPU reference,
across rank counts and through restarts (docs/validation.md, "Particle-field MD-SCF"):

  field_gpu.py VESICA OUTDIR MODE [PRECISION]

  agree PRECISION  the CPU backend against the GPU's:
                   - the field-only system of field_check.py (a fixed random A/B system,
                     6^3 box, density 3, spacing 1, dpd a = gamma = 0) for both force
                     schemes: the forces at step 1 (the final checkpoint) within 1e-9 of the
                     largest in double precision, 1e-4 in mixed (the positions rounded onto the
                     mixed mode's grid), and field_energy of both rows within 1e-12 relative in
                     double, 1e-6 in mixed;
                   - 20 steps (every thermo row) of the A/B blend with DPD (field interval 5)
                     and of configs/field-blend.cfg (chains, field only, updated every step):
                     every thermo column within 1e-9 relative in double, 1e-4 in mixed (the
                     total momentum against one particle's thermal momentum); the blend's
                     density frames (output.field_interval, fields.h5): the first (step 0)
                     the CPU's bits in double precision, every frame's phi within 1e-9 in
                     double, 1e-4 in mixed;
  ranks            mixed precision: thermo.csv and the final checkpoint's particles the same
                   bits on 1, 2 and 4 ranks sharing the GPU, for the blend (skin 0.3, field
                   interval 5) and configs/field-blend.cfg (100 steps), on 3 unequal bricks
                   (13 x 9 x 10 box), the blend's fields.h5 frames too; and an exact restart: 2 ranks to step 50 (a field
                   interval of 7: in the middle of one), then 1 rank from the checkpoint at 50,
                   the same rows and particles as the straight run.
  inert            mixed precision: the diblock melt of scaling/bench/field-melt.cfg (field
                   only, dpd a = gamma = 0: an inert DPD term whose pair walk is skipped,
                   Langevin) against the same run with dpd.gamma = 1e-300, whose pair walk
                   runs (its fp32 coefficients are zero, so it adds exact zeros): thermo.csv
                   and the final checkpoint's particles the same bits, on 1 and 2 ranks.
  fused PRECISION  the melt above (Langevin), 100 steps with a thermo row every step (every
                   step's second half run on its own: the kick, then the O(dt/2) passes)
                   against the same run with a row every 25 steps (the second half and the
                   next first half fused into one pass, vs_gpu_langevin_half_steps): the
                   rows of steps 0, 25, 50, 75, 100 and the final checkpoint's particles the
                   same bits, on 1 and 2 ranks.
Prints the measured differences. Exits 77 (skip) without a GPU (`vesica info`), numpy or h5py.
Reference values: the CPU backend's, whose term has its own tests against an independent
numpy model and finite differences (field_check.py).
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from vesica_env import gpu_visible  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from field_systems import field_only_config, write_data  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "configs", "field-blend.cfg")
MELT = os.path.join(HERE, "..", "..", "scaling", "bench", "field-melt.cfg")
MPI = ["mpiexec", "--allow-run-as-root", "--oversubscribe"]


def blend(box="8.0, 8.0, 8.0", steps=20, interval=5, thermo=1, ckpt=0):
    return f"""box = [{box}]; density = 3.0; seed = 5;
species = ( {{ name = "A"; fraction = 0.5; }}, {{ name = "B"; fraction = 0.5; }} );
dpd = {{ a = {{ A = {{ A = 25.0; B = 25.0; }}; B = {{ A = 25.0; B = 25.0; }}; }};
        gamma = 4.5; kT = 1.0; }};
integrator = {{ dt = 0.02; steps = {steps}; }};
neighbor = {{ skin = 0.3; }};
field = {{ spacing = 1.0; interval = {interval}; kappa = 0.1;
          chi = {{ A = {{ A = 0.0; B = 2.0; }}; B = {{ A = 2.0; B = 0.0; }}; }}; }};
run = {{ momentum_limit = 0.0; momentum_tolerance = 0.0; }};
output = {{ dir = "unused"; thermo_interval = {thermo}; checkpoint_interval = {ckpt}; }};
"""


class Runner:
    def __init__(self, binary, work):
        self.binary, self.work = binary, work

    def run(self, name, text=None, sets=(), ranks=1, restart=False, config=None):
        d = os.path.join(self.work, name)
        if not restart:
            shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d, exist_ok=True)
        cfg = config
        if cfg is None:
            cfg = os.path.join(d, "run.cfg")
            with open(cfg, "w") as f:
                f.write(text)
        cmd = [self.binary, "run", cfg, "--set", f'output.dir="{d}"']
        if ranks > 1:
            cmd = MPI + ["-n", str(ranks)] + cmd
        for s in sets:
            cmd += ["--set", s]
        if restart:
            cmd += ["--restart", "latest"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with open(os.path.join(d, "log.txt"), "a") as f:
            f.write(p.stdout)
        if p.returncode != 0:
            print(p.stdout[-3000:])
            raise SystemExit(f"FAIL: {name} exited {p.returncode}")
        return d


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


def phi_frames(d):
    """fields.h5's phi of every species, frames first."""
    import h5py
    import numpy as np
    with h5py.File(os.path.join(d, "fields.h5"), "r") as f:
        pd = f["VTKHDF/PointData"]
        return np.stack([pd[k][:] for k in sorted(pd)], axis=1)


def compare_phi(label, cpu, gpu, tol, exact_first, failures):
    import numpy as np
    a, b = phi_frames(cpu), phi_frames(gpu)
    if a.shape != b.shape or len(a) < 2:
        failures.append(f"{label}: fields.h5 shapes {a.shape} and {b.shape}")
        print(f"FAIL {label}: fields.h5 shapes {a.shape} and {b.shape}")
        return
    err = float(np.abs(a - b).max())
    first = a[0].tobytes() == b[0].tobytes()
    ok = err <= tol and (first or not exact_first)
    print(f"{'ok  ' if ok else 'FAIL'} {label}: {len(a)} frames, phi within {err:.2e} "
          f"(tolerance {tol:.0e}); the first frame {'the same bits' if first else 'differs'}")
    if not ok:
        failures.append(label)


def compare_rows(label, cpu, gpu, tol, failures):
    (head, a), (head_b, b) = cpu, gpu
    if head != head_b or len(a) != len(b) or "field_energy" not in head:
        failures.append(f"{label}: thermo.csv columns or rows differ ({len(a)} vs {len(b)})")
        return
    floor = [1.0 if name in ("px", "py", "pz") else 1e-6 for name in head]
    bad, where = 0.0, ""
    for ra, rb in zip(a, b):
        for k in range(1, len(head)):
            e = abs(ra[k] - rb[k]) / max(abs(ra[k]), floor[k])
            if e > bad:
                bad, where = e, f"{head[k]} at step {ra[0]:.0f}"
    ok = bad <= tol
    print(f"{'ok  ' if ok else 'FAIL'} {label}: worst thermo column {bad:.2e} relative "
          f"({where}; tolerance {tol:.0e}, {len(a)} rows)")
    if not ok:
        failures.append(label)


def agree(r, prec):
    import numpy as np
    tol_f, tol_w, tol_run = (1e-9, 1e-12, 1e-9) if prec == "double" else (1e-4, 1e-6, 1e-4)
    gpu = ["backend=\"gpu\"", f"precision=\"{prec}\""]
    failures = []
    rng = np.random.default_rng(7)
    box = 6.0
    n = int(3.0 * box ** 3)
    x = rng.uniform(0.0, box, size=(n, 3))
    species = (rng.uniform(size=n) < 0.4).astype(int)
    data = os.path.join(r.work, "field_only.data")
    os.makedirs(r.work, exist_ok=True)
    write_data(data, x, species, box)
    for scheme in ("gradient", "energy"):
        text = field_only_config(data, scheme)
        c = r.run(f"one-{scheme}-cpu", text, ["backend=\"cpu\""])
        g = r.run(f"one-{scheme}-gpu-{prec}", text, gpu)
        fc, fg = particles(c, 1)["force"], particles(g, 1)["force"]
        err_f = float(np.abs(fg - fc).max() / np.abs(fc).max())
        (head, rc), (_, rg) = rows(c), rows(g)
        k = head.index("field_energy")
        err_w = max(abs(a[k] - b[k]) / abs(a[k]) for a, b in zip(rc, rg))
        ok = err_f <= tol_f and err_w <= tol_w
        print(f"{'ok  ' if ok else 'FAIL'} field only, {scheme}: forces at step 1 "
              f"{err_f:.2e} of the largest (tolerance {tol_f:.0e}); field_energy {err_w:.2e} "
              f"relative (tolerance {tol_w:.0e}), {n} particles")
        if not ok:
            failures.append(f"field only {scheme}")
    frames = ["output.field_interval=5"]
    c = r.run("blend-cpu", blend(), ["backend=\"cpu\""] + frames)
    g = r.run(f"blend-gpu-{prec}", blend(), gpu + frames)
    compare_rows("blend with DPD, 20 steps", rows(c), rows(g), tol_run, failures)
    compare_phi("blend's fields.h5", c, g, tol_run, prec == "double", failures)
    short = ["integrator.steps=20", "output.thermo_interval=1", "output.trajectory_interval=0"]
    c = r.run("example-cpu", sets=short + ["backend=\"cpu\""], config=EXAMPLE)
    g = r.run(f"example-gpu-{prec}", sets=short + gpu, config=EXAMPLE)
    compare_rows("configs/field-blend.cfg, 20 steps", rows(c), rows(g), tol_run, failures)
    return failures


def same_bits(label, a, b, failures):
    """thermo.csv the same bytes and the checkpoint's particles the same bits."""
    ta = open(os.path.join(a[0], "thermo.csv")).read()
    tb = open(os.path.join(b[0], "thermo.csv")).read()
    pa, pb = particles(a[0], a[1]), particles(b[0], b[1])
    diff = [k for k in pa if k not in pb or pa[k].tobytes() != pb[k].tobytes()]
    ok = ta == tb and not diff
    print(f"{'ok  ' if ok else 'FAIL'} {label}: thermo.csv {'same' if ta == tb else 'differs'}"
          f", checkpoint particles {'same bits' if not diff else 'differ in ' + str(diff)} "
          f"({len(ta.splitlines()) - 1} rows)")
    if not ok:
        failures.append(label)


def ranks(r):
    failures = []
    gpu = ["backend=\"gpu\"", "precision=\"mixed\""]
    text = blend(steps=100, thermo=10, ckpt=100)
    frames = ["output.field_interval=25"]
    one = (r.run("blend-np1", text, gpu + frames), 100)
    for p, dec in ((2, None), (4, "[2, 2, 1]")):
        sets = gpu + frames + ([f"decomposition={dec}"] if dec else [])
        other = (r.run(f"blend-np{p}", text, sets, ranks=p), 100)
        same_bits(f"blend: {p} ranks", one, other, failures)
        same = phi_frames(one[0]).tobytes() == phi_frames(other[0]).tobytes()
        print(f"{'ok  ' if same else 'FAIL'} blend: {p} ranks, fields.h5 "
              f"{'the same bits' if same else 'differs'}")
        if not same:
            failures.append(f"blend: {p} ranks, fields.h5")
    uneven = blend(box="13.0, 9.0, 10.0", steps=100, thermo=10, ckpt=100)
    u1 = (r.run("uneven-np1", uneven, gpu), 100)
    u3 = r.run("uneven-np3", uneven, gpu + ["decomposition=[3, 1, 1]"], ranks=3)
    same_bits("blend: 3 unequal bricks", u1, (u3, 100), failures)
    ex = gpu + ["integrator.steps=100", "output.thermo_interval=10",
                "output.trajectory_interval=0", "output.checkpoint_interval=100"]
    e1 = (r.run("example-np1", sets=ex, config=EXAMPLE), 100)
    for p, dec in ((2, None), (4, "[2, 2, 1]")):
        sets = ex + ([f"decomposition={dec}"] if dec else [])
        same_bits(f"configs/field-blend.cfg: {p} ranks", e1,
                  (r.run(f"example-np{p}", sets=sets, ranks=p, config=EXAMPLE), 100), failures)
    # an exact restart in the middle of a field interval (7)
    text = blend(steps=100, interval=7, thermo=10, ckpt=50)
    straight = (r.run("restart-straight", text, gpu), 100)
    d = r.run("restart-legs", text, gpu, ranks=2)
    os.remove(os.path.join(d, "checkpoints", "ckpt_100.h5"))
    r.run("restart-legs", text, gpu, restart=True)
    same_bits("restart: 2 ranks to step 50, 1 rank from its checkpoint", straight, (d, 100),
              failures)
    return failures


def inert(r):
    failures = []
    sets = ["backend=\"gpu\"", "precision=\"mixed\"", "integrator.steps=100",
            "output.thermo_interval=10", "output.checkpoint_interval=100",
            "output.checkpoint_keep=2", "field.interval=5"]
    for p in (1, 2):
        skipped = (r.run(f"inert-np{p}", sets=sets, ranks=p, config=MELT), 100)
        walked = (r.run(f"walked-np{p}", sets=sets + ["dpd.gamma=1e-300"], ranks=p,
                        config=MELT), 100)
        same_bits(f"melt, {p} rank(s): the inert DPD term skipped and walked", skipped, walked,
                  failures)
    return failures


def fused(r, precision):
    import numpy as np
    failures = []
    sets = ["backend=\"gpu\"", f"precision=\"{precision}\"", "integrator.steps=100",
            "output.checkpoint_interval=100", "output.checkpoint_keep=2", "field.interval=5"]
    for p in (1, 2):
        every = r.run(f"every-np{p}", sets=sets + ["output.thermo_interval=1"], ranks=p,
                      config=MELT)
        fewer = r.run(f"fused-np{p}", sets=sets + ["output.thermo_interval=25"], ranks=p,
                      config=MELT)
        (head, a), (head_b, b) = rows(every), rows(fewer)
        picked = [row for row in a if int(row[0]) % 25 == 0]
        same_rows = head == head_b and np.array(picked).tobytes() == np.array(b).tobytes()
        pa, pb = particles(every, 100), particles(fewer, 100)
        diff = [k for k in pa if k not in pb or pa[k].tobytes() != pb[k].tobytes()]
        ok = same_rows and not diff and len(b) == 5
        print(f"{'ok  ' if ok else 'FAIL'} melt, {p} rank(s), {precision}: Langevin's halves "
              f"separate (a row every step) and fused (every 25): rows "
              f"{'the same bits' if same_rows else 'differ'} ({len(b)} rows), checkpoint "
              f"particles {'the same bits' if not diff else 'differ in ' + str(diff)}")
        if not ok:
            failures.append(f"fused {precision} np{p}")
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
    failures = (agree(r, sys.argv[4]) if mode == "agree" else inert(r) if mode == "inert"
                else fused(r, sys.argv[4]) if mode == "fused" else ranks(r))
    if failures:
        print("FAIL: " + ", ".join(failures))
        return 1
    print(f"ok: the field term on the GPU ({mode} {' '.join(sys.argv[4:])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
