#!/usr/bin/env bash
# Installs what Vesica needs to build and test on Debian/Ubuntu: compilers, CMake, Open MPI,
# parallel HDF5, libconfig, cmocka, dieharder (RNG tests), Python with numpy/h5py (checks),
# MDAnalysis (the H5MD trajectory test reads traj.h5md with its H5MDReader) and matplotlib
# (scaling/bench/scaling.py plots). Slurm for the job-script tests: .ci/slurm-up.sh.
# Runs as root or through sudo. The CUDA toolkit is optional and not installed here: when nvcc
# is on PATH (or in /usr/local/cuda/bin) the GPU backend is compiled too.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps.sh: run as root or install sudo" >&2; exit 1; }
  SUDO=sudo
fi
pkgs="build-essential cmake pkg-config git openmpi-bin libopenmpi-dev libhdf5-openmpi-dev
 hdf5-tools libconfig-dev libcmocka-dev dieharder python3 python3-numpy python3-h5py
 python3-mdanalysis python3-matplotlib python3-scipy"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi
