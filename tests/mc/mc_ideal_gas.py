#!/usr/bin/env python3
"""Detailed balance of the Monte Carlo moves with the ideal gas (exact results, no reference
data): lj with epsilon = 0, so every energy is 0 and only the acceptance prefactors act.

Usage: mc_ideal_gas.py VESICA_BINARY WORKDIR [CYCLES]

- gcmc at activity z in volume V: N is Poisson with mean z V = 50: the mean within 4 block
  errors of 50 (8 blocks), the variance over the mean in [0.85, 1.15], and the histogram of N
  within 0.02 of the Poisson probabilities at every N (total-variation distance below 0.05);
- npt at pressure P with N = 50: <V> = (N + 1) kT / P = 1020 within 4 block errors, and
  <1/V> = P / (N kT) (the exact mean of the Gamma(N + 1) distribution of beta P V) within 4
  block errors;
- gibbs with 40 + 40 particles in two boxes of 1000: the marginals of N_0 and of V_0 are
  uniform (on 0..80 and on [0, 2000]: the integrals of V_0^n (V - V_0)^(N - n) / (n! (N - n)!)
  over V_0, and their sum over n, are constants), so <N_0> = 40 and <V_0> = 1000 within 4
  block errors, var(N_0) = (81^2 - 1) / 12 and var(V_0) = 2000^2 / 12 within 20 %.
"""
import math
import os
import subprocess
import sys

CONFIG = """box = [10.0, 10.0, 10.0];
particles = %(n)d;
seed = %(seed)d;
species = ( { name = "A"; mass = 1.0; } );
pair = ( { style = "lj"; rc = 1.0; coeff = { A = { A = { epsilon = 0.0; sigma = 1.0; }; }; }; } );
mc = { %(mc)s cycles = %(cycles)d; equilibration = %(eq)d; kT = 1.0; };
output = { dir = "%(dir)s"; thermo_interval = 1; checkpoint_keep = 0; };
"""


def run(binary, work, name, n, mc, cycles, eq, seed):
    import numpy as np
    path = os.path.join(work, name + ".cfg")
    with open(path, "w") as f:
        f.write(CONFIG % dict(n=n, seed=seed, mc=mc, cycles=cycles, eq=eq, dir=name))
    subprocess.run([binary, "mc", path], cwd=work, check=True, stdout=subprocess.DEVNULL)
    d = np.genfromtxt(os.path.join(work, name, "thermo.csv"), delimiter=",", names=True)
    return d[d["cycle"] > eq]


def mean_err(x, blocks=8):
    import numpy as np
    b = np.array([c.mean() for c in np.array_split(x, blocks)])
    return x.mean(), b.std(ddof=1) / math.sqrt(blocks)


def check(name, value, want, err, k=4.0):
    ok = abs(value - want) <= k * err
    print("%-22s %.5g +- %.2g (exact %.5g)  %s" % (name, value, err, want, "ok" if ok else "FAIL"))
    return ok


def main():
    binary, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    cycles = int(sys.argv[3]) if len(sys.argv) > 3 else 6000
    try:
        import numpy as np
    except ImportError:
        print("skip: numpy missing")
        return 77
    os.makedirs(work, exist_ok=True)
    ok = True
    d = run(binary, work, "gcmc", 20, 'ensemble = "gcmc"; activity = 0.05; '
            'moves_per_cycle = 50;', cycles, 500, 11)
    n = d["n_0"]
    m, e = mean_err(n)
    ok &= check("gcmc <N>", m, 50.0, e)
    ratio = n.var() / n.mean()
    good = 0.85 <= ratio <= 1.15
    print("gcmc var(N)/<N>        %.4f (exact 1)  %s" % (ratio, "ok" if good else "FAIL"))
    ok &= good
    ks = np.arange(0, 121)
    hist = np.array([(n == k).mean() for k in ks])
    pois = np.array([math.exp(-50.0 + k * math.log(50.0) - math.lgamma(k + 1)) for k in ks])
    tv = 0.5 * np.abs(hist - pois).sum()
    good = np.abs(hist - pois).max() <= 0.02 and tv < 0.05
    print("gcmc histogram         max |p - Poisson| %.4f, TV %.4f  %s" %
          (np.abs(hist - pois).max(), tv, "ok" if good else "FAIL"))
    ok &= good

    d = run(binary, work, "npt", 50, 'ensemble = "npt"; pressure = 0.05; max_log_volume = 0.3; '
            'moves = { displacement = 0.5; volume = 0.5; };', cycles, 500, 5)
    v = d["volume_0"]
    m, e = mean_err(v)
    ok &= check("npt <V>", m, 51 / 0.05, e)
    m, e = mean_err(1.0 / v)
    ok &= check("npt <1/V>", m, 0.05 / 50, e)

    d = run(binary, work, "gibbs", 40, 'ensemble = "gibbs"; box2 = [10.0, 10.0, 10.0]; '
            'particles2 = 40; max_log_volume = 0.5; '
            'moves = { displacement = 0.4; volume = 0.3; exchange = 0.3; };', cycles, 500, 3)
    m, e = mean_err(d["n_0"])
    ok &= check("gibbs <N_0>", m, 40.0, e)
    m, e = mean_err(d["volume_0"])
    ok &= check("gibbs <V_0>", m, 1000.0, e)
    for name, x, want in (("N_0", d["n_0"], (81.0 ** 2 - 1) / 12), ("V_0", d["volume_0"],
                                                                    2000.0 ** 2 / 12)):
        r = x.var() / want
        good = 0.8 <= r <= 1.2
        print("gibbs var(%s)/uniform  %.4f (exact 1)  %s" % (name, r, "ok" if good else "FAIL"))
        ok &= good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
