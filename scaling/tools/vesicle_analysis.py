#!/usr/bin/env python3
"""Self-assembly of amphiphiles from a Vesica trajectory (traj.h5md).

    vesicle_analysis.py OUT/traj.h5md [--core B] [--shell A] [--solvent S] [--cut 1.0]
                        [--csv aggregates.csv] [--png final.png] [--frames K]

Per frame: the aggregates of core beads (two core beads closer than --cut are in one
aggregate), the largest one's size, radius of gyration and relative shape anisotropy
kappa^2 (0 for a sphere or a spherical shell, 1 for a rod), whether it wraps around the
periodic box (a membrane that spans it), and how many solvent beads it encloses: solvent in
a cavity that the aggregate's core seals off from the outside, as a vesicle's lumen is and a
micelle's core is not. The PNG shows the last frame: the core and shell beads in 3D (the
solvent left out) and a slab through the largest aggregate's centre with the solvent.

Needs numpy, scipy, h5py, matplotlib (Debian: /usr/bin/python3).
"""
import argparse
import sys

import numpy as np


def min_image(d, box):
    return d - box * np.round(d / box)


def aggregates(pos, box, cut):
    """Connected components of the beads at `pos` (wrapped into the box) under distance `cut`.
    Returns (labels, pairs)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    from scipy.spatial import cKDTree
    n = len(pos)
    tree = cKDTree(np.mod(pos, box) % box, boxsize=box)
    pairs = tree.query_pairs(cut, output_type="ndarray")
    graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    return labels, pairs


def unwrap(pos, box, members, pairs, cut):
    """Positions of one aggregate made whole by walking its contact graph from one bead.
    Returns (unwrapped positions in the order of `members`, spans): spans is True when some
    contact, seen in the unwrapped frame, is longer than `cut`: the aggregate is connected to
    its own periodic image (it percolates, like a membrane spanning the box)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order
    local = -np.ones(len(pos), dtype=np.int64)
    local[members] = np.arange(len(members))
    inside = (local[pairs[:, 0]] >= 0) & (local[pairs[:, 1]] >= 0)
    a, b = local[pairs[inside, 0]], local[pairs[inside, 1]]
    m = len(members)
    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(m, m))
    order, pred = breadth_first_order(graph, 0, directed=False, return_predecessors=True)
    p = pos[members]
    out = np.empty_like(p)
    out[order[0]] = p[order[0]]
    for k in order[1:]:  # BFS order: a bead's predecessor is placed before it
        out[k] = out[pred[k]] + min_image(p[k] - p[pred[k]], box)
    spans = bool(len(a)) and bool(np.any(np.linalg.norm(out[a] - out[b], axis=1) > cut * 1.001))
    return out, spans


def shape(x):
    """Radius of gyration and relative shape anisotropy kappa^2 of points x."""
    c = x - x.mean(axis=0)
    lam = np.linalg.eigvalsh(c.T @ c / len(x))
    s = lam.sum()
    kappa2 = 1.0 - 3.0 * (lam[0] * lam[1] + lam[1] * lam[2] + lam[2] * lam[0]) / s**2 if s > 0 else 0.0
    return float(np.sqrt(s)), float(kappa2)


def enclosed(core, solvent, box, voxel=0.7):
    """Solvent beads in cavities that the core beads seal off. Voxels holding a core bead,
    grown by one voxel, are the wall; empty voxels not connected to the padded border are
    cavities. core: the unwrapped aggregate; solvent: wrapped positions (taken to their
    image nearest the aggregate's centre)."""
    from scipy import ndimage
    centre = core.mean(axis=0)
    lo = core.min(axis=0) - 3 * voxel
    shape_ = np.ceil((core.max(axis=0) + 3 * voxel - lo) / voxel).astype(int)
    wall = np.zeros(shape_, dtype=bool)
    idx = np.floor((core - lo) / voxel).astype(int)
    wall[idx[:, 0], idx[:, 1], idx[:, 2]] = True
    wall = ndimage.binary_dilation(wall, structure=np.ones((3, 3, 3), dtype=bool))
    labels, _ = ndimage.label(~wall)
    border = np.unique(np.concatenate([labels[0].ravel(), labels[-1].ravel(),
                                       labels[:, 0].ravel(), labels[:, -1].ravel(),
                                       labels[:, :, 0].ravel(), labels[:, :, -1].ravel()]))
    cavity = (labels > 0) & ~np.isin(labels, border)
    s = centre + min_image(solvent - centre, box)
    sidx = np.floor((s - lo) / voxel).astype(int)
    ok = np.all((sidx >= 0) & (sidx < shape_), axis=1)
    sidx = sidx[ok]
    return int(np.count_nonzero(cavity[sidx[:, 0], sidx[:, 1], sidx[:, 2]]))


def analyse_frame(pos, species, box, core_id, solvent_id, cut):
    """One frame's numbers (a dict) and the largest aggregate (unwrapped) for the picture."""
    core_idx = np.flatnonzero(species == core_id)
    labels, pairs = aggregates(pos[core_idx], box, cut)
    sizes = np.bincount(labels)
    big = int(np.argmax(sizes))
    members = np.flatnonzero(labels == big)
    whole, spans = unwrap(pos[core_idx], box, members, pairs, cut)
    rg, kappa2 = shape(whole)
    n_in = -1 if spans else enclosed(whole, pos[species == solvent_id], box)
    row = dict(aggregates=int(len(sizes)), aggregates_10=int(np.count_nonzero(sizes >= 10)),
               largest=int(sizes[big]), rg=rg, kappa2=kappa2, spans=int(spans),
               enclosed_solvent=n_in, hollow=int(n_in >= 20))
    return row, whole


def species_index(names, name):
    if name not in names:
        sys.exit(f"vesicle_analysis: species {name!r} is not in the trajectory's {names}")
    return names.index(name)


def render(path, pos, species, box, ids, whole, row, step_time):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    core_id, shell_id, solvent_id = ids
    fig = plt.figure(figsize=(12, 5.6))
    ax = fig.add_subplot(1, 2, 1, projection="3d")
    p = np.mod(pos, box)
    for sid, colour, label in ((shell_id, "#4a90d9", "A (hydrophilic)"),
                               (core_id, "#c0392b", "B (hydrophobic)")):
        q = p[species == sid]
        ax.scatter(q[:, 0], q[:, 1], q[:, 2], s=1.5, c=colour, label=label, depthshade=True,
                   linewidths=0)
    ax.set_xlim(0, box[0]); ax.set_ylim(0, box[1]); ax.set_zlim(0, box[2])
    ax.set_box_aspect(tuple(box))  # a tuple: matplotlib scales an array in place
    ax.legend(loc="upper left", markerscale=12, fontsize=8)
    ax.set_title(f"{step_time}: polymer beads (solvent left out)", fontsize=10)
    # a slab 2 units thick through the largest aggregate's centre, normal to y
    ax2 = fig.add_subplot(1, 2, 2)
    c = whole.mean(axis=0)
    d = min_image(pos - c, box)
    slab = np.abs(d[:, 1]) < 1.0
    for sid, colour, size in ((solvent_id, "#d0d0d0", 0.5), (shell_id, "#4a90d9", 2.0),
                              (core_id, "#c0392b", 2.0)):
        q = d[slab & (species == sid)]
        ax2.scatter(q[:, 0], q[:, 2], s=size, c=colour, linewidths=0)
    ax2.set_aspect("equal", adjustable="box")
    ax2.set_xlim(-box[0] / 2, box[0] / 2); ax2.set_ylim(-box[2] / 2, box[2] / 2)
    ax2.set_xlabel("x - x_c"); ax2.set_ylabel("z - z_c")
    hollow = ("spans the box" if row["spans"] else
              f"encloses {row['enclosed_solvent']} solvent beads")
    ax2.set_title(f"slab |y - y_c| < 1 through the largest aggregate\n({row['largest']} core "
                  f"beads, Rg {row['rg']:.2f}, kappa^2 {row['kappa2']:.2f}, {hollow})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=130)


def timeline(path, table):
    """Number of aggregates (all, and of >= 10 core beads), the largest one's share of the core
    beads, its radius of gyration and asphericity, against time."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = np.array([r[0] for r in table])
    get = lambda key: np.array([r[1][key] for r in table], dtype=float)
    fig, ax = plt.subplots(1, 3, figsize=(13, 3.6))
    ax[0].semilogy(t, get("aggregates"), "o-", ms=3, label="all")
    ax[0].semilogy(t, get("aggregates_10"), "s-", ms=3, label=">= 10 core beads")
    ax[0].set_ylabel("aggregates")
    ax[0].legend(fontsize=8)
    ax[1].plot(t, get("largest"), "o-", ms=3, color="#c0392b")
    ax[1].set_ylabel("core beads in the largest aggregate")
    ax[2].plot(t, get("rg"), "o-", ms=3, label="Rg")
    ax[2].set_ylabel("Rg of the largest aggregate")
    k2 = ax[2].twinx()
    k2.plot(t, get("kappa2"), "s--", ms=3, color="gray", label="kappa^2")
    k2.set_ylabel("asphericity kappa^2")
    k2.set_ylim(0, 1)
    for a in ax:
        a.set_xlabel("t (DPD units)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traj")
    ap.add_argument("--core", default="B", help="species of the aggregates' core (default B)")
    ap.add_argument("--shell", default="A", help="the other polymer species (default A)")
    ap.add_argument("--solvent", default="S", help="solvent species (default S)")
    ap.add_argument("--cut", type=float, default=1.0, help="contact distance (default 1.0)")
    ap.add_argument("--frames", type=int, default=0, help="analyse every K-th frame (default: all)")
    ap.add_argument("--csv", help="write the per-frame table here")
    ap.add_argument("--png", help="render the last frame here")
    ap.add_argument("--timeline", help="plot aggregates, largest size and shape against time here")
    a = ap.parse_args()
    import h5py
    with h5py.File(a.traj, "r") as f:
        g = f["particles/all"]
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in g["species"].attrs["names"]]
        species = g["species"][...]
        steps = g["position/step"][...]
        times = g["position/time"][...]
        frames = range(len(steps))
        if a.frames > 1:
            frames = sorted(set(range(0, len(steps), a.frames)) | {len(steps) - 1})
        ids = (species_index(names, a.core), species_index(names, a.shell),
               species_index(names, a.solvent))
        header = "step,time,aggregates,aggregates_10,largest,rg,kappa2,spans,enclosed_solvent,hollow"
        rows = [header]
        table = []
        print(f"{'step':>9} {'time':>9} {'aggr':>5} {'>=10':>5} {'largest':>8} {'Rg':>7} "
              f"{'kappa2':>7} {'spans':>5} {'enclosed':>8}")
        for k in frames:
            pos = g["position/value"][k]
            box = np.asarray(g["box/edges/value"][k], dtype=float)
            box = np.diag(box).copy() if box.ndim == 2 else box  # edges as a diagonal matrix
            row, whole = analyse_frame(pos, species, box, ids[0], ids[2], a.cut)
            print(f"{steps[k]:>9} {times[k]:>9.1f} {row['aggregates']:>5} {row['aggregates_10']:>5} "
                  f"{row['largest']:>8} {row['rg']:>7.2f} {row['kappa2']:>7.3f} {row['spans']:>5} "
                  f"{row['enclosed_solvent']:>8}")
            rows.append(f"{steps[k]},{times[k]},{row['aggregates']},{row['aggregates_10']},"
                        f"{row['largest']},{row['rg']:.6g},{row['kappa2']:.6g},{row['spans']},"
                        f"{row['enclosed_solvent']},{row['hollow']}")
            table.append((times[k], row))
        if a.csv:
            with open(a.csv, "w") as out:
                out.write("\n".join(rows) + "\n")
        if a.png:
            render(a.png, pos, species, box, ids, whole, row, f"t = {times[k]:g}")
            print(f"wrote {a.png}")
        if a.timeline:
            timeline(a.timeline, table)
            print(f"wrote {a.timeline}")


if __name__ == "__main__":
    main()
