#!/bin/sh
# kremer_grest.sh: the Kremer-Grest melt example end to end (docs/examples.md): the two soft
# push-off runs of the random-walk start, the WCA + FENE melt under Langevin, the analysis.
#
# Usage: scaling/md/kremer_grest.sh [VESICA] [extra --set arguments for the melt run...]
# Run from the repository root; VESICA defaults to build/vesica. Writes out/kg-pushoff-1,
# out/kg-pushoff-2, out/kg-melt and docs/figures/kremer-grest.png (with out/kg-melt/kg.json).
set -eu
V=${1:-build/vesica}
[ $# -gt 0 ] && shift
PY=${PYTHON:-/usr/bin/python3}
"$V" run configs/kremer-grest-pushoff.cfg
"$V" run configs/kremer-grest.cfg --set input.file=out/kg-pushoff-1/traj.h5md \
  --set 'pair=( { style = "soft"; rc = 1.122462; coeff = { M = { M = { alpha = 300.0; }; }; }; } )' \
  --set integrator.dt=0.005 --set integrator.gamma=1.0 --set integrator.steps=2000 \
  --set output.dir=out/kg-pushoff-2 --set output.trajectory_interval=2000 \
  --set output.thermo_interval=200
"$V" run configs/kremer-grest.cfg "$@"
"$PY" scaling/md/kg_analysis.py out/kg-melt --skip 200 --png docs/figures/kremer-grest.png \
  --json out/kg-melt/kg.json
