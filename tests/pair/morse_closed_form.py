#!/usr/bin/env python3
"""The morse pair style against its closed form, computed here with numpy (runs without
LAMMPS; lammps_pair.py compares the same case with LAMMPS's pair_style morse).

Usage: morse_closed_form.py VESICA_BINARY WORKDIR

The configuration of lammps_pair.py (256 particles of two species, one step of dt 1e-4 at
zero velocities, no DPD forces) with pair_cases.MORSE: three species pairs with their own
D0, alpha, r0 and cut-off, shifted. From the positions of the step-1 checkpoint, every pair
within its cut-off (minimum image) gives
  U = D0 (exp(-2 alpha (r - r0)) - 2 exp(-alpha (r - r0))) - U(rc)
  F = 2 alpha D0 (exp(-2 alpha (r - r0)) - exp(-alpha (r - r0)))  (along r_ij, on i)
and the virial sum F r. The forces of the checkpoint must agree to 1e-10 of the largest
force, the potential energy and the virial of thermo.csv to 1e-10 relative; and the pair
forces must be -dU/dr (central differences, 1e-6). Exits 77 (skip) without numpy/h5py.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def morse(r, d0, alpha, r0):
    e = np.exp(-alpha * (r - r0))
    return d0 * (e * e - 2 * e), 2 * alpha * d0 * (e * e - e)


def closed_form(x, sp, box):
    """Forces, energy and virial of pair_cases.MORSE_COEFF on positions x."""
    import pair_cases
    n = len(x)
    force = np.zeros_like(x)
    energy = virial = 0.0
    for i in range(n - 1):
        d = x[i] - x[i + 1:]
        d -= box * np.round(d / box)
        r = np.sqrt((d * d).sum(axis=1))
        for k, j in enumerate(range(i + 1, n)):
            key = tuple(sorted(("AB"[sp[i]], "AB"[sp[j]])))
            d0, alpha, r0, rc = pair_cases.MORSE_COEFF[key]
            rc = pair_cases.MORSE_RC if rc is None else rc
            if r[k] >= rc:
                continue
            u, f = morse(r[k], d0, alpha, r0)
            energy += u - morse(rc, d0, alpha, r0)[0]
            virial += f * r[k]
            force[i] += f * d[k] / r[k]
            force[j] -= f * d[k] / r[k]
    return force, energy, virial


def derivative_check():
    """F = -dU/dr of the closed form itself, on both sides of r0."""
    r = np.linspace(0.7, 2.4, 50)
    h = 1e-6
    u_hi, u_lo = morse(r + h, 1.3, 2.5, 1.0)[0], morse(r - h, 1.3, 2.5, 1.0)[0]
    return np.abs(morse(r, 1.3, 2.5, 1.0)[1] + (u_hi - u_lo) / (2 * h)).max()


def main():
    global np
    try:
        import h5py  # noqa: F401
        import numpy as np
    except ImportError:
        print("skip: numpy/h5py missing")
        return 77
    import pair_cases
    from lammps_pair import read_step1
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    lattice = os.path.join(work, "lattice.h5")
    subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "scaling", "tools",
                                                 "lattice_h5md.py"), lattice, "--cells", "4",
                    "--density", "0.8", "--species", "2", "--jitter", "0.15", "--seed", "5"],
                   check=True, stdout=subprocess.DEVNULL)
    box = (4 / 0.8) ** (1 / 3) * 4
    out = os.path.join(work, "morse")
    cfg = os.path.join(work, "morse.cfg")
    with open(cfg, "w") as c:
        c.write(pair_cases.config(pair_cases.MORSE, None, lattice, out, ""))
    subprocess.run([binary, "run", cfg], check=True, stdout=subprocess.DEVNULL)
    x, sp, force, row = read_step1(out)
    ref_f, ref_e, ref_w = closed_form(x, sp, box)
    n, volume = len(x), box ** 3
    pvir = row["pressure"] - n * row["temperature"] / volume
    df = np.abs(force - ref_f).max() / np.abs(ref_f).max()
    de = abs(row["potential_energy"] - ref_e) / abs(ref_e)
    dw = abs(3 * volume * pvir - ref_w) / abs(ref_w)
    dd = derivative_check()
    ok = df < 1e-10 and de < 1e-10 and dw < 1e-10 and dd < 1e-6
    print("morse force %.2e  energy %.2e (%.12g vs %.12g)  virial %.2e  -dU/dr %.2e  %s" %
          (df, de, row["potential_energy"], ref_e, dw, dd, "ok" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
