#!/usr/bin/env python3
"""Reactions on the GPU backend (docs/validation.md, "Reactions"):
reactions_gpu.py VESICA OUTDIR MODE PRECISION   (PRECISION: double or mixed)

The GPU runs every reaction step on the device (gpu/gpu_reaction.h) unless
VESICA_GPU_REACTIONS=mirror sends it through the host mirror (a CPU state over the host
particles); the modes cpu, ranks and restart take the device path, the device modes compare
the two. The network of reactions_check.py (creation with angles, breaking, chain growth,
every 10 steps; the special-pair soft style where named):
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
The device modes compare runs as `same_runs` says (mixed precision: thermo.csv and the final
checkpoint bit-identical; double precision: the final topology and the reaction columns
identical, the rest within 1e-7 relative) and the CPU in mixed precision by its event totals
(within 10 %):
  device   chain growth alone (the network's chain rule with its angles), 200 steps: the log
           names the device path; against the same run through the host mirror, against the
           CPU, on 2 and 4 ranks against 1, and restarted at step 55.
  rules    creation and breaking: the network plus a creation rule between two species with
           different bond limits (S-B, at most 1 and 3 bonds, so a B bead's count decides
           between the B-B rule's 2 and this one's 3: the ghosts' bond counts) and a third
           breaking rule, 200 steps: the device path against the host mirror on 1 and on 2
           ranks, against the CPU, and on 2 ranks against 1; in mixed precision at skin 0
           on one rank (the steps between reaction steps as CUDA graphs, the ghosts' number
           on the device) against the same with the number read back
           (VESICA_GPU_GHOSTS_ON_DEVICE=0).
  special  the network with the special-pair soft style (the special lists rebuilt on the
           device path from fetched copies), 100 steps: every reaction step predicted
           exactly (as in cpu) and the final special lists those of the final bond graph;
           against the host mirror on 1 and on 2 ranks, and against the CPU. In mixed
           precision the soft style's sums are not fixed point and the mirror's reload
           restarts the Morton reorders, so there every run (device and mirror, 1 and 2
           ranks) is checked against the rules and its bond graph and the events compared
           as totals.
Exits 77 (skip) without a GPU.
"""
import os
import re
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
            k = same_topology(rc.last_checkpoint(a), rc.last_checkpoint(b))
            events = [[r[c] for c in RX_COLUMNS] for r in rc.rows(a)] == \
                [[r[c] for c in RX_COLUMNS] for r in rc.rows(b)]
            sys.exit(f"{what}: thermo.csv differs (the reaction columns "
                     f"{'identical' if events else 'differ'}; the final topology "
                     f"{'identical' if not k else 'differs in ' + k})")
        diff = rc.same_checkpoints(rc.last_checkpoint(a), rc.last_checkpoint(b))
        if diff:
            sys.exit(f"{what}: the final checkpoint's {diff} differs")
        return
    k = same_topology(rc.last_checkpoint(a), rc.last_checkpoint(b))
    if k:
        sys.exit(f"{what}: the final checkpoint's {k} differs")
    compare_thermo(a, b, 1e-7, what)


def mirror_run(name, text, ranks=1):
    """The run through the host mirror (VESICA_GPU_REACTIONS=mirror)."""
    os.environ["VESICA_GPU_REACTIONS"] = "mirror"
    try:
        d, p = rc.run(name, text, ranks=ranks, sets=[f"precision={PREC}"], backend="gpu")
    finally:
        del os.environ["VESICA_GPU_REACTIONS"]
    if "through the host mirror" not in p.stdout + p.stderr:
        sys.exit(f"{name}: VESICA_GPU_REACTIONS=mirror did not take the host mirror")
    return d


def device_run(name, text, ranks=1, sets=(), log=None):
    d, p = rc.run(name, text, ranks=ranks, sets=[f"precision={PREC}"] + list(sets),
                  backend="gpu")
    if "reaction steps run on the device" not in p.stdout + p.stderr:
        sys.exit(f"{name}: the log does not name the device path")
    if log is not None:
        log.append(p.stdout + p.stderr)
    return d


def graphs_run(name, text):
    """Skin 0 on one rank: the ghosts' number stays on the device and the steps between
    reaction steps run as CUDA graphs (marks, images and the tag map with bonds, nothing read
    back), a reaction step as two (up to its events, and from the rebuild after them, where
    no rule breaks bonds: breaking reads the ghosts' number back); against the same run with
    the number read back on every build, launched call by call. Returns the steps run as one
    graph, and the reaction steps' parts run as graphs (before, after the events)."""
    # thermo rows and frames every 25 steps: most reaction steps (every 10) then need no
    # energies, which would make them run call by call
    sets = ["neighbor.skin=0", "output.thermo_interval=25", "output.trajectory_interval=25"]
    log = []
    d = device_run(name, text, sets=sets, log=log)
    graphs = [ln for ln in log[0].splitlines() if ln.startswith("GPU graphs: ")]
    if not graphs or graphs[0].split()[2] == "0":
        sys.exit(f"{name}: no step ran as a graph ({graphs})")
    m = re.search(r"up to their events (\d+) times and after them (\d+) times", graphs[0])
    parts = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    if parts[0] == 0:
        sys.exit(f"{name}: no reaction step ran as graphs ({graphs})")
    os.environ["VESICA_GPU_GHOSTS_ON_DEVICE"] = "0"
    try:
        h = device_run(f"{name}-host", text, sets=sets)
    finally:
        del os.environ["VESICA_GPU_GHOSTS_ON_DEVICE"]
    same_runs(d, h, f"{name}: graphs against the count read back")
    return int(graphs[0].split()[2]), parts


def totals(d):
    """The run's events: (chain, created, broken; 0 where the run has no such column)."""
    r = rc.rows(d)
    return [sum(float(x.get(k, 0.0)) for x in r)
            for k in ("reactions", "bonds_created", "bonds_broken")]


def close_totals(a, b, what):
    """The events of two runs that part at round-off: totals within 10 %."""
    ta, tb = totals(a), totals(b)
    if any(abs(x - y) > 0.1 * max(y, 10.0) for x, y in zip(ta, tb)):
        sys.exit(f"{what}: events (chain, created, broken) {ta} against {tb}")


def against_cpu(d, text, name):
    dc, _ = rc.run(f"{name}-cpu", text)
    if PREC == "double":
        same_runs(d, dc, f"{name}: device against the CPU")
    else:
        close_totals(d, dc, f"{name}: device against the CPU")


def check_device():
    text = chain_config(200)
    d = device_run(f"gpu-device-{PREC}", text)
    same_runs(d, mirror_run(f"gpu-device-{PREC}-mirror", text), "device against the host mirror")
    against_cpu(d, text, f"gpu-device-{PREC}")
    for n in (2, 4):
        same_runs(d, gpu(f"gpu-device-{PREC}-{n}", text, ranks=n), f"device on {n} ranks")
    chain = totals(d)[0]
    if chain < 100:
        sys.exit(f"device: only {chain:.0f} chain reactions")
    how = "bit-identical" if PREC == "mixed" else "the same topology, thermo to round-off"
    graphs = ""
    if PREC == "mixed":  # graphs take the mixed precision's Newton path only
        steps, (before, after) = graphs_run(f"gpu-device-{PREC}-skin0", text)
        if after == 0:
            sys.exit("device: at skin 0 no reaction step ran as a graph after its events")
        graphs = (f"; at skin 0 {steps} steps as graphs, reaction steps {before} times up to "
                  f"their events and {after} times after them, {how} to the count read back")
    print(f"device ({PREC}): {chain:.0f} chain reactions; the host mirror's run, the CPU's "
          f"and 2 and 4 GPU ranks' {how}{graphs}")
    check_restart(text, "device-restart")


def rules_config(steps):
    """The network with a creation rule S-B (S at most 1 bond, B at most 3, where the B-B
    rule allows 2) and a breaking rule S-B."""
    text = rc.network_config(steps=steps)
    last_create = 'angle = { style = "cosine"; K = 1.0; }; } );'
    last_break = '{ i = "P"; j = "P"; length = 1.0; probability = 0.3; } );'
    if last_create not in text or last_break not in text:
        sys.exit("rules: reactions_check.py's network has changed: update rules_config")
    text = text.replace(last_create, last_create[:-3] + """,
             { i = "S"; j = "B"; radius = 0.7; probability = 0.4; max_bonds_i = 1;
               max_bonds_j = 3; bond = { style = "harmonic"; K = 40.0; r0 = 0.7; }; } );""")
    return text.replace(last_break, last_break[:-3] + """,
            { i = "S"; j = "B"; length = 0.95; probability = 0.5; } );""")


def check_rules_device():
    text = rules_config(200)
    name = f"gpu-rules-{PREC}"
    d1 = device_run(name, text)
    same_runs(d1, mirror_run(f"{name}-mirror", text), "rules: device against the host mirror")
    against_cpu(d1, text, name)
    d2 = device_run(f"{name}-2", text, ranks=2)
    same_runs(d1, d2, "rules: device on 2 ranks against 1")
    same_runs(d2, mirror_run(f"{name}-mirror-2", text, ranks=2),
              "rules: device against the host mirror on 2 ranks")
    chain, created, broken = totals(d1)
    if created < 200 or broken < 100 or chain < 50:
        sys.exit(f"rules: too few events (chain {chain}, created {created}, broken {broken})")
    # graphs take the mixed precision's Newton path only
    graphs = graphs_run(f"{name}-skin0", text)[0] if PREC == "mixed" else None
    how = "bit-identical" if PREC == "mixed" else "the same topology, thermo to round-off"
    print(f"rules ({PREC}): {created:.0f} bonds made, {broken:.0f} broken, {chain:.0f} chain "
          f"reactions on the device; the host mirror's runs (1 and 2 ranks), 2 ranks' "
          f"{how}; the CPU's " +
          ("the same" if PREC == "double" else "events within 10 %") +
          (f"; at skin 0 {graphs} steps as graphs, {how} to the count read back"
           if graphs else ""))


def special_lists_match(d):
    """The final checkpoint's special lists (the soft style's 1-2 and 1-3) against its bond
    graph's."""
    t = particles(rc.last_checkpoint(d), ("bonds", "special"))
    bad, nonempty = rc.special_mismatches(t["bonds"], t["special"])
    if bad or nonempty == 0:
        sys.exit(f"special: {d}: {bad} special lists differ from the bond graph's "
                 f"({nonempty} not empty)")
    return nonempty


def check_special_device():
    text = rc.network_config(steps=100, special=True)
    name = f"gpu-special-{PREC}"
    d1 = device_run(name, text)
    counts, skipped, n = rc.check_rules(d1)
    lists = special_lists_match(d1)
    m1 = mirror_run(f"{name}-mirror", text)
    d2 = device_run(f"{name}-2", text, ranks=2)
    m2 = mirror_run(f"{name}-mirror-2", text, ranks=2)
    against_cpu(d1, text, name)
    if PREC == "double":
        same_runs(d1, m1, "special: device against the host mirror")
        same_runs(d2, m2, "special: device against the host mirror on 2 ranks")
        special_lists_match(d2)
        how = "the same topology, thermo to round-off"
    else:
        # The soft style's sums are not fixed point and the host mirror's reload starts the
        # Morton reorders afresh (another particle order), so the two paths part at fp32
        # round-off: each run's reaction steps against the rules from its own frames, its
        # special lists against its bond graph, and the events as totals.
        for d in (m1, d2, m2):
            rc.check_rules(d)
            special_lists_match(d)
        close_totals(d1, m1, "special: device against the host mirror")
        close_totals(d2, m2, "special: device against the host mirror on 2 ranks")
        how = ("each predicted exactly from its own frames, its special lists its bond "
               "graph's, the events within 10 %")
    print(f"special ({PREC}): {n} reaction steps of the device run predicted exactly "
          f"({skipped} ambiguous): {counts.tolist()} (broken, created, chain); {lists} special "
          f"lists not empty, all the bond graph's; the host mirror's runs (1 and 2 ranks) and "
          f"2 device ranks: {how}")


if __name__ == "__main__":
    if not gpu_visible(rc.VESICA):
        print("no GPU visible: skipped")
        sys.exit(77)
    os.makedirs(rc.OUT, exist_ok=True)
    {"cpu": check_cpu, "ranks": check_ranks, "restart": check_restart,
     "device": check_device, "rules": check_rules_device,
     "special": check_special_device}[rc.MODE]()
