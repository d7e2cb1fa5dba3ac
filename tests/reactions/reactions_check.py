#!/usr/bin/env python3
"""End-to-end checks of reactions (docs/validation.md, "Reactions"):
reactions_check.py VESICA OUTDIR MODE [options]

  kinetics [--box L] [--steps S] [--seeds K]
           chain growth in a monomer bath: 3 % initiators, Pr = 0.3, tau = 50 steps; the
           chain lengths (from the final checkpoint's bonds) have mean 1 + n Pr and variance
           n Pr (1 - Pr) within 4 standard errors, the monomers bonded per interval [P*] Pr
           (thermo.csv), every chain is a path with its active end at one end
  rules    a network: creation (B-B, mutual nearest, at most 2 bonds, with angles), breaking
           (B-B beyond a length, P-P chains) and chain growth (initiators in a solvent of
           monomers) every 10 steps with a frame at each: from each frame's positions and the
           topology and species of the frame before, an independent Python implementation of
           the rules (the TEA pair hash, the choices, the conflicts) predicts every bond,
           angle and species of the next frame; they must agree exactly. The last frame's
           connectivity equals the final checkpoint's.
  special  the same network with soft pair styles scaling 1-2 and 1-3 pairs: every bead's
           special-neighbour list in the final checkpoint equals the one a breadth-first
           search of the final bond graph gives
  ranks    the network on 1, 2 and 4 ranks: thermo.csv, the final checkpoint's particles and
           topology, and traj.h5md's connectivity bit-identical
  restart  the network restarted from a checkpoint in the middle of an interval (step 55 of
           intervals of 10): thermo.csv and the final checkpoint's state the same as a run
           straight through that wrote the same checkpoint
  keys     the rules are a physics key: a restart with another Pr is refused naming them; a
           checkpoint without the key (older than reactions) restarts a plain run exactly
  bad      bad input exits 2 with one line naming the key: Pr outside [0, 1], an unknown
           species, a radius beyond bonded.reach or the ghost width, a monomer that is an
           end, a new end that is none, a reaction that frees a frozen particle, a break
           length beyond bonded.reach, an interval without rules, a frozen
           particle with a velocity in an input file
Reference values are the binomial law, [P*] Pr / tau and the Python re-implementation of the
rules, never Vesica's own output.
"""
import csv
import functools
import math
import os
import shutil
import sys

import numpy as np

VESICA, OUT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
ARGS = sys.argv[4:]
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scaling", "tools"))
import reaction_analysis as ra  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from vesica_env import run_case  # noqa: E402


def arg(name, default):
    return type(default)(ARGS[ARGS.index(name) + 1]) if name in ARGS else default


def matrix(names, value=25.0):
    rows = []
    for a in names:
        rows.append("%s = { %s };" % (a, " ".join(f"{b} = {value};" for b in names)))
    return "a = { " + " ".join(rows) + " };"


def kinetics_config(box, steps):
    names = ["I", "A", "P", "M"]
    return f"""box = [{box}, {box}, {box}]; density = 3.0; seed = 1;
species = ( {{ name = "I"; fraction = 0.03; }}, {{ name = "A"; fraction = 0.0; }},
            {{ name = "P"; fraction = 0.0; }}, {{ name = "M"; fraction = 0.97; }} );
dpd = {{ {matrix(names)} gamma = 4.5; kT = 1.0; }};
integrator = {{ dt = 0.02; steps = {steps}; }};
neighbor = {{ skin = 0.3; }};
bonded = {{ reach = 1.5; }};
reactions = {{ interval = 50;
  chain = {{ ends = {{ I = "P"; A = "P"; }}; monomer = "M"; new_end = "A";
            radius = 1.0; probability = 0.3;
            bond = {{ style = "harmonic"; K = 50.0; r0 = 0.5; }}; }}; }};
output = {{ dir = "unused"; thermo_interval = 50; }};
"""


NET_SPECIES = ["B", "S", "I", "A", "P"]


def network_config(steps=200, special=False, interval=10):
    pair = ""
    if special:
        pair = """pair = ( { style = "soft"; rc = 1.0; special = [0.0, 0.5, 1.0];
    coeff = { B = { B = { alpha = 5.0; }; }; P = { P = { alpha = 5.0; }; A = { alpha = 5.0; }; };
              A = { A = { alpha = 5.0; }; }; }; } );
"""
    return f"""box = [8.0, 8.0, 8.0]; density = 3.0; seed = 3;
species = ( {{ name = "B"; fraction = 0.25; }}, {{ name = "S"; fraction = 0.72; }},
            {{ name = "I"; fraction = 0.03; }}, {{ name = "A"; fraction = 0.0; }},
            {{ name = "P"; fraction = 0.0; }} );
dpd = {{ {matrix(NET_SPECIES)} gamma = 4.5; kT = 1.0; }};
{pair}integrator = {{ dt = 0.02; steps = {steps}; }};
neighbor = {{ skin = 0.3; }};
bonded = {{ reach = 1.6; }};
reactions = {{ interval = {interval};
  chain = {{ ends = {{ I = "P"; A = "P"; }}; monomer = "S"; new_end = "A";
            radius = 0.9; probability = 0.5;
            bond = {{ style = "harmonic"; K = 80.0; r0 = 0.6; }};
            angle = {{ style = "harmonic"; K = 2.0; theta0 = 150.0; }}; }};
  create = ( {{ i = "B"; j = "B"; radius = 0.8; probability = 0.7; max_bonds_i = 2;
               max_bonds_j = 2; bond = {{ style = "harmonic"; K = 60.0; r0 = 0.7; }};
               angle = {{ style = "cosine"; K = 1.0; }}; }} );
  break = ( {{ i = "B"; j = "B"; length = 1.0; probability = 0.5; }},
            {{ i = "P"; j = "P"; length = 1.0; probability = 0.3; }} ); }};
output = {{ dir = "unused"; thermo_interval = {interval}; trajectory_interval = {interval}; }};
"""


# run(name, text, ranks=1, sets=(), restart=False, expect=0, cwd=None, backend="cpu")
# -> (folder, process): on the CPU unless backend says otherwise (reactions_gpu.py)
run = functools.partial(run_case, VESICA, OUT, backend="cpu", tail=3000)


def rows(d):
    with open(os.path.join(d, "thermo.csv")) as f:
        return list(csv.DictReader(f))


def last_checkpoint(d):
    steps = sorted(int(f[5:-3]) for f in os.listdir(os.path.join(d, "checkpoints")))
    return os.path.join(d, "checkpoints", f"ckpt_{steps[-1]}.h5")


# ---- the kinetics ---------------------------------------------------------------------

def check_paths(t, ends):
    """Every chain is a path whose active end is an end of it."""
    ids = ra.species_ids(t, ends)
    n = len(t["species"])
    deg = np.bincount(t["pairs"].reshape(-1), minlength=n)
    if deg.max() > 2:
        sys.exit("a bead with more than two bonds in chain growth")
    heads = np.isin(t["species"], ids)
    if np.any(deg[heads] > 1):
        sys.exit("an active end in the middle of a chain")


def kinetics():
    box, steps, seeds = arg("--box", 12.0), arg("--steps", 2000), arg("--seeds", 1)
    n, pr = steps // 50, 0.3
    lengths, per, ends_total = [], [], 0
    for s in range(1, seeds + 1):
        d, _ = run(f"kinetics-{s}", kinetics_config(box, steps), sets=[f"seed={s}"])
        t = ra.load(last_checkpoint(d))
        check_paths(t, "I,A")
        lengths.append(ra.chain_lengths(t, "I,A"))
        r = rows(d)
        ends_total += int(float(r[0]["active_ends"]))
        per += [float(x["reactions"]) for x in r if int(x["step"]) > 0 and
                int(x["step"]) % 50 == 0]
        # conversion: the fraction of the monomers at step 0 the bonds took
        m0 = int(t["rx_state"][0])
        bonded = len(t["pairs"])
        if abs(float(r[-1]["conversion"]) - bonded / m0) > 1e-12:
            sys.exit(f"conversion {r[-1]['conversion']} is not bonds / [M]0 = {bonded / m0}")
    lengths = np.concatenate(lengths)
    m = len(lengths)
    mean_ref, var_ref = 1 + n * pr, n * pr * (1 - pr)
    se_mean = math.sqrt(var_ref / m)
    mu4 = var_ref * (1 + 3 * (n - 2) * pr * (1 - pr))
    se_var = math.sqrt((mu4 - (m - 3) / (m - 1) * var_ref ** 2) / m)
    mean, var = lengths.mean(), lengths.var(ddof=1)
    rate = float(np.mean(per))
    rate_ref = ends_total / seeds * pr
    rate_se = math.sqrt(ends_total / seeds * pr * (1 - pr) / (len(per) / seeds)) / math.sqrt(seeds)
    print(f"kinetics: {m} chains after {n} intervals at Pr = {pr}: mean length {mean:.4f} "
          f"(1 + n Pr = {mean_ref:.4f} +- {se_mean:.4f}), variance {var:.4f} "
          f"(n Pr (1 - Pr) = {var_ref:.4f} +- {se_var:.4f}); monomers per interval "
          f"{rate:.3f} ([P*] Pr = {rate_ref:.3f} +- {rate_se:.3f})")
    if abs(mean - mean_ref) > 4 * se_mean or abs(var - var_ref) > 4 * se_var:
        sys.exit("chain lengths are not binomial B(n, Pr) + 1")
    if abs(rate - rate_ref) > 4 * rate_se:
        sys.exit("the rate is not [P*] Pr / tau")


# ---- the rules, re-implemented ---------------------------------------------------------

M32 = 0xFFFFFFFF


def tea(k, v0, v1, cycles):
    s = 0
    for _ in range(cycles):
        s = (s + 0x9E3779B9) & M32
        v0 = (v0 + ((((v1 << 4) & M32) + k[0]) & M32 ^ ((v1 + s) & M32) ^
                    (((v1 >> 5) + k[1]) & M32))) & M32
        v1 = (v1 + ((((v0 << 4) & M32) + k[2]) & M32 ^ ((v0 + s) & M32) ^
                    (((v0 >> 5) + k[3]) & M32))) & M32
    return v0, v1


def reaction_bits(seed, step, stream, a, b):
    w = step ^ (stream << 56)
    k = (seed & M32, seed >> 32, w & M32, (w >> 32) & M32)
    sa = tea(k, a & M32, a >> 32, 16)
    sb = tea(k, b & M32, b >> 32, 16)
    return tea(k, sa[0] ^ sb[0], (sa[1] + sb[1]) & M32, 4)


def accept(bits, p):
    return (bits[1] + 0.5) / 4294967296.0 < p


class Topology:
    def __init__(self, n, pairs, angles, species):
        self.partners = [[] for _ in range(n)]
        for a, b in pairs:
            self.partners[a].append(b)
            self.partners[b].append(a)
        self.angles = {canon_angle(q) for q in angles}
        self.species = species.copy()

    def bonds(self):
        return {(a, b) for a in range(len(self.partners)) for b in self.partners[a] if a < b}


def canon_angle(q):
    q = tuple(int(v) for v in q)
    return min(q, q[::-1])


def frame(f, k):
    a = f["particles/all"]
    sp = a["species/value"][k]
    b = f["connectivity/bonds/value"][k]
    an = f["connectivity/angles/value"][k]
    return (a["position/value"][k], sp, b[b[:, 0] >= 0], an[an[:, 0] >= 0],
            int(a["position/step"][k]), np.diag(a["box/edges/value"][k]))


def min_image_r2(x, i, j, box):
    d = x[i] - x[j]
    d -= box * np.round(d / box)
    return float(d @ d)


class Ambiguous(Exception):
    pass


def near(r2, limit2):
    if abs(r2 - limit2) < 1e-9 * max(limit2, 1.0):
        raise Ambiguous()
    return r2 <= limit2


def predict(top, x, box, step, seed, names):
    """The topology after the reaction step `step` (the rules of network_config)."""
    S = {s: k for k, s in enumerate(names)}
    n = len(top.species)
    sp = top.species
    nb = [len(p) for p in top.partners]
    bonds0 = top.bonds()
    # breaking: B-B beyond 1.0 with 0.5 (rule 0), P-P beyond 1.0 with 0.3 (rule 1)
    rules_break = [((S["B"], S["B"]), 1.0, 0.5), ((S["P"], S["P"]), 1.0, 0.3)]
    broken = set()
    for a, b in sorted(bonds0):
        for r, (pair, length, p) in enumerate(rules_break):
            if {sp[a], sp[b]} != set(pair):
                continue
            bits = reaction_bits(seed, step, 0x48 + r, a, b)
            r2 = min_image_r2(x, a, b, box)
            if r2 > length * length and abs(r2 - length * length) < 1e-9:
                raise Ambiguous()
            if r2 > length * length and accept(bits, p):
                broken.add((a, b))
            break
    used = set()
    events = []
    # creation: B-B within 0.8, mutual nearest, fewer than 2 bonds each, probability 0.7
    R2 = 0.8 * 0.8
    B = np.nonzero(sp == S["B"])[0]
    pref = {}
    for a in B:
        if nb[a] >= 2:
            continue
        best = None
        for b in B:
            if b == a or nb[b] >= 2 or b in top.partners[a]:
                continue
            r2 = min_image_r2(x, a, b, box)
            if not near(r2, R2):
                continue
            if best is not None and abs(r2 - best[0]) < 1e-12 and r2 != best[0]:
                raise Ambiguous()
            if best is None or (r2, b) < best:
                best = (r2, b)
        if best:
            pref[a] = best
    cands = []
    for a, (r2, b) in pref.items():
        if a < b and b in pref and pref[b][1] == a:
            if accept(reaction_bits(seed, step, 0x44, a, b), 0.7):
                cands.append((r2, a, b))
    for r2, a, b in sorted(cands):
        if a in used or b in used:
            continue
        used |= {a, b}
        events.append(("create", a, b))
    # chain: ends I, A -> P; monomer S -> A; radius 0.9, Pr 0.5
    claims = []
    ends = np.nonzero(np.isin(sp, [S["I"], S["A"]]))[0]
    mono = np.nonzero((sp == S["S"]) & (np.array(nb) == 0))[0]
    for a in ends:
        if nb[a] >= 4:
            continue
        d = x[mono] - x[a]
        d -= box * np.round(d / box)
        r2 = (d * d).sum(axis=1)
        if np.any(np.abs(r2 - 0.81) < 1e-9):
            raise Ambiguous()
        best = None
        for b in mono[r2 <= 0.81]:
            bits = reaction_bits(seed, step, 0x40, a, b)
            if best is None or (bits[0], b) < (best[0][0], best[1]):
                best = (bits, b)
        if best and accept(best[0], 0.5):
            claims.append((best[0][0], a, best[1]))
    for _, a, b in sorted(claims):
        if a in used or b in used:
            continue
        used |= {a, b}
        events.append(("chain", a, b))
    # the new topology
    new = Topology(n, [], [], sp)
    kept = bonds0 - broken
    for a, b in kept:
        new.partners[a].append(b)
        new.partners[b].append(a)
    new.angles = {q for q in top.angles
                  if not any(tuple(sorted(q[k:k + 2])) in broken for k in range(2))}
    for kind, a, b in events:
        pa = [k for k in new.partners[a]]
        pb = [k for k in new.partners[b]]
        new.partners[a].append(b)
        new.partners[b].append(a)
        for k in pa:
            new.angles.add(canon_angle((k, a, b)))
        for k in pb:
            new.angles.add(canon_angle((a, b, k)))
        if kind == "chain":
            new.species[a] = S["P"]
            new.species[b] = S["A"]
    return new, len(broken), len([e for e in events if e[0] == "create"]), \
        len([e for e in events if e[0] == "chain"])


def check_rules(d, seed=3):
    """Every reaction step of the network run in d against predict(); returns the event
    counts (broken, created, chain) and the steps skipped as ambiguous."""
    import h5py
    counts = np.zeros(3, int)
    skipped = 0
    with h5py.File(os.path.join(d, "traj.h5md"), "r") as f:
        names = [s.decode() for s in f["particles/all/species"].attrs["names"]]
        frames = f["particles/all/position/step"].shape[0]
        x, sp, b, an, step, box = frame(f, 0)
        top = Topology(len(sp), b, an, sp)
        for k in range(1, frames):
            x, sp, b, an, step, box = frame(f, k)
            got = Topology(len(sp), b, an, sp)
            try:
                want, nbreak, ncreate, nchain = predict(top, x, box, step, seed, names)
            except Ambiguous:
                skipped += 1
                top = got
                continue
            if got.bonds() != want.bonds():
                sys.exit(f"{d}: step {step}: bonds differ: "
                         f"{sorted(got.bonds() ^ want.bonds())[:8]}")
            if got.angles != want.angles:
                sys.exit(f"{d}: step {step}: angles differ: "
                         f"{sorted(got.angles ^ want.angles)[:8]}")
            if not np.array_equal(got.species, want.species):
                sys.exit(f"{d}: step {step}: species differ")
            counts += [nbreak, ncreate, nchain]
            top = got
    if skipped > frames // 4 or counts.min() == 0:
        sys.exit(f"{d}: too few steps checked ({skipped} of {frames - 1} skipped) or events "
                 f"(broken, created, chain) {counts.tolist()}")
    t_traj, t_ckpt = ra.load(os.path.join(d, "traj.h5md")), ra.load(last_checkpoint(d))
    if {tuple(p) for p in t_traj["pairs"]} != {tuple(p) for p in t_ckpt["pairs"]}:
        sys.exit(f"{d}: the last frame's bonds differ from the final checkpoint's")
    return counts, skipped, frames - 1


def rules():
    d, _ = run("rules", network_config())
    counts, skipped, n = check_rules(d)
    print(f"rules: {n} reaction steps predicted exactly ({skipped} skipped as "
          f"ambiguous): {counts[0]} bonds broken, {counts[1]} created, {counts[2]} chain "
          "steps; the last frame's bonds are the checkpoint's")


# ---- special lists, ranks, restart -----------------------------------------------------

def special_mismatches(bonds, lists):
    """The special lists (the soft style's 1-2 and 1-3, rows in tag order) against a
    breadth-first search of the bond graph: (lists that differ, lists not empty)."""
    part = [[int(v) for v in row if v >= 0] for row in bonds]
    bad = nonempty = 0
    for i in range(len(part)):
        want, frontier, seen = {}, [i], {i}
        for level in (1, 2):
            nxt = []
            for u in frontier:
                for v in part[u]:
                    if v not in seen:
                        seen.add(v)
                        want[v] = level
                        nxt.append(v)
            frontier = nxt
        got = {int(e) >> 2: int(e) & 3 for e in lists[i] if e >= 0}
        nonempty += bool(got)
        bad += got != want
    return bad, nonempty


def special():
    import h5py
    d, _ = run("special", network_config(special=True))
    with h5py.File(last_checkpoint(d), "r") as f:
        p = f["particles"]
        order = np.argsort(p["tag"][:])
        bonds = p["bonds"][:][order]
        lists = p["special"][:][order]
    n = len(bonds)
    bad, nonempty = special_mismatches(bonds, lists)
    if bad:
        sys.exit(f"{bad} special lists differ from the bond graph's")
    print(f"special: {n} lists (of them {nonempty} not empty) match the final bond graph")


def same_checkpoints(a, b):
    import h5py
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for k in fa["particles"]:
            if not np.array_equal(fa["particles"][k][:], fb["particles"][k][:]):
                return f"particles/{k}"
        if not np.array_equal(fa["reaction_state"][:], fb["reaction_state"][:]):
            return "reaction_state"
    return None


def ranks():
    import h5py
    text = network_config(special=True)
    out = []
    for n in (1, 2, 4):
        d, _ = run(f"ranks-{n}", text, ranks=n)
        out.append(d)
    ref = open(os.path.join(out[0], "thermo.csv")).read()
    for d in out[1:]:
        if open(os.path.join(d, "thermo.csv")).read() != ref:
            sys.exit(f"thermo.csv of {d} differs from 1 rank's")
        diff = same_checkpoints(last_checkpoint(out[0]), last_checkpoint(d))
        if diff:
            sys.exit(f"{d}: final checkpoint's {diff} differs from 1 rank's")
        with h5py.File(os.path.join(out[0], "traj.h5md"), "r") as fa, \
                h5py.File(os.path.join(d, "traj.h5md"), "r") as fb:
            for k in ("connectivity/bonds/value", "connectivity/angles/value",
                      "particles/all/species/value", "particles/all/molecule/value"):
                if not np.array_equal(fa[k][:], fb[k][:]):
                    sys.exit(f"{d}: traj.h5md {k} differs from 1 rank's")
    r = rows(out[0])
    print(f"ranks: 1, 2 and 4 bit-identical (thermo, checkpoint, trajectory); bonds made "
          f"{sum(float(x['bonds_created']) for x in r):.0f}, broken "
          f"{sum(float(x['bonds_broken']) for x in r):.0f}, chain "
          f"{sum(float(x['reactions']) for x in r):.0f}")


def restart():
    text = network_config(special=True)
    sets = ["output.checkpoint_interval=55", "output.checkpoint_keep=10"]
    d, _ = run("restart", text, ranks=2, sets=sets)
    full = open(os.path.join(d, "thermo.csv")).read()
    shutil.copy(last_checkpoint(d), os.path.join(OUT, "restart-final.h5"))
    shutil.copy(os.path.join(d, "traj.h5md"), os.path.join(OUT, "restart-traj.h5md"))
    for s in (110, 165, 200):
        os.remove(os.path.join(d, "checkpoints", f"ckpt_{s}.h5"))
    run("restart", text, ranks=1, sets=sets, restart=True)
    if open(os.path.join(d, "thermo.csv")).read() != full:
        sys.exit("restart from step 55 does not reproduce the rows")
    diff = same_checkpoints(os.path.join(OUT, "restart-final.h5"), last_checkpoint(d))
    if diff:
        sys.exit(f"restart: the final checkpoint's {diff} differs")
    import h5py
    with h5py.File(os.path.join(OUT, "restart-traj.h5md"), "r") as fa, \
            h5py.File(os.path.join(d, "traj.h5md"), "r") as fb:
        for k in ("particles/all/position/step", "particles/all/position/value",
                  "connectivity/bonds/value", "connectivity/angles/value",
                  "parameters/vesica/bond_type/value", "particles/all/species/value"):
            if not np.array_equal(fa[k][:], fb[k][:]):
                sys.exit(f"restart: traj.h5md {k} differs (trimmed at 55 and appended)")
    print("restart: from step 55 (intervals of 10), 2 ranks then 1: thermo.csv, the final "
          "checkpoint and traj.h5md (trimmed and appended) exact")


def keys():
    """The physics key of the rules: a restart with another Pr is refused, naming the
    reactions; a checkpoint without the key (written before reactions existed, here with the
    attribute removed) restarts a run without reactions exactly."""
    import h5py
    text = network_config(steps=40)
    sets = ["output.checkpoint_interval=20"]
    d, _ = run("keys", text, sets=sets)
    _, p = run("keys", text.replace("probability = 0.5;", "probability = 0.4;"), sets=sets,
               restart=True, expect=2)
    if "reactions (a rule's species, radius, probability" not in p.stderr:
        sys.exit(f"keys: a changed Pr is not reported as the reactions' key: {p.stderr[-500:]}")
    plain = kinetics_config(8.0, 40)
    plain = plain[:plain.index("reactions = {")] + plain[plain.index("output = {"):]
    d, _ = run("keys-plain", plain, sets=sets)
    full = open(os.path.join(d, "thermo.csv")).read()
    os.remove(os.path.join(d, "checkpoints", "ckpt_40.h5"))
    with h5py.File(os.path.join(d, "checkpoints", "ckpt_20.h5"), "r+") as f:
        for k in ("reactions_code", "aniso_code"):
            del f["parameters"].attrs[k]
    run("keys-plain", plain, sets=sets, restart=True)
    if open(os.path.join(d, "thermo.csv")).read() != full:
        sys.exit("keys: a checkpoint without reactions_code and aniso_code does not restart "
                 "exactly")
    print("keys: a changed Pr refused on restart; a checkpoint without the reactions' (and "
          "the anisotropic style's) key restarts a plain run exactly")


# ---- bad input ------------------------------------------------------------------------

def frozen_data(path):
    with open(path, "w") as f:
        f.write("frozen velocity\n\n3 atoms\n2 atom types\n\n0.0 4.0 xlo xhi\n0.0 4.0 ylo yhi\n"
                "0.0 4.0 zlo zhi\n\nAtoms # full\n\n1 1 1 0.0 1.0 1.0 1.0\n"
                "2 1 2 0.0 2.0 2.0 2.0\n3 1 1 0.0 3.0 3.0 3.0\n\nVelocities\n\n"
                "1 0.1 0.0 0.0\n2 0.0 0.5 0.0\n3 0.0 0.0 0.0\n")


def bad():
    base = kinetics_config(8.0, 10)
    wall = base.replace('{ name = "I"; fraction = 0.03; }',
                        '{ name = "I"; fraction = 0.03; frozen = "on"; }')
    cases = [
        ("pr", base.replace("probability = 0.3", "probability = 1.5"),
         "reactions.chain.probability: expected"),
        ("species", base.replace('monomer = "M"', 'monomer = "Q"'),
         "reactions.chain.monomer: expected a species name"),
        ("end-species", base.replace('ends = { I = "P";', 'ends = { X = "P";'),
         "reactions.chain.ends.X: expected a species name"),
        ("reach", base.replace("radius = 1.0", "radius = 1.6"),
         "reactions.chain.radius: expected at most bonded.reach"),
        ("ghost", base.replace("reach = 1.5", "reach = 2.0").replace("radius = 1.0",
                                                                      "radius = 1.4"),
         "reactions.chain.radius: expected at most the ghost width"),
        ("monomer-end", base.replace('monomer = "M"', 'monomer = "A"'),
         "reactions.chain.monomer: expected a species that is no active end"),
        ("new-end", base.replace('new_end = "A"', 'new_end = "P"'),
         "reactions.chain.new_end: expected one of the active ends"),
        ("frozen", wall, "reactions.chain.ends.I: expected a frozen species, as I is"),
        ("break-length", base.replace("chain = {", 'break = ( { i = "P"; j = "P"; length = '
                                      '1.5; } ); chain = {'),
         "reactions.break.[0].length: expected less than bonded.reach"),
        ("interval", base[:base.index("reactions = {")] + "reactions = { interval = 50; };\n"
         + base[base.index("output = {"):], "reactions: expected at least one of"),
        ("fene", base.replace('style = "harmonic"; K = 50.0; r0 = 0.5;',
                              'style = "fene"; K = 30.0; R0 = 1.0;'),
         "reactions.chain.radius: expected less than the new bond's FENE R0"),
    ]
    for name, text, words in cases:
        _, p = run(f"bad-{name}", text, expect=2)
        lines = [ln for ln in p.stderr.splitlines() if ln.startswith("vesica:")]
        if len(lines) != 1 or words not in lines[0] or "run.cfg:" not in lines[0]:
            sys.exit(f"bad-{name}: expected one line with the file, line and '{words}', "
                     f"got {lines}")
        print(f"bad {name}: {lines[0]}")
    # a frozen particle with a velocity, from a LAMMPS data file
    data = os.path.join(OUT, "frozen.data")
    frozen_data(data)
    text = f"""input = {{ format = "lammps-data"; file = "{data}"; }};
species = ( {{ name = "F"; }}, {{ name = "W"; frozen = "on"; }} );
dpd = {{ a = {{ F = {{ F = 25.0; W = 25.0; }}; W = {{ F = 25.0; W = 25.0; }}; }};
        gamma = 4.5; kT = 1.0; }};
integrator = {{ dt = 0.01; steps = 10; }};
output = {{ dir = "unused"; }};
"""
    _, p = run("bad-frozen-velocity", text, expect=2)
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("vesica:")]
    want = "frozen.data: atom 2 of frozen species W has velocity (0, 0.5, 0), expected 0 0 0"
    if len(lines) != 1 or want not in lines[0]:
        sys.exit(f"bad-frozen-velocity: expected one line with '{want}', got {lines}")
    print(f"bad frozen-velocity: {lines[0]}")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    {"kinetics": kinetics, "rules": rules, "special": special, "ranks": ranks,
     "restart": restart, "keys": keys, "bad": bad}[MODE]()
