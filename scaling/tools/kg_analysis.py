#!/usr/bin/env python3
"""Bond lengths, chain sizes and pressure of a Kremer-Grest melt against Kremer & Grest (1990).

Usage: kg_analysis.py RUN_DIR [--skip T] [--png FILE] [--json FILE] [--check]

Reads RUN_DIR/traj.h5md (positions, image counts, ids, the box and /connectivity/bonds) and
RUN_DIR/thermo.csv, unwraps the positions with the image counts, and per frame computes every
bond length, the squared end-to-end distance R^2 and squared radius of gyration R_g^2 of each
linear chain (a chain: the beads of one /particles/all/molecule value, in id order; its ends are
the beads with one bond) and the mean-square internal distances <R^2(n)> between beads n bonds
apart along a chain. Averages are over the frames (and thermo rows) at t >= --skip.

Error bars: the standard error of the mean of the per-frame (chain-averaged) series, from its
integrated autocorrelation time tau_int (Sokal's automatic window), and, as a check, from the
scatter of block means with blocks of at least 4 tau_int; the larger of the two is quoted. A
quantity is compared with Kremer & Grest's Table I (K. Kremer and G. S. Grest, J. Chem. Phys.
92, 5057 (1990)) where the chain length N is one of theirs: <R^2>, <R_G^2> and the pressure P.
The table is read here as transcribed in ESPResSo's samples/kremerGrest.tcl (espressomd/espresso,
the lists re2, rg2 and pKG against MPC = N, with the paper's systems N_P x MPC in box_l); the
paper gives no uncertainty with them (their runs: N_P chains, 3000 - 120000 tau).

--check exits 1 when a compared quantity differs from the table by more than --tol-sigma
combined standard errors, where the table's error is taken as --ref-rel (relative) of its value
(its own sampling error, estimated in docs/examples.md) plus half its last printed digit, or
when a bond reached R0. --png draws the bond-length histogram, <R^2>/(N - 1) and <R_g^2> against
time, and <R^2(n)>/n against n.
"""
import argparse
import json
import os
import sys

import h5py
import numpy as np

# Kremer & Grest 1990, Table I (via ESPResSo samples/kremerGrest.tcl): N -> list of
# (chains, box, <R^2>, <R_G^2>, P) of each of their systems of that N.
KG1990_TEXT = """
  5   50  6.65   5.2   0.92  5.55
 10   25  6.65  13.1   2.2   5.20
 20   30  8.90  29.7   5.0   5.04
 25   32  9.80  37.8   6.3   4.97
 30   20  8.90  46.7   7.7   4.99
 50   16  9.80  82.7  13.3   4.93
 75   20 12.08 118.3  20.1   4.90
100   20 13.30 163.8  27.5   4.90
150   20 15.23 263.8  42.5   4.87
200   20 16.76 250.7  46.1   4.88
200  100 28.66 300.3  53.6   4.84
"""
# Kremer & Grest 1990, Table I (via ESPResSo samples/kremerGrest.tcl), one row per system as
# printed there: N, chains, box, <R^2>, <R_G^2>, P. Kept as text: the printed digits give the
# rounding (5.20 is not 5.2).
KG1990 = {}
for _line in KG1990_TEXT.strip().splitlines():
    _f = _line.split()
    KG1990.setdefault(int(_f[0]), []).append(tuple(_f[1:]))
KG_BOND = 0.97   # the mean bond length Kremer and Grest quote (two digits)
R0 = 1.5         # FENE R0: no bond may reach it


def last_digit(v):
    """Half of the last printed digit of a table entry (text): its rounding."""
    d = len(v.split(".")[1]) if "." in v else 0
    return 0.5 * 10.0 ** (-d)


def load(path):
    with h5py.File(path, "r") as f:
        p = f["particles/all"]
        x = p["position/value"][()]
        img = p["image/value"][()]
        t = p["position/time"][()] if "time" in p["position"] else None
        edges = p["box/edges"]
        box = edges["value"][()] if isinstance(edges, h5py.Group) else edges[()]
        ids = p["id"][()]
        mol = p["molecule"][()]
        bonds = f["connectivity/bonds"][()]
    box = np.asarray(box)
    if box.ndim == 3:          # (frames, 3, 3)
        box = np.array([np.diag(b) for b in box])
    elif box.ndim == 2 and box.shape == (3, 3):
        box = np.tile(np.diag(box), (len(x), 1))
    elif box.ndim == 1:
        box = np.tile(box, (len(x), 1))
    unwrapped = x + img * box[:, None, :]
    # Rows by id, so that bonds (pairs of ids) index them directly.
    order = np.argsort(ids)
    if t is None:
        t = np.arange(len(x), dtype=float)
    return dict(x=unwrapped[:, order], ids=ids[order], mol=mol[order], bonds=bonds, time=t,
                box=box[-1])


def chains(d):
    """The rows of every chain (chains x N, in id order) after checking each is linear."""
    deg = np.zeros(len(d["ids"]), dtype=int)
    base = d["ids"][0]
    for a, b in d["bonds"] - base:
        deg[a] += 1
        deg[b] += 1
    rows = []
    for m in np.unique(d["mol"]):
        r = np.nonzero(d["mol"] == m)[0]
        if len(r) < 2 or deg[r[0]] != 1 or deg[r[-1]] != 1 or np.any(deg[r[1:-1]] != 2):
            raise SystemExit("molecule %d is not a linear chain in id order" % m)
        rows.append(r)
    if len(set(len(r) for r in rows)) != 1:
        raise SystemExit("chains of different lengths: %s" % sorted(set(len(r) for r in rows)))
    return np.array(rows), base


def tau_int(a):
    """Integrated autocorrelation time of series a, in samples (Sokal's window c = 5)."""
    a = np.asarray(a, float) - np.mean(a)
    n = len(a)
    if n < 4 or np.var(a) == 0.0:
        return 0.5
    f = np.fft.rfft(a, 2 * n)
    acf = np.fft.irfft(f * np.conj(f))[:n]
    acf /= acf[0]
    tau = 0.5
    for m in range(1, n):
        tau += acf[m]
        if m >= 5.0 * tau:
            break
    return max(tau, 0.5)


def mean_err(a):
    """Mean, quoted standard error, tau_int (samples) and the block count of series a."""
    a = np.asarray(a, float)
    n = len(a)
    tau = tau_int(a)
    sem_tau = np.std(a, ddof=1) * np.sqrt(2.0 * tau / n) if n > 1 else np.nan
    nb = int(min(20, n // max(1, int(np.ceil(4.0 * tau)))))
    sem_blk = np.nan
    if nb >= 3:
        bm = np.array([q.mean() for q in np.array_split(a, nb)])
        sem_blk = bm.std(ddof=1) / np.sqrt(nb)
    return float(a.mean()), float(np.nanmax([sem_tau, sem_blk])), float(tau), nb


def read_thermo(path):
    with open(path) as t:
        head = t.readline().strip().split(",")
        rows = np.array([list(map(float, l.split(","))) for l in t if l.strip()])
    return {h: rows[:, k] for k, h in enumerate(head)}


def analyse(run, skip):
    d = load(os.path.join(run, "traj.h5md"))
    rows, base = chains(d)
    nc, n = rows.shape
    t = d["time"]
    keep = t >= skip
    if keep.sum() < 8:
        raise SystemExit("fewer than eight frames at t >= %g" % skip)
    b = d["bonds"] - base
    blen = np.linalg.norm(d["x"][:, b[:, 0]] - d["x"][:, b[:, 1]], axis=2)     # frames x bonds
    xc = d["x"][:, rows]                                                        # F x C x N x 3
    r2 = np.sum((xc[:, :, -1] - xc[:, :, 0]) ** 2, axis=2)                      # F x C
    rg2 = np.sum((xc - xc.mean(axis=2, keepdims=True)) ** 2, axis=3).mean(axis=2)
    # <R^2(n)> over all pairs n bonds apart, over the kept frames, per frame for the errors.
    rn = np.array([np.sum((xc[keep, :, k:] - xc[keep, :, :-k]) ** 2, axis=3).mean(axis=(1, 2))
                   for k in range(1, n)])                                       # (N-1) x F
    res = {"chains": int(nc), "beads_per_chain": int(n), "box": [float(v) for v in d["box"]],
           "frames": int(len(t)), "frames_averaged": int(keep.sum()),
           "t_first": float(t[0]), "t_last": float(t[-1]), "skip": float(skip),
           "frame_interval": float(t[1] - t[0]) if len(t) > 1 else 0.0,
           "bond_max_all_frames": float(blen.max()), "no_bond_broke": bool(blen.max() < R0)}
    dt_frame = res["frame_interval"]
    series = {"bond_mean": blen[keep].mean(axis=1),
              "bond_rms": np.sqrt((blen[keep] ** 2).mean(axis=1)),
              "R2": r2[keep].mean(axis=1), "R2_over_Nm1": r2[keep].mean(axis=1) / (n - 1),
              "Rg2": rg2[keep].mean(axis=1)}
    for k, s in series.items():
        m, e, tau, nb = mean_err(s)
        res[k] = m
        res[k + "_err"] = e
        res[k + "_tau"] = tau * dt_frame
        res[k + "_blocks"] = nb
    res["R2_over_Rg2"] = res["R2"] / res["Rg2"]
    res["Rn2_over_n"] = [float(rn[k - 1].mean() / k) for k in range(1, n)]
    res["Rn2_over_n_err"] = [mean_err(rn[k - 1])[1] / k for k in range(1, n)]
    th_path = os.path.join(run, "thermo.csv")
    if os.path.exists(th_path):
        th = read_thermo(th_path)
        tk = th["time"] >= skip
        for col, key in (("pressure", "P"), ("temperature", "T")):
            m, e, tau, nb = mean_err(th[col][tk])
            res[key], res[key + "_err"] = m, e
            res[key + "_tau"] = tau * (th["time"][1] - th["time"][0])
    res["_plot"] = dict(t=t, r2n=r2.mean(axis=1) / (n - 1), rg2=rg2.mean(axis=1),
                        blen=blen[keep].ravel())
    return res


def compare(res, ref_rel, tol_sigma):
    """Kremer & Grest's Table I at this N: rows of (quantity, ours, err, theirs, their err, z)."""
    n = res["beads_per_chain"]
    out = []
    for ref in KG1990.get(n, [])[:1]:
        _, _, r2, rg2, p = ref
        for name, key, text in (("<R^2>", "R2", r2), ("<R_G^2>", "Rg2", rg2), ("P", "P", p)):
            if key not in res:
                continue
            val = float(text)
            rerr = ref_rel.get(key, 0.0) * val + last_digit(text)
            err = np.hypot(res[key + "_err"], rerr)
            z = (res[key] - val) / err
            out.append(dict(quantity=name, key=key, vesica=res[key], vesica_err=res[key + "_err"],
                            kg1990=val, kg1990_err=rerr, z=float(z),
                            ok=bool(abs(z) <= tol_sigma)))
    return out


def plot(res, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n, pl = res["beads_per_chain"], res["_plot"]
    fig, (h, r, q) = plt.subplots(1, 3, figsize=(15, 4.2))
    h.hist(pl["blen"], bins=80, density=True, color="tab:blue")
    h.axvline(res["bond_mean"], color="k", ls="--", label="mean %.4f" % res["bond_mean"])
    h.axvline(KG_BOND, color="tab:red", ls=":", label="Kremer & Grest %.2f" % KG_BOND)
    h.set_xlabel(r"bond length $b$ ($\sigma$)")
    h.set_ylabel("probability density")
    h.set_title("FENE + WCA bonds, t >= %g" % res["skip"])
    h.legend()
    r.plot(pl["t"], pl["r2n"], "-", lw=0.8, color="tab:blue", label=r"$\langle R^2\rangle/(N-1)$")
    r.plot(pl["t"], pl["rg2"] / (n - 1) * 6, "-", lw=0.8, color="tab:green",
           label=r"$6\langle R_g^2\rangle/(N-1)$")
    r.axvline(res["skip"], color="gray", ls=":")
    for ref in KG1990.get(n, [])[:1]:
        r2, rg2 = float(ref[2]), float(ref[3])
        r.axhline(r2 / (n - 1), color="tab:red", ls="--",
                  label=r"KG 1990: $\langle R^2\rangle/(N-1)$ = %.3f" % (r2 / (n - 1)))
        r.axhline(6 * rg2 / (n - 1), color="tab:orange", ls="--",
                  label=r"KG 1990: $6\langle R_G^2\rangle/(N-1)$ = %.3f" % (6 * rg2 / (n - 1)))
    r.set_xlabel(r"time ($\tau$)")
    r.set_ylabel(r"$\sigma^2$")
    r.set_title("%d chains of N = %d (chain averages per frame)" % (res["chains"], n))
    r.legend(fontsize=8)
    k = np.arange(1, n)
    q.errorbar(k, res["Rn2_over_n"], yerr=res["Rn2_over_n_err"], fmt="o-", ms=3,
               label=r"Vesica $\langle R^2(n)\rangle/n$, N = %d" % n)
    kn = sorted(m for m in KG1990 if m <= max(2 * n, 50))
    q.plot([m - 1 for m in kn], [float(KG1990[m][0][2]) / (m - 1) for m in kn], "s",
           color="tab:red",
           label=r"KG 1990 Table I: $\langle R^2\rangle/(N-1)$ of chains of N")
    q.set_xscale("log")
    q.set_xlabel(r"$n$ (bonds apart)")
    q.set_ylabel(r"$\langle R^2(n)\rangle/n$ ($\sigma^2$)")
    q.set_title("internal distances, t >= %g" % res["skip"])
    q.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("--skip", type=float, default=0.0, help="time units left out of averages")
    ap.add_argument("--png")
    ap.add_argument("--json")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--tol-sigma", type=float, default=3.0)
    ap.add_argument("--ref-rel", default="R2:0.02,Rg2:0.02,P:0.005",
                    help="the table's relative sampling error per quantity")
    a = ap.parse_args()
    ref_rel = {k: float(v) for k, v in (s.split(":") for s in a.ref_rel.split(","))}
    res = analyse(a.run, a.skip)
    n = res["beads_per_chain"]
    res["kg1990"] = compare(res, ref_rel, a.tol_sigma)
    print("%d chains of %d beads, frames %d (t = %g .. %g), averaged over t >= %g (%d frames)" %
          (res["chains"], n, res["frames"], res["t_first"], res["t_last"], a.skip,
           res["frames_averaged"]))
    print("bond length: mean %.5f +- %.5f, rms %.5f, longest in any frame %.4f (FENE R0 = %g)" %
          (res["bond_mean"], res["bond_mean_err"], res["bond_rms"], res["bond_max_all_frames"],
           R0))
    print("<R^2>/(N-1): %.4f +- %.4f (tau_int %.0f, %d blocks)" %
          (res["R2_over_Nm1"], res["R2_over_Nm1_err"], res["R2_over_Nm1_tau"],
           res["R2_over_Nm1_blocks"]))
    print("<R^2> %.3f +- %.3f, <R_g^2> %.4f +- %.4f (tau_int %.0f), <R^2>/<R_g^2> %.3f" %
          (res["R2"], res["R2_err"], res["Rg2"], res["Rg2_err"], res["Rg2_tau"],
           res["R2_over_Rg2"]))
    if "P" in res:
        print("P %.4f +- %.4f, T %.5f +- %.5f" % (res["P"], res["P_err"], res["T"], res["T_err"]))
    print("<R^2(n)>/n: " + " ".join("%d:%.3f" % (k + 1, v)
                                    for k, v in enumerate(res["Rn2_over_n"])))
    for c in res["kg1990"]:
        print("KG 1990 N = %d %-8s Vesica %.4f +- %.4f   KG %.4g +- %.3f   z = %+.2f %s" %
              (n, c["quantity"], c["vesica"], c["vesica_err"], c["kg1990"], c["kg1990_err"],
               c["z"], "ok" if c["ok"] else "DIFFERS"))
    if not res["kg1990"]:
        print("Kremer & Grest's Table I has no N = %d" % n)
    pl = res.pop("_plot")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    if a.png:
        res["_plot"] = pl
        plot(res, a.png)
    if a.check:
        bad = [c["quantity"] for c in res["kg1990"] if not c["ok"]]
        if not res["no_bond_broke"]:
            bad.append("a bond reached R0")
        if not res["kg1990"]:
            bad.append("no Kremer-Grest reference at N = %d" % n)
        if bad:
            print("FAIL: " + ", ".join(bad))
            return 1
        print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
