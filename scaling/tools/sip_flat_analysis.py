#!/usr/bin/env python3
"""sip_flat_analysis.py OUT [--steps N] [--interval TAU] [--equal-mn-intervals K] [--boot B]

The analysis of scaling/tools/sip_flat_run.sh's matrix (docs/validation.md, "Flat-surface
brushes"): for each grafting density sigma and rate Pr, the runs OUT/s<sigma>-pr<Pr>-seed<k>
pooled over their seeds, from the last frame of each traj.h5md (the bond graph and the
species, through reaction_analysis.py):

  - the grafted chains' degree of polymerization N (monomers bonded to an initiator, the
    initiator not counted; an initiator that never reacted has N = 0), its number average Mn
    and Mw/Mn; the ideal reference, every end growing by a Bernoulli(Pr) trial per interval
    (Mn = n Pr, Mw/Mn = 1 + (1 - Pr) / (n Pr)); and the growth heterogeneity
    H = Var(N) / (Mn (1 - Mn / n)), the variance over that of a binomial with the observed
    mean (1 for any growth that is the same for every chain, above 1 when some chains grow
    faster than others);
  - the brush heights above the grafting plane (the face z in the data file's title line):
    the first moment <h> of the polymer density profile (P and A beads), its 95 % height
    h95, the active ends' mean height <h_end> and the stretching <h_end / N>;
  - the same chain statistics for every Pr at the frame where the fastest rate's Mn is
    closest to the slowest rate's final Mn (equal Mn, different rates);
  - standard errors by bootstrap over the chains (B resamples), seeds pooled.

Writes OUT/summary.json, OUT/table.md and OUT/sip-flat.png (per condition, a column: the
polymer density profile against the height, and the chain length distribution against the
binomial law).
"""
import argparse
import glob
import json
import math
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reaction_analysis as ra  # noqa: E402


def face_of(data):
    with open(data) as f:
        m = re.search(r"face z = ([0-9.eE+-]+)", f.readline())
    if not m:
        sys.exit(f"{data}: no 'face z = ' in the title line (not from sip_flat.py)")
    return float(m.group(1))


def frame_chains(traj, frame, face):
    """Per grafted chain: N, the sum and count of its beads' heights and its end's height;
    and the heights of all the polymer beads (P and A)."""
    t = ra.load(traj, frame)
    ends = ra.species_ids(t, "I,A")
    poly = ra.species_ids(t, "P,A")
    n = len(t["species"])
    label = ra.components(n, t["pairs"])
    size = np.bincount(label, minlength=n)
    heads = np.nonzero(np.isin(t["species"], ends))[0]
    h_all, sel = ra.plane_heights(t, poly, 2, face)
    idx = np.nonzero(sel)[0]
    chain_of = {lab: k for k, lab in enumerate(label[heads])}
    k_of_bead = np.array([chain_of.get(lab, -1) for lab in label[idx]], dtype=np.int64)
    nc = len(heads)
    hsum = np.bincount(k_of_bead[k_of_bead >= 0], weights=h_all[k_of_bead >= 0], minlength=nc)
    hcnt = np.bincount(k_of_bead[k_of_bead >= 0], minlength=nc)
    L = float(t["box"][2])
    h_end = np.mod(t["x"][heads, 2] - face, L)
    N = size[label[heads]] - 1
    h_end[N == 0] = np.nan  # an initiator that never reacted has no chain end above it
    return {"N": N, "hsum": hsum, "hcnt": hcnt, "h_end": h_end, "h": h_all,
            "step": t["step"], "box": t["box"]}


def n_frames(traj):
    import h5py
    with h5py.File(traj, "r") as f:
        return f["particles/all/position/step"][:]


def chain_stats(N, n_int, pr):
    N = N.astype(float)
    mn = float(N.mean())
    pdi = float((N ** 2).sum() / N.sum() / mn) if N.sum() > 0 else float("nan")
    var = float(N.var(ddof=1)) if len(N) > 1 else 0.0
    hetero = var / (mn * (1.0 - mn / n_int)) if 0 < mn < n_int else float("nan")
    return {"Mn": mn, "pdi": pdi, "var": var, "H": hetero}


def ideal(n_int, pr):
    mn = n_int * pr
    return {"Mn": mn, "pdi": 1.0 + (1.0 - pr) / mn, "var": n_int * pr * (1.0 - pr)}


def height_stats(c):
    good = c["hcnt"] > 0
    h_mean = float(c["hsum"][good].sum() / c["hcnt"][good].sum()) if good.any() else 0.0
    ends = ~np.isnan(c["h_end"])
    stretch = float(np.mean(c["h_end"][ends] / c["N"][ends])) if ends.any() else 0.0
    return {"h_mean": h_mean, "h_end": float(np.nanmean(c["h_end"])), "stretch": stretch}


def bootstrap(chains, n_int, pr, B, rng):
    """Standard errors of the chain and height statistics over resamples of the chains."""
    keys = ("Mn", "pdi", "H", "h_mean", "h_end", "stretch")
    draws = {k: [] for k in keys}
    m = len(chains["N"])
    for _ in range(B):
        pick = rng.integers(0, m, m)
        sub = {k: chains[k][pick] for k in ("N", "hsum", "hcnt", "h_end")}
        s = chain_stats(sub["N"], n_int, pr)
        s.update(height_stats(sub))
        for k in keys:
            draws[k].append(s[k])
    return {k: float(np.nanstd(v, ddof=1)) for k, v in draws.items()}


def pool(parts):
    return {k: np.concatenate([p[k] for p in parts]) for k in ("N", "hsum", "hcnt", "h_end", "h")}


def profile(h, box, hmax, bins):
    edges = np.linspace(0.0, hmax, bins + 1)
    counts, _ = np.histogram(h, edges)
    return 0.5 * (edges[1:] + edges[:-1]), counts / (box[0] * box[1] * np.diff(edges))


def analyse_condition(out, sigma, pr, steps, tau, B, rng):
    runs = sorted(glob.glob(os.path.join(out, f"s{sigma}-pr{pr}-seed*")))
    runs = [r for r in runs if os.path.isdir(r)]
    if not runs:
        return None
    parts, seeds = [], []
    for r in runs:
        seed = r.rsplit("seed", 1)[1]
        face = face_of(os.path.join(out, f"flat-s{sigma}-seed{seed}.data"))
        c = frame_chains(os.path.join(r, "traj.h5md"), -1, face)
        if c["step"] != steps:
            sys.exit(f"{r}: the last frame is step {c['step']}, expected {steps}")
        parts.append(c)
        seeds.append(seed)
    n_int = steps // tau
    sigma, pr = float(sigma), float(pr)
    ch = pool(parts)
    s = chain_stats(ch["N"], n_int, pr)
    s.update(height_stats(ch))
    s["h95"] = float(np.percentile(ch["h"], 95.0)) if len(ch["h"]) else 0.0
    s["se"] = bootstrap(ch, n_int, pr, B, rng)
    s.update({"sigma": sigma, "pr": pr, "intervals": n_int, "seeds": len(seeds),
              "chains": int(len(ch["N"])), "uninitiated": int((ch["N"] == 0).sum()),
              "ideal": ideal(n_int, pr), "beads": int(len(ch["h"])),
              "histogram": {int(k): int(v) for k, v in zip(*np.unique(ch["N"],
                                                                      return_counts=True))}})
    s["_N"], s["_h"], s["_box"], s["_runs"] = ch["N"], ch["h"], parts[0]["box"], runs
    return s


def equal_mn(out, res, sigmas, prs, tau, B, rng):
    """At each sigma, the fastest rate's chains at the frame whose Mn is nearest the slowest
    rate's final Mn."""
    lo, hi = min(prs), max(prs)
    rows = []
    for sigma in sigmas:
        slow, fast = res.get((sigma, lo)), res.get((sigma, hi))
        if slow is None or fast is None:
            continue
        target = slow["Mn"]
        steps = n_frames(os.path.join(fast["_runs"][0], "traj.h5md"))
        best = None
        for k, st in enumerate(steps):
            parts = []
            for r in fast["_runs"]:
                seed = r.rsplit("seed", 1)[1]
                face = face_of(os.path.join(out, f"flat-s{sigma}-seed{seed}.data"))
                parts.append(frame_chains(os.path.join(r, "traj.h5md"), k, face))
            ch = pool(parts)
            mn = float(ch["N"].mean())
            if best is None or abs(mn - target) < abs(best[0] - target):
                best = (mn, int(st), ch)
        mn, st, ch = best
        n_int = st // tau
        s = chain_stats(ch["N"], n_int, hi)
        s["se"] = bootstrap(ch, n_int, hi, B, rng)
        s.update({"sigma": sigma, "pr": hi, "intervals": n_int, "ideal": ideal(n_int, hi)})
        rows.append({"sigma": sigma, "slow": {k: slow[k] for k in ("pr", "intervals", "Mn",
                                                                     "pdi", "H", "se", "ideal")},
                     "fast": s})
    return rows


def fmt(v, e, d=3):
    return f"{v:.{d}f} +- {e:.{d}f}"


def table(res, eq):
    lines = ["| sigma | Pr | seeds | chains (N = 0) | Mn | Mn ideal (n Pr) | Mw/Mn | Mw/Mn ideal "
             "| H | <h> | h95 | <h_end> | <h_end / N> |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (sigma, pr), s in sorted(res.items()):
        e = s["se"]
        lines.append(
            f"| {sigma} | {pr} | {s['seeds']} | {s['chains']} ({s['uninitiated']}) | "
            f"{fmt(s['Mn'], e['Mn'], 2)} | {s['ideal']['Mn']:.1f} | {fmt(s['pdi'], e['pdi'])} | "
            f"{s['ideal']['pdi']:.3f} | {fmt(s['H'], e['H'], 2)} | {fmt(s['h_mean'], e['h_mean'], 2)}"
            f" | {s['h95']:.2f} | {fmt(s['h_end'], e['h_end'], 2)} | "
            f"{fmt(s['stretch'], e['stretch'], 3)} |")
    if eq:
        lines += ["", "At equal Mn (the fast rate's frame nearest the slow rate's final Mn):", "",
                  "| sigma | Pr | intervals | Mn | Mw/Mn | Mw/Mn ideal | H |",
                  "|---|---|---|---|---|---|---|"]
        for row in eq:
            for s in (row["slow"], row["fast"]):
                e = s["se"]
                lines.append(f"| {row['sigma']} | {s['pr']} | {s['intervals']} | "
                             f"{fmt(s['Mn'], e['Mn'], 2)} | {fmt(s['pdi'], e['pdi'])} | "
                             f"{s['ideal']['pdi']:.3f} | {fmt(s['H'], e['H'], 2)} |")
    return "\n".join(lines) + "\n"


def figure(res, path, hmax):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = sorted(res)
    fig, ax = plt.subplots(2, len(keys), figsize=(3.6 * len(keys), 6.6), squeeze=False)
    for col, key in enumerate(keys):
        s = res[key]
        mid, rho = profile(s["_h"], s["_box"], hmax, 40)
        rho = rho / s["seeds"]
        a = ax[0][col]
        a.plot(mid, rho, "g-")
        a.axvline(s["h_mean"], color="k", ls="--", lw=0.8, label=f"<h> = {s['h_mean']:.2f}")
        a.axvline(s["h95"], color="gray", ls=":", lw=0.8, label=f"h95 = {s['h95']:.2f}")
        a.set_title(f"sigma = {key[0]}, Pr = {key[1]}")
        a.set_xlabel("height above the grafting plane")
        a.set_ylabel("polymer bead density")
        a.legend(fontsize=8)
        b = ax[1][col]
        n_int, pr = s["intervals"], s["pr"]
        N = s["_N"]
        k = np.arange(0, n_int + 1)
        logp = np.array([math.lgamma(n_int + 1) - math.lgamma(j + 1) - math.lgamma(n_int - j + 1)
                         for j in k]) + k * math.log(pr) + (n_int - k) * math.log(1 - pr)
        binom = np.exp(logp)
        counts = np.bincount(N, minlength=n_int + 1)[:n_int + 1] / len(N)
        lo = max(0, int(N.min()) - 5)
        hi = min(n_int, int(N.max()) + 5)
        b.bar(k[lo:hi + 1], counts[lo:hi + 1], color="tab:green", alpha=0.6,
              label=f"{s['chains']} chains")
        b.plot(k[lo:hi + 1], binom[lo:hi + 1], "k.-", ms=3, lw=0.8,
               label=f"B({n_int}, {pr})")
        b.set_xlabel("N (monomers per chain)")
        b.set_ylabel("fraction of chains")
        b.set_title(f"Mn {s['Mn']:.1f}, Mw/Mn {s['pdi']:.3f}, H {s['H']:.2f}", fontsize=9)
        b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=5000)
    ap.add_argument("--interval", type=int, default=50, help="tau in steps")
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--hmax", type=float, default=0.0,
                    help="the profiles' largest height (default 1.3 times the largest h95 + 1)")
    a = ap.parse_args()
    rng = np.random.default_rng(12345)
    names = [os.path.basename(p) for p in glob.glob(os.path.join(a.out, "s*-pr*-seed*"))]
    pairs = sorted({(m.group(1), m.group(2)) for m in
                    (re.match(r"s([0-9.]+)-pr([0-9.]+)-seed\d+$", n) for n in names) if m})
    res = {}
    for sg, p in pairs:
        s = analyse_condition(a.out, sg, p, a.steps, a.interval, a.boot, rng)
        if s is not None:
            res[(float(sg), float(p))] = s
    if not res:
        sys.exit(f"{a.out}: no runs s<sigma>-pr<Pr>-seed<k>")
    sigmas = sorted({k[0] for k in res})
    prs = sorted({k[1] for k in res})
    eq = equal_mn(a.out, res, sigmas, prs, a.interval, a.boot, rng) if len(prs) > 1 else []
    text = table(res, eq)
    print(text)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text)
    clean = [{k: v for k, v in s.items() if not k.startswith("_")} for s in res.values()]
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump({"conditions": clean, "equal_mn": eq}, f, indent=1)
    hmax = a.hmax if a.hmax > 0 else 1.3 * max(s["h95"] for s in res.values()) + 1.0
    figure(res, os.path.join(a.out, "sip-flat.png"), hmax)
    print(f"{a.out}/sip-flat.png, {a.out}/table.md, {a.out}/summary.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
