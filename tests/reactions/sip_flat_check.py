#!/usr/bin/env python3
"""sip_flat_check.py VESICA OUTDIR: the flat-surface brush's pieces (docs/validation.md,
"Flat-surface brushes"), short.

1. scaling/tools/sip_flat.py's geometry at two grafting densities: the initiator count is
   the lattice's (nx x ny, nx = round(L sqrt(sigma))) and its density within the lattice's
   rounding of sigma; every initiator lies on the face (the z in the title line), inside the
   box, within the jitter of its lattice site; the slab's layers lie below the face, the
   monomers at least 0.5 above it and below the box's top, at density 3.
2. reaction_analysis.py's planar profile on beads placed by hand: the heights wrap through
   the periodic box, the density integrates to the count over the area, <h> and h95 are
   the beads' mean and 95th percentile.
3. A short run of configs/surface-polymerization-flat.cfg on a small system (edge 6, bath
   height 6, Pr = 1, 400 steps): the initiators stay frozen on the face; every chain's bond
   path starts at a grafted initiator (G) on the face; the chains grew at nearly one monomer
   per interval (mean N above 3/4 of the 8 intervals: Pr = 1, the dense bath); every polymer
   bead lies above the face and below the box's top.
"""
import math
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TOOLS = os.path.join(ROOT, "scaling", "tools")
sys.path.insert(0, TOOLS)
import reaction_analysis as ra  # noqa: E402

VESICA, OUT = sys.argv[1], sys.argv[2]
FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def read_data(path):
    with open(path) as f:
        title = f.readline()
        text = f.read()
    face = float(re.search(r"face z = ([0-9.eE+-]+)", title).group(1))
    box = [float(m) for m in re.findall(r"([0-9.eE+-]+) [xyz]lo [xyz]hi", text)]
    rows = np.array([[float(v) for v in line.split()] for line in
                     text.split("Atoms # full\n\n", 1)[1].strip().splitlines()])
    return face, np.array(box), rows[:, 2].astype(int), rows[:, 4:7]


def geometry(sigma, edge=12.6491106407, height=10.0, jitter=0.2):
    path = os.path.join(OUT, f"flat-{sigma}.data")
    subprocess.run([sys.executable, os.path.join(TOOLS, "sip_flat.py"), path, "--sigma",
                    str(sigma), "--edge", str(edge), "--height", str(height), "--jitter",
                    str(jitter), "--seed", "7"], check=True, capture_output=True)
    face, box, t, x = read_data(path)
    nx = int(round(edge * math.sqrt(sigma)))
    ny = int(round(sigma * edge * edge / nx))
    ini = x[t == 2]
    check(len(ini) == nx * ny, f"sigma {sigma}: {len(ini)} initiators, the {nx} x {ny} lattice")
    check(abs(len(ini) / edge ** 2 - sigma) <= 0.5 * (nx + ny) / edge ** 2,
          f"sigma {sigma}: {len(ini) / edge ** 2:.4f} per unit area")
    check(np.allclose(ini[:, 2], face, atol=1e-8), f"sigma {sigma}: initiators on the face "
          f"z = {face:.4f}")
    check(bool(np.all((ini[:, :2] >= 0) & (ini[:, :2] < edge))), "initiators inside the box")
    dx, dy = edge / nx, edge / ny
    # the offset from the site at the centre of the lattice cell each initiator lies in
    off_x = np.abs(ini[:, 0] / dx % 1.0 - 0.5) * dx
    off_y = np.abs(ini[:, 1] / dy % 1.0 - 0.5) * dy
    check(bool(np.all(off_x <= jitter * dx + 1e-9) and np.all(off_y <= jitter * dy + 1e-9)),
          f"initiators within {jitter} spacings of their sites (largest {off_x.max() / dx:.3f},"
          f" {off_y.max() / dy:.3f})")
    sites = np.floor(ini[:, 0] / dx).astype(int) * ny + np.floor(ini[:, 1] / dy).astype(int)
    check(len(np.unique(sites)) == nx * ny, "one initiator per lattice cell")
    wall, mono = x[t == 1], x[t == 6]
    check(bool(np.all(wall[:, 2] <= face - 0.3 + 1e-9)), "the slab's layers below the face")
    check(bool(np.all(mono[:, 2] >= face + 0.5) and np.all(mono[:, 2] < box[2])),
          "the monomers between face + 0.5 and the box's top")
    rho = len(mono) / (edge * edge * (box[2] - face - 0.5))
    check(abs(rho - 3.0) < 1e-3, f"the bath's density {rho:.4f}")


def planar():
    x = np.array([[1.0, 1.0, 2.5], [2.0, 2.0, 3.0], [3.0, 3.0, 9.5], [0.5, 0.5, 0.5],
                  [4.0, 4.0, 4.0]])
    t = {"species": np.array([1, 1, 1, 1, 0]), "x": x, "box": np.array([5.0, 4.0, 10.0])}
    h, sel = ra.plane_heights(t, [1], 2, 2.0)
    want = np.array([0.5, 1.0, 7.5, 8.5])
    check(np.allclose(h, want), f"planar heights wrap through the box: {h.tolist()}")
    mid, rho, hh = ra.planar_density(t, [1], 2, 2.0, 10.0, 5)
    check(abs(rho.sum() * 2.0 * 20.0 - 4) < 1e-12 and np.allclose(rho * 40.0, [2, 0, 0, 1, 1]),
          f"planar density integrates to the count: {rho.tolist()}")
    b = ra.brush_heights(hh)
    check(abs(b["h_mean"] - want.mean()) < 1e-12 and abs(b["h95"] - np.percentile(want, 95))
          < 1e-12, f"<h> {b['h_mean']}, h95 {b['h95']}")


def short_run():
    data = os.path.join(OUT, "run.data")
    subprocess.run([sys.executable, os.path.join(TOOLS, "sip_flat.py"), data, "--sigma", "0.4",
                    "--edge", "6", "--height", "6", "--seed", "3"], check=True,
                   capture_output=True)
    face, box, t0, x0 = read_data(data)
    d = os.path.join(OUT, "run")
    cmd = [VESICA, "run", os.path.join(ROOT, "configs", "surface-polymerization-flat.cfg"),
           "--set", "backend=cpu", "--set", f"input.file={data}", "--set", f"output.dir={d}",
           "--set", "reactions.chain.probability=1.0", "--set", "integrator.steps=400",
           "--set", "output.trajectory_interval=400", "--set", "output.thermo_interval=100"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    check(p.returncode == 0, f"the short run exits 0 ({p.stderr.strip()[-300:]})")
    if p.returncode != 0:
        return
    tr = ra.load(os.path.join(d, "traj.h5md"), -1)
    names = tr["names"]
    sp = tr["species"]
    G, I = names.index("G"), names.index("I")
    graft = np.isin(sp, [G, I])
    check(int(graft.sum()) == int((t0 == 2).sum()) and
          np.allclose(tr["x"][graft, 2], face, atol=1e-9),
          f"{int(graft.sum())} initiators still on the face")
    lengths = ra.chain_lengths(tr, "I,A")
    n = len(sp)
    label = ra.components(n, tr["pairs"])
    heads = np.nonzero(np.isin(sp, [names.index("I"), names.index("A")]))[0]
    grafted = set(label[np.nonzero(sp == G)[0]])
    check(all(label[h] in grafted or sp[h] == I for h in heads),
          "every chain starts at a grafted initiator")
    check(float(np.mean(lengths - 1)) > 0.75 * 8,
          f"the chains grew: mean N {np.mean(lengths - 1):.2f} after 8 intervals at Pr = 1")
    h, _ = ra.plane_heights(tr, [names.index("P"), names.index("A")], 2, face)
    check(len(h) > 0 and bool(np.all(h > 0.0) and np.all(h < box[2] - 0.5)),
          f"{len(h)} polymer beads above the face (h in [{h.min():.2f}, {h.max():.2f}])")


def main():
    os.makedirs(OUT, exist_ok=True)
    geometry(0.1)
    geometry(0.4)
    planar()
    short_run()
    print(f"{len(FAILS)} failed" if FAILS else "all passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
