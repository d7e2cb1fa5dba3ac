#!/usr/bin/env python3
"""End-to-end checks of the soft anisotropic model (docs/validation.md, "Soft anisotropic
particles"): aniso_check.py VESICA OUTDIR MODE [options]

  nve STYLE        energy conservation: max |E(t) - E(0)| over the same time at dt and dt/2
                   falls by 4 (3.2 .. 5) for a smooth model (disk, rod, janus with nu = 2)
  equipartition KIND  langevin or berendsen: the mean rotational temperature (2 dof per
                   particle) and the translational one over the second half within 4% of kT
  ranks            thermo.csv of a Janus run bit-identical on 1, 2 and 4 ranks
  restart          a run restarted from its checkpoint at half-way ends with the same rows
  bad              bad input exits 2 with one line: beta out of range, aniso pair on a point
                   bead, inertia <= 0, an ensemble that does not rotate, a frozen oriented
                   species
  input            orientations read from H5MD input: a run started from another run's last
                   frame has exactly its directions, non-unit rows are normalised, the rates
                   are drawn at kT, and a row of zero length exits 2 with one line naming the
                   file, the row and what was expected
  tensor           output.pressure_tensor of a Janus run (its only virial is the anisotropic
                   pair's): each row's trace gives the scalar pressure's virial part, which is
                   not zero, and the rows are bit-identical on 1 and 2 ranks
Every run is on the CPU backend unless KEY=VALUE options after the mode say otherwise (they
are passed to each run as --set KEY=VALUE, e.g. backend=gpu precision=double: the GPU's
nve and equipartition checks). Reference values are kT and the dt^2 law, never Vesica's own
output.
"""
import csv, functools, os, shutil, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from vesica_env import run_case  # noqa: E402

VESICA, OUT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
ARGS = [a for a in sys.argv[4:] if "=" not in a]
SETS = [a for a in sys.argv[4:] if "=" in a]

COEFF = {"disk": "alpha = 25.0; mu = 0.6; nu = 2.0;",
         "rod": "alpha = 25.0; mu = 0.6; nu = 2.0;",
         "janus": "alpha_r = 25.0; alpha_a = 10.0; beta = 65.0; nu = 2.0;",
         "triblock": "alpha_r = 25.0; alpha_a = 10.0; beta = 65.0; nu = 2.0;"}


def config(style, kind, dt, steps, extra=""):
    integ = {"nve": "", "langevin": "gamma = 1.0;", "berendsen": "tau = 0.2;"}[kind]
    return f"""box = [5.0, 5.0, 5.0]; density = 3.0; seed = 5; backend = "cpu";
species = ( {{ name = "P"; inertia = 0.5; }} );
dpd = {{ a = {{ P = {{ P = 0.0; }}; }}; gamma = 0.0; kT = 1.0; }};
aniso = {{ style = "{style}"; coeff = {{ P = {{ P = {{ {COEFF[style]} }}; }}; }}; }};
integrator = {{ dt = {dt}; steps = {steps}; kind = "{kind}"; {integ} }};
neighbor = {{ skin = 0.3; }};
output = {{ dir = "unused"; thermo_interval = 10; }};
{extra}
"""


# run(name, text, ranks=1, sets=(), restart=False, expect=0) -> (folder, process): every run
# under mpiexec, from the test's working directory, the command line's KEY=VALUE options first
run = functools.partial(run_case, VESICA, OUT, base_sets=SETS, cwd=os.getcwd(), singleton=False)


def rows(d):
    with open(os.path.join(d, "thermo.csv")) as f:
        return list(csv.DictReader(f))


def nve(style):
    drift = []
    for dt, steps in ((0.004, 250), (0.002, 500)):
        d, _ = run(f"nve-{style}-{dt}", config(style, "nve", dt, steps))
        e = [float(r["conserved_energy"]) for r in rows(d)]
        drift.append(max(abs(x - e[0]) for x in e))
    ratio = drift[0] / drift[1]
    print(f"nve {style}: max |dE| {drift[0]:.3e} at dt 0.004, {drift[1]:.3e} at 0.002: ratio {ratio:.2f}")
    if not 3.2 <= ratio <= 5.0:
        sys.exit("energy error does not fall as dt^2")


def equipartition(kind):
    d, _ = run(f"equi-{kind}", config("disk", kind, 0.01, 3000))
    r = rows(d)[len(rows(d)) // 2:]
    trot = sum(float(x["rotational_temperature"]) for x in r) / len(r)
    ttr = sum(float(x["temperature"]) for x in r) / len(r)
    print(f"{kind}: <T_rot> = {trot:.4f}, <T> = {ttr:.4f} (kT = 1)")
    if abs(trot - 1) > 0.04 or abs(ttr - 1) > 0.04:
        sys.exit("rotational or translational temperature off kT")


def ranks():
    text = config("janus", "langevin", 0.01, 100)
    out = []
    for n in (1, 2, 4):
        d, _ = run(f"ranks-{n}", text, ranks=n)
        out.append(open(os.path.join(d, "thermo.csv")).read())
    if not (out[0] == out[1] == out[2]):
        sys.exit("thermo.csv differs between 1, 2 and 4 ranks")
    print("ranks: 1, 2 and 4 bit-identical")


def restart():
    text = config("triblock", "langevin", 0.01, 100, "")
    sets = ["output.checkpoint_interval=50"]
    d, _ = run("restart-full", text, ranks=2, sets=sets)
    full = open(os.path.join(d, "thermo.csv")).read()
    os.remove(os.path.join(d, "checkpoints", "ckpt_100.h5"))
    run("restart-full", text, ranks=2, sets=sets, restart=True)
    if open(os.path.join(d, "thermo.csv")).read() != full:
        sys.exit("restart from step 50 does not reproduce the rows")
    print("restart: exact")


def bad():
    base = config("janus", "nve", 0.01, 10)
    triblock = config("triblock", "nve", 0.01, 10)
    cases = [
        ("beta", base.replace("beta = 65.0", "beta = 185.0"), "beta"),
        ("beta0", base.replace("beta = 65.0", "beta = 0.0"), "beta"),
        ("beta0-range", base.replace("beta = 65.0", "beta = 0.0"), "in (0, 180] (got 0.0)"),
        ("beta185-range", base.replace("beta = 65.0", "beta = 185.0"),
         "in (0, 180] (got 185.0)"),
        ("beta95-triblock", triblock.replace("beta = 65.0", "beta = 95.0"),
         "in (0, 90] for aniso style triblock (got 95)"),
        ("inertia", base.replace("inertia = 0.5", "inertia = 0.0"), "inertia"),
        ("point", base.replace('{ name = "P"; inertia = 0.5; }', '{ name = "P"; }'),
         "orientation"),
        ("npt", base.replace('kind = "nve";', 'kind = "andersen"; collision_rate = 1.0;'),
         "rotation"),
        ("frozen", base.replace('{ name = "P"; inertia = 0.5; }',
                                '{ name = "P"; inertia = 0.5; frozen = "on"; }'), "frozen"),
    ]
    for name, text, word in cases:
        _, p = run(f"bad-{name}", text, expect=2)
        lines = [l for l in p.stderr.splitlines() if l.startswith("vesica:")]
        if len(lines) != 1 or word not in lines[0]:
            sys.exit(f"bad-{name}: expected one line naming {word}, got {lines}")
        print(f"bad {name}: {lines[0]}")


def orientations(path, frame):
    import h5py
    with h5py.File(path, "r") as f:
        return f["particles/all/orientation/value"][frame]


def edit_frame(src, dst, change):
    """A copy of trajectory src with change(orientations) applied to its last frame."""
    import h5py
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        d = f["particles/all/orientation/value"]
        d[-1] = change(d[-1])


def from_input():
    import numpy as np
    text = config("janus", "langevin", 0.01, 20).replace(
        "thermo_interval = 10;", "thermo_interval = 10; trajectory_interval = 10;")
    src, _ = run("input-src", text)
    traj = os.path.join(src, "traj.h5md")
    last = orientations(traj, -1)

    def start(name, path, expect=0, sets=()):
        t = text.replace("box = [5.0, 5.0, 5.0]; density = 3.0; ", "") + \
            f'input = {{ format = "h5md"; file = "{path}"; species = "name"; }};\n'
        return run(name, t, sets=["integrator.steps=0", *sets], expect=expect)

    d, _ = start("input-same", traj)
    got = orientations(os.path.join(d, "traj.h5md"), 0)
    if not np.array_equal(got, last):
        sys.exit(f"input-same: {np.sum(got != last)} orientation values differ from the frame")
    trot = float(rows(d)[0]["rotational_temperature"])
    if not 0.8 < trot < 1.2:  # 375 particles, 2 dof each: kT within 5% at 1 sigma
        sys.exit(f"input-same: rotational temperature {trot} at the start, expected about kT = 1")
    print(f"input: the frame's {len(last)} directions exactly, T_rot(0) = {trot:.4f}")

    d, _ = start("input-replicate", traj, sets=["input.replicate=[2,1,1]"])
    got = orientations(os.path.join(d, "traj.h5md"), 0)
    if not (np.array_equal(got[:len(last)], last) and np.array_equal(got[len(last):], last)):
        sys.exit("input-replicate: the copies do not carry the frame's directions")
    print("input: input.replicate copies the directions")

    scaled = os.path.join(OUT, "input-scaled.h5md")
    edit_frame(traj, scaled, lambda n: 2.5 * n)
    d, _ = start("input-scaled", scaled)
    err = np.abs(orientations(os.path.join(d, "traj.h5md"), 0) - last).max()
    if err > 1e-15:
        sys.exit(f"input-scaled: rows of length 2.5 not normalised (max error {err})")
    print(f"input: rows of length 2.5 normalised (max error {err:.1e})")

    zero = os.path.join(OUT, "input-zero.h5md")
    edit_frame(traj, zero, lambda n: np.where(np.arange(len(n))[:, None] == 7, 0.0, n))
    _, p = start("input-zero", zero, expect=2)
    lines = [l for l in p.stderr.splitlines() if l.startswith("vesica:")]
    want = [zero, "orientation", "row 7", "expected"]
    if len(lines) != 1 or not all(w in lines[0] for w in want):
        sys.exit(f"input-zero: expected one line naming {want}, got {lines}")
    print(f"input zero: {lines[0]}")


def tensor():
    text = config("janus", "nve", 0.005, 40).replace(
        "thermo_interval = 10;", 'thermo_interval = 10; pressure_tensor = "on";')
    out = []
    for n in (1, 2):
        d, _ = run(f"tensor-np{n}", text, ranks=n)
        out.append(open(os.path.join(d, "thermo.csv")).read())
        volume, count = 5.0 ** 3, 375  # density 3 in a box of 5
        for r in rows(d):
            # the scalar pressure's kinetic part is N T / V (T over 3 N - 3 degrees of freedom),
            # the tensor's sum m v_a v_a / V: compare the virial parts
            trace = sum(float(r[k]) for k in ("pxx", "pyy", "pzz"))
            pair_tensor = trace / 3.0 - 2.0 * float(r["kinetic_energy"]) / (3.0 * volume)
            pair_scalar = float(r["pressure"]) - count * float(r["temperature"]) / volume
            if abs(pair_tensor - pair_scalar) > 1e-9 * max(1.0, abs(pair_scalar)):
                sys.exit(f"tensor-np{n} step {r['step']}: virial from the trace {pair_tensor}"
                         f" != from the pressure {pair_scalar}")
            if abs(pair_scalar) < 1e-3:
                sys.exit(f"tensor-np{n} step {r['step']}: no pair virial ({pair_scalar})")
    if out[0] != out[1]:
        sys.exit("tensor: thermo.csv differs between 1 and 2 ranks")
    print("tensor: the trace's virial = the pressure's on every row, 1 and 2 ranks identical")


{"nve": lambda: nve(ARGS[0]), "tensor": tensor, "input": from_input, "equipartition": lambda: equipartition(ARGS[0]),
 "ranks": ranks, "restart": restart, "bad": bad}[MODE]()
