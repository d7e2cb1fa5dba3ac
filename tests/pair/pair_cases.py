"""Shared by the pair-style tests: configurations of the pair styles on two species, their
LAMMPS equivalents, and a table file.

Each case is (name, pair list text of Vesica, dpd a_AB or None, LAMMPS pair commands). The
LAMMPS forms, converted by parameters, not by changing forms:
  lj        pair lj/cut, pair_modify shift yes (and tail yes)
  gaussian  pair gauss: E = -A exp(-B r^2), A = -eps, B = 1 / (2 sigma^2), pair_modify shift
  soft      pair harmonic/cut: E = k (rc - r)^2, k = alpha / rc^2
  table     pair table spline N on the same file
  morse     pair morse (coefficients D0 alpha r0 [cutoff]), pair_modify shift yes
  dpd       pair dpd with gamma = 0 at T = 0: its conservative force a_ij w
"""
import math
import os

import numpy as np

TABLE_N = 1001
TABLE_R = (0.5, 3.0)


def table_u_f(r, s, eps, bump):
    """A smooth IBI-like potential: LJ of (eps, s) plus a Gaussian bump at 1.5."""
    u = 4 * eps * ((s / r) ** 12 - (s / r) ** 6) + bump * np.exp(-(r - 1.5) ** 2 / 0.1)
    f = 4 * eps * (12 * s ** 12 / r ** 13 - 6 * s ** 6 / r ** 7) + \
        bump * np.exp(-(r - 1.5) ** 2 / 0.1) * 2 * (r - 1.5) / 0.1
    return u, f


def write_table(path):
    r = np.linspace(TABLE_R[0], TABLE_R[1], TABLE_N)
    with open(path, "w") as t:
        t.write("# test tables: LJ plus a bump, F = -dU/dr\n\n")
        for key, (s, eps, bump) in {"AA": (1.0, 1.0, 0.3), "AB": (0.95, 0.7, -0.2),
                                    "BB": (0.9, 1.2, 0.1)}.items():
            u, f = table_u_f(r, s, eps, bump)
            t.write("%s\nN %d R %r %r\n\n" % (key, TABLE_N, TABLE_R[0], TABLE_R[1]))
            for k in range(TABLE_N):
                t.write("%d %.17g %.17g %.17g\n" % (k + 1, r[k], u[k], f[k]))
            t.write("\n")


def pair(style, options, coeffs):
    body = "".join("%s = { %s = { %s }; }; " % (i, j, c) for (i, j), c in coeffs.items())
    return '{ style = "%s"; %s coeff = { %s }; }' % (style, options, body)


def merge(coeffs):
    """Pairs of one row under one species key (libconfig forbids a key twice)."""
    rows = {}
    for (i, j), c in coeffs.items():
        rows.setdefault(i, []).append("%s = { %s };" % (j, c))
    return " ".join("%s = { %s };" % (i, " ".join(v)) for i, v in rows.items())


def style(name, options, coeffs):
    return '{ style = "%s"; %s coeff = { %s }; }' % (name, options, merge(coeffs))


LJ_COEFF = {("A", "A"): "epsilon = 1.0; sigma = 1.0; rc = 2.5;",
            ("A", "B"): "epsilon = 0.8; sigma = 1.1; rc = 2.2;",
            ("B", "B"): "epsilon = 1.2; sigma = 0.9; rc = 2.0;"}
LJ = style("lj", 'shift = "on";', LJ_COEFF)
LJ_TAIL = style("lj", 'tail = "on";', LJ_COEFF)
LJ_LMP = """pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
pair_coeff 1 2 0.8 1.1 2.2
pair_coeff 2 2 1.2 0.9 2.0
pair_modify %s yes"""

GAUSS = style("gaussian", 'shift = "on"; rc = 2.5;', {
    ("A", "A"): "epsilon = 2.0; sigma = 0.8;",
    ("A", "B"): "epsilon = -1.0; sigma = 1.0; rc = 3.0;"})
GAUSS_LMP = """pair_style gauss 3.0
pair_coeff 1 1 -2.0 %r 2.5
pair_coeff 1 2 1.0 0.5 3.0
pair_coeff 2 2 0.0 1.0 1.0
pair_modify shift yes""" % (1 / (2 * 0.8 ** 2))

SOFT = style("soft", "", {
    ("A", "A"): "alpha = 10.0; rc = 1.0;",
    ("A", "B"): "alpha = 5.0; rc = 1.2;",
    ("B", "B"): "alpha = 20.0; rc = 0.9;"})
SOFT_LMP = """pair_style harmonic/cut
pair_coeff 1 1 %r 1.0
pair_coeff 1 2 %r 1.2
pair_coeff 2 2 %r 0.9""" % (10.0, 5.0 / 1.44, 20.0 / 0.81)

TABLE = style("table", 'file = "%(table)s";', {
    ("A", "A"): 'table = "AA";',
    ("A", "B"): 'table = "AB"; rc = 2.2;',
    ("B", "B"): 'table = "BB"; rc = 2.7;'})
TABLE_LMP = """pair_style table spline %d
pair_coeff 1 1 %%(table)s AA 3.0
pair_coeff 1 2 %%(table)s AB 2.2
pair_coeff 2 2 %%(table)s BB 2.7""" % TABLE_N

MORSE_COEFF = {("A", "A"): (1.0, 2.0, 1.1, None), ("A", "B"): (0.7, 1.5, 1.2, 2.2),
               ("B", "B"): (1.3, 2.5, 1.0, None)}
MORSE_RC = 2.5
MORSE = style("morse", 'shift = "on"; rc = %r;' % MORSE_RC, {
    ij: "D0 = %r; alpha = %r; r0 = %r;%s" % (d, a, r0, "" if rc is None else " rc = %r;" % rc)
    for ij, (d, a, r0, rc) in MORSE_COEFF.items()})
MORSE_LMP = "pair_style morse %r\n" % MORSE_RC + "".join(
    "pair_coeff %d %d %r %r %r%s\n" % ("AB".index(i) + 1, "AB".index(j) + 1, d, a, r0,
                                      "" if rc is None else " %r" % rc)
    for (i, j), (d, a, r0, rc) in MORSE_COEFF.items()) + "pair_modify shift yes"

# the linear-force-shifted lj (three pairs with their own cut-offs): LAMMPS's lj/smooth/linear
LJFS = style("lj_force_shifted", "", LJ_COEFF)
LJFS_LMP = """pair_style lj/smooth/linear 2.5
pair_coeff 1 1 1.0 1.0 2.5
pair_coeff 1 2 0.8 1.1 2.2
pair_coeff 2 2 1.2 0.9 2.0"""

# several styles at once: DPD's conservative force (A-B only), WCA between A, a Gaussian
# between B
MIXED = style("lj", 'wca = "on";', {("A", "A"): "epsilon = 1.0; sigma = 1.0;"}) + ", " + \
    style("gaussian", "rc = 2.0;", {("B", "B"): "epsilon = 3.0; sigma = 0.6;"})
MIXED_LMP = """comm_modify vel yes
pair_style hybrid/overlay lj/cut %r gauss 2.0 dpd 0.0 1.0 1234
pair_coeff 1 1 lj/cut 1.0 1.0
pair_modify pair lj/cut shift yes
pair_coeff 2 2 gauss -3.0 %r 2.0
pair_coeff 1 2 dpd 12.0 0.0 1.0""" % (2 ** (1 / 6), 1 / (2 * 0.6 ** 2))

CASES = [("lj", LJ, None, LJ_LMP % "shift"), ("lj-tail", LJ_TAIL, None, LJ_LMP % "tail"),
         ("gaussian", GAUSS, None, GAUSS_LMP),
         ("soft", SOFT, None, SOFT_LMP), ("table", TABLE, None, TABLE_LMP),
         ("morse", MORSE, None, MORSE_LMP), ("lj_force_shifted", LJFS, None, LJFS_LMP),
         ("mixed", MIXED, 12.0, MIXED_LMP)]


def config(pair_text, a_ab, lattice, out, table, backend="cpu", extra=""):
    """A Vesica configuration on the lattice file: no DPD forces but a_AB = a_ab (or none),
    zero velocities (kT = 0), one step of dt 1e-4."""
    a = a_ab or 0.0
    return """input = { format = "h5md"; file = "%s"; };
seed = 3;
species = ( { name = "A"; mass = 1.0; }, { name = "B"; mass = 1.0; } );
dpd = { a = { A = { A = 0.0; B = %r; }; B = { A = %r; B = 0.0; }; }; gamma = 0.0; kT = 0.0; };
pair = ( %s );
integrator = { dt = 1e-4; steps = 1; };
neighbor = { skin = 0.2; };
backend = "%s";
output = { dir = "%s"; thermo_interval = 1; checkpoint_keep = 1; };
%s
""" % (lattice, a, a, pair_text % {"table": table}, backend, out, extra)
