#!/usr/bin/env bash
# CPU strong scaling of a fixed system over MPI rank counts (a benchmark, not a test).
#
# Usage: scaling/bench/cpu_strong.sh [VESICA] [CONFIG] [RANKS...]
#   defaults: build/vesica, scaling/bench/fluid-200k.cfg, ranks 1 2
# Prints one row per rank count: ranks, particles, steps, loop wall time, particle-steps/s,
# speed-up and parallel efficiency (T1 / (P * TP)), read from each run's perf.json.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/vesica}; cfg=${2:-$here/fluid-200k.cfg}
shift $(( $# >= 2 ? 2 : $# )) || true
ranks=("$@"); [ ${#ranks[@]} -gt 0 ] || ranks=(1 2)
out=$(mktemp -d)
printf "%6s %10s %6s %10s %16s %8s %10s\n" ranks particles steps wall_s particle_steps/s speedup efficiency
t1=""
for p in "${ranks[@]}"; do
  mpiexec --oversubscribe --bind-to core -n "$p" "$bin" run "$cfg" --set "output.dir=$out/np$p" > "$out/np$p.log"
  read -r n steps wall rate < <(/usr/bin/env python3 - "$out/np$p/perf.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["particles"], d["steps"], d["wall_s"], d["particle_steps_per_s"])
PY
)
  [ -n "$t1" ] || t1=$wall
  awk -v p="$p" -v n="$n" -v s="$steps" -v w="$wall" -v r="$rate" -v t1="$t1" \
    'BEGIN { printf "%6d %10d %6d %10.3f %16.4e %8.3f %9.1f%%\n", p, n, s, w, r, t1 / w, 100 * t1 / (p * w) }'
done
rm -rf "$out"
