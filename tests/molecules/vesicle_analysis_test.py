#!/usr/bin/env python3
"""Tests of scaling/tools/vesicle_analysis.py on configurations whose answer is known by
construction: a hollow spherical shell with solvent inside (a vesicle), a solid ball (a
micelle), two separate balls, and a flat membrane that spans the periodic box. Exit 77 (skip)
without numpy/scipy."""
import os
import sys

try:
    import numpy as np
    import scipy  # noqa: F401
except ImportError:
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scaling", "tools"))
import vesicle_analysis as va  # noqa: E402

rng = np.random.default_rng(7)
BOX = np.array([24.0, 24.0, 24.0])
CORE, SHELL, SOLVENT = 1, 0, 2
failures = []


def check(name, cond, detail):
    print(f"{'ok  ' if cond else 'FAIL'} {name}: {detail}")
    if not cond:
        failures.append(name)


def uniform(n, lo, hi):
    return rng.uniform(lo, hi, size=(n, 3))


def ball(centre, r_in, r_out, density):
    """Beads uniformly in the spherical shell r_in <= r < r_out around centre."""
    vol = 4.0 / 3.0 * np.pi * (r_out**3 - r_in**3)
    n = int(density * vol)
    out = []
    while len(out) < n:
        p = uniform(4 * n, -r_out, r_out)
        r = np.linalg.norm(p, axis=1)
        out.extend(p[(r >= r_in) & (r < r_out)][: n - len(out)])
    return np.mod(np.array(out) + centre, BOX)


def solvent_outside(objects, density, clearance):
    """Solvent filling the box except within `clearance` of any (centre, radius) object."""
    p = uniform(int(density * BOX.prod()), 0.0, BOX[0])
    keep = np.ones(len(p), dtype=bool)
    for c, r in objects:
        d = np.linalg.norm(va.min_image(p - c, BOX), axis=1)
        keep &= d > r + clearance
    return p[keep]


def frame(core_parts, solvent):
    pos = np.concatenate(core_parts + [solvent])
    species = np.concatenate([np.full(sum(len(c) for c in core_parts), CORE),
                              np.full(len(solvent), SOLVENT)])
    return pos, species


# A vesicle: a shell of core beads 4.5 <= r < 6 around a point near a box corner (so it
# wraps across the periodic faces), solvent inside r < 3.5 and outside r > 7.
c = np.array([1.0, 23.0, 12.0])
shell = ball(c, 4.5, 6.0, 5.0)
lumen = ball(c, 0.0, 3.5, 3.0)
outside = solvent_outside([(c, 6.0)], 3.0, 1.0)
pos, species = frame([shell], np.concatenate([lumen, outside]))
row, whole = va.analyse_frame(pos, species, BOX, CORE, SOLVENT, 1.0)
check("vesicle: one aggregate", row["aggregates"] == 1, row)
check("vesicle: does not span", row["spans"] == 0, row["spans"])
# the wall is the core's voxels grown by one (0.7, to seal a shell of discrete beads), so the
# lumen's solvent within ~1.2 of the wall may count as wall; all of it deeper must count
deep = np.count_nonzero(np.linalg.norm(va.min_image(lumen - c, BOX), axis=1) < 4.5 - 1.3)
check("vesicle: hollow, encloses the lumen's solvent",
      row["hollow"] == 1 and deep <= row["enclosed_solvent"] <= len(lumen),
      f"{row['enclosed_solvent']} (lumen {len(lumen)}, deeper than 1.3 from the wall {deep})")
rg_shell = np.sqrt(3.0 / 5.0 * (6.0**5 - 4.5**5) / (6.0**3 - 4.5**3))
check("vesicle: Rg of a uniform shell", abs(row["rg"] - rg_shell) < 0.05, f"{row['rg']:.3f} vs {rg_shell:.3f}")
check("vesicle: spherical", row["kappa2"] < 0.01, row["kappa2"])

# A micelle: a solid ball of core beads, r < 3; nothing enclosed.
c = np.array([12.0, 12.0, 12.0])
core = ball(c, 0.0, 3.0, 5.0)
pos, species = frame([core], solvent_outside([(c, 3.0)], 3.0, 0.5))
row, _ = va.analyse_frame(pos, species, BOX, CORE, SOLVENT, 1.0)
check("micelle: not hollow", row["hollow"] == 0 and row["enclosed_solvent"] == 0, row)
check("micelle: Rg of a uniform ball", abs(row["rg"] - np.sqrt(0.6) * 3.0) < 0.05, row["rg"])

# Two micelles 12 apart: two aggregates, the largest the bigger one.
c1, c2 = np.array([6.0, 6.0, 6.0]), np.array([18.0, 6.0, 6.0])
b1, b2 = ball(c1, 0.0, 2.0, 5.0), ball(c2, 0.0, 3.0, 5.0)
pos, species = frame([b1, b2], solvent_outside([(c1, 2.0), (c2, 3.0)], 3.0, 0.5))
row, _ = va.analyse_frame(pos, species, BOX, CORE, SOLVENT, 1.0)
check("two micelles: two aggregates", row["aggregates"] == 2 and row["largest"] == len(b2), row)

# A membrane: a slab 10 <= z < 12 through the whole periodic box spans it; a prolate
# rod-like aggregate has kappa^2 near 1.
slab = uniform(int(5.0 * 24 * 24 * 2), 0.0, 24.0)
slab[:, 2] = 10.0 + 2.0 * rng.random(len(slab))
pos, species = frame([slab], uniform(1000, 0.0, 24.0) * [1, 1, 0.3])
row, _ = va.analyse_frame(pos, species, BOX, CORE, SOLVENT, 1.0)
check("membrane: spans the box", row["spans"] == 1 and row["enclosed_solvent"] == -1, row)
rod = uniform(2000, 0.0, 1.0) * [1.5, 1.5, 16.0] + [11.0, 11.0, 4.0]
pos, species = frame([rod], uniform(200, 0.0, 3.0))
row, _ = va.analyse_frame(pos, species, BOX, CORE, SOLVENT, 1.0)
check("rod: anisotropic", row["kappa2"] > 0.9 and row["spans"] == 0, row["kappa2"])

sys.exit(1 if failures else 0)
