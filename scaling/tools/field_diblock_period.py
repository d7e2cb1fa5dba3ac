#!/usr/bin/env python3
"""The symmetric diblock melt's lamellar period D against N and chi N, in boxes fitted to it
(docs/validation.md, "The symmetric diblock melt"), with a figure.

Usage: field_diblock_period.py VESICA OUTDIR [--cases N:chiN:L,...] [--steps S] [--analyse]

Each case runs configs/field-diblock.cfg (A_{N/2} B_{N/2}, Gaussian bonds K = 2, density 3,
spacing 1, kappa 0.1, fields every step, the `energy` force) with a Langevin thermostat
(gamma = 1; the DPD term is then inert and skipped: the same statics as the example's DPD
thermostat, fewer passes) in a cubic box of edge L, on the CPU, one rank; fields.h5 every
500 steps. The default boxes hold two periods of 0.9 times the strong-segregation period
(the ratio the 20^3 runs of docs/validation.md measured at N = 20, chi N = 30), rounded to
whole grid cells: the box's wave vectors then include the period the melt is expected to
take, so D is not forced far from it. The second half of the frames gives S(q) of
phi_A - phi_B and D = 2 pi / q* (scaling/tools/field_lamellae.py: q* the S-weighted mean |q|
within 1.5 shells of the highest shell); R_g from the final checkpoint.

Written to OUTDIR: runs/ (one folder per case), period.csv (one row per case) and
period.png: D against N at chi N = 30 and against chi N at N = 20, with the strong-segregation
law D = 1.10 b N^(1/2) (chi N)^(1/6) (Semenov; D ~ N^(2/3) chi^(1/6)), the mean-field
period at the order-disorder point 3.23 R_g (Leibler, chi N = 10.495), and the box's
allowed periods around each D. --analyse skips the runs that have fields.h5 already.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from field_lamellae import measured_rg, peak, structure_factor  # noqa: E402

CONFIG = os.path.join(HERE, "..", "..", "configs", "field-diblock.cfg")
B = np.sqrt(3.0 / 2.0)  # rms bond length of K = 2 at kT = 1


def d_strong(n, chin):
    return (32.0 / (np.pi ** 2 * np.sqrt(6.0))) ** (1 / 3) * B * n ** (2 / 3) * (chin / n) ** (1 / 6)


def default_box(n, chin):
    return max(12, int(round(2 * 0.9 * d_strong(n, chin))))


def run_case(vesica, out, n, chin, box, steps):
    d = os.path.join(out, "runs", f"N{n}-chiN{chin:g}-L{box}")
    if os.path.exists(os.path.join(d, "fields.h5")):
        return d
    seq = "A" * (n // 2) + "B" * (n // 2)
    chi = chin / n
    cmd = [vesica, "run", CONFIG, "--set", f'output.dir="{d}"', "--set", 'backend="cpu"',
           "--set", f"box=[{box}.0, {box}.0, {box}.0]",
           "--set", f"particles={n * ((3 * box ** 3) // n)}",  # whole chains at density ~3
           "--set", f'molecules.[0].sequence="{seq}"',
           "--set", f"field.chi.A.B={chi!r}", "--set", f"field.chi.B.A={chi!r}",
           "--set", "dpd.gamma=0.0", "--set", 'integrator.kind="langevin"',
           "--set", "integrator.gamma=1.0", "--set", f"integrator.steps={steps}",
           "--set", "output.thermo_interval=500", "--set", "output.field_interval=500"]
    with open(os.path.join(out, "runs", f"N{n}-chiN{chin:g}-L{box}.log"), "w") as log:
        subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, check=True)
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vesica")
    ap.add_argument("out")
    ap.add_argument("--cases", default="10:30,20:30,20:15,20:60",
                    help="N:chiN[:L] comma-separated (L: box edge, default fitted)")
    ap.add_argument("--steps", type=int, default=8000)
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "runs"), exist_ok=True)
    rows = []
    for spec in a.cases.split(","):
        f = spec.split(":")
        n, chin = int(f[0]), float(f[1])
        box = int(f[2]) if len(f) > 2 else default_box(n, chin)
        d = run_case(a.vesica, a.out, n, chin, box, a.steps)
        qn, s, dq, share, used, _, boxv = structure_factor(os.path.join(d, "fields.h5"), 0.5)
        qstar, _, _, contrast, near = peak(qn, s, dq)
        rg = measured_rg(d, n, boxv)
        rg_ideal = B * np.sqrt((n * n - 1) / (6.0 * n))
        rows.append(dict(N=n, chiN=chin, L=box, frames=used, D=2 * np.pi / qstar,
                         D_box_lo=near[1], D_box_hi=near[0], D_strong=d_strong(n, chin),
                         D_weak=2 * np.pi * rg_ideal / 1.946, Rg=rg or float("nan"),
                         Rg_ideal=rg_ideal, share=share, contrast=contrast))
    keys = list(rows[0])
    with open(os.path.join(a.out, "period.csv"), "w") as fcsv:
        fcsv.write(",".join(keys) + "\n")
        for r in rows:
            fcsv.write(",".join(f"{r[k]:.6g}" for k in keys) + "\n")
    print(" | ".join(keys))
    for r in rows:
        print(" | ".join(f"{r[k]:.4g}" for k in keys))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.8))
    for ax, fixed, var, label in ((ax1, ("chiN", 30.0), "N", "N (chi N = 30)"),
                                  (ax2, ("N", 20), "chiN", "chi N (N = 20)")):
        sel = sorted((r for r in rows if r[fixed[0]] == fixed[1]), key=lambda r: r[var])
        if not sel:
            continue
        x = np.array([r[var] for r in sel], dtype=float)
        ax.errorbar(x, [r["D"] for r in sel],
                    yerr=[[r["D"] - r["D_box_lo"] for r in sel],
                          [r["D_box_hi"] - r["D"] for r in sel]],
                    fmt="o", capsize=3, label="measured D (bars: the box's periods around it)")
        xs = np.linspace(x.min() * 0.8, x.max() * 1.2, 50)
        if var == "N":
            ax.plot(xs, [d_strong(v, 30.0) for v in xs], "-", label="strong segregation")
            ax.plot(xs, [2 * np.pi * B * np.sqrt((v * v - 1) / (6 * v)) / 1.946 for v in xs],
                    "--", label="3.23 R_g (mean-field ODT)")
        else:
            ax.plot(xs, [d_strong(20, v) for v in xs], "-", label="strong segregation")
            ax.axhline(2 * np.pi * B * np.sqrt((400 - 1) / 120) / 1.946, ls="--",
                       label="3.23 R_g (mean-field ODT)")
            ax.axvline(10.495, color="k", lw=0.7, ls=":", label="mean-field ODT chi N")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("lamellar period D")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "period.png"), dpi=120)
    print(os.path.join(a.out, "period.png"), "written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
