#!/usr/bin/env python3
"""scaling/tools/aniso_snapshot.py on frames of known answer: snapshot_test.py WORKDIR

- every direction along z (half of them flipped): nematic S = 1, polar order 0;
- two micelles of 6 particles on the vertices of an octahedron of radius 0.45, each pointing
  at its centre (one of them across the periodic boundary), in a box of far, randomly
  turned monomers: with --patch 90 exactly 2 clusters of 6, each with inward alignment 1;
  with the patch test off the micelles are still 2 clusters of 6 (the monomers are far);
- the picture is written into the folder, is a PNG, and a tracked file is refused;
- a trajectory without orientations is refused with one line.
Skips (77) without h5py, matplotlib or scipy.
"""
import json
import os
import subprocess
import sys

try:
    import h5py
    import matplotlib  # noqa: F401
    import numpy as np
    import scipy  # noqa: F401
except ImportError as e:
    print(f"skip: {e}")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "scaling", "tools", "aniso_snapshot.py")
WORK = sys.argv[1]


def write(folder, x, n, box, orient=True):
    os.makedirs(folder, exist_ok=True)
    with h5py.File(os.path.join(folder, "traj.h5md"), "w") as f:
        g = f.create_group("particles/all")
        g["position/value"] = x[None]
        g["position/step"] = np.array([100])
        g["box/edges/value"] = np.diag(box)[None]
        if orient:
            g["orientation/value"] = n[None]
        g["species"] = np.zeros(len(x), dtype=np.int32)


def tool(folder, *args, expect=0):
    js = os.path.join(folder, "stats.json")
    p = subprocess.run([sys.executable, TOOL, folder, "--json", js, *args],
                       capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit(f"{folder}: exit {p.returncode}, expected {expect}\n{p.stdout}{p.stderr}")
    return (json.load(open(js)) if expect == 0 else None), p


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
    print(f"ok: {what}")


rng = np.random.default_rng(3)
box = np.array([10.0, 10.0, 10.0])

# aligned: a lattice of 4^3 along +-z
g = (np.stack(np.meshgrid(*[np.arange(4)] * 3, indexing="ij"), -1).reshape(-1, 3) + 0.5) * 2.5
n = np.zeros_like(g)
n[:, 2] = np.where(np.arange(len(g)) % 2 == 0, 1.0, -1.0)
d = os.path.join(WORK, "aligned")
write(d, g, n, box)
s, _ = tool(d)
check(abs(s["nematic_S"] - 1) < 1e-12 and abs(s["polar"]) < 1e-12, "aligned: S = 1, polar 0")
check(os.path.getsize(os.path.join(d, "snapshot.png")) > 1000 and
      open(os.path.join(d, "snapshot.png"), "rb").read(4) == b"\x89PNG", "picture written")

# micelles: octahedra of radius 0.45 pointing in, one across the boundary at x = 0
octa = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
centres = np.array([[5.0, 5.0, 5.0], [0.1, 2.0, 8.0]])
x = np.concatenate([c + 0.45 * octa for c in centres])
n = np.concatenate([-octa, -octa])
mono = np.array([[2.5, 7.5, 2.5], [7.5, 2.5, 2.5], [7.5, 7.5, 7.5], [2.5, 5.0, 5.0]])
v = rng.normal(size=(len(mono), 3))
x = np.mod(np.concatenate([x, mono]), box)
n = np.concatenate([n, v / np.linalg.norm(v, axis=1)[:, None]])
d = os.path.join(WORK, "micelles")
write(d, x, n, box)
for args in (["--patch", "90", "--color", "cluster"], []):
    s, _ = tool(d, *args)
    check(s["clusters_ge5"] == 2 and s["largest_cluster"] == 6 and
          abs(s["mean_inward"] - 1) < 1e-12 and s["clusters"] == 6,
          f"micelles {' '.join(args) or '(distance only)'}: 2 clusters of 6 pointing in, "
          "4 monomers")
# the same micelles turned outward do not bind through their patches
write(d, x, np.concatenate([-n[:12], n[12:]]), box)
s, _ = tool(d, "--patch", "90")
check(s["clusters_ge5"] == 0, "patches turned outward: no cluster")
s, _ = tool(d, "--patch", "90", "--poles")
check(s["clusters_ge5"] == 2, "the same with a patch at each pole: 2 clusters")

# a tracked file is never written over (only in a git checkout: a copied tree tracks nothing)
try:
    in_git = subprocess.run(["git", "-C", HERE, "rev-parse", "--is-inside-work-tree"],
                            capture_output=True, text=True).returncode == 0
except OSError:  # no git at all
    in_git = False
if in_git:
    tracked = os.path.join(HERE, "CMakeLists.txt")
    _, p = tool(d, "--png", tracked, expect=1)
    check("tracked" in p.stderr and open(tracked).read().startswith("#"),
          "a tracked --png is refused")
else:
    print("skipped: a tracked --png is refused (the tree is not a git checkout)")

d = os.path.join(WORK, "plain")
write(d, g, n[:len(g)] if len(n) >= len(g) else np.zeros_like(g), box, orient=False)
_, p = tool(d, expect=1)
check("orientation" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
      "no orientation dataset: one line")
