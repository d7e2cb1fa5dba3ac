#!/usr/bin/env python3
"""A picture of oriented particles: the last frame of a Vesica trajectory (traj.h5md).

    aniso_snapshot.py OUT [--traj traj.h5md] [--frame -1] [--png snapshot.png]
                      [--slab 1.5] [--axis z] [--title TEXT] [--cut 1.0] [--json stats.json]
                      [--patch BETA [--poles]] [--min-size 5] [--color director|cluster]

OUT is a run's output folder (the `output.dir` of configs/aniso-*.cfg); the picture goes
into OUT (or to --png) and is never written over a file that git tracks, so a run folder
inside the repository cannot overwrite a shipped figure by mistake (copy it there by hand).

Left: the whole box in 3D, each oriented particle as a short segment along its unit vector
n (from -n/2 to +n/2 around its centre, a dot at the +n end, where a Janus patch points),
coloured by |n . d| with d the nematic director: segments aligned with the director are
yellow, those across it dark (--color cluster: each cluster of at least --min-size its own
colour, the other particles faint grey). Right: a slab of thickness --slab through the middle of the
box across --axis, the segments projected on the slab's plane (their length shows how much
n lies in the plane), coloured the same way.

Printed (and written to --json): the number of oriented particles, the nematic order
parameter S (largest eigenvalue of Q = <3/2 n n - 1/2 I>: 1 when every n is parallel or
antiparallel, about 0 when they are random), the polar order |<n>|, and the clusters of
particles closer than --cut (a particle with no neighbour counts as a cluster of one):
the contacts per particle (pairs closer than --cut, with --patch only those whose patches
face each other: 2 in long unbranched chains of triblock Janus particles), their number,
the largest one's size, and for each cluster of at least --min-size (5) the mean of
n_i . (c - r_i)/|c - r_i| (c its centre): near +1 when the particles point into their
cluster, as Janus patches do in a micelle.

Needs numpy, h5py, matplotlib and scipy (Debian: /usr/bin/python3).
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np


def read_frame(path, frame):
    """(positions wrapped into the box, orientations, species, box edges, step) of one frame;
    point beads (orientation rows of zeros) are dropped."""
    import h5py
    with h5py.File(path, "r") as f:
        g = f["particles/all"]
        if "orientation" not in g:
            raise SystemExit(f"aniso_snapshot.py: {path}: no /particles/all/orientation "
                             "(a run without oriented species)")
        x = g["position/value"][frame]
        n = g["orientation/value"][frame]
        step = int(g["position/step"][frame]) if "step" in g["position"] else frame
        edges = g["box/edges/value"][frame] if "value" in g["box/edges"] else g["box/edges"][()]
        box = np.diag(edges) if np.ndim(edges) == 2 else np.asarray(edges, dtype=float)
        species = g["species"][()] if "species" in g else np.zeros(len(x), dtype=int)
    keep = np.linalg.norm(n, axis=1) > 0.5
    return np.mod(x[keep], box), n[keep], species[keep], box, step


def nematic(n):
    """(S, director): the largest eigenvalue of Q and its eigenvector."""
    q = 1.5 * np.einsum("ia,ib->ab", n, n) / len(n) - 0.5 * np.eye(3)
    w, v = np.linalg.eigh(q)
    return float(w[-1]), v[:, -1]


def clusters(x, n, box, cut, patch=None, min_size=5):
    """Cluster labels under distance `cut`, their count, per cluster of at least
    `min_size`, the mean of n_i . (unit vector from r_i to the cluster's centre), and the
    number of contacts (pairs joined). With `patch` = (angle in degrees, poles), a pair joins
    only when each particle's patch faces the other (cos th_i >= cos angle, th_i the angle
    between n_i and r_j - r_i, both ways), as Janus patches bind; with poles either end of
    n counts (triblock Janus: two patches)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    from scipy.spatial import cKDTree
    tree = cKDTree(x, boxsize=box)
    pairs = tree.query_pairs(cut, output_type="ndarray")
    if patch is not None and len(pairs):
        angle, poles = patch
        e = x[pairs[:, 1]] - x[pairs[:, 0]]
        e -= box * np.round(e / box)
        e /= np.linalg.norm(e, axis=1)[:, None]
        ci = np.einsum("ia,ia->i", n[pairs[:, 0]], e)
        cj = -np.einsum("ia,ia->i", n[pairs[:, 1]], e)
        if poles:
            ci, cj = np.abs(ci), np.abs(cj)
        c = np.cos(np.radians(angle))
        pairs = pairs[(ci >= c) & (cj >= c)]
    graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])),
                       shape=(len(x), len(x)))
    count, labels = connected_components(graph, directed=False)
    inward = []
    for c in range(count):
        m = np.flatnonzero(labels == c)
        if len(m) < min_size:
            continue
        # the centre on the periodic box: mean of the angles on each axis's circle
        th = 2 * np.pi * x[m] / box
        ctr = (np.arctan2(-np.sin(th).mean(0), -np.cos(th).mean(0)) + np.pi) * box / (2 * np.pi)
        d = ctr - x[m]
        d -= box * np.round(d / box)
        r = np.linalg.norm(d, axis=1)
        ok = r > 1e-9
        inward.append(float(np.mean(np.einsum("ia,ia->i", n[m][ok], d[ok] / r[ok, None]))))
    return labels, count, inward, len(pairs)


def tracked(path):
    """Whether git tracks `path` (False outside a repository or without git)."""
    d = os.path.dirname(os.path.abspath(path))
    try:
        r = subprocess.run(["git", "-C", d, "ls-files", "--error-unmatch",
                            os.path.abspath(path)], capture_output=True)
    except OSError:
        return False
    return r.returncode == 0


def colours(mode, n, director, labels, min_size):
    """RGBA per particle and the colour bar's label (None: no colour bar). director: viridis
    by |n . director|; cluster: the clusters of at least min_size in distinct colours, the
    rest faint grey."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if mode == "director":
        return plt.get_cmap("viridis")(np.abs(n @ director)), "|n . director|"
    sizes = np.bincount(labels)
    big = np.flatnonzero(sizes >= min_size)
    big = big[np.argsort(-sizes[big])]
    rgba = np.tile([0.75, 0.75, 0.75, 0.35], (len(n), 1))
    tab = plt.get_cmap("tab20")
    for k, c in enumerate(big):
        rgba[labels == c] = tab(k % 20)
    return rgba, None


def draw(png, x, n, box, rgba, bar, axis, slab, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection
    from mpl_toolkits.mplot3d.art3d import Line3DCollection
    cmap = plt.get_cmap("viridis")
    fig = plt.figure(figsize=(10, 4.8))
    ax = fig.add_subplot(1, 2, 1, projection="3d")
    seg = np.stack([x - 0.4 * n, x + 0.4 * n], axis=1)
    ax.add_collection3d(Line3DCollection(seg, colors=rgba, linewidths=1.2))
    tip = x + 0.4 * n
    ax.scatter(tip[:, 0], tip[:, 1], tip[:, 2], s=3, c=rgba, depthshade=False)
    for k, lab in enumerate("xyz"):
        getattr(ax, f"set_{lab}lim")(0, box[k])
        getattr(ax, f"set_{lab}label")(lab)
    ax.set_box_aspect(tuple(float(b) for b in box))
    ax.set_title("whole box")

    a = "xyz".index(axis)
    u, v = [k for k in range(3) if k != a]
    mid = 0.5 * box[a]
    sel = np.abs(x[:, a] - mid) < 0.5 * slab
    ax2 = fig.add_subplot(1, 2, 2)
    s2 = np.stack([x[sel][:, [u, v]] - 0.4 * n[sel][:, [u, v]],
                   x[sel][:, [u, v]] + 0.4 * n[sel][:, [u, v]]], axis=1)
    ax2.add_collection(LineCollection(s2, colors=rgba[sel], linewidths=1.5))
    t2 = x[sel][:, [u, v]] + 0.4 * n[sel][:, [u, v]]
    ax2.scatter(t2[:, 0], t2[:, 1], s=5, c=rgba[sel])
    ax2.set_xlim(0, box[u])
    ax2.set_ylim(0, box[v])
    ax2.set_aspect("equal")
    ax2.set_xlabel("xyz"[u])
    ax2.set_ylabel("xyz"[v])
    ax2.set_title(f"slab |{axis} - {mid:g}| < {0.5 * slab:g} ({sel.sum()} particles)")
    if bar:
        sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, 1))
        fig.colorbar(sm, ax=ax2, fraction=0.046, pad=0.04, label=bar)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=80)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="the run's output folder")
    ap.add_argument("--traj", default=None, help="trajectory (default OUT/traj.h5md)")
    ap.add_argument("--frame", type=int, default=-1, help="frame index (default the last)")
    ap.add_argument("--png", default=None, help="picture (default OUT/snapshot.png)")
    ap.add_argument("--slab", type=float, default=1.5, help="slab thickness")
    ap.add_argument("--axis", default="z", choices=["x", "y", "z"], help="slab normal")
    ap.add_argument("--cut", type=float, default=1.0, help="cluster distance")
    ap.add_argument("--patch", type=float, default=None, metavar="BETA",
                    help="clusters join only pairs whose patches (half-angle BETA degrees "
                         "about n) face each other")
    ap.add_argument("--poles", action="store_true",
                    help="with --patch: a patch at each end of n (triblock Janus)")
    ap.add_argument("--min-size", type=int, default=5, help="smallest cluster counted")
    ap.add_argument("--color", default="director", choices=["director", "cluster"],
                    help="colour by |n . director| or by cluster")
    ap.add_argument("--title", default=None)
    ap.add_argument("--json", default=None, help="write the numbers here too")
    args = ap.parse_args(argv)

    traj = args.traj or os.path.join(args.out, "traj.h5md")
    png = args.png or os.path.join(args.out, "snapshot.png")
    if not os.path.isfile(traj):
        raise SystemExit(f"aniso_snapshot.py: {traj}: no such file")
    if tracked(png):
        raise SystemExit(f"aniso_snapshot.py: {png} is tracked by git: give a --png outside "
                         "the repository's files (and copy the picture by hand)")
    x, n, _, box, step = read_frame(traj, args.frame)
    if len(x) == 0:
        raise SystemExit(f"aniso_snapshot.py: {traj}: no oriented particles in the frame")
    s, director = nematic(n)
    patch = None if args.patch is None else (args.patch, args.poles)
    labels, count, inward, bonds = clusters(x, n, box, args.cut, patch, args.min_size)
    sizes = np.bincount(labels)
    stats = {
        "step": step, "oriented": int(len(x)), "nematic_S": s,
        "director": [float(d) for d in director], "polar": float(np.linalg.norm(n.mean(0))),
        "contacts_per_particle": 2.0 * bonds / len(x), "clusters": int(count), "largest_cluster": int(sizes.max()),
        f"clusters_ge{args.min_size}": len(inward),
        "mean_inward": float(np.mean(inward)) if inward else None,
    }
    rgba, bar = colours(args.color, n, director, labels, args.min_size)
    title = args.title or f"{os.path.basename(os.path.normpath(args.out))}, step {step}"
    many = "cluster" if len(inward) == 1 else "clusters"
    sub = (f"{len(inward)} {many} of {args.min_size} or more" if args.color == "cluster"
           else f"S = {s:.2f}")
    draw(png, x, n, box, rgba, bar, args.axis, args.slab, f"{title}: {sub}")
    for k, v in stats.items():
        print(f"{k}: {v}")
    print(f"picture: {png}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(stats, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
