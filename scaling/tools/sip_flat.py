#!/usr/bin/env python3
"""sip_flat.py OUT.data [--edge L] [--height H] [--sigma S] [--layers K] [--density RHO]
                        [--jitter J] [--seed K]

A flat-surface brush system for surface-initiated polymerization (the flat counterpart of
sip_ball.py, for configs/surface-polymerization-flat.cfg): a box periodic in all three
directions, L x L x Lz; at its bottom a slab of K layers of frozen W beads on a simple cubic
lattice at the fluid's density (its layers at z = 0.5, 0.5 + s, ..., s = RHO^(-1/3)); on its
top face, 0.3 above the top layer, the initiators at S per unit area on a square lattice of
nx x ny sites (nx = round(L sqrt(S)), ny = round(S L^2 / nx)), each displaced within +-J of
its site's spacing in x and y; above them a bath of monomers at density RHO, H high, from
0.5 above the face to Lz, which leaves 0.5 of fluid between the bath's top and the slab's
bottom layer (the periodic image of the slab closes the box in z; no wall is needed, as in
the ball's fully periodic box). Written as a LAMMPS data file (atom style full) with the six
atom types of sip_ball.py: 1 W (the slab), 2 I (initiators), 3 G (grafted initiators that
reacted), 4 A (active ends), 5 P (polymerized), 6 M (monomers). No velocities: the run draws
the monomers' at kT and the frozen beads stand still.

The grafting plane (the initiators' z) is printed and written in the data file's title line
as "face z = Z0", for reaction_analysis.py's planar profile (--plane Z0).
"""
import argparse
import math

import numpy as np


def initiator_sites(edge, sigma, jitter, rng):
    """Grafting sites on the face: a jittered nx x ny lattice of about sigma L^2 sites."""
    nx = max(1, int(round(edge * math.sqrt(sigma))))
    ny = max(1, int(round(sigma * edge * edge / nx)))
    dx, dy = edge / nx, edge / ny
    sites = []
    for i in range(nx):
        for j in range(ny):
            x = (i + 0.5) * dx + rng.uniform(-jitter, jitter) * dx
            y = (j + 0.5) * dy + rng.uniform(-jitter, jitter) * dy
            sites.append((x % edge, y % edge))
    return np.array(sites), nx, ny


def build(edge, height, sigma, layers, rho, jitter, seed):
    """The atoms (type, x, y, z), the box's z edge and the face's z."""
    rng = np.random.default_rng(seed)
    s = rho ** (-1.0 / 3.0)
    n_side = max(1, int(round(edge / s)))
    g = (np.arange(n_side) + 0.5) * edge / n_side
    atoms = []
    for k in range(layers):
        z = 0.5 + k * s
        atoms += [(1, x, y, z) for x in g for y in g]
    n_wall = len(atoms)
    face = 0.5 + (layers - 1) * s + 0.3
    sites, nx, ny = initiator_sites(edge, sigma, jitter, rng)
    atoms += [(2, x, y, face) for x, y in sites]
    lo = face + 0.5
    lz = lo + height
    n_mono = int(round(rho * edge * edge * height))
    p = rng.uniform(0.0, 1.0, size=(n_mono, 3)) * (edge, edge, height) + (0.0, 0.0, lo)
    p[:, 2] = np.minimum(p[:, 2], np.nextafter(lz, 0.0))
    atoms += [(6, *q) for q in p]
    return atoms, lz, face, {"wall": n_wall, "initiators": len(sites), "monomers": n_mono,
                             "lattice": (nx, ny)}


def write(path, atoms, edge, lz, face):
    with open(path, "w") as f:
        f.write("surface-initiated polymerization: a frozen slab with initiators on its face "
                f"z = {face:.10g} in a bath of monomers (scaling/tools/sip_flat.py)\n\n")
        f.write(f"{len(atoms)} atoms\n6 atom types\n\n")
        f.write(f"0.0 {edge:.10g} xlo xhi\n0.0 {edge:.10g} ylo yhi\n0.0 {lz:.10g} zlo zhi\n")
        f.write("\nAtoms # full\n\n")
        for k, (t, x, y, z) in enumerate(atoms):
            f.write(f"{k + 1} 0 {t} 0.0 {x:.10f} {y:.10f} {z:.10f}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--edge", type=float, default=4.0 / math.sqrt(0.1),
                    help="L, the box's x and y edge (default 4 / sqrt(0.1) = 12.65: square "
                         "lattices of 4 x 4 at S = 0.1 and 8 x 8 at S = 0.4)")
    ap.add_argument("--height", type=float, default=20.0, help="H, the bath's height")
    ap.add_argument("--sigma", type=float, default=0.1, help="initiators per unit area")
    ap.add_argument("--layers", type=int, default=3, help="layers of the frozen slab")
    ap.add_argument("--density", type=float, default=3.0)
    ap.add_argument("--jitter", type=float, default=0.2,
                    help="the largest displacement of a site, in lattice spacings")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.sigma <= 0.0 or a.edge <= 2.0 or a.height <= 2.0 or a.layers < 2:
        ap.error("expected sigma > 0, edge > 2, height > 2 and at least 2 layers")
    atoms, lz, face, n = build(a.edge, a.height, a.sigma, a.layers, a.density, a.jitter,
                               a.seed)
    write(a.out, atoms, a.edge, lz, face)
    print(f"{a.out}: box {a.edge:.4f} x {a.edge:.4f} x {lz:.4f}, face z = {face:.4f}: "
          f"{n['wall']} frozen beads in {a.layers} layers, {n['initiators']} initiators "
          f"({n['lattice'][0]} x {n['lattice'][1]}, {n['initiators'] / a.edge ** 2:.4f} per "
          f"unit area), {n['monomers']} monomers, {len(atoms)} particles")


if __name__ == "__main__":
    main()
