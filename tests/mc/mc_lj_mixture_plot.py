#!/usr/bin/python3
"""The picture of an NPT Gibbs run of the binary LJ mixture (configs/mc-lj-mixture.cfg,
tests/mc/mc_lj_mixture.py) against the van der Waals one-fluid theory on the JZG equation.

Usage: mc_lj_mixture_plot.py RUN_OUT OUTDIR [--config CFG] [--equil E]

RUN_OUT: the run's output folder (mc_summary.h5 and thermo.csv); OUTDIR gets
mc-lj-mixture.png: (a) the P-x-y diagram at the run's kT, the theory's bubble and dew lines
(pure ends from the JZG coexistence of A at kT and of B at kT / eps_BB) and the run's liquid
and vapour mole fractions of B at the imposed P; (b) the liquid density along the bubble line
and (c) the vapour density along the dew line, with the run's; (d) the run's mole fractions of
B per thermo row (box 0 the liquid, box 1 the vapour) against the theory's at P, the tuning
cycles shaded.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def theory_curves(mix, T):
    """Bubble and dew lines from x_B = 0.01 to 0.99 and the pure ends."""
    import numpy as np
    from mc_coexistence import jzg_coexistence
    (_, rva, rla, pa, _), = jzg_coexistence([T])
    (_, rvb, rlb, pb, _), = jzg_coexistence([T / mix.eb])
    pb *= mix.eb
    xs = list(np.linspace(0.01, 0.99, 99))
    curve = mix.bubble_curve(T, xs, (pa, rla, rva, 0.01 * pb / pa))
    return np.array([(0.0, pa, 0.0, rla, rva)] + curve + [(1.0, pb, 1.0, rlb, rvb)])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("outdir")
    p.add_argument("--config", default=None)
    p.add_argument("--equil", type=int, default=None)
    a = p.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    import mc_lj_mixture as mm
    cfg = mm.read_config(a.config or mm.CONFIG)
    mix = mm.Mixture(cfg["eps_bb"], cfg["eps_ab"])
    T, P = cfg["kT"], cfg["P"]
    ref = mix.coexistence(T, P)
    c = theory_curves(mix, T)
    t = np.genfromtxt(os.path.join(a.out, "thermo.csv"), delimiter=",", names=True)
    equil = a.equil
    if equil is None:  # the summary averaged the last `rows` rows
        import h5py
        with h5py.File(os.path.join(a.out, "mc_summary.h5"), "r") as f:
            rows = int(f.attrs["rows"])
        equil = int(t["cycle"][max(0, len(t) - rows - 1)])
    r, _ = mm.read_results(a.out, equil)
    xl, xle = r["x_B_liquid"]
    xv, xve = r["x_B_vapour"]
    rl, rle = r["density_liquid"]
    rv, rve = r["density_vapour"]

    fig, ax = plt.subplots(2, 2, figsize=(10, 8))
    g = ax[0, 0]
    g.plot(c[:, 0], c[:, 1], "k-", label="bubble line (vdW1 + JZG)")
    g.plot(c[:, 2], c[:, 1], "k--", label="dew line (vdW1 + JZG)")
    g.plot([ref["x_B"], ref["y_B"]], [P, P], "ko", mfc="none", label="theory at P")
    g.errorbar([xl], [P], xerr=[xle], fmt="s", color="C0", label="vesica mc: liquid")
    g.errorbar([xv], [P], xerr=[xve], fmt="^", color="C3", label="vesica mc: vapour")
    g.set_xlabel("mole fraction of B")
    g.set_ylabel("P (eps_AA / sigma^3)")
    g.set_title("(a) P-x-y at kT = %g" % T)
    g.legend(fontsize=8)
    for g, phase, xcol, ycol, ls, line, tx, trho, x, xe, rho, rhoe, fmt, color, panel in (
            (ax[0, 1], "liquid", 0, 3, "k-", "the bubble line", "x_B", "rho_l", xl, xle, rl,
             rle, "s", "C0", "b"),
            (ax[1, 0], "vapour", 2, 4, "k--", "the dew line", "y_B", "rho_v", xv, xve, rv,
             rve, "^", "C3", "c")):
        g.plot(c[:, xcol], c[:, ycol], ls, label=f"{phase} on {line}")
        g.plot([ref[tx]], [ref[trho]], "ko", mfc="none", label="theory at P")
        g.errorbar([x], [rho], xerr=[xe], yerr=[rhoe], fmt=fmt, color=color, label="vesica mc")
        g.set_xlabel(f"{phase} mole fraction of B")
        g.set_ylabel(f"{phase} density")
        g.set_title(f"({panel}) {phase} density")
        g.legend(fontsize=8)
    g = ax[1, 1]
    g.plot(t["cycle"], t["n_B_0"] / np.maximum(t["n_0"], 1), color="C0", lw=0.6,
           label="box 0 (liquid)")
    g.plot(t["cycle"], t["n_B_1"] / np.maximum(t["n_1"], 1), color="C3", lw=0.6,
           label="box 1 (vapour)")
    g.axhline(ref["x_B"], color="k", ls="-", lw=1)
    g.axhline(ref["y_B"], color="k", ls="--", lw=1)
    g.axvspan(0, equil, color="0.9", label="discarded (tuning)")
    g.set_xlabel("cycle")
    g.set_ylabel("mole fraction of B")
    g.set_title("(d) per thermo row; black: theory at P")
    g.legend(fontsize=8)
    fig.suptitle("Binary LJ mixture (eps_BB / eps_AA = %g, Lorentz-Berthelot), NPT Gibbs "
                 "ensemble, P = %g" % (mix.eb, P))
    fig.tight_layout()
    os.makedirs(a.outdir, exist_ok=True)
    png = os.path.join(a.outdir, "mc-lj-mixture.png")
    fig.savefig(png, dpi=110)
    print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
