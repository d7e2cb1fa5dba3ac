#!/usr/bin/env python3
"""Throughput of the MD examples on one device: the LJ liquid and the Kremer-Grest melt.

Usage: md_bench.py [--vesica BIN] [--system lj|kg ...] [--sizes N ...] [--backend gpu|cpu]
                   [--precisions mixed double] [--skins 0.2 0.3 0.4 0.5]
                   [--builders cells thread warp] [--steps S] [--warmup W] [--work DIR]
                   [--prep-only] [--json FILE]

A benchmark, not a test (issue 28, "Performance"). Python standard library only (the device
has no numpy or h5py); every file is written and read by Vesica itself.

Systems (LJ reduced units):
  lj  the LJ liquid of the LAMMPS and HOOMD-blue benchmarks: rho = 0.8442, T = 0.72,
      lj r_c = 2.5 (truncated, not shifted), dt = 0.005, NVE velocity Verlet
      (integrator.kind = "nve", DPD off), as LAMMPS's bench/in.lj. configs/lj-liquid.cfg
      with --set overrides (--lj-kind dpd keeps the config's DPD thermostat, langevin a
      Langevin one).
  kg  the Kremer-Grest melt of configs/kremer-grest.cfg: WCA + FENE (K = 30, R0 = 1.5),
      rho = 0.85, T = 1, Langevin gamma = 0.5, dt = 0.01, chains of --chain beads (20,
      as the config), with the config's own keys and --set overrides only.

Preparation (once per system and size, kept in --work and reused by later calls; runs on
the first precision given): random positions (lj) or random-walk chains (kg,
configs/kremer-grest-pushoff.cfg), pushed apart by the soft pair style at alpha = 60 and
then 300 (the procedure of scaling/tools/kremer_grest.sh; for kg in five stages, alpha = 10, 30,
60, 120, 300 at dt = 0.002, --kg-alphas, since with 4000 beads alpha = 60 straight from the
random walks broke a FENE bond), then --prep-steps of the system
itself (lj: at dt = 0.002 under Langevin at T = 0.72) so the measured runs start from the
liquid or melt, whose last frame (traj.h5md) every measured run reads.

--tile K prepares N / K^3 particles only and measures K^3 copies of that frame
(input.replicate = [K, K, K]: the 16M Kremer-Grest melt from a 2M preparation, whose stages
at 16M do not fit one 10-minute device call); the copies start with the same velocities,
which the warm-up's thermostat noise decorrelates (the throughput does not depend on it).

Measured runs: for each precision x skin x builder (the builder is the GPU's
neighbor.gpu_builder; the CPU backend has one and prints "-"), a --warmup run and then a run
of --steps steps from the prepared frame; the figures are that run's perf.json (step loop
only, set-up excluded). Prints one row per run, then the fastest choice per system, size and
precision. The whole matrix at 16M particles takes longer than one 10-minute device call:
split it by --precisions, --skins or --builders (the preparation is reused).
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

PREP = """{start}
seed = 8442;
species = ( {{ name = "A"; mass = 1.0; }} );
dpd = {{ a = {{ A = {{ A = 0.0; }}; }}; gamma = 0.0; kT = 0.72; }};
pair = ( {{ style = "soft"; rc = 1.122462; coeff = {{ A = {{ A = {{ alpha = 60.0; }}; }}; }}; }} );
integrator = {{ kind = "langevin"; gamma = 1.0; dt = 0.005; steps = {steps}; }};
neighbor = {{ skin = 0.3; }};
output = {{ dir = "{out}"; thermo_interval = {steps}; trajectory_interval = {steps};
           checkpoint_interval = 0; checkpoint_keep = 0; }};
run = {{ temperature_tolerance = 0.0; }};
"""


def soft(alpha, species):
    return ('pair=( { style = "soft"; rc = 1.122462; coeff = { %s = { %s = { alpha = %g; }; }; }; } )'
            % (species, species, alpha))


def vesica(a, cfg, sets, log):
    cmd = [a.vesica, "run", cfg]
    for s in sets:
        cmd += ["--set", s]
    t0 = time.time()
    with open(log, "w") as f:
        r = subprocess.run(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        with open(log) as f:
            sys.stdout.write(f.read()[-3000:])
        raise SystemExit("vesica exited %d: %s (log %s)" % (r.returncode, " ".join(cmd), log))
    return time.time() - t0


def out_sets(d, steps, traj):
    return ["output.dir=%s" % d, "output.thermo_interval=%d" % max(1, steps),
            "output.trajectory_interval=%d" % traj, "output.checkpoint_interval=0",
            "output.checkpoint_keep=0", "integrator.steps=%d" % steps]


def prepare(a, system, n, prec):
    """The prepared frame of (system, n): its path, made unless it exists."""
    d = os.path.join(a.work, "%s-%d" % (system, n))
    frame = os.path.join(d, "stage3", "traj.h5md")
    if os.path.exists(frame) and os.path.exists(os.path.join(d, "stage3", "perf.json")):
        return frame
    os.makedirs(d, exist_ok=True)
    dev = ["backend=%s" % a.backend, "precision=%s" % prec]
    ps = a.pushoff_steps
    t0 = time.time()
    if system == "lj":
        side = (n / 0.8442) ** (1.0 / 3.0)
        random = "particles = %d;\nbox = [%.6f, %.6f, %.6f];" % (n, side, side, side)
        for k, start in ((1, random), (2, 'input = { format = "h5md"; file = "%s"; };'
                                       % os.path.join(d, "stage1", "traj.h5md"))):
            cfg = os.path.join(d, "stage%d.cfg" % k)
            with open(cfg, "w") as f:
                f.write(PREP.format(start=start, steps=ps, out=os.path.join(d, "stage%d" % k)))
            vesica(a, cfg, dev + ([soft(300.0, "A")] if k == 2 else []),
                   os.path.join(d, "stage%d.log" % k))
        lj = 'pair=( { style = "lj"; rc = 2.5; coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } )'
        vesica(a, cfg, dev + [lj, "input.file=%s/stage2/traj.h5md" % d, "integrator.dt=0.002"]
               + out_sets(os.path.join(d, "stage3"), a.prep_steps, a.prep_steps),
               os.path.join(d, "stage3.log"))
    else:
        side = (n / 0.85) ** (1.0 / 3.0)
        if n % a.chain:
            raise SystemExit("kg: %d particles is not a whole number of %d-bead chains" % (n, a.chain))
        push = os.path.join(ROOT, "configs", "kremer-grest-pushoff.cfg")
        melt = os.path.join(ROOT, "configs", "kremer-grest.cfg")
        prev = None
        for k, alpha in enumerate(a.kg_alphas):
            # a gentle first push (small alpha and dt): large systems hold rare beads squeezed
            # between overlapping chains, whose FENE bond the config's alpha = 60 can break
            dt = 0.002
            sets = dev + [soft(alpha, "M"), "integrator.dt=%g" % dt, "integrator.gamma=1.0"]
            sets += out_sets(os.path.join(d, "push%d" % k), ps, ps)
            if prev is None:
                vesica(a, push, sets + ["particles=%d" % n,
                                        "box=[%.6f, %.6f, %.6f]" % (side, side, side),
                                        "molecules.[0].repeat=%d" % a.chain,
                                        "molecules.[0].count=%d" % (n // a.chain)],
                       os.path.join(d, "push%d.log" % k))
            else:
                vesica(a, melt, sets + ["input.file=%s" % prev], os.path.join(d, "push%d.log" % k))
            prev = os.path.join(d, "push%d" % k, "traj.h5md")
        vesica(a, melt, dev + ["input.file=%s" % prev]
               + out_sets(os.path.join(d, "stage3"), a.prep_steps, a.prep_steps),
               os.path.join(d, "stage3.log"))
    print("# prepared %s N = %d in %.0f s: %s" % (system, n, time.time() - t0, frame), flush=True)
    return frame


def measure(a, system, n, prec, skin, builder, frame):
    d = os.path.join(a.work, "%s-%d" % (system, n), "run")
    os.makedirs(os.path.dirname(d), exist_ok=True)
    if system == "lj":
        cfg = os.path.join(ROOT, "configs", "lj-liquid.cfg")
        sets = ["input.file=%s" % frame]
        if a.lj_kind == "nve":
            sets += ["dpd.gamma=0.0", "integrator.kind=nve"]
        elif a.lj_kind == "langevin":
            sets += ["dpd.gamma=0.0", "integrator.kind=langevin", "integrator.gamma=1.0"]
    else:
        cfg = os.path.join(ROOT, "configs", "kremer-grest.cfg")
        sets = ["input.file=%s" % frame]
    sets += ["backend=%s" % a.backend, "precision=%s" % prec, "neighbor.skin=%g" % skin]
    if a.tile > 1:
        sets.append("input.replicate=[%d, %d, %d]" % (a.tile, a.tile, a.tile))
    if builder != "-":
        sets.append("neighbor.gpu_builder=%s" % builder)
    if a.warmup > 0:
        vesica(a, cfg, sets + out_sets(d, a.warmup, 0), d + ".warmup.log")
    vesica(a, cfg, sets + out_sets(d, a.steps, 0), d + ".log")
    with open(os.path.join(d, "perf.json")) as f:
        p = json.load(f)
    ph = p["phases_s"]
    row = {"system": system, "particles": p["particles"], "precision": prec, "skin": skin,
           "builder": builder, "steps": p["steps"], "wall_s": p["wall_s"],
           "particle_steps_per_s": p["particle_steps_per_s"],
           "steps_per_s": p["steps"] / p["wall_s"], "pair_s": ph["pair"],
           "neighbor_s": ph["neighbor"], "comm_s": ph["comm"], "integrate_s": ph["integrate"],
           "builds": p["neighbor_builds"], "dangerous_builds": p.get("dangerous_builds", 0),
           "bytes_per_particle": p["memory_bytes_per_particle"], "plan": p.get("plan", ""),
           "device": p.get("device", "")}
    print("%-3s %10d %7s %5.2f %7s %6d %9.3f %14.4e %9.1f %8.3f %8.3f %8.3f %8.3f %6d %5d %7.1f  %s"
          % (system, row["particles"], prec, skin, builder, row["steps"], row["wall_s"],
             row["particle_steps_per_s"], row["steps_per_s"], row["pair_s"], row["neighbor_s"],
             row["comm_s"], row["integrate_s"], row["builds"], row["dangerous_builds"],
             row["bytes_per_particle"], row["plan"]), flush=True)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vesica", default=os.path.join(ROOT, "build", "vesica"))
    ap.add_argument("--system", nargs="+", default=["lj", "kg"], choices=["lj", "kg"])
    ap.add_argument("--sizes", nargs="+", type=int, default=[1000000, 16000000])
    ap.add_argument("--backend", default="gpu", choices=["gpu", "cpu"])
    ap.add_argument("--precisions", nargs="+", default=["mixed", "double"],
                    choices=["mixed", "double"])
    ap.add_argument("--skins", nargs="+", type=float, default=[0.2, 0.3, 0.4, 0.5])
    ap.add_argument("--builders", nargs="+", default=["cells", "thread", "warp"],
                    choices=["auto", "cells", "thread", "warp"])
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--pushoff-steps", type=int, default=1000)
    ap.add_argument("--prep-steps", type=int, default=1000)
    ap.add_argument("--chain", type=int, default=20, help="kg: beads per chain")
    ap.add_argument("--kg-alphas", nargs="+", type=float, default=[10.0, 30.0, 60.0, 120.0, 300.0],
                    help="kg: the soft push-off stages' alpha (each --pushoff-steps at dt = 0.002)")
    ap.add_argument("--lj-kind", default="nve", choices=["nve", "dpd", "langevin"])
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "md-bench"))
    ap.add_argument("--prep-only", action="store_true")
    ap.add_argument("--tile", type=int, default=1,
                    help="prepare N / tile^3 particles and measure tile^3 copies of them "
                         "(input.replicate): a 16M system from a 2M preparation")
    ap.add_argument("--json", help="append the rows to this JSON file")
    a = ap.parse_args()
    a.vesica = os.path.abspath(a.vesica)
    a.work = os.path.abspath(a.work)
    builders = a.builders if a.backend == "gpu" else ["-"]
    rows = []
    print("%-3s %10s %7s %5s %7s %6s %9s %14s %9s %8s %8s %8s %8s %6s %5s %7s  %s" % (
        "sys", "particles", "prec", "skin", "builder", "steps", "wall_s", "particle-steps/s",
        "steps/s", "pair_s", "neigh_s", "comm_s", "integ_s", "builds", "dang", "B/part", "plan"))
    for system in a.system:
        for n in a.sizes:
            if n % a.tile ** 3:
                raise SystemExit("--tile %d: %d particles is not a whole number of %d copies"
                                 % (a.tile, n, a.tile ** 3))
            frame = prepare(a, system, n // a.tile ** 3, a.precisions[0])
            if a.prep_only:
                continue
            for prec in a.precisions:
                for skin in a.skins:
                    for b in builders:
                        rows.append(measure(a, system, n, prec, skin, b, frame))
    best = {}
    for r in rows:
        k = (r["system"], r["particles"], r["precision"])
        if k not in best or r["particle_steps_per_s"] > best[k]["particle_steps_per_s"]:
            best[k] = r
    for k, r in sorted(best.items()):
        print("# fastest %s N = %d %s: skin %g, builder %s, %.4e particle-steps/s (%s)" % (
            k[0], k[1], k[2], r["skin"], r["builder"], r["particle_steps_per_s"], r["device"]))
    if a.json and rows:
        old = []
        if os.path.exists(a.json):
            with open(a.json) as f:
                old = json.load(f).get("runs", [])
        meta = {"command": " ".join(sys.argv), "machine": platform.node(),
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        with open(a.json, "w") as f:
            json.dump({"meta": meta, "runs": old + [dict(r, command=meta["command"],
                                                          date=meta["date"]) for r in rows]},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
