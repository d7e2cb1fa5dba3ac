#!/usr/bin/env python3
"""Draw a `vesica mc` run from its thermo.csv: each box's density and pressure against the
cycle, the tuning cycles shaded, and the production means in the legend.

Usage: mc_plot.py RUN_DIR [--equil E] [--png FILE]
  RUN_DIR holds thermo.csv (the run's output.dir); the picture goes to RUN_DIR/mc.png unless
  --png says otherwise. E: the tuning cycles (mc.equilibration), left out of the means.
"""
import argparse
import os
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--equil", type=int, default=0)
    ap.add_argument("--png")
    a = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = np.genfromtxt(os.path.join(a.run, "thermo.csv"), delimiter=",", names=True)
    boxes = [b for b in (0, 1) if "density_%d" % b in t.dtype.names]
    prod = t["cycle"] > a.equil
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for b, colour in zip(boxes, ("tab:blue", "tab:red")):
        for ax, key in zip(axes, ("density", "pressure")):
            x = t["%s_%d" % (key, b)]
            ax.plot(t["cycle"], x, lw=0.8, color=colour,
                    label="box %d: mean %.4g" % (b, x[prod].mean()) if prod.any() else "box %d" % b)
    for ax, key in zip(axes, ("density", "pressure")):
        if a.equil:
            ax.axvspan(0, a.equil, color="0.9", label="step sizes tuned")
        ax.set_xlabel("cycle")
        ax.set_ylabel(key)
        ax.legend(fontsize=7)
    axes[0].set_yscale("log")
    fig.suptitle("vesica mc: %s" % os.path.abspath(a.run), fontsize=8)
    fig.tight_layout()
    out = a.png or os.path.join(a.run, "mc.png")
    fig.savefig(out, dpi=120)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
