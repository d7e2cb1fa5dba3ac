#!/usr/bin/python3
"""Weak and strong scaling of Vesica: run the series, plot them, fit and extrapolate a model.

  scaling.py run   --binary B --gpus 1,2 --weak-per-gpu N --strong-total N [options] --out DIR
  scaling.py plot  DIR/scaling.csv [--out DIR]
  scaling.py model DIR/scaling.csv [--interconnect h100-nvl-ndr] [--max-gpus 1024] [--out DIR]

`run` needs the Python standard library only (the device machines may lack numpy and
matplotlib); `plot` and `model` import numpy and matplotlib when called.

run: for every rank count P of --gpus (one rank per GPU; on the CPU backend, one rank per
  core) and every series, it generates the system from a template config (default
  scaling/bench/gpu-fluid.cfg: Groot-Warren fluid, rho = 3) with --set overrides: a cubic box of
  side (N / density)^(1/3), N = --weak-per-gpu * P (weak) or --strong-total (strong).
  Each point is run twice, with W = --warmup steps and with W + S steps (S = --steps); the
  measured time is the difference of the two runs' loop times (perf.json wall_s, set-up
  excluded), so start-up, first-step and warm-up costs cancel. Phase times are differenced
  the same way. --repeat R runs each point R times and keeps the fastest (on a shared
  machine other work only adds time). Output in --out: scaling.csv (one row per point; '#'
  header lines give the command, commit, date, load and the efficiency definitions),
  runs/<series>-P<P>-<steps>[-r<k>]/ (each run's perf.json, thermo.csv and log; trajectory
  and checkpoint files are deleted) and commands.txt (every command, in order).
  Launchers: mpirun (`mpirun -n P`, plus --allow-run-as-root as root) or srun (`srun -n P`,
  with -N and --ntasks-per-node/--gpus-per-node from --gpus-per-node on the gpu backend);
  --launcher-args="..." adds options. --dry-run prints the commands only. When the binary
  has output.trajectory_interval/checkpoint_interval (a tiny probe run tells), both are set
  to 10^9 and output.checkpoint_keep to 0 (no checkpoint at the end either), so that no
  output is timed.
  Example, GPU backend on a 4-GPU node (one command line; docs/scaling.md has the
  device-machine command):
    python3 scaling/bench/scaling.py run --launcher mpirun --binary build-gpu/vesica --backend gpu
      --gpus 1,2,4 --weak-per-gpu 16000000 --strong-total 16000000 --steps 200 --warmup 50
      --out /tmp/scaling

Efficiency (written into the CSV header):
  T(P) = wall time per measured step with P ranks.
  weak:   E(P) = T(P0) / T(P)                   at fixed particles per rank (ideal 1),
  strong: E(P) = P0 T(P0) / (P T(P))            at fixed total particles  (ideal 1),
  with P0 the smallest rank count of the series (normally 1).

plot: throughput.png (particle-steps/s vs GPUs, both series, with the ideal lines),
  efficiency.png (E vs GPUs) and phases.png (time per step split by phase, per point).

model: fits T_step(P) = t0 + c (N_local + g N_ghost) + T_halo(P) + T_reduce(P) to the
  measurements and predicts both series to --max-gpus over a stated interconnect; see
  docs/scaling.md for every term, the fitted and the assumed parameters. Writes model.json,
  model.csv and model.png (prediction curves beside the measured points).
"""
import argparse
import csv
import datetime
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PHASES = ["pair", "neighbor", "comm", "integrate", "output"]
FIELDS = (["series", "gpus", "particles", "particles_per_gpu", "box", "decomposition",
           "steps", "warmup", "wall_s", "time_per_step_s", "particle_steps_per_s",
           "efficiency", "neighbor_builds"]
          + [f"{p}_s_per_step" for p in PHASES] + [f"{p}_max_s_per_step" for p in PHASES]
          + ["backend", "device"])


# ----------------------------------------------------------------------------------------
# run
# ----------------------------------------------------------------------------------------

def choose_decomposition(box, nranks, min_width):
    """Vesica's rule (comm/decomp.c): the factorisation with the least brick face area."""
    best = None
    for px in range(1, nranks + 1):
        if nranks % px:
            continue
        for py in range(1, nranks // px + 1):
            if (nranks // px) % py:
                continue
            pz = nranks // px // py
            b = (box[0] / px, box[1] / py, box[2] / pz)
            if min(b) < min_width:
                continue
            area = b[0] * b[1] + b[1] * b[2] + b[2] * b[0]
            if best is None or area < best[0]:
                best = (area, (px, py, pz))
    return best[1] if best else None


def git_commit(path):
    try:
        return subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def launch_prefix(a, ranks):
    extra = shlex.split(a.launcher_args)
    if a.launcher == "mpirun":
        root = ["--allow-run-as-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
        return ["mpirun", *root, "-n", str(ranks), *extra]
    cmd = ["srun", "-n", str(ranks)]
    if a.backend == "gpu" and a.gpus_per_node:
        per_node = min(ranks, a.gpus_per_node)
        cmd += ["-N", str(math.ceil(ranks / per_node)), f"--ntasks-per-node={per_node}",
                f"--gpus-per-node={per_node}"]
    return cmd + extra


def run_one(a, series, ranks, n, steps, log, rep=0):
    side = (n / a.density) ** (1.0 / 3.0)
    name = f"{series}-P{ranks}-{steps}" + (f"-r{rep + 1}" if a.repeat > 1 else "")
    out = os.path.join(a.out, "runs", name)
    cmd = launch_prefix(a, ranks) + [
        a.binary, "run", a.config, "--set", f"box=[{side:.6f}, {side:.6f}, {side:.6f}]",
        "--set", f"particles={n}", "--set", f"backend={a.backend}",
        "--set", f"integrator.steps={steps}", "--set", f"output.thermo_interval={steps}",
        "--set", f"output.dir={out}"]
    for kv in a.set or []:
        cmd += ["--set", kv]
    line = " ".join(shlex.quote(c) for c in cmd)
    print(f"[{datetime.datetime.now():%H:%M:%S}] {line}", flush=True)
    log.write(line + "\n")
    log.flush()
    if a.dry_run:
        return None, side
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    with open(os.path.join(out, "log.txt"), "w") as f:
        # Own process group, so a timeout stops the launcher and every rank it started.
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 15)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
            sys.exit(f"scaling.py: the run above passed --timeout {a.timeout} s; the points "
                     "measured so far are in scaling.csv")
    if rc != 0:
        with open(os.path.join(out, "log.txt")) as f:
            tail = f.read()[-2000:]
        sys.exit(f"scaling.py: the run above failed with status {rc}:\n{tail}")
    with open(os.path.join(out, "perf.json")) as f:
        perf = json.load(f)
    # Keep the small records only (a 16M-particle frame or checkpoint is hundreds of MB).
    shutil.rmtree(os.path.join(out, "checkpoints"), ignore_errors=True)
    for big in ("traj.h5md",):
        if os.path.exists(os.path.join(out, big)):
            os.remove(os.path.join(out, big))
    print(f"    {time.time() - t0:.1f} s, loop {perf['wall_s']:.3f} s", flush=True)
    return perf, side


def quiet_output_sets(a):
    """--set overrides that switch trajectory and checkpoint output off, if the binary has
    them (a tiny one-rank probe run: builds without checkpoints reject the keys)."""
    never = 1_000_000_000
    sets = [f"output.trajectory_interval={never}", f"output.checkpoint_interval={never}",
            "output.checkpoint_keep=0"]
    probe = os.path.join(a.out, "runs", "probe")
    cmd = launch_prefix(a, 1) + [a.binary, "run", a.config, "--set", "box=[6.0, 6.0, 6.0]",
                                 "--set", "particles=200", "--set", f"backend={a.backend}",
                                 "--set", "integrator.steps=1", "--set", f"output.dir={probe}"]
    for kv in sets:
        cmd += ["--set", kv]
    if a.dry_run:
        return sets
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    shutil.rmtree(probe, ignore_errors=True)
    if r.returncode == 0:
        return sets
    if "unknown key" in r.stdout + r.stderr:
        return []
    sys.exit(f"scaling.py: the probe run failed ({r.returncode}):\n{' '.join(cmd)}\n"
             f"{(r.stdout + r.stderr)[-2000:]}")


def cmd_run(a):
    ranks_list = [int(x) for x in a.gpus.split(",")]
    series = [s for s in a.series.split(",") if s]
    os.makedirs(a.out, exist_ok=True)
    a.load_at_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    # Trajectories and checkpoints would be timed with the loop: off unless --set asks.
    a.set = quiet_output_sets(a) + (a.set or [])
    rows = []
    with open(os.path.join(a.out, "commands.txt"), "a") as log:
        log.write(f"# {datetime.datetime.now().isoformat(timespec='seconds')}: "
                  + " ".join(shlex.quote(x) for x in sys.argv) + "\n")
        for s in series:
            base = None
            for p in ranks_list:
                n = a.weak_per_gpu * p if s == "weak" else a.strong_total
                pairs = []
                for rep in range(a.repeat):
                    warm, side = run_one(a, s, p, n, a.warmup, log, rep)
                    full, _ = run_one(a, s, p, n, a.warmup + a.steps, log, rep)
                    pairs.append((full["wall_s"] - warm["wall_s"], warm, full)
                                 if not a.dry_run else None)
                if a.dry_run:
                    continue
                # The fastest repetition: noise from other work only ever adds time.
                wall, warm, full = min(pairs, key=lambda x: x[0])
                if wall <= 0:
                    sys.exit(f"scaling.py: {s} P={p}: the {a.warmup + a.steps}-step run was not "
                             f"slower than the {a.warmup}-step one; use more --steps")
                t = wall / a.steps
                if base is None:
                    base = (p, t)
                eff = base[1] / t if s == "weak" else base[0] * base[1] / (p * t)
                dims = choose_decomposition([side] * 3, p, a.ghost_width)
                row = {"series": s, "gpus": p, "particles": n, "particles_per_gpu": n / p,
                       "box": f"{side:.6f}", "decomposition": "x".join(map(str, dims or ())),
                       "steps": a.steps, "warmup": a.warmup, "wall_s": f"{wall:.6g}",
                       "time_per_step_s": f"{t:.6g}",
                       "particle_steps_per_s": f"{n * a.steps / wall:.6g}",
                       "efficiency": f"{eff:.4f}",
                       "neighbor_builds": full["neighbor_builds"] - warm["neighbor_builds"],
                       "backend": full["backend"], "device": full["device"]}
                for k in PHASES:
                    for key, col in (("phases_s", f"{k}_s_per_step"),
                                     ("phases_max_s", f"{k}_max_s_per_step")):
                        d = full.get(key, {}).get(k, 0.0) - warm.get(key, {}).get(k, 0.0)
                        row[col] = f"{d / a.steps:.6g}"
                rows.append(row)
                write_csv(a, rows)
    if not a.dry_run:
        print(f"wrote {os.path.join(a.out, 'scaling.csv')}")


def write_csv(a, rows):
    path = os.path.join(a.out, "scaling.csv")
    with open(path + ".tmp", "w", newline="") as f:
        f.write(f"# Vesica scaling, {datetime.datetime.now().isoformat(timespec='seconds')}, "
                f"commit {git_commit(HERE)}, host {os.uname().nodename}\n")
        f.write("# command: " + " ".join(shlex.quote(x) for x in sys.argv) + "\n")
        f.write(f"# load average at start: {a.load_at_start}, now: "
                f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min; a busy "
                f"machine slows multi-rank points first)\n")
        f.write(f"# config {a.config}, density {a.density}, launcher {a.launcher} "
                f"{a.launcher_args}, overrides {a.set or []}\n")
        f.write("# measured time = loop time of a (warmup+steps)-step run minus that of a "
                f"warmup-step run (perf.json wall_s), the least of {a.repeat} repetition(s); "
                "T(P) = that time / steps\n")
        f.write("# weak efficiency E(P) = T(P0) / T(P) at fixed particles per GPU; strong "
                "efficiency E(P) = P0 T(P0) / (P T(P)) at fixed total particles; P0 = smallest "
                "GPU (rank) count of the series\n")
        f.write("# phase columns: seconds per measured step, averaged over ranks (_s_per_step) "
                "and maximum over ranks (_max_s_per_step)\n")
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    os.replace(path + ".tmp", path)


# ----------------------------------------------------------------------------------------
# plot
# ----------------------------------------------------------------------------------------

def read_csv(path):
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    rows = list(csv.DictReader(lines))
    for r in rows:
        for k in FIELDS:
            if k in r and k not in ("series", "box", "decomposition", "backend", "device"):
                r[k] = float(r[k])
    return rows


def header_of(path):
    with open(path) as f:
        return [ln[2:].rstrip() for ln in f if ln.startswith("#")]


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def cmd_plot(a):
    plt = pyplot()
    rows = read_csv(a.csv)
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    os.makedirs(out, exist_ok=True)
    device = rows[0]["device"] if rows else ""
    series = [s for s in ("weak", "strong") if any(r["series"] == s for r in rows)]

    fig, ax = plt.subplots(figsize=(6, 4.5))
    for s, mark in zip(series, "os"):
        pts = sorted((r for r in rows if r["series"] == s), key=lambda r: r["gpus"])
        x = [r["gpus"] for r in pts]
        y = [r["particle_steps_per_s"] for r in pts]
        lab = (f"weak, {pts[0]['particles_per_gpu']:.3g} per GPU" if s == "weak"
               else f"strong, {pts[0]['particles']:.3g} total")
        line, = ax.plot(x, y, mark + "-", label=lab)
        ax.plot(x, [y[0] * p / x[0] for p in x], "--", color=line.get_color(), alpha=0.6,
                label=f"ideal ({s})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("GPUs (ranks)")
    ax.set_ylabel("particle-steps / s")
    ax.set_title(f"Throughput: {device}", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "throughput.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(6, 4.5))
    for s, mark in zip(series, "os"):
        pts = sorted((r for r in rows if r["series"] == s), key=lambda r: r["gpus"])
        ax.plot([r["gpus"] for r in pts], [r["efficiency"] for r in pts], mark + "-", label=s)
    ax.axhline(1.0, color="gray", ls="--", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 1.2)
    ax.set_xlabel("GPUs (ranks)")
    ax.set_ylabel("parallel efficiency")
    ax.set_title("weak: T(1)/T(P);  strong: T(1)/(P T(P))", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "efficiency.png"), dpi=120)

    pts = sorted(rows, key=lambda r: (r["series"] != "weak", r["gpus"]))
    fig, ax = plt.subplots(figsize=(max(5, 1.1 * len(pts) + 2), 4.5))
    bottom = [0.0] * len(pts)
    labels = [f"{r['series']}\nP={r['gpus']:.0f}" for r in pts]
    for k in PHASES + ["other"]:
        if k == "other":
            vals = [max(0.0, r["time_per_step_s"] - sum(r[f"{q}_s_per_step"] for q in PHASES))
                    for r in pts]
        else:
            vals = [r[f"{k}_s_per_step"] for r in pts]
        vals = [v * 1e3 for v in vals]
        ax.bar(labels, vals, bottom=bottom, label=k)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylabel("ms per step")
    ax.set_title("Time per step by phase (average over ranks)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "phases.png"), dpi=120)
    print(f"wrote throughput.png efficiency.png phases.png in {out}")


# ----------------------------------------------------------------------------------------
# model
# ----------------------------------------------------------------------------------------

# Stated interconnects: (name: description, intra-node GB/s per direction, intra latency s,
# inter-node GB/s per direction, inter latency s, GPUs per node, host staging GB/s or 0).
INTERCONNECTS = {
    "h100-nvl-ndr": ("4 H100 per node, NVLink 4 (450 GB/s per direction), InfiniBand NDR "
                     "400 Gb/s = 50 GB/s per GPU, latency 3 us intra / 5 us inter; "
                     "CUDA-aware MPI (no host staging)", 450.0, 3e-6, 50.0, 5e-6, 4, 0.0),
    "h100-staged": ("as h100-nvl-ndr, but ghosts staged through host memory over PCIe 5 "
                    "(~50 GB/s each way, 10 us per copy)", 450.0, 3e-6, 50.0, 5e-6, 4, 50.0),
    "fitted": ("the effective bandwidth and latency fitted to this CSV's multi-rank points, "
               "for every link (an extrapolation of the measured machine)", 0, 0, 0, 0, 1 << 30,
               0.0),
    "titan-gemini": ("Tang & Karniadakis's TITAN: 1 K20X per node, Cray Gemini (~6 GB/s, "
                     "~1.5 us), host staging over PCIe 2 (~6 GB/s)", 6.0, 1.5e-6, 6.0, 1.5e-6,
                     1, 6.0),
}
STAGING_LATENCY = 10e-6  # one cudaMemcpy each way per message when staged (assumed)
UPDATE_BYTES = 48        # comm/halo.c vs_ghost_update_rec: x and vp as doubles
GHOST_BYTES = 64         # vs_ghost_rec: x, vp, tag, species, pad (rebuild steps)


def brick_geometry(n, density, p, width):
    """Brick edges, decomposition and per-stage ghost counts of a cubic box of n particles."""
    side = (n / density) ** (1.0 / 3.0)
    dims = choose_decomposition([side] * 3, p, width)
    if dims is None:
        return None
    b = [side / d for d in dims]
    # Stage d sends, in each direction, the slab of width w of the brick extended by the
    # ghosts received in the earlier stages (forwarding reaches edges and corners).
    areas = [b[1] * b[2], (b[0] + 2 * width) * b[2], (b[0] + 2 * width) * (b[1] + 2 * width)]
    per_dir = [density * width * areas[d] for d in range(3)]
    ghosts = 2 * sum(per_dir)
    return dims, b, per_dir, ghosts


def inter_node_dims(dims, gpus_per_node):
    """Which dimensions' neighbours sit on another node (ranks placed in Cartesian order)."""
    px, py, pz = dims
    out = []
    for d in range(3):
        cross = False
        for r in range(px * py * pz):
            c = [r // (py * pz), (r // pz) % py, r % pz]
            c[d] = (c[d] + 1) % dims[d]
            q = (c[0] * py + c[1]) * pz + c[2]
            if q // gpus_per_node != r // gpus_per_node:
                cross = True
                break
        out.append(cross)
    return out


def halo_time(geo, p, net, rebuild_frac, fit_bw=None, fit_lat=None):
    """Seconds per step for ghost messages and the per-step reduction (see docs/scaling.md)."""
    dims, _, per_dir, _ = geo
    _, bw_in, lat_in, bw_out, lat_out, gpn, stage_bw = net
    cross = inter_node_dims(dims, gpn) if p > gpn else [False] * 3
    t = 0.0
    for d in range(3):
        if dims[d] == 1:
            continue  # a rank exchanging with itself copies memory: no message
        bw = (bw_out if cross[d] else bw_in) * 1e9
        lat = lat_out if cross[d] else lat_in
        if fit_bw is not None:
            bw, lat = fit_bw, fit_lat
        # Per direction and step: update messages (48 B per ghost); on rebuild steps also
        # counts and records for migration and ghosts (64 B per ghost): 4 messages.
        byts = per_dir[d] * ((1 - rebuild_frac) * UPDATE_BYTES + rebuild_frac * GHOST_BYTES)
        msgs = 1 + 3 * rebuild_frac
        one = msgs * lat + byts / bw
        if stage_bw and fit_bw is None:
            one += 2 * (msgs * STAGING_LATENCY + byts / (stage_bw * 1e9))
        t += 2 * one  # two directions, one after the other
    lat_red = (lat_out if p > gpn else lat_in) if fit_lat is None else fit_lat
    t += math.ceil(math.log2(p)) * lat_red if p > 1 else 0.0
    return t


def compute_time(par, n_local, ghosts):
    return par["t0"] + par["c"] * (n_local + par["g"] * ghosts)


def cmd_model(a):
    import numpy as np
    plt = pyplot()
    rows = read_csv(a.csv)
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    os.makedirs(out, exist_ok=True)
    w = a.ghost_width
    net = INTERCONNECTS[a.interconnect]
    if a.gpus_per_node:
        net = net[:5] + (a.gpus_per_node,) + net[6:]
    builds = [r["neighbor_builds"] / r["steps"] for r in rows]
    rebuild = sum(builds) / len(builds) if builds else 1.0

    # 1. Compute: T(1) = t0 + c (N + g N_ghost(1)) from the one-rank points.
    ones = [r for r in rows if r["gpus"] == 1]
    if not ones:
        sys.exit("scaling.py model: needs measurements at 1 GPU (rank)")
    xs = [r["particles"] + a.ghost_cost * brick_geometry(r["particles"], a.density, 1, w)[3]
          for r in ones]
    ts = [r["time_per_step_s"] for r in ones]
    if len(set(round(x) for x in xs)) >= 2 and a.t0_us is None:
        c, t0 = np.polyfit(xs, ts, 1)
        if t0 < 0:
            c, t0 = float(np.dot(xs, ts) / np.dot(xs, xs)), 0.0
    else:
        t0 = (a.t0_us or 0.0) * 1e-6
        c = float(np.mean([(t - t0) / x for t, x in zip(ts, xs)]))
    par = {"c": float(c), "t0": float(t0), "g": a.ghost_cost}

    # 2. Link: the multi-rank residual T(P) - compute(P) against the halo model, as an
    # effective bandwidth with the stated latency (reported, and used for the 'fitted' curve).
    multi = [r for r in rows if r["gpus"] > 1]
    fit = None
    if multi:
        resid, byts, msgs = [], [], []
        for r in multi:
            geo = brick_geometry(r["particles"], a.density, int(r["gpus"]), w)
            resid.append(r["time_per_step_s"]
                         - compute_time(par, r["particles"] / r["gpus"], geo[3]))
            dims, _, per_dir, _ = geo
            b = sum(2 * per_dir[d] * ((1 - rebuild) * UPDATE_BYTES + rebuild * GHOST_BYTES)
                    for d in range(3) if dims[d] > 1)
            m = sum(2 * (1 + 3 * rebuild) for d in range(3) if dims[d] > 1)
            m += math.ceil(math.log2(r["gpus"]))
            byts.append(b)
            msgs.append(m)
        lat = a.fit_latency_us * 1e-6
        num = sum(b for b in byts)
        rest = sum(rr - m * lat for rr, m in zip(resid, msgs))
        fit = {"latency_s": lat, "residual_s": resid, "bytes_per_step": byts,
               "messages_per_step": msgs,
               "bandwidth_Bps": (num / rest) if rest > 0 else float("inf")}

    # 3. Predict weak and strong to max_gpus over the stated interconnect.
    ps = [2 ** k for k in range(int(math.log2(a.max_gpus)) + 1)]
    weak_n = {r["particles_per_gpu"] for r in rows if r["series"] == "weak"}
    strong_n = {r["particles"] for r in rows if r["series"] == "strong"}
    if a.predict_weak:
        weak_n = {float(x) for x in a.predict_weak.split(",")}
    if a.predict_strong:
        strong_n = {float(x) for x in a.predict_strong.split(",")}
    cases = [("weak", n) for n in sorted(weak_n)] + [("strong", n) for n in sorted(strong_n)]
    if a.tang_karniadakis:
        cases += [("weak", 1e6), ("strong", 2e6)]
    cases = list(dict.fromkeys(cases))
    pred = []
    for s, n in cases:
        t1 = None
        for p in ps:
            total = n * p if s == "weak" else n
            geo = brick_geometry(total, a.density, p, w)
            if geo is None:
                break  # bricks thinner than the ghost width: the series ends here
            tc = compute_time(par, total / p, geo[3])
            if a.interconnect == "fitted":
                if not fit or not math.isfinite(fit["bandwidth_Bps"]):
                    sys.exit("scaling.py model: --interconnect fitted needs multi-rank points "
                             "slower than the compute model")
                th = halo_time(geo, p, net, rebuild, fit["bandwidth_Bps"], fit["latency_s"])
            else:
                th = halo_time(geo, p, net, rebuild)
            t = tc + th
            t1 = t1 or t
            eff = t1 / t if s == "weak" else t1 / (p * t)
            pred.append({"series": s, "n": n, "gpus": p, "particles": total,
                         "decomposition": "x".join(map(str, geo[0])), "compute_s": tc,
                         "halo_s": th, "time_per_step_s": t,
                         "particle_steps_per_s": total / t, "efficiency": eff})

    with open(os.path.join(out, "model.csv"), "w", newline="") as f:
        f.write(f"# model of {a.csv}: interconnect {a.interconnect}: {net[0]}; "
                f"{net[5]} GPUs per node\n")
        f.write(f"# t0 = {par['t0']:.4g} s, c = {par['c']:.4g} s/particle, g = {par['g']}, "
                f"ghost width {w}, density {a.density}, rebuild fraction {rebuild:.3f}\n")
        wr = csv.DictWriter(f, fieldnames=list(pred[0].keys()))
        wr.writeheader()
        wr.writerows(pred)
    summary = {"source": a.csv, "interconnect": a.interconnect, "interconnect_text": net[0],
               "compute": par, "rebuild_fraction": rebuild, "ghost_width": w,
               "density": a.density, "fit_from_multi_rank": fit,
               "measured_header": header_of(a.csv)}
    with open(os.path.join(out, "model.json"), "w") as f:
        json.dump(summary, f, indent=1, default=float)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    colors = {}
    for s, n in cases:
        pts = [q for q in pred if q["series"] == s and q["n"] == n]
        tk = a.tang_karniadakis and (s, n) in (("weak", 1e6), ("strong", 2e6))
        lab = (f"{s}, {n:.3g} {'per GPU' if s == 'weak' else 'total'} (model"
               f"{', T&K size' if tk else ''})")
        ls = ":" if tk else "-"
        l1, = axes[0].plot([q["gpus"] for q in pts], [q["particle_steps_per_s"] for q in pts],
                           ls, label=lab)
        axes[1].plot([q["gpus"] for q in pts], [q["efficiency"] for q in pts], ls,
                     color=l1.get_color(), label=lab)
        colors[(s, n)] = l1.get_color()
    for s in ("weak", "strong"):
        pts = sorted((r for r in rows if r["series"] == s), key=lambda r: r["gpus"])
        if not pts:
            continue
        key = (s, pts[0]["particles_per_gpu"] if s == "weak" else pts[0]["particles"])
        col = colors.get(key, "k")
        axes[0].plot([r["gpus"] for r in pts], [r["particle_steps_per_s"] for r in pts], "o",
                     color=col, label=f"{s}, measured")
        axes[1].plot([r["gpus"] for r in pts], [r["efficiency"] for r in pts], "o", color=col,
                     label=f"{s}, measured")
    single = [r for r in rows if r["series"] not in ("weak", "strong")]
    if single:
        axes[0].plot([r["gpus"] for r in single], [r["particle_steps_per_s"] for r in single],
                     "kx", label="measured, one GPU")
    if a.tang_karniadakis:
        fig.text(0.5, 0.01, "Tang & Karniadakis (TITAN, one K20X per node, text of their "
                 "Figs 12-13): weak, 1M per node: nearly linear to 1024 nodes; strong, 2M "
                 "total: satisfactory to 64 nodes, then falls; limit at 512-1024 nodes",
                 ha="center", fontsize=7.5)
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPUs (ranks)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_yscale("log")
    axes[0].set_ylabel("particle-steps / s")
    axes[1].set_ylabel("parallel efficiency")
    axes[1].set_ylim(0, 1.1)
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Measured (points) and modelled (lines); model interconnect: "
                 f"{a.interconnect}", fontsize=9)
    fig.tight_layout(rect=(0, 0.04 if a.tang_karniadakis else 0, 1, 1))
    fig.savefig(os.path.join(out, "model.png"), dpi=120)
    print(f"t0 = {par['t0']:.4g} s/step, c = {par['c']:.4g} s per particle-step, g = {par['g']}")
    if fit:
        print(f"multi-rank residuals (s/step): {[f'{x:.3g}' for x in fit['residual_s']]}; "
              f"effective bandwidth at {fit['latency_s'] * 1e6:g} us latency: "
              f"{fit['bandwidth_Bps'] / 1e9:.3g} GB/s")
    for s, n in cases:
        pts = [q for q in pred if q["series"] == s and q["n"] == n]
        print(f"{s} {n:.3g}: " + ", ".join(f"P={q['gpus']}: E={q['efficiency']:.2f}"
                                           for q in pts if q["gpus"] in (1, 8, 64, 512, 1024)))
    print(f"wrote model.csv model.json model.png in {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the weak and strong series")
    r.add_argument("--binary", default="build/vesica")
    r.add_argument("--config", default=os.path.join(HERE, "gpu-fluid.cfg"))
    r.add_argument("--backend", choices=["cpu", "gpu", "auto"], default="auto")
    r.add_argument("--launcher", choices=["mpirun", "srun"], default="mpirun")
    r.add_argument("--launcher-args", default="",
                   help='extra launcher options as one string: --launcher-args="--bind-to none"')
    r.add_argument("--gpus", default="1,2", help="rank (GPU) counts, comma-separated")
    r.add_argument("--gpus-per-node", type=int, default=4, help="srun + gpu backend only")
    r.add_argument("--series", default="weak,strong")
    r.add_argument("--weak-per-gpu", type=int, default=1_000_000)
    r.add_argument("--strong-total", type=int, default=1_000_000)
    r.add_argument("--density", type=float, default=3.0)
    r.add_argument("--ghost-width", type=float, default=1.3,
                   help="r_c + skin, only to report the decomposition (default 1.3)")
    r.add_argument("--steps", type=int, default=200)
    r.add_argument("--warmup", type=int, default=50)
    r.add_argument("--repeat", type=int, default=1,
                   help="run each point this many times and keep the fastest (default 1)")
    r.add_argument("--set", action="append", help="extra vesica --set key=value")
    r.add_argument("--timeout", type=float, default=None, help="seconds per run")
    r.add_argument("--dry-run", action="store_true")
    r.add_argument("--out", required=True)
    p = sub.add_parser("plot", help="PNG plots of a scaling.csv")
    p.add_argument("csv")
    p.add_argument("--out")
    m = sub.add_parser("model", help="fit the performance model and extrapolate")
    m.add_argument("csv")
    m.add_argument("--out")
    m.add_argument("--interconnect", choices=sorted(INTERCONNECTS), default="h100-nvl-ndr")
    m.add_argument("--max-gpus", type=int, default=1024)
    m.add_argument("--gpus-per-node", type=int,
                   help="GPUs per node behind the intra-node link (default: the interconnect's)")
    m.add_argument("--density", type=float, default=3.0)
    m.add_argument("--ghost-width", type=float, default=1.3, help="r_c + skin")
    m.add_argument("--ghost-cost", type=float, default=0.25,
                   help="cost of a ghost relative to an owned particle (assumed, g)")
    m.add_argument("--t0-us", type=float, default=None,
                   help="fixed cost per step in us (default: fitted when two sizes were run "
                        "on one GPU, else 0)")
    m.add_argument("--fit-latency-us", type=float, default=3.0,
                   help="latency assumed when fitting the effective link bandwidth")
    m.add_argument("--predict-weak", help="particles per GPU to predict, comma-separated "
                   "(default: the CSV's weak series)")
    m.add_argument("--predict-strong", help="total particles to predict, comma-separated "
                   "(default: the CSV's strong series)")
    m.add_argument("--tang-karniadakis", action="store_true",
                   help="also predict their cases: weak 1M per GPU, strong 2M total")
    a = ap.parse_args()
    if a.cmd == "run":
        a.out = os.path.abspath(a.out)
        if a.launcher == "mpirun" and a.backend == "gpu" and not a.launcher_args:
            a.launcher_args = "--bind-to none"
    {"run": cmd_run, "plot": cmd_plot, "model": cmd_model}[a.cmd](a)


if __name__ == "__main__":
    main()
