#!/usr/bin/env python3
"""Build a preassembled DPPC bilayer in water for the MD-SCF example (configs/field-dppc.cfg).

Usage: dppc_bilayer.py OUT.data [--nx NX] [--area A] [--water-per-lipid W] [--density RHO]
                       [--cells-x CX] [--seed SEED] [--random]

Writes a LAMMPS data file (the `molecular` atom layout Vesica reads, docs/configuration.md
"Reading a system") of 2 NX^2 DPPC molecules in a bilayer normal to z, centred at Lz / 2,
with W water beads per lipid in the rest of the box. Units: nm, amu (and kJ/mol, ps in the
configuration).

The lipid is the 12-bead MD-SCF model of Milano and co-workers as GALAMOST's own DPPC
MD-SCF example script runs it (docs/validation.md, "DPPC bilayer"): N (choline) - P
(phosphate) - G1 - G2 (glycerol), and two tails of four C beads, G1-C1A..C4A and
G2-C1B..C4B; all beads 72 amu. Bond type 1 is r0 = 0.47 nm (every bond but G1-G2), type 2
r0 = 0.37 nm (G1-G2); angle type 1 has its rest angle at 180 degrees (P-G1-C1A, G-C-C,
C-C-C), type 2 at 120 degrees (P-G1-G2). Atom types 1..5 are N, P, G, C, W, the order of the
configuration's species.

The box: NX x NX lipids per leaflet on a square lattice at A nm^2 per lipid (Lx = Ly =
NX sqrt(A)); Lz a whole number of the grid's cells (Lx / CX each) chosen so that the bead
density comes closest to RHO beads per nm^3. The tails start as zigzags (bonds of 0.47 nm at
0.30 nm per bead along z), the heads above them, so that the phosphates start 3.7 nm apart;
the water beads are placed uniformly at random in the slab |z - Lz/2| > 1.6 nm. The
particles of one molecule never cross a box edge (no image flags needed). The bonds start
within 2e-3 nm of their rest lengths (zigzags of 0.469 nm, P-G1 and N-P 0.472 nm).

--random: the same molecules in the same box, for self-assembly: each lipid the bilayer's
shape turned by a uniformly random rotation about its centre, put at a uniformly random
point (its beads wrapped into the box, with image flags that keep it whole), the water
anywhere in the box.
"""
import argparse
import math
import random

TYPES = ["N", "P", "G", "C", "W"]
MASS = 72.0
# (bead name, type index from 1); bonds and angles by bead index within the molecule
BEADS = [("N", 1), ("P", 2), ("G1", 3), ("G2", 3),
         ("C1A", 4), ("C2A", 4), ("C3A", 4), ("C4A", 4),
         ("C1B", 4), ("C2B", 4), ("C3B", 4), ("C4B", 4)]
BONDS = [(0, 1, 1), (1, 2, 1), (2, 3, 2), (2, 4, 1), (4, 5, 1), (5, 6, 1), (6, 7, 1),
         (3, 8, 1), (8, 9, 1), (9, 10, 1), (10, 11, 1)]
ANGLES = [(1, 2, 3, 2), (1, 2, 4, 1), (2, 4, 5, 1), (4, 5, 6, 1), (5, 6, 7, 1),
          (3, 8, 9, 1), (8, 9, 10, 1), (9, 10, 11, 1)]


def lipid(x, y, zc, up):
    """Bead positions of one lipid whose glycerols sit at (x +- 0.185, y), tails towards zc."""
    s = 1.0 if up else -1.0
    dz, dx = 0.30, 0.18          # zigzag: sqrt(0.36^2 + 0.30^2) = 0.469 nm per bond
    pos = [None] * 12
    for tail, (g, first) in enumerate(((2, 4), (3, 8))):
        xg = x - 0.185 if tail == 0 else x + 0.185
        for k in range(4):       # C1 (k = 0) next to the glycerol ... C4 at the centre
            zk = zc + s * (0.25 + dz * (3 - k))
            pos[first + k] = (xg + (dx if k % 2 == 0 else -dx), y, zk)
        pos[g] = (xg - dx, y, zc + s * (0.25 + dz * 4))
    xg1 = pos[2][0]
    pos[1] = (xg1 + 0.25, y, pos[2][2] + s * 0.40)   # P: |(0.25, 0.40)| = 0.47 nm
    pos[0] = (xg1, y, pos[1][2] + s * 0.40)          # N
    return pos


def rotation(rng):
    """A uniformly random rotation matrix (a random unit quaternion)."""
    q = [rng.gauss(0, 1) for _ in range(4)]
    n = math.sqrt(sum(v * v for v in q))
    w, x, y, z = (v / n for v in q)
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


def scatter(pos, lx, lz, rng):
    """Turn a lipid's beads about their centre and move them to a random point: wrapped
    positions and image flags."""
    c = [sum(p[d] for p in pos) / len(pos) for d in range(3)]
    r = rotation(rng)
    t = [rng.uniform(0, lx), rng.uniform(0, lx), rng.uniform(0, lz)]
    box = (lx, lx, lz)
    out = []
    for p in pos:
        u = [sum(r[i][k] * (p[k] - c[k]) for k in range(3)) + t[i] for i in range(3)]
        img = tuple(math.floor(u[d] / box[d]) for d in range(3))
        out.append((tuple(u[d] - img[d] * box[d] for d in range(3)), img))
    return out


def build(nx, area, wpl, rho, cells_x, seed, random_start=False):
    a = math.sqrt(area)
    lx = nx * a
    h = lx / cells_x
    nlip = 2 * nx * nx
    nw = int(round(wpl * nlip))
    ntot = 12 * nlip + nw
    cz = max(4, int(round(ntot / (rho * lx * lx) / h)))
    lz = cz * h
    zc = lz / 2
    rng = random.Random(seed)
    atoms, bonds, angles = [], [], []
    mol = 0
    for leaf, up in ((0, True), (1, False)):
        off = 0.5 if leaf == 0 else 0.0   # the leaflets' lattices shifted by half a cell in y
        for i in range(nx):
            for j in range(nx):
                mol += 1
                base = len(atoms)
                y = ((j + 0.5 + off) * a) % lx   # a lipid spans x +- 0.365 nm, no y
                pos = lipid((i + 0.5) * a, y, zc, up)
                placed = scatter(pos, lx, lz, rng) if random_start else \
                    [(p, (0, 0, 0)) for p in pos]
                for (name, t), (p, img) in zip(BEADS, placed):
                    atoms.append((mol, t, p, img))
                bonds += [(t, base + u, base + v) for u, v, t in BONDS]
                angles += [(t, base + u, base + v, base + w) for u, v, w, t in ANGLES]
    half = 1.6
    for _ in range(nw):
        mol += 1
        z = rng.uniform(half, lz - half) + zc
        z = z - lz if z >= lz else z
        if random_start:
            z = rng.uniform(0, lz)
        atoms.append((mol, 5, (rng.uniform(0, lx), rng.uniform(0, lx), z), (0, 0, 0)))
    return lx, lz, h, atoms, bonds, angles, nlip, nw


def write(path, lx, lz, atoms, bonds, angles, nlip, nw, h):
    with open(path, "w") as f:
        f.write(f"DPPC bilayer: {nlip} lipids, {nw} water, grid cell {h:.12f} nm "
                f"(scaling/tools/dppc_bilayer.py)\n\n")
        f.write(f"{len(atoms)} atoms\n{len(bonds)} bonds\n{len(angles)} angles\n\n")
        f.write(f"{len(TYPES)} atom types\n2 bond types\n2 angle types\n\n")
        f.write(f"0.0 {lx:.12f} xlo xhi\n0.0 {lx:.12f} ylo yhi\n0.0 {lz:.12f} zlo zhi\n\n")
        f.write("Masses\n\n")
        for k, name in enumerate(TYPES):
            f.write(f"{k + 1} {MASS} # {name}\n")
        f.write("\nAtoms # molecular\n\n")
        for k, (mol, t, (x, y, z), (ix, iy, iz)) in enumerate(atoms):
            f.write(f"{k + 1} {mol} {t} {x:.6f} {y:.6f} {z:.6f} {ix} {iy} {iz}\n")
        f.write("\nBonds\n\n")
        for k, (t, a, b) in enumerate(bonds):
            f.write(f"{k + 1} {t} {a + 1} {b + 1}\n")
        f.write("\nAngles\n\n")
        for k, (t, a, b, c) in enumerate(angles):
            f.write(f"{k + 1} {t} {a + 1} {b + 1} {c + 1}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--nx", type=int, default=8, help="lipids per leaflet along x and y")
    ap.add_argument("--area", type=float, default=0.64, help="area per lipid, nm^2")
    ap.add_argument("--water-per-lipid", type=float, default=1600 / 208,
                    help="W beads per lipid (GALAMOST's figure 5: 1600 waters / 208 DPPC)")
    ap.add_argument("--density", type=float, default=8.86, help="beads per nm^3")
    ap.add_argument("--cells-x", type=int, default=11, help="grid cells along x and y")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--random", action="store_true", help="a random mixture (self-assembly)")
    a = ap.parse_args()
    lx, lz, h, atoms, bonds, angles, nlip, nw = build(a.nx, a.area, a.water_per_lipid,
                                                       a.density, a.cells_x, a.seed, a.random)
    write(a.out, lx, lz, atoms, bonds, angles, nlip, nw, h)
    print(f"{a.out}: {nlip} DPPC + {nw} W = {len(atoms)} beads, {len(bonds)} bonds, "
          f"{len(angles)} angles; box {lx:.6f} x {lx:.6f} x {lz:.6f} nm, "
          f"{len(atoms) / (lx * lx * lz):.3f} beads/nm^3; grid cell {h:.12f} nm "
          f"({a.cells_x} x {a.cells_x} x {round(lz / h)})")


if __name__ == "__main__":
    main()
