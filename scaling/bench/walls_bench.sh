#!/usr/bin/env bash
# The walls' speed on one GPU, side by side with the periodic fluid (issue 47: within 5%):
# scaling/bench/gpu_bench.sh on scaling/bench/gpu-fluid.cfg and on gpu-fluid-walls.cfg (the
# same fluid between no-slip walls along z), alternating, REPEATS times each.
#
# Usage: scaling/bench/walls_bench.sh [VESICA] [SIZE] [PRECISION] [STEPS] [REPEATS]
#   defaults: build/vesica, 16000000, mixed, 300, 1
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/vesica}
size=${2:-16000000}
prec=${3:-mixed}
steps=${4:-300}
repeats=${5:-1}
for r in $(seq "$repeats"); do
  for cfg in gpu-fluid gpu-fluid-walls; do
    # the table's row (gpu_bench.sh prints a header first and the device's line last)
    row=$(VESICA_BENCH_CONFIG=$here/$cfg.cfg "$here/gpu_bench.sh" "$bin" "$size" "$prec" 0.3 \
          "$steps" | grep -E '^ *[0-9]+ +(mixed|double) ')
    echo "$cfg $row"
  done
done | awk '{print} {rate[$1] += $7; n[$1]++}
  END {p = rate["gpu-fluid"] / n["gpu-fluid"]; w = rate["gpu-fluid-walls"] / n["gpu-fluid-walls"];
       printf "walls / periodic particle-steps/s: %.4f (%+.1f%%)\n", w / p, 100 * (w / p - 1)}'
