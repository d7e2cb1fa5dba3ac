#!/usr/bin/python3
"""scaling/tools/vesicle_classify.py on aggregates whose class is known by construction
(tests/campaign/vesicle_shapes.py): each shape alone, randomly turned, with two seeds; then a
frame holding them all in a box closed by walls, written as a Vesica-like traj.h5md and run
through the command line. Exit 77 (skip) without numpy, scipy or h5py.

    classify_shapes.py WORKDIR
"""
import json
import os
import subprocess
import sys

try:
    import numpy as np
    import scipy  # noqa: F401
    import h5py
except ImportError as e:
    print(f"skip: {e}")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "scaling", "tools", "vesicle_classify.py")
sys.path.insert(0, os.path.dirname(TOOL))
sys.path.insert(0, HERE)
import vesicle_classify as vc  # noqa: E402
import vesicle_shapes as vs  # noqa: E402

failures = []


def check(name, cond, detail=""):
    print(f"{'ok  ' if cond else 'FAIL'} {name}: {detail}")
    if not cond:
        failures.append(name)


def bridged_onion(rng):
    """The double shell with chains reaching from the inner layer into the outer one: one
    aggregate with two compartments."""
    x = vs.double_shell(rng)
    mol = vs.chains(x, rng)
    r = np.linalg.norm(x, axis=1)
    for k in range(12):
        d = vs.random_rotation(rng)[0]
        a = np.argmin(np.abs(r - 5.5) + np.linalg.norm(x / r[:, None] - d, axis=1))
        b = np.argmin(np.abs(r - 9.5) + np.linalg.norm(x / r[:, None] - d, axis=1))
        mol[b] = mol[a]
    return x, mol


SHAPES = [  # (name, builder, expected class, compartments or None)
    ("sphere shell", vs.sphere_shell, "unilamellar_vesicle", 1),
    ("double shell (two separate layers)", vs.double_shell, "multi_vesicle", 1),
    ("two-compartment vesicle", vs.two_compartments, "multi_vesicle", 2),
    ("shell with a pore", vs.porous_shell, "open_bilayer", 0),
    ("cup", vs.cup, "open_bilayer", 0),
    ("flat sheet", vs.disk, "open_bilayer", 0),
    ("rod", vs.rod, "cylindrical_micelle", 0),
    ("ring of a rod", vs.ring, "cylindrical_micelle", 0),
    ("solid ball r 2.6", vs.ball, "spherical_micelle", 0),
    ("solid ball r 5", lambda rng: vs.ball(rng, 5.0), "spherical_micelle", 0),
]
BOX = np.array([40.0, 40.0, 40.0])
WALLS = np.zeros(3, dtype=bool)
PRM = dict(vc.DEFAULTS)


def one(name, x, mol, expect, n_comp):
    labels, aggs = vc.analyse(x, mol, BOX, WALLS, PRM)
    big = [a for a in aggs if a["cls"] != "free"]
    ok = (len(big) == 1 and big[0]["cls"] == expect
          and (n_comp is None or big[0]["compartments"] == n_comp))
    got = [(a["cls"], a["size"], a["compartments"], a["layers"]) for a in big]
    check(name, ok, f"expected {expect} with {n_comp} compartment(s), got {got}")
    check(name + ": every bead in one aggregate",
          len(labels) == len(x) and sum(a["size"] for a in aggs) == len(x)
          and np.array_equal(np.bincount(labels, minlength=len(aggs)), [a["size"] for a in aggs]),
          f"{len(x)} beads, sizes {[a['size'] for a in aggs][:5]}")


for name, build, expect, n_comp in SHAPES:
    for seed in (1, 2):
        rng = np.random.default_rng(seed)
        x = build(rng) @ vs.random_rotation(rng).T + BOX / 2
        one(f"{name} (seed {seed})", x, vs.chains(x, rng), expect, n_comp)
rng = np.random.default_rng(3)
x, mol = bridged_onion(rng)
one("onion with bridging chains", x + BOX / 2, mol, "multi_vesicle", 2)

# A micelle in a vesicle's lumen is part of it; the vesicle stays unilamellar.
rng = np.random.default_rng(4)
v, m = vs.sphere_shell(rng, 8.0, 11.0), vs.ball(rng, 2.4)
x = np.concatenate([v, m]) + BOX / 2
mol = np.concatenate([vs.chains(v, rng), vs.chains(m, rng, start=10**6)])
labels, aggs = vc.analyse(x, mol, BOX, WALLS, PRM)
check("micelle in a lumen: merged, vesicle stays unilamellar",
      len(aggs) == 1 and aggs[0]["cls"] == "unilamellar_vesicle" and aggs[0]["nested"] == 1,
      [(a["cls"], a["size"], a["nested"]) for a in aggs])

# Two micelles joined by one chain whose ends sit in both cores are one aggregate of two cores;
# without the chain they are two.
m1, m2 = vs.ball(rng, 2.4) + 20.0, vs.ball(rng, 2.4) + [26.5, 20.0, 20.0]
mol = np.concatenate([vs.chains(m1, rng), vs.chains(m2, rng, start=10**6)])
x = np.concatenate([m1, m2])
_, apart = vc.analyse(x, mol, BOX, WALLS, PRM)
tip1 = np.argmax(m1[:, 0])
tip2 = len(m1) + np.argmin(m2[:, 0])
mol[tip2] = mol[tip1]
_, joined = vc.analyse(x, mol, BOX, WALLS, PRM)
check("micelles apart: two spherical micelles",
      [a["cls"] for a in apart] == ["spherical_micelle"] * 2, [a["cls"] for a in apart])
check("micelles joined by a chain: one aggregate of two cores",
      len(joined) == 1 and joined[0]["cores"] == 2 and joined[0]["cls"] == "spherical_micelle",
      [(a["cls"], a["cores"]) for a in joined])

# Periodic boxes: a vesicle across the faces is made whole; a sheet across the box spans it.
per = np.ones(3, dtype=bool)
x = np.mod(vs.sphere_shell(rng, 6.0, 9.0) + [1.0, 1.0, 39.0], 40.0)
_, aggs = vc.analyse(x, vs.chains(x, rng), BOX, per, PRM)
check("vesicle across periodic faces", [a["cls"] for a in aggs] == ["unilamellar_vesicle"],
      [(a["cls"], a["spans"]) for a in aggs])
b = np.array([20.0, 20.0, 20.0])
x = vs.fill(lambda p: np.abs(p[:, 2] - 10.0) < 1.5, [0, 0, 8.5], [20, 20, 11.5], rng)
_, aggs = vc.analyse(x, vs.chains(x, rng), b, per, PRM)
check("sheet spanning a periodic box: open bilayer, spans",
      [(a["cls"], a["spans"]) for a in aggs] == [("open_bilayer", True)],
      [(a["cls"], a["spans"]) for a in aggs])
# With walls on z the same sheet lying against the face z = 0 encloses nothing.
x = vs.sphere_shell(rng, 7.0, 10.0)
x = x[x[:, 2] > -2.0] + [20.0, 20.0, 2.0]
_, aggs = vc.analyse(x, vs.chains(x, rng), BOX, WALLS, PRM)
check("cap open towards a wall: open bilayer, its rim at the wall",
      [a["cls"] for a in aggs] == ["open_bilayer"] and 0.02 < aggs[0]["at_wall"] < 0.5,
      [(a["cls"], a["compartments"], round(a["at_wall"], 3)) for a in aggs])


# A film lining all six walls of a closed box encloses the box's own solvent: not a vesicle.
b = np.array([24.0, 24.0, 24.0])
x = vs.fill(lambda p: np.min(np.minimum(p, b - p), axis=1) < 1.5, [0, 0, 0], b, rng)
_, aggs = vc.analyse(x, vs.chains(x, rng), b, WALLS, PRM)
check("a film lining the walls: no compartment, open bilayer",
      [(a["cls"], a["compartments"]) for a in aggs] == [("open_bilayer", 0)],
      [(a["cls"], a["compartments"], round(a["at_wall"], 2)) for a in aggs])


# ---- the command line on a walled box holding a mixture, as a Vesica traj.h5md --------------
def write_traj(path, frames, species, mol, box, names):
    with h5py.File(path, "w") as f:
        g = f.create_group("particles/all")
        sp = g.create_dataset("species", data=species.astype(np.int32))
        sp.attrs["names"] = np.array([n.encode() for n in names])
        g.create_dataset("molecule", data=mol.astype(np.int64))
        pos = g.create_group("position")
        pos.create_dataset("value", data=np.array(frames))
        pos.create_dataset("step", data=np.arange(len(frames), dtype=np.int64) * 1000)
        pos.create_dataset("time", data=np.arange(len(frames)) * 10.0)
        bx = g.create_group("box")
        bx.attrs["boundary"] = np.array([b"none"] * 3)
        bx.create_group("edges").create_dataset("value", data=np.array([np.diag(box)] * len(frames)))


work = sys.argv[1] if len(sys.argv) > 1 else "classify_shapes_out"
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(11)
big = np.array([90.0, 60.0, 60.0])
parts = [(vs.sphere_shell(rng), [15, 15, 15]), (vs.two_compartments(rng), [45, 15, 45]),
         (vs.disk(rng), [15, 45, 45]), (vs.rod(rng), [70, 45, 15]), (vs.ball(rng), [75, 15, 50]),
         (vs.ball(rng), [82, 50, 50]), (vs.cup(rng), [45, 45, 12])]
core, mol, start = [], [], 1
for p, c in parts:
    core.append(p @ vs.random_rotation(rng).T + c)
    mol.append(vs.chains(core[-1], rng, start))
    start = mol[-1].max() + 1
free = np.repeat(rng.uniform(30, 40, (5, 3)), 6, axis=0) + rng.normal(0, 0.3, (30, 3))
core = np.concatenate(core + [free])
mol = np.concatenate(mol + [np.repeat(np.arange(start, start + 5), 6)])
n_core = len(core)
# rows as Vesica writes them: chains first (core beads interleaved with A beads), water last
shell_beads = rng.uniform(0, big, (n_core // 3, 3))
n_water = 2000
pos = np.concatenate([core, shell_beads, rng.uniform(0, big, (n_water, 3))])
species = np.concatenate([np.full(n_core, 1), np.full(len(shell_beads), 0), np.full(n_water, 2)])
molecule = np.concatenate([mol, np.full(len(shell_beads), 1), np.zeros(n_water, np.int64)])
perm = np.concatenate([rng.permutation(n_core + len(shell_beads)),
                       np.arange(n_core + len(shell_beads), len(pos))])
pos, species, molecule = pos[perm], species[perm], molecule[perm]
check("the mixture lies inside the walls", bool(np.all((pos >= 0) & (pos < big))), "")
traj = os.path.join(work, "traj.h5md")
write_traj(traj, [pos, pos], species, molecule, big, ["A", "B", "S"])
r = subprocess.run([sys.executable, TOOL, traj, "--jobs", "2"], capture_output=True, text=True)
print(r.stdout[-1500:], r.stderr[-1500:])
check("command line exits 0", r.returncode == 0, r.returncode)
if r.returncode == 0:
    import csv
    with open(os.path.join(work, "classes.csv")) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(work, "aggregates.csv")) as f:
        aggs = list(csv.DictReader(f))
    with open(os.path.join(work, "classify.json")) as f:
        summary = json.load(f)
    last = rows[-1]
    want = dict(free=5, spherical_micelle=2, cylindrical_micelle=1, open_bilayer=2,
                unilamellar_vesicle=1, multi_vesicle=1)
    got = {c: int(last[c]) for c in vc.CLASSES}
    check("class counts of the mixture", got == want, f"{got} (expected {want})")
    check("class counts sum to the aggregates", sum(got.values()) == int(last["aggregates"]),
          last["aggregates"])
    check("every core bead is counted once",
          sum(int(last["beads_" + c]) for c in vc.CLASSES) == n_core, n_core)
    check("one aggregates.csv row per classified aggregate and frame",
          len(aggs) == 2 * (int(last["aggregates"]) - int(last["free"])), len(aggs))
    check("no aggregate of the mixture at a wall", int(last["wall_aggregates"]) == 0,
          last["wall_aggregates"])
    check("largest aggregate first", int(last["largest_1"]) == max(int(a["beads"]) for a in aggs),
          last["largest_1"])
    check("classify.json: the mixture holds", summary["mixture_holds"] is True
          and set(summary["mixture_classes"]) == {"open_bilayer", "unilamellar_vesicle",
                                                  "multi_vesicle"}, summary["mixture_classes"])
    vesicle = [a for a in aggs if a["cls"] == "unilamellar_vesicle"][0]
    check("the vesicle's centre and chains", np.allclose([float(vesicle[k]) for k in "xyz"],
                                                          [15, 15, 15], atol=0.3)
          and int(vesicle["chains"]) > 1000, {k: vesicle[k] for k in ("x", "y", "z", "chains")})

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
