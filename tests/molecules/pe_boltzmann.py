#!/usr/bin/env python3
"""Xu et al.'s united-atom polyethylene chains: bond lengths, bond angles and dihedrals of a
short Langevin run against the force field's Boltzmann distributions (issue 28).

Usage: pe_boltzmann.py VESICA WORKDIR [cpu|double|mixed] [--wrong-k F] [--prod-ps T]
                       [--expect-fail]

The chains are those of configs/polyethylene.cfg (scaling/tools/pe_build.py: 40 chains
CH3-(CH2)22-CH3, 960 sites, masses 14.027 and 15.035 g/mol) with Xu et al.'s Table I bonded
terms in Vesica's units (nm, kJ/mol, g/mol, ps): harmonic bonds k_b = 292880 kJ/mol/nm^2,
b = 0.153 nm; harmonic angles k_a = 418.40 kJ/mol/rad^2, theta0 = 109.471 degrees; the
dihedral k (1 + cos 3 phi), k = 4.184 kJ/mol; Langevin NVT (gamma = 10/ps) at
the paper's 1000 K (kT = 8.3145 kJ/mol), dt = 0.5 fs, 0.5 ps of equilibration, then 15 ps with a
frame every 0.1 ps.

The approximation, and why the test drops the LJ term: with only bonded terms the
configurational weight of a chain factorises over its internal coordinates (Jacobian
prod r^2 prod sin theta), so every bond length, bond angle and dihedral is independently
distributed exactly as
    P(r) ~ r^2 exp(-k_b (r - b)^2 / 2kT),  P(theta) ~ sin theta exp(-k_a (theta - theta0)^2 / 2kT),
    P(phi) ~ exp(-k (1 + cos 3 phi) / kT).
Dreiding's LJ, with only 1-2 and 1-3 pairs excluded, acts between 1-4 neighbours at 0.30-0.39
nm, inside sigma = 0.362 nm, and couples to the bonds and angles: the full model's run
(configs/polyethylene.cfg, docs/validation.md) has a mean angle of 111.5 degrees against the
bonded term's 109.07 (73 standard errors) and bonds 0.55 pm longer (35 standard errors), so its
distributions are not these forms and a test of them would have to guess a tolerance; the
full model is compared with LAMMPS instead (tests/molecules/pe_lammps.py). The run here has
no pair term at all (phantom chains): the forms above are exact, and the test checks the
integrator, the thermostat and the three bonded forces of the polyethylene model together.

Checks, each for bonds, angles and dihedrals (statistics over 20 blocks of 0.75 ps, longer
than the ~0.1 ps correlation time of a bond length or angle):
  - the mean (for dihedrals <cos 3 phi>) within 4 standard errors of the exact one;
  - the variance (for dihedrals <cos^2 3 phi>) within 4 standard errors of the exact one;
  - a chi-square over 30 bins of equal expected count on every tenth frame (1 ps apart),
    p > 1e-3. The chi-square assumes independent samples: at 0.1 ps the autocorrelation of
    sin phi (which side of the trans well a dihedral sits on) is 0.70, at 0.2 ps 0.43, at
    1 ps 0.03 (CPU run, 840 dihedrals); on every second frame the GPU double run gave chi-square
    64.8 on 29 dof (p = 1.5e-4) while <cos 3 phi> and its variance were within 0.3
    standard errors, and the CPU's 62.8 on all frames fell to 27.9 on every tenth.
The exact moments come from quadrature of the forms. Discretisation: velocity Verlet at
dt = 0.5 fs widens the stiffest mode's position variance by 1/(1 - (omega dt / 2)^2) with
omega <= 2 sqrt(k_b/m) = 289/ps, 0.5 % for that mode; the bond lengths, which follow the
stiffest modes (the angles stiffen them further), came out about 1 % wide on the CPU: 1.0107
+- 0.0035 of the exact variance over 30 ps at dt = 0.5 fs, 1.0035 +- 0.0039 over 15 ps at
0.25 fs (the dt^2 of the Verlet error). That uses about 2 of the 4 standard errors (about
0.5 % each over 15 ps) the check allows; a trajectory is deterministic, so a run that passes
keeps passing until the code changes its round-off. --wrong-k F runs with k_b and k_a times F while the reference keeps Table I;
with --expect-fail the script succeeds only if the run finishes and the checks fail
(molecules_pe_boltzmann_wrong_k: F = 1.1, 5 ps: the bond variance 8 % low, 18 standard
errors, the angle variance 6 %, 9 standard errors).

Why the start matters: the chains are built with bond lengths, angles and dihedrals drawn
from the distributions above (scaling/tools/pe_build.py --kT, no overlap check: the chains are
phantom) and Maxwell-Boltzmann velocities, a canonical sample. A deterministic thermostat
keeps a canonical ensemble canonical, but it equilibrates the stiff, nearly harmonic bond
vibrations of phantom chains only slowly: from bonds and angles at their rest values the
bond energy was still 13 % below (N_bonds/2) kT after 20 ps. With the LJ term (the example)
collisions share the energy within about 10 ps. For the same reason the thermostat is
Langevin, not Nose-Hoover: Nose-Hoover couples all modes through one scalar, so the total bond
energy of phantom chains wanders over picoseconds, longer than a 0.75 ps block, and the blocks'
standard errors understate the error of a 15 ps mean (a GPU run in double gave a bond variance
2.4 % low, "5.0 standard errors", from nothing but its own round-off trajectory). Langevin
friction at 10/ps decorrelates every bead's velocity in 0.1 ps, so each block is independent
and the configurational distributions are still the Boltzmann ones.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from vesica_env import gpu_visible  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scaling", "tools"))

try:
    import numpy as np
    # numpy 2 renamed trapz (the device's numpy has only trapezoid)
    trapezoid = getattr(np, "trapezoid", None) or np.trapz
    import h5py  # noqa: F401
    from scipy import stats
    import pe_analysis as pa
    import pe_build
except ImportError as e:
    print("skip: %s" % e)
    sys.exit(77)

KB, B0, KA, TH0, KPHI = 292880.0, 0.153, 418.40, 109.471, 4.184
KT = 8.3145                    # 1000 K
DT, EQUIL_PS, PROD_PS, EVERY = 0.0005, 0.5, 15.0, 200
BLOCKS, BINS = 20, 30
CHI2_STRIDE = 10                # frames 1 ps apart: nearly independent samples

CONFIG = """input = {{ format = "lammps-data"; file = "pe.data"; }};
bonded = {{ bonds = ( {{ style = "harmonic"; K = {kb!r}; r0 = {b0!r}; }} );
           angles = ( {{ style = "harmonic"; K = {ka!r}; theta0 = {th0!r}; }} );
           dihedrals = ( {{ style = "periodic"; K = {kphi!r}; n = 3; delta = 0.0; }} );
           reach = 0.25; }};
seed = 28;
species = ( {{ name = "C"; mass = 14.027; }}, {{ name = "E"; mass = 15.035; }} );
dpd = {{ a = {{ C = {{ C = 0.0; E = 0.0; }}; E = {{ C = 0.0; E = 0.0; }}; }}; gamma = 0.0;
        kT = {kT!r}; rc = 0.2; }};   # no pair forces: DPD with a = gamma = 0, short reach
integrator = {{ kind = "langevin"; gamma = 10.0; dt = {dt!r}; steps = {steps};
               remove_com_every = 100; }};
neighbor = {{ skin = 0.1; }};
backend = "{backend}";
precision = "{precision}";
output = {{ dir = "out"; thermo_interval = 4000; trajectory_interval = {every};
           checkpoint_interval = 0; checkpoint_keep = 0; }};
run = {{ temperature_tolerance = 0.0; }};
"""


def exact_dihedral(kT):
    phi = np.linspace(-np.pi, np.pi, 200001)
    w = np.exp(-KPHI * (1.0 + np.cos(3.0 * phi)) / kT)
    w /= trapezoid(w, phi)
    return phi, w


def block_check(name, values, mean_ref, var_ref):
    """Mean and variance of values (frames, items) within 4 block standard errors."""
    per = values.shape[0] // BLOCKS
    blk = values[:BLOCKS * per].reshape(BLOCKS, -1)
    m, v = blk.mean(axis=1), blk.var(axis=1)
    m_err, v_err = m.std(ddof=1) / np.sqrt(BLOCKS), v.std(ddof=1) / np.sqrt(BLOCKS)
    dm, dv = (m.mean() - mean_ref) / m_err, (v.mean() - var_ref) / v_err
    print("  %s: mean %.6g +- %.2g (exact %.6g, %+.1f s.e.); variance %.5g +- %.2g (exact "
          "%.5g, %+.1f s.e., ratio %.4f)" % (name, m.mean(), m_err, mean_ref, dm, v.mean(),
                                             v_err, var_ref, dv, v.mean() / var_ref))
    return abs(dm) <= 4.0 and abs(dv) <= 4.0


def chi2_check(name, samples, grid, density):
    """Chi-square over BINS bins of equal expected count of the density on grid."""
    cdf = np.concatenate([[0.0], np.cumsum(0.5 * (density[1:] + density[:-1]) * np.diff(grid))])
    cdf /= cdf[-1]
    edges = np.interp(np.linspace(0.0, 1.0, BINS + 1), cdf, grid)
    edges[0], edges[-1] = -np.inf, np.inf
    counts = np.histogram(samples, bins=edges)[0]
    expected = samples.size / BINS
    chi2 = ((counts - expected) ** 2 / expected).sum()
    p = stats.chi2.sf(chi2, BINS - 1)
    print("  %s: chi-square %.1f on %d dof over %d samples, p = %.3g"
          % (name, chi2, BINS - 1, samples.size, p))
    return p > 1e-3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vesica")
    ap.add_argument("work")
    ap.add_argument("mode", nargs="?", default="cpu", choices=["cpu", "double", "mixed"])
    ap.add_argument("--wrong-k", type=float, default=1.0)
    ap.add_argument("--prod-ps", type=float, default=PROD_PS)
    ap.add_argument("--expect-fail", action="store_true")
    a = ap.parse_args()
    vesica, work = os.path.abspath(a.vesica), os.path.abspath(a.work)
    backend, precision = ("cpu", "double") if a.mode == "cpu" else ("gpu", a.mode)
    if backend == "gpu":
        if not gpu_visible(vesica):
            print("skip: no usable GPU")
            return 77
    os.makedirs(work, exist_ok=True)
    box, chains = pe_build.build(40, 24, 10.55, 2010, KT, 0.0)
    pe_build.write_data(os.path.join(work, "pe.data"), box, chains)
    steps = int(round((EQUIL_PS + a.prod_ps) / DT))
    with open(os.path.join(work, "pe.cfg"), "w") as f:
        f.write(CONFIG.format(kb=KB * a.wrong_k, b0=B0, ka=KA * a.wrong_k, th0=TH0, kphi=KPHI,
                              kT=KT, dt=DT, steps=steps, every=EVERY, backend=backend,
                              precision=precision))
    r = subprocess.run([vesica, "run", "pe.cfg"], cwd=work, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(work, "pe.log"), "w") as f:
        f.write(r.stdout)
    if r.returncode != 0:
        sys.stdout.write(r.stdout[-3000:])
        print("FAIL: vesica exited %d" % r.returncode)
        return 1
    d = pa.load(os.path.join(work, "out", "traj.h5md"), EQUIL_PS + 0.5 * DT * EVERY)
    rr, th = pa.bonded_coordinates(d["x"], d["box"], d["bonds"], d["angles"])
    phi = pa.dihedral_angles(d["x"], d["box"], d["dihedrals"])
    print("%d frames (%.1f to %.1f ps), %d bonds, %d angles, %d dihedrals; mode %s, k x %g"
          % (len(d["t"]), d["t"][0], d["t"][-1], rr.shape[1], th.shape[1], phi.shape[1],
             a.mode, a.wrong_k))
    ok = True
    q, w, m, v = pa.reference("bond", KB, B0, KT)
    ok &= block_check("bond length (nm)", rr, m, v)
    ok &= chi2_check("bond length", rr[::CHI2_STRIDE].ravel(), q, w)
    q, w, m, v = pa.reference("angle", KA, np.radians(TH0), KT)
    ok &= block_check("bond angle (rad)", th, m, v)
    ok &= chi2_check("bond angle", th[::CHI2_STRIDE].ravel(), q, w)
    q, w = exact_dihedral(KT)
    c3 = np.cos(3.0 * q)
    m = trapezoid(w * c3, q)
    v = trapezoid(w * (c3 - m) ** 2, q)
    ok &= block_check("dihedral cos(3 phi)", np.cos(3.0 * phi), m, v)
    ok &= chi2_check("dihedral", phi[::CHI2_STRIDE].ravel(), q, w)
    if a.expect_fail:
        print("ok: the checks failed, as they must with k x %g" % a.wrong_k if not ok else
              "FAIL: the checks passed with k x %g" % a.wrong_k)
        return 0 if not ok else 1
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
