#!/usr/bin/env python3
"""reaction_analysis.py: chains, conversion, brush profiles and pictures of runs with reactions
(docs/configuration.md, "Reactions"; docs/validation.md).

  chains FILE --ends I,A [--frame K] [--json OUT]
        the chain length distribution: a chain is the connected component of the bond graph
        holding one active end (a bead of the --ends species; an initiator that never reacted
        is a chain of one bead); prints the number of chains, the mean and variance of their
        lengths (beads), the polydispersity Mw/Mn and the histogram. FILE is a checkpoint
        (checkpoints/ckpt_<step>.h5) or a trajectory with time-dependent connectivity
        (traj.h5md of a run with reactions; --frame, default the last).
  kinetics FILE --ends I,A --pr PR --intervals N [--thermo thermo.csv] [--png OUT]
        chain growth in a monomer bath: the mean and variance of the chain lengths against
        1 + N Pr and N Pr (1 - Pr) (each end grows by a Bernoulli(Pr) trial per interval), with
        their standard errors; with --thermo, the monomers bonded per interval against
        [P*] Pr and the conversion against time.
  profile TRAJ (--center X,Y,Z | --plane Z0 [--axis z]) --species P,A [--frame K] [--bins B]
          [--rmax R] [--png OUT] [--json OUT]
        the brush density profile: the number density of the given species in spherical
        shells around a centre (a grafting ball), against the distance from it; or, with
        --plane, in slabs parallel to a grafting plane at Z0 along --axis, against the height
        h above it (h = (z - Z0) mod L, the box's edge along the axis), with the brush heights:
        the first moment <h> of the profile and the height h95 below which 95 % of the beads
        lie. --rmax is the largest distance or height binned (default half the box's edge,
        the whole edge with --plane).
  picture TRAJ --png OUT [--frame K] [--center X,Y,Z] [--frozen W,I,G] [--chain P,A]
          [--ends I,A]
        a picture like GALAMOST's figure 10: the frozen beads (the ball) in yellow, the
        grafting points (the initiators that reacted) in blue, the grafted chains as green
        lines, seen from one side; beside it the chains' length distribution and the brush
        density profile (the --chain species) against the distance from the centre (default:
        the box's).
The graph and the lengths come from the files alone (bonds and species), never from the
thermo columns; the references are the binomial law and [P*] Pr / tau.
"""
import argparse
import json
import math
import sys

import numpy as np


def load(path, frame=-1):
    """Species, positions, box, bonds (pairs of row indices) and step of a checkpoint or of
    a frame of a trajectory with time-dependent connectivity."""
    import h5py
    with h5py.File(path, "r") as f:
        if "particles/bonds" in f:  # a checkpoint
            p = f["particles"]
            order = np.argsort(p["tag"][:])
            species = p["species"][:][order]
            x = p["position"][:][order]
            bonds = p["bonds"][:][order]
            n = len(species)
            i = np.repeat(np.arange(n), bonds.shape[1])
            j = bonds.reshape(-1)
            keep = (j >= 0) & (i < j)
            pairs = np.stack([i[keep], j[keep]], axis=1)
            names = [s.decode() if isinstance(s, bytes) else s
                     for s in f["parameters"].attrs["species_names"]]
            box = np.array(f["parameters"].attrs["box"], dtype=float)
            step = int(f.attrs["step"])
            mol = p["molecule"][:][order]
            rx_state = f["reaction_state"][:] if "reaction_state" in f else None
        else:  # a trajectory
            rx_state = None
            a = f["particles/all"]
            steps = a["position/step"][:]
            k = frame if frame >= 0 else len(steps) + frame
            x = a["position/value"][k]
            sp = a["species"]
            if isinstance(sp, h5py.Group):
                species = sp["value"][k]
                names = [s.decode() if isinstance(s, bytes) else s for s in sp.attrs["names"]]
                b = f["connectivity/bonds/value"][k]
                mol = a["molecule/value"][k]
            else:
                species = sp[:]
                names = [s.decode() if isinstance(s, bytes) else s for s in sp.attrs["names"]]
                b = f["connectivity/bonds"][:] if "connectivity/bonds" in f else np.zeros((0, 2))
                mol = a["molecule"][:] if "molecule" in a else np.zeros(len(species), int)
            pairs = b[b[:, 0] >= 0].astype(np.int64)
            box = np.diag(a["box/edges/value"][k]).astype(float)
            step = int(steps[k])
    return {"species": np.asarray(species), "x": np.asarray(x), "pairs": pairs, "names": names,
            "box": box, "step": step, "mol": np.asarray(mol), "rx_state": rx_state}


def components(n, pairs):
    """Labels of the connected components of the graph on n beads (union-find)."""
    parent = np.arange(n)

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return np.array([find(a) for a in range(n)])


def species_ids(t, names):
    ids = []
    for s in names.split(","):
        if s not in t["names"]:
            sys.exit(f"no species {s} (the file has {', '.join(t['names'])})")
        ids.append(t["names"].index(s))
    return ids


def chain_lengths(t, ends):
    """The length (beads) of each chain: the component of each bead of an end species."""
    ids = species_ids(t, ends)
    n = len(t["species"])
    label = components(n, t["pairs"])
    size = np.bincount(label, minlength=n)
    heads = np.nonzero(np.isin(t["species"], ids))[0]
    if len(np.unique(label[heads])) != len(heads):
        sys.exit("a chain holds more than one active end: not a chain-growth topology")
    return size[label[heads]]


def stats(lengths):
    m = float(np.mean(lengths))
    v = float(np.var(lengths, ddof=1)) if len(lengths) > 1 else 0.0
    mw = float(np.sum(lengths.astype(float) ** 2) / np.sum(lengths))
    return {"chains": int(len(lengths)), "mean": m, "variance": v, "pdi": mw / m,
            "histogram": {int(k): int(c) for k, c in zip(*np.unique(lengths, return_counts=True))}}


def cmd_chains(a):
    t = load(a.file, a.frame)
    s = stats(chain_lengths(t, a.ends))
    s["step"] = t["step"]
    print(f"step {t['step']}: {s['chains']} chains, mean length {s['mean']:.4f} beads, "
          f"variance {s['variance']:.4f}, Mw/Mn {s['pdi']:.4f}")
    print("length: count " + ", ".join(f"{k}: {c}" for k, c in s["histogram"].items()))
    if a.json:
        json.dump(s, open(a.json, "w"), indent=1)
    return 0


def thermo_rows(path):
    import csv
    with open(path) as f:
        return list(csv.DictReader(f))


def cmd_kinetics(a):
    t = load(a.file, a.frame)
    lengths = chain_lengths(t, a.ends)
    n, pr, m = a.intervals, a.pr, len(lengths)
    s = stats(lengths)
    mean_ref, var_ref = 1.0 + n * pr, n * pr * (1.0 - pr)
    se_mean = math.sqrt(var_ref / m)
    # the sample variance of a binomial: Var(s^2) = (mu4 - (m-3)/(m-1) sigma^4) / m
    mu4 = var_ref * (1 + 3 * (n - 2) * pr * (1 - pr))
    se_var = math.sqrt(max(mu4 - (m - 3) / (m - 1) * var_ref ** 2, 0.0) / m)
    out = {"chains": m, "intervals": n, "pr": pr, "mean": s["mean"], "mean_ref": mean_ref,
           "mean_se": se_mean, "variance": s["variance"], "variance_ref": var_ref,
           "variance_se": se_var, "z_mean": (s["mean"] - mean_ref) / se_mean,
           "z_variance": (s["variance"] - var_ref) / se_var if se_var > 0 else 0.0,
           "histogram": s["histogram"]}
    print(f"{m} chains after {n} intervals at Pr = {pr}: mean length {s['mean']:.4f} "
          f"(1 + n Pr = {mean_ref:.4f} +- {se_mean:.4f}, z = {out['z_mean']:+.2f}); variance "
          f"{s['variance']:.4f} (n Pr (1 - Pr) = {var_ref:.4f} +- {se_var:.4f}, "
          f"z = {out['z_variance']:+.2f})")
    if a.thermo:
        rows = thermo_rows(a.thermo)
        tau_rows = [r for r in rows if int(r["step"]) > 0 and int(r["step"]) % a.interval == 0]
        per = np.array([float(r["reactions"]) for r in tau_rows])
        ends = float(rows[0]["active_ends"])
        out["reactions_per_interval"] = float(per.mean())
        out["reactions_ref"] = ends * pr
        out["reactions_se"] = math.sqrt(ends * pr * (1 - pr) / len(per))
        out["z_rate"] = (per.mean() - ends * pr) / out["reactions_se"]
        conv = np.array([float(r["conversion"]) for r in rows])
        steps = np.array([int(r["step"]) for r in rows])
        m0 = float(t["rx_state"][0]) if t.get("rx_state") is not None else 0.0
        # [P*] Pr monomers per interval, of the [M]0 there were: d conversion / dt =
        # [P*] Pr / (tau [M]0)
        conv_ref = ends * pr * (steps // a.interval) / m0 if m0 > 0 else conv * np.nan
        out["conversion_final"] = float(conv[-1])
        out["conversion_ref"] = float(conv_ref[-1])
        print(f"monomers bonded per interval: {per.mean():.3f} ([P*] Pr = {ends * pr:.3f} +- "
              f"{out['reactions_se']:.3f}, z = {out['z_rate']:+.2f}); conversion "
              f"{conv[-1]:.5f} at step {steps[-1]} ([P*] Pr n / [M]0 = {conv_ref[-1]:.5f})")
        if a.png:
            plot_kinetics(a, lengths, n, pr, steps, conv, conv_ref)
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1)
    return 0


def plot_kinetics(a, lengths, n, pr, steps, conv, conv_ref):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    k = np.arange(0, n + 1)
    binom = np.array([math.comb(n, j) * pr ** j * (1 - pr) ** (n - j) for j in k])
    counts = np.bincount(lengths - 1, minlength=n + 1)[:n + 1]
    ax[0].bar(k + 1, counts / len(lengths), color="tab:green", alpha=0.6, label="Vesica")
    ax[0].plot(k + 1, binom, "k.-", label=f"binomial B({n}, {pr})")
    ax[0].set_xlabel("chain length (beads)")
    ax[0].set_ylabel("fraction of chains")
    ax[0].legend()
    ax[1].plot(steps, conv, "g-", label="conversion (thermo.csv)")
    ax[1].plot(steps, conv_ref, "k--", label="[P*] Pr t / (tau [M]0)")
    ax[1].set_xlabel("step")
    ax[1].set_ylabel("conversion")
    ax[1].legend()
    fig.tight_layout()
    fig.savefig(a.png, dpi=120)


def unwrap_center(x, center, box):
    d = x - center
    return d - box * np.round(d / box)


def cmd_profile(a):
    t = load(a.file, a.frame)
    ids = species_ids(t, a.species)
    out = {"step": t["step"]}
    if a.plane is not None:
        axis = "xyz".index(a.axis)
        hmax = a.rmax if a.rmax else float(t["box"][axis])
        mid, rho, h = planar_density(t, ids, axis, a.plane, hmax, a.bins)
        count = len(h)
        out.update(brush_heights(h))
        print(f"step {t['step']}: {count} beads of {a.species} above the plane {a.axis} = "
              f"{a.plane}: <h> = {out['h_mean']:.4f}, h95 = {out['h95']:.4f}; h, density:")
        xlabel = f"height above the plane {a.axis} = {a.plane}"
    else:
        if not a.center:
            sys.exit("profile: expected --center X,Y,Z or --plane Z0")
        c = np.array([float(v) for v in a.center.split(",")])
        rmax = a.rmax if a.rmax else 0.5 * float(t["box"].min())
        mid, rho, count = radial_density(t, ids, c, rmax, a.bins)
        print(f"step {t['step']}: {count} beads of {a.species}; r, density:")
        xlabel = "distance from the centre"
    for m_, q in zip(mid, rho):
        print(f"  {m_:7.3f} {q:.5f}")
    if a.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5, 4))
        ax.plot(mid, rho, "g.-")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"number density of {a.species}")
        fig.tight_layout()
        fig.savefig(a.png, dpi=120)
    if a.json:
        out.update({"r": mid.tolist(), "density": rho.tolist()})
        json.dump(out, open(a.json, "w"), indent=1)
    return 0


def radial_density(t, ids, c, rmax, bins):
    """The number density of the species ids in spherical shells around c."""
    sel = np.isin(t["species"], ids)
    d = unwrap_center(t["x"][sel], c, t["box"])
    r = np.sqrt((d * d).sum(axis=1))
    edges = np.linspace(0.0, rmax, bins + 1)
    counts, _ = np.histogram(r, edges)
    shell = 4.0 / 3.0 * math.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    return 0.5 * (edges[1:] + edges[:-1]), counts / shell, int(sel.sum())


def plane_heights(t, ids, axis, z0):
    """Heights above the plane at z0 along axis, (z - z0) mod L, of the beads of the species
    ids, and the mask that selects them."""
    sel = np.isin(t["species"], ids)
    L = float(t["box"][axis])
    return np.mod(t["x"][sel, axis] - z0, L), sel


def planar_density(t, ids, axis, z0, hmax, bins):
    """The number density of the species ids in slabs parallel to the plane at z0, against
    the height above it; and the heights themselves."""
    h, _ = plane_heights(t, ids, axis, z0)
    edges = np.linspace(0.0, hmax, bins + 1)
    counts, _ = np.histogram(h, edges)
    area = float(np.prod(np.delete(t["box"], axis)))
    return 0.5 * (edges[1:] + edges[:-1]), counts / (area * np.diff(edges)), h


def brush_heights(h):
    """The brush's first moment <h> and 95 % height from its beads' heights."""
    if len(h) == 0:
        return {"beads": 0, "h_mean": 0.0, "h95": 0.0}
    return {"beads": int(len(h)), "h_mean": float(np.mean(h)),
            "h95": float(np.percentile(h, 95.0))}


def cmd_picture(a):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = load(a.file, a.frame)
    box = t["box"]
    c = np.array([float(v) for v in a.center.split(",")]) if a.center else box / 2
    d = unwrap_center(t["x"], c, box)
    frozen = np.isin(t["species"], species_ids(t, a.frozen))
    chain = np.isin(t["species"], species_ids(t, a.chain))
    fig = plt.figure(figsize=(15, 5))
    ax = fig.add_subplot(131, projection="3d")
    ax.scatter(*d[frozen].T, s=6, c="gold", depthshade=True, label="frozen ball")
    # grafting points: frozen beads with a bond
    bonded = np.zeros(len(d), bool)
    bonded[t["pairs"].reshape(-1)] = True
    g = frozen & bonded
    ax.scatter(*d[g].T, s=14, c="blue", label="initiators")
    segs = 0
    for i, j in t["pairs"]:
        if not ((chain[i] or frozen[i]) and (chain[j] or frozen[j])):
            continue
        p, q = d[i], d[i] + unwrap_center(d[j], d[i], box)
        ax.plot([p[0], q[0]], [p[1], q[1]], [p[2], q[2]], "g-", lw=0.8)
        segs += 1
    lim = a.half if a.half else 0.5 * float(box.min())
    for s in (ax.set_xlim, ax.set_ylim, ax.set_zlim):
        s(-lim, lim)
    ax.set_title(f"step {t['step']}: {int(g.sum())} grafted chains")
    ax.legend(loc="upper right")
    lengths = chain_lengths(t, a.ends)
    st = stats(lengths)
    ax2 = fig.add_subplot(132)
    ax2.hist(lengths, bins=np.arange(lengths.min() - 0.5, lengths.max() + 1.5), color="green")
    ax2.set_xlabel("chain length (beads, the initiator included)")
    ax2.set_ylabel("chains")
    ax2.set_title(f"mean {st['mean']:.2f}, Mw/Mn {st['pdi']:.3f}")
    mid, rho, count = radial_density(t, species_ids(t, a.chain), c, lim, a.bins)
    ax3 = fig.add_subplot(133)
    ax3.plot(mid, rho, "g.-")
    ax3.set_xlabel("distance from the ball's centre")
    ax3.set_ylabel(f"number density of the chains' beads ({a.chain})")
    ax3.set_title(f"brush profile, {count} beads")
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    print(f"{a.png}: step {t['step']}, {int(frozen.sum())} frozen beads, {int(g.sum())} "
          f"grafting points, {segs} bonds drawn; chains: mean {st['mean']:.3f} beads, "
          f"Mw/Mn {st['pdi']:.4f}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("chains")
    p.add_argument("file")
    p.add_argument("--ends", required=True)
    p.add_argument("--frame", type=int, default=-1)
    p.add_argument("--json")
    p = sub.add_parser("kinetics")
    p.add_argument("file")
    p.add_argument("--ends", required=True)
    p.add_argument("--pr", type=float, required=True)
    p.add_argument("--intervals", type=int, required=True)
    p.add_argument("--interval", type=int, default=50, help="tau in steps (thermo rows)")
    p.add_argument("--thermo")
    p.add_argument("--frame", type=int, default=-1)
    p.add_argument("--png")
    p.add_argument("--json")
    p = sub.add_parser("profile")
    p.add_argument("file")
    p.add_argument("--center")
    p.add_argument("--plane", type=float, help="the grafting plane's coordinate Z0")
    p.add_argument("--axis", default="z", choices=["x", "y", "z"])
    p.add_argument("--species", required=True)
    p.add_argument("--frame", type=int, default=-1)
    p.add_argument("--bins", type=int, default=30)
    p.add_argument("--rmax", type=float, default=0.0)
    p.add_argument("--png")
    p.add_argument("--json")
    p = sub.add_parser("picture")
    p.add_argument("file")
    p.add_argument("--png", required=True)
    p.add_argument("--frame", type=int, default=-1)
    p.add_argument("--center")
    p.add_argument("--half", type=float, default=0.0)
    p.add_argument("--frozen", default="W,I,G")
    p.add_argument("--chain", default="P,A")
    p.add_argument("--ends", default="I,A")
    p.add_argument("--bins", type=int, default=14)
    a = ap.parse_args()
    return {"chains": cmd_chains, "kinetics": cmd_kinetics, "profile": cmd_profile,
            "picture": cmd_picture}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
