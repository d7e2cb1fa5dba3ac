#!/usr/bin/env bash
# The cost of binned profiles on one GPU (a benchmark, not a test; issue 26: sampling every
# 10 steps must cost under 3% of the step at 16M particles on one H100). The Groot-Warren
# fluid of scaling/bench/gpu-fluid.cfg, mixed precision, skin 0, without profiles and with
# profiles along z (64 bins, every 10 steps, per species off and on), alternating, REPEATS
# times; a 50-step warm-up of each is not counted; figures from perf.json.
#
# Usage: scaling/bench/profile_cost_bench.sh [VESICA] [N] [STEPS] [REPEATS] [BACKEND]
#   defaults: build/vesica 16000000 500 2 gpu
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/vesica}
n=${2:-16000000}
steps=${3:-500}
repeats=${4:-2}
backend=${5:-gpu}
out=$(mktemp -d)
side=$(python3 -c "print(f'{($n / 3.0) ** (1 / 3):.6f}')")
common=(--set "box=[$side, $side, $side]" --set "particles=$n" --set precision=mixed
        --set neighbor.skin=0 --set "backend=\"$backend\"" --set "output.dir=$out/run" --set output.checkpoint_keep=0)
declare -A sum=()
printf "%8s %12s %14s %10s\n" repeat profiles particle-steps/s steps/s
for r in $(seq "$repeats"); do
  for mode in none all per_species; do
    prof=()
    [ $mode != none ] && prof=(--set 'profiles.axis="z"' --set profiles.bins=64 --set profiles.every=10
                               --set "profiles.window=$steps")
    [ $mode = per_species ] && prof+=(--set 'profiles.per_species="on"')
    "$bin" run "$here/gpu-fluid.cfg" "${common[@]}" "${prof[@]}" --set integrator.steps=50 \
      --set profiles.window=50 > /dev/null 2>&1 || "$bin" run "$here/gpu-fluid.cfg" \
      "${common[@]}" --set integrator.steps=50 > /dev/null
    "$bin" run "$here/gpu-fluid.cfg" "${common[@]}" "${prof[@]}" \
      --set "integrator.steps=$steps" --set "output.thermo_interval=$steps" > "$out/log"
    rate=$(python3 -c "import json; print(json.load(open('$out/run/perf.json'))['particle_steps_per_s'])")
    printf "%8d %12s %14.4e %10.2f\n" "$r" "$mode" "$rate" "$(python3 -c "print($rate / $n)")"
    sum[$mode]=$(python3 -c "print(${sum[$mode]:-0} + $rate)")
  done
done
for mode in all per_species; do
  python3 -c "print(f'profiles $mode: cost {100 * (1 - ${sum[$mode]} / ${sum[none]}):.2f}% of the step (mean of $repeats)')"
done
grep -h '"device"' "$out/run/perf.json" || true
rm -rf "$out"
