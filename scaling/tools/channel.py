#!/usr/bin/python3
"""Plane channel flows between walls (profiles.h5 of Vesica runs with walls on the profile
axis: configs/channel.cfg, configs/couette.cfg), three analyses:

  steady    Poiseuille between no-slip walls at 0 and d, driven by a force g per particle
            (mass 1): v(x) = g / (2 nu) (x - x_lo)(x_hi - x) with slip. The mean profile of
            the windows from --skip-time on is fitted by weighted least squares with
            v = a0 + a1 x + a2 x^2 (nu = -g / (2 a2), eta = rho nu) over the bulk: the bins
            farther than --margin (default r_c = 1) from both walls, where a particle has
            its full shell of partners, and whose density is at least 0.8 of the middle's
            (a wall force empties a layer); the slip length at each wall is
            b = v(wall) / |v'(wall)| of the fitted parabola extrapolated to the wall; the
            error bars are the spread of the per-window fits. The density in the bins at
            each wall is reported against the middle's.
  transient the start-up from rest of the same channel against the series of the core
            paper's eq. 10 (transient.py's series, a channel of width d with no-slip walls),
            bin-averaged over each named window's sample times; nu from --nu (the steady
            fit); with --slip b the walls of the series stand b beyond the faces (width
            d + 2 b: a slip length's effective wall). Per window the largest
            |sim - theory| / stderr (the spread over the runs), over all bins and over the
            bulk (--margin from the walls).
  couette   a linear profile between walls moving at u_lo and u_hi (boundary velocities):
            the fitted slope and the slip at each wall, and the largest deviation from the
            line in standard errors. Where the runs wrote the per-bin pressure tensor
            (output.pressure_tensor = "on"), the viscosity from the shear stress: per run
            eta = -P_an / (dv/dn) over the bulk (--margin from the walls), P_an the mean
            component of the wall normal n and the flow a, dv/dn the bulk's fitted slope;
            the mean over the runs and its standard error (--expect-eta: within
            --tolerance of it).

  channel.py steady out/channel/*/profiles.h5 --g 0.055 --png channel.png
  channel.py transient out/transient/*/profiles.h5 --g 0.055 --nu 0.35 --png startup.png
  channel.py couette out/couette/*/profiles.h5 --u-lo -1 --u-hi 1 --png couette.png
"""
import argparse
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transient import sample_times, series  # noqa: E402


def attr_str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def read(path, comp):
    with h5py.File(path, "r") as f:
        axis = "xyz".index(attr_str(f.attrs["axis"]))
        return dict(axis=axis, box=np.array(f.attrs["box"], dtype=float),
                    every=int(f.attrs["every"]), dt=float(f.attrs["dt"]),
                    width=float(f.attrs["bin_width"]), x=np.array(f["bin_centers"]),
                    s0=np.array(f["windows/step_first"]), s1=np.array(f["windows/step_last"]),
                    t0=np.array(f["windows/time_first"]), t1=np.array(f["windows/time_last"]),
                    v=np.array(f["all/velocity"])[:, :, comp],
                    e=np.array(f["all/velocity_stderr"])[:, :, comp],
                    rho=np.array(f["all/density"]),
                    comp=comp,
                    pt=(np.array(f["all/pressure_tensor"]) if "pressure_tensor" in f["all"]
                        else None))


def polyfit(x, v, err, deg):
    """Weighted least squares of a polynomial of degree deg; coefficients low to high."""
    w = 1.0 / np.maximum(err, 1e-12)
    M = np.stack([x ** k for k in range(deg + 1)], axis=1)
    c, *_ = np.linalg.lstsq(M * w[:, None], v * w, rcond=None)
    return c


def parabola_numbers(c, g, d):
    """nu, slip lengths at 0 and d, from v = c0 + c1 x + c2 x^2."""
    nu = -g / (2.0 * c[2])
    v0, vd = c[0], c[0] + c[1] * d + c[2] * d * d
    s0, sd = c[1], c[1] + 2.0 * c[2] * d
    return nu, v0 / abs(s0), vd / abs(sd)


def steady(a, runs):
    blocks, rhos = [], []
    for r in runs:
        keep = r["t0"] >= a.skip_time
        for v, e in zip(r["v"][keep], r["e"][keep]):
            blocks.append((v, e))
        rhos.extend(r["rho"][keep])
    if not blocks:
        sys.exit("no window at or after --skip-time")
    x, d = runs[0]["x"], runs[0]["box"][runs[0]["axis"]]
    rho = np.mean(rhos, axis=0)
    mid = rho[len(rho) // 4: 3 * len(rho) // 4].mean()
    bulk = (x > a.margin) & (x < d - a.margin) & (rho >= 0.8 * mid)
    xb = x[bulk]
    per = np.array([parabola_numbers(polyfit(xb, v[bulk], e[bulk], 2), a.g, d)
                    for v, e in blocks])
    v = np.mean([b[0] for b in blocks], axis=0)
    e = np.std([b[0] for b in blocks], axis=0, ddof=1) / np.sqrt(len(blocks))
    c = polyfit(xb, v[bulk], e[bulk], 2)
    nu, b0, bd = parabola_numbers(c, a.g, d)
    se = per.std(axis=0, ddof=1) / np.sqrt(len(per))
    print(f"bulk fit over x in [{xb.min():.3f}, {xb.max():.3f}] ({bulk.sum()} of {len(x)} bins)")
    eta = mid * nu
    print(f"{len(blocks)} windows of {len(runs)} runs from t = {a.skip_time}")
    print(f"nu = {nu:.4f} +- {se[0]:.4f}, eta = rho nu = {eta:.4f} +- {mid * se[0]:.4f} "
          f"(rho {mid:.4f} in the middle half)")
    print(f"slip length: {b0:.4f} +- {se[1]:.4f} at x = 0, {bd:.4f} +- {se[2]:.4f} at x = {d:g}")
    print(f"density in the bins at the walls: {rho[0]:.3f} and {rho[-1]:.3f} "
          f"({rho[0] / mid:.3f} and {rho[-1] / mid:.3f} of the middle's); next: "
          f"{rho[1]:.3f} and {rho[-2]:.3f}")
    ok = True
    if a.expect_eta is not None:
        dev = abs(eta / a.expect_eta - 1.0)
        print(f"eta / {a.expect_eta} - 1 = {eta / a.expect_eta - 1.0:+.4f} (tolerance {a.tolerance})")
        ok = dev <= a.tolerance
    if a.png:
        plot(a.png, [(x, v, e, np.polyval(c[::-1], x), "steady profile")],
             x, rho, mid, f"eta = {eta:.3f}, slip {b0:.3f} / {bd:.3f}")
    return ok


def transient(a, runs):
    x, d, r0 = runs[0]["x"], runs[0]["box"][runs[0]["axis"]], runs[0]
    worst, curves = 0.0, []
    for k in range(len(r0["t0"])):
        vs = np.array([r["v"][k] for r in runs])
        v = vs.mean(axis=0)
        e = (vs.std(axis=0, ddof=1) / np.sqrt(len(runs)) if len(runs) > 1 else r0["e"][k])
        times = sample_times(r0["s0"][k], r0["s1"][k], r0["every"], r0["dt"])
        sub = (np.arange(16) + 0.5) / 16 - 0.5
        z = x[:, None] + sub[None, :] * r0["width"] - d / 2.0
        width = d + 2.0 * a.slip
        theory = np.mean([series(z, t, a.g, a.nu, width).mean(axis=1) for t in times], axis=0)
        z = np.abs(v - theory) / np.maximum(e, 1e-12)
        bulk = (x > a.margin) & (x < d - a.margin)
        zmax = np.max(z)
        t_mid = 0.5 * (r0["t0"][k] + r0["t1"][k])
        print(f"t = {t_mid:7.3f}: largest |sim - theory| / stderr = {zmax:.2f} (the bulk, "
              f"{a.margin} from the walls: {np.max(z[bulk]):.2f}), mean v {v.mean():.4f} "
              f"(theory {theory.mean():.4f})")
        worst = max(worst, zmax)
        curves.append((x, v, e, theory, f"t = {t_mid:g}"))
    if a.png:
        plot(a.png, curves, None, None, None, f"start-up, nu = {a.nu}, slip {a.slip}")
    return a.expect_max_z is None or worst <= a.expect_max_z


def couette(a, runs):
    blocks = []
    for r in runs:
        keep = r["t0"] >= a.skip_time
        blocks.extend(zip(r["v"][keep], r["e"][keep]))
    x, d = runs[0]["x"], runs[0]["box"][runs[0]["axis"]]
    v = np.mean([b[0] for b in blocks], axis=0)
    e = np.std([b[0] for b in blocks], axis=0, ddof=1) / np.sqrt(len(blocks))
    c = polyfit(x, v, e, 1)
    line = c[0] + c[1] * x
    zmax = np.max(np.abs(v - line) / np.maximum(e, 1e-12))
    ideal = (a.u_hi - a.u_lo) / d
    print(f"{len(blocks)} windows: slope {c[1]:.4f} (no slip: {ideal:.4f}); v at the walls "
          f"{c[0]:.4f} and {c[0] + c[1] * d:.4f} (walls {a.u_lo} and {a.u_hi}); slip lengths "
          f"{(c[0] - a.u_lo) / c[1]:.4f} and {(a.u_hi - c[0] - c[1] * d) / c[1]:.4f}")
    print(f"largest deviation from the line: {zmax:.2f} standard errors")
    ok = a.expect_max_z is None or zmax <= a.expect_max_z
    if all(r["pt"] is not None for r in runs):
        ok = couette_viscosity(a, runs) and ok
    if a.png:
        plot(a.png, [(x, v, e, line, "Couette profile")], None, None, None,
             f"slope {c[1]:.3f} (no slip {ideal:.3f})")
    return ok


# the six components' order in profiles.h5 (xx, yy, zz, xy, xz, yz)
TENSOR_INDEX = {(0, 0): 0, (1, 1): 1, (2, 2): 2, (0, 1): 3, (0, 2): 4, (1, 2): 5}


def couette_viscosity(a, runs):
    etas = []
    for r in runs:
        keep = r["t0"] >= a.skip_time
        x, d = r["x"], r["box"][r["axis"]]
        bulk = (x > a.margin) & (x < d - a.margin)
        k = TENSOR_INDEX[tuple(sorted((r["axis"], r["comp"])))]
        stress = r["pt"][keep][:, bulk, k].mean()
        slope = np.polyfit(x[bulk], r["v"][keep][:, bulk].mean(axis=0), 1)[0]
        etas.append(-stress / slope)
        print(f"  P_{'xyz'[r['axis']]}{'xyz'[r['comp']]} {stress:.4f}, bulk slope {slope:.4f}: "
              f"eta {etas[-1]:.4f}")
    eta = float(np.mean(etas))
    err = float(np.std(etas, ddof=1) / np.sqrt(len(etas))) if len(etas) > 1 else float("nan")
    print(f"viscosity from the shear stress: eta = {eta:.4f} +- {err:.4f} ({len(etas)} runs)")
    if a.expect_eta is None:
        return True
    good = abs(eta - a.expect_eta) <= a.tolerance * a.expect_eta
    print(f"against {a.expect_eta}: {100 * (eta / a.expect_eta - 1):+.1f}% "
          f"({'within' if good else 'outside'} {100 * a.tolerance:.0f}%)")
    return good


def plot(png, curves, x_rho, rho, mid, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = 2 if rho is not None else 1
    fig, axes = plt.subplots(1, n, figsize=(5.5 * n, 4))
    ax = axes[0] if n == 2 else axes
    for x, v, e, fit, label in curves:
        line = ax.errorbar(x, v, yerr=e, fmt="o", ms=3, label=label)
        ax.plot(x, fit, "-", color=line[0].get_color(), lw=1)
    ax.set_xlabel("x (wall to wall)")
    ax.set_ylabel("v along the flow")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    if n == 2:
        axes[1].plot(x_rho, rho, "o-", ms=3)
        axes[1].axhline(mid, color="grey", lw=0.8)
        axes[1].set_xlabel("x")
        axes[1].set_ylabel("density")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(png)), exist_ok=True)
    fig.savefig(png, dpi=120)
    print(f"wrote {png}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["steady", "transient", "couette"])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--g", type=float, default=0.055, help="force per particle")
    ap.add_argument("--nu", type=float, default=None, help="transient: kinematic viscosity")
    ap.add_argument("--skip-time", type=float, default=60.0)
    ap.add_argument("--margin", type=float, default=1.0, help="steady: bulk from the walls")
    ap.add_argument("--component", default="z", help="the flow's velocity component")
    ap.add_argument("--slip", type=float, default=0.0, help="transient: slip length")
    ap.add_argument("--u-lo", type=float, default=0.0)
    ap.add_argument("--u-hi", type=float, default=0.0)
    ap.add_argument("--expect-eta", type=float, default=None)
    ap.add_argument("--tolerance", type=float, default=0.03)
    ap.add_argument("--expect-max-z", type=float, default=None)
    ap.add_argument("--png", default=None)
    a = ap.parse_args()
    runs = [read(p, "xyz".index(a.component)) for p in a.files]
    if a.mode == "transient" and a.nu is None:
        sys.exit("transient: give --nu (the steady fit's)")
    ok = {"steady": steady, "transient": transient, "couette": couette}[a.mode](a, runs)
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
