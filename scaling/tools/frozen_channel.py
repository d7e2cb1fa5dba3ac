#!/usr/bin/python3
"""The frozen-layer channel: plane Poiseuille flow of Backer's fluid between layers of frozen
wall particles (species.[].frozen), the wall recipe of docs/validation.md's channel section
that puts wall particles beyond the channel's faces.

  frozen_channel.py write OUTDIR [--width 6 --layer 1 --side 6 --rho 6 --rho-wall 6
                                  --a-wall 0 --steps 120000 --seed 1]
      writes OUTDIR/channel-frozen.data (a LAMMPS data file: the frozen layers, uniform at
      --rho-wall in [0, layer) and [layer + width, width + 2 layer) along x, and the fluid,
      uniform at --rho over the whole box, the layers included, Maxwell velocities at
      kT = 0.5: without a fluid-wall repulsion (--a-wall 0) this fluid, which has no
      conservative force, fills the layers as it fills the channel, and a uniform random
      placement is its equilibrium; --fluid-channel-only places it between the layers only,
      for a repulsive a_FW that keeps it out) and
      OUTDIR/channel-frozen.cfg (configs/channel.cfg's fluid and force, species F and the
      frozen W, the fluid-wall repulsion a_FW = --a-wall, bounce-back walls at the box's faces
      behind the layers so that nothing leaves; profiles along x in bins of 0.25, per
      species). Run it from OUTDIR: cd OUTDIR && vesica run channel-frozen.cfg
  frozen_channel.py steady PROFILES.h5... [--layer 1 --skip-time 60 --g 0.055 --png F]
      the fluid's profile (the set of all particles leaves the frozen ones out of density and
      velocity: docs/file-formats.md): the parabola fitted to the bulk (the bins farther than
      r_c = 1 from both faces of the channel, x = layer and x = layer + width), its viscosity,
      the slip length at each face (v / |v'| of the parabola at the face: negative where the
      no-slip plane lies inside the fluid), the fluid's velocity and density inside the layers
      and in the bins at the faces against the middle's.
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

CONFIG = """# channel-frozen.cfg: written by scaling/tools/frozen_channel.py (docs/validation.md,
# the frozen-layer channel). Backer's fluid (a = 0, sigma = 4.5, rho = {rho}, kT = 0.5,
# dt = 0.001) between layers of frozen wall particles W ({layer} thick at rho {rho_wall}) in
# [0, {layer}) and [{hi}, {box_x}) along x; bounce-back walls at the box's faces keep the
# fluid that enters a layer from leaving. The channel's faces are x = {layer} and x = {hi}.
input = {{ format = "lammps-data"; file = "channel-frozen.data"; }};
seed = {seed};
species = (
  {{ name = "F"; body_force = [0.0, 0.0, {g}]; }},
  {{ name = "W"; frozen = "on"; }}
);
dpd = {{
  a = {{ F = {{ F = 0.0; W = {a_wall}; }}; W = {{ F = {a_wall}; W = 0.0; }}; }};
  gamma = 20.25;
  kT = 0.5;
}};
boundary = {{ x = {{ kind = "bounce_back"; }}; }};
integrator = {{ dt = 0.001; steps = {steps}; }};
neighbor = {{ skin = 0.3; }};
profiles = {{ axis = "x"; bins = {bins}; every = 10; window = 5000; per_species = "on"; }};
run = {{ temperature_tolerance = 0.0; }};
backend = "auto";
output = {{ dir = "out"; thermo_interval = 1000; checkpoint_interval = 0; checkpoint_keep = 1; }};
"""


def write(a):
    rng = np.random.default_rng(a.seed)
    box = np.array([a.width + 2.0 * a.layer, a.side, a.side])
    hi = a.layer + a.width
    n_wall = int(round(a.rho_wall * a.layer * a.side * a.side))
    fluid_lo, fluid_len = (a.layer, a.width) if a.fluid_channel_only else (0.0, box[0])
    n_fluid = int(round(a.rho * fluid_len * a.side * a.side))
    atoms = []
    for lo in (0.0, hi):
        for _ in range(n_wall):
            atoms.append((2, lo + a.layer * rng.random(), a.side * rng.random(),
                          a.side * rng.random()))
    for _ in range(n_fluid):
        atoms.append((1, fluid_lo + fluid_len * rng.random(), a.side * rng.random(),
                      a.side * rng.random()))
    os.makedirs(a.outdir, exist_ok=True)
    with open(os.path.join(a.outdir, "channel-frozen.data"), "w") as f:
        f.write("frozen-layer channel (scaling/tools/frozen_channel.py)\n\n")
        f.write(f"{len(atoms)} atoms\n2 atom types\n\n")
        for d, name in enumerate("xyz"):
            f.write(f"0.0 {box[d]:.6f} {name}lo {name}hi\n")
        f.write("\nAtoms # full\n\n")
        for k, (t, x, y, z) in enumerate(atoms):
            f.write(f"{k + 1} 1 {t} 0.0 {x:.10f} {y:.10f} {z:.10f}\n")
        f.write("\nVelocities\n\n")
        sd = np.sqrt(0.5)  # kT = 0.5, m = 1
        for k, (t, *_x) in enumerate(atoms):
            v = rng.normal(0.0, sd, 3) if t == 1 else np.zeros(3)
            f.write(f"{k + 1} {v[0]:.8f} {v[1]:.8f} {v[2]:.8f}\n")
    with open(os.path.join(a.outdir, "channel-frozen.cfg"), "w") as f:
        f.write(CONFIG.format(rho=a.rho, layer=a.layer, rho_wall=a.rho_wall, hi=hi,
                              box_x=box[0], seed=a.seed, g=a.g, a_wall=a.a_wall,
                              steps=a.steps, bins=int(round(box[0] / 0.25))))
    print(f"{n_fluid} fluid and {2 * n_wall} frozen particles in a "
          f"{box[0]:g} x {box[1]:g} x {box[2]:g} box")


def wall_density(files, skip_time):
    """The frozen species' mean density per bin (its own profile set), or None."""
    import h5py
    rows = []
    for path in files:
        with h5py.File(path, "r") as f:
            if "W" not in f:
                return None
            keep = np.array(f["windows/time_first"]) >= skip_time
            rows.extend(np.array(f["W/density"])[keep])
    return np.mean(rows, axis=0) if rows else None


def steady(a):
    sys.path.insert(0, HERE)
    from channel import parabola_numbers, polyfit, read  # noqa: E402
    runs = [read(p, 2) for p in a.files]
    blocks, rhos = [], []
    for r in runs:
        keep = r["t0"] >= a.skip_time
        blocks.extend(r["v"][keep])
        rhos.extend(r["rho"][keep])
    if len(blocks) < 2:
        sys.exit("fewer than two windows at or after --skip-time")
    x, box = runs[0]["x"], runs[0]["box"][runs[0]["axis"]]
    lo, hi = a.layer, box - a.layer
    width = hi - lo
    v_all = np.array(blocks)
    v = v_all.mean(axis=0)
    e = v_all.std(axis=0, ddof=1) / np.sqrt(len(blocks))
    rho = np.mean(rhos, axis=0)
    bulk = (x > lo + a.margin) & (x < hi - a.margin)
    mid = rho[(x > lo + width / 4) & (x < hi - width / 4)].mean()
    xs = x[bulk] - lo
    per = np.array([parabola_numbers(polyfit(xs, b[bulk], e[bulk], 2), a.g, width)
                    for b in blocks])
    c = polyfit(xs, v[bulk], e[bulk], 2)
    nu, b_lo, b_hi = parabola_numbers(c, a.g, width)
    se = per.std(axis=0, ddof=1) / np.sqrt(len(per))
    print(f"{len(blocks)} windows of {len(runs)} runs from t = {a.skip_time}; channel faces "
          f"at x = {lo:g} and {hi:g}, bulk fit over {bulk.sum()} of {len(x)} bins")
    print(f"nu = {nu:.4f} +- {se[0]:.4f}, eta = rho nu = {mid * nu:.4f} +- {mid * se[0]:.4f} "
          f"(fluid rho {mid:.4f} in the middle half)")
    print(f"slip length: {b_lo:.4f} +- {se[1]:.4f} at x = {lo:g}, {b_hi:.4f} +- {se[2]:.4f} "
          f"at x = {hi:g}")
    inside = (x < lo) | (x > hi)
    vmax = v[bulk].max()
    print(f"fluid in the layers: density {rho[inside].mean():.3f} "
          f"({rho[inside].mean() / mid:.3f} of the middle's), mean velocity "
          f"{v[inside].mean():.4f} ({v[inside].mean() / vmax:.3f} of the bulk's largest)")
    at_lo, at_hi = np.argmin(np.abs(x - (lo + 0.125))), np.argmin(np.abs(x - (hi - 0.125)))
    print(f"fluid density in the bins at the faces: {rho[at_lo]:.3f} and {rho[at_hi]:.3f} "
          f"({rho[at_lo] / mid:.3f} and {rho[at_hi] / mid:.3f} of the middle's)")
    print("x, fluid density, v_z, stderr:")
    for k in range(len(x)):
        print(f"  {x[k]:.3f} {rho[k]:.3f} {v[k]:+.5f} {e[k]:.5f}")
    if a.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        xx = np.linspace(lo, hi, 200)
        ax[0].errorbar(x, v, yerr=e, fmt="o", ms=3, label="fluid v_z")
        ax[0].plot(xx, np.polyval(c[::-1], xx - lo), label="bulk parabola")
        for xf in (lo, hi):
            ax[0].axvline(xf, color="grey", ls=":")
            ax[1].axvline(xf, color="grey", ls=":")
        ax[0].set_xlabel("x")
        ax[0].set_ylabel("v_z")
        ax[0].set_title(f"nu = {nu:.3f}, slip {b_lo:.2f} / {b_hi:.2f}")
        ax[0].legend()
        ax[1].plot(x, rho, "o-", ms=3, label="fluid")
        wall = wall_density(a.files, a.skip_time)
        if wall is not None:
            ax[1].plot(x, wall, "s--", ms=3, label="frozen (species W)")
        ax[1].set_ylim(0.0, 1.25 * max(rho.max(), 0 if wall is None else wall.max()))
        ax[1].set_xlabel("x")
        ax[1].set_ylabel("density")
        ax[1].legend()
        fig.tight_layout()
        fig.savefig(a.png, dpi=120)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    w = sub.add_parser("write")
    w.add_argument("outdir")
    w.add_argument("--width", type=float, default=6.0, help="the channel between the layers")
    w.add_argument("--layer", type=float, default=1.0, help="each frozen layer's thickness")
    w.add_argument("--side", type=float, default=6.0, help="the box along y and z")
    w.add_argument("--rho", type=float, default=6.0)
    w.add_argument("--rho-wall", type=float, default=6.0)
    w.add_argument("--a-wall", type=float, default=0.0, help="a_FW, the fluid-wall repulsion")
    w.add_argument("--g", type=float, default=0.055)
    w.add_argument("--steps", type=int, default=120000)
    w.add_argument("--seed", type=int, default=1)
    w.add_argument("--fluid-channel-only", action="store_true",
                   help="place the fluid between the layers only")
    s = sub.add_parser("steady")
    s.add_argument("files", nargs="+")
    s.add_argument("--layer", type=float, default=1.0)
    s.add_argument("--g", type=float, default=0.055)
    s.add_argument("--skip-time", type=float, default=60.0)
    s.add_argument("--margin", type=float, default=1.0)
    s.add_argument("--png", default=None)
    a = ap.parse_args()
    if a.mode == "write":
        write(a)
        return 0
    return steady(a)


if __name__ == "__main__":
    sys.exit(main())
