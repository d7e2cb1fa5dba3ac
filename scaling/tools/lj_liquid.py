#!/usr/bin/env python3
"""The LJ liquid example (configs/lj-liquid.cfg) run by Vesica and by LAMMPS, compared.

Usage: lj_liquid.py WORK [--vesica build/vesica] [--backend cpu] [--time 200] [--skip 20]
                    [--png docs/figures/lj-liquid.png] [--json FILE] [--check] [--reuse]

The model of configs/lj-liquid.cfg, 4000 particles at rho* = 0.8442, T* = 0.72 from an fcc
lattice: lj truncated at 2.5 sigma with the long-range tail corrections, thermostatted by the
DPD pair thermostat alone (a_ij = 0, gamma = 1, w = 1 - r/2.5), dt = 0.005. Vesica runs the
shipped config (only the input file, output folder, step count and output intervals set on
the command line); LAMMPS (an independent code) runs the same model: pair_style
hybrid/overlay lj/cut 2.5 (pair_modify tail yes) and dpd/tstat 0.72 0.72 2.5 with gamma 1,
fix nve, from its own fcc lattice; its pressure is the lj/cut share of compute pressure
plus the analytic tail correction (Vesica's virial has the conservative forces only, and the
thermostat's pair forces only add noise to it). Both write thermo every 0.1 tau and positions every tau.
Printed: the temperature, potential energy per particle U/N and pressure P of both, averaged
over t >= --skip with standard errors from the autocorrelation time, and g(r) of both from
the frames after --skip; beside them the equation of state of Johnson, Zollweg & Gubbins
(1993) for the full potential, a cross-check only (the truncation at 2.5 changes the
structure slightly; the tail corrections assume g(r) = 1 beyond the cut-off). --png: g(r) of
both with their difference, and the melting of the lattice (T and U/N against time).
--check exits 1 when T, U/N or P differ by more than 4 combined standard errors, or g(r) by
more than 5 of its standard errors (estimated from the spread of g(r) over frame blocks) in
any bin. --reuse analyses the runs already in WORK (same --time) instead of running them.

Needs the lammps python module ($LAMMPS_PYTHON, tests/support/lammps_env.py); exits 77 without.
"""
import argparse
import json
import os
import subprocess
import sys

import h5py
import numpy as np
from scipy.spatial import cKDTree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
from lammps_env import LAMMPS_PYTHON, lammps_env  # noqa: E402
import kg_analysis  # noqa: E402
from lj_eos import jzg  # noqa: E402

RHO, T, DT, CELLS = 0.8442, 0.72, 0.005, 10
THERMO_EVERY, FRAME_EVERY = 20, 200  # steps: 0.1 tau and 1 tau
R_MAX, DR = 4.0, 0.02

LAMMPS_SCRIPT = r'''
import sys
import numpy as np
from lammps import lammps
out, steps, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
thermo_every, frame_every = int(sys.argv[4]), int(sys.argv[5])
l = lammps(cmdargs=["-log", "none", "-screen", "none"])
for c in ["units lj", "atom_style atomic", "boundary p p p", "lattice fcc 0.8442",
          "region box block 0 10 0 10 0 10", "create_box 1 box", "create_atoms 1 box",
          "mass 1 1.0", "velocity all create 0.72 %d loop geom" % seed,
          "pair_style hybrid/overlay lj/cut 2.5 dpd/tstat 0.72 0.72 2.5 %d" % (seed + 1),
          "pair_coeff 1 1 lj/cut 1.0 1.0", "pair_coeff 1 1 dpd/tstat 1.0",
          "pair_modify pair lj/cut tail yes", "comm_modify vel yes",
          "neighbor 0.3 bin", "neigh_modify every 1 delay 0 check yes", "timestep 0.005",
          "fix 1 all nve",
          "compute plj all pressure thermo_temp ke pair/hybrid lj/cut",
          "thermo_style custom step temp pe press c_plj", "run 0"]:
    l.command(c)
n = l.get_natoms()
rows, frames = [], []
def sample(step):
    rows.append((step * 0.005, l.get_thermo("temp"), l.get_thermo("pe"),
                 l.get_thermo("press"), l.numpy.extract_compute("plj", 0, 0)))
    if step % frame_every == 0:
        frames.append(np.array(l.numpy.extract_atom("x")[:n], dtype=float))
sample(0)
for k in range(1, steps // thermo_every + 1):
    l.command("run %d pre no post no" % thermo_every)
    sample(k * thermo_every)
box = l.extract_box()
np.savez(out, rows=np.array(rows), frames=np.array(frames),
         edges=np.array(box[1]) - np.array(box[0]))
'''


def rdf(frames, edges):
    """g(r) over the frames (periodic, cubic box), its standard error from 5 frame blocks."""
    bins = np.arange(0.0, R_MAX + DR / 2, DR)
    n = frames.shape[1]
    shell = 4.0 / 3.0 * np.pi * (bins[1:] ** 3 - bins[:-1] ** 3)
    norm = 0.5 * n * (n / np.prod(edges)) * shell
    per = []
    for x in frames:
        tree = cKDTree(np.mod(x, edges), boxsize=edges)
        d = tree.sparse_distance_matrix(tree, R_MAX, output_type="ndarray")["v"]
        d = d[d > 0.0]
        per.append(np.histogram(d, bins)[0] / 2.0 / norm)  # each pair twice
    per = np.array(per)
    blocks = np.array([b.mean(axis=0) for b in np.array_split(per, 5)])
    return 0.5 * (bins[1:] + bins[:-1]), per.mean(axis=0), blocks.std(axis=0, ddof=1) / np.sqrt(5)


def summarise(time, temp, u, p, skip):
    keep = time >= skip
    out = {}
    for key, series in (("T", temp), ("U/N", u), ("P", p)):
        m, e, _, _ = kg_analysis.mean_err(series[keep])
        out[key], out[key + "_err"] = m, e
    return out


def pressure_tail(rc=2.5):
    """The long-range correction to P of lj truncated at rc (epsilon = sigma = 1), which
    LAMMPS adds to its total pressure but not to the lj/cut share of compute pressure."""
    return 16.0 / 3.0 * np.pi * RHO ** 2 * (2.0 / 3.0 * rc ** -9 - rc ** -3)


def run_vesica(a, lattice):
    out = os.path.join(a.work, "vesica")
    if not (a.reuse and os.path.exists(os.path.join(out, "traj.h5md"))):
        run_vesica_now(a, lattice, out)
    return read_vesica(a, out)


def run_vesica_now(a, lattice, out):
    cmd = [a.vesica, "run", os.path.join(ROOT, "configs", "lj-liquid.cfg"),
           "--set", "input.file=" + lattice, "--set", "output.dir=" + out,
           "--set", "integrator.steps=%d" % int(round(a.time / DT)),
           "--set", "output.thermo_interval=%d" % THERMO_EVERY,
           "--set", "output.trajectory_interval=%d" % FRAME_EVERY,
           "--set", "backend=" + a.backend]
    with open(os.path.join(a.work, "vesica.log"), "w") as log:
        subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, check=True)


def read_vesica(a, out):
    th = kg_analysis.read_thermo(os.path.join(out, "thermo.csv"))
    with h5py.File(os.path.join(out, "traj.h5md"), "r") as f:
        pos = f["particles/all/position/value"][()]
        ftime = f["particles/all/position/time"][()]
        edges = np.array(f["particles/all/box/edges/value"][-1], dtype=float)
    if edges.ndim == 2:  # a box matrix (as NPT runs write it): its diagonal
        edges = np.diag(edges).copy()
    n = pos.shape[1]
    return dict(time=th["time"], T=th["temperature"], U=th["potential_energy"] / n,
                P=th["pressure"], frames=pos[ftime >= a.skip], edges=edges)


def run_lammps(a, py, env):
    script = os.path.join(a.work, "lj_lmp.py")
    with open(script, "w") as s:
        s.write(LAMMPS_SCRIPT)
    out = os.path.join(a.work, "lammps.npz")
    if not (a.reuse and os.path.exists(out)):
        subprocess.run([py, script, out, str(int(round(a.time / DT))), str(a.seed),
                        str(THERMO_EVERY), str(FRAME_EVERY)], env=env, check=True)
    d = np.load(out)
    rows = d["rows"]
    ftime = np.arange(len(d["frames"])) * FRAME_EVERY * DT
    return dict(time=rows[:, 0], T=rows[:, 1], U=rows[:, 2], P=rows[:, 4] + pressure_tail(),
                P_all=rows[:, 3],
                frames=d["frames"][ftime >= a.skip], edges=d["edges"])


def plot(res, ves, lmp, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    r, gv, gl = res["r"], res["g_vesica"], res["g_lammps"]
    ax.plot(r, gv, "-", color="C0", lw=1.6, label="Vesica")
    ax.plot(r, gl, "--", color="C3", lw=1.2, label="LAMMPS")
    ax.plot(r, 10.0 * (gv - gl) - 0.4, "-", color="0.4", lw=0.8,
            label="10 x difference (offset -0.4)")
    ax.axvline(2.5, color="0.7", lw=0.6, ls=":")
    ax.set_xlim(0.8, R_MAX)
    ax.set_xlabel("r / sigma")
    ax.set_ylabel("g(r)")
    ax.set_title("LJ liquid, rho* = 0.8442, T* = 0.72, r_c = 2.5 (t >= %g tau)" % res["skip"],
                 fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    shown = 2.0 * res["skip"]
    for d, name, colour in ((ves, "Vesica", "C0"), (lmp, "LAMMPS", "navy")):
        w = d["time"] <= shown
        bx.plot(d["time"][w], d["U"][w], "-", lw=0.8, color=colour, label="U/N, " + name)
    bx.set_xlabel("t / tau")
    bx.set_ylabel("U/N")
    tx = bx.twinx()
    for d, name, colour in ((ves, "Vesica", "C1"), (lmp, "LAMMPS", "saddlebrown")):
        w = d["time"] <= shown
        tx.plot(d["time"][w], d["T"][w], "-", lw=0.6, color=colour, label="T, " + name)
    tx.axhline(T, color="0.5", lw=0.6)
    tx.set_ylabel("T")
    bx.axvline(res["skip"], color="0.7", lw=0.6, ls=":")
    bx.set_title("melting of the fcc lattice (averages from t = %g on)" % res["skip"],
                 fontsize=10)
    lines = bx.get_lines()[:2] + tx.get_lines()[:2]
    bx.legend(lines, [q.get_label() for q in lines], fontsize=8, frameon=False, loc="center right")
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work")
    ap.add_argument("--vesica", default=os.path.join(ROOT, "build", "vesica"))
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--time", type=float, default=200.0)
    ap.add_argument("--skip", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=4711)
    ap.add_argument("--png")
    ap.add_argument("--json")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--reuse", action="store_true",
                    help="analyse the runs already in WORK instead of running them again")
    a = ap.parse_args()
    py, env = lammps_env()
    if py is None:
        print("skip: no usable LAMMPS python module at %s" % LAMMPS_PYTHON)
        return 77
    os.makedirs(a.work, exist_ok=True)
    lattice = os.path.join(a.work, "lj-fcc.h5")
    if not a.reuse:
        subprocess.run([sys.executable, os.path.join(ROOT, "scaling", "tools", "lattice_h5md.py"),
                        lattice, "--cells", str(CELLS), "--density", repr(RHO)], check=True)
    ves = run_vesica(a, lattice)
    lmp = run_lammps(a, py, env)
    res = {"skip": a.skip, "time": a.time, "backend": a.backend, "rows": []}
    sv = summarise(ves["time"], ves["T"], ves["U"], ves["P"], a.skip)
    sl = summarise(lmp["time"], lmp["T"], lmp["U"], lmp["P"], a.skip)
    u_jzg, p_jzg = jzg(RHO, T)
    print("LJ liquid, %g tau after %g tau of melting, Vesica (%s backend) and LAMMPS:" %
          (a.time - a.skip, a.skip, a.backend))
    for key, ref in (("T", T), ("U/N", u_jzg), ("P", p_jzg)):
        d = sv[key] - sl[key]
        err = float(np.hypot(sv[key + "_err"], sl[key + "_err"]))
        res["rows"].append(dict(quantity=key, vesica=sv[key], vesica_err=sv[key + "_err"],
                                lammps=sl[key], lammps_err=sl[key + "_err"], z=d / err,
                                reference=ref))
        print("%-4s Vesica %.4f +- %.4f   LAMMPS %.4f +- %.4f   difference %+.4f (%+.1f se)"
              "   %s %.4f" % (key, sv[key], sv[key + "_err"], sl[key], sl[key + "_err"], d,
                              d / err, "target" if key == "T" else "JZG", ref))
    keep = lmp["time"] >= a.skip
    print("LAMMPS: P above is its lj/cut virial plus the tail correction %.4f; its total "
          "pressure, with the thermostat's virial, averages %.4f" %
          (pressure_tail(), lmp["P_all"][keep].mean()))
    r, gv, ev = rdf(ves["frames"], ves["edges"])
    _, gl, el = rdf(lmp["frames"], lmp["edges"])
    se = np.hypot(ev, el)
    zg = np.where(se > 0, (gv - gl) / np.where(se > 0, se, 1.0), 0.0)
    peak = int(np.argmax(gv))
    res.update(r=r.tolist(), g_vesica=gv.tolist(), g_lammps=gl.tolist(),
               g_max_abs_diff=float(np.max(np.abs(gv - gl))), g_max_z=float(np.max(np.abs(zg))),
               g_peak=[float(r[peak]), float(gv[peak]), float(gl[peak])])
    print("g(r) from %d + %d frames: first peak at r = %.2f, height %.3f (Vesica), %.3f "
          "(LAMMPS); largest difference %.4f, %.1f standard errors" %
          (len(ves["frames"]), len(lmp["frames"]), r[peak], gv[peak], gl[peak],
           res["g_max_abs_diff"], res["g_max_z"]))
    if a.png:
        res_plot = dict(res, r=r, g_vesica=gv, g_lammps=gl)
        plot(res_plot, ves, lmp, a.png)
        print("wrote %s" % a.png)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    if a.check:
        bad = [q["quantity"] for q in res["rows"] if abs(q["z"]) > 4.0]
        if res["g_max_z"] > 5.0:
            bad.append("g(r)")
        if bad:
            print("FAIL: %s differ beyond the tolerance" % ", ".join(bad))
            return 1
        print("ok: Vesica and LAMMPS agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
