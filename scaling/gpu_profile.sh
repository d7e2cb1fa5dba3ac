#!/usr/bin/env bash
# Per-kernel GPU time of a few steps of the Groot-Warren fluid, with Nsight Compute
# (a profiling aid, not a benchmark: ncu serialises kernels).
# Usage: scaling/gpu_profile.sh VESICA PARTICLES [PRECISION] [STEPS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$1; n=$2; prec=${3:-mixed}; steps=${4:-4}
side=$(python3 -c "print(f'{($n / 3.0) ** (1 / 3):.6f}')")
out=$(mktemp -d)
ncu --metrics gpu__time_duration.sum --print-summary per-kernel \
  "$bin" run "$here/gpu-fluid.cfg" --set "box=[$side, $side, $side]" --set "particles=$n" \
  --set "precision=$prec" --set "integrator.steps=$steps" --set "output.dir=$out" 2>&1
rm -rf "$out"
