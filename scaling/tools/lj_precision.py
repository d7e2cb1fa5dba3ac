#!/usr/bin/env python3
"""GALAMOST's precision test: the relative RMS deviation of the total energy of an LJ liquid in NVE.

Usage: lj_precision.py [--vesica BIN] [--work DIR] [--dt 0.004 [0.002 ...]]
                       [--backend cpu|gpu] [--precision double|mixed]
                       [--nvt-time T] [--nve-time T] [--bound B] [--json FILE]

The protocol of Zhu et al., GALAMOST, J. Comput. Chem. 34, 2197 (2013), section "Precision
tests and performances" (/work/shared/seeds/galamost-paper.txt): the LJ liquid at rho = 0.8,
T = 1.0 in a cubic box of side 12, cut-off r_c = 3.4, equilibrated in NVT, then run in NVE
with the total energy recorded every 0.1 time unit over 1000 time units (N = 10000 samples);
Delta E = sqrt(<(E - <E>)^2>) / |<E>|. Their Fig. 12: for r_c = 3.4 and dt <= 0.004,
Delta E < 4e-5 in GPU single and double and GROMACS CPU single and double precision.

Vesica's version: an fcc lattice of 4 * 7^3 = 1372 particles at rho = 0.8 (box 11.97; 1382
particles of the paper do not fit a cubic fcc lattice), lj with the energy shifted at r_c
(--shift off: truncated, the energy jumps where pairs cross r_c), an NVT run with the Langevin
thermostat (gamma = 1, or --thermostat nose_hoover, tau = 0.5) at kT = 1.0, whose last frame
(positions and velocities, traj.h5md) starts the NVE run (integrator.kind = "nve", the column
conserved_energy = K + U of thermo.csv written every 0.1 time unit). Each dt gets its own NVT
and NVE run at that dt. Prints one line per dt and exits 1 when Delta E exceeds --bound (4e-5,
the paper's) for a dt <= 0.004, so it is a test as well as a measurement. Runs on the CPU by
default; --backend gpu --precision double|mixed for the device runs.
"""
import argparse
import os
import subprocess
import sys

from vesica_driver import read_thermo, run_config, skip_reason, write_results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

CONFIG = """input = {{ format = "h5md"; file = "{input}"; }};
seed = {seed};
species = ( {{ name = "A"; mass = 1.0; }} );
dpd = {{ a = {{ A = {{ A = 0.0; }}; }}; gamma = 0.0; kT = {kT}; }};
pair = ( {{ style = "lj"; rc = {rc}; shift = "{shift}";
           coeff = {{ A = {{ A = {{ epsilon = 1.0; sigma = 1.0; }}; }}; }}; }} );
integrator = {{ dt = {dt}; steps = {steps}; {ensemble} }};
neighbor = {{ skin = {skin}; }};
backend = "{backend}";
precision = "{precision}";
output = {{ dir = "{out}"; thermo_interval = {thermo}; trajectory_interval = {traj};
           checkpoint_interval = 0; checkpoint_keep = 0; }};
run = {{ temperature_tolerance = 0.0; }};
"""


def run_vesica(binary, work, name, fields, log):
    log.append((name, run_config(binary, work, name, CONFIG.format(**fields))))


def one_dt(a, dt, work):
    import numpy as np
    os.makedirs(work, exist_ok=True)
    every = int(round(a.sample / dt))
    if abs(every * dt - a.sample) > 1e-9 * a.sample:
        raise SystemExit("dt %g does not divide the sampling interval %g" % (dt, a.sample))
    common = dict(seed=a.seed, kT=a.kT, rc=a.rc, shift=a.shift, dt=dt, skin=a.skin,
                  backend=a.backend, precision=a.precision)
    nvt_steps = int(round(a.nvt_time / dt))
    ens = ('kind = "langevin"; gamma = 1.0;' if a.thermostat == "langevin" else
           'kind = "nose_hoover"; tau = 0.5;')
    timing = []
    run_vesica(a.vesica, work, "nvt", dict(common, input="lattice.h5", steps=nvt_steps,
                                           ensemble=ens, out="nvt", thermo=every * 10,
                                           traj=nvt_steps), timing)
    run_vesica(a.vesica, work, "nve", dict(common, input="nvt/traj.h5md",
                                           steps=int(round(a.nve_time / dt)),
                                           ensemble='kind = "nve";', out="nve",
                                           thermo=every, traj=0), timing)
    th = read_thermo(os.path.join(work, "nve", "thermo.csv"))
    e = th["conserved_energy"][1:]   # the rows at 0.1, 0.2, ... (step 0 is the start)
    de = float(np.std(e) / abs(np.mean(e)))
    t = th["time"][1:]
    slope = float(np.polyfit(t - t[0], e, 1)[0])
    return {"dt": dt, "samples": int(len(e)), "E_mean": float(np.mean(e)),
            "E_per_particle": float(np.mean(e)) / a.n_particles,
            "T_mean": float(np.mean(th["temperature"][1:])), "delta_E": de,
            "drift_per_tau_rel": slope / abs(float(np.mean(e))),
            "nve_time": a.nve_time, "wall_s": dict(timing)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vesica", default=os.path.join(ROOT, "build", "vesica"))
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "lj-precision"))
    ap.add_argument("--dt", type=float, nargs="+", default=[0.004])
    ap.add_argument("--backend", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--precision", default="double", choices=["double", "mixed"])
    ap.add_argument("--cells", type=int, default=7, help="fcc cells a side (4 n^3 particles)")
    ap.add_argument("--density", type=float, default=0.8)
    ap.add_argument("--kT", type=float, default=1.0)
    ap.add_argument("--rc", type=float, default=3.4)
    ap.add_argument("--shift", default="on", choices=["on", "off"])
    ap.add_argument("--skin", type=float, default=0.3)
    ap.add_argument("--thermostat", default="langevin", choices=["langevin", "nose_hoover"])
    ap.add_argument("--nvt-time", type=float, default=50.0,
                    help="NVT time units (the paper: 5000 at dt = 0.0005)")
    ap.add_argument("--nve-time", type=float, default=1000.0,
                    help="NVE time units sampled (the paper: 1000)")
    ap.add_argument("--sample", type=float, default=0.1)
    ap.add_argument("--bound", type=float, default=4e-5)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--json", help="write the results here as well")
    a = ap.parse_args()
    a.vesica = os.path.abspath(a.vesica)
    why = skip_reason(a.vesica, a.backend)
    if why:
        print("skip: " + why)
        return 77
    a.n_particles = 4 * a.cells ** 3
    results, fail = [], False
    for dt in a.dt:
        work = os.path.abspath(os.path.join(a.work, "dt%g" % dt))
        os.makedirs(work, exist_ok=True)
        subprocess.run([sys.executable, os.path.join(ROOT, "scaling", "tools", "lattice_h5md.py"),
                        "lattice.h5", "--cells", str(a.cells), "--density", str(a.density)],
                       cwd=work, check=True, stdout=subprocess.DEVNULL)
        r = one_dt(a, dt, work)
        ok = r["delta_E"] < a.bound or dt > 0.004 + 1e-12
        fail |= not ok
        results.append(r)
        print("N = %d, rho = %g, rc = %g, shift %s, %s %s: dt = %g  <E>/N = %.5f  <T> = %.4f  "
              "Delta E = %.2e over %g tau (%d samples)  drift %.1e |E| per tau  %s" %
              (a.n_particles, a.density, a.rc, a.shift, a.backend, a.precision, dt,
               r["E_per_particle"], r["T_mean"], r["delta_E"], a.nve_time, r["samples"],
               r["drift_per_tau_rel"], "ok" if ok else "FAIL (bound %g)" % a.bound), flush=True)
    if a.json:
        write_results(a.json, results)
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
