#!/usr/bin/env bash
# Throughput of GALAMOST's anisotropic benchmark (its Table 1: triblock Janus particles,
# alpha^R 396, alpha^A 132, beta 65 deg, nu 0.5, rho 3, boxes 20^3 to 80^3) on one device,
# against GALAMOST's steps per second on a GTX 680. A benchmark, not a test (issue 49: >= 1e9
# particle-steps/s at 1,536,000).
#
# Usage: scaling/bench/aniso_bench.sh VESICA [BOXES] [STEPS] [--set k=v]...
#   defaults: "20 40 60 80", 1000 steps; e.g. --set backend=cpu --set precision=double
# The system is configs/aniso-triblock.cfg at rho 3 and kT 1 (the table gives neither the
# temperature nor the time step; the config's dt 0.002 and Berendsen thermostat are kept),
# from its random start: 100 steps to relax, then STEPS measured from the checkpoint
# (--restart latest). Figures from perf.json (the step loop only).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
bin=$1; boxes=${2:-20 40 60 80}; steps=${3:-1000}; shift $(( $# < 3 ? $# : 3 ))
extra=("$@")
declare -A galamost=([20]=945.4 [40]=128.2 [60]=37.1 [80]=15.3)
out=$(mktemp -d)
printf "%5s %10s %8s %14s %10s %14s %8s\n" box particles steps particle-steps/s steps/s \
  GALAMOST_steps/s ratio
for L in $boxes; do
  set_=(--set "box=[$L.0, $L.0, $L.0]" --set density=3.0 --set dpd.kT=1.0
        --set "output.dir=$out/b$L" --set output.trajectory_interval=0
        --set output.checkpoint_interval=0 "${extra[@]}")
  "$bin" run "$root/configs/aniso-triblock.cfg" "${set_[@]}" --set output.checkpoint_keep=1 \
    --set integrator.steps=100 --set output.thermo_interval=100 > "$out/b$L.warm.log"
  "$bin" run "$root/configs/aniso-triblock.cfg" "${set_[@]}" --set output.checkpoint_keep=0 \
    --set "integrator.steps=$((100 + steps))" --set "output.thermo_interval=$steps" \
    --restart latest > "$out/b$L.log"
  python3 - "$out/b$L/perf.json" "$L" "${galamost[$L]:-nan}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); ref = float(sys.argv[3])
sps = d["steps"] / d["wall_s"]
print(f'{sys.argv[2]:>5s} {d["particles"]:10d} {d["steps"]:8d} {d["particle_steps_per_s"]:14.4e} '
      f'{sps:10.1f} {ref:14.1f} {sps / ref:8.1f}')
PY
done
grep -h '"device"' "$out"/b*/perf.json | head -1
rm -rf "$out"
