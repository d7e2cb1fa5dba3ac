#!/usr/bin/env python3
"""Writes the table files of tests/molecules/tables.cfg: the analytic styles of template 0 of
tests/molecules/dihedrals.cfg, sampled on uniform grids, so that a run of tables.cfg must
reproduce dihedrals.cfg to the spline's accuracy (tests/molecules/tables_check.py):
  bond.table      harmonic K = 100, r0 = 0.7: E = K/2 (r - r0)^2, r = 0 .. 1.5 by 0.001
  angle.table     cosine_squared K = 12, theta0 = 112: E = K (cos t - cos t0)^2, 0 .. 180 by 0.1
  dihedral.table  periodic K = 1.5, n = 3, delta = 20: E = K (1 + cos(3 phi - 20)), -180 .. 180
                  by 0.1 degrees
Run from this folder: python3 make_tables.py"""
import math


def write(name, header, xs, f):
    with open(name, "w") as out:
        out.write("# %s\n# x E(x)\n" % header)
        for x in xs:
            out.write("%.10g %.17g\n" % (x, f(x)))


write("bond.table", "harmonic K = 100, r0 = 0.7: E = K/2 (r - r0)^2",
      [k * 0.001 for k in range(1501)], lambda r: 50.0 * (r - 0.7) ** 2)
c0 = math.cos(math.radians(112.0))
write("angle.table", "cosine_squared K = 12, theta0 = 112 degrees",
      [k * 0.1 for k in range(1801)], lambda t: 12.0 * (math.cos(math.radians(t)) - c0) ** 2)
write("dihedral.table", "periodic K = 1.5, n = 3, delta = 20 degrees",
      [-180.0 + k * 0.1 for k in range(3601)],
      lambda p: 1.5 * (1.0 + math.cos(math.radians(3.0 * p - 20.0))))
