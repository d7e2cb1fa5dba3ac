#!/usr/bin/env bash
# Per-kernel GPU time and DRAM traffic of a few steps of the Groot-Warren fluid, with Nsight
# Compute (a profiling aid, not a benchmark: ncu serialises kernels and replays them).
# Usage: scaling/bench/gpu_profile.sh VESICA PARTICLES [PRECISION] [STEPS] [--set key=value]...
# Prints ncu's per-kernel summary: gpu__time_duration (ns), dram__bytes_read/write (bytes).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$1; n=$2; prec=${3:-mixed}; steps=${4:-4}; shift $(( $# < 4 ? $# : 4 ))
side=$(python3 -c "print(f'{($n / 3.0) ** (1 / 3):.6f}')")
out=$(mktemp -d)
ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  --print-summary per-kernel \
  "$bin" run "$here/gpu-fluid.cfg" --set "box=[$side, $side, $side]" --set "particles=$n" \
  --set "precision=$prec" --set "integrator.steps=$steps" --set "output.dir=$out" \
  --set output.checkpoint_keep=0 "$@" 2>&1
rm -rf "$out"
