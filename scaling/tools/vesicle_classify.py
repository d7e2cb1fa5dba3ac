#!/usr/bin/python3
"""Aggregates of amphiphiles in a Vesica trajectory, each classified by its shape.

    vesicle_classify.py RUN/traj.h5md [--out DIR] [--every K] [--jobs N] [options]

Writes into DIR (default: the trajectory's folder):
  classes.csv     one row a frame: the number of aggregates of each class (they add up to
                  `aggregates`), the core beads in each class (they add up to all core
                  beads), the three largest aggregates' sizes and classes, and
                  wall_aggregates: the classified ones with at least a twentieth of their core
                  beads within 1 of a wall face;
  aggregates.csv  one row per classified aggregate (not "free") per frame: class, core beads,
                  chains, cores, nested aggregates, centre, Rg, kappa^2 and the numbers the
                  class was decided on, and at_wall (its share of core beads within 1 of a
                  wall face);
  labels.npz      each core bead's aggregate and each aggregate's class per frame (for
                  vesicle_pictures.py; frames x core beads x 4 bytes before compression);
  classify.json   the parameters, the last frame's counts and ten largest aggregates, and
                  whether the last frame holds the mixture of the core paper (at least two
                  of open bilayer, unilamellar vesicle, multi-compartment vesicle).

What an aggregate is. Core beads (species --core, default B) with at least --core-neighbours
other core beads within --cut are "dense": they sit in a hydrophobic core. Two core beads are
in one aggregate when they are within --cut of each other and at least one is dense, or when
they belong to one chain (the trajectory's particles/all/molecule), so cores joined by a
chain that reaches from one into the other are one aggregate, and a chain's dangling end
belongs to the core its other end is in. Every core bead is in exactly one aggregate; a free
chain is an aggregate of its own core beads. Distances are minimum-image along periodic axes;
along an axis with walls (H5MD boundary "none") nothing wraps.

How an aggregate is classified (criteria; tests/campaign/classify_shapes.py checks them on
shapes of known answer):
 1. fewer than --min-size core beads (default 24, four chains' B blocks): "free" (free chains
    and clusters too small to be a micelle; counted in classes.csv, no row in
    aggregates.csv);
 2. enclosed compartments: the core beads are put on a grid of --voxel, smoothed by a
    Gaussian of --smooth and thresholded at --core-density (beads per unit volume): that is
    the hydrophobic body. The rest of the grid, padded on every side (beyond a wall too: a
    membrane open towards a wall encloses nothing), is labelled in face-connected pieces;
    each piece that does not reach the padding and holds at least --min-compartment volume is
    an enclosed solvent compartment, unless it holds more than half the box (a film lining
    the walls all round encloses the box's own solvent, not a lumen);
 3. lamellae: from the deepest point of the largest compartment, --rays rays in evenly spread
    directions count how many times each passes into the body; the median is the number of
    layers;
 4. the local dimension of each core bead: the covariance of the core beads around it,
    weighted by a Gaussian of --window (sigma_w, cut at 2.5 sigma_w), has eigenvalues
    l1 <= l2 <= l3; those above --extended * sigma_w^2 count the directions the body extends
    in beyond the window (an infinite direction gives sigma_w^2 exactly): 0 a compact blob,
    1 a rod, 2 a sheet, 3 bulk. Its fractions over (up to --samples of) the beads are
    f_compact (0 or 3), f_rod (1) and f_sheet (2); the thickness of the sheet beads is
    sqrt(12 l1) (a uniform slab). The depth of the body is the radius of the largest ball
    inside it (its distance transform's maximum);
 5. the class: two or more compartments, or one and at least two layers, is
    "multi_vesicle" (multilamellar or multi-compartment); one compartment and one layer is
    "unilamellar_vesicle"; without a compartment, a body whose depth is at least --compact
    times its radius of gyration is a "spherical_micelle" (a solid ball, whatever its size:
    a capsule longer than about twice its width is not), otherwise the largest of f_compact,
    f_rod, f_sheet gives "spherical_micelle", "cylindrical_micelle" or "open_bilayer". An
    aggregate connected to its own periodic image (it spans the box) has no compartments
    counted: its class comes from f_compact, f_rod, f_sheet alone, and its row says spans = 1;
 6. nesting: an aggregate with compartments takes in every aggregate that has more than half
    of its core beads in them (a vesicle in a vesicle, a micelle or free chains in a lumen),
    so one bead is still in one aggregate; it becomes "multi_vesicle" when one of those it
    took in is an open bilayer or a vesicle (another layer), and keeps its class otherwise.

Needs numpy, scipy and h5py (Debian: /usr/bin/python3; the GPU machine's python3 has them).
The frames are analysed in parallel (--jobs, default the number of cores).
"""
import argparse
import csv
import json
import os
import sys

import numpy as np

CLASSES = ("free", "spherical_micelle", "cylindrical_micelle", "open_bilayer",
           "unilamellar_vesicle", "multi_vesicle")
MIXTURE = ("open_bilayer", "unilamellar_vesicle", "multi_vesicle")

DEFAULTS = dict(core="B", cut=1.0, core_neighbours=8, min_size=24, voxel=0.5, smooth=0.6,
                core_density=1.5, min_compartment=8.0, rays=64, window=2.0, extended=0.5,
                samples=1500, seed=1, compact=0.8)


def min_image(d, box, periodic):
    """Displacements d wrapped to the nearest image along the periodic axes only."""
    out = np.array(d, dtype=float, copy=True)
    for k in range(3):
        if periodic[k]:
            out[..., k] -= box[k] * np.round(out[..., k] / box[k])
    return out


def _tree(points, box, periodic, reach):
    """A KD-tree of points in the box with periodic axes wrapped and the others open (a
    period longer than the box plus the search reach never folds a pair across them)."""
    from scipy.spatial import cKDTree
    size = np.where(periodic, box, box + 2.0 * reach + 1.0)
    p = np.array(points, dtype=float, copy=True)
    for k in range(3):
        p[:, k] = np.mod(p[:, k], box[k]) if periodic[k] else np.clip(p[:, k], 0.0, box[k])
    p = np.minimum(p, np.nextafter(size, 0))
    return cKDTree(p, boxsize=size), p


def find_aggregates(pos, mol, box, periodic, prm):
    """Aggregates of core beads (positions pos, molecule ids mol). Returns (labels, edges,
    dense): labels[i] is bead i's aggregate, numbered by size, largest first; edges the
    (i, j) pairs that joined beads (for unwrapping); dense the beads in a core."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    n = len(pos)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 2), dtype=np.int64), np.zeros(0, bool)
    tree, _ = _tree(pos, box, periodic, prm["cut"])
    pairs = tree.query_pairs(prm["cut"], output_type="ndarray").astype(np.int64)
    degree = np.bincount(pairs.ravel(), minlength=n)
    dense = degree >= prm["core_neighbours"]
    contact = pairs[dense[pairs[:, 0]] | dense[pairs[:, 1]]]
    order = np.argsort(mol, kind="stable")  # consecutive core beads of one chain
    same = (mol[order[1:]] == mol[order[:-1]]) & (mol[order[1:]] > 0)
    chain = np.stack([order[:-1][same], order[1:][same]], axis=1)
    edges = np.concatenate([contact, chain])
    graph = coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    _, raw = connected_components(graph, directed=False)
    sizes = np.bincount(raw)
    rank = np.empty(len(sizes), dtype=np.int64)
    rank[np.argsort(-sizes, kind="stable")] = np.arange(len(sizes))
    return rank[raw], edges, dense


def unwrap(pos, members, edges, box, periodic):
    """The aggregate's positions made whole along periodic axes by walking its edges from
    one bead, and whether it spans (an edge longer, in the unwrapped frame, than its nearest
    image: the aggregate meets its own periodic image)."""
    p = pos[members]
    if not np.any(periodic) or len(members) == 1:
        return p.copy(), False
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order
    local = -np.ones(len(pos), dtype=np.int64)
    local[members] = np.arange(len(members))
    inside = (local[edges[:, 0]] >= 0) & (local[edges[:, 1]] >= 0)
    a, b = local[edges[inside, 0]], local[edges[inside, 1]]
    m = len(members)
    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(m, m)).tocsr()
    order, pred = breadth_first_order(graph, 0, directed=False, return_predecessors=True)
    out = p.copy()
    # BFS order: a bead's predecessor is placed before it; place level by level in numpy
    placed = np.zeros(m, dtype=bool)
    placed[order[0]] = True
    todo = order[1:]
    while len(todo):
        ready = placed[pred[todo]]
        k = todo[ready]
        out[k] = out[pred[k]] + min_image(p[k] - p[pred[k]], box, periodic)
        placed[k] = True
        todo = todo[~ready]
    spans = bool(len(a)) and bool(np.any(
        np.abs(out[a] - out[b] - min_image(out[a] - out[b], box, periodic)) > 1e-6))
    return out, spans


def shape(x):
    """Radius of gyration and relative shape anisotropy kappa^2 of points x."""
    c = x - x.mean(axis=0)
    lam = np.linalg.eigvalsh(c.T @ c / len(x))
    s = lam.sum()
    k2 = 1.0 - 3.0 * (lam[0] * lam[1] + lam[1] * lam[2] + lam[2] * lam[0]) / s**2 if s > 0 else 0.0
    return float(np.sqrt(max(s, 0.0))), float(k2)


def local_dimension(x, box, periodic, spans, prm, rng):
    """Step 4: (f_compact, f_rod, f_sheet, sheet thickness) over a sample of the beads x."""
    sw = prm["window"]
    reach = 2.5 * sw
    if spans:
        tree, xs = _tree(x, box, periodic, reach)
        per = periodic
    else:
        from scipy.spatial import cKDTree
        xs = x - x.min(axis=0)
        tree, per = cKDTree(xs), np.zeros(3, dtype=bool)
    n = len(xs)
    pick = np.arange(n) if n <= prm["samples"] else np.sort(
        rng.choice(n, prm["samples"], replace=False))
    from scipy.spatial import cKDTree
    sample = cKDTree(xs[pick], boxsize=tree.boxsize) if spans else cKDTree(xs[pick])
    m = sample.sparse_distance_matrix(tree, reach, output_type="coo_matrix")
    i, j = m.row, m.col
    d = min_image(xs[j] - xs[pick][i], box, per) if spans else xs[j] - xs[pick][i]
    w = np.exp(-0.5 * (d * d).sum(axis=1) / sw**2)
    k = len(pick)
    w0 = np.bincount(i, w, k) + 1.0  # the bead itself (d = 0)
    mean = np.stack([np.bincount(i, w * d[:, a], k) for a in range(3)], axis=1) / w0[:, None]
    cov = np.empty((k, 3, 3))
    for a in range(3):
        for b in range(a, 3):
            cov[:, a, b] = cov[:, b, a] = np.bincount(i, w * d[:, a] * d[:, b], k) / w0
    cov -= mean[:, :, None] * mean[:, None, :]
    lam = np.linalg.eigvalsh(cov)  # ascending
    dim = np.count_nonzero(lam > prm["extended"] * sw * sw, axis=1)
    f_compact = float(np.mean((dim == 0) | (dim == 3)))
    f_rod = float(np.mean(dim == 1))
    f_sheet = float(np.mean(dim == 2))
    thick = float(np.median(np.sqrt(12.0 * np.maximum(lam[dim == 2, 0], 0.0)))) if np.any(dim == 2) else 0.0
    return f_compact, f_rod, f_sheet, thick


def body_grid(x, prm):
    """Step 2's body: a boolean grid of the smoothed core density above --core-density, with
    padding, and the grid's origin."""
    from scipy import ndimage
    h = prm["voxel"]
    pad = 3.0 * prm["smooth"] + 3.0 * h
    lo = x.min(axis=0) - pad
    dims = np.ceil((x.max(axis=0) + pad - lo) / h).astype(int) + 1
    idx = np.floor((x - lo) / h).astype(int)
    count = np.zeros(dims, dtype=float)
    np.add.at(count, (idx[:, 0], idx[:, 1], idx[:, 2]), 1.0)
    rho = ndimage.gaussian_filter(count, prm["smooth"] / h, mode="constant") / h**3
    return rho > prm["core_density"], lo


def compartments(body, prm, largest):
    """Step 2: the enclosed pieces of the grid outside the body, as (labels, ids, volumes)
    with ids the pieces of at least --min-compartment volume and at most `largest`,
    largest first."""
    from scipy import ndimage
    labels, n = ndimage.label(~body)  # face-connected
    border = np.unique(np.concatenate([labels[0].ravel(), labels[-1].ravel(),
                                       labels[:, 0].ravel(), labels[:, -1].ravel(),
                                       labels[:, :, 0].ravel(), labels[:, :, -1].ravel()]))
    vol = np.bincount(labels.ravel(), minlength=n + 1) * prm["voxel"]**3
    vol[border] = 0.0
    vol[0] = 0.0
    ids = np.flatnonzero((vol >= prm["min_compartment"]) & (vol <= largest))
    ids = ids[np.argsort(-vol[ids])]
    return labels, ids, vol[ids]


def fibonacci_directions(n):
    k = np.arange(n) + 0.5
    z = 1.0 - 2.0 * k / n
    phi = np.pi * (1.0 + 5.0**0.5) * k
    r = np.sqrt(1.0 - z * z)
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


def layers(body, labels, cid, prm):
    """Step 3: the median number of times the rays from the deepest point of compartment cid
    (the farthest from the body) enter the body before they leave the grid."""
    from scipy import ndimage
    depth = ndimage.distance_transform_edt(labels == cid)
    centre = np.array(np.unravel_index(np.argmax(depth), depth.shape), dtype=float)
    dirs = fibonacci_directions(prm["rays"])
    t = np.arange(0.0, float(np.linalg.norm(body.shape)), 0.25)
    shape_ = np.array(body.shape)
    counts = []
    for d in dirs:
        pts = np.rint(centre[None, :] + t[:, None] * d[None, :]).astype(int)
        pts = pts[np.all((pts >= 0) & (pts < shape_), axis=1)]
        inside = body[pts[:, 0], pts[:, 1], pts[:, 2]].astype(np.int8)
        counts.append(int(np.count_nonzero(np.diff(inside) == 1)) + int(inside[0]))
    return int(np.median(counts))


def classify(x, box, periodic, spans, prm, rng):
    """Steps 2-5 for one aggregate of at least --min-size core beads (positions x, made
    whole). Returns a dict of its features and class; '_lumen' holds its enclosed
    compartments (a boolean grid and its origin) for step 6, or None."""
    from scipy import ndimage
    f_compact, f_rod, f_sheet, thick = local_dimension(x, box, periodic, spans, prm, rng)
    rg, k2 = shape(x)
    n_comp, lumen, n_layers, grid, depth = 0, 0.0, 0, None, 0.0
    if not spans:
        body, lo = body_grid(x, prm)
        labels, ids, vols = compartments(body, prm, 0.5 * float(np.prod(box)))
        n_comp = len(ids)
        if n_comp:
            lumen = float(vols.sum())
            n_layers = layers(body, labels, ids[0], prm)
            grid = (np.isin(labels, ids), lo)
        else:
            depth = float(ndimage.distance_transform_edt(body).max()) * prm["voxel"]
    if n_comp >= 2 or (n_comp == 1 and n_layers >= 2):
        cls = "multi_vesicle"
    elif n_comp == 1:
        cls = "unilamellar_vesicle"
    elif depth >= prm["compact"] * rg:
        cls = "spherical_micelle"
    else:
        best = int(np.argmax([f_compact, f_rod, f_sheet]))
        cls = ("spherical_micelle", "cylindrical_micelle", "open_bilayer")[best]
    return dict(cls=cls, compartments=n_comp, lumen_volume=lumen, layers=n_layers,
                depth=depth, f_compact=f_compact, f_rod=f_rod, f_sheet=f_sheet,
                sheet_thickness=thick, rg=rg, kappa2=k2, _lumen=grid)


def analyse(pos, mol, box, periodic, prm):
    """One frame's core beads. Returns (labels, aggregates): labels[i] is bead i's aggregate,
    aggregates a list (by size, largest first, labels numbered alike) of dicts with 'members'
    (indices into pos), 'size', 'chains', 'cores', 'nested', 'centre', 'spans', 'cls' and
    classify()'s numbers. An aggregate whose beads lie mostly in another's enclosed
    compartments (a vesicle inside a vesicle, a micelle in a lumen) is merged into it (step 6
    of the module's docstring)."""
    rng = np.random.default_rng(prm["seed"])
    raw, edges, dense = find_aggregates(pos, mol, box, periodic, prm)
    if len(raw) == 0:
        return raw, []
    order = np.argsort(raw, kind="stable")
    bounds = np.searchsorted(raw[order], np.arange(raw.max() + 2))
    groups = [order[bounds[a]:bounds[a + 1]] for a in range(raw.max() + 1)]
    aggs = [_describe(pos, mol, g, edges, dense, box, periodic, prm, rng) for g in groups]
    owner = np.arange(len(aggs))  # the aggregate each one is merged into
    for a, agg in enumerate(aggs):  # largest first
        lumen = agg.pop("_lumen", None)
        if lumen is None or owner[a] != a:
            continue
        inside = _in_lumen(pos, lumen, agg["_ref"], box, periodic, prm)
        frac = np.bincount(raw, inside, len(aggs)) / np.bincount(raw, minlength=len(aggs))
        nested = [b for b in np.flatnonzero(frac > 0.5) if b != a and owner[b] == b]
        if not nested:
            continue
        for b in nested:
            owner[b] = a
            owner[owner == b] = a
        inner = [b for b in range(len(aggs)) if owner[b] == a and b != a]
        groups[a] = np.sort(np.concatenate([groups[a]] + [groups[b] for b in inner]))
        m = groups[a]
        agg.update(members=m, size=len(m), chains=int(len(np.unique(mol[m][mol[m] > 0]))),
                   nested=sum(1 for b in inner if aggs[b]["cls"] != "free"),
                   cores=agg["cores"] + sum(aggs[b]["cores"] for b in inner))
        if any(aggs[b]["cls"] in MIXTURE for b in inner):
            agg["cls"] = "multi_vesicle"  # another layer, closed or open, in its lumen
    keep = [a for a in range(len(aggs)) if owner[a] == a]
    keep.sort(key=lambda a: -len(groups[a]))
    labels = np.empty(len(pos), dtype=np.int64)
    out = []
    for n, a in enumerate(keep):
        labels[groups[a]] = n
        aggs[a].pop("_lumen", None)
        aggs[a].pop("_ref", None)
        out.append(aggs[a])
    return labels, out


def _describe(pos, mol, members, edges, dense, box, periodic, prm, rng):
    """An aggregate's dict (see analyse), with '_lumen' and '_ref' (its centre in the frame
    made whole) for step 6."""
    agg = dict(members=members, size=len(members), nested=0,
               chains=int(len(np.unique(mol[members][mol[members] > 0]))))
    if len(members) < prm["min_size"]:
        agg.update(cls="free", spans=False, centre=pos[members].mean(axis=0), cores=0,
                   at_wall=0.0)
        return agg
    x, spans = unwrap(pos, members, edges, box, periodic)
    agg.update(classify(x, box, periodic, spans, prm, rng))
    c = x.mean(axis=0)
    agg.update(spans=spans, centre=np.where(periodic, np.mod(c, box), c), _ref=c,
               cores=_cores(pos, members, dense, box, periodic, prm),
               at_wall=float(np.mean(wall_distance(pos[members], box, periodic) < 1.0)))
    return agg


def wall_distance(p, box, periodic):
    """Each point's distance to the nearest wall face (infinite without walls)."""
    d = np.full(len(p), np.inf)
    for k in np.flatnonzero(~np.asarray(periodic)):
        d = np.minimum(d, np.minimum(p[:, k], box[k] - p[:, k]))
    return d


def _in_lumen(pos, lumen, ref, box, periodic, prm):
    """Which of the beads pos lie in the enclosed compartments `lumen` (a boolean grid and
    its origin, in the frame made whole around ref)."""
    grid, lo = lumen
    y = ref + min_image(pos - ref, box, periodic)
    idx = np.floor((y - lo) / prm["voxel"]).astype(int)
    ok = np.all((idx >= 0) & (idx < np.array(grid.shape)), axis=1)
    inside = np.zeros(len(pos))
    inside[ok] = grid[idx[ok, 0], idx[ok, 1], idx[ok, 2]]
    return inside


def _cores(pos, members, dense, box, periodic, prm):
    """How many separate hydrophobic cores (dense beads in contact) the aggregate joins."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    d = members[dense[members]]
    if len(d) < 2:
        return int(len(d))
    tree, _ = _tree(pos[d], box, periodic, prm["cut"])
    pr = tree.query_pairs(prm["cut"], output_type="ndarray")
    g = coo_matrix((np.ones(len(pr)), (pr[:, 0], pr[:, 1])), shape=(len(d), len(d)))
    return int(connected_components(g, directed=False)[0])


# ---- reading a trajectory -------------------------------------------------------------------

class Trajectory:
    """The parts of a Vesica traj.h5md the analysis reads: the core beads' rows (read as the
    contiguous block of rows that holds them: molecules take the first tags), their molecule
    ids, the box and its boundaries, the steps and times."""

    def __init__(self, path, core="B"):
        import h5py
        self.path = path
        with h5py.File(path, "r") as f:
            g = f["particles/all"]
            self.names = [n.decode() if isinstance(n, bytes) else str(n)
                          for n in g["species"].attrs["names"]]
            if core not in self.names:
                sys.exit(f"vesicle_classify: species {core!r} is not in the trajectory's {self.names}")
            self.species = g["species"][...]
            self.core_id = self.names.index(core)
            rows = np.flatnonzero(self.species == self.core_id)
            if len(rows) == 0:
                sys.exit(f"vesicle_classify: no bead of species {core!r} in {path}")
            self.lo, self.hi = int(rows[0]), int(rows[-1]) + 1
            self.sel = rows - self.lo
            mol = g["molecule"][self.lo:self.hi] if "molecule" in g else np.zeros(self.hi - self.lo)
            self.mol = np.asarray(mol, dtype=np.int64)[self.sel]
            self.steps = g["position/step"][...]
            self.times = g["position/time"][...]
            bnd = g["box"].attrs.get("boundary", np.array([b"periodic"] * 3))
            self.periodic = np.array([(b.decode() if isinstance(b, bytes) else str(b)) == "periodic"
                                      for b in bnd])

    def frame(self, k, rows=None):
        """Frame k: (core positions, box), or the positions of rows [lo, hi) when rows is
        given as (lo, hi)."""
        import h5py
        with h5py.File(self.path, "r") as f:
            g = f["particles/all"]
            e = np.asarray(g["box/edges/value"][k], dtype=float)
            box = np.diag(e).copy() if e.ndim == 2 else e
            if rows is not None:
                return np.asarray(g["position/value"][k, rows[0]:rows[1]], dtype=float), box
            p = np.asarray(g["position/value"][k, self.lo:self.hi], dtype=float)
        return p[self.sel], box


def _frame_job(args):
    path, core, k, prm = args
    tr = Trajectory(path, core)
    pos, box = tr.frame(k)
    labels, aggs = analyse(pos, tr.mol, box, tr.periodic, prm)
    codes = np.array([CLASSES.index(a["cls"]) for a in aggs], dtype=np.int8)
    return k, summarise(tr.steps[k], tr.times[k], labels, aggs) + (labels.astype(np.int32), codes)


def summarise(step, time, labels, aggs):
    """The frame's classes.csv row (a dict) and its aggregates.csv rows."""
    row = dict(step=int(step), time=float(time), aggregates=len(aggs))
    for c in CLASSES:
        row[c] = sum(1 for a in aggs if a["cls"] == c)
    for c in CLASSES:
        row["beads_" + c] = int(sum(a["size"] for a in aggs if a["cls"] == c))
    row["wall_aggregates"] = sum(1 for a in aggs if a["cls"] != "free" and a["at_wall"] >= 0.05)
    sizes = [a["size"] for a in aggs]  # largest first
    for r in range(3):
        row[f"largest_{r + 1}"] = int(sizes[r]) if r < len(sizes) else 0
        row[f"largest_{r + 1}_class"] = aggs[r]["cls"] if r < len(aggs) else ""
    rows = []
    for n, a in enumerate(aggs):
        if a["cls"] == "free":
            continue
        rows.append(dict(step=int(step), time=float(time), aggregate=n, cls=a["cls"],
                         beads=a["size"], chains=a["chains"], cores=a["cores"],
                         nested=a["nested"],
                         x=round(float(a["centre"][0]), 3), y=round(float(a["centre"][1]), 3),
                         z=round(float(a["centre"][2]), 3), rg=round(a["rg"], 4),
                         kappa2=round(a["kappa2"], 4), compartments=a["compartments"],
                         lumen_volume=round(a["lumen_volume"], 2), layers=a["layers"],
                         depth=round(a["depth"], 3),
                         f_compact=round(a["f_compact"], 3), f_rod=round(a["f_rod"], 3),
                         f_sheet=round(a["f_sheet"], 3),
                         sheet_thickness=round(a["sheet_thickness"], 3), spans=int(a["spans"]),
                         at_wall=round(a["at_wall"], 3)))
    return row, rows


def save_labels(path, tr, frames, labels, codes):
    """labels.npz: for the pictures (vesicle_pictures.py) without a second analysis: frame
    indices, steps, times, each core bead's aggregate per frame (frames x core beads) and
    each aggregate's class (an index into CLASSES; -1 pads), the core beads' molecule ids."""
    width = max((len(c) for c in codes), default=0)
    cls = np.full((len(frames), max(width, 1)), -1, dtype=np.int8)
    for n, c in enumerate(codes):
        cls[n, :len(c)] = c
    np.savez_compressed(path, frames=np.array(frames), steps=tr.steps[frames],
                        times=tr.times[frames], labels=np.array(labels), classes=cls,
                        molecule=tr.mol, class_names=np.array(CLASSES))


def load_labels(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def write_csv(path, rows, fields):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)


CLASS_FIELDS = (["step", "time", "aggregates"] + list(CLASSES) + ["beads_" + c for c in CLASSES]
                + [f"largest_{r}{s}" for r in (1, 2, 3) for s in ("", "_class")]
                + ["wall_aggregates"])
AGG_FIELDS = ["step", "time", "aggregate", "cls", "beads", "chains", "cores", "nested", "x", "y",
              "z", "rg", "kappa2", "compartments", "lumen_volume", "layers", "depth", "f_compact", "f_rod", "f_sheet",
              "sheet_thickness", "spans", "at_wall"]


def params_from(a):
    return {k: getattr(a, k) for k in DEFAULTS}


def add_options(ap):
    d = DEFAULTS
    ap.add_argument("--core", default=d["core"], help="species of the hydrophobic cores (B)")
    ap.add_argument("--cut", type=float, default=d["cut"], help="contact distance (1.0)")
    ap.add_argument("--core-neighbours", type=int, default=d["core_neighbours"],
                    help="core neighbours within --cut that make a bead dense (8)")
    ap.add_argument("--min-size", type=int, default=d["min_size"],
                    help="smallest aggregate that is classified, core beads (24: four chains)")
    ap.add_argument("--voxel", type=float, default=d["voxel"], help="grid spacing (0.5)")
    ap.add_argument("--smooth", type=float, default=d["smooth"], help="Gaussian smoothing of the core density (0.6)")
    ap.add_argument("--core-density", type=float, default=d["core_density"],
                    help="smoothed core density that is body (1.5; a core holds about 5)")
    ap.add_argument("--min-compartment", type=float, default=d["min_compartment"],
                    help="smallest enclosed volume that is a compartment (8.0)")
    ap.add_argument("--rays", type=int, default=d["rays"], help="rays that count lamellae (64)")
    ap.add_argument("--window", type=float, default=d["window"], help="sigma_w of the local shape (2.0)")
    ap.add_argument("--extended", type=float, default=d["extended"],
                    help="eigenvalue / sigma_w^2 above which a direction is extended (0.5)")
    ap.add_argument("--samples", type=int, default=d["samples"],
                    help="beads per aggregate at which the local shape is sampled (1500)")
    ap.add_argument("--seed", type=int, default=d["seed"], help="seed of that sampling (1)")
    ap.add_argument("--compact", type=float, default=d["compact"],
                    help="depth / Rg at and above which a body without compartments is a "
                         "compact (spherical) micelle (0.8)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traj", help="traj.h5md, or the run folder that holds it")
    ap.add_argument("--out", help="folder for the outputs (default: the trajectory's)")
    ap.add_argument("--every", type=int, default=1, help="analyse every K-th frame (and the last)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel workers")
    add_options(ap)
    a = ap.parse_args()
    path = os.path.join(a.traj, "traj.h5md") if os.path.isdir(a.traj) else a.traj
    out = a.out or os.path.dirname(os.path.abspath(path))
    os.makedirs(out, exist_ok=True)
    prm = params_from(a)
    tr = Trajectory(path, a.core)
    frames = sorted(set(range(0, len(tr.steps), max(a.every, 1))) | {len(tr.steps) - 1})
    jobs = [(path, a.core, k, prm) for k in frames]
    results = {}
    if a.jobs > 1 and len(jobs) > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(min(a.jobs, len(jobs))) as pool:
            for k, res in pool.imap_unordered(_frame_job, jobs):
                results[k] = res
    else:
        for j in jobs:
            k, res = _frame_job(j)
            results[k] = res
    rows = [results[k][0] for k in frames]
    save_labels(os.path.join(out, "labels.npz"), tr, frames, [results[k][2] for k in frames],
                [results[k][3] for k in frames])
    agg_rows = [r for k in frames for r in results[k][1]]
    write_csv(os.path.join(out, "classes.csv"), rows, CLASS_FIELDS)
    write_csv(os.path.join(out, "aggregates.csv"), agg_rows, AGG_FIELDS)
    last = rows[-1]
    largest = [r for r in results[frames[-1]][1]][:10]
    present = [c for c in MIXTURE if last[c] > 0]
    summary = dict(trajectory=os.path.abspath(path), frames=len(frames), step=last["step"],
                   time=last["time"], core_beads=int(len(tr.sel)), periodic=tr.periodic.tolist(),
                   parameters=prm, counts={c: last[c] for c in CLASSES},
                   beads={c: last["beads_" + c] for c in CLASSES}, largest=largest,
                   mixture_classes=present, mixture_holds=len(present) >= 2)
    with open(os.path.join(out, "classify.json"), "w") as f:
        json.dump(summary, f, indent=1)
    hdr = " ".join(f"{c[:10]:>10}" for c in CLASSES)
    print(f"{'step':>9} {'time':>9} {'aggr':>6} {hdr} {'largest':>8}")
    for r in rows:
        print(f"{r['step']:>9} {r['time']:>9.1f} {r['aggregates']:>6} "
              + " ".join(f"{r[c]:>10}" for c in CLASSES) + f" {r['largest_1']:>8}")
    print(f"mixture at the end: {present or 'none'} ({'holds' if len(present) >= 2 else 'does not hold'})")
    print(f"wrote {out}/classes.csv, aggregates.csv, classify.json, labels.npz")


if __name__ == "__main__":
    main()
