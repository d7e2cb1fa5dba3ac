#!/usr/bin/env python3
"""Reactions on the GPU backend (docs/validation.md, "Reactions"):
reactions_gpu.py VESICA OUTDIR MODE PRECISION   (PRECISION: double or mixed)

The network of reactions_check.py (creation with angles, breaking, chain growth, every 10
steps; the special-pair soft style where named):
  cpu      100 steps on the GPU and on the CPU backend, one rank. Every reaction step of the
           GPU run against the Python re-implementation of the rules (reactions_check.py's
           predict(), from the GPU run's own frames): exact. Against the CPU run: in double
           precision the final checkpoint's topology (bonds and their types, angles, species,
           molecule ids, special lists) and thermo.csv's reaction columns identical, the other
           columns within 1e-7 relative (the GPU's double forces are summed in another
           order, so the trajectories part at round-off); in mixed precision the reaction
           columns' totals within 10 % and the temperature within 2 %.
  ranks    200 steps on 1, 2 and 4 ranks (without the soft style, whose sums are not fixed
           point): in mixed precision thermo.csv, the final checkpoint's particles and
           topology and traj.h5md's connectivity bit-identical; in double precision (equal to
           round-off across rank counts, README "Exactness") the final topology and the
           reaction columns identical, the rest within 1e-7 relative.
  restart  the network restarted from its checkpoint at step 55 (intervals of 10): mixed
           precision 2 ranks then 1, double precision 1 and 1; thermo.csv and the final
           checkpoint bit-identical to the run straight through.
  device   chain growth alone (the network's chain rule with its angles, no creation or
           breaking), which the GPU runs on the device (gpu/gpu_reaction.h; the modes above
           go through the host mirror), 200 steps: the log names the device path; against
           the same run through the host mirror (VESICA_GPU_REACTIONS=mirror), against the
           CPU, on 2 and 4 ranks against 1, and restarted at step 55, as the modes above
           compare (mixed precision: thermo.csv and the final checkpoint bit-identical to the
           mirror's, the other rank counts' and the run straight through; double precision:
           the final topology and the reaction columns identical, the rest within 1e-7
           relative; the CPU in mixed precision: event totals within 10 %).
Exits 77 (skip) without a GPU.
"""
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from vesica_env import gpu_visible  # noqa: E402

import reactions_check as rc  # noqa: E402  (reads VESICA OUTDIR MODE from sys.argv)

PREC = sys.argv[4] if len(sys.argv) > 4 else "mixed"
RX_COLUMNS = ("reactions", "conversion", "active_ends", "bonds_created", "bonds_broken")
TOPOLOGY = ("tag", "bonds", "bond_types", "angles", "angle_types", "species", "molecule",
            "special")


def gpu(name, text, ranks=1, sets=(), restart=False):
    return rc.run(name, text, ranks=ranks, sets=[f"precision={PREC}"] + list(sets),
                  restart=restart, backend="gpu")[0]


def particles(path, keys):
    import h5py
    with h5py.File(path, "r") as f:
        p = f["particles"]
        order = np.argsort(p["tag"][:])
        return {k: p[k][:][order] for k in keys if k in p}


def same_topology(a, b):
    ta, tb = particles(a, TOPOLOGY), particles(b, TOPOLOGY)
    for k in ta:
        if not np.array_equal(ta[k], tb[k]):
            return k
    return None


def compare_thermo(da, db, rel, what):
    """Reaction columns equal, the others within rel (relative to the column's scale)."""
    ra_, rb = rc.rows(da), rc.rows(db)
    if len(ra_) != len(rb):
        sys.exit(f"{what}: {len(ra_)} thermo rows against {len(rb)}")
    worst = 0.0
    for x, y in zip(ra_, rb):
        for k in x:
            if k in RX_COLUMNS:
                if x[k] != y[k]:
                    sys.exit(f"{what}: step {x['step']}: {k} {x[k]} against {y[k]}")
                continue
            u, v = float(x[k]), float(y[k])
            scale = max(abs(u), abs(v), 1.0)
            worst = max(worst, abs(u - v) / scale)
    if worst > rel:
        sys.exit(f"{what}: thermo differs by {worst:.3g} relative (at most {rel})")
    return worst


def check_cpu():
    text = rc.network_config(steps=100, special=True)
    dg = gpu(f"gpu-cpu-{PREC}-gpu", text)
    counts, skipped, n = rc.check_rules(dg)
    dc, _ = rc.run(f"gpu-cpu-{PREC}-cpu", text)
    if PREC == "double":
        k = same_topology(rc.last_checkpoint(dg), rc.last_checkpoint(dc))
        if k:
            sys.exit(f"cpu: the final checkpoint's {k} differs between the GPU and the CPU")
        worst = compare_thermo(dg, dc, 1e-7, "cpu")
        how = f"topology and reaction columns identical to the CPU's, thermo within {worst:.2g}"
    else:
        tg = [sum(float(r[k]) for r in rc.rows(dg)) for k in RX_COLUMNS[3:] + ("reactions",)]
        tc = [sum(float(r[k]) for r in rc.rows(dc)) for k in RX_COLUMNS[3:] + ("reactions",)]
        if any(abs(a - b) > 0.1 * max(b, 10.0) for a, b in zip(tg, tc)):
            sys.exit(f"cpu: event totals (created, broken, chain) {tg} against the CPU's {tc}")
        T = [float(rc.rows(d)[-1]["temperature"]) for d in (dg, dc)]
        if abs(T[0] - T[1]) > 0.02 * T[1]:
            sys.exit(f"cpu: final temperature {T[0]} against the CPU's {T[1]}")
        how = f"events (created, broken, chain) {tg} against the CPU's {tc}"
    print(f"cpu ({PREC}): {n} reaction steps of the GPU run predicted exactly ({skipped} "
          f"ambiguous): {counts.tolist()} (broken, created, chain); {how}")


def check_ranks():
    import h5py
    text = rc.network_config(steps=200)
    out = [gpu(f"gpu-ranks-{PREC}-{n}", text, ranks=n) for n in (1, 2, 4)]
    for d in out[1:]:
        if PREC == "mixed":
            if open(os.path.join(d, "thermo.csv")).read() != \
                    open(os.path.join(out[0], "thermo.csv")).read():
                sys.exit(f"ranks: thermo.csv of {d} differs from 1 rank's")
            diff = rc.same_checkpoints(rc.last_checkpoint(out[0]), rc.last_checkpoint(d))
            if diff:
                sys.exit(f"ranks: {d}: final checkpoint's {diff} differs from 1 rank's")
            with h5py.File(os.path.join(out[0], "traj.h5md"), "r") as fa, \
                    h5py.File(os.path.join(d, "traj.h5md"), "r") as fb:
                for k in ("connectivity/bonds/value", "connectivity/angles/value",
                          "particles/all/species/value", "particles/all/molecule/value"):
                    if not np.array_equal(fa[k][:], fb[k][:]):
                        sys.exit(f"ranks: {d}: traj.h5md {k} differs from 1 rank's")
        else:
            k = same_topology(rc.last_checkpoint(out[0]), rc.last_checkpoint(d))
            if k:
                sys.exit(f"ranks: {d}: the final checkpoint's {k} differs from 1 rank's")
            compare_thermo(out[0], d, 1e-7, f"ranks {d}")
    r = rc.rows(out[0])
    how = "bit-identical" if PREC == "mixed" else "the same topology, thermo to round-off"
    print(f"ranks ({PREC}): 1, 2 and 4 GPU ranks {how}; bonds made "
          f"{sum(float(x['bonds_created']) for x in r):.0f}, broken "
          f"{sum(float(x['bonds_broken']) for x in r):.0f}, chain "
          f"{sum(float(x['reactions']) for x in r):.0f}")


def check_restart(text=None, name="restart"):
    text = text or rc.network_config(steps=200)
    sets = ["output.checkpoint_interval=55", "output.checkpoint_keep=10"]
    first, second = (2, 1) if PREC == "mixed" else (1, 1)
    d = gpu(f"gpu-{name}-{PREC}", text, ranks=first, sets=sets)
    full = open(os.path.join(d, "thermo.csv")).read()
    final = os.path.join(rc.OUT, f"gpu-{name}-{PREC}-final.h5")
    shutil.copy(rc.last_checkpoint(d), final)
    for s in (110, 165, 200):
        os.remove(os.path.join(d, "checkpoints", f"ckpt_{s}.h5"))
    gpu(f"gpu-{name}-{PREC}", text, ranks=second, sets=sets, restart=True)
    if open(os.path.join(d, "thermo.csv")).read() != full:
        sys.exit("restart: from step 55 the rows differ")
    diff = rc.same_checkpoints(final, rc.last_checkpoint(d))
    if diff:
        sys.exit(f"restart: the final checkpoint's {diff} differs")
    print(f"{name} ({PREC}): from step 55 (intervals of 10), {first} GPU ranks then "
          f"{second}: thermo.csv and the final checkpoint exact")


def chain_config(steps):
    """The network's chain rule alone (with its angles): what the GPU runs on the device."""
    head, tail = rc.network_config(steps=steps).split("  create = (")
    return head.rstrip() + " };\n" + tail[tail.index("output = "):]


def same_runs(a, b, what):
    """Mixed precision: thermo.csv and the final checkpoint bit-identical; double: the final
    topology and the reaction columns identical, the rest within 1e-7 relative."""
    if PREC == "mixed":
        if open(os.path.join(a, "thermo.csv")).read() != \
                open(os.path.join(b, "thermo.csv")).read():
            sys.exit(f"{what}: thermo.csv differs")
        diff = rc.same_checkpoints(rc.last_checkpoint(a), rc.last_checkpoint(b))
        if diff:
            sys.exit(f"{what}: the final checkpoint's {diff} differs")
        return
    k = same_topology(rc.last_checkpoint(a), rc.last_checkpoint(b))
    if k:
        sys.exit(f"{what}: the final checkpoint's {k} differs")
    compare_thermo(a, b, 1e-7, what)


def check_device():
    text = chain_config(200)
    d, p = rc.run(f"gpu-device-{PREC}", text, sets=[f"precision={PREC}"], backend="gpu")
    if "reaction steps run on the device" not in p.stdout + p.stderr:
        sys.exit("device: the log does not name the device path")
    os.environ["VESICA_GPU_REACTIONS"] = "mirror"
    try:
        dm, pm = rc.run(f"gpu-device-{PREC}-mirror", text, sets=[f"precision={PREC}"],
                        backend="gpu")
    finally:
        del os.environ["VESICA_GPU_REACTIONS"]
    if "through the host mirror" not in pm.stdout + pm.stderr:
        sys.exit("device: VESICA_GPU_REACTIONS=mirror did not take the host mirror")
    same_runs(d, dm, "device against the host mirror")
    dc, _ = rc.run(f"gpu-device-{PREC}-cpu", text)
    if PREC == "double":
        same_runs(d, dc, "device against the CPU")
    else:
        tg = sum(float(r["reactions"]) for r in rc.rows(d))
        tc = sum(float(r["reactions"]) for r in rc.rows(dc))
        if abs(tg - tc) > 0.1 * max(tc, 10.0):
            sys.exit(f"device: {tg} chain reactions against the CPU's {tc}")
    for n in (2, 4):
        same_runs(d, gpu(f"gpu-device-{PREC}-{n}", text, ranks=n), f"device on {n} ranks")
    chain = sum(float(r["reactions"]) for r in rc.rows(d))
    if chain < 100:
        sys.exit(f"device: only {chain:.0f} chain reactions")
    how = "bit-identical" if PREC == "mixed" else "the same topology, thermo to round-off"
    print(f"device ({PREC}): {chain:.0f} chain reactions; the host mirror's run, the CPU's "
          f"and 2 and 4 GPU ranks' {how}")
    check_restart(text, "device-restart")


if __name__ == "__main__":
    if not gpu_visible(rc.VESICA):
        print("no GPU visible: skipped")
        sys.exit(77)
    os.makedirs(rc.OUT, exist_ok=True)
    {"cpu": check_cpu, "ranks": check_ranks, "restart": check_restart,
     "device": check_device}[rc.MODE]()
