#!/usr/bin/env bash
# Single-GPU throughput of the Groot-Warren fluid (a benchmark, not a test).
#
# Usage: scaling/bench/gpu_bench.sh [VESICA] [SIZES] [PRECISIONS] [SKINS] [STEPS] [BUILDERS]
#   defaults: build/vesica, "64000 1000000 16000000", "mixed double", "0.3", 500, "thread"
# Each run is a cubic box at rho = 3 (scaling/bench/gpu-fluid.cfg, or the configuration named
# by VESICA_BENCH_CONFIG, e.g. scaling/bench/gpu-soft-dpd.cfg). A warm-up of 50 steps is run
# first and not counted: the figures are those of the measured run's perf.json (the step loop
# only, set-up excluded). Prints one row per run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/vesica}
sizes=${2:-"64000 1000000 16000000"}
precisions=${3:-"mixed double"}
skins=${4:-"0.3"}
steps=${5:-500}
builders=${6:-thread}
cfg=${VESICA_BENCH_CONFIG:-$here/gpu-fluid.cfg}
out=$(mktemp -d)
printf "%10s %8s %6s %6s %10s %14s %10s %9s %9s %9s %9s %9s %8s %8s %7s\n" particles precision skin \
  steps wall_s particle-steps/s steps/s pair_s neigh_s comm_s integ_s out_s builds B/part builder
for n in $sizes; do
  side=$(python3 -c "print(f'{($n / 3.0) ** (1 / 3):.6f}')")
  for prec in $precisions; do
    for skin in $skins; do
     for builder in $builders; do
      common=(--set "neighbor.gpu_builder=$builder" --set "box=[$side, $side, $side]" --set "particles=$n" --set "precision=$prec"
              --set "neighbor.skin=$skin" --set "output.dir=$out/run" --set output.checkpoint_keep=0)
      "$bin" run "$cfg" "${common[@]}" --set integrator.steps=50 > /dev/null
      "$bin" run "$cfg" "${common[@]}" --set "integrator.steps=$steps" \
        --set "output.thermo_interval=$steps" > "$out/log"
      python3 - "$out/run/perf.json" "$prec" "$skin" "$builder" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["phases_s"]
print(f'{d["particles"]:10d} {sys.argv[2]:>8s} {float(sys.argv[3]):6.2f} {d["steps"]:6d} '
      f'{d["wall_s"]:10.4f} {d["particle_steps_per_s"]:14.4e} {d["steps"] / d["wall_s"]:10.1f} '
      f'{p["pair"]:9.4f} {p["neighbor"]:9.4f} {p["comm"]:9.4f} {p["integrate"]:9.4f} '
      f'{p["output"]:9.4f} {d["neighbor_builds"]:8d} {d["memory_bytes_per_particle"]:8.1f} '
      f'{sys.argv[4]:>7s}')
PY
     done
    done
  done
done
grep -h "device" "$out/run/perf.json" || true
rm -rf "$out"
