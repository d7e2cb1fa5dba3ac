#!/usr/bin/env python3
"""Bond lengths and bond angles of a polyethylene run against the force field's Boltzmann
distributions (configs/polyethylene.cfg, docs/examples.md, docs/validation.md).

Usage: pe_analysis.py RUN_DIR --kT KT [--kb K --b0 B --ka K --theta0 DEG] [--skip PS]
                      [--blocks N] [--png FILE] [--json FILE]

Reads RUN_DIR/traj.h5md (positions, ids, the box, /connectivity/bonds and /angles) and takes
every bond length and every bond angle of the frames at t >= --skip (minimum image: a bond is
far shorter than half the box). The references are the Boltzmann distributions of the bonded
terms alone, with the Jacobians of the coordinates:
    P(r)     ~ r^2 exp(-k_b (r - b)^2 / (2 kT))            (spherical shell)
    P(theta) ~ sin(theta) exp(-k_a (theta - theta0)^2 / (2 kT))
normalised by quadrature; their means and variances come from the same quadrature. Dihedrals: the
trans fraction (|phi| > 120 degrees) against e^(-k_phi (1 + cos 3 phi)/kT). The run's
means and variances get standard errors from the scatter over --blocks blocks of consecutive
frames (blocks of a few ps are far longer than the correlation time of a bond or an angle).
--png draws both histograms over the reference curves.
"""
import argparse
import json
import sys

import h5py
import numpy as np


# numpy 2 renamed trapz (the device's numpy has only trapezoid)
trapezoid = getattr(np, "trapezoid", None) or np.trapz
def load(path, skip):
    with h5py.File(path, "r") as f:
        p = f["particles/all"]
        x = p["position/value"][()]
        t = p["position/time"][()] if "time" in p["position"] else None
        edges = p["box/edges"]
        box = edges["value"][()] if isinstance(edges, h5py.Group) else edges[()]
        ids = p["id"][()]
        bonds = f["connectivity/bonds"][()]
        angles = f["connectivity/angles"][()]
        dihedrals = f["connectivity/dihedrals"][()] if "dihedrals" in f["connectivity"] \
            else np.zeros((0, 4), int)
    box = np.asarray(box, dtype=float)
    if box.ndim == 3:
        box = np.array([np.diag(b) for b in box])
    elif box.ndim == 2 and box.shape == (3, 3):
        box = np.tile(np.diag(box), (len(x), 1))
    elif box.ndim == 1:
        box = np.tile(box, (len(x), 1))
    if ids.ndim == 2:           # per-frame ids: the rows keep one order in Vesica's files
        ids = ids[0]
    order = np.argsort(ids)
    x = x[:, order]
    row = lambda a: np.searchsorted(ids[order], a)  # noqa: E731  ids -> rows
    keep = np.ones(len(x), bool) if t is None else t >= skip - 1e-9
    return dict(x=x[keep], box=box[keep], bonds=row(bonds), angles=row(angles),
                dihedrals=row(dihedrals), t=None if t is None else t[keep])


def bonded_coordinates(x, box, bonds, angles):
    """Bond lengths (frames, bonds) and angles in radians (frames, angles)."""
    d = x[:, bonds[:, 1]] - x[:, bonds[:, 0]]
    d -= box[:, None, :] * np.round(d / box[:, None, :])
    r = np.linalg.norm(d, axis=2)
    u = x[:, angles[:, 0]] - x[:, angles[:, 1]]
    v = x[:, angles[:, 2]] - x[:, angles[:, 1]]
    u -= box[:, None, :] * np.round(u / box[:, None, :])
    v -= box[:, None, :] * np.round(v / box[:, None, :])
    c = (u * v).sum(axis=2) / np.linalg.norm(u, axis=2) / np.linalg.norm(v, axis=2)
    return r, np.arccos(np.clip(c, -1.0, 1.0))


def dihedral_angles(x, box, dihedrals):
    """IUPAC dihedrals in radians (frames, dihedrals), trans = +-pi (Blondel & Karplus)."""
    def bond(i, j):
        d = x[:, dihedrals[:, j]] - x[:, dihedrals[:, i]]
        return d - box[:, None, :] * np.round(d / box[:, None, :])
    b1, b2, b3 = bond(0, 1), bond(1, 2), bond(2, 3)
    n1, n2 = np.cross(b1, b2), np.cross(b2, b3)
    return np.arctan2(np.linalg.norm(b2, axis=2) * (b1 * n2).sum(axis=2), (n1 * n2).sum(axis=2))


def reference(kind, k, q0, kT):
    """Grid, normalised density, mean and variance of the bonded term's Boltzmann law."""
    s = np.sqrt(kT / k)
    if kind == "bond":
        q = np.linspace(max(0.0, q0 - 12.0 * s), q0 + 12.0 * s, 20001)
        w = q * q * np.exp(-k * (q - q0) ** 2 / (2.0 * kT))
    else:
        q = np.linspace(max(0.0, q0 - 12.0 * s), min(np.pi, q0 + 12.0 * s), 20001)
        w = np.sin(q) * np.exp(-k * (q - q0) ** 2 / (2.0 * kT))
    w /= trapezoid(w, q)
    mean = trapezoid(w * q, q)
    var = trapezoid(w * (q - mean) ** 2, q)
    return q, w, mean, var


def compare(name, samples, kind, k, q0, kT, blocks, scale=1.0):
    """Mean and variance of samples (frames, items) against the reference, with block errors.
    Returns a dict of the numbers (in the units of q times scale)."""
    q, w, mean, var = reference(kind, k, q0, kT)
    nb = min(blocks, samples.shape[0])
    per = samples.shape[0] // nb
    blk = samples[:nb * per].reshape(nb, -1)
    means, variances = blk.mean(axis=1), blk.var(axis=1, ddof=1)
    m, m_err = means.mean(), means.std(ddof=1) / np.sqrt(nb)
    v, v_err = variances.mean(), variances.std(ddof=1) / np.sqrt(nb)
    out = dict(n=int(samples.size), frames=int(samples.shape[0]), blocks=nb,
               mean=m * scale, mean_err=m_err * scale, mean_ref=mean * scale,
               sd=np.sqrt(v) * scale, sd_ref=np.sqrt(var) * scale,
               var_ratio=v / var, var_ratio_err=v_err / var,
               mean_dev_sigma=(m - mean) / m_err, var_dev_sigma=(v - var) / v_err,
               mean_shift_over_sd=(m - mean) / np.sqrt(var))
    print("%s: %d samples in %d frames; mean %.6g +- %.2g (Boltzmann %.6g; %+.1f standard "
          "errors, %+.3f sd), sd %.5g (Boltzmann %.5g), variance ratio %.4f +- %.4f"
          % (name, out["n"], out["frames"], out["mean"], out["mean_err"], out["mean_ref"],
             out["mean_dev_sigma"], out["mean_shift_over_sd"], out["sd"], out["sd_ref"],
             out["var_ratio"], out["var_ratio_err"]))
    return out


def plot(png, r, theta, phi, a):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(14, 4))
    q, w, _, _ = reference("bond", a.kb, a.b0, a.kT)
    ax[0].hist(r.ravel(), bins=80, density=True, color="#9ecae1", label="Vesica")
    ax[0].plot(q, w, "k-", lw=1.2, label=r"$r^2 e^{-k_b (r-b)^2/2kT}$")
    ax[0].set_xlim(a.b0 - 5 * np.sqrt(a.kT / a.kb), a.b0 + 5 * np.sqrt(a.kT / a.kb))
    ax[0].set_xlabel("bond length r (nm)")
    ax[0].set_ylabel("probability density")
    ax[0].legend(fontsize=8)
    th0 = np.radians(a.theta0)
    q, w, _, _ = reference("angle", a.ka, th0, a.kT)
    ax[1].hist(np.degrees(theta.ravel()), bins=80, density=True, color="#fdae6b",
               label="Vesica")
    ax[1].plot(np.degrees(q), w * np.pi / 180.0, "k-", lw=1.2,
               label=r"$\sin\theta\, e^{-k_a (\theta-\theta_0)^2/2kT}$")
    ax[1].set_xlim(a.theta0 - 5 * np.degrees(np.sqrt(a.kT / a.ka)),
                   a.theta0 + 5 * np.degrees(np.sqrt(a.kT / a.ka)))
    ax[1].set_xlabel("bond angle (degrees)")
    ax[1].legend(fontsize=8)
    q = np.linspace(-np.pi, np.pi, 2001)
    w = np.exp(-a.kphi * (1.0 + np.cos(3.0 * q)) / a.kT)
    w /= trapezoid(w, q)
    ax[2].hist(np.degrees(phi.ravel()), bins=72, range=(-180, 180), density=True,
               color="#a1d99b", label="Vesica")
    ax[2].plot(np.degrees(q), w * np.pi / 180.0, "k-", lw=1.2,
               label=r"$e^{-k_\phi (1 + \cos 3\phi)/kT}$")
    ax[2].set_xlim(-180, 180)
    ax[2].set_xlabel("dihedral (degrees, trans = 180)")
    ax[2].legend(fontsize=8)
    fig.suptitle("united-atom polyethylene (Xu et al. / Dreiding), kT = %.4g kJ/mol: histograms "
                 "the full model, lines the bonded terms alone (the gap is the 1-4 LJ)" % a.kT)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("--kT", type=float, required=True, help="kJ/mol")
    ap.add_argument("--kb", type=float, default=292880.0)
    ap.add_argument("--b0", type=float, default=0.153)
    ap.add_argument("--ka", type=float, default=418.40)
    ap.add_argument("--theta0", type=float, default=109.471)
    ap.add_argument("--kphi", type=float, default=4.184)
    ap.add_argument("--skip", type=float, default=0.0, help="ps")
    ap.add_argument("--blocks", type=int, default=10)
    ap.add_argument("--png")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    d = load(a.run + "/traj.h5md", a.skip)
    r, theta = bonded_coordinates(d["x"], d["box"], d["bonds"], d["angles"])
    phi = dihedral_angles(d["x"], d["box"], d["dihedrals"])
    q = np.linspace(-np.pi, np.pi, 200001)
    w = np.exp(-a.kphi * (1.0 + np.cos(3.0 * q)) / a.kT)
    trans = float((np.abs(phi) > 2.0 * np.pi / 3.0).mean())
    trans_ref = float(trapezoid(w * (np.abs(q) > 2.0 * np.pi / 3.0), q) / trapezoid(w, q))
    print("dihedrals: %d samples; trans fraction (|phi| > 120) %.4f (Boltzmann of the "
          "dihedral term alone %.4f)" % (phi.size, trans, trans_ref))
    res = dict(dihedral=dict(n=int(phi.size), trans=trans, trans_ref=trans_ref),
               bond=compare("bond length (nm)", r, "bond", a.kb, a.b0, a.kT, a.blocks),
               angle=compare("bond angle (degrees)", theta, "angle", a.ka,
                             np.radians(a.theta0), a.kT, a.blocks, scale=180.0 / np.pi))
    if a.png:
        plot(a.png, r, theta, phi, a)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return res


if __name__ == "__main__":
    main()
    sys.exit(0)
