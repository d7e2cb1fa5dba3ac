#!/usr/bin/env python3
"""scaling/tools/aniso_sa_classify.py on frames of known answer: sa_classify_test.py WORKDIR

disk (alpha 100-style frames, no potential needed):
- columns of disks along z on a triangular lattice (spacing 0.9, 0.3 apart in a column,
  commensurate with the box, small noise): hexagonal columnar, S > 0.99, every particle in
  a column, <|psi6|> and |<psi6>| > 0.9;
- every n along z but positions random: nematic (S > 0.99, few stacked);
- positions and directions random: isotropic (S < 0.1, column fraction < 0.1).
janus (alpha^R 396, alpha^A 132, beta 90, nu 0.5; pairs bound where U_ij < 0):
- a tetrahedron of edge 0.9 and an octahedron of edge 0.905 across the periodic boundary,
  every n at the centre: two micelles of 4 and 6, inward alignment 1;
- two staggered square leaflets (spacing 0.95, 0.6 apart, n at the mid-plane) spanning x
  and y: one bilayer periodic in two directions (the leaflet neighbours, side by side, are
  not bound: U > 0);
- a staggered ladder of two rows along z (0.765 apart), spanning the box: periodic in one
  direction (a cylinder); 10 rungs of it in a large box: finite and prolate (wormlike);
  a 6 x 6 patch of the bilayer in a large box: finite and oblate (bilayer sheet);
- 200 monomers far apart: free.
- the .npz round trip (frame mode) keeps the numbers, and the picture is a PNG.
Skips (77) without MDAnalysis, scipy, h5py or matplotlib.
"""
import json
import os
import subprocess
import sys

try:
    import h5py
    import matplotlib  # noqa: F401
    import MDAnalysis  # noqa: F401
    import numpy as np
    import scipy  # noqa: F401
except ImportError as e:
    print(f"skip: {e}")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scaling", "tools"))
import aniso_sa_classify as sa  # noqa: E402

WORK = sys.argv[1]
os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(7)


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
    print(f"ok: {what}")


def unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


# --- disks
D, s = 0.9, 0.3
nx, ny, nz = 8, 10, 24
box = np.array([nx * D, ny * D * np.sqrt(3) / 2, nz * s])
pts = [((i + 0.5 * (j % 2)) * D, j * D * np.sqrt(3) / 2, k * s)
       for i in range(nx) for j in range(ny) for k in range(nz)]
x = np.mod(np.array(pts) + rng.normal(0, 0.02, (len(pts), 3)), box)
n = np.tile([0.0, 0.0, 1.0], (len(x), 1))
n[::2] *= -1
r = sa.disk(x, n, box)
check(r["class"] == "hexagonal columnar" and r["S"] > 0.99 and r["column_fraction"] > 0.99
      and r["psi6_local"] > 0.9 and r["psi6_global"] > 0.9,
      f"hexagonal columns: {r['class']}, S {r['S']:.3f}, columns {r['column_fraction']:.3f}, "
      f"psi6 {r['psi6_local']:.3f} / {r['psi6_global']:.3f}")
xr = rng.uniform(0, 1, x.shape) * box
r = sa.disk(xr, n, box)
check(r["class"] == "nematic" and r["S"] > 0.99 and r["column_fraction"] < 0.2,
      f"aligned, random positions: {r['class']}, columns {r['column_fraction']:.3f}")
nr = unit(rng.normal(size=x.shape))
r = sa.disk(xr, nr, box)
check(r["class"] == "isotropic" and r["S"] < 0.1 and r["column_fraction"] < 0.1,
      f"random: {r['class']}, S {r['S']:.3f}, columns {r['column_fraction']:.3f}")

# --- Janus
J = dict(ar=396.0, aa=132.0, beta_deg=90.0, nu=0.5)


def micelle(verts, centre):
    return np.asarray(verts) + centre, unit(-np.asarray(verts))


tet = 0.9 / np.sqrt(8) * np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]])
octa = 0.64 * np.vstack([np.eye(3), -np.eye(3)])
bx = np.array([12.0, 12.0, 12.0])
x1, n1 = micelle(tet, [6.0, 6.0, 6.0])
x2, n2 = micelle(octa, [0.1, 0.2, 11.9])
x = np.mod(np.vstack([x1, x2]), bx)
r = sa.janus(x, np.vstack([n1, n2]), bx, **J)
sizes = sorted(a["size"] for a in r["largest"])
check(r["class"] == "micelle" and sizes == [4, 6]
      and all(abs(a["inward"] - 1) < 1e-6 for a in r["largest"]),
      f"two micelles (one across the boundary): sizes {sizes}")


def leaflets(m, a=0.95, h=0.6, z0=3.0):
    lo = [(i * a, j * a, z0 - h / 2) for i in range(m) for j in range(m)]
    hi = [((i + 0.5) * a, (j + 0.5) * a, z0 + h / 2) for i in range(m) for j in range(m)]
    n = np.vstack([np.tile([0, 0, 1.0], (len(lo), 1)), np.tile([0, 0, -1.0], (len(hi), 1))])
    return np.array(lo + hi), n


xb, nb = leaflets(10)
bb = np.array([9.5, 9.5, 6.0])
r = sa.janus(np.mod(xb, bb), nb, bb, **J)
check(r["class"] == "bilayer (periodic)" and r["largest"][0]["size"] == 200
      and r["largest"][0]["periodic"] == 2, f"periodic bilayer: {r['class']}")
xb, nb = leaflets(6, z0=10.0)
big = np.array([20.0, 20.0, 20.0])
r = sa.janus(xb + 4.0, nb, big, **J)
check(r["class"] == "bilayer sheet" and r["largest"][0]["shape"] < 0,
      f"finite bilayer patch: {r['class']}, kappa2 {r['largest'][0]['kappa2']:.2f}")


def ladder(m, a=0.95, h=0.765):
    lo = [(0.0, 0.0, k * a) for k in range(m)]
    hi = [(h, 0.0, (k + 0.5) * a) for k in range(m)]
    n = np.vstack([np.tile([1.0, 0, 0], (m, 1)), np.tile([-1.0, 0, 0], (m, 1))])
    return np.array(lo + hi), n


xl, nl = ladder(12)
bl = np.array([6.0, 6.0, 12 * 0.95])
r = sa.janus(np.mod(xl + [3.0, 3.0, 0.0], bl), nl, bl, **J)
check(r["class"] == "cylinder (periodic)" and r["largest"][0]["periodic"] == 1,
      f"periodic ladder: {r['class']}")
xl, nl = ladder(10)
r = sa.janus(xl + [10.0, 10.0, 5.0], nl, big, **J)
check(r["class"] == "wormlike" and r["largest"][0]["kappa2"] > 0.5,
      f"finite ladder: {r['class']}, kappa2 {r['largest'][0]['kappa2']:.2f}")
g = np.arange(0, 20, 3.3)
xm = np.array([(a, b, c) for a in g for b in g for c in g])[:200]
r = sa.janus(xm, unit(rng.normal(size=xm.shape)), big, **J)
check(r["class"] == "free" and r["aggregates"] == 0, "monomers: free")

# --- the file round trip and the picture through the command line
run = os.path.join(WORK, "run")
os.makedirs(os.path.join(run, "checkpoints"), exist_ok=True)
with h5py.File(os.path.join(run, "checkpoints", "ckpt_500.h5"), "w") as f:
    f.attrs["step"] = np.int64(500)
    f.create_group("parameters").attrs["box"] = bx
    pos = np.vstack([x, [[1.0, 1.0, 1.0]]])
    f["particles/position"] = pos
    o = np.zeros((len(pos), 9))
    o[:len(x), :3] = np.vstack([n1, n2])
    f["particles/orientation"] = o  # the last row: a point bead, dropped
tool = os.path.join(HERE, "..", "..", "scaling", "tools", "aniso_sa_classify.py")
npz = os.path.join(WORK, "m.npz")
subprocess.run([sys.executable, tool, "frame", run, npz], check=True)
js = os.path.join(WORK, "m.json")
png = os.path.join(WORK, "m.png")
subprocess.run([sys.executable, tool, "janus", npz, "--json", js, "--png", png,
                "--titles", "two micelles"], check=True, capture_output=True)
res = json.load(open(js))[npz]
check(res["step"] == 500 and res["particles"] == 10 and res["class"] == "micelle",
      "frame mode: step, oriented particles only, the same class")
check(open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "picture written")
print("all passed")
