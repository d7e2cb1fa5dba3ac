"""Synthetic aggregates of known shape for tests/campaign/classify_shapes.py: core beads
placed uniformly at random (seeded) at the density of a hydrophobic core inside a solid
region, each region given as a function that says which points are inside it."""
import numpy as np

RHO = 5.0  # core beads per unit volume, the density of the vesicle fluid


def fill(inside, lo, hi, rng, rho=RHO):
    """Uniform beads at density rho in the region inside(p) within the box [lo, hi)."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    n = rng.poisson(rho * np.prod(hi - lo))
    p = rng.uniform(lo, hi, size=(n, 3))
    return p[inside(p)]


def shell(r_in, r_out):
    return lambda p: (np.linalg.norm(p, axis=1) >= r_in) & (np.linalg.norm(p, axis=1) < r_out)


def sphere_shell(rng, r_in=7.0, r_out=10.0):
    """A unilamellar vesicle: one closed layer around a lumen of radius r_in."""
    return fill(shell(r_in, r_out), [-r_out] * 3, [r_out] * 3, rng)


def double_shell(rng):
    """An onion: two concentric closed layers (two compartments)."""
    a, b = shell(3.5, 6.0), shell(9.0, 11.5)
    return fill(lambda p: a(p) | b(p), [-11.5] * 3, [11.5] * 3, rng)


def two_compartments(rng, r_in=9.0, r_out=12.0, t=3.0):
    """A vesicle divided by a wall through its middle: two lumens side by side."""
    s = shell(r_in, r_out)
    return fill(lambda p: s(p) | ((np.abs(p[:, 2]) < t / 2) & (np.linalg.norm(p, axis=1) < r_in + 0.5)),
                [-r_out] * 3, [r_out] * 3, rng)


def porous_shell(rng, r_in=7.0, r_out=10.0, pore=4.0):
    """A vesicle with a pore of radius `pore` (an open, curved membrane)."""
    s = shell(r_in, r_out)
    return fill(lambda p: s(p) & (np.hypot(p[:, 0], p[:, 1]) > pore) | s(p) & (p[:, 2] < 0),
                [-r_out] * 3, [r_out] * 3, rng)


def cup(rng, r_in=7.0, r_out=10.0):
    """Half a shell: a bowl-shaped membrane."""
    s = shell(r_in, r_out)
    return fill(lambda p: s(p) & (p[:, 2] < 1.0), [-r_out] * 3, [r_out] * 3, rng)


def disk(rng, radius=12.0, t=3.0):
    """A flat membrane: a disk of thickness t."""
    return fill(lambda p: (np.hypot(p[:, 0], p[:, 1]) < radius) & (np.abs(p[:, 2]) < t / 2),
                [-radius, -radius, -t / 2], [radius, radius, t / 2], rng)


def rod(rng, radius=1.8, length=24.0):
    """A cylindrical (worm-like) micelle along x."""
    return fill(lambda p: np.hypot(p[:, 1], p[:, 2]) < radius,
                [-length / 2, -radius, -radius], [length / 2, radius, radius], rng)


def ring(rng, big=8.0, radius=1.8):
    """A worm-like micelle closed into a ring (it encloses no volume)."""
    def inside(p):
        rho = np.hypot(p[:, 0], p[:, 1])
        return np.hypot(rho - big, p[:, 2]) < radius
    e = big + radius
    return fill(inside, [-e, -e, -radius], [e, e, radius], rng)


def ball(rng, radius=2.6):
    """A solid ball: a spherical micelle's core."""
    return fill(lambda p: np.linalg.norm(p, axis=1) < radius, [-radius] * 3, [radius] * 3, rng)


def random_rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    return q * np.sign(np.diag(r))


def chains(x, rng, start=1, per=6):
    """Molecule ids for the core beads x: each bead joins the chain of the nearest of
    len(x) / per seed beads, so chains are compact groups of about `per` neighbours, as the
    B blocks of a chain are (ids from `start`)."""
    from scipy.spatial import cKDTree
    seeds = rng.choice(len(x), max(len(x) // per, 1), replace=False)
    _, near = cKDTree(x[seeds]).query(x)
    return start + near.astype(np.int64)
