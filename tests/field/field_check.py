#!/usr/bin/env python3
"""End-to-end checks of the particle-field term (MD-SCF; docs/validation.md, "Particle-field
MD-SCF"): field_check.py VESICA OUTDIR MODE

  forces   a fixed random A/B system (a LAMMPS data file, 6^3 box, density 3, grid spacing
           1, field only: dpd a = 0, gamma = 0) at step 0. An independent numpy
           implementation of the discrete model (cloud-in-cell counts, phi, V_K, W, the
           central-difference gradient interpolated back) gives the field energy, which must
           equal thermo.csv's field_energy, and each particle's force, which must equal the
           checkpoint's, for both field.force schemes (relative 1e-9). For "energy" the force
           on 3 particles must also equal minus the derivative of field_energy by central
           finite differences (each particle moved by +-1e-3 along each axis, within its
           cell, where W is quadratic in the coordinate: 18 runs, relative 1e-6; what is
           left is the counts' rounding to 2^-40).
  ranks    an A/B blend (interval 5, skin 0.3) on 1, 2 and 4 ranks, and on 3 ranks with
           bricks of unequal vertex counts (13 x 9 x 10 box): thermo.csv bit-identical
  restart  the blend restarted from a checkpoint in the middle of a field interval (step 50
           of intervals of 7), written on 1 and on 2 ranks, restarted on 1: thermo.csv the
           same as a run straight through that wrote the same checkpoint
  bad      bad input exits 2 with one line naming the key: chi not symmetric, kappa <= 0,
           interval < 1, a spacing that is not a divisor of the box, too many ranks for the
           grid, an unknown species in chi, chi missing a pair, npt, walls
Reference values are the numpy implementation and finite differences, never Vesica's own
output.
"""
import csv
import functools
import os
import shutil
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from vesica_env import run_case  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from field_systems import field_only_config, write_data  # noqa: E402

VESICA, OUT, MODE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
QUANTA = 2.0 ** 40


FIELD = ("spacing = 1.0; interval = {interval}; kappa = 0.1; "
         "chi = { A = { A = 0.0; B = 2.0; }; B = { A = 2.0; B = 0.0; }; };")


def blend_config(box="8.0, 8.0, 8.0", steps=100, interval=5, extra="", field=None):
    field = field if field is not None else FIELD.replace("{interval}", str(interval))
    return f"""box = [{box}]; density = 3.0; seed = 5;
species = ( {{ name = "A"; fraction = 0.5; }}, {{ name = "B"; fraction = 0.5; }} );
dpd = {{ a = {{ A = {{ A = 25.0; B = 25.0; }}; B = {{ A = 25.0; B = 25.0; }}; }};
        gamma = 4.5; kT = 1.0; }};
integrator = {{ dt = 0.02; steps = {steps}; }};
neighbor = {{ skin = 0.3; }};
field = {{ {field} }};
backend = "cpu";
run = {{ momentum_limit = 0.0; momentum_tolerance = 0.0; }};
output = {{ dir = "unused"; thermo_interval = 10; }};
{extra}"""


# run(name, text, ranks=1, sets=(), restart=False, expect=0) -> (folder, process); a failure
# shows the end of stdout too
run = functools.partial(run_case, VESICA, OUT, quote_dir=True, show_stdout=True, prefix="FAIL ")


def thermo(d):
    with open(os.path.join(d, "thermo.csv")) as f:
        return list(csv.DictReader(f))


# ---- forces: the numpy model ------------------------------------------------------------

def model(x, species, box, n, kT, chi, kappa, scheme):
    """W and the forces of the discrete model (src/core/field_grid.h), independently: a
    periodic grid of n^3 cells, counts rounded to 2^-40 per share as Vesica sums them."""
    h = box / n
    u = x / h
    c = np.floor(u).astype(int)
    t = u - c
    nf = chi.shape[0]
    count = np.zeros((nf, n, n, n))
    corners = [(dx, dy, dz) for dz in (0, 1) for dy in (0, 1) for dx in (0, 1)]
    def weight(tt, cr):
        return np.prod([tt[:, d] if cr[d] else 1.0 - tt[:, d] for d in range(3)], axis=0)
    for cr in corners:
        w = np.rint(weight(t, cr) * QUANTA)
        idx = tuple((c[:, d] + cr[d]) % n for d in range(3))
        for k in range(nf):
            sel = species == k
            np.add.at(count[k], tuple(i[sel] for i in idx), w[sel])
    cell_count = len(x) / n ** 3
    phi = count / (QUANTA * cell_count)
    total = phi.sum(axis=0)
    mixv = np.einsum("kl,l...->k...", chi, phi)
    V = kT * mixv + (total - 1.0) / kappa
    W = 0.5 * cell_count * np.sum(kT * np.sum(phi * mixv, axis=0) + (total - 1.0) ** 2 / kappa)
    F = np.zeros_like(x)
    for i in range(len(x)):
        k = species[i]
        for cr in corners:
            v = tuple((c[i, d] + cr[d]) % n for d in range(3))
            if scheme == "gradient":
                w = weight(t[i:i + 1], cr)[0]
                for d in range(3):
                    up = list(v); dn = list(v)
                    up[d] = (up[d] + 1) % n; dn[d] = (dn[d] - 1) % n
                    F[i, d] -= w * (V[k][tuple(up)] - V[k][tuple(dn)]) / (2 * h)
            else:
                for d in range(3):
                    dw = (1.0 if cr[d] else -1.0) / h
                    for e in range(3):
                        if e != d:
                            dw *= t[i, e] if cr[e] else 1.0 - t[i, e]
                    F[i, d] -= V[k][v] * dw
    return W, F


def vesica_state(name, x, species, box, scheme):
    """Vesica's W at step 0 (thermo.csv's first row), and its state after one step of
    dt = 0.001 from rest: the positions and the forces computed there, and W there."""
    data = os.path.join(OUT, "data", name + ".data")
    os.makedirs(os.path.dirname(data), exist_ok=True)
    write_data(data, x, species, box)
    d, _ = run(name, field_only_config(data, scheme))
    rows = thermo(d)
    with h5py.File(os.path.join(d, "checkpoints", "ckpt_1.h5"), "r") as f:
        tag = f["particles/tag"][:]
        pos, force = np.empty((len(x), 3)), np.empty((len(x), 3))
        pos[tag] = f["particles/position"][:]
        force[tag] = f["particles/force"][:]
    return float(rows[0]["field_energy"]), pos, float(rows[1]["field_energy"]), force


def check_forces():
    rng = np.random.default_rng(7)
    box, n = 6.0, 6
    N = int(3.0 * box ** 3)
    x = rng.uniform(0.0, box, size=(N, 3))
    species = (rng.uniform(size=N) < 0.4).astype(int)
    chi = np.array([[0.0, 1.5], [1.5, 0.3]])
    for scheme in ("gradient", "energy"):
        _, x1, W, F = vesica_state(f"forces_{scheme}", x, species, box, scheme)
        W_ref, F_ref = model(x1, species, box, n, 1.0, chi, 0.2, scheme)
        errW = abs(W - W_ref) / abs(W_ref)
        errF = np.max(np.abs(F - F_ref)) / np.max(np.abs(F_ref))
        print(f"{scheme}: W {W:.12g} (numpy {W_ref:.12g}, rel {errW:.2e}); "
              f"forces max rel {errF:.2e} over {N} particles")
        if not (errW < 1e-9 and errF < 1e-9):
            sys.exit(f"FAIL forces: {scheme} differs from the numpy model")
    # minus the derivative of the discrete energy, by finite differences
    delta = 1e-3  # W is quadratic in a coordinate within a cell: central differences are exact
    _, x, _, F = vesica_state("forces_energy", x, species, box, "energy")
    u = x / (box / n)
    frac = u - np.floor(u)
    away = np.where(np.all((frac > 0.01) & (frac < 0.99), axis=1))[0][:3]
    worst = 0.0
    for i in away:
        for d in range(3):
            e = []
            for s in (1, -1):
                y = x.copy()
                y[i, d] += s * delta
                e.append(vesica_state(f"fd_{i}_{d}_{s}", y, species, box, "energy")[0])
                shutil.rmtree(os.path.join(OUT, f"fd_{i}_{d}_{s}"))
            fd = -(e[0] - e[1]) / (2 * delta)
            worst = max(worst, abs(fd - F[i, d]) / max(abs(F[i, d]), 1e-3))
            print(f"particle {i} axis {d}: force {F[i, d]:+.9f}, -dW/dx {fd:+.9f}")
    print(f"energy scheme: max relative deviation from -dW/dx {worst:.2e}")
    if not worst < 1e-6:
        sys.exit("FAIL forces: the energy scheme's forces are not minus the energy's gradient")


def check_ranks():
    rows = {}
    for n in (1, 2, 4):
        d, _ = run(f"ranks_{n}", blend_config(), ranks=n)
        rows[n] = open(os.path.join(d, "thermo.csv")).read()
    for n in (2, 4):
        if rows[n] != rows[1]:
            sys.exit(f"FAIL ranks: thermo.csv on {n} ranks differs from 1 rank")
    uneven = blend_config(box="13.0, 9.0, 10.0")
    d1, _ = run("ranks_uneven_1", uneven)
    d3, _ = run("ranks_uneven_3", uneven, ranks=3, sets=["decomposition=[3,1,1]"])
    if open(os.path.join(d1, "thermo.csv")).read() != open(os.path.join(d3, "thermo.csv")).read():
        sys.exit("FAIL ranks: thermo.csv on 3 unequal bricks differs from 1 rank")
    print(f"thermo.csv bit-identical on 1, 2 and 4 ranks ({len(rows[1].splitlines()) - 1} rows) "
          "and on 3 unequal bricks")


def check_restart():
    text = blend_config(interval=7)
    straight, _ = run("restart_straight", text, sets=["output.checkpoint_interval=50"])
    a = open(os.path.join(straight, "thermo.csv")).read()
    for ranks in (1, 2):  # the first part on 1 or 2 ranks, the restart on 1
        name = f"restart_split_np{ranks}"
        first, _ = run(name, text, ranks=ranks, sets=["integrator.steps=50"])
        run(name, text, restart=True)
        b = open(os.path.join(first, "thermo.csv")).read()
        if a != b:
            sys.exit(f"FAIL restart: thermo.csv after the restart (first part on {ranks} "
                     "rank(s)) differs from the straight run")
    print(f"restart at step 50 (field interval 7), written on 1 or 2 ranks: thermo.csv "
          f"identical, {len(a.splitlines()) - 1} rows")


def check_bad():
    chi = "chi = { A = { A = 0.0; B = 2.0; }; B = { A = 2.0; B = 0.0; }; };"
    cases = [
        ("chi_asym", {"field": "spacing = 1.0; kappa = 0.1; chi = { A = { A = 0.0; B = 2.0; }; "
                      "B = { A = 1.0; B = 0.0; }; };"}, [], "field.chi.B.A"),
        ("kappa", {"field": f"spacing = 1.0; kappa = 0.0; {chi}"}, [], "field.kappa"),
        ("interval", {"field": f"spacing = 1.0; kappa = 0.1; interval = 0; {chi}"}, [],
         "field.interval"),
        ("spacing", {"field": f"spacing = 0.7; kappa = 0.1; {chi}"}, [], "field.spacing"),
        ("ranks", {"field": f"spacing = 2.0; kappa = 0.1; {chi}"}, ["decomposition=[2,1,1]"],
         "field.spacing"),
        ("unknown", {"field": "spacing = 1.0; kappa = 0.1; chi = { A = { A = 0.0; C = 2.0; }; "
                     "C = { A = 2.0; C = 0.0; }; };"}, [], "field.chi.C"),
        ("missing", {"field": "spacing = 1.0; kappa = 0.1; chi = { A = { A = 0.0; }; "
                     "B = { A = 2.0; B = 0.0; }; };"}, [], "field.chi.A.B"),
        ("npt", {"field": f"spacing = 1.0; kappa = 0.1; {chi}"},
         ['integrator.kind="npt"', "integrator.pressure=23.7", "integrator.tau=1.0",
          "integrator.tau_p=5.0", "dpd.gamma=0.0"], "field"),
        ("walls", {"field": f"spacing = 1.0; kappa = 0.1; {chi}"},
         ['boundary.z.kind="bounce_back"'], "field"),
    ]
    for name, groups, sets, key in cases:
        text = blend_config(field=groups["field"])
        ranks = 2 if name == "ranks" else 1
        d, r = run(f"bad_{name}", text, ranks=ranks, sets=sets, expect=2)
        lines = [l for l in r.stderr.splitlines() if "error" in l]
        if len(lines) < 1 or key not in lines[0]:
            sys.exit(f"FAIL bad {name}: expected one error line naming {key}, got:\n{r.stderr}")
        print(f"{name}: {lines[0]}")
        if os.path.exists(os.path.join(d, "thermo.csv")):
            sys.exit(f"FAIL bad {name}: thermo.csv was written")


{"forces": check_forces, "ranks": check_ranks, "restart": check_restart,
 "bad": check_bad}[MODE]()
print("PASS")
