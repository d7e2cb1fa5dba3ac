#!/usr/bin/env python3
"""The Monte Carlo summary file (output.dir/mc_summary.h5) against a calculation of its own
from thermo.csv, and the grand canonical N histogram of the ideal gas against Poisson.

Usage: mc_summary.py VESICA_BINARY WORKDIR [GCMC_CYCLES]

1. A short LJ Gibbs run: every result of mc_summary.h5 (per box N, volume, density, energy,
   U/N, pressure; the coexistence densities, pressures, energies per particle, heat of
   vaporization and the fraction of rows with box 0 the liquid) equals the block estimate
   computed here with numpy from the production rows of thermo.csv (rows after
   mc.equilibration; row k of R in block floor(k B / R); ratios of means; the denser box of
   each row the liquid), to 1e-9 relative.
2. A short LJ gcmc run: the histograms of N and of (N, E) in the file are those of the rows
   (E binned by floor(E / w), w = mc.energy_bin).
3. The ideal gas (epsilon = 0) under gcmc at z = 0.05 in V = 1000: the histogram of N in the
   file is Poisson with mean z V = 50. Pearson's chi-square over the bins with an expected
   count of at least 5 (the tails pooled), divided by the inflation g = (1 + r) / (1 - r) of
   correlated rows (r: the lag-one autocorrelation of N between rows, AR(1)), must lie below
   dof + 5 sqrt(2 dof) (about 5 standard deviations of the chi-square distribution); <N> within
   4 of the file's block errors of 50.
"""
import math
import os
import subprocess
import sys

LJ = """box = [7.0, 7.0, 7.0];
particles = 200;
seed = %(seed)d;
species = ( { name = "A"; mass = 1.0; } );
pair = ( { style = "lj"; rc = 2.5; tail = "on";
           coeff = { A = { A = { epsilon = %(eps)g; sigma = 1.0; }; }; }; } );
mc = { %(mc)s };
output = { dir = "%(dir)s"; thermo_interval = %(ti)d; checkpoint_keep = 0; };
"""


def run(binary, work, name, text):
    path = os.path.join(work, name + ".cfg")
    with open(path, "w") as f:
        f.write(text)
    subprocess.run([binary, "mc", path], cwd=work, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(work, name)


def production(out, equil):
    import numpy as np
    t = np.genfromtxt(os.path.join(out, "thermo.csv"), delimiter=",", names=True)
    return t[t["cycle"] > equil]


def block(series, f, blocks):
    """f of the means of the series over all rows, and the spread of its block values."""
    import numpy as np
    r = len(series[0])
    which = (np.arange(r) * blocks) // r
    est = f(*[s.mean() for s in series])
    fb = np.array([f(*[s[which == b].mean() for s in series]) for b in range(blocks)])
    return est, math.sqrt(((fb - fb.mean()) ** 2).sum() / (blocks * (blocks - 1)))


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-14


def check_gibbs(binary, work):
    import h5py
    import numpy as np
    eq, blocks = 100, 10
    out = run(binary, work, "gibbs", LJ % dict(
        seed=5, eps=1.0, ti=2, dir="gibbs",
        mc='ensemble = "gibbs"; kT = 1.0; cycles = 400; equilibration = %d; '
           'box2 = [9.0, 9.0, 9.0]; particles2 = 30;' % eq))
    t = production(out, eq)
    one = lambda x: x
    ratio = lambda u, n: u / n
    want = {}
    for b in (0, 1):
        for q in ("n", "volume", "density", "energy", "pressure"):
            want["box_%d/%s" % (b, q)] = block([t["%s_%d" % (q, b)]], one, blocks)
        want["box_%d/energy_per_particle" % b] = block([t["energy_%d" % b], t["n_%d" % b]],
                                                       ratio, blocks)
    liq0 = ~(t["density_1"] > t["density_0"])
    ph = {}
    for q in ("n", "volume", "density", "energy", "pressure"):
        ph["l" + q] = np.where(liq0, t[q + "_0"], t[q + "_1"])
        ph["v" + q] = np.where(liq0, t[q + "_1"], t[q + "_0"])
    c = "coexistence/"
    want[c + "density_liquid"] = block([ph["ldensity"]], one, blocks)
    want[c + "density_vapour"] = block([ph["vdensity"]], one, blocks)
    want[c + "pressure_vapour"] = block([ph["vpressure"]], one, blocks)
    want[c + "pressure_liquid"] = block([ph["lpressure"]], one, blocks)
    want[c + "energy_per_particle_liquid"] = block([ph["lenergy"], ph["ln"]], ratio, blocks)
    want[c + "energy_per_particle_vapour"] = block([ph["venergy"], ph["vn"]], ratio, blocks)
    hv = lambda ul, nl, vl, uv, nv, vv, pv: (uv / nv - ul / nl) + pv * (vv / nv - vl / nl)
    want[c + "heat_of_vaporization"] = block(
        [ph["lenergy"], ph["ln"], ph["lvolume"], ph["venergy"], ph["vn"], ph["vvolume"],
         ph["vpressure"]], hv, blocks)
    want[c + "box_0_liquid_fraction"] = block([liq0.astype(float)], one, blocks)
    ok = True
    with h5py.File(os.path.join(out, "mc_summary.h5"), "r") as f:
        ok &= int(f.attrs["rows"]) == len(t) and int(f.attrs["blocks"]) == blocks
        for key, (m, e) in sorted(want.items()):
            got = f[key][()]
            good = close(got[0], m) and close(got[1], e)
            ok &= good
            if not good or key.startswith(c):
                print("%-42s %.10g +- %.4g (numpy %.10g +- %.4g)  %s" %
                      (key, got[0], got[1], m, e, "ok" if good else "FAIL"))
        print("gibbs: %d production rows, %d results  %s" % (len(t), len(want),
                                                             "ok" if ok else "FAIL"))
    return ok


def check_gcmc_lj(binary, work):
    import h5py
    import numpy as np
    eq = 50
    out = run(binary, work, "gcmc", LJ % dict(
        seed=9, eps=1.0, ti=1, dir="gcmc",
        mc='ensemble = "gcmc"; kT = 1.5; activity = 0.1; cycles = 300; equilibration = %d; '
           'energy_bin = 0.25;' % eq))
    t = production(out, eq)
    n = t["n_0"].astype(np.int64)
    e = np.floor(t["energy_0"] / 0.25).astype(np.int64)
    with h5py.File(os.path.join(out, "mc_summary.h5"), "r") as f:
        h = f["histogram"]
        count_n = h["count_n"][()]
        pairs, counts = np.unique(np.stack([n, e], axis=1), axis=0, return_counts=True)
        ok = (np.array_equal(count_n, np.bincount(n)) and h.attrs["energy_bin"] == 0.25 and
              np.array_equal(h["joint_n"][()], pairs[:, 0]) and
              np.array_equal(h["joint_energy_bin"][()], pairs[:, 1]) and
              np.array_equal(h["joint_count"][()], counts))
    print("gcmc (LJ): N histogram over %d rows, %d joint (N, E) bins equal to the rows'  %s" %
          (len(t), len(counts), "ok" if ok else "FAIL"))
    return ok


def check_poisson(binary, work, cycles):
    import h5py
    import numpy as np
    eq = 500
    out = run(binary, work, "ideal", LJ.replace("rc = 2.5", "rc = 1.0").replace(
        "[7.0, 7.0, 7.0]", "[10.0, 10.0, 10.0]").replace("particles = 200", "particles = 20") % dict(
        seed=11, eps=0.0, ti=5, dir="ideal",
        mc='ensemble = "gcmc"; kT = 1.0; activity = 0.05; moves_per_cycle = 50; cycles = %d; '
           'equilibration = %d;' % (cycles, eq)))
    t = production(out, eq)
    with h5py.File(os.path.join(out, "mc_summary.h5"), "r") as f:
        obs = f["histogram/count_n"][()].astype(float)
        mean, err = f["box_0/n"][()]
    rows = obs.sum()
    k = np.arange(len(obs) + 200)
    p = np.exp(-50.0 + k * math.log(50.0) - np.array([math.lgamma(i + 1) for i in k]))
    obs = np.concatenate([obs, np.zeros(200)])
    exp_ = rows * p
    # bins with an expected count >= 5, the tails pooled into the end bins
    keep = np.nonzero(exp_ >= 5)[0]
    lo, hi = keep[0], keep[-1]
    o = np.concatenate([[obs[:lo + 1].sum()], obs[lo + 1:hi], [obs[hi:].sum()]])
    x = np.concatenate([[exp_[:lo + 1].sum()], exp_[lo + 1:hi], [rows - exp_[:hi].sum()]])
    chi2 = ((o - x) ** 2 / x).sum()
    nn = t["n_0"]
    r = np.corrcoef(nn[:-1], nn[1:])[0, 1]
    g = max(1.0, (1 + r) / (1 - r))
    dof = len(o) - 1
    limit = dof + 5 * math.sqrt(2 * dof)
    ok_chi = chi2 / g < limit
    ok_mean = abs(mean - 50.0) <= 4 * err
    print("ideal gcmc: %d rows, <N> %.3f +- %.3f (exact 50)  %s" %
          (rows, mean, err, "ok" if ok_mean else "FAIL"))
    print("ideal gcmc: chi-square %.1f / g %.3f (lag-one r %.3f) = %.1f over %d dof, limit %.1f  %s"
          % (chi2, g, r, chi2 / g, dof, limit, "ok" if ok_chi else "FAIL"))
    return ok_chi and ok_mean


def main():
    binary, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    cycles = int(sys.argv[3]) if len(sys.argv) > 3 else 50000
    try:
        import h5py  # noqa: F401
        import numpy  # noqa: F401
    except ImportError:
        print("skip: numpy or h5py missing")
        return 77
    os.makedirs(work, exist_ok=True)
    ok = check_gibbs(binary, work)
    ok &= check_gcmc_lj(binary, work)
    ok &= check_poisson(binary, work, cycles)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
