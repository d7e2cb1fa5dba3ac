#!/usr/bin/env bash
# The vesicle system in a closed box against the same system periodic, side by side on one
# GPU (issue 47: within 5%): configs/vesicle-closed-box.cfg (rho 5, BBBAABBB triblocks as 10%
# of the beads, bounce-forward walls on all six faces) as it is, and with every axis set back
# to periodic, at the same size, alternating, REPEATS times each. A benchmark, not a test.
#
# Usage: scaling/bench/vesicle_walls_bench.sh [VESICA] [SIZE] [STEPS] [PRECISION] [REPEATS] [WARM]
#   defaults: build/vesica, 16000000, 300, mixed, 1, 50. Each run is preceded by a run of
#   WARM steps (not counted; 0: none). Both start from the configuration's random start (its
#   first ~100 steps stretch bonds, hence bonded.reach 3.0, the same in both). Figures from
#   perf.json (the step loop only, set-up excluded). Prints one row per run and the ratio.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
bin=${1:-build/vesica}
size=${2:-16000000}
steps=${3:-300}
prec=${4:-mixed}
repeats=${5:-1}
warm=${6:-50}
cfg=$root/configs/vesicle-closed-box.cfg
out=$(mktemp -d)
side=$(python3 -c "print(f'{($size / 5.0) ** (1 / 3):.6f}')")
printf "%10s %8s %10s %6s %14s %10s %9s %9s %9s %8s\n" particles box precision steps \
  particle-steps/s steps/s pair_s neigh_s comm_s builds
for r in $(seq "$repeats"); do
  for kind in periodic closed; do
    common=(--set "box=[$side, $side, $side]" --set backend=gpu --set "precision=$prec"
            --set "output.dir=$out/$kind" --set output.checkpoint_interval=0
            --set output.trajectory_interval=0 --set output.checkpoint_keep=0)
    if [ $kind = periodic ]; then
      for a in x y z; do common+=(--set "boundary.$a.kind=\"periodic\""); done
    fi
    [ "$warm" -gt 0 ] && "$bin" run "$cfg" "${common[@]}" --set "integrator.steps=$warm" > /dev/null
    "$bin" run "$cfg" "${common[@]}" --set "integrator.steps=$steps" \
      --set "output.thermo_interval=$steps" > "$out/$kind.log"
    python3 - "$out/$kind/perf.json" "$kind" "$prec" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["phases_s"]
print(f'{d["particles"]:10d} {sys.argv[2]:>8s} {sys.argv[3]:>10s} {d["steps"]:6d} '
      f'{d["particle_steps_per_s"]:14.4e} {d["steps"] / d["wall_s"]:10.1f} {p["pair"]:9.4f} '
      f'{p["neighbor"]:9.4f} {p["comm"]:9.4f} {d["neighbor_builds"]:8d}')
PY
  done
done | awk '{print} $2 == "periodic" || $2 == "closed" {rate[$2] += $5; n[$2]++}
  END {p = rate["periodic"] / n["periodic"]; c = rate["closed"] / n["closed"];
       printf "closed / periodic particle-steps/s: %.4f (%+.1f%%)\n", c / p, 100 * (c / p - 1)}'
grep -h "device" "$out/periodic/perf.json" || true
rm -rf "$out"
