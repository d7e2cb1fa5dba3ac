#!/usr/bin/env python3
"""Ideal harmonic chains in a DPD bath against the exact Boltzmann statistics (issue 25).

Usage: chain_stats.py VESICA_BINARY WORKDIR

Chains of N = 10 beads joined by harmonic springs, E = K/2 (r - r0)^2 (K = 20, r0 = 0.6), no
angles, in a DPD solvent at kT = 1 (a_SS = 25, gamma = 4.5). The chain beads feel no
conservative pair force at all (a = 0 between chain beads and between chain and solvent: DPD
pairs act between all pairs in this model, so the chains are made ideal by their a_ij), only
the bath's dissipative and random forces, which leave the canonical distribution of the
springs alone. The springs of an ideal chain are independent, so:
  - every bond length follows P(r) = C r^2 exp(-K (r - r0)^2 / (2 kT)) on r >= 0 (the r^2 of
    the spherical shell; C normalises it numerically here): a chi-square test over 30 bins of
    equal expected count and a Kolmogorov-Smirnov test, both p > 1e-3, on bond lengths taken
    every 2 time units (about twice the decay time of a bond's length in this bath);
  - <b^2> of the samples equals the exact second moment of P(r) within 4 standard errors
    (errors from the scatter of the means over blocks of 5 frames, 10 time units: longer
    than the chains' relaxation, so the blocks are independent);
  - the end-to-end vector R of a freely jointed ideal chain (bond directions independent and
    isotropic): <R^2> = (N - 1) <b^2>, with the exact <b^2>, within 4 standard errors.
Runs in well under a minute on one CPU core. Exits 77 (skip) without numpy, h5py or scipy.
"""
import os
import subprocess
import sys

try:
    import h5py
    import numpy as np
    # numpy 2 renamed trapz (the device's numpy has only trapezoid)
    trapezoid = getattr(np, "trapezoid", None) or np.trapz
    from scipy import stats
except ImportError:
    print("skip: numpy, h5py or scipy missing")
    sys.exit(77)

K, R0, KT, N = 20.0, 0.6, 1.0, 10
CHAINS, STEPS, EVERY, EQUIL, BLOCK = 80, 12000, 200, 2000, 5
CONFIG = """
box = [8.0, 8.0, 8.0];
density = 3.0;
seed = 2025;
species = ( {{ name = "C"; fraction = 0.0; }}, {{ name = "S"; fraction = 1.0; }} );
dpd = {{ a = {{ C = {{ C = 0.0; S = 0.0; }}; S = {{ C = 0.0; S = 25.0; }}; }};
        gamma = 4.5; kT = {kT}; }};
molecules = (
  {{ name = "ideal"; sequence = "C"; repeat = {n}; count = {chains};
    bond = {{ style = "harmonic"; K = {K}; r0 = {r0}; }}; }}
);
bonded = {{ reach = 2.5; }};
integrator = {{ dt = 0.01; steps = {steps}; }};
neighbor = {{ skin = 0.3; }};
backend = "cpu";
output = {{ dir = "{out}"; thermo_interval = 1000; trajectory_interval = {every}; }};
"""


def exact_pdf():
    """P(r) on a fine grid, its CDF and moments, by quadrature."""
    r = np.linspace(0.0, R0 + 12.0 * np.sqrt(KT / K), 200001)
    w = r * r * np.exp(-K * (r - R0) ** 2 / (2.0 * KT))
    dr = r[1] - r[0]
    cdf = np.concatenate([[0.0], np.cumsum(0.5 * (w[1:] + w[:-1]) * dr)])
    norm = cdf[-1]
    b2 = trapezoid(w * r * r, r) / norm
    return r, cdf / norm, b2


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "run")
    cfg = os.path.join(work, "ideal.cfg")
    with open(cfg, "w") as c:
        c.write(CONFIG.format(kT=KT, n=N, chains=CHAINS, K=K, r0=R0, steps=STEPS, out=out,
                              every=EVERY))
    subprocess.run([binary, "run", cfg], check=True, stdout=subprocess.DEVNULL)
    with h5py.File(os.path.join(out, "traj.h5md"), "r") as f:
        x = f["particles/all/position/value"][:]
        steps = f["particles/all/position/step"][:]
        box = np.diag(f["particles/all/box/edges/value"][0])
    x = x[steps >= EQUIL][:, :CHAINS * N].reshape(-1, CHAINS, N, 3)  # tags: chains first
    b = np.diff(x, axis=2)
    b -= box * np.round(b / box)  # every bond is shorter than half the box
    r = np.linalg.norm(b, axis=3)  # (frames, chains, N - 1)
    R2 = (b.sum(axis=2) ** 2).sum(axis=2)  # (frames, chains)
    grid, cdf, b2_exact = exact_pdf()
    samples = r.ravel()  # all frames after EQUIL, each 2 time units apart
    n = samples.size
    ok = True
    # chi-square over bins of equal expected count
    edges = np.interp(np.linspace(0.0, 1.0, 31), cdf, grid)
    edges[0], edges[-1] = 0.0, np.inf
    counts = np.histogram(samples, bins=edges)[0]
    expected = n / 30.0
    chi2 = ((counts - expected) ** 2 / expected).sum()
    p_chi2 = stats.chi2.sf(chi2, 29)
    p_ks = stats.kstest(samples, lambda q: np.interp(q, grid, cdf)).pvalue
    print("bond lengths: %d samples; chi-square %.1f on 29 dof, p = %.3g; KS p = %.3g"
          % (n, chi2, p_chi2, p_ks))
    ok &= p_chi2 > 1e-3 and p_ks > 1e-3
    blocks = r.shape[0] // BLOCK
    r, R2 = r[:blocks * BLOCK], R2[:blocks * BLOCK]
    b2_blocks = (r ** 2).reshape(blocks, -1).mean(axis=1)
    b2, b2_err = b2_blocks.mean(), b2_blocks.std(ddof=1) / np.sqrt(blocks)
    print("<b^2> = %.5f +- %.5f, exact %.5f (%.1f standard errors)"
          % (b2, b2_err, b2_exact, abs(b2 - b2_exact) / b2_err))
    ok &= abs(b2 - b2_exact) <= 4.0 * b2_err
    R2_blocks = R2.reshape(blocks, -1).mean(axis=1)
    R2m, R2_err = R2_blocks.mean(), R2_blocks.std(ddof=1) / np.sqrt(blocks)
    want = (N - 1) * b2_exact
    print("<R^2> = %.4f +- %.4f, (N - 1) <b^2> = %.4f (%.1f standard errors)"
          % (R2m, R2_err, want, abs(R2m - want) / R2_err))
    ok &= abs(R2m - want) <= 4.0 * R2_err
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
