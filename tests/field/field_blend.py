#!/usr/bin/env python3
"""The symmetric homopolymer blend A_N + B_N with the particle-field term against
Flory-Huggins theory (docs/validation.md, "Particle-field MD-SCF"):

  field_blend.py VESICA OUTDIR [--chiN 1.5,3,4] [--N 10] [--K 8] [--box 16,6,6]
                 [--steps 20000] [--start slab|mixed[,...]] [--force energy|gradient]
                 [--gamma 1] [--dt 0.02] [--ranks 1] [--check] [--plot FILE]

Each run: chains of N beads (harmonic bonds of stiffness K, r0 = 0, so the bond's mean square
length is 3 kT / K), density 3, no pair conservative force (dpd.a = 0; the DPD thermostat,
gamma, kT = 1), field spacing 1, kappa = 0.1, updated every step, chi_AB = chiN / N. The
system starts from an A slab beside a B slab (slab: two flat interfaces normal to x) or from
randomly placed chains (mixed); --start takes one per chi N (the last repeats). From
the frames of the second half: the profile of phi_A = n_A / (n_A + n_B) along x in bins of
width 1, each frame's shifted so that its A-rich slab is centred (the first Fourier mode's
phase), averaged; the compositions of the two phases are the means over the central quarter
of each slab. Flory-Huggins, computed here independently: the free energy of mixing per site
f = phi ln phi / N + (1 - phi) ln(1 - phi) / N + chi phi (1 - phi); critical point chi N = 2;
for chi N > 2 the symmetric binodal solves ln(phi / (1 - phi)) = chi N (2 phi - 1) (bisection).
Below chi N = 2 the blend must mix (one phase: both slabs' compositions near 1/2), above it
the slabs must stay apart with compositions near the binodal's.

--check (the CI version: N = 10, K = 8, box 12 x 6 x 6, chi N = 1 and 4 from slabs, 6000
steps of 0.02): at chi N = 1 the slabs remix (the two halves' compositions end less than 0.25
apart), at chi N = 4 they stay apart (more than 0.5). The coexisting compositions against the
binodal need longer chains and runs: the command in docs/validation.md. Prints one line per
run and a table; --plot draws the profiles and the binodal.
"""
import math
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

ARGS = sys.argv[3:]


def arg(name, default):
    return type(default)(ARGS[ARGS.index(name) + 1]) if name in ARGS else default


def binodal(chiN):
    """Flory-Huggins' symmetric binodal: the minority volume fraction, chi N > 2."""
    if chiN <= 2.0:
        return 0.5
    g = lambda p: math.log(p / (1.0 - p)) - chiN * (2.0 * p - 1.0)
    lo, hi = 1e-15, 0.5 - 1e-12  # g < 0 at small p, g > 0 just below the critical 1/2
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if g(mid) < 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def write_system(path, N, box, start, rng, K):
    """Chains of N beads, half A and half B, as a LAMMPS data file (molecular layout)."""
    n_beads = int(round(3.0 * box[0] * box[1] * box[2] / N)) * N
    n_chains = n_beads // N
    sigma = math.sqrt(1.0 / K)  # kT / K per component: the bonds' Gaussian step
    lines, bonds = [], []
    for c in range(n_chains):
        kind = 0 if c < n_chains // 2 else 1
        x0 = rng.uniform(0.0, box[0])
        if start == "slab":  # A in [0, Lx/2), B in [Lx/2, Lx): the first bead's x
            x0 = rng.uniform(0.0, 0.5 * box[0]) + (0.5 * box[0] if kind else 0.0)
        r = np.array([x0, rng.uniform(0.0, box[1]), rng.uniform(0.0, box[2])])
        for b in range(N):
            if b:
                r = r + rng.normal(0.0, sigma, 3)
            img = np.floor(r / box).astype(int)
            w = r - img * box
            i = c * N + b + 1
            wx, wy, wz = map(float, w)  # plain reprs under numpy 2
            lines.append(f"{i} {c + 1} {kind + 1} {wx!r} {wy!r} {wz!r} "
                         f"{img[0]} {img[1]} {img[2]}")
            if b:
                bonds.append(f"{len(bonds) + 1} 1 {i - 1} {i}")
    with open(path, "w") as f:
        f.write(f"blend N={N}\n\n{n_beads} atoms\n{len(bonds)} bonds\n2 atom types\n"
                "1 bond types\n\n")
        for d, L in zip("xyz", box):
            f.write(f"0.0 {L} {d}lo {d}hi\n")
        f.write("\nMasses\n\n1 1.0\n2 1.0\n\nAtoms # molecular\n\n")
        f.write("\n".join(lines) + "\n\nBonds\n\n" + "\n".join(bonds) + "\n")
    return n_beads


def config(data, chi, steps, force, frame_every, seed, gamma, dt, K, reach):
    return f"""input = {{ format = "lammps-data"; file = "{data}"; species = "type"; }};
seed = {seed};
species = ( {{ name = "A"; }}, {{ name = "B"; }} );
dpd = {{ a = {{ A = {{ A = 0.0; B = 0.0; }}; B = {{ A = 0.0; B = 0.0; }}; }};
        gamma = {gamma!r}; kT = 1.0; }};
bonded = {{ bonds = ( {{ style = "harmonic"; K = {K!r}; r0 = 0.0; }} ); reach = {reach!r}; }};
integrator = {{ dt = {dt!r}; steps = {steps}; }};
neighbor = {{ skin = 0.3; }};
field = {{ spacing = 1.0; interval = 1; kappa = 0.1; force = "{force}";
  chi = {{ A = {{ A = 0.0; B = {chi!r}; }}; B = {{ A = {chi!r}; B = 0.0; }}; }}; }};
backend = "cpu";
run = {{ momentum_limit = 0.0; momentum_tolerance = 0.0; }};
output = {{ dir = "unused"; thermo_interval = {frame_every};
           trajectory_interval = {frame_every}; checkpoint_keep = 0; }};
"""


def profile(traj, Lx, skip):
    """phi_A along x (bins of width ~1), each frame centred on its A-rich slab."""
    with h5py.File(traj, "r") as f:
        pos = f["particles/all/position/value"][:]
        sp = f["particles/all/species/value"][:] if "value" in f["particles/all/species"] \
            else f["particles/all/species"][:]
    if sp.ndim == 2:
        sp = sp[0]
    bins = int(round(Lx))
    acc_a, acc_n = np.zeros(bins), np.zeros(bins)
    for x in pos[skip:, :, 0]:
        x = np.mod(x, Lx)
        a = sp == 0
        # the phase of the first Fourier mode of (n_A - n_B): the A slab's centre
        theta = 2 * np.pi * x / Lx
        s = np.sum(np.where(a, 1.0, -1.0) * np.exp(1j * theta))
        centre = (np.angle(s) % (2 * np.pi)) * Lx / (2 * np.pi)
        u = np.mod(x - centre + 0.25 * Lx, Lx)  # A slab centred at Lx/4
        k = np.minimum((u / Lx * bins).astype(int), bins - 1)
        acc_a += np.bincount(k[a], minlength=bins)
        acc_n += np.bincount(k, minlength=bins)
    phi = acc_a / acc_n
    q = bins // 8  # the central quarter of each slab: Lx/4 +- Lx/8 and 3Lx/4 +- Lx/8
    a_rich = phi[bins // 4 - q: bins // 4 + q].mean()
    b_rich = phi[3 * bins // 4 - q: 3 * bins // 4 + q].mean()
    return phi, a_rich, b_rich


def run_one(vesica, out, chiN, N, box, steps, start, force, ranks, seed, gamma, dt, K):
    name = f"chiN{chiN:g}_{start}_{force}"
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    data = os.path.join(d, "system.data")
    write_system(data, N, np.array(box), start, np.random.default_rng(seed), K)
    every = max(steps // 40, 1)
    cfg = os.path.join(d, "run.cfg")
    with open(cfg, "w") as f:
        f.write(config(data, chiN / N, steps, force, every, seed, gamma, dt, K,
                       7.0 / math.sqrt(K)))
    mpi = ["mpiexec", "--allow-run-as-root", "--oversubscribe", "-n", str(ranks)]
    cmd = (mpi if ranks > 1 else []) + [vesica, "run", cfg, "--set", f'output.dir="{d}"']
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL {name}: exit {r.returncode}\n{r.stderr[-2000:]}")
    frames = steps // every + 1
    phi, a_rich, b_rich = profile(os.path.join(d, "traj.h5md"), box[0], frames // 2)
    return name, phi, a_rich, b_rich


def main():
    vesica, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    check = "--check" in ARGS
    N = arg("--N", 10)
    box = [float(v) for v in arg("--box", "12,6,6" if check else "16,6,6").split(",")]
    steps = arg("--steps", 6000 if check else 20000)
    starts = arg("--start", "slab").split(",")
    force = arg("--force", "energy")
    ranks = arg("--ranks", 1)
    gamma = arg("--gamma", 1.0)
    K = arg("--K", 8.0)
    dt = arg("--dt", 0.02)
    chis = [float(v) for v in arg("--chiN", "1,4" if check else "1.5,3,4").split(",")]
    rows = []
    for k, chiN in enumerate(chis):
        start = starts[min(k, len(starts) - 1)]
        name, phi, a, b = run_one(vesica, out, chiN, N, box, steps, start, force, ranks, 11 + k,
                                    gamma, dt, K)
        minority = 0.5 * ((1.0 - a) + b)  # B in the A-rich phase and A in the B-rich one
        rows.append((chiN, name, phi, a, b, minority, binodal(chiN)))
        print(f"{name}: phi_A in the A-rich slab {a:.4f}, in the B-rich slab {b:.4f}; minority "
              f"{minority:.4f}, Flory-Huggins {binodal(chiN):.4f}", flush=True)
    print("\n| chi N | phi_A (A-rich) | phi_A (B-rich) | minority | Flory-Huggins binodal |")
    print("| --- | --- | --- | --- | --- |")
    for chiN, _, _, a, b, m, fh in rows:
        print(f"| {chiN:g} | {a:.3f} | {b:.3f} | {m:.3f} | "
              f"{fh:.3f}{' (one phase)' if chiN <= 2 else ''} |")
    if "--plot" in ARGS:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        for chiN, name, phi, *_ in rows:
            x = (np.arange(len(phi)) + 0.5) * box[0] / len(phi)
            ax[0].plot(x, phi, "o-", label=f"chi N = {chiN:g}")
        ax[0].set_xlabel("x (A slab centred at Lx/4)")
        ax[0].set_ylabel("phi_A")
        ax[0].legend()
        cn = np.linspace(2.0001, 5.0, 200)
        fh = [binodal(c) for c in cn]
        ax[1].plot(fh, cn, "k-", label="Flory-Huggins binodal")
        ax[1].plot([1 - v for v in fh], cn, "k-")
        for chiN, _, _, a, b, *_ in rows:
            ax[1].plot([a, b], [chiN, chiN], "rs")
        ax[1].set_xlabel("phi_A")
        ax[1].set_ylabel("chi N")
        ax[1].legend()
        fig.tight_layout()
        fig.savefig(arg("--plot", "blend.png"), dpi=120)
    if check:
        (_, _, _, a1, b1, _, _), (_, _, _, a4, b4, _, _) = rows[0], rows[-1]
        ok = abs(a1 - b1) < 0.25 and (a4 - b4) > 0.5
        print("PASS" if ok else "FAIL: the blend did not remix at chi N = 1, or did not stay "
              "separated at chi N = 4")
        sys.exit(0 if ok else 1)


main()
