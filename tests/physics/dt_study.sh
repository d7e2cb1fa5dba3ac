#!/usr/bin/env bash
# How the Groot-Warren fluid's temperature and pressure drift with the time step (a
# validation study for docs/validation.md, not a test).
# Usage: tests/physics/dt_study.sh VESICA [BACKEND] [PRECISION] [BOX]
# Runs rho = 3, a = 25, gamma = 4.5, kT = 1 for 200 time units (the first 20 dropped) at
# dt = 0.01, 0.02, 0.04, 0.06 with lambda = 0.5, and at 0.04, 0.06 with lambda = 0.65.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$1; backend=${2:-cpu}; prec=${3:-double}; box=${4:-10}
out=$(mktemp -d)
for spec in 0.01:0.5 0.02:0.5 0.04:0.5 0.06:0.5 0.04:0.65 0.06:0.65; do
  dt=${spec%:*}; lambda=${spec#*:}
  steps=$(python3 -c "print(round(200 / $dt))")
  every=$(python3 -c "print(max(1, round(0.1 / $dt)))")
  "$bin" run "$here/groot-warren.cfg" --set "integrator.dt=$dt" --set "integrator.lambda=$lambda" \
    --set "integrator.steps=$steps" --set "output.thermo_interval=$every" --set "backend=$backend" \
    --set "precision=$prec" --set "box=[$box, $box, $box]" --set "output.dir=$out/run" > /dev/null
  echo "dt = $dt, lambda = $lambda ($steps steps, $backend $prec, box $box):"
  python3 "$here/check_thermo.py" "$out/run/thermo.csv" --skip-time 20 --report temperature \
    --report pressure
done
rm -rf "$out"
