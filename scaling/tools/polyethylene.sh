#!/bin/sh
# polyethylene.sh: the united-atom polyethylene example end to end (docs/examples.md): build the
# chains (scaling/tools/pe_build.py), 10 ps of Langevin dynamics, then configs/polyethylene.cfg
# (Nose-Hoover NVT at 1000 K, 40 ps), and compare the bond lengths and angles with the
# bonded terms' Boltzmann laws (scaling/tools/pe_analysis.py).
#
# Usage: scaling/tools/polyethylene.sh [VESICA] [extra --set arguments for the run...]
# Run from the repository root; VESICA defaults to build/vesica. Writes out/pe-build/pe.data,
# out/pe-equil and out/pe-melt (with pe.json and polyethylene.png;
# FIGURE=docs/figures/polyethylene.png updates the shipped figure instead).
# Environment: CHAINS and SITES (default 40 and 24; Xu et al.'s system I is CHAINS=64
# SITES=300 DENSITY=12.0, in a cubic box), DENSITY (sites per nm^3, default 10.55, the
# paper's Table III systems II, IV and VII).
set -eu
V=${1:-build/vesica}
[ $# -gt 0 ] && shift
PY=${PYTHON:-/usr/bin/python3}
FIGURE=${FIGURE:-out/pe-melt/polyethylene.png}
LANGEVIN='kind = "langevin"; gamma = 5.0; dt = 0.001; steps = 10000; remove_com_every = 100;'
mkdir -p out/pe-build
# bonds, angles and dihedrals start as draws from their Boltzmann laws at 1000 K, so that
# the stiff bonds start with their share of the energy
"$PY" scaling/tools/pe_build.py out/pe-build/pe.data --chains "${CHAINS:-40}" \
  --sites "${SITES:-24}" --density "${DENSITY:-10.55}" --kT 8.3145
# 10 ps of Langevin dynamics first: Nose-Hoover alone shares the energy that the first
# picoseconds release with the stiff bonds only slowly (docs/examples.md)
"$V" run configs/polyethylene.cfg --set 'output.dir="out/pe-equil"' \
  --set "integrator={ $LANGEVIN }" \
  --set output.trajectory_interval=10000
# the Nose-Hoover run of the paper from its last frame (positions, velocities, topology)
"$V" run configs/polyethylene.cfg \
  --set 'input={ format = "h5md"; file = "out/pe-equil/traj.h5md"; }' \
  --set integrator.steps=40000 "$@"
"$PY" scaling/tools/pe_analysis.py out/pe-melt --kT 8.3145 --skip 0 \
  --png "${FIGURE}" --json out/pe-melt/pe.json
