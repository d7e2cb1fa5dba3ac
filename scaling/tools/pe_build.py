#!/usr/bin/env python3
"""Build the starting state of the united-atom polyethylene melt (configs/polyethylene.cfg).

Usage: pe_build.py OUT.data [--chains N] [--sites S] [--density RHO] [--seed SEED]
                   [--kT KT] [--dmin D]

Writes a LAMMPS data file (the `molecular` atom layout Vesica reads, docs/configuration.md
"Reading a system") of N linear chains CH3-(CH2)_(S-2)-CH3 in a cubic periodic box of RHO
united-atom sites per nm^3: atom type 1 is CH2 (Dreiding C_32), type 2 the CH3 ends (C_33);
one bond, angle and dihedral type (Xu et al. give C_32-C_32 and C_32-C_33 the same
parameters). Units: nm.

Why not the configuration's own molecule builder: its templates take sequences of at most
64 beads (Xu et al.'s chains have 300 sites) and place beads by a free random walk, so that
bond angles start anywhere and chains overlap. Here every chain grows with the force field's
bond length b = 0.153 nm and angle theta0 = 109.471 degrees exactly, dihedrals near the
staggered minima (trans with probability 1/2, gauche +-60 with 1/4 each, +-10 degrees of
uniform jitter), and each new site keeps at least DMIN = 0.30 nm from every site other than
its own two predecessors and D14 = 0.27 nm from its 1-4 neighbour (a grid of cells; periodic
images counted; the LJ acts between 1-4 neighbours, and a Boltzmann draw of two angles and a
dihedral can bring them to 0.16 nm, where the LJ force, 3e6 kJ/mol/nm, is beyond the 2^21
bound of one contribution to Vesica's fixed-point force sums, src/core/fixed_sum.h: the
force is NaN at step 0 and the run stops). At 0.30 nm the LJ
energy of a CH2 pair is +2.6 kT at 1000 K: a start that the LJ force field integrates at
dt = 1 fs without a soft push-off. A site that finds no room after 40 tries restarts its
chain at a new random point. With --kT the bond lengths, angles and dihedrals are instead
draws from the bonded terms' own Boltzmann laws at that kT (the example and the tests use
this, so that the stiff bonds start with their share of the energy); --dmin 0 drops the
distance checks (phantom chains, tests/molecules/pe_boltzmann.py: the checks would bias the
dihedrals towards trans).
"""
import argparse
import math
import sys

import numpy as np

B, THETA0 = 0.153, math.radians(109.471)
KB, KA, KPHI = 292880.0, 418.40, 4.184   # Xu et al., Table I (kJ/mol, nm, rad)
DMIN = 0.30
D14 = 0.27   # the closest 1-4 pair: +11 kT of LJ at 1000 K (the LJ acts on 1-4 pairs)
MASS = {1: 14.027, 2: 15.035}


def place(a, b, c, bond, theta, phi):
    """The site d with |c d| = bond, angle b-c-d = theta and dihedral a-b-c-d = phi (IUPAC:
    phi = pi trans, 0 cis), by the natural extension reference frame."""
    bc = c - b
    bc /= np.linalg.norm(bc)
    n = np.cross(b - a, bc)
    n /= np.linalg.norm(n)
    m = np.cross(n, bc)
    d2 = np.array([-bond * math.cos(theta), bond * math.sin(theta) * math.cos(phi),
                   bond * math.sin(theta) * math.sin(phi)])
    return c + d2[0] * bc + d2[1] * m + d2[2] * n


class Thermal:
    """Draws of bond lengths, angles and dihedrals from the bonded terms' own Boltzmann
    laws at kT, r^2 e^(-k_b (r-b)^2/2kT), sin(theta) e^(-k_a (theta-theta0)^2/2kT) and
    e^(-k (1 + cos 3 phi)/kT), by inverting their cumulative distributions on fine grids."""

    def __init__(self, kT, rng):
        self.rng = rng
        sb, sa = math.sqrt(kT / KB), math.sqrt(kT / KA)
        r = np.linspace(B - 10 * sb, B + 10 * sb, 20001)
        t = np.linspace(max(0.0, THETA0 - 10 * sa), min(math.pi, THETA0 + 10 * sa), 20001)
        p = np.linspace(-math.pi, math.pi, 20001)
        self.laws = [self._cdf(r, r * r * np.exp(-KB * (r - B) ** 2 / (2 * kT)))]
        self.laws.append(self._cdf(t, np.sin(t) * np.exp(-KA * (t - THETA0) ** 2 / (2 * kT))))
        self.laws.append(self._cdf(p, np.exp(-KPHI * (1 + np.cos(3 * p)) / kT)))

    @staticmethod
    def _cdf(q, w):
        c = np.concatenate([[0.0], np.cumsum(0.5 * (w[1:] + w[:-1]) * np.diff(q))])
        return q, c / c[-1]

    def draw(self, which):
        q, c = self.laws[which]
        return float(np.interp(self.rng.uniform(), c, q))


def dihedral(a, b, c, d):
    """IUPAC dihedral (Blondel & Karplus), to check place()."""
    b1, b2, b3 = b - a, c - b, d - c
    n1, n2 = np.cross(b1, b2), np.cross(b2, b3)
    return math.atan2(np.linalg.norm(b2) * np.dot(b1, n2), np.dot(n1, n2))


class Grid:
    """Sites binned in cells of at least DMIN, for the closest-distance check."""

    def __init__(self, box, dmin):
        self.box = box
        self.dmin = dmin
        self.n = max(3, int(box // max(dmin, DMIN)))
        self.cell = box / self.n
        self.cells = {}
        self.x = []

    def key(self, p):
        return tuple((np.floor(p / self.cell).astype(int)) % self.n)

    def free(self, p, skip, near=-1):
        """No site within dmin of p but those in skip, and site near (the 1-4 neighbour)
        not within D14."""
        if self.dmin <= 0.0:
            return True
        k = self.key(p)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    kk = ((k[0] + dx) % self.n, (k[1] + dy) % self.n, (k[2] + dz) % self.n)
                    for j in self.cells.get(kk, ()):
                        if j in skip:
                            continue
                        d = p - self.x[j]
                        d -= self.box * np.round(d / self.box)
                        dm = min(D14, self.dmin) if j == near else self.dmin
                        if d @ d < dm * dm:
                            return False
        return True

    def add(self, p):
        self.cells.setdefault(self.key(p), []).append(len(self.x))
        self.x.append(p)

    def drop(self, count):
        for _ in range(count):
            j = len(self.x) - 1
            self.cells[self.key(self.x[j])].remove(j)
            self.x.pop()


def random_unit(rng):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def grow_chain(grid, rng, sites, thermal=None):
    """Grow one chain into the grid; returns its unwrapped positions or None. With thermal,
    bond lengths, angles and dihedrals are Boltzmann draws (else b, theta0 and near-staggered
    dihedrals)."""
    start = len(grid.x)
    box = grid.box
    p0 = rng.uniform(0.0, box, size=3)
    chain = [p0]
    if not grid.free(p0, ()):
        return None
    grid.add(p0 % box)
    for i in range(1, sites):
        ok = False
        for _ in range(40):
            bond = B if thermal is None else thermal.draw(0)
            theta = THETA0 if thermal is None else thermal.draw(1)
            if i == 1:
                p = chain[0] + bond * random_unit(rng)
            elif i == 2:
                u = chain[1] - chain[0]
                u /= np.linalg.norm(u)
                w = np.cross(u, random_unit(rng))
                w /= np.linalg.norm(w)
                p = chain[1] + bond * (-math.cos(theta) * u + math.sin(theta) * w)
            elif thermal is not None:
                p = place(chain[-3], chain[-2], chain[-1], bond, theta, thermal.draw(2))
            else:
                phi = rng.choice([math.pi, math.pi / 3, -math.pi / 3], p=[0.5, 0.25, 0.25])
                phi += math.radians(rng.uniform(-10.0, 10.0))
                p = place(chain[-3], chain[-2], chain[-1], bond, theta, phi)
            skip = set(range(max(start, start + i - 2), start + i))
            if grid.free(p % box, skip, start + i - 3 if i >= 3 else -1):
                ok = True
                break
        if not ok:
            grid.drop(len(grid.x) - start)
            return None
        chain.append(p)
        grid.add(p % box)
    return np.array(chain)


def build(chains, sites, density, seed, kT=None, dmin=DMIN):
    box = (chains * sites / density) ** (1.0 / 3.0)
    rng = np.random.default_rng(seed)
    thermal = None if kT is None else Thermal(kT, rng)
    grid = Grid(box, dmin)
    out = []
    for c in range(chains):
        for attempt in range(1000):
            x = grow_chain(grid, rng, sites, thermal)
            if x is not None:
                break
        else:
            raise SystemExit("pe_build: no room for chain %d after 1000 starts (density too "
                             "high for the growth; lower --density)" % c)
        out.append(x)
    return box, out


def write_data(path, box, chains):
    sites = len(chains[0])
    n = len(chains) * sites
    nb, na, nd = len(chains) * (sites - 1), len(chains) * (sites - 2), len(chains) * (sites - 3)
    with open(path, "w") as f:
        f.write("united-atom polyethylene, %d chains CH3-(CH2)%d-CH3 (pe_build.py)\n\n"
                % (len(chains), sites - 2))
        f.write("%d atoms\n%d bonds\n%d angles\n%d dihedrals\n" % (n, nb, na, nd))
        f.write("2 atom types\n1 bond types\n1 angle types\n1 dihedral types\n\n")
        for ax in "xyz":
            f.write("0.0 %.10f %slo %shi\n" % (box, ax, ax))
        f.write("\nMasses\n\n1 %r\n2 %r\n\nAtoms # molecular\n\n" % (MASS[1], MASS[2]))
        for c, x in enumerate(chains):
            img = np.floor(x / box).astype(int)
            w = x - img * box
            for i in range(sites):
                t = 2 if i in (0, sites - 1) else 1
                f.write("%d %d %d %.10f %.10f %.10f %d %d %d\n"
                        % (c * sites + i + 1, c + 1, t, w[i, 0], w[i, 1], w[i, 2],
                           img[i, 0], img[i, 1], img[i, 2]))
        for name, k in (("Bonds", 2), ("Angles", 3), ("Dihedrals", 4)):
            f.write("\n%s\n\n" % name)
            m = 1
            for c in range(len(chains)):
                for i in range(sites - k + 1):
                    ids = " ".join(str(c * sites + i + j + 1) for j in range(k))
                    f.write("%d 1 %s\n" % (m, ids))
                    m += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--chains", type=int, default=40)
    ap.add_argument("--sites", type=int, default=24, help="united atoms per chain (>= 4)")
    ap.add_argument("--density", type=float, default=10.55, help="sites per nm^3")
    ap.add_argument("--seed", type=int, default=2010)
    ap.add_argument("--dmin", type=float, default=DMIN,
                    help="closest distance of sites that are no 1-2, 1-3 or 1-4 neighbours "
                    "(nm); 0: no check (phantom chains)")
    ap.add_argument("--kT", type=float, help="draw bonds, angles and dihedrals from their "
                    "Boltzmann laws at this kT (kJ/mol; 8.3145 is 1000 K)")
    a = ap.parse_args()
    if a.sites < 4 or a.chains < 1 or a.density <= 0.0:
        raise SystemExit("pe_build: need --sites >= 4, --chains >= 1, --density > 0")
    # place() must give the IUPAC dihedral it was asked for (trans = 180 degrees)
    t = [np.zeros(3), np.array([B, 0, 0]), np.array([B + B * 0.33, B * 0.94, 0.0])]
    for phi in (math.pi, math.pi / 3, -math.pi / 3):
        err = dihedral(*t, place(*t, B, THETA0, phi)) - phi
        assert abs((err + math.pi) % (2.0 * math.pi) - math.pi) < 1e-9
    box, chains = build(a.chains, a.sites, a.density, a.seed, a.kT, a.dmin)
    write_data(a.out, box, chains)
    print("pe_build: %d chains of %d sites, box %.4f nm, %.3f sites/nm^3 -> %s"
          % (a.chains, a.sites, box, a.chains * a.sites / box ** 3, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
