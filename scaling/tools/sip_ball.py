#!/usr/bin/env python3
"""sip_ball.py OUT.data [--box L] [--radius R] [--sigma S] [--density RHO] [--seed K]

The system of GALAMOST's surface-initiated polymerization benchmark (its Table 2 and figure
10), scaled to a CPU: a frozen ball of radius R at the centre of a cubic box of edge L, its
body filled with frozen beads on a simple cubic lattice at the fluid's density, initiators on
its surface spread uniformly (a Fibonacci lattice on the sphere) at S per unit area (GALAMOST:
about 0.51), and a bath of monomers at density RHO filling the box outside R + 0.5. Written
as a LAMMPS data file (atom style full) for configs/surface-polymerization.cfg, with six atom
types, the species of that configuration by their order: 1 W (the ball), 2 I (initiators),
3 G (grafted initiators that reacted), 4 A (active ends), 5 P (polymerized), 6 M (monomers).
No velocities: the run draws the monomers' at kT and the frozen beads stand still.
Table 2's smallest system is R = 5, S = 0.528, 166 initiators, 48,210 particles in a box of
38.25; the defaults (R = 3, L = 14, S = 0.5, RHO = 3) make 57 initiators among about 8,200
particles.
"""
import argparse
import math

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--box", type=float, default=14.0)
    ap.add_argument("--radius", type=float, default=3.0)
    ap.add_argument("--sigma", type=float, default=0.5)
    ap.add_argument("--density", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    L, R, rho = a.box, a.radius, a.density
    c = np.full(3, L / 2)
    rng = np.random.default_rng(a.seed)
    atoms = []  # (type, x, y, z)
    # the ball's body: a simple cubic lattice inside R - 0.3, clear of the initiators' shell
    s = rho ** (-1.0 / 3.0)
    g = np.arange(-R, R + s, s)
    for x in g:
        for y in g:
            for z in g:
                if x * x + y * y + z * z < (R - 0.3) ** 2:
                    atoms.append((1, *(c + (x, y, z))))
    n_ball = len(atoms)
    # initiators on the surface: a Fibonacci lattice, uniform to within a bead
    n_init = int(round(a.sigma * 4.0 * math.pi * R * R))
    golden = math.pi * (3.0 - math.sqrt(5.0))
    for k in range(n_init):
        zc = 1.0 - 2.0 * (k + 0.5) / n_init
        rr = math.sqrt(1.0 - zc * zc)
        phi = golden * k
        atoms.append((2, *(c + R * np.array((rr * math.cos(phi), rr * math.sin(phi), zc)))))
    # the monomers: uniform outside R + 0.5
    free = L ** 3 - 4.0 / 3.0 * math.pi * (R + 0.5) ** 3
    n_mono = int(round(rho * free))
    placed = 0
    while placed < n_mono:
        p = rng.uniform(0.0, L, size=(2 * (n_mono - placed), 3))
        p = p[np.linalg.norm(p - c, axis=1) > R + 0.5][: n_mono - placed]
        atoms += [(6, *q) for q in p]
        placed += len(p)
    with open(a.out, "w") as f:
        f.write("surface-initiated polymerization: a frozen ball with initiators in a bath of "
                "monomers (scaling/tools/sip_ball.py)\n\n")
        f.write(f"{len(atoms)} atoms\n6 atom types\n\n")
        for d in "xyz":
            f.write(f"0.0 {L:.10g} {d}lo {d}hi\n")
        f.write("\nAtoms # full\n\n")
        for k, (t, x, y, z) in enumerate(atoms):
            f.write(f"{k + 1} 0 {t} 0.0 {x:.10f} {y:.10f} {z:.10f}\n")
    print(f"{a.out}: box {L}, ball radius {R}: {n_ball} frozen beads, {n_init} initiators "
          f"({n_init / (4 * math.pi * R * R):.3f} per unit area), {n_mono} monomers, "
          f"{len(atoms)} particles")


if __name__ == "__main__":
    main()
