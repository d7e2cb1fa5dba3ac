#!/usr/bin/env python3
"""Xu et al.'s united-atom polyethylene force field (Table I) in Vesica, through a whole run.

Usage: xu_dihedral.py VESICA WORKDIR [cpu|double|mixed]

Xu et al., "Molecular Dynamics Simulation of Macromolecules Using Graphics Processing Unit"
(/work/shared/seeds/xu-gpu-macromolecules-paper.txt), eqs. (4)-(6) and Table I:
  bond      E_b = 1/2 k_b (r - b)^2,            k_b = 292880 kJ mol^-1 nm^-2, b = 0.153 nm
  angle     E_a = 1/2 k_a (theta - theta0)^2,   k_a = 418.40 kJ mol^-1 rad^-2, theta0 = 109.471
  dihedral  E_d = k_phi (1 + cos(n phi - phi_s)), k_phi = 4.184 kJ mol^-1, n = 3, phi_s = 0
(C32-C32; the CH2 mass 14.027). Vesica's units here: nm, kJ/mol, g/mol. Converted parameters,
not forms (docs/configuration.md, "Molecules"): bond harmonic K = k_b, r0 = b; angle harmonic
K = k_a, theta0 = 109.471; dihedral periodic K = k_phi, n = 3, delta = 0, and the same
function as multi_harmonic A = k_phi (1, -3, 0, 4, 0) (cos 3 phi = 4 cos^3 phi - 3 cos phi).

Convention: the paper does not name its dihedral convention. With phi_s = 0 and n = 3 the
form has its minima at phi = 60, 180, 300 degrees and its maxima at 0, 120, 240; a torsion
potential of an alkane must be lowest in the staggered (trans) conformation, so phi is the
IUPAC angle, trans = 180 (as in GROMACS, which they compared against, and in Vesica and
LAMMPS). In the polymer convention (trans = 0) the same potential would need phi_s = 180.

The test writes LAMMPS data files of one 4-bead chain at the paper's bond length and angle,
with the dihedral phi (IUPAC, checked on the written coordinates by an independent formula)
at the staggered conformations trans (180) and gauche (+-60) and the eclipsed ones (0 and
+-120), runs Vesica for 0 steps with each dihedral style and reads thermo.csv: the
dihedral_energy must equal the paper's form (0 staggered, 2 k_phi = 8.368 eclipsed, and at
an intermediate 37 degrees) to 1e-9 relative, and bond_energy and angle_energy must be 0.
In mixed precision on the GPU the run first rounds the positions down onto its position
grid (src/core/position_grid.h: quanta of 2^-27 nm in this 5 nm box), which moves a bond of
the stiff k_b by up to ~1e-8 nm; the tolerances are then 1e-5 relative (the stretched bonds'
energy moves by k_b 0.01 nm x 1.3e-8 nm per bond, 3e-6 of it).
Two more chains check the bond and angle conversions: three bonds of b + 0.01 nm give
3 x 1/2 k_b 0.01^2 = 3 x 14.644 and two angles of theta0 + 10 degrees 2 x 1/2 k_a
(10 pi/180)^2 = 2 x 6.3727 kJ/mol.
"""
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from vesica_env import gpu_visible  # noqa: E402

KB, B0 = 292880.0, 0.153
KA, TH0 = 418.40, 109.471
KPHI, NPHI, PHIS = 4.184, 3, 0.0
MASS = 14.027

STYLES = {
    "periodic": '{ style = "periodic"; K = %r; n = %d; delta = %r; }' % (KPHI, NPHI, PHIS),
    "multi_harmonic": '{ style = "multi_harmonic"; A = [%r, %r, 0.0, %r, 0.0]; }' % (
        KPHI, -3.0 * KPHI, 4.0 * KPHI),
}

CONFIG = """input = {{ format = "lammps-data"; file = "chain.data"; }};
seed = 1;
species = ( {{ name = "C"; mass = {mass}; }} );
dpd = {{ a = {{ C = {{ C = 0.0; }}; }}; gamma = 0.0; kT = 2.494; rc = 1.0; }};
bonded = {{ bonds = ( {{ style = "harmonic"; K = {kb}; r0 = {b0}; }} );
           angles = ( {{ style = "harmonic"; K = {ka}; theta0 = {th0}; }} );
           dihedrals = ( {dihedral} ); }};
integrator = {{ dt = 0.001; steps = 0; }};
backend = "{backend}";
precision = "{precision}";
output = {{ dir = "out"; thermo_interval = 1; trajectory_interval = 0; checkpoint_interval = 0;
           checkpoint_keep = 0; }};
run = {{ temperature_tolerance = 0.0; }};
"""


def chain(phi_deg, bond=B0, theta_deg=TH0):
    """Four beads a, b, c, d: bonds of length `bond`, both angles theta, dihedral phi (IUPAC:
    phi = 0 cis, a and d on the same side)."""
    th, ph = math.radians(theta_deg), math.radians(phi_deg)
    b = (2.0, 2.0, 2.0)
    c = (b[0] + bond, b[1], b[2])
    a = (b[0] + bond * math.cos(th), b[1] + bond * math.sin(th), b[2])
    d = (c[0] - bond * math.cos(th), c[1] + bond * math.sin(th) * math.cos(ph),
         c[2] + bond * math.sin(th) * math.sin(ph))
    return [a, b, c, d]


def sub(p, q):
    return [p[k] - q[k] for k in range(3)]


def cross(u, v):
    return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]


def dot(u, v):
    return sum(u[k] * v[k] for k in range(3))


def dihedral_iupac(x):
    """phi of a-b-c-d by the formula of Blondel & Karplus (1996), the IUPAC sign."""
    b1, b2, b3 = sub(x[1], x[0]), sub(x[2], x[1]), sub(x[3], x[2])
    n1, n2 = cross(b1, b2), cross(b2, b3)
    return math.degrees(math.atan2(math.sqrt(dot(b2, b2)) * dot(b1, n2), dot(n1, n2)))


def write_data(path, x):
    with open(path, "w") as f:
        f.write("Xu et al. 4-bead chain\n\n4 atoms\n3 bonds\n2 angles\n1 dihedrals\n"
                "1 atom types\n1 bond types\n1 angle types\n1 dihedral types\n\n"
                "0.0 5.0 xlo xhi\n0.0 5.0 ylo yhi\n0.0 5.0 zlo zhi\n\n"
                "Masses\n\n1 %r\n\nAtoms # molecular\n\n" % MASS)
        for i, p in enumerate(x):
            f.write("%d 1 1 %.17g %.17g %.17g\n" % (i + 1, p[0], p[1], p[2]))
        f.write("\nBonds\n\n1 1 1 2\n2 1 2 3\n3 1 3 4\n\nAngles\n\n1 1 1 2 3\n2 1 2 3 4\n"
                "\nDihedrals\n\n1 1 1 2 3 4\n")


def run_case(vesica, work, name, x, style, backend, precision):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    write_data(os.path.join(d, "chain.data"), x)
    with open(os.path.join(d, "xu.cfg"), "w") as f:
        f.write(CONFIG.format(mass=MASS, kb=KB, b0=B0, ka=KA, th0=TH0, dihedral=STYLES[style],
                              backend=backend, precision=precision))
    r = subprocess.run([vesica, "run", "xu.cfg"], cwd=d, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stdout.write(r.stdout[-2000:])
        raise SystemExit("%s: vesica exited %d" % (name, r.returncode))
    with open(os.path.join(d, "out", "thermo.csv")) as t:
        head = t.readline().strip().split(",")
        row = [float(v) for v in t.readline().split(",")]
    return dict(zip(head, row))


def main():
    vesica, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    mode = sys.argv[3] if len(sys.argv) > 3 else "cpu"
    backend, precision = ("cpu", "double") if mode == "cpu" else ("gpu", mode)
    if backend == "gpu":
        if not gpu_visible(vesica):
            print("skip: no usable GPU")
            return 77
    os.makedirs(work, exist_ok=True)
    paper = lambda phi: KPHI * (1.0 + math.cos(math.radians(NPHI * phi - PHIS)))  # noqa: E731
    cases = [("trans", 180.0, "staggered"), ("gauche+", 60.0, "staggered"),
             ("gauche-", -60.0, "staggered"), ("cis", 0.0, "eclipsed"),
             ("eclipsed+", 120.0, "eclipsed"), ("eclipsed-", -120.0, "eclipsed"),
             ("phi37", 37.0, "between")]
    tol = 1e-5 if precision == "mixed" else 1e-9
    failed = 0
    print("Xu et al. Table I in Vesica (%s %s), kJ/mol; phi IUPAC (trans 180)" % (backend, precision))
    for name, phi, kind in cases:
        x = chain(phi)
        got_phi = dihedral_iupac(x)
        if abs((got_phi - phi + 180.0) % 360.0 - 180.0) > 1e-9:
            raise SystemExit("geometry: built phi %g, measured %.12g" % (phi, got_phi))
        want = paper(phi)
        for style in STYLES:
            th = run_case(vesica, work, "%s_%s" % (name, style), x, style, backend, precision)
            e = th["dihedral_energy"]
            ok = abs(e - want) <= tol * 2 * KPHI and abs(th["bond_energy"]) < tol \
                and abs(th["angle_energy"]) < tol
            failed += not ok
            print("  %-10s phi = %7.2f  %-9s %-15s E_d = %.12f  paper %.12f  bond %.1e angle %.1e"
                  "  %s" % (name, phi, kind, style, e, want, th["bond_energy"], th["angle_energy"],
                            "ok" if ok else "FAIL"))
    # The bond and angle conversions (the 1/2 of eqs. 4 and 5 is Vesica's own).
    checks = [("stretched", chain(180.0, bond=B0 + 0.01), "bond_energy", 3 * 0.5 * KB * 0.01 ** 2),
              ("bent", chain(180.0, theta_deg=TH0 + 10.0), "angle_energy",
               2 * 0.5 * KA * math.radians(10.0) ** 2)]
    for name, x, col, want in checks:
        th = run_case(vesica, work, name, x, "periodic", backend, precision)
        ok = abs(th[col] - want) <= tol * want
        failed += not ok
        print("  %-10s %-12s = %.10f  paper %.10f  %s" % (name, col, th[col], want,
                                                          "ok" if ok else "FAIL"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
