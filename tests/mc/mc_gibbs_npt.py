#!/usr/bin/env python3
"""The NPT Gibbs ensemble (mc.ensemble = "gibbs_npt") with an ideal-gas mixture: exact results,
no reference data. lj with epsilon = 0 between every pair of species, so every energy is 0 and
only the acceptance prefactors act.

Usage: mc_gibbs_npt.py VESICA_BINARY WORKDIR [CYCLES [SEED]]

Two species, N_A = 30 and N_B = 15 (N = 45), two boxes at pressure P (kT = 1), independent
log-volume moves of each box, transfers that pick the species first. The stationary
distribution of (n_Ak, n_Bk in box 1, V_0, V_1) is
    prod_k V_0^n_k0 V_1^n_k1 / (n_k0! n_k1!) exp(-beta P (V_0 + V_1)),
and integrating the volumes (int V^n exp(-beta P V) dV = n! / (beta P)^(n + 1)) leaves
    P(n_A0, n_B0) ~ C(n_0, n_A0) C(N - n_0, N_A - n_A0),    n_0 = n_A0 + n_B0,
whose sums (Vandermonde) give:
- n_0, the particles in box 0, uniform on 0..N: mean N/2, variance ((N + 1)^2 - 1) / 12;
- n_A0 uniform on 0..N_A and n_B0 on 0..N_B (not binomial: a box that holds more particles
  grows, so no split is favoured);
- given n_0, n_A0 hypergeometric: the residual d = n_A0 - n_0 N_A / N has mean 0 and
  E[d^2] = N_A N_B / (6 N) (the hypergeometric variance averaged over the uniform n_0);
- given n_b, beta P V_b is Gamma(n_b + 1): y_b = beta P V_b / (n_b + 1) has mean 1 and
  z_b = (beta P V_b - n_b - 1)^2 / (n_b + 1) has mean 1, in every row whatever n_b.
Means within 4 block errors (10 blocks), variances of the uniform laws within 20 %. A box
below twice the cut-off (edge 2, V 8) is refused, which at P = 0.001 removes 0.8 % of an empty
box's volumes: far below the errors here.
"""
import os
import subprocess
import sys

from mc_ideal_gas import check, mean_err

N_A, N_B, P = 30, 15, 0.001

CONFIG = """box = [10.0, 10.0, 10.0];
particles = 23;
seed = %(seed)d;
species = ( { name = "A"; fraction = %(fa)r; }, { name = "B"; fraction = %(fb)r; } );
pair = ( { style = "lj"; rc = 1.0;
           coeff = { A = { A = { epsilon = 0.0; sigma = 1.0; }; B = { epsilon = 0.0; sigma = 1.0; }; };
                     B = { B = { epsilon = 0.0; sigma = 1.0; }; }; }; } );
mc = { ensemble = "gibbs_npt"; pressure = %(p)r; box2 = [10.0, 10.0, 10.0]; particles2 = 22;
       kT = 1.0; cycles = %(cycles)d; equilibration = %(eq)d; max_log_volume = 0.5;
       moves = { displacement = 0.1; volume = 0.3; exchange = 0.6; }; };
output = { dir = "out"; thermo_interval = 1; checkpoint_keep = 0; };
"""


def check_var(name, x, want):
    r = x.var() / want
    ok = 0.8 <= r <= 1.2
    print("%-26s %.4f of the exact %.4g  %s" % (name, r, want, "ok" if ok else "FAIL"))
    return ok


def main():
    binary, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    cycles = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 29
    try:
        import numpy as np
    except ImportError:
        print("skip: numpy missing")
        return 77
    os.makedirs(work, exist_ok=True)
    n = N_A + N_B
    eq = 1000
    with open(os.path.join(work, "ig.cfg"), "w") as f:
        f.write(CONFIG % dict(seed=seed, fa=N_A / n, fb=N_B / n, p=P, cycles=cycles, eq=eq))
    subprocess.run([binary, "mc", "ig.cfg"], cwd=work, check=True, stdout=subprocess.DEVNULL)
    d = np.genfromtxt(os.path.join(work, "out", "thermo.csv"), delimiter=",", names=True)
    d = d[d["cycle"] > eq]
    ok = True
    # the composition columns agree with the totals in every row
    for b in (0, 1):
        same = np.all(d["n_A_%d" % b] + d["n_B_%d" % b] == d["n_%d" % b])
        print("n_A_%d + n_B_%d == n_%d        %s" % (b, b, b, "ok" if same else "FAIL"))
        ok &= bool(same)
    same = np.all(d["n_A_0"] + d["n_A_1"] == N_A) and np.all(d["n_B_0"] + d["n_B_1"] == N_B)
    print("species conserved            %s" % ("ok" if same else "FAIL"))
    ok &= bool(same)
    for name, x, top in (("n_0", d["n_0"], n), ("n_A_0", d["n_A_0"], N_A),
                         ("n_B_0", d["n_B_0"], N_B)):
        m, e = mean_err(x, 10)
        ok &= check("<%s>" % name, m, top / 2.0, e)
        ok &= check_var("var(%s)/uniform" % name, x, ((top + 1.0) ** 2 - 1) / 12)
    res = d["n_A_0"] - d["n_0"] * N_A / n
    m, e = mean_err(res, 10)
    ok &= check("<n_A0 - n_0 N_A/N>", m, 0.0, e)
    m, e = mean_err(res ** 2, 10)
    ok &= check("<(n_A0 - n_0 N_A/N)^2>", m, N_A * N_B / (6.0 * n), e)
    for b in (0, 1):
        bpv, nb = P * d["volume_%d" % b], d["n_%d" % b]
        m, e = mean_err(bpv / (nb + 1), 10)
        ok &= check("<beta P V_%d / (n_%d + 1)>" % (b, b), m, 1.0, e)
        m, e = mean_err((bpv - nb - 1) ** 2 / (nb + 1), 10)
        ok &= check("<(bPV_%d - n_%d - 1)^2/(n+1)>" % (b, b), m, 1.0, e)
    att = d["transfer_attempted_0"][-1] + d["transfer_attempted_1"][-1]
    acc = d["transfer_accepted_0"][-1] + d["transfer_accepted_1"][-1]
    vatt = d["volume_attempted_0"][-1] + d["volume_attempted_1"][-1]
    vacc = d["volume_accepted_0"][-1] + d["volume_accepted_1"][-1]
    print("transfers accepted %.3f, volume moves %.3f (%d rows)" % (acc / att, vacc / vatt,
                                                                    len(d)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
