#!/bin/sh
# kremer_grest.sh: the Kremer-Grest melt example end to end (docs/examples.md): the two soft
# push-off runs of the random-walk start, the WCA + FENE melt under Langevin (5000 tau), the
# analysis against Kremer & Grest's Table I (N = 20: <R^2>, <R_G^2>, P).
#
# Usage: scaling/tools/kremer_grest.sh [VESICA] [extra --set arguments for the melt run...]
# Run from the repository root; VESICA defaults to build/vesica; RANKS (default 2) MPI ranks
# through mpiexec (RANKS=1: no mpiexec). Writes out/kg-pushoff-1, out/kg-pushoff-2, out/kg-melt
# (with kg.json) and docs/figures/kremer-grest.png. About 10 - 20 minutes on 2 cores.
set -eu
V=${1:-build/vesica}
[ $# -gt 0 ] && shift
PY=${PYTHON:-/usr/bin/python3}
RANKS=${RANKS:-2}
if [ "$RANKS" -gt 1 ]; then
  RUN="mpiexec --oversubscribe -n $RANKS $V"
else
  RUN=$V
fi
$RUN run configs/kremer-grest-pushoff.cfg
$RUN run configs/kremer-grest.cfg --set input.file=out/kg-pushoff-1/traj.h5md \
  --set 'pair=( { style = "soft"; rc = 1.122462; coeff = { M = { M = { alpha = 300.0; }; }; }; } )' \
  --set integrator.dt=0.005 --set integrator.gamma=1.0 --set integrator.steps=2000 \
  --set output.dir=out/kg-pushoff-2 --set output.trajectory_interval=2000 \
  --set output.thermo_interval=200
$RUN run configs/kremer-grest.cfg "$@"
"$PY" scaling/tools/kg_analysis.py out/kg-melt --skip 500 --png docs/figures/kremer-grest.png \
  --json out/kg-melt/kg.json
