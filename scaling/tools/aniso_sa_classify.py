#!/usr/bin/env python3
"""Classify the last frame of a soft anisotropic particle run (issue 49's self-assembly
comparisons): columnar packing of soft disks, aggregates of soft Janus particles.

    aniso_sa_classify.py disk  FRAME [FRAME ...] [--json OUT.json]
    aniso_sa_classify.py janus FRAME [FRAME ...] --alpha-r 396 --alpha-a 132 --beta 90
                                     --nu 0.5 [--rc 1] [--json OUT.json]

FRAME is a run's traj.h5md (its last frame) or an .npz with arrays x (positions), n (unit
orientations), box (three edges) and step (scaling/tools/aniso_sa_lastframe.py writes them).
One line per frame is printed (and, with --json, every number below per frame).

The neighbour search on the periodic box and the shape of each aggregate (the gyration
tensor's relative shape anisotropy kappa^2 and shape parameter) are MDAnalysis's
(MDAnalysis.lib.distances.self_capped_distance; AtomGroup.asphericity, shape_parameter).

disk: the nematic order S (largest eigenvalue of Q = <3/2 n n - 1/2 I>) and its director d;
the local orientational order q_loc = <P2(|n_i . n_j|)> over pairs closer than 1 (high in
domains even when their directions differ and S is low); columns: a pair is stacked when
its separation across d is below 0.35 and along d below 0.7, and the column fraction is the
share of particles with a stacked partner on each side; the hexagonal bond order in the
plane across d: psi6_i = mean over i's side neighbours (separation across d in
[0.45, 1.2], along d below 0.5) of exp(6 i phi), phi the neighbour's angle in that plane,
reported as <|psi6_i|> (local, 1 for a perfect hexagonal packing of columns, about 0.4 for
random neighbours) and |<psi6_i>| (global: one hexagonal domain). The class:
  hexagonal columnar     S >= 0.6, column fraction >= 0.5, <|psi6|> >= 0.6
  columnar domains       column fraction >= 0.5 otherwise (stacks, no single director)
  nematic                S >= 0.4 otherwise
  isotropic              the rest

janus: a pair is bound when its pair energy U_ij (the janus potential with the given
coefficients) is negative, i.e. the patches face each other closely enough that the
attraction outweighs the repulsion; aggregates are the connected components of bound pairs.
For each aggregate: its periodicity (the rank of the lattice vectors its bonds close
around the periodic box: 0 finite, 1 an infinite cylinder, 2 an infinite sheet), for a
finite one its gyration shape (kappa^2: 0 a sphere, 0.25 a flat disk, 1 a rod; shape
parameter: > 0 prolate, < 0 oblate) and its inward alignment (mean n_i . unit vector from
r_i to the aggregate's centre: about 1 when the patches point into a compact micelle, about
0 in a bilayer, whose patches point at its mid-plane); per class, the count, the size range
and the means of size, kappa^2 and inward alignment (by_class). The classes, by size N:
  free                   N < 4 (monomers, dimers, trimers)
  micelle                4 <= N < 13 with inward >= 0.5, or N >= 13, kappa^2 < 0.15,
                         inward >= 0.5
  small aggregate        4 <= N < 13 with inward < 0.5
  vesicle                N >= 13, kappa^2 < 0.15, inward < 0.5 (hollow)
  wormlike               N >= 13, kappa^2 >= 0.15, prolate
  bilayer sheet          N >= 13, kappa^2 >= 0.15, oblate
  cylinder (periodic)    periodic in one direction
  bilayer (periodic)     periodic in two directions (a lamella)
  network                periodic in three directions
and the frame's class is the one holding most particles (free only when it holds more than
half).

Needs numpy, scipy, MDAnalysis (and h5py for traj.h5md).
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def read(path):
    """(x wrapped into the box, n, box edges, step) of a frame file."""
    if path.endswith(".npz"):
        z = np.load(path)
        box = np.asarray(z["box"], dtype=float)
        return (np.mod(np.asarray(z["x"], dtype=float), box), np.asarray(z["n"], dtype=float),
                box, int(z["step"]))
    sys.path.insert(0, HERE)
    from aniso_snapshot import read_frame
    x, n, _, box, step = read_frame(path, -1)
    return x, n, box, step


def pairs_within(x, box, cut):
    """Pairs (i < j) closer than cut on the periodic box (MDAnalysis) and their minimum-image
    separations r_j - r_i."""
    from MDAnalysis.lib.distances import self_capped_distance
    dims = np.array([box[0], box[1], box[2], 90.0, 90.0, 90.0], dtype=np.float32)
    p, _ = self_capped_distance(x.astype(np.float32), cut, box=dims)
    p = np.asarray(p, dtype=np.int64).reshape(-1, 2)
    d = x[p[:, 1]] - x[p[:, 0]]
    d -= box * np.round(d / box)
    return p, d


def nematic(n):
    q = 1.5 * np.einsum("ia,ib->ab", n, n) / len(n) - 0.5 * np.eye(3)
    w, v = np.linalg.eigh(q)
    return float(w[-1]), v[:, -1]


def disk(x, n, box):
    s, d = nematic(n)
    p, r = pairs_within(x, box, 1.25)
    # every pair seen from both particles, in the frame of the viewer's own normal n_i
    i = np.concatenate([p[:, 0], p[:, 1]])
    j = np.concatenate([p[:, 1], p[:, 0]])
    r = np.concatenate([r, -r])
    dist = np.linalg.norm(r, axis=1)
    nij = np.abs(np.einsum("ia,ia->i", n[i], n[j]))
    close = dist < 1.0
    q_loc = float(np.mean(1.5 * nij[close] ** 2 - 0.5)) if close.any() else 0.0
    along = np.einsum("ia,ia->i", r, n[i])
    perp = r - along[:, None] * n[i]
    across = np.linalg.norm(perp, axis=1)
    # stacked partners above and below each particle along its own normal
    st = (across < 0.2) & (np.abs(along) < 0.5) & (nij > 0.8)
    up = np.zeros(len(x), bool)
    down = np.zeros(len(x), bool)
    up[i[st & (along > 0)]] = True
    down[i[st & (along < 0)]] = True
    column = float(np.mean(up & down))
    # hexagonal order of the side neighbours in the plane across n_i (local), and in the
    # plane across the director (global, for the particles within 30 degrees of it)
    ref = np.where(np.abs(n[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    e1 = np.cross(n, ref)
    e1 /= np.linalg.norm(e1, axis=1)[:, None]
    e2 = np.cross(n, e1)
    side = (across >= 0.45) & (across <= 1.2) & (np.abs(along) < 0.5) & (nij > 0.8)
    phi = np.arctan2(np.einsum("ia,ia->i", perp[side], e2[i[side]]),
                     np.einsum("ia,ia->i", perp[side], e1[i[side]]))
    acc = np.zeros(len(x), complex)
    cnt = np.zeros(len(x))
    np.add.at(acc, i[side], np.exp(6j * phi))
    np.add.at(cnt, i[side], 1)
    ok = cnt >= 6
    psi_loc = float(np.mean(np.abs(acc[ok] / cnt[ok]))) if ok.any() else 0.0
    g1 = np.cross(d, [1.0, 0.0, 0.0] if abs(d[0]) < 0.9 else [0.0, 1.0, 0.0])
    g1 /= np.linalg.norm(g1)
    g2 = np.cross(d, g1)
    sel = side & (np.abs(n[i] @ d) > np.cos(np.radians(30)))
    ph = np.arctan2(perp[sel] @ g2, perp[sel] @ g1)
    psi_glob = float(np.abs(np.mean(np.exp(6j * ph)))) if sel.any() else 0.0
    if s >= 0.6 and column >= 0.5 and psi_loc >= 0.6:
        label = "hexagonal columnar"
    elif column >= 0.5:
        label = "columnar domains"
    elif s >= 0.4:
        label = "nematic"
    else:
        label = "isotropic"
    return {"class": label, "S": s, "director": [float(v) for v in d], "q_loc": q_loc,
            "column_fraction": column, "psi6_local": psi_loc, "psi6_global": psi_glob,
            "psi6_counted": int(ok.sum())}


def janus_energy(r, ci, cj, ar, aa, beta, nu):
    """The janus pair energy at reduced distance r with cos th_i = ci, cos th_j = cj."""
    cb = np.cos(beta)
    on = (ci >= cb) & (cj >= cb)
    k = np.pi / (2.0 * beta)
    f = np.where(on, np.cos(k * np.arccos(np.clip(ci, -1, 1)))
                 * np.cos(k * np.arccos(np.clip(cj, -1, 1))), 0.0)
    f = np.clip(f, 0.0, None)
    return 0.5 * ar * (1 - r) ** 2 - f ** nu * 0.5 * aa * (r - r * r)


def unwrap(x, box, members, edges):
    """Positions of one connected aggregate made whole along a spanning tree of its bonds,
    and the rank of the lattice vectors closed by the bonds off the tree (its periodicity)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order
    loc = {m: k for k, m in enumerate(members)}
    a = np.array([loc[i] for i in edges[:, 0]], dtype=np.int64)
    b = np.array([loc[j] for j in edges[:, 1]], dtype=np.int64)
    m = len(members)
    g = coo_matrix((np.ones(len(a)), (a, b)), shape=(m, m)).tocsr()
    order, pred = breadth_first_order(g, 0, directed=False)
    y = np.empty((m, 3))
    xm = x[members]
    y[order[0]] = xm[order[0]]
    for k in order[1:]:
        dv = xm[k] - xm[pred[k]]
        y[k] = y[pred[k]] + dv - box * np.round(dv / box)
    dv = xm[b] - xm[a]
    dv -= box * np.round(dv / box)
    shift = np.round((y[a] + dv - y[b]) / box).astype(int)
    shift = shift[np.any(shift != 0, axis=1)]
    rank = int(np.linalg.matrix_rank(shift)) if len(shift) else 0
    return y, rank


def janus(x, n, box, ar, aa, beta_deg, nu, rc=1.0):
    import MDAnalysis as mda
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    beta = np.radians(beta_deg)
    p, r = pairs_within(x, box, rc)
    dist = np.linalg.norm(r, axis=1)
    e = r / dist[:, None]  # unit vector from i to j
    ci = np.einsum("ia,ia->i", n[p[:, 0]], e)
    cj = -np.einsum("ia,ia->i", n[p[:, 1]], e)
    u = janus_energy(dist / rc, ci, cj, ar, aa, beta, nu)
    bound = p[u < 0]
    g = coo_matrix((np.ones(len(bound)), (bound[:, 0], bound[:, 1])), shape=(len(x),) * 2)
    count, labels = connected_components(g, directed=False)
    uni = mda.Universe.empty(len(x), trajectory=True)
    uni.add_TopologyAttr("masses", np.ones(len(x)))
    uni.dimensions = [box[0], box[1], box[2], 90, 90, 90]
    sizes = np.bincount(labels, minlength=count)
    pclass = np.full(len(x), "free", dtype=object)
    classes = {}
    aggregates = []
    owner = labels[bound[:, 0]]
    order = np.argsort(owner, kind="stable")
    starts = np.searchsorted(owner[order], np.arange(count + 1))
    for c in np.flatnonzero(sizes >= 4):
        members = np.flatnonzero(labels == c)
        ed = bound[order[starts[c]:starts[c + 1]]]
        y, rank = unwrap(x, box, members, ed)
        ag = uni.atoms[members]
        ag.positions = y
        k2 = float(ag.asphericity()) if len(members) >= 3 else 0.0
        sp = float(ag.shape_parameter()) if len(members) >= 3 else 0.0
        to_c = y.mean(0) - y
        ln = np.linalg.norm(to_c, axis=1)
        okc = ln > 1e-9
        inward = float(np.mean(np.einsum("ia,ia->i", n[members][okc],
                                         to_c[okc] / ln[okc, None])))
        big = len(members) >= 13
        if rank == 1:
            cls = "cylinder (periodic)"
        elif rank == 2:
            cls = "bilayer (periodic)"
        elif rank == 3:
            cls = "network"
        elif not big:
            cls = "micelle" if inward >= 0.5 else "small aggregate"
        elif k2 < 0.15:
            cls = "micelle" if inward >= 0.5 else "vesicle"
        else:
            cls = "wormlike" if sp > 0 else "bilayer sheet"
        classes[cls] = classes.get(cls, 0) + len(members)
        pclass[members] = cls
        aggregates.append({"size": int(len(members)), "class": cls, "periodic": rank,
                           "kappa2": k2, "shape": sp, "inward": inward})
    free = int(np.sum(sizes[sizes < 4]))
    classes["free"] = free
    held = {k: v for k, v in classes.items() if k != "free" and v > 0}
    if free > 0.5 * len(x) or not held:
        label = "free"
    else:
        label = max(held, key=held.get)
    big = sorted(aggregates, key=lambda a: -a["size"])
    by_class = {}
    for cls in sorted({a["class"] for a in aggregates}):
        m = [a for a in aggregates if a["class"] == cls]
        by_class[cls] = {"count": len(m), "sizes": [min(a["size"] for a in m),
                                                    max(a["size"] for a in m)],
                         "mean_size": float(np.mean([a["size"] for a in m])),
                         "mean_kappa2": float(np.mean([a["kappa2"] for a in m])),
                         "mean_inward": float(np.mean([a["inward"] for a in m]))}
    return {"class": label, "particles": int(len(x)), "by_class": by_class,
            "fractions": {k: v / len(x) for k, v in sorted(classes.items())},
            "aggregates": int(len(aggregates)),
            "mean_size": float(np.mean([a["size"] for a in aggregates])) if aggregates else 0.0,
            "largest": big[:5], "bound_per_particle": 2.0 * len(bound) / len(x),
            "particle_class": pclass}


def last_frame(run, out):
    """The final state of a run folder (its newest checkpoint, written at the end or when
    run.walltime stopped it) as a small .npz of the oriented particles: x, n (float32), box,
    step. Needs only numpy and h5py (the device has no MDAnalysis)."""
    import glob
    import h5py
    cks = glob.glob(os.path.join(run, "checkpoints", "ckpt_*.h5"))
    if not cks:
        raise SystemExit(f"aniso_sa_classify.py: {run}: no checkpoint")
    ck = max(cks, key=lambda c: int(os.path.basename(c)[5:-3]))
    with h5py.File(ck, "r") as f:
        x = f["particles/position"][()]
        o = f["particles/orientation"][()]
        box = np.asarray(f["parameters"].attrs["box"], dtype=float)
        step = int(f.attrs["step"])
    n = o[:, :3]
    keep = np.linalg.norm(n, axis=1) > 0.5
    np.savez_compressed(out, x=x[keep].astype(np.float32), n=n[keep].astype(np.float32),
                        box=box, step=step)
    return step


CLASS_COLOURS = {"free": (0.75, 0.75, 0.75, 0.3), "micelle": "tab:blue",
                 "small aggregate": "tab:cyan", "vesicle": "tab:purple",
                 "wormlike": "tab:orange", "bilayer sheet": "tab:green",
                 "cylinder (periodic)": "tab:red", "bilayer (periodic)": "tab:olive",
                 "network": "tab:brown"}


def picture(png, panels, mode):
    """One slab picture per frame: panels = [(title, x, n, box, colour key per particle)]:
    segments along n (dot at +n) of the particles in a slab through the middle of the box,
    across the box axis nearest the director (disk, coloured by |n . director|) or across z
    (janus, coloured by the class of each particle's aggregate)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D
    cols = min(4, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 4.0 * rows + 0.6), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    for ax, (title, x, n, box, key) in zip(axes.flat, panels):
        if mode == "disk":
            _, d = nematic(n)
            a = int(np.argmax(np.abs(d)))
            slab = 1.0
            rgba = plt.get_cmap("viridis")(np.abs(n @ d))
        else:
            a, slab = 2, 2.0
            rgba = np.array([matplotlib.colors.to_rgba(CLASS_COLOURS[k]) for k in key])
        u, v = [k for k in range(3) if k != a]
        sel = np.abs(x[:, a] - 0.5 * box[a]) < 0.5 * slab
        half = 0.25 if mode == "disk" else 0.4
        p0, d0 = x[sel][:, [u, v]], half * n[sel][:, [u, v]]
        ax.add_collection(LineCollection(np.stack([p0 - d0, p0 + d0], 1), colors=rgba[sel],
                                         linewidths=0.8))
        ax.scatter(*(p0 + d0).T, s=1.5, c=rgba[sel])
        ax.set_xlim(0, box[u])
        ax.set_ylim(0, box[v])
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(title, fontsize=8)
        ax.set_xlabel(f"{'xyz'[u]} (slab across {'xyz'[a]}, {slab:g} thick)", fontsize=7)
    if mode == "janus":
        handles = [Line2D([], [], color=c, lw=2, label=k) for k, c in CLASS_COLOURS.items()]
        fig.legend(handles=handles, loc="lower center", ncol=5, fontsize=7, frameon=False)
        fig.tight_layout(rect=(0, 0.06, 1, 1), h_pad=1.8)
    else:
        sm = plt.cm.ScalarMappable(cmap="viridis", norm=plt.Normalize(0, 1))
        fig.tight_layout(rect=(0, 0.05, 1, 1), h_pad=1.8)
        cax = fig.add_axes([0.3, 0.02, 0.4, 0.015])
        fig.colorbar(sm, cax=cax, orientation="horizontal", label="|n . director|")
    fig.savefig(png, dpi=80)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["disk", "janus", "frame"],
                    help="frame: RUN OUT.npz, the run folder's final state as an .npz")
    ap.add_argument("frames", nargs="+")
    ap.add_argument("--alpha-r", type=float, default=396.0)
    ap.add_argument("--alpha-a", type=float, default=132.0)
    ap.add_argument("--beta", type=float, nargs="+", default=[90.0],
                    help="Janus balance in degrees: one for all frames or one per frame")
    ap.add_argument("--nu", type=float, default=0.5)
    ap.add_argument("--rc", type=float, default=1.0)
    ap.add_argument("--json", default=None)
    ap.add_argument("--png", default=None, help="a slab picture of every frame")
    ap.add_argument("--titles", nargs="+", default=None, help="one per frame")
    args = ap.parse_args(argv)
    if args.mode == "frame":
        if len(args.frames) != 2:
            ap.error("frame takes RUN OUT.npz")
        print(f"{args.frames[1]}: step {last_frame(*args.frames)}")
        return 0
    betas = args.beta * len(args.frames) if len(args.beta) == 1 else args.beta
    if len(betas) != len(args.frames):
        ap.error("--beta: one value, or one per frame")
    out, panels = {}, []
    for k, path in enumerate(args.frames):
        x, n, box, step = read(path)
        if args.mode == "disk":
            res = disk(x, n, box)
            pc = None
            line = (f"{res['class']}: S {res['S']:.3f} q_loc {res['q_loc']:.3f} "
                    f"columns {res['column_fraction']:.3f} psi6 {res['psi6_local']:.3f} "
                    f"(global {res['psi6_global']:.3f})")
        else:
            res = janus(x, n, box, args.alpha_r, args.alpha_a, betas[k], args.nu, args.rc)
            pc = res.pop("particle_class")
            fr = ", ".join(f"{c} {v:.2f}" for c, v in res["fractions"].items() if v > 0)
            line = (f"{res['class']}: {res['aggregates']} aggregates of 4 or more "
                    f"(mean {res['mean_size']:.1f}); fractions {fr}")
        res.update({"step": step, "particles": int(len(x))})
        out[path] = res
        print(f"{path}: step {step}, {len(x)} particles: {line}")
        title = args.titles[k] if args.titles else os.path.basename(os.path.dirname(path))
        panels.append((f"{title}\n{res['class']}", x, n, box, pc))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    if args.png:
        picture(args.png, panels, args.mode)
        print(f"picture: {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
