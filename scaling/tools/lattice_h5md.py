#!/usr/bin/env python3
"""An fcc lattice as an H5MD file, the starting point of LJ runs (input.format = "h5md").

Usage: lattice_h5md.py OUT.h5 --cells N --density RHO [--species K] [--jitter A] [--seed S]

4 N^3 particles on an fcc lattice of N^3 cubic cells at number density RHO, each displaced by
a uniform random vector of amplitude A in every component (0: the perfect lattice) and given
species s = (id mod K), in the H5MD layout Vesica's input reader takes: /particles/all with
position, species and box/edges (fixed in time, no connectivity: a plain fluid). Random
positions overlap at liquid densities, where LJ forces are too large to integrate; a lattice
melts within a few time units at T = 0.72.
"""
import argparse
import os

import h5py
import numpy as np


def fcc(cells, density):
    a = (4.0 / density) ** (1.0 / 3.0)
    base = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    g = np.arange(cells)
    corners = np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)
    x = (corners[:, None, :] + base[None, :, :]).reshape(-1, 3) * a
    return x + 0.25 * a, a * cells


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--cells", type=int, required=True)
    ap.add_argument("--density", type=float, required=True)
    ap.add_argument("--species", type=int, default=1)
    ap.add_argument("--jitter", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    x, edge = fcc(a.cells, a.density)
    rng = np.random.default_rng(a.seed)
    x += a.jitter * rng.uniform(-1.0, 1.0, size=x.shape)
    x %= edge
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with h5py.File(a.out, "w") as f:
        h = f.create_group("h5md")
        h.attrs["version"] = np.array([1, 1], dtype=np.int32)
        p = f.create_group("particles/all")
        b = p.create_group("box")
        b.attrs["dimension"] = np.int32(3)
        b.attrs["boundary"] = np.array([b"periodic"] * 3, dtype="S8")
        b.create_dataset("edges", data=np.full(3, edge))
        p.create_dataset("position", data=x)
        p.create_dataset("species", data=(np.arange(len(x)) % a.species).astype(np.int32))
    print("%s: %d particles, box %.6f, density %.6f" % (a.out, len(x), edge,
                                                      len(x) / edge ** 3))


if __name__ == "__main__":
    main()
