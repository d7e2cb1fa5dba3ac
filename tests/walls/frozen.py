#!/usr/bin/env python3
"""frozen.py write DATA | check DATA CHECKPOINT [PROFILES]: frozen wall particles
(species.[].frozen).

write: a LAMMPS data file (atom style full) of a 6 x 6 x 8 box with walls along z: two layers
of frozen particles of type 2 on a square lattice at z = 0.25 and z = 7.75 (spacing 0.5, so
the fluid meets a dense wall), and 864 fluid particles of type 1 at random in 1 < z < 7,
with velocities; the frozen ones get 0 0 0 (a frozen particle with a velocity is refused:
tests/reactions/reactions_check.py bad).
check: every frozen particle of the checkpoint stands where the file put it with velocity 0;
the fluid moved; no fluid particle got past a frozen layer's plane by more than a little
(the DPD repulsion of the layer and the bounce-back walls keep it inside); with PROFILES
(profiles along z, 16 bins, per species), the set of all particles' density is the fluid's
species' in every bin (frozen particles are left out of it) and the frozen species' set has
the two layers (the bins at the walls) and nothing between them."""
import sys

import numpy as np


def write(path):
    rng = np.random.default_rng(3)
    atoms = []
    g = np.arange(0.25, 6.0, 0.5)
    for z in (0.25, 7.75):
        for x in g:
            for y in g:
                atoms.append((2, x, y, z))
    for _ in range(864):
        atoms.append((1, rng.uniform(0, 6), rng.uniform(0, 6), rng.uniform(1, 7)))
    with open(path, "w") as f:
        f.write("frozen walls test\n\n%d atoms\n2 atom types\n\n" % len(atoms))
        f.write("0.0 6.0 xlo xhi\n0.0 6.0 ylo yhi\n0.0 8.0 zlo zhi\n\nAtoms # full\n\n")
        for k, (t, x, y, z) in enumerate(atoms):
            f.write("%d 1 %d 0.0 %.10f %.10f %.10f\n" % (k + 1, t, x, y, z))
        f.write("\nVelocities\n\n")
        for k in range(len(atoms)):
            v = rng.normal(0, 1, 3)
            if atoms[k][0] == 2:  # frozen: no velocity (one is refused, frozen.sh checks)
                v = 0.0 * v
            f.write("%d %.6f %.6f %.6f\n" % (k + 1, *v))


def check(data, ckpt):
    import h5py
    pos = {}
    with open(data) as f:
        lines = f.read().split("Atoms # full")[1].split("Velocities")[0].split("\n")
    for ln in lines:
        w = ln.split()
        if len(w) == 7:
            pos[int(w[0]) - 1] = (int(w[2]), np.array([float(v) for v in w[4:7]]))
    with h5py.File(ckpt, "r") as h:
        p = h["particles"]
        tag, x, v = p["tag"][:], p["position"][:], p["velocity"][:]
    bad = 0
    moved = 0
    for t, xi, vi in zip(tag, x, v):
        kind, x0 = pos[int(t)]
        if kind == 2 and (np.any(xi != x0) or np.any(vi != 0.0)):
            bad += 1
        if kind == 1:
            moved += np.any(np.abs(xi - x0) > 1e-6)
            if xi[2] < 0.25 - 0.5 or xi[2] > 7.75 + 0.5:
                bad += 1
    print(f"{len(tag)} particles, {moved} fluid particles moved, {bad} bad")
    return 0 if bad == 0 and moved > 0 else 1


def check_profiles(path):
    import h5py
    with h5py.File(path, "r") as h:
        all_rho, fluid, wall = h["all/density"][:], h["F/density"][:], h["W/density"][:]
    # 144 frozen particles per layer in a bin of 6 x 6 x 0.5
    layers = np.allclose(wall[:, [0, -1]], 144 / 18.0) and not wall[:, 1:-1].any()
    ok = np.array_equal(all_rho, fluid) and layers
    print(f"profiles: all = fluid {np.array_equal(all_rho, fluid)}, frozen layers {layers}")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
        sys.exit(0)
    rc = check(sys.argv[2], sys.argv[3])
    if len(sys.argv) > 4:
        rc |= check_profiles(sys.argv[4])
    sys.exit(rc)
