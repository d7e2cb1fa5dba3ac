#!/usr/bin/python3
"""Pictures of a vesicle run after vesicle_classify.py, like the core paper's figures 14-16.

    vesicle_pictures.py RUN [--out DIR] [--axis z] [--times T1 T2 ...]

RUN is the run folder (traj.h5md) and DIR the folder of vesicle_classify.py's outputs
(default RUN; it reads labels.npz and classify.json there) and of the pictures:
  strip.png   a time strip (figure 14): the core beads of a slab a third of the box thick,
              projected along --axis, coloured by the class of their aggregate, at several
              times (--times, or five spread logarithmically over the analysed frames);
  tem.png     transmission-microscopy-style sections (figure 15): the projected density of
              the core beads through a slab, grey (white: no core bead, black: dense core),
              of the whole box (--tem-slab thick, default 10) and of the three largest
              vesicles (or largest aggregates when there is no vesicle) through their
              centres (a slab of --section, default 4);
  fusion.png  a fusion history (figure 16): the chains of the last frame's largest vesicle
              (or largest aggregate), shown at earlier times coloured by the aggregate each
              belonged to then, the other core beads as grey shadows; below, how many
              aggregates held those chains against time;
  fusion.csv  that history: step, time, pieces (aggregates of at least --min-size core beads
              holding the chains), in_largest_piece and free (fractions of the chains).
A chain belongs, at a time, to the aggregate that holds most of its core beads.
Needs numpy, h5py, matplotlib.
"""
import argparse
import csv
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vesicle_classify as vc  # noqa: E402

COLOURS = {"free": "#b0b0b0", "spherical_micelle": "#1f77b4", "cylindrical_micelle": "#2ca02c",
           "open_bilayer": "#ff7f0e", "unilamellar_vesicle": "#d62728",
           "multi_vesicle": "#9467bd"}
LABELS = {"free": "free chains", "spherical_micelle": "spherical micelle",
          "cylindrical_micelle": "cylindrical micelle", "open_bilayer": "open bilayer",
          "unilamellar_vesicle": "unilamellar vesicle",
          "multi_vesicle": "multilamellar / multi-compartment"}
AXES = "xyz"


def plt_():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def pick_frames(times, n):
    """n indices of the analysed frames spread logarithmically in time, the last included."""
    t = np.asarray(times, dtype=float)
    if len(t) <= n:
        return list(range(len(t)))
    positive = t[t > 0]
    lo = positive.min() if len(positive) else 1.0
    want = np.geomspace(lo, t[-1], n) if t[-1] > lo else np.linspace(t[0], t[-1], n)
    picked = sorted({int(np.argmin(np.abs(t - w))) for w in want} | {len(t) - 1})
    return picked


def nearest_frames(times, wanted):
    return sorted({int(np.argmin(np.abs(np.asarray(times) - w))) for w in wanted})


def projection(axis):
    """The index of `axis` and the two in-plane axes of a projection along it."""
    a = AXES.index(axis)
    keep = [k for k in range(3) if k != a]
    return a, keep


def scale_bar(ax, length, x0, y0, span):
    ax.plot([x0, x0 + length], [y0, y0], color="k", lw=2)
    ax.text(x0 + length / 2, y0 + 0.02 * span, f"{length:g}", ha="center", va="bottom", fontsize=7)


def bar_length(span):
    for v in (1, 2, 5, 10, 20, 50, 100, 200, 500):
        if v >= span / 8:
            return v
    return 1000


def strip(path, tr, lab, idx, box, axis, min_size):
    """Figure 14's time strip."""
    plt = plt_()
    a, (u, v) = projection(axis)
    fig, axs = plt.subplots(1, len(idx), figsize=(max(3.3 * len(idx), 7.0), 3.9), squeeze=False)
    for ax, n in zip(axs[0], idx):
        pos, b = tr.frame(int(lab["frames"][n]))
        slab = np.abs(pos[:, a] - b[a] / 2) < b[a] / 6
        cls = lab["classes"][n][lab["labels"][n]]
        names = lab["class_names"]
        for c in range(len(names)):
            sel = slab & (cls == c)
            if np.any(sel):
                ax.scatter(pos[sel, u], pos[sel, v], s=0.4 if names[c] != "free" else 0.15,
                           c=COLOURS[str(names[c])], linewidths=0, rasterized=True)
        ax.set_xlim(0, b[u]); ax.set_ylim(0, b[v]); ax.set_aspect("equal")
        ax.set_xticks([]); ax.set_yticks([])
        scale_bar(ax, bar_length(b[u]), 0.05 * b[u], 0.04 * b[v], b[v])
        ax.set_title(f"t = {lab['times'][n]:g}", fontsize=10)
    handles = [plt.Line2D([], [], ls="", marker="o", color=COLOURS[c], label=LABELS[c])
               for c in vc.CLASSES]
    fig.legend(handles=handles, loc="lower center", ncol=6 if len(idx) > 3 else 3, fontsize=8,
               frameon=False)
    fig.suptitle(f"core beads in the slab |{axis} - L/2| < L/6, projected along {axis},\n"
                 f"coloured by their aggregate's class", fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 0.93))
    fig.savefig(path, dpi=130)
    plt.close(fig)


def density_image(ax, pts, lo, hi, bin_=0.25, blur=0.5):
    """Grey transmission-style image of the projected density of pts (2D) in [lo, hi)."""
    from scipy import ndimage
    n = np.maximum(np.ceil((hi - lo) / bin_).astype(int), 1)
    h, _, _ = np.histogram2d(pts[:, 0], pts[:, 1], bins=n, range=[[lo[0], hi[0]], [lo[1], hi[1]]])
    h = ndimage.gaussian_filter(h, blur / bin_)
    top = np.percentile(h[h > 0], 99) if np.any(h > 0) else 1.0
    ax.imshow(np.clip(h / top, 0, 1).T, origin="lower", cmap="Greys", vmin=0, vmax=1,
              extent=(lo[0], hi[0], lo[1], hi[1]), interpolation="bilinear")


def tem(path, tr, lab, box, axis, slab_w, section, classify_json):
    """Figure 15's transmission-style sections."""
    plt = plt_()
    a, (u, v) = projection(axis)
    n = len(lab["frames"]) - 1
    pos, b = tr.frame(int(lab["frames"][n]))
    with open(classify_json) as f:
        largest = json.load(f)["largest"]
    ves = [g for g in largest if g["cls"] in ("unilamellar_vesicle", "multi_vesicle")]
    chosen = (ves or largest)[:3]
    fig, axs = plt.subplots(1, 1 + len(chosen), figsize=(4.2 * (1 + len(chosen)), 4.4), squeeze=False)
    ax = axs[0][0]
    mid = b[a] / 2
    sel = np.abs(pos[:, a] - mid) < slab_w / 2
    density_image(ax, pos[sel][:, [u, v]], np.array([0.0, 0.0]), np.array([b[u], b[v]]))
    scale_bar(ax, bar_length(b[u]), 0.05 * b[u], 0.04 * b[v], b[v])
    ax.set_title(f"t = {lab['times'][n]:g}: slab {slab_w:g} thick at {axis} = {mid:g}", fontsize=9)
    for ax, g in zip(axs[0][1:], chosen):
        c = np.array([g["x"], g["y"], g["z"]])
        half = max(2.5 * g["rg"], 6.0)
        d = vc.min_image(pos - c, b, tr.periodic)
        sel = (np.abs(d[:, a]) < section / 2) & (np.abs(d[:, u]) < half) & (np.abs(d[:, v]) < half)
        density_image(ax, d[sel][:, [u, v]], np.array([-half, -half]), np.array([half, half]), 0.15, 0.3)
        scale_bar(ax, bar_length(2 * half), -0.9 * half, -0.92 * half, 2 * half)
        ax.set_title(f"{LABELS[g['cls']]}: {g['beads']} core beads, {g['compartments']} "
                     f"compartment(s)\nsection {section:g} thick through its centre", fontsize=8)
    for ax in axs[0]:
        ax.set_xticks([]); ax.set_yticks([])
    fig.suptitle("projected density of the hydrophobic (core) beads, transmission-microscopy style",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(path, dpi=130)
    plt.close(fig)


def chain_owner(labels, mol, target_chains):
    """For each target chain, the aggregate holding most of its core beads."""
    sel = np.isin(mol, target_chains)
    m, l = mol[sel], labels[sel]
    order = np.lexsort((l, m))
    m, l = m[order], l[order]
    out = {}
    # runs of equal (chain, label): the longest run per chain wins
    change = np.flatnonzero(np.diff(m) != 0) + 1
    for chunk_m, chunk_l in zip(np.split(m, change), np.split(l, change)):
        vals, counts = np.unique(chunk_l, return_counts=True)
        out[int(chunk_m[0])] = int(vals[np.argmax(counts)])
    return np.array([out[c] for c in target_chains])


def fusion(path, csv_path, tr, lab, box, axis, idx, min_size):
    """Figure 16's fusion history and its table."""
    plt = plt_()
    names = [str(c) for c in lab["class_names"]]
    last = len(lab["frames"]) - 1
    cls_last = lab["classes"][last]
    sizes = np.bincount(lab["labels"][last])
    ves = [g for g in range(len(sizes)) if names[cls_last[g]] in ("unilamellar_vesicle", "multi_vesicle")]
    target = ves[0] if ves else int(np.argmax(sizes))
    mol = lab["molecule"]
    chains = np.unique(mol[(lab["labels"][last] == target) & (mol > 0)])
    rows = []
    for n in range(len(lab["frames"])):
        owner = chain_owner(lab["labels"][n], mol, chains)
        big = np.bincount(lab["labels"][n]) >= min_size
        held = owner[big[owner]]
        pieces = len(np.unique(held))
        in_largest = np.bincount(held).max() / len(chains) if len(held) else 0.0
        rows.append(dict(step=int(lab["steps"][n]), time=float(lab["times"][n]), pieces=pieces,
                         in_largest_piece=round(float(in_largest), 4),
                         free=round(float(1.0 - len(held) / len(chains)), 4)))
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)

    a, (u, v) = projection(axis)
    fig = plt.figure(figsize=(max(3.3 * len(idx), 8.0), 7.0))
    gs = fig.add_gridspec(2, len(idx), height_ratios=[3, 1.3], hspace=0.35)
    # the frame that shows the region: where the chains are at every time shown
    boxes = []
    frames = {}
    for n in idx:
        pos, b = tr.frame(int(lab["frames"][n]))
        frames[n] = (pos, b)
        sel = np.isin(mol, chains)
        boxes.append((pos[sel].min(axis=0), pos[sel].max(axis=0)))
    lo = np.min([x[0] for x in boxes], axis=0) - 2.0
    hi = np.max([x[1] for x in boxes], axis=0) + 2.0
    palette = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
               "#17becf", "#bcbd22", "#7f7f7f"]
    for k, n in enumerate(idx):
        ax = fig.add_subplot(gs[0, k])
        pos, b = frames[n]
        labels = lab["labels"][n]
        mine = np.isin(mol, chains)
        inside = np.all((pos >= lo) & (pos <= hi), axis=1)
        shadow = inside & ~mine
        ax.scatter(pos[shadow, u], pos[shadow, v], s=0.2, c="#d8d8d8", linewidths=0, rasterized=True)
        # the pieces by how many of the chains' beads they hold: red the most, then the
        # palette; beads in aggregates below --min-size black
        big = np.bincount(labels) >= min_size
        lm = labels[mine]
        held = np.bincount(lm, minlength=len(big)) * big
        rank = np.empty(len(held), dtype=int)
        rank[np.argsort(-held, kind="stable")] = np.arange(len(held))
        colours = np.array([palette[min(r, len(palette) - 1)] for r in rank[lm]], dtype=object)
        colours[~big[lm]] = "#000000"
        ax.scatter(pos[mine, u], pos[mine, v], s=0.6, c=list(colours), linewidths=0,
                   rasterized=True)
        ax.set_xlim(lo[u], hi[u]); ax.set_ylim(lo[v], hi[v]); ax.set_aspect("equal")
        ax.set_xticks([]); ax.set_yticks([])
        r = rows[n]
        ax.set_title(f"t = {r['time']:g}: {r['pieces']} aggregate(s)", fontsize=9)
        scale_bar(ax, bar_length(hi[u] - lo[u]), lo[u] + 0.05 * (hi[u] - lo[u]),
                  lo[v] + 0.04 * (hi[v] - lo[v]), hi[v] - lo[v])
    ax = fig.add_subplot(gs[1, :])
    t = [r["time"] for r in rows]
    ax.plot(t, [r["pieces"] for r in rows], "o-", ms=3, label="aggregates holding the chains")
    ax.set_ylabel("aggregates")
    ax.set_xlabel("t (DPD units)")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax2 = ax.twinx()
    ax2.plot(t, [r["in_largest_piece"] for r in rows], "s--", ms=3, color="#d62728",
             label="share in the largest")
    ax2.set_ylim(0, 1.05)
    ax2.set_ylabel("share in the largest")
    fig.legend(loc="lower right", fontsize=8, frameon=False)
    cname = LABELS[names[cls_last[target]]]
    fig.suptitle(f"fusion history of the last frame's {cname} ({len(chains)} chains),\n"
                 f"projected along {axis}: red the aggregate holding most of them, other "
                 f"colours the next ones, black too small; other core beads in grey", fontsize=10)
    fig.subplots_adjust(left=0.05, right=0.94, bottom=0.08, top=0.88)
    fig.savefig(path, dpi=130)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="the run folder (traj.h5md), or traj.h5md itself")
    ap.add_argument("--out", help="vesicle_classify.py's output folder, and the pictures' (default: RUN)")
    ap.add_argument("--axis", default="z", choices=list(AXES), help="projection axis (z)")
    ap.add_argument("--times", type=float, nargs="*", help="times of the strip and the fusion panels")
    ap.add_argument("--panels", type=int, default=5, help="panels without --times (5)")
    ap.add_argument("--tem-slab", type=float, default=10.0, help="slab of the whole-box section (10)")
    ap.add_argument("--section", type=float, default=4.0, help="slab of the vesicle sections (4)")
    a = ap.parse_args()
    traj = os.path.join(a.run, "traj.h5md") if os.path.isdir(a.run) else a.run
    out = a.out or os.path.dirname(os.path.abspath(traj))
    lab = vc.load_labels(os.path.join(out, "labels.npz"))
    with open(os.path.join(out, "classify.json")) as f:
        summary = json.load(f)
    tr = vc.Trajectory(traj, summary["parameters"]["core"])
    min_size = summary["parameters"]["min_size"]
    _, box = tr.frame(int(lab["frames"][-1]))
    idx = nearest_frames(lab["times"], a.times) if a.times else pick_frames(lab["times"], a.panels)
    strip(os.path.join(out, "strip.png"), tr, lab, idx, box, a.axis, min_size)
    tem(os.path.join(out, "tem.png"), tr, lab, box, a.axis, a.tem_slab, a.section,
        os.path.join(out, "classify.json"))
    fusion(os.path.join(out, "fusion.png"), os.path.join(out, "fusion.csv"), tr, lab, box,
           a.axis, idx, min_size)
    print(f"wrote {out}/strip.png, tem.png, fusion.png, fusion.csv")


if __name__ == "__main__":
    main()
