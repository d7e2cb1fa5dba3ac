#!/bin/sh
# kremer_grest.sh: the Kremer-Grest melt example end to end (docs/examples.md): the two soft
# push-off runs of the random-walk start, the WCA + FENE melt under Langevin (5000 tau), the
# analysis against Kremer & Grest's Table I (N = 20: <R^2>, <R_G^2>, P).
#
# Usage: scaling/tools/kremer_grest.sh [VESICA] [extra --set arguments for the melt run...]
# Run from the repository root; VESICA defaults to build/vesica; RANKS (default 2) MPI ranks
# through mpiexec (RANKS=1: no mpiexec; as root, Open MPI is allowed to run as root, as the
# quick start does in containers). Writes out/kg-pushoff-1, out/kg-pushoff-2, out/kg-melt (with
# kg.json and kremer-grest.png; FIGURE=docs/figures/kremer-grest.png updates the shipped
# figure instead). About 10 - 20 minutes on 2 cores.
set -eu
V=${1:-build/vesica}
[ $# -gt 0 ] && shift
PY=${PYTHON:-/usr/bin/python3}
RANKS=${RANKS:-2}
FIGURE=${FIGURE:-out/kg-melt/kremer-grest.png}
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
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
"$PY" scaling/tools/kg_analysis.py out/kg-melt --skip 500 --png "${FIGURE}" \
  --json out/kg-melt/kg.json
